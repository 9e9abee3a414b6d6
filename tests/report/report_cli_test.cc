// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for `railctl report`, called as railctl calls it, from snapshot files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "tests/report/report_test_util.h"

namespace railguard::cli {
namespace report_report_cli_test {

using report::testing::kDevYaml;
using report::testing::kFaultsEvents;
using report::testing::kFaultsSnapshot;

struct CliRun {
  int rc;
  std::string out;
  std::string err;
};

CliRun Call(std::vector<std::string> args) {
  args.insert(args.begin(), "report");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = Report(static_cast<int>(argv.size()), argv.data());
  CliRun r{rc, ::testing::internal::GetCapturedStdout(), ::testing::internal::GetCapturedStderr()};
  return r;
}

// Call with $SLURM_CONF set to `slurm_conf` for the call only.
CliRun CallWithSlurmConf(const std::string& slurm_conf, std::vector<std::string> args) {
  const char* old = std::getenv("SLURM_CONF");
  const std::string keep = old ? old : "";
  setenv("SLURM_CONF", slurm_conf.c_str(), 1);
  CliRun r = Call(std::move(args));
  if (old) {
    setenv("SLURM_CONF", keep.c_str(), 1);
  } else {
    unsetenv("SLURM_CONF");
  }
  return r;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/report_cli_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }
  std::string dir_;
};

TEST_F(ReportCli, TextFromASnapshotNamesTheLeafFirstAndExitsZero) {
  CliRun r =
      Call({"--topology", kDevYaml, "--snapshot", kFaultsSnapshot, "--history", kFaultsEvents});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("railguard report: cluster raildev, 2024-05-01 10:40 UTC, from slurm\n", 0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find(" 1. [high] leaf switch su2-rail3"), std::string::npos);
  // The input problems also go to stderr, each as file:line.
  EXPECT_NE(r.err.find(kFaultsSnapshot + ":29: node n027: Extra column 22:"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(kFaultsEvents + ":8: column 1: unexpected 't'"), std::string::npos);
}

TEST_F(ReportCli, EachFormatGoesToItsOutputFile) {
  const std::vector<std::pair<std::string, std::string>> forms = {
      {"--json", "\"schema\":\"railguard-report\""},
      {"--html", "<!DOCTYPE html>"},
      {"--prometheus", "# HELP railguard_report_time_seconds"}};
  for (const auto& f : forms) {
    const std::string out = dir_ + "/out" + f.first;
    CliRun r = Call({"--topology", kDevYaml, "--snapshot", kFaultsSnapshot, "--no-history", f.first,
                     "-o", out});
    EXPECT_EQ(r.rc, 0) << f.first << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(Slurp(out).find(f.second), std::string::npos) << f.first;
  }
  CliRun r = Call({"--topology", kDevYaml, "--snapshot", kFaultsSnapshot, "--json"});
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["history"]["read"]);
}

TEST_F(ReportCli, ConfigGivesTheTopologyAndTheFeature) {
  const std::string conf = dir_ + "/railguard.yaml";
  std::ofstream(conf) << "topology: " << kDevYaml << "\nplacement:\n  healthy_feature: fabric_ok\n";
  CliRun r = Call({"--config", conf, "--snapshot", kFaultsSnapshot, "--json", "--no-history"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["healthy_feature"], "fabric_ok");
  EXPECT_FALSE(j["summary"]["healthy_feature_in_use"]);
}

TEST_F(ReportCli, TheConfigsEventLogIsTheDefaultHistoryAndHistoryOverridesIt) {
  const std::string log = dir_ + "/rg/events.log";
  const std::string conf = dir_ + "/railguard.yaml";
  std::ofstream(conf) << "topology: " << kDevYaml << "\nhealth:\n  events_log: " << log << "\n";
  ASSERT_EQ(std::system(("mkdir -p " + dir_ + "/rg && cp " + kFaultsEvents + " " + log).c_str()),
            0);
  CliRun r = Call({"--config", conf, "--snapshot", kFaultsSnapshot, "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["history"]["files"], nlohmann::json::array({log}));
  EXPECT_TRUE(j["history"]["read"]);
  // --history wins over the config.
  const std::string other = dir_ + "/other.log";
  std::ofstream(other) << "";
  r = Call({"--config", conf, "--snapshot", kFaultsSnapshot, "--json", "--history", other});
  ASSERT_EQ(r.rc, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["history"]["files"], nlohmann::json::array({other}));
}

// Without --topology and --config, the railguard.yaml railcheck would find (config/locate.h):
// here beside $SLURM_CONF, with its topology relative to it and its event log.
TEST_F(ReportCli, WithNeitherTopologyNorConfigItReadsTheRailguardYamlRailcheckFinds) {
  const std::string log = dir_ + "/events.log";
  ASSERT_EQ(std::system(("cp " + std::string(kDevYaml) + " " + dir_ + "/rails.yaml && cp " +
                         kFaultsEvents + " " + log)
                            .c_str()),
            0);
  std::ofstream(dir_ + "/railguard.yaml")
      << "topology: rails.yaml\nplacement:\n  healthy_feature: fabric_ok\nhealth:\n  events_log: "
      << log << "\n";
  CliRun r = CallWithSlurmConf(dir_ + "/slurm.conf", {"--snapshot", kFaultsSnapshot, "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["healthy_feature"], "fabric_ok");
  EXPECT_EQ(j["history"]["files"], nlohmann::json::array({log}));
}

TEST_F(ReportCli, SavedSnapshotsGiveTheSameReport) {
  const std::string saved = dir_ + "/again.json";
  CliRun a = Call({"--topology", kDevYaml, "--snapshot", kFaultsSnapshot, "--json", "--no-history",
                   "--save-snapshot", saved});
  ASSERT_EQ(a.rc, 0) << a.err;
  CliRun b = Call({"--topology", kDevYaml, "--snapshot", saved, "--json", "--no-history"});
  ASSERT_EQ(b.rc, 0) << b.err;
  nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  // Only the file names in problem texts differ.
  ja.erase("problems");
  jb.erase("problems");
  EXPECT_EQ(ja, jb);
}

TEST_F(ReportCli, HistoryPathsWithPercentNAreReadPerNode) {
  const std::string per_node = dir_ + "/n003.log";
  {
    std::ofstream(per_node) << "{\"v\":1,\"time\":1714556400,\"node\":\"n003\",\"event\":\"flap\","
                               "\"rail\":5}\n";
  }
  CliRun r = Call({"--topology", kDevYaml, "--snapshot", kFaultsSnapshot, "--json", "--history",
                   dir_ + "/%n.log"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["history"]["files"], nlohmann::json::array({per_node}));
  ASSERT_GE(j["nodes"].size(), 3u);
  ASSERT_GE(j["nodes"][2]["history"]["rails"].size(), 1u);
  EXPECT_EQ(j["nodes"][2]["history"]["rails"][0]["flaps"]["24h"], 1);
}

TEST_F(ReportCli, UsageErrorsExitTwo) {
  EXPECT_EQ(Call({"--topology", kDevYaml, "--json", "--html"}).rc, 2);
  EXPECT_EQ(Call({"--topology", kDevYaml, "--bogus"}).rc, 2);
  EXPECT_EQ(Call({"--topology", kDevYaml, "extra"}).rc, 2);
  EXPECT_EQ(Call({"--topology", kDevYaml, "--stale-after", "soon"}).rc, 2);
  EXPECT_EQ(Call({"--topology", kDevYaml, "--history", "x", "--no-history"}).rc, 2);
  CliRun help = Call({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out.rfind("usage: railctl report", 0), 0u);
}

TEST_F(ReportCli, BadInputExitsOneNamingFileAndLine) {
  const std::string bad = dir_ + "/bad.json";
  std::ofstream(bad) << "{\"railguard_snapshot\":1,\"time\":1,\n\"nodes\":[{\"name\":\"n1\"}]}\n";
  CliRun r = Call({"--topology", kDevYaml, "--snapshot", bad});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, bad +
                       ":2:10: node 'n1': missing key \"state\"\nrailctl report: cannot use "
                       "the snapshot " +
                       bad + "\n");
  CliRun t = Call({"--topology", dir_ + "/none.yaml", "--snapshot", kFaultsSnapshot});
  EXPECT_EQ(t.rc, 1);
  EXPECT_NE(t.err.find("cannot use the topology"), std::string::npos);
}

TEST_F(ReportCli, LiveReadingWithoutSlurmConfSaysWhatToDo) {
  CliRun r = CallWithSlurmConf(dir_ + "/missing-slurm.conf", {"--topology", kDevYaml});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "railctl report: cannot read slurm.conf at " + dir_ +
                       "/missing-slurm.conf ($SLURM_CONF); or report from a saved snapshot "
                       "with --snapshot FILE\n");
}

}  // namespace report_report_cli_test
}  // namespace railguard::cli
