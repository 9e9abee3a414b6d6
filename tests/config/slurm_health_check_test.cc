// SPDX-License-Identifier: GPL-2.0-or-later
// The slurm.conf texts below follow slurm.conf(5) of Slurm 26.05.3 (HealthCheckInterval,
// HealthCheckNodeState, HealthCheckTimeout, Include) and its parser (read_config.c,
// _health_node_state).
#include "config/slurm_health_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/base/base_test_util.h"

namespace railguard {
namespace {

using testing::ScratchDir;

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(SlurmHealthCheck, SlurmsDefaultsWhenNothingIsSet) {
  ScratchDir dir;
  Write(dir / "slurm.conf", "ClusterName=c\nSlurmctldHost=ctl\nNodeName=n[1-4] CPUs=8\n");
  SlurmHealthCheck hc;
  Diags d;
  ASSERT_TRUE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d)) << FormatDiags(d);
  EXPECT_EQ(hc.program, "");
  EXPECT_EQ(hc.interval, 0);
  EXPECT_EQ(hc.states, unsigned{kHcAny});
  EXPECT_EQ(hc.timeout, 60);
  EXPECT_EQ(hc.timeout_at, "");
  EXPECT_TRUE(RunsOnDrainedIdle(hc));
  EXPECT_EQ(AnswerWithin(hc), 54);
}

TEST(SlurmHealthCheck, ReadsKeysInAnyCaseWithCommentsContinuationsAndCrlf) {
  ScratchDir dir;
  Write(dir / "slurm.conf",
        "\xEF\xBB\xBF# site config\r\n"
        "healthcheckprogram=/usr/sbin/railcheck-periodic   # the railguard one\r\n"
        "HealthCheckInterval=300 \\\r\n"
        "  HEALTHCHECKNODESTATE=idle,Cycle\r\n"
        "HealthCheckTimeout=\"20\"\r\n");
  SlurmHealthCheck hc;
  Diags d;
  ASSERT_TRUE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d)) << FormatDiags(d);
  EXPECT_EQ(hc.program, "/usr/sbin/railcheck-periodic");
  EXPECT_EQ(hc.program_at, dir / "slurm.conf:2");
  EXPECT_EQ(hc.interval, 300);
  EXPECT_EQ(hc.states, unsigned{kHcIdle | kHcCycle});
  EXPECT_EQ(hc.states_at, dir / "slurm.conf:3");
  EXPECT_EQ(hc.timeout, 20);
  EXPECT_EQ(hc.timeout_at, dir / "slurm.conf:5");
  EXPECT_TRUE(RunsOnDrainedIdle(hc));
  EXPECT_EQ(AnswerWithin(hc), 18);
}

TEST(SlurmHealthCheck, FollowsIncludesRelativeAndGlobbedAndTheLastSettingWins) {
  ScratchDir dir;
  Write(dir / "slurm.conf",
        "HealthCheckTimeout=30\nInclude health.d/*.conf\ninclude \"nodes.conf\"\n");
  std::filesystem::create_directory(dir / "health.d");
  Write(dir / "health.d/10-hc.conf", "HealthCheckNodeState=NONDRAINED_IDLE\n");
  Write(dir / "nodes.conf", "NodeName=n1 CPUs=8\nHealthCheckTimeout=40\n");
  SlurmHealthCheck hc;
  Diags d;
  ASSERT_TRUE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d)) << FormatDiags(d);
  EXPECT_EQ(hc.timeout, 40);
  EXPECT_EQ(hc.timeout_at, dir / "nodes.conf:2");
  EXPECT_EQ(hc.states, unsigned{kHcNondrainedIdle});
  EXPECT_FALSE(RunsOnDrainedIdle(hc));
}

TEST(SlurmHealthCheck, NestedIncludesStartFromSlurmConfsFolderAsSlurmDoes) {
  ScratchDir dir;
  std::filesystem::create_directory(dir / "conf.d");
  Write(dir / "slurm.conf", "Include conf.d/health.conf\n");
  Write(dir / "conf.d/health.conf", "Include timeout.conf\n");  // beside slurm.conf
  Write(dir / "timeout.conf", "HealthCheckTimeout=25\n");
  SlurmHealthCheck hc;
  Diags d;
  ASSERT_TRUE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d)) << FormatDiags(d);
  EXPECT_EQ(hc.timeout, 25);
}

