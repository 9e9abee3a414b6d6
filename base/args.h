// SPDX-License-Identifier: GPL-2.0-or-later
// A small command-line flag parser shared by railctl's subcommand handlers.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace railguard {

struct FlagSpec {
  std::string name;        // long name without dashes, e.g. "format"
  char short_name = 0;     // e.g. 'o'; 0 for none
  bool takes_value = false;
};

// Parses argv[1..argc) against `specs`. Accepts "--name value", "--name=value", "-o value";
// "--" ends flags. Anything not starting with '-' is positional. Repeated flags accumulate.
class Args {
 public:
  Args(int argc, char** argv, const std::vector<FlagSpec>& specs);

  // False if a flag was unknown or lacked its value; error() then says which.
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The last value given for `name`, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  // Every value given for `name`, in order.
  std::vector<std::string> GetAll(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
  std::string error_;
};

// Writes `text` to `path` atomically (ReplaceFile: "<path>.tmp.<pid>", then rename; a device,
// FIFO or socket such as /dev/null is written in place, never replaced), or to stdout when
// `path` is empty or "-". Returns false with `*err` set on failure; a failed write leaves any
// existing file untouched.
bool WriteOutput(const std::string& path, const std::string& text, std::string* err);

}  // namespace railguard
