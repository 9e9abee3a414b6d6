// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for bench/placement_report: jobcomp/filetxt records as Slurm 22.05 writes them, the
// numbers per policy on etc/dev-4su.yaml, and the verdict line.
#include "bench/placement_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "topo/topology_yaml.h"
#include "wire/extra_json.h"

namespace railguard::bench {
namespace bench_placement_report_test {

// A record in the exact layout of jobcomp/filetxt (JOB_FORMAT of Slurm 22.05).
std::string Record(int id, const std::string& name, const std::string& state,
                   const std::string& submit, const std::string& start, const std::string& end,
                   const std::string& nodes) {
  return "JobId=" + std::to_string(id) + " UserId=root(0) GroupId=root(0) Name=" + name +
         " JobState=" + state + " Partition=batch TimeLimit=2 StartTime=" + start +
         " EndTime=" + end + " NodeList=" + nodes +
         " NodeCnt=2 ProcCnt=2 WorkDir=/tmp ReservationName= Tres=cpu=2,node=2,billing=2 "
         "Account= QOS= WcKey= Cluster=unknown SubmitTime=" +
         submit + " EligibleTime=" + submit + " DerivedExitCode=0:0 ExitCode=0:0 \n";
}

std::vector<JobRecord> Records(const std::string& text) {
  std::vector<JobRecord> r;
  std::string err;
  EXPECT_TRUE(ParseJobComp(text, "comp.txt", &r, &err)) << err;
  return r;
}

StreamJob Job(int seq, uint32_t nodes) {
  StreamJob j;
  j.seq = seq;
  j.nodes = nodes;
  j.gpus_per_node = 8;
  j.gpus = nodes * 8;
  j.duration = 10;
  j.time_limit_min = 2;
  return j;
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    Diags diags;
    ASSERT_TRUE(topo::LoadTopologyFile(std::string(RAILGUARD_SOURCE_DIR) + "/etc/dev-4su.yaml",
                                       &topo_, &diags));
  }
  topo::Topology topo_;
};

TEST(JobComp, ReadsTheFieldsOfSlurmsRecord) {
  std::vector<JobRecord> r =
      Records(Record(7, "rgb-1", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:00:05",
                     "2026-01-01T10:01:05", "n[001-002]") +
              "\n" +
              Record(8, "rgb-2", "CANCELLED", "2026-01-01T10:00:00", "Unknown",
                     "2026-01-01T10:00:09", "(null)"));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].line, 1);
  EXPECT_EQ(r[0].job_id, 7u);
  EXPECT_EQ(r[0].name, "rgb-1");
  EXPECT_EQ(r[0].state, "COMPLETED");
  EXPECT_EQ(r[0].start - r[0].submit, 5);
  EXPECT_EQ(r[0].end - r[0].start, 60);
  EXPECT_EQ(r[0].node_list, "n[001-002]");
  EXPECT_EQ(r[1].line, 3);
  EXPECT_EQ(r[1].start, -1);
}

TEST(JobComp, ALineWithoutAFieldOrWithABadTimeIsAnError) {
  std::vector<JobRecord> r;
  std::string err;
  EXPECT_FALSE(ParseJobComp("JobId=1 Name=x\n", "comp.txt", &r, &err));
  EXPECT_EQ(err,
            "comp.txt:1: no JobState=; expected a jobcomp/filetxt record (JobId=... "
            "Name=... JobState=... StartTime=... EndTime=... NodeList=... SubmitTime=...)");
  EXPECT_FALSE(ParseJobComp(Record(1, "rgb-1", "COMPLETED", "2026-01-01 10:00:00",
                                   "2026-01-01T10:00:05", "2026-01-01T10:01:05", "n001"),
                            "comp.txt", &r, &err));
  // The space splits the value: the record then has SubmitTime=2026-01-01 10:00:00.
  EXPECT_EQ(err,
            "comp.txt:1: SubmitTime '2026-01-01 10:00:00'; expected a time "
            "YYYY-MM-DDTHH:MM:SS");
  EXPECT_FALSE(ParseJobComp(
      Record(1, "rgb-1", "COMPLETED", "2026-01-01T10:00:00", "soon", "2026-01-01T10:01:05", "n001"),
      "comp.txt", &r, &err));
  EXPECT_EQ(err, "comp.txt:1: StartTime 'soon'; expected a time YYYY-MM-DDTHH:MM:SS or Unknown");
  EXPECT_FALSE(ParseJobComp(Record(0, "rgb-1", "COMPLETED", "2026-01-01T10:00:00",
                                   "2026-01-01T10:00:00", "2026-01-01T10:01:05", "n001"),
                            "comp.txt", &r, &err));
  EXPECT_EQ(err, "comp.txt:1: JobId '0'; expected a job number from 1 to 4294967295");
}

