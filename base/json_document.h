// SPDX-License-Identifier: GPL-2.0-or-later
// A value of the JSON reader (base/json_reader.h) as an nlohmann-json document, to write
// back what was read or to show a value as nlohmann prints it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "base/json_reader.h"

namespace railguard {

// `v` as nlohmann's own parser would hold it: an integer literal as an unsigned number when
// it fits 64 bits, else as a signed one when it fits, any other number as a double; objects
// keep their members (nlohmann orders the keys).
nlohmann::json ToJsonDocument(const JsonValue& v);

}  // namespace railguard
