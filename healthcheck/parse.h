// SPDX-License-Identifier: GPL-2.0-or-later
// Parsers for the value formats of the sysfs files railcheck reads (InfiniBand ports, PCIe
// links, AER counters), each with the expected form spelled out for error messages.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace railguard::health {

// ports/N/state ("4: ACTIVE") and ports/N/phys_state ("5: LinkUp"): the number and name.
struct PortStateValue {
  int code = 0;
  std::string name;
};

// ports/N/rate: "400 Gb/sec (4X NDR)", "800 Gb/sec (4X XDR)", "25 Gb/sec (1X EDR)", "2.5 Gb/sec
// (1X SDR)"; old kernels leave the speed out for SDR ("(4X)"). Widths 1X, 2X, 4X, 8X, 12X;
// speeds SDR DDR QDR FDR10 FDR EDR HDR NDR XDR (drivers/infiniband/core/sysfs.c, rate_show).
struct RateValue {
  double gbps = 0;    // 400; 2.5 for 1X SDR
  int width = 0;      // lanes: 4 for "4X"
  std::string speed;  // "NDR", or "" when the kernel printed none
};

// current_link_speed / max_link_speed: "32.0 GT/s PCIe", older "8 GT/s", or "Unknown" (link
// down or not reported).
struct PcieSpeedValue {
  double gts = 0;        // 0 when unknown
  bool unknown = false;  // the kernel printed "Unknown"
};

// aer_dev_correctable / aer_dev_nonfatal / aer_dev_fatal: one "Name count" per line and a
// TOTAL_ERR_* line.
struct AerValue {
  std::map<std::string, uint64_t> counts;  // every line but the total
  uint64_t total = 0;                      // TOTAL_ERR_* line, else the sum of the others
};

// Each parser takes the file's whole text (a trailing newline is fine). On failure it
// returns false and sets `*expected` to the form it wanted, e.g. `"N: NAME" such as
// "4: ACTIVE"`; callers add the path and the text they got.
bool ParsePortState(const std::string& text, PortStateValue* out, std::string* expected);
// ParseRate also refuses a width the kernel cannot print and a rate that is not width x the
// lane rate of a known speed (an unknown upper-case speed name is taken with its rate as is).
bool ParseRate(const std::string& text, RateValue* out, std::string* expected);
// True for the lane counts of an InfiniBand port: 1, 2, 4, 8, 12.
bool IsIbWidth(int lanes);
// The per-lane rate the kernel's rate file uses for `speed` ("SDR" 2.5 ... "XDR" 200), 0 for
// a name it does not know.
double IbLaneGbps(const std::string& speed);
bool ParsePcieSpeed(const std::string& text, PcieSpeedValue* out, std::string* expected);
bool ParsePcieWidth(const std::string& text, int* out, std::string* expected);
bool ParseAer(const std::string& text, AerValue* out, std::string* expected);
// "0x10de" (vendor, device) and "0x030200" (class).
bool ParseHexId(const std::string& text, uint32_t* out, std::string* expected);

// A port counter file: a decimal count, or "N/A (no PMA)" for a device without a
// performance management agent (*no_pma set, returns true).
bool ParseCounter(const std::string& text, uint64_t* out, bool* no_pma, std::string* expected);

// class/net/<if>/operstate (net/core/net-sysfs.c operstate_show, RFC 2863 names): "unknown",
// "notpresent", "down", "lowerlayerdown", "testing", "dormant" or "up".
bool ParseOperstate(const std::string& text, std::string* out, std::string* expected);
// class/net/<if>/speed (speed_show, "%d"): Mb/s such as "400000", or "-1" (SPEED_UNKNOWN).
bool ParseNetSpeed(const std::string& text, long long* out, std::string* expected);
// class/net/<if>/carrier_changes and other plain counts: decimal digits.
bool ParseCount(const std::string& text, uint64_t* out, std::string* expected);

// The text without its trailing newline(s), for messages.
std::string Trimmed(const std::string& text);

// `text` made safe to print on one line: control and non-ASCII bytes become '?', and at
// most `max` characters are kept ("..." marks a cut).
std::string Printable(const std::string& text, size_t max = 60);

// The width in bits of an InfiniBand PortCounters counter, for saturation: PMA counters
// stop at their maximum instead of wrapping. 0 when unknown (data and packet counters may
// come from 64-bit extended counters).
int CounterBits(const std::string& counter);

// "400", "2.5", "16.0": rates and speeds as sysfs and messages print them.
std::string FormatNumber(double v, int decimals_if_fraction = 1);

// "32.0 GT/s": a PCIe speed as the kernel prints it (without the " PCIe" suffix).
std::string FormatPcieSpeed(double gts);

}  // namespace railguard::health
