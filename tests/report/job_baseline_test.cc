// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for job baselines (report/job_baseline.h): a known-good run kept under a name reads
// back the same; a later run with one rail slower and waiting is told apart from one like it,
// naming the rail and its weakest node and leaf; bad baseline files name file:line:column.
#include "report/job_baseline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/job_apps.h"
#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_job_baseline_test {

using testing::DevTopology;
using testing::N;

constexpr uint64_t kGiB = uint64_t{1} << 30;

// A job on n001-n004, 1000 s, 10 GiB each way on every rail; rail 3 of n003 scaled by
// `rail3` and its xmit wait by `wait3`.
std::vector<wire::JobNodeRecord> JobRun(uint64_t job, double rail3 = 1, uint64_t wait3 = 1000) {
  std::vector<wire::JobNodeRecord> out = testing::EvenJobRecords(job, 4, 1000, 2000, 10 * kGiB);
  wire::JobRail& bad = out[2].rails[3];  // n003 rail 3
  bad.xmit_bytes = bad.rcv_bytes = static_cast<uint64_t>(rail3 * 10 * kGiB);
  bad.xmit_wait = wait3;
  return out;
}

TEST(JobBaseline, AKeptRunReadsBackTheSame) {
  const topo::Topology t = DevTopology();
  const JobBaseline b = BaselineOf(JoinJob(7, JobRun(7), &t, {}), "train-4n");
  ASSERT_EQ(b.rails.size(), 8u);
  EXPECT_EQ(b.nodes, 4);
  EXPECT_DOUBLE_EQ(b.rails[0].bytes_per_node_s, 20.0 * kGiB / 1000);
  EXPECT_DOUBLE_EQ(b.rails[0].min_share, 1.0);
  JobBaseline back;
  Diags d;
  ASSERT_TRUE(JobBaselineFromJson(JobBaselineToJson(b), "b.json", &back, &d)) << FormatDiags(d);
  EXPECT_EQ(JobBaselineToJson(back), JobBaselineToJson(b));
}

TEST(JobBaseline, ADegradedRunIsToldApartFromAGoodOne) {
  const topo::Topology t = DevTopology();
  const JobBaseline b = BaselineOf(JoinJob(7, JobRun(7), &t, {}), "train-4n");
  JobFabric good = JoinJob(8, JobRun(8, 0.95), &t, {});
  CompareWithBaseline(b, BaselineMargins(), &good);
  EXPECT_TRUE(good.findings.empty());
  EXPECT_NE(good.notes.back().find("compared with baseline train-4n (job 7, 4 nodes, 1000 s): "
                                   "no rail differs"),
            std::string::npos)
      << good.notes.back();

  JobFabric bad = JoinJob(9, JobRun(9, 0.15, 10000000), &t, {});
  const size_t before = bad.findings.size();
  CompareWithBaseline(b, BaselineMargins(), &bad);
  ASSERT_EQ(bad.findings.size(), before + 1);
  const JobFabricFinding& f = bad.findings.back();
  EXPECT_EQ(f.kind, "baseline");
  EXPECT_EQ(f.rail, 3);
  EXPECT_EQ(f.node, N(3));
  EXPECT_FALSE(f.leaf.empty());
  EXPECT_NE(f.message.find("rail3 differs from baseline train-4n (job 7)"), std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("(-21%)"), std::string::npos) << f.message;  // 3.15 nodes of 4
  EXPECT_NE(f.message.find("port_xmit_wait"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("its weakest node carried 15%"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("weakest: " + N(3) + " mlx5_3 (leaf " + f.leaf + ")"),
            std::string::npos)
      << f.message;
}

TEST(JobBaseline, BadFilesAndNamesAreRefused) {
  JobBaseline b;
  Diags d;
  EXPECT_FALSE(JobBaselineFromJson("{\"railguard_job_baseline\": 2}", "b.json", &b, &d));
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].file, "b.json");
  EXPECT_EQ(d[0].line, 1);
  d.clear();
  EXPECT_FALSE(JobBaselineFromJson(
      "{\"railguard_job_baseline\": 1, \"name\": \"x\", \"job\": 3, \"nodes\": 2,\n"
      " \"seconds\": 10, \"rails\": [{\"rail\": 0, \"bytes_per_node_s\": -5}]}",
      "b.json", &b, &d));
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].line, 2);
  EXPECT_NE(d[0].message.find("bytes_per_node_s"), std::string::npos) << d[0].message;
  EXPECT_TRUE(IsBaselineName("llama-70b_64n.v2"));
  EXPECT_FALSE(IsBaselineName("../etc/passwd"));
  EXPECT_FALSE(IsBaselineName(".hidden"));
  EXPECT_FALSE(IsBaselineName(""));
}

// The job's own step time (a step-time file beside the record) goes into the baseline and a
// later run whose median step is more than 20% slower is a finding; one within 20% is not.
TEST(JobBaseline, TheStepTimeIsKeptAndASlowerRunIsAFinding) {
  const topo::Topology t = DevTopology();
  auto with_steps = [&](uint64_t job, double seconds) {
    JobFabric f = JoinJob(job, JobRun(job), &t, {});
    StepTimes steps;
    steps.file = "steps.txt";
    for (int i = 1; i <= 50; ++i) {
      steps.steps.push_back(static_cast<uint64_t>(i));
      steps.seconds.push_back(i == 1 ? 30.0 : seconds);  // the first step compiles
    }
    AddStepTimes(steps, &f);
    return f;
  };
  const JobBaseline b = BaselineOf(with_steps(7, 1.0), "train-4n");
  EXPECT_DOUBLE_EQ(b.step_median_s, 1.0);
  JobBaseline back;
  Diags d;
  ASSERT_TRUE(JobBaselineFromJson(JobBaselineToJson(b), "b.json", &back, &d)) << FormatDiags(d);
  EXPECT_DOUBLE_EQ(back.step_median_s, 1.0);

  JobFabric slow = with_steps(8, 1.3);
  CompareWithBaseline(back, BaselineMargins(), &slow);
  ASSERT_EQ(slow.findings.size(), 1u);
  EXPECT_EQ(slow.findings[0].rail, -1);
  EXPECT_NE(slow.findings[0].message.find("median step time 1.3 s against 1 s (+30%) in baseline "
                                          "train-4n (job 7)"),
            std::string::npos)
      << slow.findings[0].message;
  EXPECT_NE(slow.notes.back().find("the step time differs"), std::string::npos);

  JobFabric alike = with_steps(9, 1.1);
  CompareWithBaseline(back, BaselineMargins(), &alike);
  EXPECT_TRUE(alike.findings.empty());

  // A baseline written before step times (no member) and one with null read as none.
  JobBaseline none;
  std::string old = JobBaselineToJson(BaselineOf(JoinJob(7, JobRun(7), &t, {}), "x"));
  ASSERT_NE(old.find("\"step_median_s\": null"), std::string::npos) << old;
  ASSERT_TRUE(JobBaselineFromJson(old, "b.json", &none, &d)) << FormatDiags(d);
  EXPECT_EQ(none.step_median_s, -1);
  const std::string bad = old.replace(old.find("null"), 4, "-2");
  EXPECT_FALSE(JobBaselineFromJson(bad, "b.json", &none, &d));
  EXPECT_NE(FormatDiags(d).find("bad \"step_median_s\"; expected seconds > 0, or null"),
            std::string::npos);
}

}  // namespace report_job_baseline_test
}  // namespace railguard::report
