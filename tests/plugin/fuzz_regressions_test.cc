// SPDX-License-Identifier: GPL-2.0-or-later
// Regression tests for what the fuzzers in fuzz/ found in plugin/core/: each input is the one
// the fuzzer reported, with the behaviour now expected. The overflow is visible as such only
// under UBSan (scripts/sanitize.sh); the plain build checks the result.
#include <gtest/gtest.h>

#include <string>

#include "plugin/core/job_options.h"
#include "plugin/core/placement.h"

namespace railguard::plugin {
namespace plugin_fuzz_regressions_test {

// fuzz_job_options: a --rail-max-sus value of 19 or more digits overflowed a signed long
// while it was read (undefined behaviour), although the value was refused afterwards.
TEST(JobOptionsFuzzRegression, AMaxSusValueTooLongForALongIsRefusedWithoutOverflow) {
  int n = 7;
  std::string err;
  EXPECT_FALSE(ParseMaxSusOption("99999099999990999999", &n, &err));
  EXPECT_EQ(err,
            "invalid --rail-max-sus value '99999099999990999999'; expected a whole number from 1 "
            "to 4096");
  EXPECT_EQ(n, 7);
  EXPECT_FALSE(ParseMaxSusOption(std::string(4096, '9'), &n, &err));
  EXPECT_TRUE(ParseMaxSusOption("000004096", &n, &err));
  EXPECT_EQ(n, 4096);
}

// fuzz_placement: the same value reached slurmctld through the job's SPANK environment.
TEST(JobOptionsFuzzRegression, AJobWithAnOverlongMaxSusIsRefusedAtSubmission) {
  JobFacts job;
  job.min_nodes = 12;
  job.spank_env.push_back("SPANK_RAIL_MAX_SUS=22222222220255555555");
  const Decision d = DecidePlacement(job, PlacementConfig(), Fabric{{8, 8, 8, 8}, 8});
  EXPECT_EQ(d.refuse, Decision::kBadOption);
  EXPECT_EQ(d.message,
            "railguard: invalid --rail-max-sus value '22222222220255555555'; expected a whole "
            "number from 1 to 4096");
}

}  // namespace plugin_fuzz_regressions_test
}  // namespace railguard::plugin
