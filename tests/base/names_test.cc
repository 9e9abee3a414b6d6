// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/names.h"

#include <gtest/gtest.h>

#include <string>

namespace railguard {
namespace base_names_test {

TEST(IsSafeName, LettersDigitsDashUnderscoreDotUpTo64) {
  EXPECT_TRUE(IsSafeName("dgx-a100_01.site"));
  EXPECT_TRUE(IsSafeName(std::string(64, 'a')));
  EXPECT_FALSE(IsSafeName(std::string(65, 'a')));
  for (const char* bad : {"", "a b", "a,b", "a|b", "a/b", "n[1-2]", "\xc3\xa9"})
    EXPECT_FALSE(IsSafeName(bad)) << bad;
}

TEST(IsStateWord, LowerCaseLettersDigitsUnderscoreUpTo64) {
  EXPECT_TRUE(IsStateWord("not_responding"));
  EXPECT_TRUE(IsStateWord(std::string(64, 'a')));
  EXPECT_FALSE(IsStateWord(std::string(65, 'a')));
  for (const char* bad : {"", "Drain", "a-b", "a.b", "a b", "\xc3\xa9"})
    EXPECT_FALSE(IsStateWord(bad)) << bad;
}

TEST(IsCheckName, LowerCaseLettersDigitsDotUnderscoreUpTo128) {
  EXPECT_TRUE(IsCheckName("port.rate"));
  EXPECT_TRUE(IsCheckName("gpu_count.2"));
  EXPECT_TRUE(IsCheckName(std::string(kMaxCheckNameBytes, 'a')));
  EXPECT_FALSE(IsCheckName(std::string(kMaxCheckNameBytes + 1, 'a')));
  for (const char* bad : {"", "Port.rate", "port-rate", "port rate", "a:b"})
    EXPECT_FALSE(IsCheckName(bad)) << bad;
}

TEST(NaturalLess, NumbersByValueThenFewerZerosFirst) {
  EXPECT_TRUE(NaturalLess("mlx5_3", "mlx5_10"));
  EXPECT_FALSE(NaturalLess("mlx5_10", "mlx5_3"));
  EXPECT_TRUE(NaturalLess("mlx5_0", "mlx5_1"));
  EXPECT_TRUE(NaturalLess("mlx4_9", "mlx5_0"));
  EXPECT_TRUE(NaturalLess("spine2", "spine10"));
  EXPECT_TRUE(NaturalLess("a", "a0"));
  EXPECT_FALSE(NaturalLess("x", "x"));
  EXPECT_TRUE(NaturalLess("n01", "n001"));
  EXPECT_FALSE(NaturalLess("n001", "n01"));
}

TEST(SlurmNaturalCompare, AsSlurmsStrnatcmp) {
  EXPECT_LT(SlurmNaturalCompare("n9", "n10"), 0);
  EXPECT_EQ(SlurmNaturalCompare("n 1", "n1"), 0);
  EXPECT_LT(SlurmNaturalCompare("n01", "n1"), 0);   // leading zero: digit by digit
  EXPECT_GT(SlurmNaturalCompare("n012", "n01"), 0);
  EXPECT_EQ(SlurmNaturalCompare("", ""), 0);
}

TEST(FeaturesWithin, EveryItemMustBeAvailable) {
  EXPECT_TRUE(FeaturesWithin("su1,rail_healthy", "rail_healthy,su1,gpu"));
  EXPECT_TRUE(FeaturesWithin("", "su1"));
  EXPECT_TRUE(FeaturesWithin("su1,,", "su1"));  // empty items are no features
  EXPECT_FALSE(FeaturesWithin("su1,rail_healthy", "su1"));
  EXPECT_FALSE(FeaturesWithin("rail", "rail_healthy"));  // whole items only
  EXPECT_FALSE(FeaturesWithin("su1", ""));
}

TEST(HasFeature, WholeItemsOfACommaSeparatedList) {
  EXPECT_TRUE(HasFeature("gpu,rail_healthy", "rail_healthy"));
  EXPECT_TRUE(HasFeature("rail_healthy", "rail_healthy"));
  EXPECT_FALSE(HasFeature("rail_healthy_old", "rail_healthy"));
  EXPECT_FALSE(HasFeature("rail", "rail_healthy"));
  EXPECT_FALSE(HasFeature("", "rail_healthy"));
  EXPECT_FALSE(HasFeature("a,,b", ""));
}

TEST(WithFeature, AddsAndRemovesOneNameKeepingTheOthersInOrder) {
  EXPECT_EQ(WithFeature("su1,rail_healthy,gpu", "rail_healthy", false), "su1,gpu");
  EXPECT_EQ(WithFeature("su1", "rail_healthy", true), "su1,rail_healthy");
  EXPECT_EQ(WithFeature("", "rail_healthy", true), "rail_healthy");
  EXPECT_EQ(WithFeature("rail_healthy,rail_healthy", "rail_healthy", true), "rail_healthy");
  EXPECT_FALSE(HasFeature("rail_healthy_old", "rail_healthy"));
}

}  // namespace base_names_test
}  // namespace railguard
