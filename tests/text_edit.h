// SPDX-License-Identifier: GPL-2.0-or-later
// Editing a test's input text one spot at a time (the tests that break a valid file line by
// line to check each error message).
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace railguard::testing {

// `text` with the first `from` replaced by `to`; a `from` that is not in `text` fails the
// test (so an edit that silently stops applying cannot make a test pass).
inline std::string ReplaceOnce(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "not in the test's text: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace railguard::testing