TEST_F(Report, CountsSusWaitsAndMakespanPerPolicy) {
  const std::vector<StreamJob> stream = {Job(1, 1), Job(2, 2), Job(3, 4), Job(4, 12)};
  const std::string text =
      Record(10, "rgb-1", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:00:01",
             "2026-01-01T10:00:11", "n001") +
      Record(11, "rgb-2", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:00:03",
             "2026-01-01T10:00:13", "n[008-009]") +  // su1 + su2: split
      Record(12, "rgb-3", "COMPLETED", "2026-01-01T10:00:02", "2026-01-01T10:00:12",
             "2026-01-01T10:00:22", "n[017-020]") +  // su3
      Record(13, "rgb-4", "TIMEOUT", "2026-01-01T10:00:02", "2026-01-01T10:00:02",
             "2026-01-01T10:00:40", "n[001-012]") +  // 12 nodes: fits no single SU
      Record(14, "other", "COMPLETED", "2026-01-01T10:00:02", "2026-01-01T10:00:02",
             "2026-01-01T10:09:40", "n001");
  PolicyResult r;
  std::string err;
  ASSERT_TRUE(Evaluate(stream, Records(text), "comp.txt", topo_, "tree", &r, &err)) << err;
  EXPECT_EQ(r.jobs, 4);
  EXPECT_EQ(r.missing, 0);
  EXPECT_EQ(r.not_completed, 1);
  EXPECT_EQ(r.foreign_records, 1);
  EXPECT_EQ(r.multi_node, 3);
  EXPECT_EQ(r.multi_fit_one_su, 2);
  EXPECT_EQ(r.multi_fit_got_one_su, 1);
  EXPECT_DOUBLE_EQ(r.mean_sus_multi, (2 + 1 + 2) / 3.0);
  EXPECT_DOUBLE_EQ(r.mean_wait, (1 + 3 + 10 + 0) / 4.0);
  EXPECT_EQ(r.p95_wait, 10);
  EXPECT_EQ(r.p95_wait_multi, 10);
  EXPECT_EQ(r.makespan, 40);
  EXPECT_DOUBLE_EQ(r.mean_hold_over_run, 0);  // the TIMEOUT job's 38 s do not count
  ASSERT_EQ(r.split.size(), 1u);
  EXPECT_EQ(r.split[0], "rgb-2 (2 nodes): n[008-009]");
}

