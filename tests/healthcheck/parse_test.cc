// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the parsers of sysfs value formats (healthcheck/parse.h), on the kernel's real
// texts: those of the node_exporter capture and of mlx5 / PCIe attributes.
#include "healthcheck/parse.h"

#include <gtest/gtest.h>

namespace railguard::health {
namespace healthcheck_parse_test {

TEST(ParsePortState, ReadsTheNumberAndNameOfStateAndPhysState) {
  PortStateValue v;
  std::string expected;
  ASSERT_TRUE(ParsePortState("4: ACTIVE\n", &v, &expected));
  EXPECT_EQ(v.code, 4);
  EXPECT_EQ(v.name, "ACTIVE");
  ASSERT_TRUE(ParsePortState("5: LinkUp\n", &v, &expected));
  EXPECT_EQ(v.code, 5);
  EXPECT_EQ(v.name, "LinkUp");
  // The kernel's phys_state names may hold a space.
  ASSERT_TRUE(ParsePortState("7: Phy Test\n", &v, &expected));
  EXPECT_EQ(v.name, "Phy Test");
}

TEST(ParsePortState, RefusesAnythingElseAndSaysTheForm) {
  PortStateValue v;
  std::string expected;
  for (const char* bad : {"ACTIVE\n", "4:ACTIVE\n", ": ACTIVE\n", "4: \n", "", "x: ACTIVE",
                          "4: ACT\x01IVE\n", "99999: ACTIVE\n"}) {
    EXPECT_FALSE(ParsePortState(bad, &v, &expected)) << bad;
  }
  EXPECT_EQ(expected, "\"N: NAME\" such as \"4: ACTIVE\" or \"5: LinkUp\"");
}

TEST(ParseRate, ReadsRateWidthAndSpeed) {
  RateValue r;
  std::string expected;
  ASSERT_TRUE(ParseRate("400 Gb/sec (4X NDR)\n", &r, &expected));
  EXPECT_EQ(r.gbps, 400);
  EXPECT_EQ(r.width, 4);
  EXPECT_EQ(r.speed, "NDR");
  ASSERT_TRUE(ParseRate("200 Gb/sec (2X NDR)\n", &r, &expected));
  EXPECT_EQ(r.width, 2);
  ASSERT_TRUE(ParseRate("2.5 Gb/sec (1X SDR)\n", &r, &expected));
  EXPECT_EQ(r.gbps, 2.5);
  ASSERT_TRUE(ParseRate("56 Gb/sec (4X FDR)\n", &r, &expected));
  EXPECT_EQ(r.speed, "FDR");
}

TEST(ParseRate, ReadsTheOldKernelFormWithoutSpeedAsTheCaptureHasIt) {
  // i40iw0 of the node_exporter capture.
  RateValue r;
  std::string expected;
  ASSERT_TRUE(ParseRate("10 Gb/sec (4X)\n", &r, &expected));
  EXPECT_EQ(r.gbps, 10);
  EXPECT_EQ(r.width, 4);
  EXPECT_EQ(r.speed, "");
}

TEST(ParseRate, RefusesMalformedRates) {
  RateValue r;
  std::string expected;
  for (const char* bad : {"400 Gb/sec\n", "400 Gb/s (4X NDR)\n", "fast Gb/sec (4X NDR)\n",
                          "400 Gb/sec (X NDR)\n", "400 Gb/sec (4X  NDR)\n", "400 Gb/sec (4XNDR)",
                          "-400 Gb/sec (4X NDR)", "400 Gb/sec (4X NDR", "1.2.3 Gb/sec (4X)"}) {
    EXPECT_FALSE(ParseRate(bad, &r, &expected)) << bad;
  }
  EXPECT_EQ(expected.rfind("\"RATE Gb/sec (WIDTHX SPEED)\" such as \"400 Gb/sec (4X NDR)\"", 0), 0u);
}

// Every rate the kernel's rate file can print: drivers/infiniband/core/sysfs.c, rate_show
// prints "%d%s Gb/sec (%dX%s)" with the rate in tenths = lane rate (SDR 25, DDR 50, QDR 100,
// FDR10 100, FDR 140, EDR 250, HDR 500, NDR 1000, XDR 2000) x ib_width_enum_to_int (1, 2, 4,
// 8, 12), and ".5" only for a half rate.
TEST(ParseRate, ReadsEverySpeedAndWidthTheKernelPrints) {
  struct Form {
    const char* text;
    double gbps;
    int width;
    const char* speed;
  };
  const Form forms[] = {
      {"2.5 Gb/sec (1X SDR)\n", 2.5, 1, "SDR"},   {"5 Gb/sec (2X SDR)\n", 5, 2, "SDR"},
      {"30 Gb/sec (12X SDR)\n", 30, 12, "SDR"},   {"20 Gb/sec (4X DDR)\n", 20, 4, "DDR"},
      {"40 Gb/sec (4X QDR)\n", 40, 4, "QDR"},     {"40 Gb/sec (4X FDR10)\n", 40, 4, "FDR10"},
      {"14 Gb/sec (1X FDR)\n", 14, 1, "FDR"},     {"168 Gb/sec (12X FDR)\n", 168, 12, "FDR"},
      {"25 Gb/sec (1X EDR)\n", 25, 1, "EDR"},     {"100 Gb/sec (4X EDR)\n", 100, 4, "EDR"},
      {"200 Gb/sec (4X HDR)\n", 200, 4, "HDR"},   {"400 Gb/sec (8X HDR)\n", 400, 8, "HDR"},
      {"100 Gb/sec (1X NDR)\n", 100, 1, "NDR"},   {"800 Gb/sec (8X NDR)\n", 800, 8, "NDR"},
      {"200 Gb/sec (1X XDR)\n", 200, 1, "XDR"},   {"400 Gb/sec (2X XDR)\n", 400, 2, "XDR"},
      {"800 Gb/sec (4X XDR)\n", 800, 4, "XDR"},   {"1600 Gb/sec (8X XDR)\n", 1600, 8, "XDR"},
      {"2400 Gb/sec (12X XDR)\n", 2400, 12, "XDR"},
  };
  for (const Form& f : forms) {
    SCOPED_TRACE(f.text);
    RateValue r;
    std::string expected;
    ASSERT_TRUE(ParseRate(f.text, &r, &expected));
    EXPECT_EQ(r.gbps, f.gbps);
    EXPECT_EQ(r.width, f.width);
    EXPECT_EQ(r.speed, f.speed);
  }
}

TEST(ParseRate, RefusesWidthsAndRatesTheKernelCannotPrint) {
  // rate_show computes the rate from the width and speed: any other pairing is not its text.
  for (const char* bad : {"30 Gb/sec (3X SDR)\n", "1600 Gb/sec (16X NDR)\n",
                          "400 Gb/sec (4X XDR)\n", "10 Gb/sec (4X NDR)\n", "800 Gb/sec (4X)\n",
                          "400 Gb/sec (4X ndr)\n", "0 Gb/sec (0X SDR)\n"}) {
    RateValue r;
    std::string expected;
    EXPECT_FALSE(ParseRate(bad, &r, &expected)) << bad;
    EXPECT_NE(expected.find("WIDTH 1, 2, 4, 8 or 12"), std::string::npos);
  }
}

TEST(ParseRate, TakesASpeedOfANewerKernelWithItsRate) {
  // A name this railcheck does not know comes only from a kernel that knows its lane rate.
  RateValue r;
  std::string expected;
  ASSERT_TRUE(ParseRate("1600 Gb/sec (4X GDR)\n", &r, &expected));
  EXPECT_EQ(r.gbps, 1600);
  EXPECT_EQ(r.speed, "GDR");
}

TEST(IbLaneGbps, IsTheKernelsLaneRateOfEachSpeed) {
  EXPECT_EQ(IbLaneGbps("SDR"), 2.5);
  EXPECT_EQ(IbLaneGbps("FDR10"), 10);
  EXPECT_EQ(IbLaneGbps("FDR"), 14);
  EXPECT_EQ(IbLaneGbps("XDR"), 200);
  EXPECT_EQ(IbLaneGbps("GDR"), 0);
  EXPECT_TRUE(IsIbWidth(8));
  EXPECT_FALSE(IsIbWidth(16));
}

TEST(ParsePcieSpeed, ReadsKernelSpeedsOldAndNewAndUnknown) {
  PcieSpeedValue v;
  std::string expected;
  ASSERT_TRUE(ParsePcieSpeed("32.0 GT/s PCIe\n", &v, &expected));
  EXPECT_EQ(v.gts, 32.0);
  EXPECT_FALSE(v.unknown);
  ASSERT_TRUE(ParsePcieSpeed("2.5 GT/s PCIe\n", &v, &expected));
  EXPECT_EQ(v.gts, 2.5);
  ASSERT_TRUE(ParsePcieSpeed("8 GT/s\n", &v, &expected));  // kernels before 5.x
  EXPECT_EQ(v.gts, 8.0);
  ASSERT_TRUE(ParsePcieSpeed("Unknown\n", &v, &expected));
  EXPECT_TRUE(v.unknown);
  EXPECT_FALSE(ParsePcieSpeed("fast\n", &v, &expected));
  EXPECT_FALSE(ParsePcieSpeed("GT/s PCIe\n", &v, &expected));
  EXPECT_FALSE(ParsePcieSpeed("0 GT/s PCIe\n", &v, &expected));
  EXPECT_EQ(expected, "\"N GT/s PCIe\" such as \"32.0 GT/s PCIe\", or \"Unknown\"");
}

TEST(ParsePcieWidth, ReadsALaneCount) {
  int w = 0;
  std::string expected;
  ASSERT_TRUE(ParsePcieWidth("16\n", &w, &expected));
  EXPECT_EQ(w, 16);
  ASSERT_TRUE(ParsePcieWidth("0\n", &w, &expected));
  EXPECT_EQ(w, 0);
  EXPECT_FALSE(ParsePcieWidth("x16\n", &w, &expected));
  EXPECT_FALSE(ParsePcieWidth("-1\n", &w, &expected));
  EXPECT_FALSE(ParsePcieWidth("999\n", &w, &expected));
  EXPECT_EQ(expected, "a lane count such as \"16\"");
}

TEST(ParseAer, ReadsEveryLineAndTheTotal) {
  AerValue a;
  std::string expected;
  ASSERT_TRUE(
      ParseAer("RxErr 3\nBadTLP 0\nBadDLLP 1\nRollover 0\nTimeout 0\nNonFatalErr 0\n"
               "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 4\n",
               &a, &expected));
  EXPECT_EQ(a.total, 4u);
  EXPECT_EQ(a.counts.at("RxErr"), 3u);
  EXPECT_EQ(a.counts.at("BadDLLP"), 1u);
  EXPECT_EQ(a.counts.size(), 8u);
}

TEST(ParseAer, SumsTheLinesWhenThereIsNoTotal) {
  AerValue a;
  std::string expected;
  ASSERT_TRUE(ParseAer("MalfTLP 1\nCmpltTO 2\n", &a, &expected));
  EXPECT_EQ(a.total, 3u);
}

// Format: drivers/pci/pcie/aer.c (aer_stats_dev_attr, Linux 6.x): an error bit without a name
// is printed as "<prefix>_bit[<bit>] <count>" when its count is not zero.
TEST(ParseAer, ReadsTheKernelsLinesForErrorBitsWithoutAName) {
  AerValue a;
  std::string expected;
  ASSERT_TRUE(ParseAer("RxErr 0\nBadTLP 2\ndev_cor_errs_bit[12] 5\nTOTAL_ERR_COR 7\n", &a,
                       &expected));
  EXPECT_EQ(a.total, 7u);
  EXPECT_EQ(a.counts.at("dev_cor_errs_bit[12]"), 5u);
  ASSERT_TRUE(ParseAer("Undefined 0\ndev_fatal_errs_bit[0] 1\nTOTAL_ERR_FATAL 1\n", &a, &expected));
  EXPECT_EQ(a.counts.at("dev_fatal_errs_bit[0]"), 1u);
  for (const char* bad : {"dev_cor_errs_bit[] 1\n", "dev_cor_errs_bit[1x] 1\n",
                          "dev_cor_errs_bit[12 1\n", "_bit[3] 1\n", "dev_bit[1234] 1\n"})
    EXPECT_FALSE(ParseAer(bad, &a, &expected)) << bad;
}

TEST(ParseAer, RefusesMalformedText) {
  AerValue a;
  std::string expected;
  for (const char* bad : {"", "\n", "RxErr\n", "RxErr x\n", "Rx Err 1\n", " 1\n", "RxErr -1\n"})
    EXPECT_FALSE(ParseAer(bad, &a, &expected)) << bad;
  EXPECT_EQ(expected, "one \"NAME COUNT\" per line such as \"RxErr 0\", with a TOTAL_ERR_* line");
}

TEST(ParseCounter, ReadsCountsAndNoPma) {
  uint64_t v = 0;
  bool no_pma = false;
  std::string expected;
  ASSERT_TRUE(ParseCounter("4294967295\n", &v, &no_pma, &expected));
  EXPECT_EQ(v, 4294967295u);
  EXPECT_FALSE(no_pma);
  ASSERT_TRUE(ParseCounter("N/A (no PMA)\n", &v, &no_pma, &expected));
  EXPECT_TRUE(no_pma);
  ASSERT_TRUE(ParseCounter("18446744073709551615\n", &v, &no_pma, &expected));
  EXPECT_FALSE(ParseCounter("18446744073709551616\n", &v, &no_pma, &expected));
  EXPECT_FALSE(ParseCounter("-1\n", &v, &no_pma, &expected));
  EXPECT_FALSE(ParseCounter("0x10\n", &v, &no_pma, &expected));
  EXPECT_FALSE(ParseCounter("", &v, &no_pma, &expected));
  EXPECT_EQ(expected, "a decimal count such as \"0\", or \"N/A (no PMA)\"");
}

TEST(ParseHexId, ReadsVendorAndClass) {
  uint32_t v = 0;
  std::string expected;
  ASSERT_TRUE(ParseHexId("0x10de\n", &v, &expected));
  EXPECT_EQ(v, 0x10deu);
  ASSERT_TRUE(ParseHexId("0x030200\n", &v, &expected));
  EXPECT_EQ(v, 0x030200u);
  EXPECT_FALSE(ParseHexId("10de\n", &v, &expected));
  EXPECT_FALSE(ParseHexId("0xzz\n", &v, &expected));
}

TEST(CounterBits, KnowsThePortCountersWidthsAndNotTheDataCounters) {
  EXPECT_EQ(CounterBits("symbol_error"), 16);
  EXPECT_EQ(CounterBits("link_downed"), 8);
  EXPECT_EQ(CounterBits("local_link_integrity_errors"), 4);
  EXPECT_EQ(CounterBits("port_xmit_wait"), 32);
  EXPECT_EQ(CounterBits("port_rcv_packets"), 0);  // may come from 64-bit extended counters
}

TEST(Printable, ReplacesControlBytesAndCutsLongText) {
  EXPECT_EQ(Printable("a\x01\xff"
                      "b"),
            "a??b");
  EXPECT_EQ(Printable("abcdef", 3), "abc...");
}

TEST(FormatNumber, PrintsWholeNumbersWithoutDecimals) {
  EXPECT_EQ(FormatNumber(400), "400");
  EXPECT_EQ(FormatNumber(2.5), "2.5");
  EXPECT_EQ(FormatPcieSpeed(32), "32.0 GT/s");
  EXPECT_EQ(FormatPcieSpeed(2.5), "2.5 GT/s");
}

}  // namespace healthcheck_parse_test
}  // namespace railguard::health
