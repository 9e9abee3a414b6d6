// SPDX-License-Identifier: GPL-2.0-or-later
// Regression tests for what the fuzzers in fuzz/ found in topo/: each input is the one the
// fuzzer reported (or its minimal form), with the behaviour now expected.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "topo/hostlist.h"
#include "topo/topology_yaml.h"

namespace railguard {
namespace topo_fuzz_regressions_test {

// fuzz_hostlist: digits before a bracket group joined the group's numbers into a suffix above
// 18446744073709551614. Expansion accepted it, but the compressed names did not expand again
// (and Slurm would print those names with another number).
TEST(HostlistFuzzRegression, DigitsBeforeBracketsMayNotMakeASuffixTooLarge) {
  std::vector<std::string> hosts;
  std::string err;
  EXPECT_FALSE(ExpandHostlist("184467440737095516151[1-2]", &hosts, &err));
  EXPECT_EQ(err,
            "number '1844674407370955161511' in host '1844674407370955161511' of "
            "'184467440737095516151[1-2]' is too large; expected at most 18446744073709551614");
}

TEST(HostlistFuzzRegression, DigitsBeforeBracketsUpToTheLimitStillExpandAndCompressBack) {
  std::vector<std::string> hosts;
  std::string err;
  ASSERT_TRUE(ExpandHostlist("1844674407370955161[0-4]", &hosts, &err)) << err;
  EXPECT_EQ(hosts.back(), "18446744073709551614");
  std::vector<std::string> again;
  ASSERT_TRUE(ExpandHostlist(CompressHostlist(hosts), &again, &err)) << err;
  EXPECT_EQ(again, hosts);
}

TEST(HostlistFuzzRegression, ASuffixTooLargeFromTwoGroupsIsRefused) {
  std::vector<std::string> hosts;
  std::string err;
  EXPECT_FALSE(ExpandHostlist("x[1844674407]3709551[614-615]", &hosts, &err));
  EXPECT_EQ(err,
            "number '18446744073709551615' in host 'x18446744073709551615' of "
            "'x[1844674407]3709551[614-615]' is too large; expected at most 18446744073709551614");
  EXPECT_FALSE(
      ExpandHostlist("n[1-2],r[99999999999]x[1-2],r[1844674407370955161][5]", &hosts, &err));
  EXPECT_EQ(err,
            "number '18446744073709551615' in host 'r18446744073709551615' of "
            "'r[1844674407370955161][5]' is too large; expected at most 18446744073709551614");
}

// fuzz_topology_yaml: names that are valid but read back as something else when written
// plain ("null" as a null node, "-" as a sequence entry) made EmitTopologyYaml's output fail
// to load. They are now quoted; every other name stays plain.
TEST(TopologyYamlFuzzRegression, NamesThatYamlReadsOtherwiseAreQuotedWhenEmitted) {
  const char kYaml[] =
      "cluster: \"null\"\n"
      "rails:\n"
      "  - {index: 0, name: \"-\", link: {rate_gbps: 400, width: 4X, speed: NDR}}\n"
      "node_types:\n"
      "  - {name: \"NULL\", gpus: 8, nics: [mlx5_0]}\n"
      "scalable_units:\n"
      "  - {name: \"Null\", nodes: \"n[1-2]\", node_type: \"NULL\", leaves: [{rail: 0, name: "
      "\"-\"}]}\n"
      "spines:\n"
      "  - {name: \"null\"}\n";
  topo::Topology t;
  Diags diags;
  ASSERT_TRUE(topo::LoadTopologyString(kYaml, "t.yaml", &t, &diags)) << FormatDiags(diags);
  const std::string emitted = topo::EmitTopologyYaml(t);
  EXPECT_EQ(emitted,
            "cluster: \"null\"\n"
            "rails:\n"
            "  - {index: 0, name: \"-\", link: {rate_gbps: 400, width: 4X, speed: NDR}}\n"
            "node_types:\n"
            "  - name: \"NULL\"\n"
            "    gpus: 8\n"
            "    nics: [\"mlx5_0\"]\n"
            "scalable_units:\n"
            "  - name: \"Null\"\n"
            "    nodes: \"n[1-2]\"\n"
            "    node_type: \"NULL\"\n"
            "    leaves:\n"
            "      - {rail: 0, name: \"-\"}\n"
            "spines:\n"
            "  - {name: \"null\"}\n");
  topo::Topology again;
  ASSERT_TRUE(topo::LoadTopologyString(emitted, "emitted.yaml", &again, &diags))
      << FormatDiags(diags);
  EXPECT_EQ(topo::EmitTopologyYaml(again), emitted);
}

TEST(TopologyYamlFuzzRegression, NamesThatOnlyLookSpecialStayPlain) {
  topo::Topology t;
  t.cluster = "-x";
  t.rails.push_back(topo::Rail{0, "nulls", {400, 4, "NDR"}});
  t.node_types.push_back(topo::NodeType{"1e3", 8, {"mlx5_0"}, {}, {}});
  const std::string emitted = topo::EmitTopologyYaml(t);
  EXPECT_NE(emitted.find("cluster: -x\n"), std::string::npos) << emitted;
  EXPECT_NE(emitted.find("name: nulls,"), std::string::npos) << emitted;
  EXPECT_NE(emitted.find("  - name: 1e3\n"), std::string::npos) << emitted;
}

}  // namespace topo_fuzz_regressions_test
}  // namespace railguard