// A run submitted ahead (placement.sh --closed-loop): every job went in at once with --begin
// at its stream time, so SubmitTime says nothing about its wait; it counts from when the job
// was due: the origin plus its stream time, rounded up to a whole second as --begin takes it.
TEST_F(Report, WithADueOriginWaitsCountFromEachJobsDueSecond) {
  std::vector<StreamJob> stream = {Job(1, 1), Job(2, 2)};
  stream[0].submit_at = 0;
  stream[1].submit_at = 4.2;  // due at origin + 5
  const std::string text = Record(10, "rgb-1", "COMPLETED", "2026-01-01T09:59:30",
                                  "2026-01-01T10:00:01", "2026-01-01T10:00:11", "n001") +
                           Record(11, "rgb-2", "COMPLETED", "2026-01-01T09:59:30",
                                  "2026-01-01T10:00:12", "2026-01-01T10:00:30", "n[001-002]");
  int64_t origin = 0;
  ASSERT_TRUE(ParseRecordTime("2026-01-01T10:00:00", &origin));
  EXPECT_FALSE(ParseRecordTime("2026-01-01 10:00:00", &origin));
  PolicyResult r;
  std::string err;
  ASSERT_TRUE(
      Evaluate(stream, Records(text), "comp.txt", topo_, "rail", &r, &err, nullptr, &origin))
      << err;
  EXPECT_DOUBLE_EQ(r.mean_wait, (1 + 7) / 2.0);
  EXPECT_EQ(r.p95_wait_multi, 7);
  EXPECT_EQ(r.makespan, 30);
  // rgb-2 ran 10 s but held its nodes from 10:00:12 to 10:00:30.
  EXPECT_DOUBLE_EQ(r.mean_hold_over_run, (0 + 8) / 2.0);
  // Without the origin the same records count from SubmitTime: 31 and 42 s.
  ASSERT_TRUE(Evaluate(stream, Records(text), "comp.txt", topo_, "rail", &r, &err)) << err;
  EXPECT_DOUBLE_EQ(r.mean_wait, (31 + 42) / 2.0);
}

TEST_F(Report, AStreamJobWithoutARecordIsCountedAsLost) {
  PolicyResult r;
  std::string err;
  ASSERT_TRUE(Evaluate({Job(1, 2), Job(2, 2)},
                       Records(Record(3, "rgb-2", "COMPLETED", "2026-01-01T10:00:00",
                                      "2026-01-01T10:00:00", "2026-01-01T10:00:10", "n[001-002]")),
                       "comp.txt", topo_, "railguard", &r, &err))
      << err;
  EXPECT_EQ(r.jobs, 1);
  EXPECT_EQ(r.missing, 1);
  bool pass = true;
  EXPECT_EQ(Verdict(r, r, &pass),
            "verdict: FAIL: railguard placed 1 of 1 multi-node jobs that fit one SU in one SU "
            "(target: all, and no job lost) (railguard: 1); p95 wait 0 s vs 0 s (limit +10%, "
            "plus 1 s for Slurm's whole-second times): ok");
  EXPECT_FALSE(pass);
}

TEST_F(Report, ANodeOutsideTheLayoutIsAnErrorNamingTheRecord) {
  PolicyResult r;
  std::string err;
  EXPECT_FALSE(Evaluate({Job(1, 2)},
                        Records(Record(3, "rgb-1", "COMPLETED", "2026-01-01T10:00:00",
                                       "2026-01-01T10:00:00", "2026-01-01T10:00:10", "n001,x9")),
                        "comp.txt", topo_, "tree", &r, &err));
  EXPECT_EQ(err,
            "comp.txt:1: job rgb-1 ran on node 'x9', which the layout does not list; "
            "expected nodes of the benchmark's layout");
}

TEST(Verdict, PassesWhenEveryFittingJobGotOneSuAndP95IsWithinTenPercent) {
  PolicyResult tree, rail;
  tree.policy = "topology/tree";
  rail.policy = "railguard";
  tree.multi_fit_one_su = rail.multi_fit_one_su = 10;
  tree.multi_fit_got_one_su = 8;
  rail.multi_fit_got_one_su = 10;
  tree.p95_wait = 20;
  rail.p95_wait = 23;  // 22 + 1 s of resolution
  bool pass = false;
  EXPECT_EQ(Verdict(tree, rail, &pass),
            "verdict: PASS: railguard placed 10 of 10 multi-node jobs that fit one SU in one SU "
            "(topology/tree: 8); p95 wait 23 s vs 20 s (+15.0%, limit +10%, plus 1 s for "
            "Slurm's whole-second times): ok");
  EXPECT_TRUE(pass);
  rail.p95_wait = 24;
  Verdict(tree, rail, &pass);
  EXPECT_FALSE(pass);
  rail.p95_wait = 20;
  rail.multi_fit_got_one_su = 9;
  EXPECT_EQ(Verdict(tree, rail, &pass),
            "verdict: FAIL: railguard placed 9 of 10 multi-node jobs that fit one SU in one SU "
            "(target: all) (topology/tree: 8); p95 wait 20 s vs 20 s (+0.0%, limit +10%, plus "
            "1 s for Slurm's whole-second times): ok");
  EXPECT_FALSE(pass);
}

