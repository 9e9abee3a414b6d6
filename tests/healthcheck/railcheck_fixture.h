// SPDX-License-Identifier: GPL-2.0-or-later
// The fixture of the whole-run railcheck tests (railcheck_cli_test.cc,
// railcheck_slurmd_test.cc): the real config and topology, generated sysfs fixtures, state
// files in a temporary folder, and an in-memory slurmctld.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "healthcheck/railcheck.h"
#include "tests/healthcheck/health_test_util.h"
#include "wire/event_log.h"

namespace railguard::health {
namespace healthcheck_railcheck_cli_test {

using testing::CachedFixture;
using testing::FakeSlurm;
using testing::Forward;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

class Railcheck : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteConfig("");
    SlurmNode n;
    n.name = "n003";
    n.features = "su1";
    slurm_.nodes["n003"] = n;
    Fixture("");
  }

  // The health section for the fixtures plus `extra_health`; the event log is `events_log`,
  // else events.log in the test's folder; the state folder `state_dir`, else state/%n there.
  void WriteConfig(const std::string& extra_health, std::string events_log = "",
                   std::string state_dir = "") {
    if (events_log.empty()) events_log = tmp_ / "events.log";
    if (state_dir.empty()) state_dir = tmp_.path() + "/state/%n";
    WriteFile(tmp_ / "railguard.yaml", "topology: " RAILGUARD_SOURCE_DIR
                                       "/etc/dev-4su.yaml\n"
                                       "health:\n"
                                       "  sysfs_root: " +
                                           tmp_.path() +
                                           "/sys/%n\n"
                                           "  state_dir: " +
                                           state_dir + "\n"
                                           "  events_log: " +
                                           events_log +
                                           "\n"
                                           "  flap_window_seconds: 0\n" +
                                           extra_health);
  }

  // Points n003's sysfs root at a fixture made with `args` (shared, read only).
  void Fixture(const std::string& args) {
    testing::fs::create_directories(tmp_ / "sys");
    testing::fs::remove(tmp_ / "sys/n003");
    testing::fs::create_directory_symlink(CachedFixture(args), tmp_ / "sys/n003");
  }

  int Run(std::vector<std::string> args, const std::string& argv0 = "railcheck") {
    out_.str("");
    err_.str("");
    CliEnv env;
    env.argv0 = argv0;
    env.slurmd_nodename = "n003";
    env.slurm_conf = slurm_conf_env_;  // railguard.yaml is found beside it
    env.default_slurm_conf = default_slurm_conf_;
    env.node_config = node_config_;
    CliDeps deps;
    deps.fs = fs_ ? fs_ : std::make_shared<RealSysfs>();
    deps.open_verbs = []() { return nullptr; };
    deps.open_slurm = [this](std::string*) { return std::make_unique<Forward>(&slurm_); };
    deps.now = [this]() { return now_; };
    deps.read_health_check = read_health_check_;
    deps.arm_time_limit = [this](int seconds) { armed_ = seconds; };
    env.node_is_healthy = node_is_healthy_;
    deps.out = &out_;
    deps.err = &err_;
    deps.gather_in_child = in_child_;
    const int code = RunRailcheck(args, env, deps);
    now_ += 300;
    return code;
  }

  const SlurmNode& Node() { return slurm_.nodes["n003"]; }

  // The events in the log at `path` (default: the configured one), in file order.
  std::vector<wire::HealthEvent> Events(std::string path = "") {
    if (path.empty()) path = tmp_ / "events.log";
    std::vector<wire::HealthEvent> out;
    Diags problems;
    std::string err;
    EXPECT_EQ(wire::ReadEvents(path, 0, 1e11, &out, &problems, &err), wire::EventLogStatus::kOk) << err;
    EXPECT_TRUE(problems.empty()) << FormatDiags(problems);
    return out;
  }

  TempDir tmp_;
  std::shared_ptr<const Sysfs> fs_;  // the real one when null
  bool in_child_ = false;            // CliDeps::gather_in_child
  FakeSlurm slurm_;
  std::ostringstream out_;
  std::ostringstream err_;
  double now_ = 1700000000;
  std::string slurm_conf_env_ = tmp_ / "slurm.conf";    // CliEnv::slurm_conf
  std::string default_slurm_conf_ = kDefaultSlurmConf;  // CliEnv::default_slurm_conf
  std::string node_config_ = tmp_ / "etc-railguard/railguard.yaml";  // CliEnv::node_config
  std::optional<std::string> node_is_healthy_;  // CliEnv::node_is_healthy
  std::function<bool(SlurmHealthCheck*, std::string*)> read_health_check_;  // CliDeps'
  int armed_ = 0;  // the last time limit railcheck armed (CliDeps::arm_time_limit)
};

}  // namespace healthcheck_railcheck_cli_test
}  // namespace railguard::health
