// SPDX-License-Identifier: GPL-2.0-or-later
// Property checks inside fuzz targets: a failed check prints what differed and aborts, so that
// libFuzzer saves the input as a crash. Unlike assert(), active in every build type.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/diag.h"

namespace railguard::fuzz {

// Prints "file:line: fuzz check failed: cond" and `detail`, then aborts.
[[noreturn]] inline void Fail(const char* file, int line, const char* cond,
                              const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n%s\n", file, line, cond, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

// Aborts unless a reader's result agrees with its errors: it succeeded exactly when it
// reported none.
inline void CheckAgreesWithErrors(bool ok, const Diags& errors);

}  // namespace railguard::fuzz

// Aborts with `detail` (a std::string expression, evaluated only on failure) unless `cond`.
#define RG_FUZZ_CHECK(cond, detail)                                            \
  do {                                                                         \
    if (!(cond)) ::railguard::fuzz::Fail(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)

namespace railguard::fuzz {

inline void CheckAgreesWithErrors(bool ok, const Diags& errors) {
  RG_FUZZ_CHECK(ok == errors.empty(),
                "the result disagrees with the errors:\n" + FormatDiags(errors));
}

}  // namespace railguard::fuzz
