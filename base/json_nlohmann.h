// SPDX-License-Identifier: GPL-2.0-or-later
// The strict reader's values (json_reader.h) as nlohmann-json documents: to write a parsed
// value back, or to quote a wrong value in a message as nlohmann prints it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "base/json_reader.h"

namespace railguard {

// True with `*out` when `v` is a number written as an integer that fits a long long.
bool JsonAsInt64(const JsonValue& v, long long* out);

// `v` as nlohmann's own parser would hold it: integers stay integers (unsigned when they fit
// 0 .. 2^64-1, else signed when they fit), other numbers doubles; objects keyed by name.
nlohmann::json ToNlohmannJson(const JsonValue& v);

}  // namespace railguard
