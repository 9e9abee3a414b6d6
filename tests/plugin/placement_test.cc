// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the placement decision of job_submit/rail: every mode and edge, with the exact
// line the user sees.
#include "plugin/core/placement.h"

#include <gtest/gtest.h>

#include <string>

#include "plugin/core/job_options.h"
#include "topo/topology_yaml.h"

namespace railguard::plugin {
namespace plugin_placement_test {

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

// Slurm's max_switch_wait as etc/slurm.conf.railguard sets it (a year: strict never lapses).
constexpr uint32_t kYear = 31536000;

JobFacts Strictly(JobFacts j) {
  j.max_switch_wait = kYear;
  return j;
}

const char kHealthy[] = "healthy nodes only (feature rail_healthy)";

TEST(Placement, StrictHoldsAMultiNodeJobForItsSuHoweverLongItQueues) {
  Decision d = DecidePlacement(Strictly(Nodes(2)), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_TRUE(d.set_switches);
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_EQ(d.wait4switch, kYear);  // Slurm's cap: the wait never lapses
  EXPECT_TRUE(d.set_features);
  EXPECT_EQ(d.features, "rail_healthy");
  EXPECT_EQ(d.message,
            std::string("railguard: strict placement: 2 nodes in 1 scalable unit; Slurm holds the "
                        "job for it however long it queues; ") +
                kHealthy);
  // The wait no longer depends on the job's size: a small job's bound cannot lapse first.
  EXPECT_EQ(DecidePlacement(Strictly(Nodes(8)), PlacementConfig(), Dev4Su()).wait4switch, kYear);
}

TEST(Placement, StrictSaysPlainlyWhenSlurmsMaxSwitchWaitWouldLetItLapse) {
  JobFacts job = Nodes(8);
  job.max_switch_wait = 300;  // Slurm's default
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.wait4switch, 300u);
  EXPECT_EQ(d.message,
            std::string("railguard: strict placement: 8 nodes in 1 scalable unit; Slurm holds the "
                        "job for it only 300 s (SchedulerParameters max_switch_wait) from its "
                        "first evaluation, then places it anywhere; ") +
                kHealthy);
}

TEST(Placement, AJobLargerThanAnSuGetsTheFewestSusThatHoldIt) {
  Decision d = DecidePlacement(Strictly(Nodes(12)), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.req_switch, 2u);
  EXPECT_EQ(d.wait4switch, kYear);
  EXPECT_EQ(DecidePlacement(Nodes(32), Mode(PlacementMode::kStrict), Dev4Su()).req_switch, 4u);
}

TEST(Placement, PreferIsBoundedAndSaysItsClockStartsAtTheFirstEvaluation) {
  Decision d = DecidePlacement(Strictly(Nodes(4)), Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_EQ(d.wait4switch, 80u);  // 60 + 5 x 4
  EXPECT_EQ(d.message,
            std::string("railguard: prefer placement: 4 nodes in 1 scalable unit if Slurm finds it "
                        "within 80 s of its first evaluation of the job (a requeued job or array "
                        "task keeps that clock), else spread; ") +
                kHealthy);
  JobFacts capped = Nodes(20);
  capped.max_switch_wait = 60;
  Decision big = DecidePlacement(capped, Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(big.req_switch, 3u);
  EXPECT_EQ(big.wait4switch, 60u);
  EXPECT_NE(big.message.find("within 60 s, the max_switch_wait limit of its first"),
            std::string::npos);
}

TEST(Placement, TheJobsOwnModeOverridesTheDefault) {
  JobFacts strict = Strictly(WithEnv(Nodes(4), "SPANK_RAIL_PLACEMENT=strict"));
  EXPECT_EQ(DecidePlacement(strict, Mode(PlacementMode::kPrefer), Dev4Su()).wait4switch, kYear);
  JobFacts prefer = Strictly(WithEnv(Nodes(4), "SPANK_RAIL_PLACEMENT=prefer"));
  EXPECT_EQ(DecidePlacement(prefer, PlacementConfig(), Dev4Su()).wait4switch, 80u);
}

TEST(Placement, OffDropsTheScalableUnitBoundButNeverTheHealthRequirement) {
  Decision asked = DecidePlacement(WithEnv(Nodes(4), "SPANK_RAIL_PLACEMENT=off"),
                                   Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(asked.set_switches);
  EXPECT_TRUE(asked.set_features);
  EXPECT_EQ(asked.features, "rail_healthy");
  EXPECT_EQ(asked.message,
            std::string("railguard: --rail-placement=off: no scalable-unit bound; ") + kHealthy);
  Decision by_default = DecidePlacement(Nodes(4), Mode(PlacementMode::kOff), Dev4Su());
  EXPECT_FALSE(by_default.set_switches);
  EXPECT_TRUE(by_default.set_features);
  EXPECT_EQ(by_default.message, std::string("railguard: placement off: ") + kHealthy);
}

TEST(Placement, ASingleNodeJobIsLeftToPacking) {
  Decision d = DecidePlacement(Nodes(1), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.message, "");
}

TEST(Placement, AJobInAPartitionWithoutRailNodesIsNotOurs) {
  Decision d = DecidePlacement(Nodes(4), Mode(PlacementMode::kStrict), Fabric{{0, 0}, 8});
  EXPECT_FALSE(d.set_switches);
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.message, "");
}

TEST(Placement, TheJobIsSizedByItsMaximumNodeCount) {
  JobFacts job = Strictly(Nodes(4));
  job.max_nodes = 12;  // -N4-12: Slurm gives it up to 12
  EXPECT_EQ(DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su()).req_switch, 2u);
}

TEST(Placement, NtasksAloneIsSizedByThePartitionsCpusPerNode) {
  JobFacts job = Strictly(JobFacts());
  job.num_tasks = 64;
  EXPECT_FALSE(DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su()).set_switches)
      << "without the partition's CPUs the count cannot be told";
  job.cpus_per_node = 224;  // a DGX H100: 2 x 56 cores x 2 threads
  job.cpus_per_task = 28;   // 64 x 28 = 1792 CPUs: 8 nodes
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_TRUE(d.set_switches);
  EXPECT_NE(d.message.find("8 nodes in 1 scalable unit"), std::string::npos);
  job.cpus_per_task = 32;  // 2048 CPUs: 10 nodes, 2 SUs
  EXPECT_EQ(DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su()).req_switch, 2u);
}

TEST(Placement, NodeCountComesFromGpusWhenNodesAreNotGiven) {
  const PlacementConfig strict = Mode(PlacementMode::kStrict);
  JobFacts gpus;
  gpus.tres_per_job = "gres:gpu:24";
  EXPECT_NE(DecidePlacement(gpus, strict, Dev4Su()).message.find("3 nodes"), std::string::npos);
  JobFacts per_task;
  per_task.tres_per_task = "gres:gpu:1";
  per_task.num_tasks = 72;  // 72 GPUs: 9 nodes, 2 SUs
  EXPECT_EQ(DecidePlacement(per_task, strict, Dev4Su()).req_switch, 2u);
  JobFacts tasks;
  tasks.num_tasks = 64;
  tasks.ntasks_per_node = 8;
  EXPECT_NE(DecidePlacement(tasks, strict, Dev4Su()).message.find("8 nodes"), std::string::npos);
  // --nodes wins over everything else.
  JobFacts both = gpus;
  both.min_nodes = 2;
  EXPECT_NE(DecidePlacement(both, strict, Dev4Su()).message.find("2 nodes"), std::string::npos);
}

TEST(Placement, GpusSayNothingWhenNodeTypesDifferInGpuCount) {
  JobFacts gpus;
  gpus.tres_per_job = "gres:gpu:24";
  Decision d = DecidePlacement(gpus, Mode(PlacementMode::kStrict), Fabric{{8, 8}, 0});
  EXPECT_FALSE(d.set_switches);
}

TEST(Placement, StrictReplacesAUsersSwitchesAndPreferKeepsIt) {
  JobFacts job = Strictly(Nodes(4));
  job.has_switches = true;
  job.user_switches = 4;  // "--switches=4@0": spread anywhere at once
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_TRUE(d.set_switches);
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_EQ(d.wait4switch, kYear);
  EXPECT_NE(d.message.find("(your --switches=4 is replaced)"), std::string::npos);
  Decision p = DecidePlacement(job, Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_FALSE(p.set_switches);
  EXPECT_TRUE(p.set_features);
  EXPECT_EQ(p.message,
            std::string("railguard: prefer placement: your --switches is kept; ") + kHealthy);
}

TEST(Placement, ANodelistSkipsTheBoundOnlyWhenItNamesEveryNode) {
  JobFacts job = Strictly(Nodes(4));
  job.nodelist_count = 4;
  Decision all = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(all.set_switches);
  EXPECT_TRUE(all.set_features);  // named nodes must still be healthy
  EXPECT_EQ(all.message,
            std::string("railguard: strict placement: the job names all its nodes (--nodelist), "
                        "so no scalable-unit bound; ") +
                kHealthy);
  job.nodelist_count = 1;  // "-w n001 -N4": Slurm picks three more
  Decision one = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_TRUE(one.set_switches);
  EXPECT_EQ(one.req_switch, 1u);
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

TEST(Placement, RailMaxSusCanLowerTheSiteLimitButNotRaiseIt) {
  PlacementConfig site = Mode(PlacementMode::kPrefer);
  site.max_sus_default = 2;
  Decision raise = DecidePlacement(WithEnv(Nodes(20), "SPANK_RAIL_MAX_SUS=3"), site, Dev4Su());
  EXPECT_EQ(raise.refuse, Decision::kBadOption);
  EXPECT_EQ(raise.message,
            "railguard: --rail-max-sus=3 is above the site limit of 2 scalable units "
            "(max_sus_default); it can lower that limit, not raise it");
  Decision lower = DecidePlacement(WithEnv(Nodes(12), "SPANK_RAIL_MAX_SUS=1"), site, Dev4Su());
  EXPECT_EQ(lower.refuse, Decision::kAccept);
  EXPECT_NE(lower.message.find("more than --rail-max-sus=1 allows"), std::string::npos);
}

TEST(Placement, StrictRefusesAJobThatNeedsMoreSusThanItAllows) {
  Decision d = DecidePlacement(WithEnv(Nodes(12), "SPANK_RAIL_MAX_SUS=1"),
                               Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kTooManySus);
  EXPECT_FALSE(d.set_switches);
  EXPECT_EQ(d.message,
            "railguard: 12 nodes need 2 scalable units of its partition, more than "
            "--rail-max-sus=1 allows; ask for fewer nodes or use --rail-placement=prefer");
  PlacementConfig site = Mode(PlacementMode::kStrict);
  site.max_sus_default = 1;
  JobFacts job = Nodes(12);
  job.partition = "gpu";
  EXPECT_EQ(DecidePlacement(job, site, Dev4Su()).message,
            "railguard: 12 nodes need 2 scalable units of partition gpu, more than the site "
            "limit of 1 (max_sus_default) allows; ask for fewer nodes or use "
            "--rail-placement=prefer");
}

TEST(Placement, PreferLetsAJobOverItsSuLimitSpread) {
  Decision d = DecidePlacement(WithEnv(Nodes(12), "SPANK_RAIL_MAX_SUS=1"),
                               Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_FALSE(d.set_switches);
  EXPECT_TRUE(d.set_features);
  EXPECT_EQ(d.message,
            std::string("railguard: prefer placement: 12 nodes need 2 scalable units, more than "
                        "--rail-max-sus=1 allows, so they may spread; ") +
                kHealthy);
}

TEST(Placement, TheSuCountIsThePartitionsView) {
  // A partition holding 4 nodes of each SU: 8 nodes need 2 of its SUs, not 1.
  Decision d = DecidePlacement(Strictly(Nodes(8)), Mode(PlacementMode::kStrict),
                               Fabric{{4, 4, 4, 4}, 8});
  EXPECT_EQ(d.req_switch, 2u);
}

TEST(Placement, AJobLargerThanItsPartitionIsLeftToSlurmButStillNeedsHealthyNodes) {
  Decision d = DecidePlacement(Nodes(40), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_TRUE(d.set_features);
  EXPECT_EQ(d.message,
            std::string("railguard: 40 nodes is more than the 32 rail-topology nodes of its "
                        "partition; placement left to Slurm; ") +
                kHealthy);
}

TEST(Placement, TooFewHealthyNodesInThePartitionHoldTheJobAndSaySo) {
  JobFacts job = Strictly(Nodes(8));
  job.partition = "gpu";
  job.healthy_nodes = 5;
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);  // waits, never refused
  EXPECT_TRUE(d.hold);
  EXPECT_EQ(d.hold_nodes, 8u);
  // The rest of the decision is made, so that the released job is confined and healthy.
  EXPECT_TRUE(d.set_switches);
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_TRUE(d.set_features);
  EXPECT_EQ(d.message,
            "railguard: held: only 5 nodes of partition gpu are healthy (feature rail_healthy) "
            "now and this job needs 8 nodes; it waits, and railguard releases it when 8 are "
            "healthy (squeue shows the count); then strict placement: 8 nodes in 1 scalable "
            "unit; Slurm holds the job for it however long it queues; healthy nodes only "
            "(feature rail_healthy)");
  job.healthy_nodes = 8;
  d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_FALSE(d.hold);
}

// Day one (or every node lost the feature): no node has it, and Slurm would refuse a
// --constraint naming it ("Invalid feature specification"). The job is held with its own
// constraint; the keeper adds the feature when it releases it.
TEST(Placement, WhenNoNodeHasTheFeatureYetTheJobIsHeldWithoutItInItsConstraint) {
  JobFacts job = Strictly(Nodes(4));
  job.features = "ib";
  job.healthy_nodes = 0;
  job.feature_exists = false;
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_TRUE(d.hold);
  EXPECT_EQ(d.hold_nodes, 4u);
  EXPECT_TRUE(d.defer_feature);
  EXPECT_FALSE(d.set_features);  // the job keeps "ib", which Slurm accepts
  EXPECT_TRUE(d.set_switches);   // still confined once released
  EXPECT_EQ(d.message,
            "railguard: held: only 0 nodes of its partition are healthy (feature rail_healthy) "
            "now and this job needs 4 nodes; it waits, and railguard releases it when 4 are "
            "healthy (squeue shows the count) and adds the feature to its constraint; then "
            "strict placement: 4 nodes in 1 scalable unit; Slurm holds the job for it however "
            "long it queues; healthy nodes only (feature rail_healthy)");
  // A single-node job is not held and gets no feature, as on any day.
  job = Strictly(Nodes(1));
  job.healthy_nodes = 0;
  job.feature_exists = false;
  d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.hold);
  EXPECT_FALSE(d.defer_feature);
  EXPECT_FALSE(d.set_features);
  // The user names the feature: Slurm would refuse it with its own words; railguard says why.
  job = Strictly(Nodes(4));
  job.features = "rail_healthy";
  job.healthy_nodes = 0;
  job.feature_exists = false;
  d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kBadConstraint);
  EXPECT_NE(d.message.find("no node has feature rail_healthy yet"), std::string::npos);
}

TEST(Placement, AnUpdateThatNeedsMoreHealthyNodesThanThereAreIsRefused) {
  JobFacts job = Strictly(Nodes(8));
  job.partition = "gpu";
  job.healthy_nodes = 5;
  job.may_hold = false;
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kTooFewHealthy);
  EXPECT_FALSE(d.hold);
  EXPECT_EQ(d.message,
            "railguard: only 5 nodes of partition gpu are healthy (feature rail_healthy) now, "
            "and the job would need 8 nodes; railcheck keeps degraded nodes out of multi-node "
            "jobs");
}

TEST(Placement, TheUsersConstraintIsCombinedWithTheHealthyFeature) {
  JobFacts job = Strictly(Nodes(2));
  job.features = "a100|h100";
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.features, "(a100|h100)&rail_healthy");
  job.features = "rail_healthy&ib";
  d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_features);  // already required
  job.features = "[rack1|rack2]|big";
  d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kBadConstraint);
  EXPECT_EQ(d.message,
            "railguard: '[rack1|rack2]|big' has a '|' outside its brackets, which Slurm cannot "
            "combine with rail_healthy; write the alternatives inside the brackets, e.g. "
            "'[a|b|c]'");
  job.features = "ib*2&nvme";
  d = DecidePlacement(job, Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kBadConstraint);
  EXPECT_NE(d.message.find("submit without '*N' counts"), std::string::npos);
}

