// SPDX-License-Identifier: GPL-2.0-or-later
// Names as railguard accepts and orders them: the safe name alphabet (and those of state
// words and check names), two natural orders
// (by number value, and Slurm's strnatcmp), and lookups in Slurm's comma-separated lists.
#pragma once

#include <string>
#include <string_view>

namespace railguard {

// The most bytes IsSafeName accepts.
constexpr size_t kMaxSafeNameBytes = 64;

// True for 1 to 64 ASCII letters, digits, '-', '_' or '.': host, switch, rail, SU and
// feature names (nothing a shell, a YAML or a Slurm --constraint expression would read).
bool IsSafeName(std::string_view s);

// True for 1 to 64 lower-case ASCII letters, digits or '_': Slurm's node state flags and
// job states as railguard reads them ("drain", "not_responding", "running").
bool IsStateWord(std::string_view s);

// The most bytes IsCheckName accepts.
constexpr size_t kMaxCheckNameBytes = 128;

// True for 1 to 128 lower-case ASCII letters, digits, '.' or '_': the names of railcheck's
// checks as its reports carry them ("port.rate", "gpu.count").
bool IsCheckName(std::string_view s);

// Natural order by number value: digit runs compare by value ("mlx5_3" < "mlx5_10"), at
// equal value the run with fewer leading zeros first ("n01" < "n001"), other bytes as
// unsigned chars, a prefix before the longer string. A strict weak ordering.
bool NaturalLess(std::string_view a, std::string_view b);

// Slurm's strnatcmp(): white space is skipped, digit runs compare as numbers unless one
// starts with '0' (then digit by digit, as fractions), other bytes as signed chars.
// Negative, 0 or positive. Equal for strings that differ only in white space.
int SlurmNaturalCompare(std::string_view a, std::string_view b);

// True when `feature` (not empty) is one of the items of the comma-separated `list`
// ("rail_ok,gpu" has "gpu", not "rail"). An empty feature is never found.
bool HasFeature(std::string_view list, std::string_view feature);

// True when every non-empty item of the comma-separated `list` is an item of `of` (Slurm's
// rule for a node's active features against its available ones); an empty list is.
bool FeaturesWithin(std::string_view list, std::string_view of);

// The comma-separated `list` with `feature` present once (where it first stood, else at the
// end) or absent; the other items in their order, empty items dropped.
std::string WithFeature(std::string_view list, std::string_view feature, bool present);

}  // namespace railguard
