// SPDX-License-Identifier: GPL-2.0-or-later
// A training job's own step times, in a file the job writes where railctl job finds it (the
// site's health.job_app_dir, or --app): railguard's format, documented in man/railctl.8
// (STEP TIMES). Plain text, one step per line:
//   # railguard step times         (any '#' line is a comment; blank lines are skipped)
//   1 1.284                        (the step's number, a whole number, and its wall time in
//   2 1.031                         seconds, a decimal > 0, separated by spaces or tabs)
// A training loop writes it with one line per step, e.g. in Python
// `print(step, f"{dt:.3f}", file=f, flush=True)`. Steps may repeat (a restart from a
// checkpoint): each line counts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"
#include "base/text_file.h"

namespace railguard::report {

constexpr InputKind kStepTimesInput{"a step-time file (\"STEP SECONDS\" per line)", 64u << 20};

struct StepTimes {
  std::string file;
  std::vector<uint64_t> steps;   // in file order
  std::vector<double> seconds;   // the same order

  double Median() const;         // -1 when empty
  double Percentile(double p) const;  // p in [0, 1], nearest rank; -1 when empty
  size_t Slowest() const;        // index of the longest step; REQUIRES: not empty
};

// Parses `text` (`file` names it). Each line that is neither blank nor a comment must be
// "STEP SECONDS"; others are errors "file:line:column: ...; expected ..." (at most 20).
// A UTF-8 BOM and CRLF line ends are accepted. No step at all is an error. True when there
// was no error.
bool ParseStepTimes(std::string_view text, const std::string& file, StepTimes* out,
                    Diags* errors);

// True when the first line of `text` that is neither blank nor a comment is "STEP SECONDS".
bool LooksLikeStepTimes(std::string_view text);

}  // namespace railguard::report
