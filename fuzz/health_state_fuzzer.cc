// SPDX-License-Identifier: GPL-2.0-or-later
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

// Reads `text` as `file` with `read`; a record that reads must write out (`write`, named
// `writer` in messages) as text that reads back and writes out the same again.
template <typename Record, typename Read, typename Write>
void RoundTrip(const std::string& text, const char* file, const char* noun, const char* writer,
               Read read, Write write) {
  std::string err;
  Record record;
  if (!read(text, file, &record, &err)) {
    RG_FUZZ_CHECK(!err.empty(), std::string("a ") + noun + " refused without a message");
    return;
  }
  const std::string json = write(record);
  Record again;
  RG_FUZZ_CHECK(read(json, "written.json", &again, &err),
                std::string(writer) + "'s text does not read back: " + err + "\n" + json);
  RG_FUZZ_CHECK(write(again) == json,
                std::string("the ") + noun + " writes out otherwise once read back:\n" + json);
}

void FuzzHealthState(const std::string& text) {
  RoundTrip<health::NodeBaseline>(text, "baseline.json", "baseline", "BaselineToJson",
                                  health::BaselineFromJson, health::BaselineToJson);
  RoundTrip<health::RunState>(text, "state.json", "run state", "RunStateToJson",
                              health::RunStateFromJson, health::RunStateToJson);
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzHealthState(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
