// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/numbers.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace railguard {
namespace {

bool IsDecimalDigit(char c) { return c >= '0' && c <= '9'; }

// White space as C's isspace() in the "C" locale.
bool IsCSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace

bool ParseDigits(std::string_view s, uint64_t lo, uint64_t hi, uint64_t* out, size_t max_chars) {
  if (s.empty() || s.size() > max_chars) return false;
  for (char c : s)
    if (!IsDecimalDigit(c)) return false;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool ParseDigits(std::string_view s, int lo, int hi, int* out, size_t max_chars) {
  if (lo < 0 || hi < lo) return false;
  uint64_t v = 0;
  if (!ParseDigits(s, static_cast<uint64_t>(lo), static_cast<uint64_t>(hi), &v, max_chars))
    return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseLong(std::string_view s, long lo, long hi, long* out) {
  size_t i = 0;
  while (i < s.size() && IsCSpace(s[i])) ++i;
  const bool plus = i < s.size() && s[i] == '+';  // from_chars takes '-' but not '+'
  if (plus) ++i;
  const char* first = s.data() + i;
  const char* last = s.data() + s.size();
  if (first == last) return false;
  if (*first == '-' ? plus || first + 1 == last || !IsDecimalDigit(first[1])
                    : !IsDecimalDigit(*first))
    return false;
  long v = 0;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || end != last || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool ParseStrtod(std::string_view s, double* out) {
  if (s.empty()) return false;
  const std::string copy(s);  // strtod needs the terminating NUL
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return false;
  *out = v;
  return true;
}

bool ParseDecimal(std::string_view s, const DecimalSyntax& syntax, double* out) {
  if (s.size() > syntax.max_chars) return false;
  size_t i = 0;
  if (syntax.allow_minus && i < s.size() && s[i] == '-') ++i;
  const size_t int_start = i;
  while (i < s.size() && IsDecimalDigit(s[i])) ++i;
  size_t digits = i - int_start;
  if (i < s.size() && s[i] == '.') {
    const bool digits_before = digits > 0;
    ++i;
    const size_t frac_start = i;
    while (i < s.size() && IsDecimalDigit(s[i])) ++i;
    digits += i - frac_start;
    if (!syntax.allow_bare_point && (!digits_before || i == frac_start)) return false;
  }
  if (digits == 0 || i != s.size()) return false;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return false;
  *out = v == 0 ? 0 : v;  // "-0" reads as 0: a -0 would print as "-0.000" further on
  return true;
}

}  // namespace railguard
