// SPDX-License-Identifier: GPL-2.0-or-later
// Regression tests for what the fuzzers in fuzz/ found in healthcheck/: each input is the one
// the fuzzer reported (or its minimal form), with the behaviour now expected.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "healthcheck/parse.h"
#include "healthcheck/state.h"

namespace railguard::health {
namespace healthcheck_fuzz_regressions_test {

// fuzz_health_state: a number too large for a double ("1e308" with digits appended) made
// nlohmann throw out_of_range, which only parse errors were caught for: railcheck ended in
// std::terminate on such a state file instead of saying how to recover.
TEST(HealthStateFuzzRegression, ANumberBeyondADoubleIsAnErrorNotACrash) {
  RunState state;
  std::string err;
  EXPECT_FALSE(RunStateFromJson("{\"format\": \"railcheck-state\", \"time\": 1700000121e308}",
                                "state.json", &state, &err));
  EXPECT_EQ(err,
            "state.json: number overflow parsing '1700000121e308'; expected the JSON railcheck "
            "writes");
  NodeBaseline baseline;
  EXPECT_FALSE(BaselineFromJson("{\"time\": -1e400}", "baseline.json", &baseline, &err));
  EXPECT_EQ(err,
            "baseline.json: number overflow parsing '-1e400'; expected the JSON railcheck "
            "writes");
}

// fuzz_sysfs_values: an aer_dev_* file without a TOTAL_ERR_* line, whose counts add up past
// 2^64, wrapped to a small total ("4" here): a PCIe path flooded with errors looked clean.
TEST(SysfsValuesFuzzRegression, AnAerSumPast64BitsSaturatesInsteadOfWrapping) {
  AerValue aer;
  std::string expected;
  ASSERT_TRUE(ParseAer("US 0\nP 5\nCmpltTS 0\nO 18446744073709551615\n", &aer, &expected));
  EXPECT_EQ(aer.counts.at("O"), UINT64_MAX);
  EXPECT_EQ(aer.total, UINT64_MAX);
  ASSERT_TRUE(ParseAer("RxErr 2\nBadTLP 3\n", &aer, &expected));
  EXPECT_EQ(aer.total, 5u);
}

}  // namespace healthcheck_fuzz_regressions_test
}  // namespace railguard::health
