// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the application's own numbers beside a job's record (report/job_apps.h): a folder
// as a job leaves it (nccl-tests text and JSON, an Inspector subfolder, a step-time file, a
// checkpoint) gives one application per tool run, the Inspector's files as one; a file of no
// known format given by name is an error; hosts that are not the job's nodes are named.
#include "report/job_apps.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

namespace railguard::report {
namespace report_job_apps_test {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Put(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string Data(const char* name) {
  return std::string(RAILGUARD_SOURCE_DIR) + "/tests/data/nccl/" + name;
}

class JobApps : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rg-job-apps.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    f_.job = 42;
    f_.nodes = {"ztan-mig-235z", "n002"};
  }
  void TearDown() override { (void)system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string dir_;
  JobFabric f_;
};

TEST(JobAppsSniff, EachFormatIsToldFromItsText) {
  EXPECT_EQ(SniffAppFormat(Slurp(Data("a3mega_all_reduce_16gpu.txt"))), AppFormat::kNcclTestsText);
  EXPECT_EQ(SniffAppFormat(Slurp(Data("a3mega_all_reduce_16gpu.json"))), AppFormat::kNcclTestsJson);
  EXPECT_EQ(SniffAppFormat(Slurp(Data("inspector_readme_examples.log"))), AppFormat::kNcclInspector);
  EXPECT_EQ(SniffAppFormat("# step times\n1 1.5\n2 1.4\n"), AppFormat::kStepTimes);
  EXPECT_EQ(SniffAppFormat("{\"loss\": 1.2}\n"), AppFormat::kUnknown);
  EXPECT_EQ(SniffAppFormat(std::string("\x89PNG\r\n\x1a\n\0\0", 10)), AppFormat::kUnknown);
  EXPECT_EQ(SniffAppFormat(""), AppFormat::kUnknown);
}

TEST_F(JobApps, AFolderAsAJobLeavesIt) {
  Put(dir_ + "/all_reduce.txt", Slurp(Data("a3mega_all_reduce_16gpu.txt")));
  Put(dir_ + "/all_reduce.json", Slurp(Data("a3mega_all_reduce_16gpu.json")));
  ASSERT_EQ(mkdir((dir_ + "/inspector").c_str(), 0755), 0);
  const std::string rec =
      R"({"header":{"id":"0x1","rank":0,"n_ranks":16,"nnodes":2},"metadata":{"hostname":"n002"},)"
      R"("coll_perf":{"coll":"AllReduce","coll_msg_size_bytes":1048576,"coll_busbw_gbs":)";
  Put(dir_ + "/inspector/n002-pid1.log", rec + "300}}\n" + rec + "340}}\n");
  Put(dir_ + "/inspector/n002-pid2.log", rec + "320}}\n");
  Put(dir_ + "/steps.txt", "# step times\n1 12.0\n2 1.5\n3 1.5\n4 1.6\n");
  Put(dir_ + "/ckpt-0001.pt", std::string("PK\x03\x04\0\0binary", 12));
  JobAppsRead read;
  Diags d;
  ASSERT_TRUE(ReadJobApps(dir_, &f_, &read, &d)) << FormatDiags(d);
  EXPECT_EQ(read.files, 5);
  EXPECT_EQ(read.skipped, 1);
  ASSERT_EQ(f_.apps.size(), 4u);  // sorted names: all_reduce.json, all_reduce.txt, steps, inspector
  EXPECT_EQ(f_.apps[0].kind, "nccl-tests-json");
  EXPECT_EQ(f_.apps[1].kind, "nccl-tests");
  EXPECT_DOUBLE_EQ(f_.apps[0].avg_busbw, f_.apps[1].avg_busbw);
  EXPECT_EQ(f_.apps[1].others, std::vector<std::string>{"ztan-mig-gq73"});
  EXPECT_EQ(f_.apps[2].kind, "step-times");
  EXPECT_EQ(f_.apps[2].steps, 4u);
  EXPECT_DOUBLE_EQ(f_.apps[2].step_median_s, 1.5);
  EXPECT_EQ(f_.apps[2].step_max_at, 1u);
  const JobApp& in = f_.apps[3];
  EXPECT_EQ(in.kind, "nccl-inspector");
  EXPECT_EQ(in.file, dir_);
  EXPECT_EQ(in.collectives, 3u);
  EXPECT_DOUBLE_EQ(in.avg_busbw, 320);
  EXPECT_DOUBLE_EQ(in.peak_busbw, 340);
  EXPECT_TRUE(in.others.empty());
  const std::string text = JobFabricText(f_);
  EXPECT_NE(text.find("application (step-times, " + dir_ + "/steps.txt): 4 steps; median 1.5 s, "
                      "p95 12 s, slowest 12 s (step 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("application (nccl-inspector, " + dir_ + "): 3 collectives across nodes (up "
                      "to 16 ranks) on 1 hosts; bus bandwidth 320.0 GB/s median, 340.0 GB/s at best"),
            std::string::npos)
      << text;
  EXPECT_NE(JobFabricJson(f_).find("\"step_median_s\": 1.5"), std::string::npos);
}

TEST_F(JobApps, AFileOfNoKnownFormatGivenByNameIsAnError) {
  Put(dir_ + "/loss.csv", "step,loss\n1,2.3\n");
  JobAppsRead read;
  Diags d;
  EXPECT_FALSE(ReadJobApps(dir_ + "/loss.csv", &f_, &read, &d));
  EXPECT_NE(FormatDiags(d).find("loss.csv: not a format railctl job reads; expected nccl-tests "
                                "output (text or -J JSON), an NCCL Inspector log or a step-time "
                                "file"),
            std::string::npos)
      << FormatDiags(d);
  EXPECT_TRUE(f_.apps.empty());
}

TEST_F(JobApps, ABadFileInAFolderIsNamedAndTheOthersStillCount) {
  Put(dir_ + "/a_steps.txt", "1 1.0\n2 x\n");
  Put(dir_ + "/b_steps.txt", "1 1.0\n2 1.0\n");
  JobAppsRead read;
  Diags d;
  EXPECT_FALSE(ReadJobApps(dir_, &f_, &read, &d));
  EXPECT_NE(FormatDiags(d).find("a_steps.txt:2:3: time 'x'"), std::string::npos) << FormatDiags(d);
  ASSERT_EQ(f_.apps.size(), 1u);
  EXPECT_EQ(f_.apps[0].file, dir_ + "/b_steps.txt");
}

TEST_F(JobApps, AMissingPathIsAnError) {
  JobAppsRead read;
  Diags d;
  EXPECT_FALSE(ReadJobApps(dir_ + "/none", &f_, &read, &d));
  EXPECT_NE(FormatDiags(d).find("none: cannot read: No such file or directory"), std::string::npos)
      << FormatDiags(d);
}

}  // namespace report_job_apps_test
}  // namespace railguard::report
