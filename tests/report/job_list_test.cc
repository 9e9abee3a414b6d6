// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for recent jobs' records (report/job_list.h): the window, jobs with findings first,
// and the Prometheus series with their bounded labels (job, rail; job, kind).
#include "report/job_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railguard::report {
namespace report_job_list_test {

constexpr uint64_t kMiB = uint64_t{1} << 20;

wire::JobNodeRecord Rec(uint64_t job, const std::string& node, double end, bool slow3) {
  wire::JobNodeRecord r;
  r.job = job;
  r.node = node;
  r.start = end - 100;
  r.end = end;
  for (int k = 0; k < 4; ++k) {
    wire::JobRail x;
    x.rail = k;
    x.nic = "mlx5_" + std::to_string(k);
    x.xmit_bytes = x.rcv_bytes = (slow3 && k == 3 ? 10 : 100) * kMiB;
    x.xmit_wait = 10;
    r.rails.push_back(x);
  }
  return r;
}

TEST(JobList, JobsOfTheWindowWithFindingsFirst) {
  const std::vector<wire::JobNodeRecord> recs = {
      Rec(1, "n001", 500, false),   // before the window
      Rec(2, "n001", 1500, false), Rec(2, "n002", 1510, false),
      Rec(3, "n003", 1400, true)};
  const std::vector<JobFabric> jobs = JoinRecentJobs(recs, 1000, 2000, nullptr, {});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].job, 2u);  // newest first
  EXPECT_EQ(jobs[1].job, 3u);
  const std::string text = JobListText(jobs, 1000, 2000);
  const size_t j3 = text.find("\n  3 ");
  const size_t j2 = text.find("\n  2 ");
  ASSERT_NE(j3, std::string::npos) << text;
  ASSERT_NE(j2, std::string::npos) << text;
  EXPECT_LT(j3, j2) << text;  // the job with a finding comes first
  EXPECT_NE(text.find("1: n003 rail3 mlx5_3: carried"), std::string::npos) << text;
}

TEST(JobList, PrometheusSeriesPerJobAndRail) {
  const std::vector<JobFabric> jobs =
      JoinRecentJobs({Rec(3, "n003", 1400, true)}, 1000, 2000, nullptr, {});
  const std::string p = JobListPrometheus(jobs);
  EXPECT_NE(p.find("# TYPE railguard_job_rail_bytes_per_node_second gauge"), std::string::npos);
  // 200 MiB over 100 s on rail 0.
  EXPECT_NE(p.find("railguard_job_rail_bytes_per_node_second{job=\"3\",rail=\"0\"} 2097152\n"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("railguard_job_rail_min_share{job=\"3\",rail=\"3\"} 0.1\n"), std::string::npos)
      << p;
  EXPECT_NE(p.find("railguard_job_rail_xmit_wait_share{job=\"3\",rail=\"1\"} 0.25\n"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("railguard_job_findings{job=\"3\",kind=\"slow\"} 1\n"), std::string::npos) << p;
  EXPECT_NE(p.find("railguard_job_findings{job=\"3\",kind=\"errors\"} 0\n"), std::string::npos);
  EXPECT_NE(p.find("railguard_job_end_time_seconds{job=\"3\"} 1400\n"), std::string::npos);
  // Labels are job, rail and kind only: no node, NIC or leaf names (bounded cardinality).
  EXPECT_EQ(p.find("node=\""), std::string::npos);
}

}  // namespace report_job_list_test
}  // namespace railguard::report
