// SPDX-License-Identifier: GPL-2.0-or-later
// Tests that read the real third-party data beside the clone (../shared/data, the CMake cache
// variable RAILGUARD_SHARED_DATA) skip with one line when it is absent, as in a user's clone.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

namespace railguard::testing {

// RAILGUARD_SHARED_DATA + "/" + `rel`.
inline std::string SharedPath(const std::string& rel) {
  return std::string(RAILGUARD_SHARED_DATA) + "/" + rel;
}

// True when SharedPath(rel) exists (a file or a folder).
inline bool HaveShared(const std::string& rel) {
  struct stat st;
  return stat(SharedPath(rel).c_str(), &st) == 0;
}

}  // namespace railguard::testing

// In a test body or SetUp: skips the test with one line when ../shared/data/`rel` is absent.
#define RAILGUARD_NEEDS_SHARED(rel)                                                     \
  do {                                                                                   \
    if (!::railguard::testing::HaveShared(rel))                                          \
      GTEST_SKIP() << "needs ../shared/data (" << ::railguard::testing::SharedPath(rel) \
                   << "): skipped";                                                      \
  } while (0)
