// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the job fabric log (wire/job_log.h): a record written and read back is the same,
// bad lines are skipped with file:line and what was expected, one job's lines are picked out.
#include "wire/job_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace railguard::wire {
namespace wire_job_log_test {

JobNodeRecord Sample(uint64_t job, const std::string& node) {
  JobNodeRecord r;
  r.job = job;
  r.node = node;
  r.start = 1764930000.5;
  r.end = 1764933600.25;
  r.samples = 3;
  r.shared_with = {41};
  JobRail a;
  a.rail = 0;
  a.nic = "mlx5_0";
  a.xmit_bytes = 123456789012ull;
  a.rcv_bytes = 98765432100ull;
  a.xmit_wait = 4242;
  a.peak_xmit_bps = 4.5e10;
  a.peak_rcv_bps = 4.25e10;
  a.errors = {{"symbol_error", 12}, {"port_rcv_errors", 3}};
  JobRail b;
  b.rail = 1;
  b.nic = "mlx5_3";
  b.unknown = "port_xmit_data went back from 10 to 2 (counters reset during the job)";
  r.rails = {a, b};
  return r;
}

TEST(JobLog, ARecordReadsBackAsWritten) {
  const JobNodeRecord r = Sample(42, "n001");
  const std::string line = JobRecordToJsonLine(r);
  ASSERT_EQ(line.back(), '\n');
  JobNodeRecord back;
  std::string err;
  ASSERT_TRUE(JobRecordFromJsonLine(line.substr(0, line.size() - 1), &back, &err)) << err;
  EXPECT_EQ(back.job, 42u);
  EXPECT_EQ(back.node, "n001");
  EXPECT_DOUBLE_EQ(back.start, r.start);
  EXPECT_DOUBLE_EQ(back.end, r.end);
  EXPECT_EQ(back.samples, 3);
  EXPECT_EQ(back.shared_with, std::vector<uint64_t>{41});
  ASSERT_EQ(back.rails.size(), 2u);
  EXPECT_EQ(back.rails[0].xmit_bytes, 123456789012ull);
  EXPECT_EQ(back.rails[0].rcv_bytes, 98765432100ull);
  EXPECT_EQ(back.rails[0].xmit_wait, 4242u);
  EXPECT_DOUBLE_EQ(back.rails[0].peak_xmit_bps, 4.5e10);
  EXPECT_EQ(back.rails[0].errors, r.rails[0].errors);
  EXPECT_EQ(back.rails[0].ErrorCount(), 15u);
  EXPECT_FALSE(back.rails[1].known());
  EXPECT_EQ(back.rails[1].unknown, r.rails[1].unknown);
  // Writing what was read gives the same line.
  EXPECT_EQ(JobRecordToJsonLine(back), line);
}

TEST(JobLog, BadLinesSayWhereAndWhatWasExpected) {
  JobNodeRecord r;
  std::string err;
  EXPECT_FALSE(JobRecordFromJsonLine("{\"v\":1,\"job\":42", &r, &err));
  EXPECT_NE(err.find("column"), std::string::npos) << err;
  EXPECT_FALSE(JobRecordFromJsonLine("{\"v\":2,\"job\":1}", &r, &err));
  EXPECT_NE(err.find("format version 2 is not supported; expected 1"), std::string::npos) << err;
  EXPECT_FALSE(JobRecordFromJsonLine(
      "{\"v\":1,\"job\":0,\"node\":\"n1\",\"start\":1,\"end\":2,\"samples\":2,\"rails\":[]}", &r,
      &err));
  EXPECT_NE(err.find("\"job\" is 0; expected a Slurm job id"), std::string::npos) << err;
  EXPECT_FALSE(JobRecordFromJsonLine(
      "{\"v\":1,\"job\":5,\"node\":\"n1\",\"start\":9,\"end\":2,\"samples\":2,\"rails\":[]}", &r,
      &err));
  EXPECT_NE(err.find("\"end\" is before \"start\""), std::string::npos) << err;
  EXPECT_FALSE(JobRecordFromJsonLine(
      "{\"v\":1,\"job\":5,\"node\":\"n1\",\"start\":1,\"end\":2,\"samples\":2,\"rails\":[{\"rail\":0,"
      "\"nic\":\"mlx5_0\",\"xmit_bytes\":-4,\"rcv_bytes\":0,\"xmit_wait\":0,\"peak_xmit_bps\":0,"
      "\"peak_rcv_bps\":0,\"errors\":{}}]}",
      &r, &err));
  EXPECT_NE(err.find("\"xmit_bytes\" is not an integer 0..2^64-1"), std::string::npos) << err;
  EXPECT_NE(err.find("column 105"), std::string::npos) << err;
}

class JobLogFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/job_log_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    log_ = dir_ + "/jobs.log";
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }
  std::string dir_, log_;
};

TEST_F(JobLogFileTest, OneJobsLinesArePickedOutAndBadLinesReported) {
  std::string err;
  ASSERT_TRUE(AppendJobRecord(log_, Sample(42, "n001"), &err)) << err;
  ASSERT_TRUE(AppendJobRecord(log_, Sample(43, "n001"), &err)) << err;
  {
    std::ofstream f(log_, std::ios::app);
    f << "not json\n";
  }
  ASSERT_TRUE(AppendJobRecord(log_, Sample(42, "n002"), &err)) << err;
  std::vector<JobNodeRecord> got;
  Diags problems;
  ASSERT_EQ(ReadJobRecords(log_, 42, &got, &problems, &err), JobLogStatus::kOk) << err;
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].node, "n001");
  EXPECT_EQ(got[1].node, "n002");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, log_);
  EXPECT_EQ(problems[0].line, 3);
  EXPECT_NE(problems[0].message.find("expected a job record"), std::string::npos);
  got.clear();
  EXPECT_EQ(ReadJobRecords(dir_ + "/none.log", 42, &got, &problems, &err), JobLogStatus::kMissing);
}

TEST_F(JobLogFileTest, ALogWritableByOthersIsRefused) {
  std::string err;
  ASSERT_TRUE(AppendJobRecord(log_, Sample(42, "n001"), &err)) << err;
  ASSERT_EQ(chmod(log_.c_str(), 0666), 0);
  EXPECT_FALSE(AppendJobRecord(log_, Sample(43, "n001"), &err));
  EXPECT_NE(err.find("no write permission for group or others"), std::string::npos) << err;
}

}  // namespace wire_job_log_test
}  // namespace railguard::wire
