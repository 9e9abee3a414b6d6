// SPDX-License-Identifier: GPL-2.0-or-later
// The wording of a syntax error in railcheck's state and baseline files. The files are read
// with the strict reader (base/json_reader.h); their messages keep the words they had when
// nlohmann-json read them ("syntax error while parsing object separator - unexpected number
// literal; expected ':'"), which operators and tests match on.
#pragma once

#include <string>
#include <string_view>

#include "base/json_reader.h"

namespace railguard::health {

// "FILE:LINE:COLUMN: syntax error while parsing CONTEXT - WHAT[; expected X]" for the error
// `e` the strict reader found in `text`, or "FILE: number overflow parsing 'TOKEN'" for a
// number beyond a double. LINE and COLUMN name the last byte read (the end of input when it
// ran out).
std::string StateSyntaxError(std::string_view text, const JsonError& e, const std::string& file);

}  // namespace railguard::health
