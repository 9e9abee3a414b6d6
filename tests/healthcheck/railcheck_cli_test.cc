// Tests for railcheck as a whole (healthcheck/railcheck.h): the real config, topology,
// generated sysfs fixtures and state files, with an in-memory slurmctld. What an admin and
// Slurm see: exit codes, the report, the node's reason, features and Extra.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "healthcheck/railcheck.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace {

using testing::CachedFixture;
using testing::FakeSlurm;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

// Hands railcheck a SlurmApi that forwards to the test's FakeSlurm.
class Forward : public SlurmApi {
 public:
  explicit Forward(FakeSlurm* s) : s_(s) {}
  bool GetNode(const std::string& n, SlurmNode* out, std::string* err) override {
    return s_->GetNode(n, out, err);
  }
  bool UpdateNode(const std::string& n, const NodeUpdate& u, std::string* err) override {
    return s_->UpdateNode(n, u, err);
  }

 private:
  FakeSlurm* s_;
};

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

  void WriteConfig(const std::string& extra_health) {
    WriteFile(tmp_ / "railguard.yaml", "topology: " RAILGUARD_SOURCE_DIR
                                       "/etc/dev-4su.yaml\n"
                                       "health:\n"
                                       "  sysfs_root: " +
                                           tmp_.path() +
                                           "/sys/%n\n"
                                           "  state_dir: " +
                                           tmp_.path() +
                                           "/state/%n\n"
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
            "rail_healthy\n");
  EXPECT_EQ(Node().features, "su1,rail_healthy");
  EXPECT_EQ(Node().features_act, "su1,rail_healthy");
  EXPECT_EQ(Node().extra,
            "{\"railcheck\":{\"failed\":[],\"rails\":[\"ok\",\"ok\",\"ok\",\"ok\","
            "\"ok\",\"ok\",\"ok\",\"ok\"],\"time\":1700000300,\"verdict\":\"ok\"}}");
  EXPECT_FALSE(Node().drain);
}

TEST_F(Railcheck, RailThreeTrainedDownDrainsTheNodeInTheProlog) {
  Fixture("--fault rate-down:3");
  EXPECT_EQ(Run({"--prolog"}), kExitDrain);
  EXPECT_TRUE(Node().drain);
  EXPECT_EQ(Node().reason, "railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s");
  EXPECT_EQ(Node().features, "su1");
  const std::string out = out_.str();
  EXPECT_NE(out.find("railcheck n003 prolog: drain (rails: 7 ok, 1 degraded)\n  drain    "
                     "port.rate: rail3 mlx5_5 rate 200 Gb/sec (2X NDR) < expected 400 Gb/sec "
                     "(4X NDR)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("slurm: drain n003: railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s\n"),
            std::string::npos)
      << out;
  EXPECT_NE(Node().extra.find("\"failed\":[\"rail3:port.rate\"]"), std::string::npos);
}

TEST_F(Railcheck, AnEpilogThatDrainedTheNodeSucceedsAndOneThatCouldNotFails) {
  Fixture("--fault port-down:0");
  EXPECT_EQ(Run({"--epilog"}), kExitOk);  // drained: nothing left for Slurm to do
  EXPECT_EQ(Node().reason, "railcheck: rail0 mlx5_0 port DOWN/Disabled");
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
  EXPECT_NE(out_.str().find("would: drain n003: railcheck: rail6 mlx5_10 port DOWN/Disabled\n"),
            std::string::npos)
      << out_.str();
}

TEST_F(Railcheck, ErrorsRisingAgainstTheBaselineRestrictTheNode) {
  ASSERT_EQ(Run({"baseline"}), kExitOk);
  Fixture("--fault errors:1");
  EXPECT_EQ(Run({"--periodic"}), kExitRestrict);
  EXPECT_FALSE(Node().drain);
  EXPECT_EQ(Node().features, "su1");
  EXPECT_NE(out_.str().find("  restrict link.errors: rail1 mlx5_3 symbol_error +1500 in 5 min "
                            "since the last run (1500/h) > limit 10/h\n"),
            std::string::npos)
      << out_.str();
  // In a Prolog a restricted node still runs the job: exit 0.
  EXPECT_EQ(Run({"--prolog"}), kExitOk);
}

TEST_F(Railcheck, AHungSysfsFileDoesNotHangTheProlog) {
  WriteConfig("  read_timeout_ms: 300\n");
  Fixture("--fault hang:3");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Run({"--prolog"}), kExitDrain);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
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
  EXPECT_EQ(j["rails"][2]["status"], "degraded");
  EXPECT_EQ(j["rails"][2]["pci"], "0000:4f:00.0");
  EXPECT_EQ(j["rails"][2]["rate"], "400 Gb/sec (4X NDR)");
  EXPECT_EQ(j["gpus"]["present"], 8);
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
                            "/railguard.yaml:6:20: invalid read_timeout_ms 'soon'; expected an "
                            "integer from 10 to 60000\n");
}

}  // namespace
}  // namespace railguard::health