TEST(Table, HasOneColumnPerPolicyAndTheShareOfOneSuPlacements) {
  PolicyResult a, b;
  a.policy = "topology/tree";
  b.policy = "railguard";
  a.jobs = b.jobs = 300;
  a.multi_fit_one_su = b.multi_fit_one_su = 41;
  a.multi_fit_got_one_su = 38;
  b.multi_fit_got_one_su = 41;
  const std::string t = FormatTable({a, b});
  EXPECT_EQ(t.substr(0, t.find('\n')),
            "metric                           topology/tree       railguard");
  EXPECT_NE(t.find("  of those, placed in one SU     38/41 (92.7%)  41/41 (100.0%)\n"),
            std::string::npos)
      << t;
}

// --- tree + --switches: what a short job_submit/lua sets --------------------------------------

TEST(Switches, CountIsTheNodesOverTheSuSizeRoundedUpAndNoneForOneNode) {
  EXPECT_EQ(SwitchCount(0, 32), 0u);
  EXPECT_EQ(SwitchCount(1, 32), 0u);
  EXPECT_EQ(SwitchCount(2, 32), 1u);
  EXPECT_EQ(SwitchCount(32, 32), 1u);
  EXPECT_EQ(SwitchCount(33, 32), 2u);
  EXPECT_EQ(SwitchCount(64, 32), 2u);
  EXPECT_EQ(SwitchCount(65, 32), 3u);
  EXPECT_EQ(SwitchCount(9, 8), 2u);
  EXPECT_EQ(SwitchCount(5, 1), 5u);
}

TEST(Switches, OptionIsSbatchsCountAtMinutesAndSeconds) {
  // sbatch(1) --switches=<count>[@max-time], max-time in "minutes:seconds" among its forms.
  EXPECT_EQ(SwitchesOption(1, 32, 300), "");
  EXPECT_EQ(SwitchesOption(16, 32, 300), "--switches=1@5:00");
  EXPECT_EQ(SwitchesOption(40, 32, 300), "--switches=2@5:00");
  EXPECT_EQ(SwitchesOption(4, 8, 65), "--switches=1@1:05");
  EXPECT_EQ(SwitchesOption(4, 8, 0), "--switches=1@0:00");
  EXPECT_EQ(SwitchesOption(4, 8, 7200), "--switches=1@120:00");
}

// --- the fault: nodes railcheck restricted --------------------------------------------------

TEST(Fault, DegradedExtraIsWhatRailcheckWritesForARestrictedNode) {
  const std::string extra = DegradedExtra(8, 3, 1764590400.7);
  EXPECT_EQ(extra,
            "{\"railcheck\":{\"failed\":[\"rail3:port.rate\"],\"rails\":[\"ok\",\"ok\",\"ok\","
            "\"degraded\",\"ok\",\"ok\",\"ok\",\"ok\"],\"time\":1764590400,\"verdict\":"
            "\"restrict\"}}");
  // And the report's strict reader takes it as railcheck's own.
  wire::RailcheckExtra back;
  std::string err;
  ASSERT_EQ(wire::ReadExtra(extra, wire::ExtraReadMode::kStrict, &back, &err),
            wire::ExtraStatus::kOk)
      << err;
  EXPECT_EQ(back.verdict, "restrict");
  ASSERT_EQ(back.rails.size(), 8u);
  EXPECT_EQ(back.rails[3], wire::RailState::kDegraded);
  EXPECT_EQ(back.rails[2], wire::RailState::kOk);
  ASSERT_EQ(back.failed.size(), 1u);
  EXPECT_EQ(back.failed[0].rail, 3);
  EXPECT_EQ(back.failed[0].check, "port.rate");
}

