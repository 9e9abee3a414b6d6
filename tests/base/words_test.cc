// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/words.h"

#include <gtest/gtest.h>

namespace railguard {
namespace base_words_test {

TEST(Plural, OneTakesTheSingularEveryOtherCountThePlural) {
  EXPECT_EQ(Plural(1, "leaf", "leaves"), "1 leaf");
  EXPECT_EQ(Plural(0, "leaf", "leaves"), "0 leaves");
  EXPECT_EQ(Plural(2, "leaf", "leaves"), "2 leaves");
  EXPECT_EQ(Plural(-1, "leaf", "leaves"), "-1 leaves");
  EXPECT_EQ(Plural(4096, "node"), "4096 nodes");
  EXPECT_EQ(Plural(1, "node"), "1 node");
}

TEST(AsciiLower, LowersAsciiLettersOnly) {
  EXPECT_EQ(AsciiLower("S-0008F105001086A2"), "s-0008f105001086a2");
  EXPECT_EQ(AsciiLower("Max_Switch_Wait=10"), "max_switch_wait=10");
  // UTF-8 bytes (>= 0x80) are left as they are: "É" stays "É".
  EXPECT_EQ(AsciiLower("\xc3\x89t\xc3\xa9"), "\xc3\x89t\xc3\xa9");
  EXPECT_EQ(AsciiLower(""), "");
}

}  // namespace base_words_test
}  // namespace railguard
