// Fuzzes the readers of railcheck's state files (healthcheck/state.h): the text is read as a
// baseline.json and as a state.json. A record that reads must write out as JSON that reads
// back and writes out the same again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "healthcheck/state.h"

namespace railguard::fuzz {
namespace {

void FuzzHealthState(const std::string& text) {
  std::string err;
  health::Baseline baseline;
  if (health::BaselineFromJson(text, "baseline.json", &baseline, &err)) {
    const std::string json = health::BaselineToJson(baseline);
    health::Baseline again;
    RG_FUZZ_CHECK(health::BaselineFromJson(json, "written.json", &again, &err),
                  "BaselineToJson's text does not read back: " + err + "\n" + json);
    RG_FUZZ_CHECK(health::BaselineToJson(again) == json,
                  "the baseline writes out otherwise once read back:\n" + json);
  } else {
    RG_FUZZ_CHECK(!err.empty(), std::string("a baseline refused without a message"));
  }

  err.clear();
  health::RunState state;
  if (health::RunStateFromJson(text, "state.json", &state, &err)) {
    const std::string json = health::RunStateToJson(state);
    health::RunState again;
    RG_FUZZ_CHECK(health::RunStateFromJson(json, "written.json", &again, &err),
                  "RunStateToJson's text does not read back: " + err + "\n" + json);
    RG_FUZZ_CHECK(health::RunStateToJson(again) == json,
                  "the run state writes out otherwise once read back:\n" + json);
  } else {
    RG_FUZZ_CHECK(!err.empty(), std::string("a run state refused without a message"));
  }
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzHealthState(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
