// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the libibverbs port mapping (healthcheck/verbs.h): every width and speed encoding
// of struct ibv_port_attr (enum ibv_port_width / ibv_port_speed of rdma-core's verbs.h, where
// XDR = 256 only fits active_speed_ex), the compile-time guard for headers without
// active_speed_ex, and the sysfs fallback of the gather when the encoding is unknown.
#include "healthcheck/verbs.h"

#include <gtest/gtest.h>

#include "healthcheck/checks.h"
#include "healthcheck/gather.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_verbs_test {

// rdma-core's encodings (verbs.h): IBV_WIDTH_1X 1, 4X 2, 8X 4, 12X 8, 2X 16; IBV_SPEED_SDR 1,
// DDR 2, QDR 4, FDR10 8, FDR 16, EDR 32, HDR 64, NDR 128, XDR 256.
VerbsPortAttr Attr(uint8_t width, uint8_t speed, uint32_t speed_ex = 0) {
  VerbsPortAttr a;
  a.state = 4;
  a.phys_state = 5;
  a.active_width = width;
  a.active_speed = speed;
  a.active_speed_ex = speed_ex;
  a.link_layer = 1;
  return a;
}

TEST(VerbsPortFromAttr, XdrComesFromActiveSpeedEx) {
  // A ConnectX-8 port at 4X XDR: rdma-core 48+ reports 256 in active_speed_ex (active_speed
  // cannot hold it).
  VerbsPort p = VerbsPortFromAttr(Attr(2, 0, 256));
  ASSERT_TRUE(p.rate_known) << p.rate_why;
  EXPECT_EQ(p.width, 4);
  EXPECT_EQ(p.speed, "XDR");
  EXPECT_EQ(p.gbps, 800);
  EXPECT_EQ(p.state_name, "ACTIVE");
  EXPECT_EQ(p.phys_state_name, "LinkUp");
  // active_speed_ex wins over active_speed when both are set.
  p = VerbsPortFromAttr(Attr(16, 128, 256));
  EXPECT_EQ(p.speed, "XDR");
  EXPECT_EQ(p.gbps, 400);
}

TEST(VerbsPortFromAttr, MapsEveryWidthAndSpeedAsTheKernelsRateFile) {
  struct Case {
    uint8_t width;
    uint8_t speed;
    int lanes;
    const char* name;
    double gbps;
  };
  const Case cases[] = {
      {1, 1, 1, "SDR", 2.5},   {16, 1, 2, "SDR", 5},    {8, 1, 12, "SDR", 30},
      {2, 2, 4, "DDR", 20},    {2, 4, 4, "QDR", 40},    {2, 8, 4, "FDR10", 40},
      {2, 16, 4, "FDR", 56},   {1, 32, 1, "EDR", 25},   {2, 32, 4, "EDR", 100},
      {2, 64, 4, "HDR", 200},  {4, 64, 8, "HDR", 400},  {2, 128, 4, "NDR", 400},
      {16, 128, 2, "NDR", 200}, {8, 128, 12, "NDR", 1200},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name) + " width " + std::to_string(c.width));
    VerbsPort p = VerbsPortFromAttr(Attr(c.width, c.speed));
    ASSERT_TRUE(p.rate_known) << p.rate_why;
    EXPECT_EQ(p.width, c.lanes);
    EXPECT_EQ(p.speed, c.name);
    EXPECT_EQ(p.gbps, c.gbps);
  }
}

TEST(VerbsPortFromAttr, UnknownEncodingsAreNotGuessedAsSdr) {
  // An XDR port read through a libibverbs without active_speed_ex: the 8-bit field holds 0
  // (256 truncated). Before, this read as "10 Gb/sec (4X SDR)" and failed port.rate.
  VerbsPort p = VerbsPortFromAttr(Attr(2, 0, 0));
  EXPECT_FALSE(p.rate_known);
  EXPECT_EQ(p.rate_why, "active_width 2, active_speed 0: unknown speed");
  EXPECT_EQ(p.gbps, 0);
  p = VerbsPortFromAttr(Attr(3, 128));
  EXPECT_FALSE(p.rate_known);
  EXPECT_EQ(p.rate_why, "active_width 3, active_speed 128: unknown width");
  p = VerbsPortFromAttr(Attr(2, 0, 512));
  EXPECT_FALSE(p.rate_known);
  EXPECT_EQ(p.rate_why, "active_width 2, active_speed_ex 512: unknown speed");
}