TEST_F(Report, ParsesAFaultFileAndNamesWhatIsWrong) {
  Fault f;
  std::string err;
  ASSERT_TRUE(ParseFault("# injected\n2026-01-01T10:00:30 n[031-032]\n", "f.txt", topo_, &f, &err))
      << err;
  EXPECT_EQ(f.node_list, "n[031-032]");
  EXPECT_EQ(f.nodes, (std::vector<std::string>{"n031", "n032"}));
  int64_t t0 = 0;
  std::vector<JobRecord> r = Records(Record(1, "rgb-1", "COMPLETED", "2026-01-01T10:00:00",
                                            "2026-01-01T10:00:00", "2026-01-01T10:00:01", "n001"));
  t0 = r[0].submit;
  EXPECT_EQ(f.time - t0, 30);

  EXPECT_FALSE(ParseFault("", "f.txt", topo_, &f, &err));
  EXPECT_EQ(err, "f.txt: no fault; expected one line '<YYYY-MM-DDTHH:MM:SS> <hostlist>'");
  EXPECT_FALSE(ParseFault("2026-01-01T10:00:30\n", "f.txt", topo_, &f, &err));
  EXPECT_EQ(err,
            "f.txt:1: '2026-01-01T10:00:30' has no node list; expected one line "
            "'<YYYY-MM-DDTHH:MM:SS> <hostlist>'");
  EXPECT_FALSE(ParseFault("10:00:30 n001\n", "f.txt", topo_, &f, &err));
  EXPECT_EQ(err, "f.txt:1: time '10:00:30'; expected one line '<YYYY-MM-DDTHH:MM:SS> <hostlist>'");
  EXPECT_FALSE(ParseFault("2026-01-01T10:00:30 n999\n", "f.txt", topo_, &f, &err));
  EXPECT_EQ(err,
            "f.txt:1: node 'n999' is not in the layout; expected nodes of the benchmark's layout");
  EXPECT_FALSE(
      ParseFault("2026-01-01T10:00:30 n001\n2026-01-01T10:00:40 n002\n", "f.txt", topo_, &f, &err));
  EXPECT_EQ(err, "f.txt:2: a second fault; expected one line '<YYYY-MM-DDTHH:MM:SS> <hostlist>'");
}

