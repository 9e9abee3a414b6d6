// SPDX-License-Identifier: GPL-2.0-or-later
// Tests job_submit/rail's reload at a reconfigure (plugin/job_submit_rail/js_bridge.h,
// rg_js_reload_if_stale): the setup is read again only when railguard.yaml or its topology
// changed. At every slurmctld start the keeper saw slurm_conf.last_update move past the one
// init() loaded with and read 4,096 nodes' topology a second time, into its own thread's
// malloc arena, which slurmctld then kept for its life (bench/sched_scale.sh).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plugin/job_submit_rail/js_bridge.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::plugin {
namespace plugin_js_reload_test {

using health::testing::ReadFile;
using health::testing::TempDir;
using health::testing::WriteFile;

std::vector<std::string>& Logged() {
  static std::vector<std::string> lines;
  return lines;
}
void Capture(int, const char* msg) { Logged().push_back(msg); }

int Count(const std::string& part) {
  int n = 0;
  for (const std::string& l : Logged()) n += l.find(part) != std::string::npos;
  return n;
}
// The loads: each logs "loaded <railguard.yaml> and <topology>: ...".
int Loads() {
  int n = 0;
  for (const std::string& l : Logged()) n += l.rfind("loaded ", 0) == 0;
  return n;
}

class JobSubmitReload : public ::testing::Test {
 protected:
  void SetUp() override {
    Logged().clear();
    WriteFile(tmp_ / "topo.yaml", ReadFile(RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml"));
    WriteFile(tmp_ / "railguard.yaml", "topology: topo.yaml\n");
    ASSERT_EQ(rg_js_load((tmp_ / "railguard.yaml").c_str(), 42, Capture), 0);
    ASSERT_EQ(Loads(), 1);
  }
  void TearDown() override { rg_js_fini(); }

  TempDir tmp_;
};

TEST_F(JobSubmitReload, SlurmConfReadWithTheFilesUnchangedKeepsTheSetup) {
  EXPECT_EQ(rg_js_reload_if_stale(42, Capture), 0);  // nothing was read
  EXPECT_EQ(rg_js_reload_if_stale(43, Capture), 1);  // slurm.conf was read
  EXPECT_EQ(Loads(), 1);
  EXPECT_EQ(Count("are as loaded: the placement setup stays in force"), 1);
  EXPECT_EQ(rg_js_reload_if_stale(43, Capture), 0);  // and is now the one in force
}

TEST_F(JobSubmitReload, AChangedRailguardYamlIsReloaded) {
  WriteFile(tmp_ / "railguard.yaml", "topology: topo.yaml\nplacement:\n  default_mode: prefer\n");
  EXPECT_EQ(rg_js_reload_if_stale(43, Capture), 1);
  ASSERT_EQ(Loads(), 2);
  EXPECT_NE(Logged().back().find("default placement prefer"), std::string::npos)
      << Logged().back();
}

TEST_F(JobSubmitReload, AChangedTopologyIsReloaded) {
  WriteFile(tmp_ / "topo.yaml", ReadFile(RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml") + "# edited\n");
  EXPECT_EQ(rg_js_reload_if_stale(43, Capture), 1);
  EXPECT_EQ(Loads(), 2);
}

TEST_F(JobSubmitReload, AfterAFailedLoadEveryReadOfSlurmConfTriesAgain) {
  WriteFile(tmp_ / "railguard.yaml", "topology: [\n");
  EXPECT_EQ(rg_js_reload_if_stale(43, Capture), 1);
  EXPECT_EQ(Count("the placement setup loaded before stays in force"), 1);
  // The admin fixes it; the file's time moves on, but even had it not, nothing is trusted.
  WriteFile(tmp_ / "railguard.yaml", "topology: topo.yaml\n");
  EXPECT_EQ(rg_js_reload_if_stale(44, Capture), 1);
  EXPECT_EQ(Loads(), 2);
}

// job_submit/rail counts a job's nodes per domain for the setup of one generation
// (js_domains.h); a reload between the count and the decision must not let counts of one
// topology be read against another: the bridge answers -2 and the plugin hands the nodes over
// one by one instead.
TEST_F(JobSubmitReload, CountsMadeBeforeAReloadAreRefusedAndTheNodesAskedForInstead) {
  const uint64_t before = rg_js_generation();
  ASSERT_NE(before, 0u);
  // etc/dev-4su.yaml: 4 domains of 8 nodes; a 4-node job counted in the first, all healthy.
  std::vector<uint32_t> counts = {4, 0, 0, 0};
  rg_js_facts_t facts = {};
  facts.min_nodes = 2;
  facts.su_counts = counts.data();
  facts.su_count_n = static_cast<uint32_t>(counts.size());
  facts.generation = before;
  facts.healthy_count = 4;
  facts.max_cpus = 64;
  facts.feature_exists = 1;
  facts.sched_params = "bf_interval=2,max_switch_wait=300";
  rg_js_decision_t d;
  ASSERT_EQ(rg_js_decide(&facts, nullptr, &d), 0);
  rg_js_decision_free(&d);

  WriteFile(tmp_ / "railguard.yaml", "topology: topo.yaml\nplacement:\n  default_mode: prefer\n");
  ASSERT_EQ(rg_js_reload_if_stale(43, Capture), 1);
  ASSERT_NE(rg_js_generation(), before);
  EXPECT_EQ(rg_js_decide(&facts, nullptr, &d), -2);
  EXPECT_EQ(d.features, nullptr);
  EXPECT_EQ(d.message, nullptr);
  EXPECT_EQ(d.set_switches, 0);
  rg_js_decision_free(&d);

  // Counted again for the setup now in force: decided.
  facts.generation = rg_js_generation();
  EXPECT_EQ(rg_js_decide(&facts, nullptr, &d), 0);
  rg_js_decision_free(&d);
  // A count over another number of domains is as stale as one of another generation.
  counts.push_back(0);
  facts.su_count_n = static_cast<uint32_t>(counts.size());
  facts.su_counts = counts.data();
  EXPECT_EQ(rg_js_decide(&facts, nullptr, &d), -2);
  rg_js_decision_free(&d);
}

}  // namespace plugin_js_reload_test
}  // namespace railguard::plugin
