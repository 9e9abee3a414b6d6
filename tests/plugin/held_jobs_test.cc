// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of plugin/core/held_jobs: the hold railguard puts on a multi-node job whose partition
// has too few healthy nodes, and the keeper's steps for parked jobs (Slurm 22.05 reasons
// WAIT_HELD, WAIT_HELD_USER and FAIL_BAD_CONSTRAINTS, src/common/slurm_protocol_defs.h).
#include "plugin/core/held_jobs.h"

#include <gtest/gtest.h>

namespace railguard::plugin {
namespace plugin_held_jobs_test {

const std::string kF = "rail_healthy";

ParkedJob Held(uint32_t needs, uint32_t healthy) {
  ParkedJob j;
  j.admin_comment = HoldMark(needs, kF);
  j.held = true;
  j.features = "rail_healthy";
  j.min_nodes = needs;
  j.healthy = healthy;
  return j;
}

TEST(HeldJobs, TheMarkAndTheReasonReadBack) {
  EXPECT_EQ(HoldMark(16, kF), "railguard: held until 16 nodes are healthy (feature rail_healthy)");
  EXPECT_EQ(ReadHoldMark(HoldMark(16, kF)), 16u);
  EXPECT_EQ(WaitReason(16, 9, kF), "railguard: waits for 16 healthy nodes (feature rail_healthy), 9 now");
  // The site's own AdminComment stays, before the mark, and comes back unchanged.
  const std::string site = "ticket 4711";
  const std::string marked = WithHoldMark(site, HoldMark(4, kF));
  EXPECT_EQ(marked, "ticket 4711; railguard: held until 4 nodes are healthy (feature rail_healthy)");
  EXPECT_EQ(ReadHoldMark(marked), 4u);
  EXPECT_EQ(WithoutHoldMark(marked), site);
  EXPECT_EQ(WithoutHoldMark(HoldMark(4, kF)), "");
  EXPECT_EQ(WithoutHoldMark(site), site);
  // Look-alikes are not marks.
  EXPECT_EQ(ReadHoldMark("railguard: held until many nodes are healthy (feature x)"), 0u);
  EXPECT_EQ(ReadHoldMark("railguard: held until 99999999999 nodes are healthy (feature x)"), 0u);
  EXPECT_EQ(ReadHoldMark("railguard: held until  nodes are healthy (feature x)"), 0u);
  EXPECT_EQ(ReadHoldMark(""), 0u);
}

TEST(HeldJobs, AHeldJobWaitsWithItsCountThenIsReleased) {
  ParkedJob j = Held(8, 5);
  ParkedStep s = JudgeParkedJob(j, kF, false);
  EXPECT_EQ(s.kind, ParkedStep::kNote);
  EXPECT_EQ(s.reason, WaitReason(8, 5, kF));
  j.state_desc = s.reason;  // applied: nothing more to do until the count changes
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kLeave);
  j.healthy = 7;
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kNote);
  j.healthy = 8;
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kRelease);
  // Released by its user (scontrol release), then parked by Slurm's scheduler: still ours.
  j.held = false;
  j.bad_constraints = true;
  j.healthy = 3;
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kNote);
  j.healthy = 8;
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kRelease);
}

// A job held while no node had the feature was accepted without it (Slurm refuses a
// constraint on a feature no node has): the release gives it the constraint back.
TEST(HeldJobs, AJobHeldBeforeAnyNodeHadTheFeatureGetsItWhenReleased) {
  ParkedJob j = Held(4, 0);
  j.features = "";
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kNote);
  j.healthy = 4;
  ParkedStep s = JudgeParkedJob(j, kF, false);
  EXPECT_EQ(s.kind, ParkedStep::kRelease);
  EXPECT_EQ(s.features, "rail_healthy");
  j.features = "a100|h100";
  EXPECT_EQ(JudgeParkedJob(j, kF, false).features, "(a100|h100)&rail_healthy");
  // One that has it keeps its constraint as it is.
  j.features = "ib&rail_healthy";
  s = JudgeParkedJob(j, kF, false);
  EXPECT_EQ(s.kind, ParkedStep::kRelease);
  EXPECT_EQ(s.features, "");
}

TEST(HeldJobs, OtherHoldsAreLeftAlone) {
  ParkedJob j;
  j.held = true;  // the user's sbatch -H, or an admin's scontrol hold: no mark
  j.features = "rail_healthy";
  j.min_nodes = 8;
  j.healthy = 2;
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kLeave);
  EXPECT_EQ(JudgeParkedJob(j, kF, true).kind, ParkedStep::kLeave);
  // A marked job that is neither held nor parked (priority restored by an admin) is not ours
  // to touch either.
  ParkedJob m = Held(8, 9);
  m.held = false;
  EXPECT_EQ(JudgeParkedJob(m, kF, false).kind, ParkedStep::kLeave);
}

TEST(HeldJobs, AJobSlurmParkedForTooFewHealthyNodesIsTakenOver) {
  ParkedJob j;
  j.bad_constraints = true;
  j.features = "rail_healthy&[su1|su2]";
  j.min_nodes = 16;
  j.healthy = 12;
  j.admin_comment = "site note";
  ParkedStep s = JudgeParkedJob(j, kF, false);
  ASSERT_EQ(s.kind, ParkedStep::kMark);
  EXPECT_EQ(s.mark, "site note; " + HoldMark(16, kF));
  EXPECT_EQ(s.reason, WaitReason(16, 12, kF));
  // Parked for another reason (enough healthy nodes): not ours, outside a restore.
  j.healthy = 20;
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kLeave);
  // Right after slurmctld read slurm.conf, features were missing for a moment: release once.
  EXPECT_EQ(JudgeParkedJob(j, kF, true).kind, ParkedStep::kRelease);
  // Jobs that do not require the feature, or single-node jobs, are not ours.
  j.healthy = 2;
  j.features = "su1&not_rail_healthy";
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kLeave);
  j.features = "rail_healthy";
  j.min_nodes = 1;
  EXPECT_EQ(JudgeParkedJob(j, kF, false).kind, ParkedStep::kLeave);
}

}  // namespace plugin_held_jobs_test
}  // namespace railguard::plugin
