// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for a job's fabric counters on a node (healthcheck/job_counters.h): the record the
// Epilog makes from the Prolog's, the periodic runs' and its own readings, and the job file.
#include "healthcheck/job_counters.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace railguard::health {
namespace healthcheck_job_counters_test {

// A node of `rails` rails whose counters are as given (the same on every rail but rail 3's
// data, which is scaled by `rail3_share`).
NodeFacts Facts(int rails, uint64_t data, uint64_t wait, uint64_t symbol_errors,
                double rail3_share = 1, const std::string& boot = "b1") {
  NodeFacts f;
  f.boot_id.value = boot;
  for (int k = 0; k < rails; ++k) {
    NicFacts n;
    n.rail = k;
    n.name = "mlx5_" + std::to_string(k);
    n.present = true;
    n.port.dir = "/sys/class/infiniband/" + n.name + "/ports/1";
    const uint64_t d = k == 3 ? static_cast<uint64_t>(data * rail3_share) : data;
    n.port.counters["port_xmit_data"].value = d;
    n.port.counters["port_rcv_data"].value = d / 2;
    n.port.counters["port_xmit_wait"].value = wait;
    n.port.counters["symbol_error"].value = k == 3 ? symbol_errors : 0;
    n.port.counters["port_xmit_packets"].value = d / 100;  // not an error counter
    f.nics.push_back(n);
  }
  return f;
}

TEST(JobCounters, TheEpilogRecordsEachRailsIncreaseInOctets) {
  OpenJob j = OpenJobAt(7, "n001", Facts(8, 1000, 10, 5), 100);
  const wire::JobNodeRecord r = CloseJob(j, Facts(8, 251000, 30, 9, 0.5), 200);
  EXPECT_EQ(r.job, 7u);
  EXPECT_EQ(r.node, "n001");
  EXPECT_EQ(r.samples, 2);
  ASSERT_EQ(r.rails.size(), 8u);
  // port_xmit_data counts 4-octet words.
  EXPECT_EQ(r.rails[0].xmit_bytes, 250000u * 4);
  EXPECT_EQ(r.rails[0].rcv_bytes, (125500u - 500u) * 4);
  EXPECT_EQ(r.rails[0].xmit_wait, 20u);
  EXPECT_TRUE(r.rails[0].errors.empty());
  EXPECT_EQ(r.rails[3].xmit_bytes, (125500u - 1000u) * 4);
  ASSERT_EQ(r.rails[3].errors.size(), 1u);
  EXPECT_EQ(r.rails[3].errors[0].first, "symbol_error");
  EXPECT_EQ(r.rails[3].errors[0].second, 4u);
  // Only the Prolog's and the Epilog's readings: no peak shorter than the job.
  EXPECT_EQ(r.rails[0].peak_xmit_bps, 0);
}

TEST(JobCounters, PeriodicReadingsGiveThePeakRate) {
  OpenJob j = OpenJobAt(7, "n001", Facts(2, 0, 0, 0), 0);
  AddReading(Facts(2, 1000, 0, 0), 10, &j);    // 400 B/s
  AddReading(Facts(2, 26000, 0, 0), 20, &j);   // 10,000 B/s
  const wire::JobNodeRecord r = CloseJob(j, Facts(2, 27000, 0, 0), 30);  // 400 B/s
  EXPECT_EQ(r.samples, 4);
  EXPECT_DOUBLE_EQ(r.rails[0].peak_xmit_bps, 10000);
  EXPECT_DOUBLE_EQ(r.rails[0].peak_rcv_bps, 5000);
  EXPECT_EQ(r.rails[0].xmit_bytes, 108000u);
}

TEST(JobCounters, ARebootACounterResetAndAnUnreadRailGiveNoNumbersAndSayWhy) {
  OpenJob j = OpenJobAt(7, "n001", Facts(4, 1000, 0, 0), 0);
  wire::JobNodeRecord r = CloseJob(j, Facts(4, 5000, 0, 0, 1, "b2"), 10);
  for (const wire::JobRail& x : r.rails)
    EXPECT_NE(x.unknown.find("rebooted"), std::string::npos) << x.unknown;

  NodeFacts reset = Facts(4, 5000, 0, 0, 0.1);  // rail 3's data went back below 1000
  r = CloseJob(j, reset, 10);
  EXPECT_TRUE(r.rails[0].known());
  EXPECT_EQ(r.rails[3].unknown, "port_rcv_data went back from 500 to 250 (counters reset "
                                "during the job)");

  NodeFacts late = Facts(4, 5000, 0, 0);
  late.nics[2].complete = false;
  r = CloseJob(j, late, 10);
  EXPECT_EQ(r.rails[2].unknown, "not read at the Epilog: its gather did not finish in time");

  NodeFacts stopped = Facts(4, 0xFFFFFFFFu, 0, 0);
  r = CloseJob(j, stopped, 10);
  EXPECT_NE(r.rails[0].unknown.find("stopped at 2^32-1"), std::string::npos);
}

TEST(JobCounters, TheJobFileReadsBackAndBadOnesNameTheFile) {
  OpenJob j = OpenJobAt(77, "n001", Facts(2, 10, 1, 0), 5);
  j.shared_with = {76};
  AddReading(Facts(2, 50, 2, 0), 15, &j);
  OpenJob back;
  std::string err;
  ASSERT_TRUE(OpenJobFromJson(OpenJobToJson(j), "/x/77.json", &back, &err)) << err;
  EXPECT_EQ(OpenJobToJson(back), OpenJobToJson(j));
  EXPECT_FALSE(OpenJobFromJson("{\"job\":77}", "/x/77.json", &back, &err));
  EXPECT_EQ(err.rfind("/x/77.json: expected a railcheck job file", 0), 0u) << err;
  EXPECT_FALSE(OpenJobFromJson("[1,", "/x/77.json", &back, &err));
  EXPECT_EQ(err.rfind("/x/77.json:1:", 0), 0u) << err;
}

TEST(JobCounters, JobFilesAreSavedListedLoadedAndRemoved) {
  char tmpl[] = "/tmp/job_counters_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::string err;
  ASSERT_TRUE(SaveOpenJob(dir, OpenJobAt(12, "n001", Facts(2, 1, 1, 0), 1), &err)) << err;
  ASSERT_TRUE(SaveOpenJob(dir, OpenJobAt(9, "n001", Facts(2, 1, 1, 0), 1), &err)) << err;
  EXPECT_EQ(ListOpenJobs(dir), (std::vector<uint64_t>{9, 12}));
  OpenJob j;
  ASSERT_TRUE(LoadOpenJob(dir, 12, &j, &err)) << err;
  EXPECT_EQ(j.job, 12u);
  EXPECT_FALSE(LoadOpenJob(dir, 13, &j, &err));
  EXPECT_NE(err.find("13.json: missing"), std::string::npos) << err;
  ASSERT_TRUE(RemoveOpenJob(dir, 12, &err));
  ASSERT_TRUE(RemoveOpenJob(dir, 12, &err));  // gone already: fine
  EXPECT_EQ(ListOpenJobs(dir), std::vector<uint64_t>{9});
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

TEST(JobCounters, JobIdsAreSlurmsUint32) {
  uint64_t id = 0;
  EXPECT_TRUE(ParseJobId("4294967295", &id));
  EXPECT_FALSE(ParseJobId("4294967296", &id));
  EXPECT_FALSE(ParseJobId("0", &id));
  EXPECT_FALSE(ParseJobId("12_3", &id));
  EXPECT_FALSE(ParseJobId("", &id));
}

}  // namespace healthcheck_job_counters_test
}  // namespace railguard::health
