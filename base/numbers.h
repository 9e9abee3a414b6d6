// SPDX-License-Identifier: GPL-2.0-or-later
// Number parsing shared by every reader: whole strings only, with the syntax each caller
// documents (digits only, C's strtol/strtod syntax, or a plain decimal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace railguard {

// Decimal digits only (no sign, no spaces, at least one, leading zeros allowed), at most
// `max_chars` of them, with a value from `lo` to `hi`. False (and `*out` untouched) otherwise,
// also when the value does not fit 64 bits.
bool ParseDigits(std::string_view s, uint64_t lo, uint64_t hi, uint64_t* out,
                 size_t max_chars = std::numeric_limits<size_t>::max());
// The same for an int range.
bool ParseDigits(std::string_view s, int lo, int hi, int* out,
                 size_t max_chars = std::numeric_limits<size_t>::max());

// A whole string as C's strtol(s, &end, 10) reads it: leading white space, an optional '+'
// or '-', digits; nothing after them. False when out of `long` range or outside [lo, hi].
bool ParseLong(std::string_view s, long lo, long hi, long* out);

// A whole string as C's strtod reads it (leading white space, sign, exponent, hex, inf and
// nan included), in the "C" locale. No range check: the caller bounds the value.
bool ParseStrtod(std::string_view s, double* out);

// The syntax of ParseDecimal.
struct DecimalSyntax {
  bool allow_minus = false;        // a leading '-' (no '+')
  bool allow_bare_point = true;    // ".5" and "5." (else the point needs digits both sides)
  size_t max_chars = 40;           // longer strings are refused
};

// A plain decimal: optional '-', digits, optionally '.' and digits (at least one digit in
// all); no exponent, no spaces. "-0" reads as 0. False for anything else.
bool ParseDecimal(std::string_view s, const DecimalSyntax& syntax, double* out);

}  // namespace railguard
