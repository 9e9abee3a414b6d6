// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck --periodic as slurmd's HealthCheckProgram: what slurm.conf's HealthCheckTimeout and
// HealthCheckNodeState mean for it, and SLURM_NODE_IS_HEALTHY (slurmd 26.05, slurmd.c
// run_script_health_check; slurm.conf(5) of 26.05.3).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "config/slurm_health_check.h"
#include "tests/healthcheck/railcheck_fixture.h"

namespace railguard::health {
namespace healthcheck_railcheck_cli_test {

// slurm.conf's settings as the reader would give them: railcheck as the program.
std::function<bool(SlurmHealthCheck*, std::string*)> Settings(SlurmHealthCheck hc) {
  if (hc.program.empty()) {
    hc.program = "/usr/sbin/railcheck-periodic";
    hc.program_at = "/etc/slurm/slurm.conf:30";
  }
  return [hc](SlurmHealthCheck* out, std::string*) {
    *out = hc;
    return true;
  };
}

nlohmann::json Warnings(const std::string& out) { return nlohmann::json::parse(out)["warnings"]; }

TEST_F(Railcheck, AnswersBeforeSlurmdsHealthCheckTimeout) {
  SlurmHealthCheck hc;
  hc.interval = 300;
  hc.timeout = 20;
  hc.timeout_at = "/etc/slurm/slurm.conf:31";
  read_health_check_ = Settings(hc);
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk) << out_.str();
  EXPECT_EQ(armed_, 18);
  EXPECT_EQ(Warnings(out_.str()),
            nlohmann::json::array(
                {"answering within 18 s, not periodic_time_limit_seconds 50: slurmd kills the "
                 "program after HealthCheckTimeout=20 (/etc/slurm/slurm.conf:31)"}));
  // Slurm's default (60 s, fixed before 26.05) leaves the configured 50 s.
  hc.timeout = 60;
  hc.timeout_at = "";
  read_health_check_ = Settings(hc);
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  EXPECT_EQ(armed_, 50);
  EXPECT_EQ(Warnings(out_.str()), nlohmann::json::array());
  // A Prolog is not the health check: its own limit.
  hc.timeout = 5;
  read_health_check_ = Settings(hc);
  ASSERT_EQ(Run({"--prolog", "--json"}), kExitOk);
  EXPECT_NE(armed_, 3);
}

TEST_F(Railcheck, SaysWhenSlurmdWouldNeverResumeWhatItDrains) {
  struct Case {
    unsigned states;
    const char* text;
    int interval;
    const char* said;
  };
  const Case cases[] = {
      {kHcStartOnly, "START_ONLY", 300,
       "HealthCheckNodeState=START_ONLY (slurm.conf:9): slurmd runs railcheck only when it "
       "starts, so a node railcheck drains is not resumed by it; set "
       "HealthCheckNodeState=ANY,CYCLE and a HealthCheckInterval"},
      {kHcRebootOnly, "REBOOT_ONLY", 300,
       "HealthCheckNodeState=REBOOT_ONLY (slurm.conf:9): slurmd runs railcheck only when it "
       "comes back from a reboot, so a node railcheck drains is not resumed by it; set "
       "HealthCheckNodeState=ANY,CYCLE and a HealthCheckInterval"},
      {kHcNondrainedIdle | kHcCycle, "NONDRAINED_IDLE,CYCLE", 300,
       "HealthCheckNodeState=NONDRAINED_IDLE,CYCLE (slurm.conf:9): slurmd never runs railcheck "
       "on a drained idle node, so a node railcheck drains is not resumed by it; set "
       "HealthCheckNodeState=ANY,CYCLE"},
      {kHcAny, "", 0,
       "HealthCheckInterval is not set: slurmd never runs railcheck periodically, so a node "
       "railcheck drains is not resumed by it; set HealthCheckInterval=300"},
  };
  for (const Case& c : cases) {
    SlurmHealthCheck hc;
    hc.states = c.states;
    hc.states_text = c.text;
    hc.states_at = *c.text ? "slurm.conf:9" : "";
    hc.interval = c.interval;
    read_health_check_ = Settings(hc);
    ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk) << c.text;
    EXPECT_EQ(Warnings(out_.str()), nlohmann::json::array({c.said})) << c.text;
  }
  // slurm.conf names no HealthCheckProgram: slurmd runs nothing, nothing applies.
  read_health_check_ = [](SlurmHealthCheck* out, std::string*) {
    *out = SlurmHealthCheck();
    out->timeout = 5;
    return true;
  };
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  EXPECT_EQ(Warnings(out_.str()), nlohmann::json::array());
  EXPECT_EQ(armed_, 50);
  // Settings that cannot be read: said, and the configured limit kept.
  read_health_check_ = [](SlurmHealthCheck*, std::string* err) {
    *err = "slurm.conf:3: HealthCheckTimeout=abc: expected whole seconds, 1 to 65535";
    return false;
  };
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  EXPECT_EQ(Warnings(out_.str()),
            nlohmann::json::array({"slurm.conf's HealthCheck settings not read (slurm.conf:3: "
                                   "HealthCheckTimeout=abc: expected whole seconds, 1 to 65535): "
                                   "the time limit stays 50 s"}));
}

