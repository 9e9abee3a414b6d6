// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for ReadFailureMessage (base/file_util.h): the words callers share for a failed read.
#include <gtest/gtest.h>

#include <cerrno>

#include "base/file_util.h"

namespace railguard {
namespace base_read_failure_test {

TEST(ReadFailureMessage, WordsOpenReadAndTooLargeAndLeavesTheRestToTheCaller) {
  ReadResult r;
  r.status = ReadStatus::kError;
  r.failure = ReadFailure::kOpen;
  r.code = EACCES;
  EXPECT_EQ(ReadFailureMessage("/s/state.json", r, 10),
            "cannot open /s/state.json: Permission denied");
  r.failure = ReadFailure::kRead;
  r.code = EIO;
  EXPECT_EQ(ReadFailureMessage("/s/state.json", r, 10),
            "cannot read /s/state.json: Input/output error");
  r.failure = ReadFailure::kTooLarge;
  r.size = 12;
  EXPECT_EQ(ReadFailureMessage("/s/state.json", r, 10),
            "/s/state.json is 12 bytes; expected at most 10");
  for (ReadFailure f : {ReadFailure::kNone, ReadFailure::kSymlink, ReadFailure::kNotRegular,
                        ReadFailure::kGrew}) {
    r.failure = f;
    EXPECT_EQ(ReadFailureMessage("/s/state.json", r, 10), "");
  }
}

}  // namespace base_read_failure_test
}  // namespace railguard
