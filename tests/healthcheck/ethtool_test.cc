// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for reading a netdev's ethtool statistics (healthcheck/ethtool.h) from the replies of
// ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS and ETHTOOL_GSTATS (linux/ethtool.h), including the
// replies of a driver whose set changes between the calls (the kernel takes each count from
// the driver again, net/ethtool/ioctl.c) and replies cut short or with broken names.
#include "healthcheck/ethtool.h"

#include <gtest/gtest.h>

#include "tests/healthcheck/eth_test_util.h"

namespace railguard::health {
namespace healthcheck_ethtool_test {

using eth_testing::FakeEthtool;
using eth_testing::Mlx5Stats;
using eth_testing::Reply;
using eth_testing::ReplyOf;

std::string ReadError(const Reply& r) {
  FakeEthtool io;
  io.Set("enp24s0f0np0", r);
  EthtoolStats stats = {{"left", 1}};
  std::string err;
  EXPECT_FALSE(ReadEthtoolStats(io, "enp24s0f0np0", &stats, &err));
  EXPECT_EQ(stats.size(), 1u) << "a failed read must not change the output";
  return err;
}

TEST(ReadEthtoolStats, ReadsEveryNameWithItsValueInTheDriversOrder) {
  FakeEthtool io;
  io.Set("enp24s0f0np0", ReplyOf(Mlx5Stats()));
  EthtoolStats stats;
  std::string err;
  ASSERT_TRUE(ReadEthtoolStats(io, "enp24s0f0np0", &stats, &err)) << err;
  EXPECT_EQ(stats, Mlx5Stats());
}

TEST(ReadEthtoolStats, AFullLengthNameIsCutByTheDriverAndStillRead) {
  // mlx5 names such as "rx_prio3_pause_duration" are short; a driver's 31-byte name fills
  // the record but its NUL (ETH_GSTRING_LEN 32 with the terminator).
  const std::string longest(31, 'a');
  FakeEthtool io;
  io.Set("eth0", ReplyOf({{longest, 7}}));
  EthtoolStats stats;
  std::string err;
  ASSERT_TRUE(ReadEthtoolStats(io, "eth0", &stats, &err)) << err;
  EXPECT_EQ(stats[0].first, longest);
}

TEST(ReadEthtoolStats, CountsThatDifferBetweenTheCallsAreAnError) {
  Reply r = ReplyOf(Mlx5Stats());
  r.len = r.count + 8;  // channels were added between GSSET_INFO and GSTRINGS
  EXPECT_EQ(ReadError(r),
            "ethtool statistics of enp24s0f0np0: ETHTOOL_GSTRINGS gives 20 names for 12 "
            "statistics (the driver's set changed between the calls); expected the same count");
  r = ReplyOf(Mlx5Stats());
  r.n_stats = r.count - 1;
  EXPECT_EQ(ReadError(r),
            "ethtool statistics of enp24s0f0np0: ETHTOOL_GSTATS gives 11 values for 12 names "
            "(the driver's set changed between the calls); expected the same count");
}

TEST(ReadEthtoolStats, RepliesCutShortAreAnError) {
  Reply r = ReplyOf(Mlx5Stats());
  r.names.resize(r.names.size() - 10);
  EXPECT_EQ(ReadError(r),
            "ethtool statistics of enp24s0f0np0: ETHTOOL_GSTRINGS reply cut short: 374 bytes; "
            "expected 12 names of 32 bytes");
  r = ReplyOf(Mlx5Stats());
  r.values.pop_back();
  EXPECT_EQ(ReadError(r),
            "ethtool statistics of enp24s0f0np0: ETHTOOL_GSTATS reply cut short: 11 values; "
            "expected 12");
}

TEST(ReadEthtoolStats, BrokenNamesAreAnErrorNamingTheRecord) {
  Reply r = ReplyOf(Mlx5Stats());
  for (size_t i = 0; i < kEthGstringLen; ++i) r.names[3 * kEthGstringLen + i] = 'x';
  EXPECT_EQ(ReadError(r),
            "ethtool statistics of enp24s0f0np0: ETHTOOL_GSTRINGS name 3 is not NUL-terminated "
            "within 32 bytes (ETH_GSTRING_LEN); expected names such as \"rx_crc_errors_phy\"");
  r = ReplyOf(Mlx5Stats());
  r.names[5 * kEthGstringLen] = '\0';
  EXPECT_NE(ReadError(r).find("ETHTOOL_GSTRINGS name 5 is empty"), std::string::npos);
  r = ReplyOf(Mlx5Stats());
  r.names[1] = '\x07';
  EXPECT_NE(ReadError(r).find("name 0 holds a byte that is not printable ASCII"),
            std::string::npos);
}

TEST(ReadEthtoolStats, NoStatisticsOrAFailingIoctlIsAnError) {
  Reply r = ReplyOf({});
  EXPECT_EQ(ReadError(r),
            "ethtool statistics of enp24s0f0np0: ETHTOOL_GSSET_INFO gives 0 statistics; "
            "expected 1 to 200000");
  r = ReplyOf(Mlx5Stats());
  r.count = 4000000000u;
  EXPECT_NE(ReadError(r).find("gives 4000000000 statistics"), std::string::npos);
  r.fail = true;
  EXPECT_EQ(ReadError(r),
            "ethtool statistics of enp24s0f0np0: ioctl SIOCETHTOOL failed: Operation not "
            "supported");
}

TEST(ReadEthtoolStats, ANameGivenTwiceKeepsItsFirstValue) {
  FakeEthtool io;
  io.Set("eth0", ReplyOf({{"rx_crc_errors_phy", 1}, {"rx_crc_errors_phy", 9}}));
  EthtoolStats stats;
  std::string err;
  ASSERT_TRUE(ReadEthtoolStats(io, "eth0", &stats, &err)) << err;
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].second, 1u);
}

TEST(IsInterfaceName, TakesWhatIfreqCanHold) {
  EXPECT_TRUE(IsInterfaceName("enp24s0f0np0"));
  EXPECT_TRUE(IsInterfaceName("ib0"));
  EXPECT_FALSE(IsInterfaceName(""));
  EXPECT_FALSE(IsInterfaceName("a-name-of-16-chr"));  // IFNAMSIZ 16 with the NUL
  EXPECT_FALSE(IsInterfaceName("../eth0"));
  EXPECT_FALSE(IsInterfaceName(".."));
  EXPECT_FALSE(IsInterfaceName("eth 0"));
}

TEST(OpenEthtoolIoctl, AnInterfaceThatDoesNotExistIsAnErrorNotACrash) {
  // The real ioctl, on this machine: a name no interface has fails with ENODEV.
  std::string why;
  std::unique_ptr<EthtoolIoctl> io = OpenEthtoolIoctl(&why);
  ASSERT_NE(io, nullptr) << why;
  EthtoolStats stats;
  std::string err;
  EXPECT_FALSE(ReadEthtoolStats(*io, "rgnosuchif0", &stats, &err));
  EXPECT_EQ(err.rfind("ethtool statistics of rgnosuchif0: ioctl SIOCETHTOOL ETHTOOL_GSSET_INFO "
                      "failed: ",
                      0),
            0u)
      << err;
}

}  // namespace healthcheck_ethtool_test
}  // namespace railguard::health
