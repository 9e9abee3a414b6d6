// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for railcheck as a whole (healthcheck/railcheck.h): the real config, topology,
// generated sysfs fixtures and state files, with an in-memory slurmctld. What an admin and
// Slurm see: exit codes, the report, the node's reason, features and Extra.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "healthcheck/run_events.h"
#include "healthcheck/railcheck.h"
#include "tests/healthcheck/health_test_util.h"
#include "config/load.h"

namespace railguard::health {
namespace {

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
  // else events.log in the test's folder.
  void WriteConfig(const std::string& extra_health, std::string events_log = "") {
    if (events_log.empty()) events_log = tmp_ / "events.log";
    WriteFile(tmp_ / "railguard.yaml", "topology: " RAILGUARD_SOURCE_DIR
                                       "/etc/dev-4su.yaml\n"
                                       "health:\n"
                                       "  sysfs_root: " +
                                           tmp_.path() +
                                           "/sys/%n\n"
                                           "  state_dir: " +
                                           tmp_.path() +
                                           "/state/%n\n"
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
    env.slurm_conf = tmp_ / "slurm.conf";  // railguard.yaml is found beside it
    CliDeps deps;
    deps.fs = std::make_shared<RealSysfs>();
    deps.open_verbs = []() { return nullptr; };
    deps.open_slurm = [this](std::string*) { return std::make_unique<Forward>(&slurm_); };
    deps.now = [this]() { return now_; };
    deps.out = &out_;
    deps.err = &err_;
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
  FakeSlurm slurm_;
  std::ostringstream out_;
  std::ostringstream err_;
  double now_ = 1700000000;
};

TEST_F(Railcheck, AHealthyNodeGetsTheFeatureAndItsRailsInExtra) {
  ASSERT_EQ(Run({"baseline"}), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(),
            "railcheck n003 baseline: baseline\nslurm: recorded baseline of 8 "
            "ports and 48 PCIe functions in " +
                tmp_.path() + "/state/n003/baseline.json\n");
  ASSERT_EQ(Run({"--prolog"}), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(),
            "railcheck n003 prolog: ok (rails: 8 ok)\nslurm: add feature "
            "rail_healthy\nevents: restored -> " +
                tmp_.path() + "/events.log\n");
  EXPECT_EQ(Node().features, "su1,rail_healthy");
  EXPECT_EQ(Node().features_act, "su1,rail_healthy");
  EXPECT_EQ(Node().extra,
            "{\"railcheck\":{\"failed\":[],\"fw\":[\"28.39.1002\",\"28.39.1002\","
            "\"28.39.1002\",\"28.39.1002\",\"28.39.1002\",\"28.39.1002\",\"28.39.1002\","
            "\"28.39.1002\"],\"healthy\":true,\"rails\":[\"ok\",\"ok\",\"ok\",\"ok\","
            "\"ok\",\"ok\",\"ok\",\"ok\"],\"time\":1700000300,\"verdict\":\"ok\"}}");
  EXPECT_FALSE(Node().drain);
}

TEST_F(Railcheck, RailThreeTrainedDownDrainsTheNodeInTheProlog) {
  Fixture("--fault rate-down:3");
  EXPECT_EQ(Run({"--prolog"}), kExitDrain);
  EXPECT_TRUE(Node().drain);
  EXPECT_EQ(Node().reason, "railcheck: rail3 mlx5_5 width 2X < 4X");
  EXPECT_EQ(Node().features, "su1");
  const std::string out = out_.str();
  EXPECT_NE(out.find("railcheck n003 prolog: drain (rails: 7 ok, 1 degraded)\n  drain    "
                     "port.rate: rail3 mlx5_5 rate 200 Gb/sec (2X NDR) < expected 400 Gb/sec "
                     "(4X NDR): width 2X < 4X\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("slurm: drain n003: railcheck: rail3 mlx5_5 width 2X < 4X\n"),
            std::string::npos)
      << out;
  EXPECT_NE(Node().extra.find("\"failed\":[\"rail3:port.rate\"]"), std::string::npos);
}

TEST_F(Railcheck, AnEpilogThatDrainedTheNodeSucceedsAndOneThatCouldNotFails) {
  Fixture("--fault port-down:0");
  EXPECT_EQ(Run({"--epilog"}), kExitOk);  // drained: nothing left for Slurm to do
  EXPECT_EQ(Node().reason, "railcheck: rail0 mlx5_0 phys_state 3 (Disabled) != 5 LinkUp");
  EXPECT_EQ(Run({"--epilog"}), kExitOk);  // found drained
  slurm_.nodes["n003"].drain = false;
  slurm_.reachable = false;
  EXPECT_EQ(Run({"--epilog"}), kExitDrain);  // Slurm drains it itself ("Epilog error")
}

TEST_F(Railcheck, ARepairedNodeResumesAfterThreeCleanRunsAndNotBefore) {
  Fixture("--fault rate-down:3");
  ASSERT_EQ(Run({"--periodic"}), kExitDrain);
  Fixture("");
  for (int run = 1; run <= 2; ++run) {
    EXPECT_EQ(Run({"--periodic"}), kExitOk);
    EXPECT_TRUE(Node().drain) << "run " << run;
    EXPECT_NE(out_.str().find("slurm: stays drained by railcheck until 3 consecutive clean runs "
                              "(" +
                              std::to_string(run) + " of 3 clean runs)"),
              std::string::npos)
        << out_.str();
  }
  EXPECT_EQ(Run({"--periodic"}), kExitOk);
  EXPECT_FALSE(Node().drain);
  EXPECT_EQ(Node().features, "su1,rail_healthy");
  EXPECT_NE(out_.str().find("slurm: resume n003: no drain finding in 3 consecutive runs"),
            std::string::npos);
  const std::string state = ReadFile(tmp_ / "state/n003/state.json");
  EXPECT_NE(state.find("\"drains\": 1"), std::string::npos) << state;
  EXPECT_NE(state.find("\"resumes\": 1"), std::string::npos) << state;
}

TEST_F(Railcheck, AnAdminDrainedNodeIsNeverResumed) {
  slurm_.nodes["n003"].drain = true;
  slurm_.nodes["n003"].reason = "maintenance: reseat GPU 3";
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Run({"--periodic"}), kExitOk);
  EXPECT_TRUE(Node().drain);
  EXPECT_EQ(Node().reason, "maintenance: reseat GPU 3");
  for (const NodeUpdate& u : slurm_.updates) EXPECT_FALSE(u.resume || u.drain_reason);
}

TEST_F(Railcheck, DryRunSaysWhatItWouldDoAndChangesNothing) {
  Fixture("--fault port-down:6");
  EXPECT_EQ(Run({"--dry-run"}), kExitDrain);
  EXPECT_TRUE(slurm_.updates.empty());
  EXPECT_FALSE(testing::fs::exists(tmp_ / "state/n003"));
  EXPECT_NE(out_.str().find("railcheck n003 periodic (dry run): drain (rails: 7 ok, 1 down)\n"),
            std::string::npos)
      << out_.str();
  EXPECT_NE(out_.str().find("would: drain n003: railcheck: rail6 mlx5_10 phys_state 3 (Disabled) != 5 LinkUp\n"),
            std::string::npos)
      << out_.str();
  EXPECT_FALSE(testing::fs::exists(tmp_ / "events.log"));
}

TEST_F(Railcheck, ErrorsRisingAgainstTheBaselineRestrictTheNode) {
  ASSERT_EQ(Run({"baseline"}), kExitOk);
  Fixture("--fault errors:1");
  EXPECT_EQ(Run({"--periodic"}), kExitRestrict);
  EXPECT_FALSE(Node().drain);
  EXPECT_EQ(Node().features, "su1");
  EXPECT_NE(out_.str().find("  restrict link.errors: rail1 mlx5_3 symbol_error +1500 in the "
                            "last 60 min (1500/h) > limit 120/h\n"),
            std::string::npos)
      << out_.str();
  // In a Prolog a restricted node still runs the job: exit 0.
  EXPECT_EQ(Run({"--prolog"}), kExitOk);
}

TEST_F(Railcheck, AHungSysfsFileDoesNotHangTheProlog) {
  WriteConfig("  read_timeout_ms: 300\n");
  Fixture("--fault hang:3");
  EXPECT_EQ(Run({"--prolog"}), kExitDrain);  // it returns (how soon: bench_railcheck)
  EXPECT_NE(out_.str().find("  drain    gather.timeout: rail3 mlx5_5: reading " + tmp_.path() +
                            "/sys/n003/class/infiniband/mlx5_5/ports/1/rate did not finish "
                            "within 300 ms\n"),
            std::string::npos)
      << out_.str();
  EXPECT_EQ(Node().reason, "railcheck: rail3 mlx5_5 sysfs read timed out");
  int fd = open((tmp_ / "sys/n003/class/infiniband/mlx5_5/ports/1/rate").c_str(), O_WRONLY);
  if (fd >= 0) close(fd);  // lets the stuck worker go
}

TEST_F(Railcheck, SlurmLinksSelectTheMode) {
  EXPECT_EQ(Run({}, "/usr/sbin/railcheck-epilog"), kExitOk);
  EXPECT_EQ(out_.str().substr(0, 24), "railcheck n003 epilog: w");
}

TEST_F(Railcheck, JsonReportHoldsVerdictRailsAndFindings) {
  Fixture("--fault pcie-width:2");
  EXPECT_EQ(Run({"--json", "--dry-run"}), kExitDrain);
  nlohmann::json j = nlohmann::json::parse(out_.str());
  EXPECT_EQ(j["verdict"], "drain");
  EXPECT_EQ(j["exit_code"], 1);
  ASSERT_EQ(j["rails"].size(), 8u);
  EXPECT_EQ(j["rails"][2]["status"], "degraded");
  EXPECT_EQ(j["rails"][2]["pci"], "0000:4f:00.0");
  EXPECT_EQ(j["rails"][2]["rate"], "400 Gb/sec (4X NDR)");
  EXPECT_EQ(j["gpus"]["present"], 8);
  ASSERT_FALSE(j["findings"].empty());
  EXPECT_EQ(j["findings"][0]["message"],
            "pcie.width: rail2 mlx5_4 0000:4f:00.0 at x8 < expected x16");
}

TEST_F(Railcheck, ACorruptStateFileIsAnErrorWithARecoveryPath) {
  WriteFile(tmp_ / "state/n003/state.json", "{\"format\": \"railcheck-state\"");
  EXPECT_EQ(Run({"--periodic"}), kExitError);
  EXPECT_EQ(err_.str(), "railcheck: corrupt run state: " + tmp_.path() +
                            "/state/n003/state.json:1:29: syntax error while "
                            "parsing object - unexpected end of input; expected '}'; expected "
                            "the JSON railcheck writes (recover: delete " +
                            tmp_.path() +
                            "/state/n003/state.json; railcheck starts a new record at its next "
                            "run: rates count from then, and a node it drained needs its clean "
                            "runs again)\n");
  EXPECT_TRUE(slurm_.updates.empty());
}

TEST_F(Railcheck, UnreachableSlurmFailsAPeriodicRunButNotAHealthyProlog) {
  slurm_.reachable = false;
  EXPECT_EQ(Run({"--prolog"}), kExitOk);
  EXPECT_NE(out_.str().find("error: Unable to contact slurm controller (connect failure)\n"),
            std::string::npos)
      << out_.str();
  EXPECT_EQ(Run({"--periodic"}), kExitError);
  // What Slurm did not carry out is not history.
  EXPECT_FALSE(testing::fs::exists(tmp_ / "events.log"));
}

TEST_F(Railcheck, UsageAndSetupErrorsSayWhatIsWrong) {
  EXPECT_EQ(Run({"--prolog", "--epilog"}), kExitUsage);
  EXPECT_EQ(err_.str(),
            "railcheck: give one mode at most (--prolog, --epilog, --periodic or "
            "baseline)\n");
  EXPECT_EQ(Run({"--frobnicate"}), kExitUsage);
  EXPECT_EQ(err_.str().substr(0, 43), "railcheck: unknown option '--frobnicate'\nus");
  EXPECT_EQ(Run({"--node", "n999"}), kExitError);
  EXPECT_EQ(err_.str(), "railcheck: node 'n999' is not in the rail topology " RAILGUARD_SOURCE_DIR
                        "/etc/dev-4su.yaml; expected a node of one of its scalable units (or "
                        "--node NAME)\n");
  EXPECT_EQ(Run({"--config", tmp_ / "nope.yaml"}), kExitError);
  EXPECT_EQ(err_.str(), "railcheck: cannot load the configuration:\n" + tmp_.path() +
                            "/nope.yaml: cannot open: No such file or directory\n");
  EXPECT_EQ(Run({"--help"}), kExitOk);
  EXPECT_EQ(out_.str(), RailcheckUsage());
}

TEST_F(Railcheck, BadHealthConfigIsReportedWithFileAndLine) {
  WriteConfig("  read_timeout_ms: soon\n");
  EXPECT_EQ(Run({"--periodic"}), kExitError);
  EXPECT_EQ(err_.str(), "railcheck: cannot load the configuration:\n" + tmp_.path() +
                            "/railguard.yaml:7:20: invalid read_timeout_ms 'soon'; expected an "
                            "integer from 10 to 60000\n");
}

// --- the event log (health.events_log) --------------------------------------------------------

TEST_F(Railcheck, ADegradedRailIsLoggedWithTheDrainAndTheFeatureTakenAway) {
  ASSERT_EQ(Run({"--periodic"}), kExitOk);  // healthy: the feature is given
  Fixture("--fault rate-down:3");
  ASSERT_EQ(Run({"--prolog"}), kExitDrain);
  EXPECT_NE(out_.str().find("\nevents: rail3 degraded, drained, restricted -> " + tmp_.path() +
                            "/events.log\n"),
            std::string::npos)
      << out_.str();
  const std::vector<wire::HealthEvent> ev = Events();
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].kind, wire::EventKind::kRestored);
  EXPECT_EQ(ev[0].time, 1700000000);
  EXPECT_EQ(ev[0].detail, "feature rail_healthy given back");

