// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/fabric_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/plugin/dev_layout.h"

namespace railguard::plugin {
namespace {

// A partition as job_submit/rail hands it over: names, active features and slurmctld indices.
struct Nodes {
  std::vector<std::string> names, features;
  std::vector<uint32_t> index;
  std::vector<const char*> name_ptrs, feature_ptrs;

  void Add(const std::string& name, const std::string& features, uint32_t at) {
    names.push_back(name);
    this->features.push_back(features);
    index.push_back(at);
  }
  void Freeze() {
    name_ptrs.clear();
    feature_ptrs.clear();
    for (size_t i = 0; i < names.size(); ++i) {
      name_ptrs.push_back(names[i].c_str());
      feature_ptrs.push_back(features[i].c_str());
    }
  }
};

// n001-n032 at indices 0-31 (su1-su4 of etc/dev-4su.yaml), healthy but n003 and n020, plus
// gpu-login (not on the rails) at 32.
Nodes DevNodes() {
  Nodes n;
  for (int i = 1; i <= 32; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "n%03d", i);
    n.Add(name, (i == 3 || i == 20) ? "su" : "su,rail_healthy", static_cast<uint32_t>(i - 1));
  }
  n.Add("gpu-login", "rail_healthy", 32);
  n.Freeze();
  return n;
}

std::shared_ptr<const topo::Topology> Dev() {
  return std::make_shared<const topo::Topology>(Dev4SuTopology());
}

TEST(FabricCache, GivesWhatTheNameLookupGives) {
  const auto topo = Dev();
  Nodes n = DevNodes();
  FabricCache cache;
  uint32_t healthy = 0, expected_healthy = 0;
  const Fabric got = cache.Of(topo, n.index.data(), n.name_ptrs.data(), n.feature_ptrs.data(),
                              n.names.size(), "rail_healthy", &healthy);
  const Fabric want = FabricOfNodes(*topo, n.name_ptrs.data(), n.feature_ptrs.data(),
                                    n.names.size(), "rail_healthy", &expected_healthy);
  EXPECT_EQ(got.su_sizes, want.su_sizes);
  EXPECT_EQ(got.su_sizes, (std::vector<uint32_t>{8, 8, 8, 8}));
  EXPECT_EQ(got.gpus_per_node, want.gpus_per_node);
  EXPECT_EQ(got.split, want.split);
  EXPECT_EQ(healthy, expected_healthy);
  EXPECT_EQ(healthy, 30u);  // 32 rail nodes but n003 and n020; gpu-login is not counted
}

// What job_submit/rail counts itself per domain (plugin/job_submit_rail/js_domains.h, with
// NodeDomain) gives the Fabric that handing each node over gives, without a lookup.
TEST(FabricCache, CountsPerDomainGiveWhatTheNodesGive) {
  const auto topo = Dev();
  Nodes n = DevNodes();
  std::vector<uint32_t> counts(topo->domains.size(), 0);
  for (const std::string& name : n.names) {
    const int d = NodeDomain(*topo, name.c_str());
    if (d >= 0) counts[static_cast<size_t>(d)] += 1;
  }
  EXPECT_EQ(NodeDomain(*topo, "gpu-login"), -1);
  EXPECT_EQ(NodeDomain(*topo, "n009"), 1);
  FabricCache cache;
  uint32_t healthy = 0;
  const Fabric want = cache.Of(topo, n.index.data(), n.name_ptrs.data(), n.feature_ptrs.data(),
                               n.names.size(), "rail_healthy", &healthy);
  FabricCache counted;
  const Fabric got = counted.Counted(topo, counts.data(), counts.size());
  EXPECT_EQ(got.su_sizes, want.su_sizes);
  EXPECT_EQ(got.gpus_per_node, want.gpus_per_node);
  EXPECT_EQ(got.split, want.split);
  EXPECT_EQ(counted.lookups(), 0u);
}

TEST(FabricCache, LooksEachNodeUpOnceAcrossSubmissions) {
  const auto topo = Dev();
  Nodes n = DevNodes();
  FabricCache cache;
  uint32_t healthy = 0;
  for (int submission = 0; submission < 5; ++submission)
    cache.Of(topo, n.index.data(), n.name_ptrs.data(), n.feature_ptrs.data(), n.names.size(),
             "rail_healthy", &healthy);
  EXPECT_EQ(cache.lookups(), 33u);
  // A partition of su2 only: nothing new to look up, and only su2 counted.
  Nodes su2;
  for (size_t i = 8; i < 16; ++i) su2.Add(n.names[i], n.features[i], n.index[i]);
  su2.Freeze();
  const Fabric f = cache.Of(topo, su2.index.data(), su2.name_ptrs.data(),
                            su2.feature_ptrs.data(), su2.names.size(), "rail_healthy", &healthy);
  EXPECT_EQ(f.su_sizes, (std::vector<uint32_t>{0, 8, 0, 0}));
  EXPECT_EQ(healthy, 8u);
  EXPECT_EQ(cache.lookups(), 33u);
}

TEST(FabricCache, ANodeTableRebuiltByAReconfigureIsLookedUpAgain) {
  const auto topo = Dev();
  Nodes n = DevNodes();
  FabricCache cache;
  uint32_t healthy = 0;
  cache.Of(topo, n.index.data(), n.name_ptrs.data(), n.feature_ptrs.data(), n.names.size(),
           "rail_healthy", &healthy);
  // After the reconfigure slurmctld's table holds n025-n032 where n001-n008 were, and the
  // reverse: with the old entries trusted, su1 and su4 would swap counts.
  Nodes moved = DevNodes();
  for (size_t i = 0; i < 8; ++i) std::swap(moved.index[i], moved.index[24 + i]);
  moved.names.resize(8);  // only n001-n008, now at indices 24-31
  moved.features.resize(8);
  moved.index.resize(8);
  moved.Freeze();
  const size_t before = cache.lookups();
  const Fabric f = cache.Of(topo, moved.index.data(), moved.name_ptrs.data(),
                            moved.feature_ptrs.data(), moved.names.size(), "rail_healthy",
                            &healthy);
  EXPECT_EQ(f.su_sizes, (std::vector<uint32_t>{8, 0, 0, 0}));
  EXPECT_EQ(healthy, 7u);  // n003 is not healthy
  EXPECT_EQ(cache.lookups(), before + 8);
}

TEST(FabricCache, ANewTopologyStartsAfresh) {
  Nodes n = DevNodes();
  FabricCache cache;
  uint32_t healthy = 0;
  cache.Of(Dev(), n.index.data(), n.name_ptrs.data(), n.feature_ptrs.data(), n.names.size(),
           "rail_healthy", &healthy);
  // The reloaded topology's su4 has other nodes than slurmctld's: su4's nodes of slurmctld
  // must not count from the remembered domains.
  topo::Topology three = Dev4SuTopology();
  for (std::string& node : three.sus.back().nodes) node = "gone-" + node;
  three.Index();
  const auto reloaded = std::make_shared<const topo::Topology>(three);
  const Fabric f = cache.Of(reloaded, n.index.data(), n.name_ptrs.data(), n.feature_ptrs.data(),
                            n.names.size(), "rail_healthy", &healthy);
  EXPECT_EQ(f.su_sizes, (std::vector<uint32_t>{8, 8, 8, 0}));
  EXPECT_EQ(cache.lookups(), 33u);
}

TEST(FabricCache, CountsOnlyTheWholeFeatureName) {
  const auto topo = Dev();
  Nodes n;
  const std::vector<std::string> lists = {
      "rail_healthy",         "su1,rail_healthy",         "rail_healthy,su1",
      "a,rail_healthy,b",     "rail_healthy_old",         "xrail_healthy",
      "su1,rail_healthy2,a",  "rail_healthyrail_healthy", "old_rail_healthy,rail_healthy",
      "",                     "rail_health"};
  for (size_t i = 0; i < lists.size(); ++i)
    n.Add("n00" + std::to_string(i + 1), lists[i], static_cast<uint32_t>(i));
  n.names[9] = "n010";
  n.names[10] = "n011";
  n.Freeze();
  FabricCache cache;
  uint32_t healthy = 0, expected = 0;
  cache.Of(topo, n.index.data(), n.name_ptrs.data(), n.feature_ptrs.data(), n.names.size(),
           "rail_healthy", &healthy);
  FabricOfNodes(*topo, n.name_ptrs.data(), n.feature_ptrs.data(), n.names.size(), "rail_healthy",
                &expected);
  EXPECT_EQ(healthy, 5u);
  EXPECT_EQ(healthy, expected);
}

TEST(FabricCache, WithoutIndicesEveryNodeIsLookedUp) {
  const auto topo = Dev();
  Nodes n = DevNodes();
  FabricCache cache;
  uint32_t healthy = 0;
  for (int submission = 0; submission < 2; ++submission) {
    const Fabric f = cache.Of(topo, nullptr, n.name_ptrs.data(), n.feature_ptrs.data(),
                              n.names.size(), "rail_healthy", &healthy);
    EXPECT_EQ(f.su_sizes, (std::vector<uint32_t>{8, 8, 8, 8}));
  }
  EXPECT_EQ(cache.lookups(), 66u);
}

}  // namespace
}  // namespace railguard::plugin
