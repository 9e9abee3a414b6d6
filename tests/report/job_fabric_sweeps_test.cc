// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the fabric side of a job's record (report/job_fabric_sweeps.h): a job on n001-n004
// (leaves su1-rail0..7) and sweeps before, during and after it, with findings on its own host
// link and leaf uplink and on another job's; only the job's links, during its window, count,
// one line per link and kind however many sweeps showed it.
#include "report/job_fabric_sweeps.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_job_fabric_sweeps_test {

using testing::DevTopology;

JobFabric Job() {
  const topo::Topology t = DevTopology();
  return JoinJob(9, testing::EvenJobRecords(9, 4, 1000, 2000, uint64_t{1} << 30), &t, {});
}

wire::SweepLink HostLink(const std::string& host, int rail, const std::string& leaf, int port) {
  wire::SweepLink l;
  l.kind = "host";
  l.su = "su1";
  l.rail = "rail" + std::to_string(rail);
  l.host = host;
  l.hca = "mlx5_" + std::to_string(rail);
  l.a.name = host + " " + l.hca;
  l.a.port = 1;
  l.b.name = leaf;
  l.b.port = port;
  return l;
}

wire::SweepLink Uplink(const std::string& leaf, int port, const std::string& spine) {
  wire::SweepLink l;
  l.kind = "uplink";
  l.a.name = leaf;
  l.a.port = port;
  l.b.name = spine;
  l.b.port = 3;
  return l;
}

wire::SweepDocument Sweep(double time, bool faults) {
  wire::SweepDocument d;
  d.summary.time = time;
  wire::SweepLink mine = HostLink("n003", 3, "su1-rail3", 3);
  wire::SweepLink other = HostLink("n009", 3, "su2-rail3", 1);
  wire::SweepLink up = Uplink("su1-rail3", 33, "spine1");
  wire::SweepLink other_up = Uplink("su2-rail3", 33, "spine1");
  if (faults) {
    mine.findings.push_back({"errors", "leaf", "SymbolErrorCounter rose 400 (limit 120/h)"});
    other.findings.push_back({"errors", "host", "SymbolErrorCounter rose 900"});
    up.findings.push_back({"width", "both", "1x of 4x enabled"});
    other_up.findings.push_back({"speed", "spine", "HDR of NDR enabled"});
  }
  d.links = {mine, other, up, other_up};
  return d;
}

TEST(JobFabricSweeps, OnlyTheJobsLinksDuringItsWindowCountOnceEach) {
  JobFabric f = Job();
  AddJobSweeps({Sweep(500, true), Sweep(1200, true), Sweep(1800, true), Sweep(2600, true),
                Sweep(5000, true), Sweep(1500, false)},
               &f);
  std::vector<std::string> msgs;
  for (const JobFabricFinding& x : f.findings)
    if (x.kind == "fabric") msgs.push_back(x.message);
  ASSERT_EQ(msgs.size(), 2u) << JobFabricText(f);
  EXPECT_EQ(msgs[0],
            "errors on host link n003 mlx5_3 port 1 - su1-rail3 port 3 (leaf side) in 3 of 4 "
            "sweep(s) during the job: SymbolErrorCounter rose 400 (limit 120/h)");
  EXPECT_EQ(msgs[1],
            "width on uplink su1-rail3 port 33 - spine1 port 3 (both side) in 3 of 4 sweep(s) "
            "during the job: 1x of 4x enabled");
  EXPECT_EQ(f.findings[f.findings.size() - 2].node, "n003");
  EXPECT_EQ(f.findings[f.findings.size() - 2].rail, 3);
  EXPECT_EQ(f.notes.back(), "4 fabric sweep(s) during the job: 2 finding(s) on its links");
  EXPECT_NE(JobFabricText(f).find("  fabric: errors on host link n003 mlx5_3"), std::string::npos);
}

