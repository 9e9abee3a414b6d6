// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/json_document.h"

#include <nlohmann/json.hpp>

namespace railguard {

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
      if (v.AsInt64(&i)) return i;
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