TEST(SlurmHealthCheck, CycleAloneMeansAnyAsInSlurm) {
  ScratchDir dir;
  Write(dir / "slurm.conf", "HealthCheckNodeState=CYCLE\n");
  SlurmHealthCheck hc;
  Diags d;
  ASSERT_TRUE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d));
  EXPECT_EQ(hc.states, unsigned{kHcAny | kHcCycle});
  EXPECT_TRUE(RunsOnDrainedIdle(hc));
}

TEST(SlurmHealthCheck, StartAndRebootOnlyNeverRunOnADrainedNode) {
  for (const char* only : {"START_ONLY", "REBOOT_ONLY"}) {
    ScratchDir dir;
    Write(dir / "slurm.conf", std::string("HealthCheckNodeState=") + only + "\n");
    SlurmHealthCheck hc;
    Diags d;
    ASSERT_TRUE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d)) << only;
    EXPECT_FALSE(RunsOnDrainedIdle(hc)) << only;
  }
}

TEST(SlurmHealthCheck, SmallTimeoutsStillLeaveASecond) {
  SlurmHealthCheck hc;
  hc.timeout = 1;
  EXPECT_EQ(AnswerWithin(hc), 1);
  hc.timeout = 3;
  EXPECT_EQ(AnswerWithin(hc), 1);
  hc.timeout = 100;
  EXPECT_EQ(AnswerWithin(hc), 90);
}

std::string ErrorOf(const std::string& text) {
  ScratchDir dir;
  Write(dir / "slurm.conf", text);
  SlurmHealthCheck hc;
  Diags d;
  EXPECT_FALSE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d)) << text;
  std::string out = FormatDiags(d);
  const std::string prefix = dir.path() + "/";
  for (size_t at; (at = out.find(prefix)) != std::string::npos;) out.erase(at, prefix.size());
  return out;
}

TEST(SlurmHealthCheck, BadValuesNameFileLineAndTheExpectedForm) {
  EXPECT_EQ(ErrorOf("ClusterName=c\nHealthCheckTimeout=abc\n"),
            "slurm.conf:2: HealthCheckTimeout=abc: expected whole seconds, 1 to 65535\n");
  EXPECT_EQ(ErrorOf("HealthCheckTimeout=0\n"),
            "slurm.conf:1: HealthCheckTimeout=0: expected whole seconds, 1 to 65535\n");
  EXPECT_EQ(ErrorOf("HealthCheckInterval=-5\n"),
            "slurm.conf:1: HealthCheckInterval=-5: expected whole seconds, 0 to 65535\n");
  EXPECT_EQ(ErrorOf("HealthCheckNodeState=ANY,DRAINED\n"),
            "slurm.conf:1: HealthCheckNodeState=ANY,DRAINED: unknown state 'DRAINED'; expected a "
            "comma list of ALLOC, ANY, CYCLE, IDLE, MIXED, NONDRAINED_IDLE, or START_ONLY or "
            "REBOOT_ONLY alone\n");
  EXPECT_EQ(ErrorOf("HealthCheckNodeState=START_ONLY,IDLE\n"),
            "slurm.conf:1: HealthCheckNodeState=START_ONLY,IDLE: START_ONLY cannot be combined "
            "with other states; expected it alone\n");
  EXPECT_EQ(ErrorOf("Include\n"), "slurm.conf:1: Include without a file; expected Include FILE\n");
  EXPECT_EQ(ErrorOf("Include slurm.conf\n"),
            "slurm.conf:1: Include slurm.conf nested 9 deep; expected at most 8 levels (an "
            "include cycle?)\n");
}

TEST(SlurmHealthCheck, AMissingFileOrIncludeIsAnError) {
  ScratchDir dir;
  SlurmHealthCheck hc;
  Diags d;
  EXPECT_FALSE(ReadSlurmHealthCheck(dir / "none.conf", &hc, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].ToString().find("cannot open"), std::string::npos) << d[0].ToString();
  d.clear();
  Write(dir / "slurm.conf", "Include gone.conf\n");
  EXPECT_FALSE(ReadSlurmHealthCheck(dir / "slurm.conf", &hc, &d));
  EXPECT_NE(FormatDiags(d).find("gone.conf"), std::string::npos) << FormatDiags(d);
}

}  // namespace
}  // namespace railguard
