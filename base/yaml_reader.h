// SPDX-License-Identifier: GPL-2.0-or-later
// Shared machinery for railguard's strict YAML files: positions, key checks and typed reads,
// each problem reported as file:line:column with what was expected.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "base/diag.h"

namespace railguard {

// "a, b, c" from a key table.
template <size_t N>
std::string JoinKeys(const char* const (&keys)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += (i ? ", " : "") + std::string(keys[i]);
  return out;
}

// Parses `text` into `*root`. A syntax error is one diagnostic with its position; returns
// false then. Never throws.
bool ParseYaml(const std::string& text, const std::string& file, YAML::Node* root,
               Diags* diags);

// Base of the loaders: appends diagnostics for one file and counts them.
class YamlReader {
 public:
  YamlReader(std::string file, Diags* diags) : file_(std::move(file)), diags_(diags) {}

  int errors() const { return errors_; }
  const std::string& file() const { return file_; }
  Diags* diags() const { return diags_; }

  // Appends "file:line:col: msg" at `at` (position left out when `at` has none).
  void Error(const YAML::Node& at, const std::string& msg);
  // Appends "file:line:column: msg" (1-based; 0 leaves the part out).
  void ErrorAtLine(int line, const std::string& msg, int column = 0);

  // Parses `text` into `*root`, which must be a mapping: a syntax error, or a document that
  // is no mapping ("1:1: expected a mapping with keys: <keys>"), is one diagnostic and false.
  template <size_t N>
  bool ParseRootMap(const std::string& text, const char* const (&keys)[N], YAML::Node* root) {
    return ParseRootMapOf(text, JoinKeys(keys), root);
  }

  // Reports unknown and repeated keys of `node`; false (with an error) if it is no mapping.
  template <size_t N>
  bool CheckMap(const YAML::Node& node, const char* const (&keys)[N], const std::string& what) {
    return CheckMapKeys(node, keys, N, what);
  }

  // The value of `key` in `map`, or an undefined node (with an error if `required`).
  YAML::Node Field(const YAML::Node& map, const char* key, const std::string& what,
                   bool required);

  // The node of `key` itself in `map`, for positions where the value is empty.
  static YAML::Node KeyNode(const YAML::Node& map, const char* key);

  // Each returns false, with an error naming `what` and the expected form, when `v` does
  // not hold such a value.
  bool ReadString(const YAML::Node& v, const std::string& what, std::string* out);
  // 1 to 64 letters, digits, '-', '_' or '.': names that go into Slurm configs and reports.
  bool ReadName(const YAML::Node& v, const std::string& what, std::string* out);
  bool ReadInt(const YAML::Node& v, const std::string& what, long lo, long hi, long* out);

 private:
  bool ParseRootMapOf(const std::string& text, const std::string& keys, YAML::Node* root);
  bool CheckMapKeys(const YAML::Node& node, const char* const* keys, size_t n,
                    const std::string& what);

  std::string file_;
  Diags* diags_;
  int errors_ = 0;
};

}  // namespace railguard
