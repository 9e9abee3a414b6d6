// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the reader of railcheck's health JSON in a node's Slurm Extra field
// (wire/extra_json.h): whatever the text, the strict ReadExtra returns one of its three
// answers, keeps within its documented bounds and explains every refusal; what it reads
// writes out (WriteExtra) as Extra that reads back the same; the lenient mode never errs.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz/fuzz_check.h"
#include "wire/extra_json.h"

namespace railguard::fuzz {
namespace {

// `extra`, read from `text`, written back over `text` reads back the same.
void CheckWritesBack(const wire::RailcheckExtra& extra, const std::string& text) {
  const std::optional<std::string> written = wire::WriteExtra(extra, text);
  RG_FUZZ_CHECK(written.has_value(), std::string("WriteExtra refused Extra that reads"));
  // Someone else's numbers are written in nlohmann's form ("1e5" as "100000.0"): near the
  // size limit the text may outgrow it.
  if (written->size() > wire::kMaxExtraBytes) return;
  wire::RailcheckExtra again;
  std::string err;
  RG_FUZZ_CHECK(wire::ReadExtra(*written, wire::ExtraReadMode::kStrict, &again, &err) ==
                    wire::ExtraStatus::kOk,
                "WriteExtra's text does not read back: " + err + "\n" + *written);
  RG_FUZZ_CHECK(again.rails == extra.rails && again.verdict == extra.verdict &&
                    again.failed.size() <= extra.failed.size(),
                "Extra reads back otherwise once written:\n" + *written);
}

void FuzzExtra(const std::string& text) {
  wire::RailcheckExtra extra;
  std::string err;
  switch (wire::ReadExtra(text, wire::ExtraReadMode::kStrict, &extra, &err)) {
    case wire::ExtraStatus::kNone:
      break;
    case wire::ExtraStatus::kError:
      RG_FUZZ_CHECK(!err.empty(), std::string("Extra refused without a message"));
      break;
    case wire::ExtraStatus::kOk:
      RG_FUZZ_CHECK(text.size() <= wire::kMaxExtraBytes,
                    "accepted " + std::to_string(text.size()) + " bytes of Extra");
      RG_FUZZ_CHECK(extra.rails.size() <= wire::kMaxExtraRails,
                    "accepted " + std::to_string(extra.rails.size()) + " rails");
      RG_FUZZ_CHECK(extra.failed.size() <= wire::kMaxExtraFailed,
                    "accepted " + std::to_string(extra.failed.size()) + " failed checks");
      for (wire::RailState s : extra.rails)
        RG_FUZZ_CHECK(s != wire::RailState::kUnknown, std::string("a rail read as unknown"));
      for (const wire::FailedCheck& f : extra.failed)
        RG_FUZZ_CHECK(f.rail >= -1 && !f.check.empty(),
                      "failed check rail " + std::to_string(f.rail) + " '" + f.check + "'");
      RG_FUZZ_CHECK(extra.verdict == "drain" || extra.verdict == "restrict" ||
                        extra.verdict == "warn" || extra.verdict == "ok",
                    "verdict '" + extra.verdict + "'");
      CheckWritesBack(extra, text);
      break;
  }
  wire::RailcheckExtra lenient;
  RG_FUZZ_CHECK(wire::ReadExtra(text, wire::ExtraReadMode::kLenient, &lenient, &err) !=
                    wire::ExtraStatus::kError,
                std::string("the lenient reader refused Extra"));
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzExtra(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
