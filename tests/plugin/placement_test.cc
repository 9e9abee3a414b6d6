// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the placement decision of job_submit/rail: every mode and edge, with the exact
// line the user sees.
#include "plugin/core/placement.h"

#include <gtest/gtest.h>

#include <string>

#include "plugin/core/job_options.h"
#include "topo/topology_yaml.h"

namespace railguard::plugin {
namespace {

// etc/dev-4su.yaml: four SUs of eight nodes with 8 GPUs each.
Fabric Dev4Su() { return Fabric{{8, 8, 8, 8}, 8}; }

PlacementConfig Mode(PlacementMode mode) {
  PlacementConfig c;  // defaults: wait 60 + 5/node, at most 300; feature rail_healthy
  c.default_mode = mode;
  return c;
}

JobFacts Nodes(uint32_t n) {
  JobFacts j;
  j.min_nodes = n;
  return j;
}

JobFacts WithEnv(JobFacts j, const std::string& entry) {
  j.spank_env.push_back(entry);
  return j;
}

TEST(Placement, StrictKeepsATwoNodeJobInOneSuWithItsWaitBound) {
  Decision d = DecidePlacement(Nodes(2), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_TRUE(d.set_switches);
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_EQ(d.wait4switch, 70u);
  EXPECT_TRUE(d.set_features);
  EXPECT_EQ(d.features, "rail_healthy");
  EXPECT_EQ(d.message,
            "railguard: strict placement: 2 nodes in 1 scalable unit (Slurm waits up to 70 s "
            "for it); healthy nodes only (feature rail_healthy)");
}

TEST(Placement, TheWaitBoundGrowsWithTheJob) {
  const PlacementConfig strict = Mode(PlacementMode::kStrict);
  EXPECT_EQ(DecidePlacement(Nodes(4), strict, Dev4Su()).wait4switch, 80u);
  Decision eight = DecidePlacement(Nodes(8), strict, Dev4Su());
  EXPECT_EQ(eight.req_switch, 1u);
  EXPECT_EQ(eight.wait4switch, 100u);
}

TEST(Placement, AJobLargerThanAnSuGetsTheFewestSusThatHoldIt) {
  Decision d = DecidePlacement(Nodes(12), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.req_switch, 2u);
  EXPECT_EQ(d.wait4switch, 120u);
  EXPECT_EQ(d.message,
            "railguard: strict placement: 12 nodes in 2 scalable units (Slurm waits up to "
            "120 s for them); healthy nodes only (feature rail_healthy)");
  EXPECT_EQ(DecidePlacement(Nodes(32), Mode(PlacementMode::kStrict), Dev4Su()).req_switch, 4u);
}

TEST(Placement, PreferAsksForTheSameSusWithAQuarterOfTheWait) {
  Decision d = DecidePlacement(Nodes(4), Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_EQ(d.wait4switch, 20u);
  EXPECT_EQ(d.message,
            "railguard: prefer placement: 4 nodes in 1 scalable unit if Slurm finds it within "
            "20 s, else spread; healthy nodes only (feature rail_healthy)");
  Decision big = DecidePlacement(Nodes(20), Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(big.req_switch, 3u);
  EXPECT_EQ(big.message,
            "railguard: prefer placement: 20 nodes in 3 scalable units if Slurm finds them "
            "within 40 s, else spread; healthy nodes only (feature rail_healthy)");
}

TEST(Placement, WithoutAConfiguredModeAJobGetsStrict) {
  Decision d = DecidePlacement(Nodes(4), PlacementConfig(), Dev4Su());
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_EQ(d.wait4switch, 80u);
  EXPECT_EQ(d.message,
            "railguard: strict placement: 4 nodes in 1 scalable unit (Slurm waits up to 80 s "
            "for it); healthy nodes only (feature rail_healthy)");
}

TEST(Placement, TheJobsOwnModeOverridesTheDefault) {
  JobFacts strict = WithEnv(Nodes(4), "SPANK_RAIL_PLACEMENT=strict");
  EXPECT_EQ(DecidePlacement(strict, Mode(PlacementMode::kPrefer), Dev4Su()).wait4switch, 80u);
  JobFacts prefer = WithEnv(Nodes(4), "SPANK_RAIL_PLACEMENT=prefer");
  EXPECT_EQ(DecidePlacement(prefer, PlacementConfig(), Dev4Su()).wait4switch, 20u);
}

TEST(Placement, OffLeavesTheJobAloneAndSaysSoOnlyWhenTheJobAskedForIt) {
  Decision asked = DecidePlacement(WithEnv(Nodes(4), "SPANK_RAIL_PLACEMENT=off"),
                                   Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(asked.set_switches);
  EXPECT_FALSE(asked.set_features);
  EXPECT_EQ(asked.message, "railguard: --rail-placement=off: job left as submitted");
  Decision by_default = DecidePlacement(Nodes(4), Mode(PlacementMode::kOff), Dev4Su());
  EXPECT_FALSE(by_default.set_switches);
  EXPECT_FALSE(by_default.set_features);
  EXPECT_EQ(by_default.message, "");
}

TEST(Placement, ASingleNodeJobIsLeftToPacking) {
  Decision d = DecidePlacement(Nodes(1), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.message, "");
}

TEST(Placement, AJobWhoseNodeCountCannotBeToldIsLeftAlone) {
  JobFacts job;
  job.num_tasks = 64;  // CPUs decide how many nodes: not ours to guess
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_EQ(d.message, "");
}

TEST(Placement, NodeCountComesFromGpusWhenNodesAreNotGiven) {
  const PlacementConfig strict = Mode(PlacementMode::kStrict);
  JobFacts gpus;
  gpus.tres_per_job = "gres:gpu:24";
  EXPECT_EQ(DecidePlacement(gpus, strict, Dev4Su()).wait4switch, 75u);  // 3 nodes
  JobFacts per_task;
  per_task.tres_per_task = "gres:gpu:1";
  per_task.num_tasks = 72;  // 72 GPUs: 9 nodes, 2 SUs
  Decision d = DecidePlacement(per_task, strict, Dev4Su());
  EXPECT_EQ(d.req_switch, 2u);
  EXPECT_EQ(d.wait4switch, 105u);
  JobFacts tasks;
  tasks.num_tasks = 64;
  tasks.ntasks_per_node = 8;
  EXPECT_EQ(DecidePlacement(tasks, strict, Dev4Su()).wait4switch, 100u);  // 8 nodes
  // --nodes wins over everything else.
  JobFacts both = gpus;
  both.min_nodes = 2;
  EXPECT_EQ(DecidePlacement(both, strict, Dev4Su()).wait4switch, 70u);
}

TEST(Placement, GpusSayNothingWhenNodeTypesDifferInGpuCount) {
  JobFacts gpus;
  gpus.tres_per_job = "gres:gpu:24";
  Decision d = DecidePlacement(gpus, Mode(PlacementMode::kStrict), Fabric{{8, 8}, 0});
  EXPECT_FALSE(d.set_switches);
}

TEST(Placement, AnExplicitSwitchesIsKeptAndHealthyNodesAreStillRequired) {
  JobFacts job = Nodes(4);
  job.has_switches = true;
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_TRUE(d.set_features);
  EXPECT_EQ(d.message,
            "railguard: strict placement: your --switches is kept; healthy nodes only "
            "(feature rail_healthy)");
}

TEST(Placement, AJobThatNamesItsNodesIsLeftAsSubmitted) {
  JobFacts job = Nodes(4);
  job.has_nodelist = true;
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.message,
            "railguard: the job names its nodes (--nodelist); placement left as submitted");
}

TEST(Placement, BadOptionValuesAreRefusedWithWhatIsAllowed) {
  Decision mode = DecidePlacement(WithEnv(Nodes(1), "SPANK_RAIL_PLACEMENT=sometimes"),
                                  Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(mode.refuse, Decision::kBadOption);
  EXPECT_EQ(mode.message,
            "railguard: invalid --rail-placement value 'sometimes'; expected strict, prefer or "
            "off");
  Decision sus = DecidePlacement(WithEnv(Nodes(4), "SPANK_RAIL_MAX_SUS=0"),
                                 Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(sus.refuse, Decision::kBadOption);
  EXPECT_EQ(sus.message,
            "railguard: invalid --rail-max-sus value '0'; expected a whole number from 1 to "
            "4096");
}

TEST(Placement, StrictRefusesAJobThatNeedsMoreSusThanItAllows) {
  Decision d = DecidePlacement(WithEnv(Nodes(12), "SPANK_RAIL_MAX_SUS=1"),
                               Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kTooManySus);
  EXPECT_FALSE(d.set_switches);
  EXPECT_EQ(d.message,
            "railguard: 12 nodes need 2 scalable units, more than --rail-max-sus=1 allows; ask "
            "for fewer nodes, raise --rail-max-sus or use --rail-placement=prefer");
  PlacementConfig site = Mode(PlacementMode::kStrict);
  site.max_sus_default = 1;
  EXPECT_EQ(DecidePlacement(Nodes(12), site, Dev4Su()).message,
            "railguard: 12 nodes need 2 scalable units, more than the site limit of 1 "
            "(max_sus_default) allows; ask for fewer nodes, raise --rail-max-sus or use "
            "--rail-placement=prefer");
  // Within the limit, the limit changes nothing.
  EXPECT_EQ(DecidePlacement(WithEnv(Nodes(12), "SPANK_RAIL_MAX_SUS=3"), site, Dev4Su()).req_switch,
            2u);
}

TEST(Placement, PreferLetsAJobOverItsSuLimitSpread) {
  Decision d = DecidePlacement(WithEnv(Nodes(12), "SPANK_RAIL_MAX_SUS=1"),
                               Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_FALSE(d.set_switches);
  EXPECT_TRUE(d.set_features);
  EXPECT_EQ(d.message,
            "railguard: prefer placement: 12 nodes need 2 scalable units, more than "
            "--rail-max-sus=1 allows, so they may spread; healthy nodes only (feature "
            "rail_healthy)");
}

TEST(Placement, AJobLargerThanTheFabricIsLeftToSlurm) {
  Decision d = DecidePlacement(Nodes(40), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.message,
            "railguard: 40 nodes is more than the 32 in the rail topology; placement left to "
            "Slurm");
}

TEST(Placement, SlurmsMaxSwitchWaitCapsTheBoundAndTheUserIsTold) {
  JobFacts job = Nodes(8);
  job.max_switch_wait = 60;
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.wait4switch, 60u);
  EXPECT_EQ(d.message,
            "railguard: strict placement: 8 nodes in 1 scalable unit (Slurm waits up to 60 s "
            "for it, the max_switch_wait limit); healthy nodes only (feature rail_healthy)");
}

TEST(Placement, TheHealthyFeatureIsNotRequiredWhileNoNodeHasIt) {
  JobFacts job = Nodes(2);
  job.healthy_feature_defined = false;
  job.features = "ib";
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_TRUE(d.set_switches);
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.message,
            "railguard: strict placement: 2 nodes in 1 scalable unit (Slurm waits up to 70 s "
            "for it); no node has feature rail_healthy yet, so it is not required");
}

TEST(Placement, TheUsersConstraintIsCombinedWithTheHealthyFeature) {
  JobFacts job = Nodes(2);
  job.features = "a100|h100";
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.features, "(a100|h100)&rail_healthy");
  job.features = "rail_healthy&ib";
  d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_features);  // already required
  EXPECT_EQ(d.message,
            "railguard: strict placement: 2 nodes in 1 scalable unit (Slurm waits up to 70 s "
            "for it); healthy nodes only (feature rail_healthy)");
  job.features = "[rack1|rack2]|big";
  d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.message,
            "railguard: strict placement: 2 nodes in 1 scalable unit (Slurm waits up to 70 s "
            "for it); rail_healthy not added: it cannot be combined with your --constraint");
}

TEST(Placement, TheFeatureNameComesFromTheConfig) {
  PlacementConfig c = Mode(PlacementMode::kStrict);
  c.healthy_feature = "fabric_ok";
  EXPECT_EQ(DecidePlacement(Nodes(2), c, Dev4Su()).features, "fabric_ok");
}

TEST(RequireFeature, CombinesWithinWhatSlurm2205Parses) {
  auto features = [](const char* user) { return RequireFeature(user, "ok").features; };
  auto kind = [](const char* user) { return RequireFeature(user, "ok").kind; };
  EXPECT_EQ(features(""), "ok");
  EXPECT_EQ(features("ib"), "ib&ok");
  EXPECT_EQ(features("ib&nvme"), "ib&nvme&ok");
  EXPECT_EQ(features("ib,nvme"), "ib,nvme&ok");
  EXPECT_EQ(features("ib*2&nvme"), "ib*2&nvme&ok");
  EXPECT_EQ(features("a|b"), "(a|b)&ok");
  EXPECT_EQ(features("(a|b)&c"), "(a|b)&c&ok");
  EXPECT_EQ(features("a*2|b"), "a*2|b&ok");  // counts may not go inside parentheses
  EXPECT_EQ(features("[r1|r2]"), "ok&[r1|r2]");
  EXPECT_EQ(features("c&[r1|r2]"), "ok&c&[r1|r2]");
  EXPECT_EQ(kind("[r1|r2]|c"), Constraint::kTooComplex);
  EXPECT_EQ(features("[r1|r2]|c"), "[r1|r2]|c");
  EXPECT_EQ(kind("ok"), Constraint::kAlreadyThere);
  EXPECT_EQ(kind("ib&ok"), Constraint::kAlreadyThere);
  EXPECT_EQ(kind("ok*4,ib"), Constraint::kAlreadyThere);
  EXPECT_EQ(kind("ok_not"), Constraint::kAdded);
  EXPECT_EQ(kind("ok|ib"), Constraint::kAdded);  // under an OR it is not required
}

TEST(WaitBound, IsBasePlusPerNodeCappedAndAQuarterForPrefer) {
  PlacementConfig c;
  EXPECT_EQ(WaitBound(c, PlacementMode::kStrict, 2), 70u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kStrict, 32), 220u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kStrict, 48), 300u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kStrict, 4000000000u), 300u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kPrefer, 2), 17u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kOff, 2), 0u);
}

