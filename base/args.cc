// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/args.h"

#include <cstdio>

#include "base/file_util.h"

namespace railguard {

Args::Args(int argc, char** argv, const std::vector<FlagSpec>& specs) {
  bool flags_done = false;
  for (int i = 1; i < argc && error_.empty(); ++i) {
    std::string arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    std::string name;
    std::string value;
    bool has_value = false;
    if (arg[1] == '-') {
      name = arg.substr(2);
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_value = true;
      }
    } else {
      name = arg.substr(1);
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& s : specs)
      if (s.name == name || (name.size() == 1 && s.short_name == name[0])) spec = &s;
    if (!spec) {
      error_ = "unknown option '" + arg + "'";
      break;
    }
    if (spec->takes_value && !has_value) {
      if (i + 1 >= argc) {
        error_ = "option '" + arg + "' needs a value";
        break;
      }
      value = argv[++i];
    } else if (!spec->takes_value && has_value) {
      error_ = "option '--" + spec->name + "' takes no value";
      break;
    }
    values_[spec->name].push_back(value);
  }
}

std::string Args::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>() : it->second;
}

bool WriteOutput(const std::string& path, const std::string& text, std::string* err) {
  if (path.empty() || path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout)) {
      *err = "cannot write to standard output";
      return false;
    }
    return true;
  }
  FileError e;
  if (!ReplaceFile(path, text, &e, TempName::kSuffix)) {
    *err = e.Message();
    return false;
  }
  return true;
}

}  // namespace railguard
