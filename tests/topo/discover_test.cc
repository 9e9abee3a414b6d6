// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the discovery entry (topo/discover.h): mangled dumps, natural order, --exclude
// patterns, and the round trip of a 4096-node fabric (its cost: bench/bench_topo.cc).
#include "topo/discover.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <string>

#include "tests/topo/discover_test_util.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_discover_test {

using discover_testing::AllFindings;
using discover_testing::BigLayout;
using discover_testing::Load;
using discover_testing::Simulate;

TEST(DiscoverRobustness, EveryMangledLineOfASimulatedDumpParsesOrFailsButNeverCrashes) {
  const std::string dump = Simulate(Load(R"(cluster: c
rails:
  - {index: 0, link: {rate_gbps: 400, width: 4X, speed: NDR}}
  - {index: 1, link: {rate_gbps: 400, width: 4X, speed: NDR}}
node_types:
  - {name: g, gpus: 2, nics: [mlx5_0, mlx5_1]}
scalable_units:
  - {name: su1, nodes: "n[1-2]", node_type: g, leaves: [{rail: 0}, {rail: 1}]}
  - {name: su2, nodes: "n[3-4]", node_type: g, leaves: [{rail: 0}, {rail: 1}]}
spines:
  - {name: s1}
)"));
  int parsed = 0;
  for (size_t i = 0; i < dump.size(); i += 2) {
    std::string mangled = dump;
    mangled.erase(i, 1);
    IbFabric f;
    Diags errors;
    if (!ParseIbnetdiscover(mangled, "m.topo", &f, &errors)) continue;
    ++parsed;
    const Discovery d = Discover(f, DiscoverOptions());
    // Either a topology comes out, or a finding says why not.
    EXPECT_TRUE(!d.topology.sus.empty() || !d.findings.empty()) << i;
    EXPECT_EQ(d.topology.sus.empty(), d.topology.rails.empty()) << i;
  }
  EXPECT_GT(parsed, 0);
}

TEST(DiscoverHelpers, ABadExcludePatternIsAnErrorNotAnException) {
  std::optional<std::regex> re;
  std::string err;
  EXPECT_FALSE(CompileExclude("ufm[", &re, &err));
  EXPECT_EQ(err.substr(0, 35), "invalid regular expression 'ufm[': ");
}

// Parses a generated dump and discovers from it.
Discovery ParseAndDiscover(const std::string& dump) {
  IbFabric f;
  Diags errors;
  EXPECT_TRUE(ParseIbnetdiscover(dump, "big.topo", &f, &errors)) << FormatDiags(errors);
  return Discover(f, DiscoverOptions());
}

TEST(DiscoverScale, A4096NodeFabricRoundTripsAndCostsLinearTime) {
  // Its cost (against a quarter of it) is measured in bench/bench_topo.cc, not here.
  const Topology big = Load(BigLayout(128, 32, 16, 1024));
  const Discovery d = ParseAndDiscover(Simulate(big));
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(d.counts.hosts, 4096);
  EXPECT_EQ(d.counts.leaves, 1024);
  EXPECT_EQ(d.topology.sus.size(), 128u);
  Topology expected = big;
  expected.cluster = "discovered";
  ASSERT_EQ(expected.node_types.size(), 1u);
  expected.node_types[0].name = "gpu-node";
  for (ScalableUnit& su : expected.sus) su.node_type = "gpu-node";
  EXPECT_EQ(EmitTopologyYaml(d.topology), EmitTopologyYaml(expected));
}

}  // namespace topo_discover_test
}  // namespace railguard::topo
