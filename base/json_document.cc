// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/json_document.h"

#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace railguard {
namespace {

// An integer literal that fits a long long, as strtoll reads the whole of it.
bool AsSigned(const JsonValue& v, long long* out) {
  if (!v.integral) return false;
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.text.c_str(), &end, 10);
  if (errno == ERANGE || end != v.text.c_str() + v.text.size()) return false;
  *out = n;
  return true;
}

}  // namespace

nlohmann::json ToJsonDocument(const JsonValue& v) {
  using nlohmann::json;
  switch (v.type) {
    case JsonValue::Type::kNull:
      return nullptr;
    case JsonValue::Type::kBool:
      return v.boolean;
    case JsonValue::Type::kString:
      return v.text;
    case JsonValue::Type::kNumber: {
      uint64_t u = 0;
      long long i = 0;
      if (v.AsUint64(&u)) return u;
      if (AsSigned(v, &i)) return i;
      return v.number;
    }
    case JsonValue::Type::kArray: {
      json a = json::array();
      for (const JsonValue& item : v.items) a.push_back(ToJsonDocument(item));
      return a;
    }
    case JsonValue::Type::kObject: {
      json o = json::object();
      for (const auto& m : v.members) o[m.first] = ToJsonDocument(m.second);
      return o;
    }
  }
  return nullptr;
}

}  // namespace railguard
