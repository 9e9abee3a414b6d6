// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the checks of the SPANK option values (--rail-placement, --rail-max-sus): each input
// is one value as a user types it. Accepted values must mean what they say; refused ones
// must say why.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "plugin/core/job_options.h"

namespace railguard::fuzz {
namespace {

void FuzzJobOptions(std::string_view value) {
  const std::string shown(value);
  PlacementMode mode = PlacementMode::kOff;
  std::string err;
  if (plugin::ParsePlacementOption(value, &mode, &err)) {
    RG_FUZZ_CHECK(value == PlacementModeName(mode), "'" + shown + "' accepted as another mode");
  } else {
    RG_FUZZ_CHECK(!err.empty(), "'" + shown + "' refused without a message");
  }

  int n = 0;
  err.clear();
  if (plugin::ParseMaxSusOption(value, &n, &err)) {
    RG_FUZZ_CHECK(n >= 1 && n <= plugin::kMaxSusOption,
                  "'" + shown + "' accepted as " + std::to_string(n));
    std::string_view digits = value.substr(std::min(value.find_first_not_of('0'), value.size()));
    RG_FUZZ_CHECK(digits == std::to_string(n), "'" + shown + "' read as " + std::to_string(n));
  } else {
    RG_FUZZ_CHECK(!err.empty(), "'" + shown + "' refused without a message");
  }
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzJobOptions(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