TEST(SusNeeded, TakesTheLargestSusFirst) {
  const std::vector<uint32_t> sizes = {8, 4, 16};
  EXPECT_EQ(SusNeeded(sizes, 10), 1u);
  EXPECT_EQ(SusNeeded(sizes, 16), 1u);
  EXPECT_EQ(SusNeeded(sizes, 20), 2u);
  EXPECT_EQ(SusNeeded(sizes, 28), 3u);
  EXPECT_EQ(SusNeeded(sizes, 29), 0u);
}

TEST(ParseMaxSwitchWait, ReadsSchedulerParametersLikeSlurmctld) {
  EXPECT_EQ(ParseMaxSwitchWait(""), 300u);
  EXPECT_EQ(ParseMaxSwitchWait("bf_interval=2,max_switch_wait=600"), 600u);
  EXPECT_EQ(ParseMaxSwitchWait("MAX_SWITCH_WAIT=50,bf_interval=2"), 50u);
  EXPECT_EQ(ParseMaxSwitchWait("max_switch_wait=-5"), 300u);  // slurmctld ignores negatives
  EXPECT_EQ(ParseMaxSwitchWait("max_switch_wait=abc"), 0u);   // atoi("abc") is 0
}

TEST(GpuCount, SumsEveryGpuEntry) {
  EXPECT_EQ(GpuCount("gres:gpu:16"), 16u);
  EXPECT_EQ(GpuCount("gres:gpu:h100:2,gres:gpu:a100:2"), 4u);
  EXPECT_EQ(GpuCount("gres:gpu"), 1u);
  EXPECT_EQ(GpuCount("gres:gpu:h100"), 1u);
  EXPECT_EQ(GpuCount("gres:nic:2"), 0u);
  EXPECT_EQ(GpuCount("gres:gpu:h100:many"), 0u);
  EXPECT_EQ(GpuCount(""), 0u);
}

