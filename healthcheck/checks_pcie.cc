// SPDX-License-Identifier: GPL-2.0-or-later
// The checks of the PCIe paths of rail NICs and GPUs: pcie.speed and pcie.width (each link
// against the slower of its two ends), pcie.gpu_speed (a GPU's own link, which an idle GPU
// trains down to 2.5 GT/s), pcie.aer (fatal and non-fatal AER errors) and
// pcie.aer_correctable, both counted per link: the errors logged at either end of it.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
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

// The speed an idle NVIDIA GPU trains its own link to (2.5 GT/s, PCIe Gen 1, the lowest
// speed there is); under load the GPU trains it back up to its maximum.
constexpr double kIdleGpuLinkGts = 2.5;

// Which findings of a link attribute one check call makes.
enum class LinkScope {
  kEvery,         // pcie.width: every link
  kNotGpuSpeed,   // pcie.speed: every link, but a GPU's own link only when unreadable or down
  kGpuLinkInUse,  // pcie.gpu_speed: a GPU's own link below its maximum, above the idle speed
};

// The two ends of each present GPU's own link: the GPU (first on its path) and the port
// above it (second).
std::set<std::string> GpuLinkEnds(const NodeFacts& f) {
  std::set<std::string> ends;
  for (const GpuFacts& g : f.gpus) {
    if (!g.present) continue;
    for (size_t i = 0; i < g.pci_path.size() && i < 2; ++i) ends.insert(g.pci_path[i]);
  }
  return ends;
}

