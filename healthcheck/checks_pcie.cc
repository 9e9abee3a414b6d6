// SPDX-License-Identifier: GPL-2.0-or-later
// The checks of the PCIe paths of rail NICs and GPUs: pcie.speed and pcie.width (each link
// against the slower of its two ends), pcie.aer (fatal and non-fatal AER errors) and
// pcie.aer_correctable.
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"
#include "healthcheck/parse.h"
#include "healthcheck/rate_window.h"

namespace railguard::health {
namespace {

using check_util::Device;
using check_util::Make;
using check_util::Rate;

// A link attribute as a number, nullopt when it says the link is down (speed "Unknown",
// width 0); and the text a down link is reported with.
std::optional<double> ValueOf(const PcieSpeedValue& v) {
  return v.unknown ? std::nullopt : std::optional<double>(v.gts);
}
std::optional<double> ValueOf(int width) {
  return width == 0 ? std::nullopt : std::optional<double>(width);
}
std::string DownText(const Fact<PcieSpeedValue>& f) { return f.raw; }
std::string DownText(const Fact<int>&) { return "0"; }

// A PCIe link attribute check (speed or width: `cur` and `max` are the PciDevice fields): a
// device's current value against the smallest maximum of itself and its neighbours on the
// path (a link trains to its slower end). A device whose child on the path already reported
// the same current value is the other end of that same link and is not reported again.
template <typename T, typename Fmt, typename Short>
void CheckPcieLink(const JudgeInput& in, const CounterMoves& h, const std::string& check,
                   const char* attr, Fact<T> PciDevice::*cur_of, Fact<T> PciDevice::*max_of,
                   Fmt fmt, Short brief, std::vector<Finding>* out) {
  const NodeFacts& f = *in.facts;
  std::map<std::string, double> reported;  // bdf -> current value it was reported with
  for (const JudgedDevice& d : h.devices) {
    const PciDevice* dev = Device(f, d.bdf);
    if (!dev || !dev->has_link) continue;
    const Fact<T>& cur_fact = dev->*cur_of;
    if (!cur_fact.ok()) {
      out->push_back(Make(check, d.rail, Severity::kDegraded, d.label + " " + cur_fact.error,
                          d.short_label + " PCIe " + attr + " unreadable"));
      continue;
    }
    const std::optional<double> cur = ValueOf(*cur_fact.value);
    std::optional<double> expected;
    auto consider = [&](const std::string& bdf) {
      const PciDevice* n = Device(f, bdf);
      if (!n || !n->has_link || !(n->*max_of).ok()) return;
      if (std::optional<double> m = ValueOf(*(n->*max_of).value);
          m && (!expected || *m < *expected))
        expected = m;
    };
    consider(d.bdf);
    if (d.index > 0) consider(d.path[d.index - 1]);
    if (d.index + 1 < d.path.size()) consider(d.path[d.index + 1]);
    if (!expected) continue;
    if (!cur) {
      out->push_back(Make(check, d.rail, Severity::kDown,
                          d.label + " link down (" + attr + " " + DownText(cur_fact) +
                              "); expected " + fmt(*expected),
                          d.short_label + " PCIe link down"));
      reported[d.bdf] = 0;
      continue;
    }
    if (*cur + 1e-9 >= *expected) continue;
    if (d.index > 0) {
      auto child = reported.find(d.path[d.index - 1]);
      if (child != reported.end() && std::fabs(child->second - *cur) < 1e-9) continue;
    }
    reported[d.bdf] = *cur;
    out->push_back(Make(check, d.rail, Severity::kDegraded,
                        d.label + " at " + fmt(*cur) + " < expected " + fmt(*expected),
                        d.short_label + " PCIe " + brief(*cur) + " < " + brief(*expected)));
  }
}

// "MalfTLP 1, BadTLP 2": the error types of an aer_dev_* file that are not zero.
std::string AerBreakdown(const AerFact& a) {
  std::string out;
  if (!a.value.ok()) return out;
  for (const auto& kv : a.value.value->counts) {
    if (kv.second == 0) continue;
    out += (out.empty() ? "" : ", ") + kv.first + " " + std::to_string(kv.second);
  }
  return out;
}

// A fatal AER total above the baseline (or above 0 without one). Sticky: a fatal error stays
// a fault until the counters reset (reboot) or a new baseline accepts it.
void JudgeFatal(const JudgedDevice& d, const AerMove& m, const std::string& why,
                std::vector<Finding>* out) {
  const uint64_t ref = m.at_baseline.value_or(0);
  if (m.value <= ref) return;
  const std::string against = m.at_baseline ? " > " + std::to_string(ref) + " at the baseline"
                                            : " > 0 (no baseline: counted since boot)";
  out->push_back(Make("pcie.aer", d.rail, Severity::kDown,
                      d.label + " fatal AER errors " + std::to_string(m.value) + against + why,
                      d.short_label + " PCIe fatal AER error"));
}

// A correctable or non-fatal AER rate above its limit over one of the rate windows
// (rate_window.h): one error ages out instead of counting since the baseline forever.
void JudgeAerRate(const JudgeInput& in, const CounterMoves& /*h*/, const JudgedDevice& d,
                  const AerMove& m, const std::string& why, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  const bool corr = m.kind == "correctable";
  const std::string check = corr ? "pcie.aer_correctable" : "pcie.aer";
  const std::string name = corr ? "correctable" : "non-fatal";
  const double lim =
      static_cast<double>(corr ? cfg.aer_correctable_per_hour : cfg.aer_nonfatal_per_hour);
  const std::optional<WindowRise> w = OverLimit(m.recent, in.now, lim, cfg);
  if (!w) return;
  out->push_back(Make(check, d.rail, Severity::kDegraded,
                      d.label + " " + name + " AER errors" + WindowRiseText(*w, lim) + why,
                      d.short_label + " PCIe " + name + " AER " + Rate(w->per_hour)));
}

// pcie.aer (kinds nonfatal and fatal) or pcie.aer_correctable (kind correctable): unreadable
// aer_dev_* files, then each kind's move.
void JudgeAer(const JudgeInput& in, const CounterMoves& h, bool correctable,
              std::vector<Finding>* out) {
  const std::vector<std::string> kinds = correctable
                                             ? std::vector<std::string>{"correctable"}
                                             : std::vector<std::string>{"nonfatal", "fatal"};
  const std::string check = correctable ? "pcie.aer_correctable" : "pcie.aer";
  auto wanted = [&](const std::string& kind) { return (kind == "correctable") == correctable; };
  for (const JudgedDevice& d : h.devices) {
    const PciDevice* dev = Device(*in.facts, d.bdf);
    if (!dev) continue;
    for (const std::string& kind : kinds) {
      const AerFact& a = check_util::AerFileOf(*dev, kind);
      if (a.present && !a.value.ok()) {
        out->push_back(Make(check, d.rail, Severity::kDegraded, d.label + " " + a.value.error,
                            d.short_label + " AER unreadable"));
      }
    }
    auto moves = h.aer.find(d.bdf);
    if (moves == h.aer.end()) continue;
    for (const AerMove& m : moves->second) {
      if (!wanted(m.kind)) continue;
      const std::string breakdown = AerBreakdown(check_util::AerFileOf(*dev, m.kind));
      const std::string why = breakdown.empty() ? "" : " (" + breakdown + ")";
      if (m.kind == "fatal") {
        JudgeFatal(d, m, why, out);
      } else {
        JudgeAerRate(in, h, d, m, why, out);
      }
    }
  }
}

}  // namespace

// pcie.speed. Reads: no health.* (current_link_speed against max_link_speed on the path).
void CheckPcieSpeed(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  CheckPcieLink(
      in, h, "pcie.speed", "current_link_speed", &PciDevice::cur_speed, &PciDevice::max_speed,
      [](double v) { return FormatPcieSpeed(v); },
      [](double v) { return FormatNumber(v) + " GT/s"; }, out);
}

// pcie.width. Reads: no health.* (current_link_width against max_link_width on the path).
void CheckPcieWidth(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  auto x = [](double v) { return "x" + FormatNumber(v); };
  CheckPcieLink(in, h, "pcie.width", "current_link_width", &PciDevice::cur_width,
                &PciDevice::max_width, x, x, out);
}

// pcie.aer. Reads: health.aer_limits.nonfatal_per_hour, health.min_rate_interval_seconds;
// the baseline's fatal totals.
void CheckPcieAer(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  JudgeAer(in, h, false, out);
}

// pcie.aer_correctable. Reads: health.aer_limits.correctable_per_hour,
// health.min_rate_interval_seconds.
void CheckPcieAerCorrectable(const JudgeInput& in, const CounterMoves& h,
                             std::vector<Finding>* out) {
  JudgeAer(in, h, true, out);
}

}  // namespace railguard::health
