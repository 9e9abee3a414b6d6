// SPDX-License-Identifier: GPL-2.0-or-later
// Words in messages: a count with its noun, and ASCII lower case (GUIDs, switch names and
// Slurm's parameters, compared without regard to case; never locale-dependent).
#pragma once

#include <string>
#include <string_view>

namespace railguard {

// "1 leaf", "3 leaves": `n`, a space, then `one` when n is 1, else `many` (`one` + "s" when
// `many` is empty). Negative counts take `many`.
std::string Plural(long long n, std::string_view one, std::string_view many = {});

// `s` with ASCII 'A'-'Z' made 'a'-'z'; every other byte as it was (UTF-8 stays intact).
std::string AsciiLower(std::string_view s);

}  // namespace railguard
