// SPDX-License-Identifier: GPL-2.0-or-later
// Tests that what one job brings to job_submit/rail (its SPANK job-control environment, set by
// the SPANK plugin or forged by hand) decides that job only, through the plugin's C bridge
// (plugin/job_submit_rail/js_bridge.h), the one place that keeps anything between jobs; and
// that a hostile option value comes back as one short printable line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plugin/job_submit_rail/js_bridge.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::plugin {
namespace plugin_job_env_isolation_test {

using health::testing::TempDir;
using health::testing::WriteFile;

constexpr int64_t kConf = 42;  // slurm_conf.last_update of the loaded setup

// A decision as plain values, for comparing two of them.
struct Seen {
  int refuse = 0;
  int set_switches = 0;
  uint32_t req_switch = 0;
  uint32_t wait4switch = 0;
  std::string features;
  std::string message;
  bool operator==(const Seen& o) const {
    return refuse == o.refuse && set_switches == o.set_switches && req_switch == o.req_switch &&
           wait4switch == o.wait4switch && features == o.features && message == o.message;
  }
};

class JobSubmitBridge : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(tmp_ / "railguard.yaml", "topology: " RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml\n");
    ASSERT_EQ(rg_js_load((tmp_ / "railguard.yaml").c_str(), kConf, nullptr), 0);
  }
  void TearDown() override { rg_js_fini(); }

  // Decides a job of `nodes` nodes with the SPANK environment `env`.
  Seen Decide(uint32_t nodes, const std::vector<std::string>& env = {}) {
    std::vector<const char*> ptrs;
    for (const std::string& e : env) ptrs.push_back(e.c_str());
    rg_js_facts_t facts = {};
    facts.min_nodes = nodes;
    // The partition: all 32 nodes of etc/dev-4su.yaml, healthy.
    std::vector<std::string> names;
    for (int i = 1; i <= 32; ++i)
      names.push_back("n" + std::string(i < 10 ? "00" : "0") + std::to_string(i));
    std::vector<const char*> name_ptrs, feature_ptrs;
    for (const std::string& n : names) {
      name_ptrs.push_back(n.c_str());
      feature_ptrs.push_back("gpu,rail_healthy");
    }
    facts.node_names = name_ptrs.data();
    facts.node_features = feature_ptrs.data();
    facts.node_cnt = static_cast<uint32_t>(names.size());
    facts.spank_env = ptrs.empty() ? nullptr : ptrs.data();
    facts.spank_env_cnt = static_cast<uint32_t>(ptrs.size());
    facts.sched_params = "bf_interval=2,max_switch_wait=300";
    rg_js_decision_t d;
    EXPECT_EQ(rg_js_decide(&facts, nullptr, &d), 0);
    Seen s;
    s.refuse = d.refuse;
    s.set_switches = d.set_switches;
    s.req_switch = d.req_switch;
    s.wait4switch = d.wait4switch;
    s.features = d.features ? d.features : "";
    s.message = d.message ? d.message : "";
    rg_js_decision_free(&d);
    return s;
  }

  TempDir tmp_;
};

TEST_F(JobSubmitBridge, AJobsOwnOptionsChangeNothingForTheJobsAfterIt) {
  const Seen plain = Decide(12);
  ASSERT_TRUE(plain.set_switches);
  EXPECT_EQ(plain.req_switch, 2u);
  // Jobs that turn placement off, ask for strict, cap their SUs, or are refused for a bad
  // value: none of it carries over.
  EXPECT_FALSE(Decide(12, {"SPANK_RAIL_PLACEMENT=off"}).set_switches);
  EXPECT_EQ(Decide(12, {"SPANK_RAIL_PLACEMENT=strict", "SPANK_RAIL_MAX_SUS=1"}).refuse,
            RG_JS_TOO_MANY_SUS);
  EXPECT_EQ(Decide(4, {"SPANK_RAIL_MAX_SUS=many"}).refuse, RG_JS_BAD_OPTION);
  EXPECT_TRUE(Decide(12) == plain);
}

TEST_F(JobSubmitBridge, OnlyTheExactNamesCountNotLookalikesOrOtherVariables) {
  const Seen plain = Decide(12);
  const Seen lookalikes =
      Decide(12, {"SPANK_RAIL_PLACEMENT_X=off", "XSPANK_RAIL_PLACEMENT=off", "SPANK_RAIL_PLACEMENT",
                  "RAIL_PLACEMENT=off", "SPANK_RAIL_MAX_SUSX=1", "NCCL_IB_HCA=mlx5_0", "=off", ""});
  EXPECT_TRUE(lookalikes == plain) << lookalikes.message;
  // The first of two entries of one name is the one that counts, as Slurm's getenv would.
  EXPECT_FALSE(
      Decide(12, {"SPANK_RAIL_PLACEMENT=off", "SPANK_RAIL_PLACEMENT=strict"}).set_switches);
}

TEST_F(JobSubmitBridge, AHostileOptionValueIsRefusedWithOneShortPrintableLine) {
  const std::string forged =
      "strict\nerror: railguard: forged log line\x1b[2J\xff" + std::string(5000, 'A');
  for (const char* name : {"SPANK_RAIL_PLACEMENT", "SPANK_RAIL_MAX_SUS"}) {
    const Seen s = Decide(4, {std::string(name) + "=" + forged});
    EXPECT_EQ(s.refuse, RG_JS_BAD_OPTION) << name;
    EXPECT_LE(s.message.size(), 160u) << s.message;
    for (unsigned char c : s.message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << name << ": " << int(c);
    EXPECT_NE(s.message.find("'strict?error: railguard: forged log line...'"), std::string::npos)
        << s.message;
  }
}

}  // namespace plugin_job_env_isolation_test
}  // namespace railguard::plugin