// A PCIe link attribute check (speed or width: `cur` and `max` are the PciDevice fields): a
// device's current value against the smallest maximum of itself and its neighbours on the
// path (a link trains to its slower end). A device whose child on the path already reported
// the same current value is the other end of that same link and is not reported again.
// `scope` says which devices and findings this check makes (LinkScope).
template <typename T, typename Fmt, typename Short>
void CheckPcieLink(const JudgeInput& in, const CounterMoves& h, const std::string& check,
                   const char* attr, Fact<T> PciDevice::*cur_of, Fact<T> PciDevice::*max_of,
                   Fmt fmt, Short brief, LinkScope scope, std::vector<Finding>* out) {
  const NodeFacts& f = *in.facts;
  const std::set<std::string> gpu_ends =
      scope == LinkScope::kEvery ? std::set<std::string>() : GpuLinkEnds(f);
  const bool gpu_check = scope == LinkScope::kGpuLinkInUse;
  std::map<std::string, double> reported;  // bdf -> current value it was reported with
  for (const JudgedDevice& d : h.devices) {
    const PciDevice* dev = Device(f, d.bdf);
    if (!dev || !dev->has_link) continue;
    const bool gpu_link = gpu_ends.count(d.bdf) > 0;
    if (gpu_check && !gpu_link) continue;
    const Fact<T>& cur_fact = dev->*cur_of;
    if (!cur_fact.ok()) {
      if (gpu_check) continue;  // pcie.speed reports it
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
      if (gpu_check) continue;  // pcie.speed reports a GPU's link down
      out->push_back(Make(check, d.rail, Severity::kDown,
                          d.label + " link down (" + attr + " " + DownText(cur_fact) +
                              "); expected " + fmt(*expected),
                          d.short_label + " PCIe link down"));
      reported[d.bdf] = 0;
      continue;
    }
    if (*cur + 1e-9 >= *expected) continue;
    // A GPU's own link below its maximum: at the idle speed, the GPU saving power (not a
    // fault); above it, the GPU in use and its link short of full speed (pcie.gpu_speed).
    if (gpu_link && (!gpu_check || *cur <= kIdleGpuLinkGts + 1e-9)) continue;
    if (d.index > 0) {
      auto child = reported.find(d.path[d.index - 1]);
      if (child != reported.end() && std::fabs(child->second - *cur) < 1e-9) continue;
    }
    reported[d.bdf] = *cur;
    const std::string in_use = gpu_check ? ", above the " + fmt(kIdleGpuLinkGts) +
                                               " of an idle GPU: in use, not at full speed"
                                         : "";
    out->push_back(Make(check, d.rail, Severity::kDegraded,
                        d.label + " at " + fmt(*cur) + " < expected " + fmt(*expected) + in_use,
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

// What the function at place `i` of a path (endpoint first, root port last) is. On such a
// path places 0-1, 2-3, ... are the two ends of one link: an endpoint and a switch's upstream
// port have their link above them, a switch's downstream port and a root port below them.
std::string Role(const JudgedDevice& d, size_t i) {
  if (i == 0) return d.short_label.substr(d.short_label.rfind(' ') + 1);  // "mlx5_5", "gpu3"
  if (i % 2 == 0) return "switch upstream port";
  return i + 1 == d.path.size() ? "root port" : "switch downstream port";
}

// One PCIe link of a judged path, with the judged functions at its ends.
struct AerLink {
  const JudgedDevice* first = nullptr;  // the first end judged: its rail is the link's
  std::vector<const JudgedDevice*> ends;
  std::string
      label;  // "rail3 mlx5_5 link 0000:5e:00.0 (mlx5_5) - 0000:5d:00.0 (switch downstream port)"
};

// The links of the judged devices, in the order of their first end.
std::vector<AerLink> AerLinks(const CounterMoves& h) {
  std::vector<AerLink> links;
  std::map<std::string, size_t> by_lower;  // the lower end's BDF -> its link
  for (const JudgedDevice& d : h.devices) {
    const size_t lo = d.index - d.index % 2;
    auto it = by_lower.find(d.path[lo]);
    if (it != by_lower.end()) {
      links[it->second].ends.push_back(&d);
      continue;
    }
    AerLink l;
    l.first = &d;
    l.ends.push_back(&d);
    l.label = d.short_label + " link " + d.path[lo] + " (" + Role(d, lo) + ")";
    if (lo + 1 < d.path.size()) l.label += " - " + d.path[lo + 1] + " (" + Role(d, lo + 1) + ")";
    by_lower[d.path[lo]] = links.size();
    links.push_back(std::move(l));
  }
  return links;
}

// The move of `kind` of one end of a link, with the end.
struct EndMove {
  const JudgedDevice* end = nullptr;
  const AerMove* move = nullptr;
};

// " (0000:5d:00.0 BadTLP 40; 0000:5e:00.0 RxErr 60)": the error types of each end, or "".
std::string LinkBreakdown(const JudgeInput& in, const std::vector<EndMove>& moves,
                          const std::string& kind) {
  std::string out;
  for (const EndMove& e : moves) {
    const PciDevice* dev = Device(*in.facts, e.end->bdf);
    const std::string b = dev ? AerBreakdown(check_util::AerFileOf(*dev, kind)) : "";
    if (!b.empty()) out += (out.empty() ? "" : "; ") + e.end->bdf + " " + b;
  }
  return out.empty() ? "" : " (" + out + ")";
}

// Fatal AER totals of a link's ends above the baseline (or above 0 without one). Sticky: a
// fatal error stays a fault until the counters reset (reboot) or a new baseline accepts it.
void JudgeFatal(const JudgeInput& in, const AerLink& l, const std::vector<EndMove>& moves,
                std::vector<Finding>* out) {
  uint64_t value = 0, ref = 0;
  bool above = false, all_baselined = true;
  for (const EndMove& e : moves) {
    const uint64_t r = e.move->at_baseline.value_or(0);
    value += e.move->value;
    ref += r;
    above = above || e.move->value > r;
    // An end that counted nothing needs no baseline to be judged.
    if (e.move->value > 0) all_baselined = all_baselined && e.move->at_baseline.has_value();
  }
  if (!above) return;
  const std::string against =
      all_baselined ? " > " + std::to_string(ref) + " at the baseline"
                    : " > " + std::to_string(ref) + " (no baseline: counted since boot)";
  out->push_back(Make("pcie.aer", l.first->rail, Severity::kDown,
                      l.label + ": fatal AER errors " + std::to_string(value) + against +
                          LinkBreakdown(in, moves, "fatal"),
                      l.first->short_label + " PCIe fatal AER error"));
}

// The correctable or non-fatal AER errors of a link's ends together, as a rate against its
// limit over one of the rate windows (rate_window.h): one error ages out instead of
// counting since the baseline forever.
void JudgeAerRate(const JudgeInput& in, const AerLink& l,
                  const std::string& kind, const std::vector<EndMove>& moves,
                  std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  const bool corr = kind == "correctable";
  const std::string check = corr ? "pcie.aer_correctable" : "pcie.aer";
  const std::string name = corr ? "correctable" : "non-fatal";
  const double lim =
      static_cast<double>(corr ? cfg.aer_correctable_per_hour : cfg.aer_nonfatal_per_hour);
  RateHistory both;  // the increases of both ends, oldest first
  for (const EndMove& e : moves)
    both.insert(both.end(), e.move->recent.begin(), e.move->recent.end());
  std::sort(both.begin(), both.end(),
            [](const RateSample& a, const RateSample& b) { return a.to < b.to; });
  const std::optional<WindowRise> w = OverLimit(both, in.now, lim, cfg);
  if (!w) return;
  out->push_back(Make(check, l.first->rail, Severity::kDegraded,
                      l.label + ": " + name + " AER errors" + WindowRiseText(*w, lim) +
                          LinkBreakdown(in, moves, kind),
                      l.first->short_label + " PCIe " + name + " AER " + Rate(w->per_hour)));
}

// pcie.aer (kinds nonfatal and fatal) or pcie.aer_correctable (kind correctable): unreadable
// aer_dev_* files, then each link's moves of each kind, both ends together.
void JudgeAer(const JudgeInput& in, const CounterMoves& h, bool correctable,
              std::vector<Finding>* out) {
  const std::vector<std::string> kinds = correctable
                                             ? std::vector<std::string>{"correctable"}
                                             : std::vector<std::string>{"nonfatal", "fatal"};
  const std::string check = correctable ? "pcie.aer_correctable" : "pcie.aer";
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
  }
  for (const AerLink& l : AerLinks(h)) {
    for (const std::string& kind : kinds) {
      std::vector<EndMove> moves;
      for (const JudgedDevice* e : l.ends) {
        auto it = h.aer.find(e->bdf);
        if (it == h.aer.end()) continue;
        for (const AerMove& m : it->second)
          if (m.kind == kind) moves.push_back(EndMove{e, &m});
      }
      if (moves.empty()) continue;
      if (kind == "fatal") {
        JudgeFatal(in, l, moves, out);
      } else {
        JudgeAerRate(in, l, kind, moves, out);
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
      [](double v) { return FormatNumber(v) + " GT/s"; }, LinkScope::kNotGpuSpeed, out);
}

// pcie.gpu_speed. Reads: no health.* (a GPU's own link: current_link_speed of the GPU and of
// the port above it, against max_link_speed, above the idle 2.5 GT/s).
void CheckPcieGpuSpeed(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  CheckPcieLink(
      in, h, "pcie.gpu_speed", "current_link_speed", &PciDevice::cur_speed, &PciDevice::max_speed,
      [](double v) { return FormatPcieSpeed(v); },
      [](double v) { return FormatNumber(v) + " GT/s"; }, LinkScope::kGpuLinkInUse, out);
}

// pcie.width. Reads: no health.* (current_link_width against max_link_width on the path).
void CheckPcieWidth(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  auto x = [](double v) { return "x" + FormatNumber(v); };
  CheckPcieLink(in, h, "pcie.width", "current_link_width", &PciDevice::cur_width,
                &PciDevice::max_width, x, x, LinkScope::kEvery, out);
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
