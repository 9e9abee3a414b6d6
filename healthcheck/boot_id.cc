// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/boot_id.h"

#include <cctype>

namespace railguard::health {

bool ParseBootId(const std::string& text, std::string* out, std::string* expected) {
  *expected = "a UUID such as \"0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b\"";
  std::string s = text;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (dash ? c != '-' : !std::isxdigit(c)) return false;
    s[i] = static_cast<char>(std::tolower(c));
  }
  *out = s;
  return true;
}

}  // namespace railguard::health