TEST_F(Report, CountsJobsStartedOnDegradedNodesFromTheFaultsSecondOn) {
  Fault fault;
  std::string err;
  ASSERT_TRUE(ParseFault("2026-01-01T10:00:30 n[031-032]", "f.txt", topo_, &fault, &err)) << err;
  const std::vector<StreamJob> stream = {Job(1, 2), Job(2, 2), Job(3, 1),
                                         Job(4, 4), Job(5, 2), Job(6, 1)};
  const std::string text =
      // before the fault, on n031-n032: not counted (placed while they were healthy)
      Record(10, "rgb-1", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:00:29",
             "2026-01-01T10:00:39", "n[031-032]") +
      // in the fault's second, one node degraded: counted
      Record(11, "rgb-2", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:00:30",
             "2026-01-01T10:00:40", "n[030-031]") +
      // single-node, later, on n032: counted apart
      Record(12, "rgb-3", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:00:45",
             "2026-01-01T10:00:50", "n032") +
      // after, on healthy nodes: started after the fault, not on a degraded node
      Record(13, "rgb-4", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:00:50",
             "2026-01-01T10:01:00", "n[025-028]") +
      Record(14, "rgb-5", "COMPLETED", "2026-01-01T10:00:00", "2026-01-01T10:01:50",
             "2026-01-01T10:02:00", "n[025,032]") +
      // never started
      Record(15, "rgb-6", "CANCELLED", "2026-01-01T10:00:00", "Unknown", "2026-01-01T10:02:00",
             "(null)");
  PolicyResult r;
  ASSERT_TRUE(Evaluate(stream, Records(text), "comp.txt", topo_, "tree", &r, &err, &fault)) << err;
  EXPECT_TRUE(r.fault);
  EXPECT_EQ(r.started_after_fault, 4);
  EXPECT_EQ(r.multi_on_degraded, 2);
  EXPECT_EQ(r.single_on_degraded, 1);
  EXPECT_EQ(r.on_degraded, (std::vector<std::string>{"rgb-2 (2 nodes, +0 s): n[030-031]",
                                                     "rgb-3 (1 node, +15 s): n032",
                                                     "rgb-5 (2 nodes, +80 s): n[025,032]"}));
  // Without a fault nothing of that is counted.
  PolicyResult plain;
  ASSERT_TRUE(Evaluate(stream, Records(text), "comp.txt", topo_, "tree", &plain, &err)) << err;
  EXPECT_FALSE(plain.fault);
  EXPECT_EQ(plain.started_after_fault, 0);
  EXPECT_EQ(plain.multi_on_degraded, 0);
}

TEST(Verdict, AMultiNodeJobOnADegradedNodeFailsIt) {
  PolicyResult base, rail;
  base.policy = "tree + --switches";
  rail.policy = "railguard (strict)";
  base.multi_fit_one_su = rail.multi_fit_one_su = rail.multi_fit_got_one_su = 5;
  base.multi_fit_got_one_su = 4;
  base.p95_wait = rail.p95_wait = 10;
  rail.fault = true;
  rail.single_on_degraded = 3;  // allowed: restrict keeps multi-node jobs off only
  bool pass = false;
  EXPECT_EQ(Verdict(base, rail, &pass),
            "verdict: PASS: railguard (strict) placed 5 of 5 multi-node jobs that fit one SU in "
            "one SU (tree + --switches: 4); p95 wait 10 s vs 10 s (+0.0%, limit +10%, plus 1 s "
            "for Slurm's whole-second times): ok; after the fault 0 multi-node jobs started on a "
            "degraded node");
  EXPECT_TRUE(pass);
  rail.multi_on_degraded = 1;
  EXPECT_EQ(Verdict(base, rail, &pass),
            "verdict: FAIL: railguard (strict) placed 5 of 5 multi-node jobs that fit one SU in "
            "one SU (tree + --switches: 4); p95 wait 10 s vs 10 s (+0.0%, limit +10%, plus 1 s "
            "for Slurm's whole-second times): ok; after the fault 1 multi-node jobs started on a "
            "degraded node (target: none)");
  EXPECT_FALSE(pass);
}

TEST(Table, HasTheFaultRowsOnlyWhenARunHadAFault) {
  PolicyResult a, b;
  a.policy = "stock tree";
  b.policy = "railguard (strict)";
  EXPECT_EQ(FormatTable({a, b}).find("after the fault"), std::string::npos);
  a.fault = true;
  a.started_after_fault = 20;
  a.multi_on_degraded = 3;
  a.single_on_degraded = 1;
  const std::string t = FormatTable({a, b});
  // Titles padded to the longest (33 characters), then columns 10 and 18 wide, 2 apart.
  EXPECT_NE(t.find("jobs started after the fault" + std::string(15, ' ') + "20" +
                   std::string(19, ' ') + "-\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  multi-node, on a degraded node" + std::string(12, ' ') + "3" +
                   std::string(19, ' ') + "-\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  single-node, on a degraded node" + std::string(11, ' ') + "1" +
                   std::string(19, ' ') + "-\n"),
            std::string::npos)
      << t;
}

}  // namespace bench_placement_report_test
}  // namespace railguard::bench