TEST(Placement, TheFeatureNameComesFromTheConfigAndEmptyTurnsHealthOff) {
  PlacementConfig c = Mode(PlacementMode::kStrict);
  c.healthy_feature = "fabric_ok";
  EXPECT_EQ(DecidePlacement(Nodes(2), c, Dev4Su()).features, "fabric_ok");
  c.healthy_feature = "";
  Decision d = DecidePlacement(Nodes(2), c, Dev4Su());
  EXPECT_FALSE(d.set_features);
  EXPECT_TRUE(d.set_switches);
}

// topology/rail (24.11 on) keeps multi-node jobs off nodes without the feature and a job that
// fits one domain in one by its own evaluation: the job gets neither the --constraint nor the
// --switches whose handling costs Slurm memory per waiting job and time per backfill test.
JobFacts Placed(JobFacts j) {
  j.topology_places = true;
  return j;
}

const char kPlacedHealthy[] =
    "healthy nodes only (topology/rail leaves nodes without rail_healthy out)";

TEST(Placement, WithTopologyRailAJobThatFitsOneSuGetsNoConstraintAndNoSwitches) {
  Decision d = DecidePlacement(Placed(Strictly(Nodes(8))), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_FALSE(d.set_switches);
  EXPECT_FALSE(d.set_features);
  EXPECT_EQ(d.nodes, 8u);
  EXPECT_EQ(d.message,
            std::string("railguard: strict placement: 8 nodes in 1 scalable unit: topology/rail "
                        "keeps a job that fits one in one, however long it queues; ") +
                kPlacedHealthy);
  // Prefer is strict there: topology/rail does not spread a job that fits one domain.
  d = DecidePlacement(Placed(Nodes(4)), Mode(PlacementMode::kPrefer), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_EQ(d.message,
            std::string("railguard: prefer placement: 4 nodes in 1 scalable unit: topology/rail "
                        "keeps a job that fits one in one, however long it queues (prefer: as "
                        "strict there); ") +
                kPlacedHealthy);
  // Without it (Slurm's topology plugins, 22.05, --contiguous) the job asks Slurm for both.
  d = DecidePlacement(Strictly(Nodes(8)), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_TRUE(d.set_switches);
  EXPECT_TRUE(d.set_features);
}

TEST(Placement, WithTopologyRailALargerJobKeepsItsSwitchBoundButNoConstraint) {
  Decision d = DecidePlacement(Placed(Strictly(Nodes(12))), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_EQ(d.refuse, Decision::kAccept);
  EXPECT_TRUE(d.set_switches);  // tree's evaluation keeps it to that many leaves
  EXPECT_EQ(d.req_switch, 2u);
  EXPECT_FALSE(d.set_features);
  EXPECT_NE(d.message.find(kPlacedHealthy), std::string::npos);
}

TEST(Placement, WithTopologyRailTheHealthRulesAreTheSame) {
  // A constraint that could not keep degraded nodes out is refused as with any plugin.
  JobFacts job = Placed(Strictly(Nodes(2)));
  job.features = "[rack1|rack2]|big";
  EXPECT_EQ(DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su()).refuse,
            Decision::kBadConstraint);
  // Too few healthy nodes: held, released by the keeper, still without a constraint.
  job = Placed(Strictly(Nodes(8)));
  job.healthy_nodes = 5;
  Decision d = DecidePlacement(job, Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_TRUE(d.hold);
  EXPECT_EQ(d.hold_nodes, 8u);
  EXPECT_FALSE(d.set_features);
  EXPECT_FALSE(d.set_switches);
  // A single-node job stays Slurm's business.
  d = DecidePlacement(Placed(Nodes(1)), Mode(PlacementMode::kStrict), Dev4Su());
  EXPECT_FALSE(d.set_switches);
  EXPECT_TRUE(d.message.empty());
}

TEST(RequireFeature, CombinesWithinWhatSlurm2205Parses) {
  auto features = [](const char* user) { return RequireFeature(user, "ok").features; };
  auto kind = [](const char* user) { return RequireFeature(user, "ok").kind; };
  EXPECT_EQ(features(""), "ok");
  EXPECT_EQ(features("ib"), "ib&ok");
  EXPECT_EQ(features("ib&nvme"), "ib&nvme&ok");
  EXPECT_EQ(features("ib,nvme"), "ib,nvme&ok");
  EXPECT_EQ(features("a|b"), "(a|b)&ok");
  EXPECT_EQ(features("(a|b)&c"), "(a|b)&c&ok");
  EXPECT_EQ(features("[r1|r2]"), "ok&[r1|r2]");
  EXPECT_EQ(features("c&[r1|r2]"), "ok&c&[r1|r2]");
  // Counts: Slurm does not apply the other AND terms to a counted request.
  EXPECT_EQ(kind("ib*2&nvme"), Constraint::kTooComplex);
  EXPECT_EQ(kind("a*2|b"), Constraint::kTooComplex);
  EXPECT_EQ(kind("[a*2&b*2]"), Constraint::kTooComplex);
  EXPECT_EQ(kind("ok*4,ib"), Constraint::kTooComplex);
  EXPECT_EQ(kind("[r1|r2]|c"), Constraint::kTooComplex);
  EXPECT_EQ(features("[r1|r2]|c"), "[r1|r2]|c");
  EXPECT_EQ(kind("ok"), Constraint::kAlreadyThere);
  EXPECT_EQ(kind("ib&ok"), Constraint::kAlreadyThere);
  EXPECT_EQ(kind("ok_not"), Constraint::kAdded);
  EXPECT_EQ(kind("ok|ib"), Constraint::kAdded);  // under an OR it is not required
}

TEST(WaitBound, IsBasePlusPerNodeCappedForPreferAndUnboundedForStrict) {
  PlacementConfig c;
  EXPECT_EQ(WaitBound(c, PlacementMode::kPrefer, 2), 70u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kPrefer, 32), 220u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kPrefer, 64), 300u);
  EXPECT_EQ(WaitBound(c, PlacementMode::kStrict, 2), kStrictWait);
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

TEST(SwitchWaitMessage, AnErrorWithSlurmsTopologyAWarningWithTopologyRail) {
  bool error = true;
  EXPECT_EQ(SwitchWaitMessage(PlacementMode::kStrict, kNeverExpiresWait, false, &error), "");
  EXPECT_FALSE(error);
  EXPECT_EQ(SwitchWaitMessage(PlacementMode::kPrefer, 300, false, &error), "");
  EXPECT_EQ(SwitchWaitMessage(PlacementMode::kStrict, 300, false, &error),
            "strict placement needs SchedulerParameters=max_switch_wait=31536000 (a year) or "
            "more in slurm.conf; with 300 s, a job that has waited that long for its scalable "
            "units is placed anywhere");
  EXPECT_TRUE(error);
  // topology/rail keeps a job that fits one domain in one whatever it waited (topo_eval.c):
  // the lapse concerns larger jobs only, and it is not an error.
  const std::string rail = SwitchWaitMessage(PlacementMode::kStrict, 3600, true, &error);
  EXPECT_FALSE(error);
  EXPECT_NE(rail.find("with max_switch_wait=3600 s a multi-node job larger than one domain"),
            std::string::npos)
      << rail;
  EXPECT_EQ(rail.find("placed anywhere"), std::string::npos) << rail;
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

}  // namespace plugin_placement_test
}  // namespace railguard::plugin