  EXPECT_EQ(ev[1].kind, wire::EventKind::kDegraded);
  EXPECT_EQ(ev[1].time, 1700000300);
  EXPECT_EQ(ev[1].node, "n003");
  EXPECT_EQ(ev[1].rail, 3);
  EXPECT_EQ(ev[1].nic, "mlx5_5");
  EXPECT_EQ(ev[1].checks, std::vector<std::string>{"port.rate"});
  EXPECT_EQ(ev[1].detail,
            "port.rate: rail3 mlx5_5 rate 200 Gb/sec (2X NDR) < expected 400 Gb/sec (4X NDR): "
            "width 2X < 4X");

  EXPECT_EQ(ev[2].kind, wire::EventKind::kDrained);
  EXPECT_EQ(ev[2].rail, -1);
  EXPECT_EQ(ev[2].checks, std::vector<std::string>{"port.rate"});
  EXPECT_EQ(ev[2].detail, "railcheck: rail3 mlx5_5 width 2X < 4X");

  EXPECT_EQ(ev[3].kind, wire::EventKind::kRestricted);
  EXPECT_EQ(ev[3].detail, "feature rail_healthy taken away: single-node jobs only");

  // Still broken, already drained: nothing changed, nothing is logged.
  EXPECT_EQ(Run({"--periodic"}), kExitDrain);
  EXPECT_EQ(out_.str().find("events:"), std::string::npos) << out_.str();
  EXPECT_EQ(Events().size(), 4u);
}

TEST_F(Railcheck, ARepairedRailIsLoggedAsRecoveredAndTheNodeAsResumedAfterItsCleanRuns) {
  Fixture("--fault rate-down:3");
  ASSERT_EQ(Run({"--periodic"}), kExitDrain);
  Fixture("");
  for (int run = 1; run <= 3; ++run) ASSERT_EQ(Run({"--periodic"}), kExitOk) << "run " << run;
  EXPECT_NE(out_.str().find("\nevents: resumed, restored -> "), std::string::npos) << out_.str();
  std::vector<std::string> got;
  for (const wire::HealthEvent& e : Events())
    got.push_back(std::to_string(static_cast<long long>(e.time)) + " " + e.node + " " +
                  std::to_string(e.rail) + " " + wire::EventKindName(e.kind));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "1700000000 n003 3 degraded",
                     "1700000000 n003 -1 drained",
                     "1700000300 n003 3 recovered",  // the first clean run
                     "1700000900 n003 -1 resumed",   // the third
                     "1700000900 n003 -1 restored",
                 }));
  const std::vector<wire::HealthEvent> ev = Events();
  EXPECT_EQ(ev[3].detail,
            "resumed after clean runs (was: railcheck: rail3 mlx5_5 width 2X < 4X)");
}

