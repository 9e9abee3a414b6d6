// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/words.h"

namespace railguard {

std::string Plural(long long n, std::string_view one, std::string_view many) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(one);
  if (many.empty()) return out.append(one).append("s");
  return out.append(many);
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace railguard
