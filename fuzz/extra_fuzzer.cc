// Fuzzes the reader of railcheck's health JSON in a node's Slurm Extra field
// (report/extra.h): whatever the text, ParseRailcheckExtra returns one of its three answers,
// keeps within its documented bounds, and explains every refusal.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "report/extra.h"

namespace railguard::fuzz {
namespace {

void FuzzExtra(const std::string& text) {
  report::RailcheckExtra extra;
  std::string err;
  switch (report::ParseRailcheckExtra(text, &extra, &err)) {
    case report::ExtraStatus::kNone:
      break;
    case report::ExtraStatus::kError:
      RG_FUZZ_CHECK(!err.empty(), std::string("Extra refused without a message"));
      break;
    case report::ExtraStatus::kOk:
      RG_FUZZ_CHECK(text.size() <= report::kMaxExtraBytes,
                    "accepted " + std::to_string(text.size()) + " bytes of Extra");
      RG_FUZZ_CHECK(extra.rails.size() <= report::kMaxExtraRails,
                    "accepted " + std::to_string(extra.rails.size()) + " rails");
      RG_FUZZ_CHECK(extra.failed.size() <= report::kMaxExtraFailed,
                    "accepted " + std::to_string(extra.failed.size()) + " failed checks");
      for (report::RailState s : extra.rails)
        RG_FUZZ_CHECK(s != report::RailState::kUnknown, std::string("a rail read as unknown"));
      for (const report::FailedCheck& f : extra.failed)
        RG_FUZZ_CHECK(f.rail >= -1 && !f.check.empty(),
                      "failed check rail " + std::to_string(f.rail) + " '" + f.check + "'");
      RG_FUZZ_CHECK(extra.verdict == "drain" || extra.verdict == "restrict" ||
                        extra.verdict == "warn" || extra.verdict == "ok",
                    "verdict '" + extra.verdict + "'");
      break;
  }
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzExtra(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
