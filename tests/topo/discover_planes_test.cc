// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the spine-plane evidence (issue 14 item 1): in a fabric built in rail planes, the
// spines a leaf uses say which rail it is, and a leaf whose HCAs' names say otherwise is a
// spine-plane finding.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/fabric_sim.h"

namespace railguard::topo {
namespace topo_discover_planes_test {

using discover_testing::AllFindings;
using discover_testing::Keys;
using discover_testing::Load;
using discover_testing::Parse;

// 3 SUs of 4 hosts, 4 rails, 8 spines; leaf names carry no rail number. su3's hosts number
// their first two HCAs the other way round (mlx5_1 on rail 0), as another OS image may.
std::string Layout(const std::string& su3_nics) {
  std::string y = "cluster: planes\nrails:\n";
  for (int r = 0; r < 4; ++r)
    y += "  - {index: " + std::to_string(r) + ", link: {rate_gbps: 400, width: 4X, speed: NDR}}\n";
  y += "node_types:\n  - {name: a, gpus: 8, nics: [mlx5_0, mlx5_1, mlx5_2, mlx5_3]}\n";
  y += "  - {name: b, gpus: 8, nics: " + su3_nics + "}\nscalable_units:\n";
  for (int s = 1; s <= 3; ++s) {
    y += "  - name: su" + std::to_string(s) + "\n    nodes: \"h[" + std::to_string(s * 10) + "-" +
         std::to_string(s * 10 + 3) + "]\"\n    node_type: " + (s == 3 ? "b" : "a") +
         "\n    leaves:\n";
    for (int r = 0; r < 4; ++r)
      y += "      - {rail: " + std::to_string(r) + ", name: su" + std::to_string(s) + "-leaf" +
           static_cast<char>('a' + r) + "}\n";
  }
  y += "spines:\n";
  for (int i = 1; i <= 8; ++i) y += "  - {name: spine" + std::to_string(i) + "}\n";
  return y;
}

Discovery DiscoverPlanes(const std::string& su3_nics, bool planes) {
  SimOptions opts;
  opts.rail_planes = planes;
  std::string dump;
  std::string err;
  EXPECT_TRUE(SimulateFabric(Load(Layout(su3_nics)), opts, &dump, &err)) << err;
  DiscoverOptions o;
  o.cluster = "planes";
  return Discover(Parse(dump), o);
}

TEST(DiscoverPlanes, ALeafOnTheSpinesOfAnotherRailsPlaneIsASpinePlaneFinding) {
  const Discovery d = DiscoverPlanes("[mlx5_1, mlx5_0, mlx5_2, mlx5_3]", true);
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"spine-plane / su3-leafa 0xfc6a1c0300000300 0",
                                               "spine-plane / su3-leafb 0xfc6a1c0300000301 0"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].message,
            "su3-leafa serves rail 1 (mlx5_1) of su3 by its HCAs' names, but its uplinks go only "
            "to spine1, spine5, spines of the plane of rail 0 (mlx5_0); expected its own rail's "
            "(spine2, spine6); the HCA names and the spine planes disagree: check its uplinks, or "
            "give --rail-order for these hosts' HCAs to decide it");
}

TEST(DiscoverPlanes, LeavesOnTheirOwnRailsPlaneGiveNoFinding) {
  EXPECT_EQ(AllFindings(DiscoverPlanes("[mlx5_0, mlx5_1, mlx5_2, mlx5_3]", true)), "");
}

TEST(DiscoverPlanes, SpinesThatServeEveryRailSayNothing) {
  // Without planes the names decide alone, as before.
  EXPECT_EQ(AllFindings(DiscoverPlanes("[mlx5_1, mlx5_0, mlx5_2, mlx5_3]", false)), "");
}

}  // namespace topo_discover_planes_test
}  // namespace railguard::topo
