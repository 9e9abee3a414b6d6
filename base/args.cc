#include "base/args.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = "cannot write " + tmp + ": " + std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    *err = "cannot write " + tmp + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *err = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace railguard