TEST_F(Railcheck, ALogThatCannotBeWrittenIsAWarningAndChangesNoExitCode) {
  testing::fs::create_directories(tmp_ / "events.log");  // a folder where the file should be
  Fixture("--fault rate-down:3");
  EXPECT_EQ(Run({"--prolog"}), kExitDrain);
  EXPECT_TRUE(Node().drain);
  EXPECT_NE(out_.str().find("\nwarning: event log not written: cannot open " + tmp_.path() +
                            "/events.log: Is a directory\n"),
            std::string::npos)
      << out_.str();
  EXPECT_EQ(out_.str().find("error:"), std::string::npos) << out_.str();
  // A periodic run fails on Slurm and state problems, not on the log.
  Fixture("");
  EXPECT_EQ(Run({"--periodic", "--json"}), kExitOk);
  const nlohmann::json j = nlohmann::json::parse(out_.str());
  EXPECT_EQ(j["errors"], nlohmann::json::array());
  ASSERT_EQ(j["warnings"].size(), 1u) << j.dump();
  EXPECT_EQ(j["warnings"][0],
            "event log not written: cannot open " + tmp_.path() + "/events.log: Is a directory");
  EXPECT_EQ(j["events"], nlohmann::json::array());
}

TEST_F(Railcheck, PercentNInTheLogPathIsTheNodeName) {
  WriteConfig("", tmp_ / "logs/%n/events.log");
  ASSERT_EQ(Run({"--periodic", "--json"}), kExitOk);
  const nlohmann::json j = nlohmann::json::parse(out_.str());
  EXPECT_EQ(j["events"], nlohmann::json::array({"restored"}));
  EXPECT_EQ(j["events_log"], tmp_ / "logs/n003/events.log");
  const std::vector<wire::HealthEvent> ev = Events(tmp_ / "logs/n003/events.log");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, wire::EventKind::kRestored);
}

TEST(EventsLogConfig, DefaultsToTheLogTheReportReadsAndTakesOnlyAFilePath) {
  EXPECT_EQ(HealthConfig().events_log, wire::kDefaultEventLogPath);
  const std::string head = "topology: " RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml\nhealth:\n";
  Config c;
  Diags d;
  ASSERT_TRUE(LoadConfigString(head + "  events_log: /shared/rg/%n/events.log\n", "r.yaml", &c, &d))
      << FormatDiags(d);
  EXPECT_EQ(c.health.events_log, "/shared/rg/%n/events.log");
  EXPECT_FALSE(LoadConfigString(head + "  events_log: events.log\n", "r.yaml", &c, &d));
  EXPECT_FALSE(LoadConfigString(head + "  events_log: /var/log/railguard/\n", "r.yaml", &c, &d));
  EXPECT_EQ(FormatDiags(d),
            "r.yaml:3:15: invalid events_log 'events.log'; expected an absolute path, such as "
            "/var/lib/railguard/events.log\n"
            "r.yaml:3:15: invalid events_log '/var/log/railguard/'; expected a file, not a "
            "folder, such as /var/lib/railguard/events.log\n");
}

}  // namespace
}  // namespace railguard::health