// The RPCs a --periodic --json run sent: get_node, update_node.
std::pair<int, int> Rpcs(const std::string& out) {
  const nlohmann::json j = nlohmann::json::parse(out);
  return {j["slurm_rpcs"]["get_node"].get<int>(), j["slurm_rpcs"]["update_node"].get<int>()};
}

TEST_F(Railcheck, AHealthyNodeSlurmctldSeesHealthyIsNotAskedAgain) {
  node_is_healthy_ = "yes";
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);  // no run state yet: asks, publishes
  EXPECT_EQ(Rpcs(out_.str()), std::make_pair(1, 1));
  const std::string extra = Node().extra;
  for (int run = 0; run < 3; ++run) {
    ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
    EXPECT_EQ(Rpcs(out_.str()), std::make_pair(0, 0)) << out_.str();
    const nlohmann::json j = nlohmann::json::parse(out_.str());
    ASSERT_EQ(j["slurm"].size(), 1u) << j.dump();
    EXPECT_EQ(j["slurm"][0].get<std::string>().rfind(
                  "slurmctld not asked: it sees the node healthy (SLURM_NODE_IS_HEALTHY=yes) and "
                  "holds this health, published ",
                  0),
              0u)
        << j.dump();
  }
  EXPECT_EQ(Node().extra, extra);
  // Past extra_refresh_seconds (3600; each run is 300 s later): asked, Extra refreshed.
  for (int run = 0; run < 12; ++run) Run({"--periodic", "--json"});
  EXPECT_NE(Node().extra, extra);
}

TEST_F(Railcheck, SlurmctldIsAskedWhenAnythingMayDiffer) {
  node_is_healthy_ = "yes";
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  ASSERT_EQ(Rpcs(out_.str()).first, 0);
  // slurmctld sees it otherwise, or slurmd does not say (before 26.05, at its start).
  node_is_healthy_ = "no";
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  EXPECT_EQ(Rpcs(out_.str()).first, 1);
  node_is_healthy_.reset();
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  EXPECT_EQ(Rpcs(out_.str()).first, 1);
  node_is_healthy_ = "maybe";
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  EXPECT_EQ(Rpcs(out_.str()).first, 1);
  EXPECT_EQ(Warnings(out_.str()),
            nlohmann::json::array({"SLURM_NODE_IS_HEALTHY='maybe': expected yes or no; ignored"}));
  // The health changes (a rail at a lower rate): slurmctld is asked, and the node drained.
  node_is_healthy_ = "yes";
  Fixture("--fault rate-down:3");
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitDrain) << out_.str();
  EXPECT_GE(Rpcs(out_.str()).first, 1);
  EXPECT_TRUE(Node().drain);
  // Healthy again, but the feature is withheld for some clean runs: asked each time.
  Fixture("");
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  EXPECT_EQ(Rpcs(out_.str()).first, 1);
}

TEST_F(Railcheck, ADryRunOrAHookAlwaysAsks) {
  node_is_healthy_ = "yes";
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  ASSERT_EQ(Run({"--periodic", "--json", "--dry-run"}), kExitOk);
  EXPECT_EQ(Rpcs(out_.str()).first, 1);
  ASSERT_EQ(Run({"--prolog", "--json"}), kExitOk);
  EXPECT_EQ(Rpcs(out_.str()).first, 1);
}

}  // namespace healthcheck_railcheck_cli_test
}  // namespace railguard::health
