// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/parse.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "base/numbers.h"
#include "topo/model.h"

namespace railguard::health {
namespace {

// Decimal digits only (no sign, no spaces), fitting in 64 bits.
bool ParseU64(const std::string& s, uint64_t* out) {
  return ParseDigits(s, uint64_t{0}, UINT64_MAX, out, 20);
}

// A non-negative decimal like "400", "2.5" or "16.0" (a point needs digits on both sides).
bool ParseDecimal(const std::string& s, double* out) {
  return railguard::ParseDecimal(s, {false, false, 12}, out);
}

}  // namespace

std::string Trimmed(const std::string& text) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  return text.substr(0, end);
}

std::string Printable(const std::string& text, size_t max) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= max) return out + "...";
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return out;
}

bool ParsePortState(const std::string& text, PortStateValue* out, std::string* expected) {
  *expected = "\"N: NAME\" such as \"4: ACTIVE\" or \"5: LinkUp\"";
  const std::string t = Trimmed(text);
  size_t colon = t.find(": ");
  if (colon == std::string::npos || colon == 0 || colon > 3) return false;
  uint64_t code = 0;
  if (!ParseU64(t.substr(0, colon), &code) || code > 255) return false;
  std::string name = t.substr(colon + 2);
  if (name.empty() || name.find('\n') != std::string::npos) return false;
  for (unsigned char c : name)
    if (c < 0x20 || c >= 0x7f) return false;
  out->code = static_cast<int>(code);
  out->name = name;
  return true;
}

bool ParseRate(const std::string& text, RateValue* out, std::string* expected) {
  *expected = "\"RATE Gb/sec (WIDTHX SPEED)\" such as \"400 Gb/sec (4X NDR)\"";
  const std::string strict = *expected + ", WIDTH 1, 2, 4, 8 or 12, RATE = WIDTH x the lane rate "
                             "of SPEED (SDR 2.5 ... XDR 200)";
  const std::string t = Trimmed(text);
  const std::string unit = " Gb/sec (";
  size_t u = t.find(unit);
  if (u == std::string::npos || t.empty() || t.back() != ')') return false;
  double gbps = 0;
  if (!ParseDecimal(t.substr(0, u), &gbps)) return false;
  std::string inner = t.substr(u + unit.size(), t.size() - 1 - (u + unit.size()));
  size_t x = inner.find('X');
  if (x == std::string::npos || x == 0) return false;
  uint64_t width = 0;
  if (!ParseU64(inner.substr(0, x), &width)) return false;
  if (width > 12 || !IsIbWidth(static_cast<int>(width))) {
    *expected = strict;
    return false;
  }
  std::string speed;
  if (x + 1 < inner.size()) {
    if (inner[x + 1] != ' ' || x + 2 >= inner.size()) return false;
    speed = inner.substr(x + 2);
    // The kernel's names are upper case (FDR10 included).
    for (unsigned char c : speed) {
      if (!(std::isupper(c) || std::isdigit(c))) {
        *expected = strict;
        return false;
      }
    }
  }
  // The kernel computes the rate as lanes x lane rate (rate_show); a speed it has no name for
  // would come from a newer kernel, whose rate figure is then taken as it is.
  const double lane = IbLaneGbps(speed.empty() ? "SDR" : speed);
  if (lane > 0 && std::fabs(lane * static_cast<double>(width) - gbps) > 1e-6) {
    *expected = strict;
    return false;
  }
  out->gbps = gbps;
  out->width = static_cast<int>(width);
  out->speed = speed;
  return true;
}

bool IsIbWidth(int lanes) {
  return lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8 || lanes == 12;
}

double IbLaneGbps(const std::string& speed) {
  // drivers/infiniband/core/sysfs.c, rate_show: the per-lane rate of each speed, the figure
  // the rate file multiplies by the width (FDR 14, not 14.0625; EDR 25, not 25.78125).
  return topo::LaneRateGbps(speed);
}

bool ParsePcieSpeed(const std::string& text, PcieSpeedValue* out, std::string* expected) {
  *expected = "\"N GT/s PCIe\" such as \"32.0 GT/s PCIe\", or \"Unknown\"";
  std::string t = Trimmed(text);
  if (t == "Unknown" || t == "Unknown speed") {
    out->gts = 0;
    out->unknown = true;
    return true;
  }
  const std::string suffix = " PCIe";
  if (t.size() > suffix.size() && t.compare(t.size() - suffix.size(), suffix.size(), suffix) == 0)
    t = t.substr(0, t.size() - suffix.size());
  const std::string unit = " GT/s";
  if (t.size() <= unit.size() || t.compare(t.size() - unit.size(), unit.size(), unit) != 0)
    return false;
  double gts = 0;
  if (!ParseDecimal(t.substr(0, t.size() - unit.size()), &gts) || gts <= 0) return false;
  out->gts = gts;
  out->unknown = false;
  return true;
}

bool ParsePcieWidth(const std::string& text, int* out, std::string* expected) {
  *expected = "a lane count such as \"16\"";
  uint64_t v = 0;
  if (!ParseU64(Trimmed(text), &v) || v > 64) return false;
  *out = static_cast<int>(v);
  return true;
}

