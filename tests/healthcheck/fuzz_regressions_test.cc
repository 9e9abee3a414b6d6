// Regression tests for what the fuzzers in fuzz/ found in healthcheck/: each input is the one
// the fuzzer reported (or its minimal form), with the behaviour now expected.
#include <gtest/gtest.h>

#include <string>

#include "healthcheck/state.h"

namespace railguard::health {
namespace {

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
  Baseline baseline;
  EXPECT_FALSE(BaselineFromJson("{\"time\": -1e400}", "baseline.json", &baseline, &err));
  EXPECT_EQ(err,
            "baseline.json: number overflow parsing '-1e400'; expected the JSON railcheck "
            "writes");
}

}  // namespace
}  // namespace railguard::health