// Stand-ins for struct ibv_port_attr of old (rdma-core 44, Debian bookworm) and new
// (rdma-core 48+) headers.
struct OldAttr {
  uint8_t active_speed = 128;
};
struct NewAttr {
  uint8_t active_speed = 0;
  uint32_t active_speed_ex = 256;
};

TEST(ActiveSpeedEx, ReadsTheFieldWhereTheHeaderHasItAndZeroElsewhere) {
  EXPECT_EQ(ActiveSpeedEx(NewAttr{}), 256u);
  EXPECT_EQ(ActiveSpeedEx(OldAttr{}), 0u);
}

// A libibverbs that reports one XDR port the way an old library does (speed unknown).
class OldLibraryVerbs : public Verbs {
 public:
  bool QueryPort(const std::string&, int, VerbsPort* out, std::string*) override {
    *out = VerbsPortFromAttr(Attr(2, 0, 0));
    return true;
  }
};

TEST(GatherNic, RateOfAnEncodingVerbsCannotNameComesFromTheKernelsRateFile) {
  testing::TempDir root;
  const std::string port = root / "class/infiniband/mlx5_0/ports/1";
  // drivers/infiniband/core/sysfs.c rate_show for a 4X XDR port (kernel 6.7+).
  testing::WriteFile(port + "/rate", "800 Gb/sec (4X XDR)\n");
  testing::WriteFile(port + "/counters/symbol_error", "0\n");
  RealSysfs fs;
  OldLibraryVerbs verbs;
  std::map<std::string, PciDevice> pci;
  NicFacts n = GatherNic(fs, &verbs, root.path(), 0, "mlx5_0", &pci);
  ASSERT_TRUE(n.present);
  EXPECT_EQ(n.port.source, "verbs");
  EXPECT_EQ(n.port.state.raw, "4: ACTIVE");
  ASSERT_TRUE(n.port.rate.ok()) << n.port.rate.error;
  EXPECT_EQ(n.port.rate.value->gbps, 800);
  EXPECT_EQ(n.port.rate.value->speed, "XDR");
  EXPECT_EQ(n.port.rate.raw, "800 Gb/sec (4X XDR)");
}

// libibverbs of rdma-core 48+ on a ConnectX-8: 4X XDR in active_speed_ex.
class XdrVerbs : public Verbs {
 public:
  bool QueryPort(const std::string&, int, VerbsPort* out, std::string*) override {
    *out = VerbsPortFromAttr(Attr(2, 0, 256));
    return true;
  }
};

TEST(CheckPortRate, AnXdrPortOnAnXdrRailPassesAndBelowItFails) {
  testing::TempDir root;
  testing::WriteFile(root / "class/infiniband/mlx5_0/ports/1/counters/symbol_error", "0\n");
  RealSysfs fs;
  XdrVerbs verbs;
  std::map<std::string, PciDevice> pci;
  NodeFacts facts;
  facts.nics.push_back(GatherNic(fs, &verbs, root.path(), 0, "mlx5_0", &pci));
  EXPECT_EQ(facts.nics[0].port.rate.raw, "800 Gb/sec (4X XDR)");
  HealthConfig cfg;
  JudgeInput in;
  in.facts = &facts;
  in.config = &cfg;
  in.rail_links = {*topo::LinkSpecFromIbToken("4xXDR")};
  CounterMoves h;
  std::vector<Finding> out;
  CheckPortRate(in, h, &out);
  EXPECT_TRUE(out.empty()) << out[0].message;
  // The same port trained at 2X: 400 Gb/s on an 800 Gb/s rail.
  in.rail_links = {*topo::LinkSpecFromIbToken("4xXDR")};
  facts.nics[0].port.rate.value->gbps = 400;
  facts.nics[0].port.rate.raw = "400 Gb/sec (2X XDR)";
  CheckPortRate(in, h, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "port.rate: rail0 mlx5_0 rate 400 Gb/sec (2X XDR) < expected 800 Gb/sec (4X XDR)");
}

}  // namespace healthcheck_verbs_test
}  // namespace railguard::health
