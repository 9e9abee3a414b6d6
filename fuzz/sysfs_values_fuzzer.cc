// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the parsers of the sysfs values railcheck reads (healthcheck/parse.h): every parser
// gets the same text, as if any sysfs file held it. A value that parses must be in range; one
// that does not must say what form was expected; the message helpers must stay printable.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "healthcheck/parse.h"

namespace railguard::fuzz {
namespace {

void CheckExpected(bool ok, const std::string& expected, const char* parser) {
  RG_FUZZ_CHECK(ok || !expected.empty(), std::string(parser) + " failed without a form");
}

void FuzzSysfsValues(const std::string& text) {
  const std::string shown = health::Printable(text, 60);
  RG_FUZZ_CHECK(shown.size() <= 63, "Printable kept " + std::to_string(shown.size()) + " bytes");
  for (unsigned char c : shown)
    RG_FUZZ_CHECK(c >= 0x20 && c < 0x7f, "Printable kept byte " + std::to_string(c));
  const std::string trimmed = health::Trimmed(text);
  RG_FUZZ_CHECK(text.compare(0, trimmed.size(), trimmed) == 0, std::string("Trimmed"));

  std::string expected;
  health::PortStateValue state;
  bool ok = health::ParsePortState(text, &state, &expected);
  CheckExpected(ok, expected, "ParsePortState");
  if (ok)
    RG_FUZZ_CHECK(state.code >= 0 && state.code <= 255 && !state.name.empty(), "state " + shown);

  health::RateValue rate;
  ok = health::ParseRate(text, &rate, &expected);
  CheckExpected(ok, expected, "ParseRate");
  if (ok) {
    RG_FUZZ_CHECK(rate.gbps >= 0 && health::IsIbWidth(rate.width), "rate " + shown);
    health::FormatNumber(rate.gbps);
  }

  health::PcieSpeedValue speed;
  ok = health::ParsePcieSpeed(text, &speed, &expected);
  CheckExpected(ok, expected, "ParsePcieSpeed");
  if (ok) {
    RG_FUZZ_CHECK(speed.unknown ? speed.gts == 0 : speed.gts > 0, "speed " + shown);
    health::FormatPcieSpeed(speed.gts);
  }

  int width = -1;
  ok = health::ParsePcieWidth(text, &width, &expected);
  CheckExpected(ok, expected, "ParsePcieWidth");
  if (ok) RG_FUZZ_CHECK(width >= 0 && width <= 64, "width " + shown);

  health::AerValue aer;
  ok = health::ParseAer(text, &aer, &expected);
  CheckExpected(ok, expected, "ParseAer");
  if (ok && text.find("TOTAL_ERR_") == std::string::npos) {
    // Without a total line the total is the sum of the counts, which cannot be below any.
    for (const auto& [name, count] : aer.counts)
      RG_FUZZ_CHECK(aer.total >= count, "AER total " + std::to_string(aer.total) + " below " +
                                            name + " " + std::to_string(count));
  }

  uint32_t id = 0;
  ok = health::ParseHexId(text, &id, &expected);
  CheckExpected(ok, expected, "ParseHexId");

  uint64_t counter = 0;
  bool no_pma = false;
  ok = health::ParseCounter(text, &counter, &no_pma, &expected);
  CheckExpected(ok, expected, "ParseCounter");
  if (ok && no_pma) RG_FUZZ_CHECK(counter == 0, "N/A counter read as " + std::to_string(counter));
  health::CounterBits(trimmed);

  std::string operstate;
  ok = health::ParseOperstate(text, &operstate, &expected);
  CheckExpected(ok, expected, "ParseOperstate");
  if (ok) RG_FUZZ_CHECK(!operstate.empty(), "operstate " + shown);

  long long mbps = 0;
  ok = health::ParseNetSpeed(text, &mbps, &expected);
  CheckExpected(ok, expected, "ParseNetSpeed");
  if (ok) RG_FUZZ_CHECK(mbps >= -1 && mbps <= 10000000, "net speed " + shown);

  uint64_t count = 0;
  ok = health::ParseCount(text, &count, &expected);
  CheckExpected(ok, expected, "ParseCount");
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzSysfsValues(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
