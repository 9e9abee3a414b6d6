// Property checks inside fuzz targets: a failed check prints what differed and aborts, so that
// libFuzzer saves the input as a crash. Unlike assert(), active in every build type.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace railguard::fuzz {

// Prints "file:line: fuzz check failed: cond" and `detail`, then aborts.
[[noreturn]] inline void Fail(const char* file, int line, const char* cond,
                              const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n%s\n", file, line, cond, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace railguard::fuzz

// Aborts with `detail` (a std::string expression, evaluated only on failure) unless `cond`.
#define RG_FUZZ_CHECK(cond, detail)                                            \
  do {                                                                         \
    if (!(cond)) ::railguard::fuzz::Fail(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)