namespace {

// A name of the kernel's AER files (drivers/pci/pcie/aer.c, aer_stats_dev_attr): a named
// error ("RxErr", "TOTAL_ERR_COR"), or, for an error bit with no name, PREFIX_bit[N]
// ("dev_cor_errs_bit[12]", "dev_fatal_errs_bit[0]", "dev_nonfatal_errs_bit[23]").
bool IsAerCounterName(const std::string& name) {
  std::string_view word = name;
  const size_t open = name.find("_bit[");
  if (open != std::string::npos) {
    const std::string_view index(name.data() + open + 5, name.size() - open - 5);
    if (index.size() < 2 || index.size() > 3 || index.back() != ']') return false;
    for (char c : index.substr(0, index.size() - 1))
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    word = word.substr(0, open);
  }
  if (word.empty()) return false;
  for (unsigned char c : word)
    if (!(std::isalnum(c) || c == '_')) return false;
  return true;
}

}  // namespace

bool ParseAer(const std::string& text, AerValue* out, std::string* expected) {
  *expected = "one \"NAME COUNT\" per line such as \"RxErr 0\", with a TOTAL_ERR_* line";
  AerValue v;
  bool have_total = false;
  uint64_t sum = 0;
  std::istringstream in(text);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    size_t sp = line.find(' ');
    if (sp == std::string::npos || sp == 0) return false;
    const std::string name = line.substr(0, sp);
    uint64_t count = 0;
    if (!ParseU64(line.substr(sp + 1), &count)) return false;
    if (!IsAerCounterName(name)) return false;
    ++lines;
    if (name.rfind("TOTAL_ERR_", 0) == 0) {
      v.total = count;
      have_total = true;
    } else {
      v.counts[name] = count;
      sum = count > UINT64_MAX - sum ? UINT64_MAX : sum + count;  // saturates, as counters do
    }
  }
  if (lines == 0) return false;
  if (!have_total) v.total = sum;
  *out = std::move(v);
  return true;
}

bool ParseHexId(const std::string& text, uint32_t* out, std::string* expected) {
  *expected = "a hexadecimal id such as \"0x10de\"";
  const std::string t = Trimmed(text);
  if (t.size() < 3 || t.size() > 10 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X')) return false;
  for (size_t i = 2; i < t.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(t[i]))) return false;
  *out = static_cast<uint32_t>(std::strtoul(t.c_str() + 2, nullptr, 16));
  return true;
}

bool ParseCounter(const std::string& text, uint64_t* out, bool* no_pma, std::string* expected) {
  *expected = "a decimal count such as \"0\", or \"N/A (no PMA)\"";
  const std::string t = Trimmed(text);
  *no_pma = false;
  if (t == "N/A (no PMA)") {
    *no_pma = true;
    *out = 0;
    return true;
  }
  return ParseU64(t, out);
}

bool ParseOperstate(const std::string& text, std::string* out, std::string* expected) {
  *expected =
      "an RFC 2863 state: up, down, lowerlayerdown, dormant, testing, notpresent or unknown";
  static const char* const kStates[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                        "testing", "dormant",    "up"};
  const std::string t = Trimmed(text);
  for (const char* s : kStates) {
    if (t == s) {
      *out = t;
      return true;
    }
  }
  return false;
}

bool ParseNetSpeed(const std::string& text, long long* out, std::string* expected) {
  *expected = "a speed in Mb/s such as \"400000\", or \"-1\" when unknown";
  const std::string t = Trimmed(text);
  if (t == "-1") {
    *out = -1;
    return true;
  }
  uint64_t v = 0;
  // The kernel prints a u32 with "%d": SPEED_UNKNOWN (0xffffffff) reads -1, nothing else
  // is negative; 10 Tb/s is far beyond any link.
  if (!ParseU64(t, &v) || v > 10000000) return false;
  *out = static_cast<long long>(v);
  return true;
}

bool ParseCount(const std::string& text, uint64_t* out, std::string* expected) {
  *expected = "a decimal count such as \"4\"";
  return ParseU64(Trimmed(text), out);
}

int CounterBits(const std::string& counter) {
  // Widths of the PortCounters attribute (InfiniBand Architecture Specification, vol. 1,
  // PortCounters), as the kernel's sysfs reads them.
  static const std::map<std::string, int> kBits = {
      {"symbol_error", 16},
      {"link_error_recovery", 8},
      {"link_downed", 8},
      {"port_rcv_errors", 16},
      {"port_rcv_remote_physical_errors", 16},
      {"port_rcv_switch_relay_errors", 16},
      {"port_xmit_discards", 16},
      {"port_xmit_constraint_errors", 8},
      {"port_rcv_constraint_errors", 8},
      {"local_link_integrity_errors", 4},
      {"excessive_buffer_overrun_errors", 4},
      {"VL15_dropped", 16},
      {"port_xmit_wait", 32},
  };
  auto it = kBits.find(counter);
  return it == kBits.end() ? 0 : it->second;
}

std::string FormatNumber(double v, int decimals_if_fraction) {
  char buf[64];
  if (std::fabs(v - std::round(v)) < 1e-9) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.*f", decimals_if_fraction, v);
  }
  return buf;
}

std::string FormatPcieSpeed(double gts) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f GT/s", gts);
  return buf;
}

}  // namespace railguard::health
