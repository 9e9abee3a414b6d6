// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/text_util.h"

#include <cstdio>

namespace railguard::report {

std::string JoinStrings(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

std::string RatePerHour(double per_hour) {
  char buf[32];
  std::snprintf(buf, sizeof buf, per_hour >= 10 ? "%.0f/h" : "%.1f/h", per_hour);
  return buf;
}

}  // namespace railguard::report
