// SPDX-License-Identifier: GPL-2.0-or-later
// Small text pieces the report's builders and renderers share: joined lists, rates per hour.
#pragma once

#include <string>
#include <vector>

namespace railguard::report {

// The items of `v` with `sep` between them; no separator is added while the text so far is
// empty (leading empty items leave no separator behind).
std::string JoinStrings(const std::vector<std::string>& v, const char* sep = ", ");

// An event rate as the report shows it: "12/h" from 10 per hour up, else "0.5/h".
std::string RatePerHour(double per_hour);

}  // namespace railguard::report
