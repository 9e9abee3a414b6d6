// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/numbers.h"

#include <gtest/gtest.h>

#include <cmath>

namespace railguard {
namespace base_numbers_test {

TEST(ParseDigits, DigitsOnlyInRangeAndWithinTheLengthLimit) {
  uint64_t v = 7;
  EXPECT_TRUE(ParseDigits("0042", 0, 100, &v));
  EXPECT_EQ(v, 42u);
  EXPECT_TRUE(ParseDigits("18446744073709551615", 0, UINT64_MAX, &v));
  EXPECT_EQ(v, UINT64_MAX);
  v = 7;
  for (const char* bad : {"", "+1", "-1", " 1", "1 ", "1e3", "0x1", "18446744073709551616"})
    EXPECT_FALSE(ParseDigits(bad, 0, UINT64_MAX, &v)) << bad;
  EXPECT_EQ(v, 7u);
  EXPECT_FALSE(ParseDigits("101", 0, 100, &v));
  EXPECT_FALSE(ParseDigits("0000001", 0, 100, &v, 6));
  int n = 0;
  EXPECT_TRUE(ParseDigits("64", 0, 64, &n, 9));
  EXPECT_EQ(n, 64);
  EXPECT_FALSE(ParseDigits("65", 0, 64, &n, 9));
}

TEST(ParseLong, ReadsWhatStrtolReadsAsAWholeString) {
  long v = 0;
  EXPECT_TRUE(ParseLong(" +12", 0, 100, &v));
  EXPECT_EQ(v, 12);
  EXPECT_TRUE(ParseLong("-3", -5, 5, &v));
  EXPECT_EQ(v, -3);
  for (const char* bad : {"", " ", "+", "-", "+-3", "-+3", "12 ", "1.5", "0x10", "- 3"})
    EXPECT_FALSE(ParseLong(bad, -100, 100, &v)) << bad;
  EXPECT_FALSE(ParseLong("99999999999999999999", 0, 100, &v));
  EXPECT_FALSE(ParseLong("101", 0, 100, &v));
}

TEST(ParseStrtod, ReadsWhatStrtodReadsAsAWholeString) {
  double v = 0;
  EXPECT_TRUE(ParseStrtod("400", &v));
  EXPECT_EQ(v, 400);
  EXPECT_TRUE(ParseStrtod("2.5e1", &v));
  EXPECT_EQ(v, 25);
  EXPECT_TRUE(ParseStrtod(" 0x10", &v));
  EXPECT_EQ(v, 16);
  EXPECT_FALSE(ParseStrtod("", &v));
  EXPECT_FALSE(ParseStrtod("4 00", &v));
  EXPECT_FALSE(ParseStrtod("400G", &v));
}

TEST(ParseDecimal, PlainDecimalsOnly) {
  double v = 1;
  EXPECT_TRUE(ParseDecimal("12.5", {}, &v));
  EXPECT_EQ(v, 12.5);
  EXPECT_TRUE(ParseDecimal(".5", {}, &v));
  EXPECT_TRUE(ParseDecimal("5.", {}, &v));
  EXPECT_FALSE(ParseDecimal("-1", {}, &v));
  EXPECT_TRUE(ParseDecimal("-1", {true, true, 40}, &v));
  EXPECT_EQ(v, -1);
  EXPECT_TRUE(ParseDecimal("-0", {true, true, 40}, &v));
  EXPECT_FALSE(std::signbit(v));
  for (const char* bad : {"", ".", "-", "1e3", "+1", " 1", "1.2.3", "inf", "nan", "0x1"})
    EXPECT_FALSE(ParseDecimal(bad, {true, true, 40}, &v)) << bad;
  const DecimalSyntax strict{false, false, 12};  // railcheck's sysfs rates: "400", "2.5"
  EXPECT_TRUE(ParseDecimal("16.0", strict, &v));
  EXPECT_FALSE(ParseDecimal(".5", strict, &v));
  EXPECT_FALSE(ParseDecimal("5.", strict, &v));
  EXPECT_FALSE(ParseDecimal("1234567890123", strict, &v));
}

}  // namespace base_numbers_test
}  // namespace railguard
