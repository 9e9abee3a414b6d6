// SPDX-License-Identifier: GPL-2.0-or-later
// The drain reasons railcheck sets in Slurm, "railcheck: rail3 mlx5_5 rate 200 < 400 Gb/s
// (+1 more)": the writer and the reader that tells railcheck's drains from an admin's and
// finds the rails a reason names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace railguard::wire {

// Every drain reason railcheck sets starts with this; only nodes whose reason does are
// ever resumed by railcheck (an admin's drain is never touched).
inline constexpr char kReasonPrefix[] = "railcheck:";

// The longest reason railcheck sets, prefix included: one line that `sinfo -R` shows whole
// with a wide enough %E (its default column is 20 characters wide).
constexpr size_t kMaxReasonChars = 100;

// "railcheck: " + `first` + " (+N more)" when `more` > 0, with `first` cut (ending in "...")
// so that the whole reason is at most kMaxReasonChars. REQUIRES: `first` is printable text
// (the caller's short form of the first drain finding) of at most 1000 bytes.
std::string FormatDrainReason(std::string_view first, size_t more);

// `reason` without a trailing " (+N more)": the finding it names. railcheck refreshes its
// reason when this changes, not when only the count of the others does.
std::string_view ReasonHeadline(std::string_view reason);

// True when `reason` is one railcheck set (starts with kReasonPrefix).
bool IsRailcheckReason(std::string_view reason);

// The rails below `rails` that `reason` names as words "railN" (N of 1-4 digits), each
// once, in the order they appear: "railcheck: rail3 mlx5_5 rate ..." -> {3}.
std::vector<int> RailsInReason(std::string_view reason, size_t rails);

}  // namespace railguard::wire
