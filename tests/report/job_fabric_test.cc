// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the job fabric record (report/job_fabric.h): the slow rail, the waiting rail and
// the erring rail of a job are named with node, NIC and leaf; a requeued job counts its last
// run; events on its nodes during it are shown.
#include "report/job_fabric.h"
#include "report/job_apps.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_job_fabric_test {

using testing::DevTopology;
using testing::N;

constexpr uint64_t kGiB = uint64_t{1} << 30;

wire::JobNodeRecord Record(const std::string& node, double start = 1000, double end = 2000) {
  wire::JobNodeRecord r;
  r.job = 55;
  r.node = node;
  r.start = start;
  r.end = end;
  r.samples = 3;
  for (int k = 0; k < 8; ++k) {
    wire::JobRail x;
    x.rail = k;
    x.nic = "mlx5_" + std::to_string(k);
    x.xmit_bytes = 10 * kGiB;
    x.rcv_bytes = 10 * kGiB;
    x.xmit_wait = 1000;
    r.rails.push_back(x);
  }
  return r;
}

TEST(JobFabric, AHealthyJobHasNoFindingsAndTheRailsTotals) {
  const topo::Topology t = DevTopology();
  const JobFabric f = JoinJob(55, {Record(N(1)), Record(N(2))}, &t, {});
  EXPECT_EQ(f.nodes, (std::vector<std::string>{N(1), N(2)}));
  EXPECT_TRUE(f.findings.empty());
  ASSERT_EQ(f.rails.size(), 8u);
  EXPECT_EQ(f.rails[3].xmit_bytes, 20 * kGiB);
  EXPECT_EQ(f.rails[3].nodes_known, 2);
  EXPECT_NE(JobFabricText(f).find("findings: none"), std::string::npos);
}

TEST(JobFabric, TheSlowWaitingAndErringRailIsNamedWithItsLeaf) {
  const topo::Topology t = DevTopology();
  wire::JobNodeRecord bad = Record(N(2));
  bad.rails[3].xmit_bytes = 2 * kGiB;
  bad.rails[3].rcv_bytes = 2 * kGiB;
  bad.rails[3].xmit_wait = 900000;
  bad.rails[3].errors = {{"symbol_error", 540}};
  wire::HealthEvent e;
  e.time = 1500;
  e.node = N(2);
  e.kind = wire::EventKind::kDegraded;
  e.rail = 3;
  e.detail = "link.errors: rail3 symbol_error 540/h";
  wire::HealthEvent other = e;
  other.node = N(9);  // not the job's
  const JobFabric f = JoinJob(55, {Record(N(1)), bad}, &t, {e, other});
  ASSERT_EQ(f.findings.size(), 3u);
  EXPECT_EQ(f.findings[0].kind, "slow");
  EXPECT_EQ(f.findings[0].node, N(2));
  EXPECT_EQ(f.findings[0].rail, 3);
  EXPECT_EQ(f.findings[0].nic, "mlx5_3");
  const std::string leaf = f.findings[0].leaf;
  EXPECT_FALSE(leaf.empty());
  EXPECT_NE(f.findings[0].message.find("20% of the node's median rail"), std::string::npos)
      << f.findings[0].message;
  EXPECT_EQ(f.findings[1].kind, "waiting");
  EXPECT_EQ(f.findings[2].kind, "errors");
  EXPECT_NE(f.findings[2].message.find("symbol_error +540"), std::string::npos);
  ASSERT_EQ(f.events.size(), 1u);
  const std::string text = JobFabricText(f);
  EXPECT_NE(text.find(N(2) + " rail3 mlx5_3 (leaf " + leaf + ")"), std::string::npos) << text;
  EXPECT_NE(text.find("railcheck events on its nodes during the job"), std::string::npos);
  const std::string json = JobFabricJson(f);
  EXPECT_NE(json.find("\"kind\": \"slow\""), std::string::npos) << json;
}

TEST(JobFabric, LittleTrafficIsNotJudgedAndUnknownRailsAreFindings) {
  wire::JobNodeRecord quiet = Record(N(1));
  for (wire::JobRail& x : quiet.rails) x.xmit_bytes = x.rcv_bytes = 1000;
  quiet.rails[5].xmit_bytes = 0;
  quiet.rails[6].unknown = "the node rebooted during the job";
  const JobFabric f = JoinJob(55, {quiet}, nullptr, {});
  ASSERT_EQ(f.findings.size(), 1u);
  EXPECT_EQ(f.findings[0].kind, "unknown");
  EXPECT_EQ(f.rails[6].nodes_known, 0);
}

TEST(JobFabric, ARequeuedJobCountsItsLastRunAndSharedNodesAreNoted) {
  wire::JobNodeRecord first = Record(N(1), 1000, 1100);
  first.rails[0].xmit_bytes = 0;
  wire::JobNodeRecord second = Record(N(1), 1200, 2000);
  second.shared_with = {54};
  const JobFabric f = JoinJob(55, {first, second}, nullptr, {});
  EXPECT_TRUE(f.findings.empty());
  EXPECT_DOUBLE_EQ(f.start, 1200);
  ASSERT_EQ(f.notes.size(), 2u);
  EXPECT_NE(f.notes[0].find("1 earlier run(s)"), std::string::npos);
  EXPECT_NE(f.notes[1].find("shared with job(s) 54"), std::string::npos);
}

TEST(JobFabric, TheApplicationsOwnNumbersStandBesideTheRails) {
  const std::string capture =
      std::string(RAILGUARD_SOURCE_DIR) + "/tests/data/nccl/a3mega_all_reduce_16gpu.txt";
  std::ifstream in(capture);
  std::stringstream text;
  text << in.rdbuf();
  NcclTestsRun run;
  Diags d;
  ASSERT_TRUE(ParseNcclTests(text.str(), capture, &run, &d)) << FormatDiags(d);
  JobFabric f = JoinJob(55, {Record("ztan-mig-235z")}, nullptr, {});
  AddNcclTests(run, false, &f);
  ASSERT_EQ(f.apps.size(), 1u);
  EXPECT_EQ(f.apps[0].ranks, 16);
  EXPECT_EQ(f.apps[0].others, std::vector<std::string>{"ztan-mig-gq73"});
  EXPECT_EQ(f.apps[0].peak_bytes, 8589934592u);
  const std::string t = JobFabricText(f);
  EXPECT_NE(t.find("application (nccl-tests, " + capture +
                   "): 16 ranks on 2 hosts; bus bandwidth 70.7 GB/s on average, 338.8 GB/s at "
                   "best (8.0 GiB messages)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("its hosts ztan-mig-gq73 are not among the job's nodes"), std::string::npos);
  EXPECT_NE(JobFabricJson(f).find("\"avg_busbw_gbs\": 70.742"), std::string::npos);
}

TEST(JobFabric, BytesAreShownInBinaryUnits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(200.0 * kGiB), "200 GiB");
}

}  // namespace report_job_fabric_test
}  // namespace railguard::report