TEST(JobOptions, SayWhatIsAllowed) {
  PlacementMode mode;
  std::string err;
  EXPECT_TRUE(ParsePlacementOption("prefer", &mode, &err));
  EXPECT_EQ(mode, PlacementMode::kPrefer);
  EXPECT_FALSE(ParsePlacementOption("", &mode, &err));
  EXPECT_EQ(err, "invalid --rail-placement value ''; expected strict, prefer or off");
  int n = 0;
  EXPECT_TRUE(ParseMaxSusOption("0002", &n, &err));
  EXPECT_EQ(n, 2);
  for (const char* bad : {"", "0", "-1", "2x", " 2", "4097", "99999999999"}) {
    EXPECT_FALSE(ParseMaxSusOption(bad, &n, &err)) << bad;
    EXPECT_EQ(err, "invalid --rail-max-sus value '" + std::string(bad) +
                       "'; expected a whole number from 1 to 4096");
  }
}

TEST(FabricOf, ReadsSuSizesAndGpusFromTheDevLayout) {
  topo::Topology t;
  Diags diags;
  ASSERT_TRUE(topo::LoadTopologyFile(RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml", &t, &diags))
      << FormatDiags(diags);
  Fabric f = FabricOf(t);
  EXPECT_EQ(f.su_sizes, (std::vector<uint32_t>{8, 8, 8, 8}));
  EXPECT_EQ(f.gpus_per_node, 8u);
}

}  // namespace
}  // namespace railguard::plugin
