// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>

#include "base/names.h"
#include "base/numbers.h"

namespace railguard {

bool ParseYaml(const std::string& text, const std::string& file, YAML::Node* root,
               Diags* diags) {
  try {
    *root = YAML::Load(text);
    return true;
  } catch (const YAML::ParserException& e) {
    diags->push_back(Diag{file, e.mark.line + 1, e.mark.column + 1,
                          "YAML syntax error: " + EscapeNonPrintable(e.msg)});
  } catch (const std::exception& e) {
    diags->push_back(Diag{file, 0, 0, "cannot read YAML: " + EscapeNonPrintable(e.what())});
  }
  return false;
}

void YamlReader::Error(const YAML::Node& at, const std::string& msg) {
  Diag d;
  d.file = file_;
  if (at.IsDefined() && at.Mark().line >= 0) {
    d.line = at.Mark().line + 1;
    d.column = at.Mark().column + 1;
  }
  d.message = EscapeNonPrintable(msg);
  diags_->push_back(std::move(d));
  ++errors_;
}

void YamlReader::ErrorAtLine(int line, const std::string& msg, int column) {
  diags_->push_back(Diag{file_, line, column, EscapeNonPrintable(msg)});
  ++errors_;
}

bool YamlReader::ParseRootMapOf(const std::string& text, const std::string& keys,
                                YAML::Node* root) {
  if (!ParseYaml(text, file_, root, diags_)) return false;
  if (root->IsMap()) return true;
  ErrorAtLine(1, "expected a mapping with keys: " + keys, 1);
  return false;
}

bool YamlReader::CheckMapKeys(const YAML::Node& node, const char* const* keys, size_t n,
                              const std::string& what) {
  std::string expected;
  for (size_t i = 0; i < n; ++i) expected += (i ? ", " : "") + std::string(keys[i]);
  if (!node.IsMap()) {
    Error(node, what + " must be a mapping with keys: " + expected);
    return false;
  }
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (std::find_if(keys, keys + n, [&](const char* k) { return key == k; }) == keys + n) {
      Error(kv.first, "unknown key '" + key + "' in " + what + "; expected one of: " + expected);
    } else if (!seen.insert(key).second) {
      Error(kv.first, "key '" + key + "' appears twice in " + what);
    }
  }
  return true;
}

YAML::Node YamlReader::Field(const YAML::Node& map, const char* key, const std::string& what,
                             bool required) {
  if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node v = map[key];
  if (!v.IsDefined() && required) Error(map, "missing key '" + std::string(key) + "' in " + what);
  return v;
}

YAML::Node YamlReader::KeyNode(const YAML::Node& map, const char* key) {
  for (const auto& kv : map)
    if (kv.first.Scalar() == key) return kv.first;
  return YAML::Node(YAML::NodeType::Undefined);
}

bool YamlReader::ReadString(const YAML::Node& v, const std::string& what, std::string* out) {
  if (!v.IsScalar() || v.Scalar().empty()) {
    Error(v, "expected a non-empty string for " + what);
    return false;
  }
  *out = v.Scalar();
  return true;
}

bool YamlReader::ReadName(const YAML::Node& v, const std::string& what, std::string* out) {
  if (!ReadString(v, what, out)) return false;
  if (!IsSafeName(*out)) {
    Error(v, "invalid " + what + " '" + *out +
                 "'; expected 1 to 64 letters, digits, '-', '_' or '.'");
    return false;
  }
  return true;
}

bool YamlReader::ReadInt(const YAML::Node& v, const std::string& what, long lo, long hi,
                         long* out) {
  const std::string s = v.IsScalar() ? v.Scalar() : std::string();
  long n = 0;
  if (!ParseLong(s, lo, hi, &n)) {
    Error(v, "invalid " + what + " '" + s + "'; expected an integer from " +
                 std::to_string(lo) + " to " + std::to_string(hi));
    return false;
  }
  *out = n;
  return true;
}

}  // namespace railguard
