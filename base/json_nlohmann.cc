// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/json_nlohmann.h"

#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace railguard {

bool JsonAsInt64(const JsonValue& v, long long* out) {
  if (!v.is_number() || !v.integral) return false;
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.text.c_str(), &end, 10);
  if (errno == ERANGE || end != v.text.c_str() + v.text.size()) return false;
  *out = n;
  return true;
}

nlohmann::json ToNlohmannJson(const JsonValue& v) {
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
      if (JsonAsInt64(v, &i)) return i;
      return v.number;
    }
    case JsonValue::Type::kArray: {
      json a = json::array();
      for (const JsonValue& item : v.items) a.push_back(ToNlohmannJson(item));
      return a;
    }
    case JsonValue::Type::kObject: {
      json o = json::object();
      for (const auto& m : v.members) o[m.first] = ToNlohmannJson(m.second);
      return o;
    }
  }
  return nullptr;
}

}  // namespace railguard