TEST(JobFabricSweeps, CoreLinksOfTheSpinesTheJobsLeavesReachAreItsOwnInAThreeTierFabric) {
  wire::SweepDocument d = Sweep(1200, false);
  d.links.push_back(Uplink("su2-rail5", 33, "spine6"));  // only another job's leaf uses spine6
  wire::SweepLink mine, other;
  mine.kind = other.kind = "core";
  mine.a.name = "spine1";
  mine.a.port = 40;
  mine.b.name = "core2";
  mine.b.port = 1;
  other.a.name = "spine6";
  other.a.port = 40;
  other.b.name = "core2";
  other.b.port = 6;
  mine.findings.push_back({"errors", "core", "SymbolErrorCounter rose 300"});
  other.findings.push_back({"errors", "core", "SymbolErrorCounter rose 700"});
  d.links.push_back(mine);
  d.links.push_back(other);
  JobFabric f = Job();
  AddJobSweeps({d}, &f);
  ASSERT_FALSE(f.findings.empty());
  const JobFabricFinding& x = f.findings.back();
  EXPECT_EQ(x.kind, "fabric");
  EXPECT_EQ(x.message,
            "errors on core link spine1 port 40 - core2 port 1 (core side) in 1 of 1 sweep(s) "
            "during the job: SymbolErrorCounter rose 300");
  EXPECT_EQ(x.leaf, "");
  EXPECT_EQ(f.notes.back(), "1 fabric sweep(s) during the job: 1 finding(s) on its links");
}

TEST(JobFabricSweeps, NoSweepDuringTheJobIsSaid) {
  JobFabric f = Job();
  AddJobSweeps({Sweep(100, true), Sweep(9000, true)}, &f);
  EXPECT_TRUE(f.findings.empty());
  EXPECT_EQ(f.notes.back(), "no fabric sweep ran during the job");
}

// A sweep started as the job was allocated: its counter phase began 2 s before the first
// Prolog's reading (1000), while the sweep, 5 s long, still ran. One that ended before counts
// not.
TEST(JobFabricSweeps, ASweepStillRunningWhenTheJobsPrologReadCounts) {
  JobFabric f = Job();
  wire::SweepDocument running = Sweep(998, true), over = Sweep(990, true);
  running.summary.seconds = 5;
  over.summary.seconds = 5;
  AddJobSweeps({running, over}, &f);
  EXPECT_EQ(f.notes.back(), "1 fabric sweep(s) during the job: 2 finding(s) on its links");
}

TEST(JobFabricSweeps, AFolderOfSweepFilesIsReadByTheirTimeAndBadOnesAreNamed) {
  char tmpl[] = "/tmp/rg-job-sweeps.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  {
    std::ofstream(dir + "/sweep-1.json") << wire::SweepDocumentToJson(Sweep(1200, true));
    std::ofstream(dir + "/broken.json") << "{\"links\": [";
    std::ofstream(dir + "/notes.txt") << "not a sweep";
  }
  std::vector<wire::SweepDocument> got;
  Diags d;
  const double now = static_cast<double>(time(nullptr));
  ASSERT_TRUE(ReadSweepsForJob(dir, now - 60, now, &got, &d));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].summary.time, 1200);
  EXPECT_NE(FormatDiags(d).find("broken.json:1:"), std::string::npos) << FormatDiags(d);
  got.clear();
  EXPECT_TRUE(ReadSweepsForJob(dir, now - 7200, now - 3600 - 2 * kSweepAfterJobSeconds, &got, &d));
  EXPECT_TRUE(got.empty());  // written after the window
  EXPECT_FALSE(ReadSweepsForJob(dir + "/none", 0, now, &got, &d));
  // Written 0.6 s into a second, by a sweep of a job that began 0.2 s into it: read (its
  // mtime in whole seconds is before the start).
  const struct timespec when[2] = {{1796522478, 600000000}, {1796522478, 600000000}};
  ASSERT_EQ(utimensat(AT_FDCWD, (dir + "/sweep-1.json").c_str(), when, 0), 0);
  got.clear();
  EXPECT_TRUE(ReadSweepsForJob(dir, 1796522478.2, 1796522493.0, &got, &d));
  EXPECT_EQ(got.size(), 1u);
  (void)system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace report_job_fabric_sweeps_test
}  // namespace railguard::report
