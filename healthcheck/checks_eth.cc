// SPDX-License-Identifier: GPL-2.0-or-later
// The checks of a RoCE rail's network interface (its port's link_layer is Ethernet):
// eth.present, eth.state, eth.speed, eth.flap, eth.errors, eth.counters; and the record of
// the netdev's counters that the next run compares with (RecordEthState).
//
// The record lives in the run state as a port record of its own, keyed "<nic>/eth" (no NIC
// name holds a '/'): `state` is the operstate, `last.counters` the values of
// carrier_changes, link_down_events_phy and every statistic of health.eth_error_limits,
// `flaps` the times of flaps inside flap_window_seconds. Rates are per run: the increase
// since the last run over the time since it (at least min_rate_interval_seconds).
#include <algorithm>
#include <string>
#include <vector>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"
#include "healthcheck/parse.h"
#include "healthcheck/rate_window.h"

namespace railguard::health {
namespace {

using check_util::Make;
using check_util::RailNic;

constexpr size_t kMaxEthFlapsKept = 100;
// The physical layer's own count of link losses (mlx5 en_stats.c, pport_phy_statistical).
const char* const kLinkDownEvents = "link_down_events_phy";

// A RoCE rail whose netdev was found: "rail0 mlx5_0 enp24s0f0np0".
std::string Who(const NicFacts& n) { return RailNic(n) + " " + n.eth.netdev; }

bool HasNetdev(const NicFacts& n) {
  return check_util::HasPort(n) && n.eth.read && !n.eth.netdev.empty();
}

// The record of the last run for `n`, or nullptr.
const PortRecord* LastRecord(const JudgeInput& in, const NicFacts& n) {
  if (!in.last) return nullptr;
  auto it = in.last->ports.find(EthRecordKey(n.name));
  return it == in.last->ports.end() ? nullptr : &it->second;
}

std::optional<uint64_t> LastValue(const PortRecord* prev, const std::string& key) {
  if (!prev) return std::nullopt;
  auto it = prev->last.counters.find(key);
  if (it == prev->last.counters.end()) return std::nullopt;
  return it->second;
}

// How a netdev's flap indicators moved since the last run.
struct EthFlaps {
  int downs_now = 0;          // link losses seen by this run
  std::string what;           // "carrier_changes 4 -> 6, link_down_events_phy 2 -> 3"
  std::vector<double> flaps;  // flap times inside the window, this run's included
};

EthFlaps FlapsOf(const JudgeInput& in, const NicFacts& n) {
  EthFlaps f;
  const PortRecord* prev = LastRecord(in, n);
  const HealthConfig& cfg = *in.config;
  // The rise of `key` from the last run to `now` (`have`: it was read this run).
  auto rise = [&](const std::string& key, bool have, uint64_t now) -> uint64_t {
    const std::optional<uint64_t> last = LastValue(prev, key);
    if (!have || !last || now <= *last) return 0;  // first run, or reset (eth.counters says)
    f.what += (f.what.empty() ? "" : ", ") + key + " " + std::to_string(*last) + " -> " +
              std::to_string(now);
    return now - *last;
  };
  const EthFacts& e = n.eth;
  // Each loss of carrier is a down and an up: two changes a flap (net-sysfs.c counts both).
  const uint64_t changes = rise("carrier_changes", e.carrier_changes.ok(),
                                e.carrier_changes.ok() ? *e.carrier_changes.value : 0);
  uint64_t downs = (changes + 1) / 2;
  auto phy = e.stats.find(kLinkDownEvents);
  const bool have_phy = phy != e.stats.end();
  downs = std::max(downs, rise(kLinkDownEvents, have_phy, have_phy ? phy->second : 0));
  const std::string state = e.operstate.ok() ? *e.operstate.value : std::string();
  if (prev && prev->state == "up" && state != "up") {
    f.what += (f.what.empty() ? "" : ", ") + std::string("operstate up -> ") +
              (state.empty() ? "?" : state);
    downs = std::max<uint64_t>(downs, 1);
  }
  f.downs_now = static_cast<int>(std::min<uint64_t>(downs, kMaxEthFlapsKept));
  if (prev) {
    for (double t : prev->flaps)
      if (in.now - t < cfg.flap_window_seconds) f.flaps.push_back(t);
  }
  for (int i = 0; i < f.downs_now; ++i) f.flaps.push_back(in.now);
  if (f.flaps.size() > kMaxEthFlapsKept)
    f.flaps.erase(f.flaps.begin(), f.flaps.end() - kMaxEthFlapsKept);
  return f;
}

// The keys the record keeps: the flap indicators and the judged statistics.
std::vector<std::string> RecordedKeys(const HealthConfig& cfg) {
  std::vector<std::string> keys = {"carrier_changes", kLinkDownEvents};
  for (const auto& kv : cfg.eth_error_limits) keys.push_back(kv.first);
  return keys;
}

// The value of `key` now: carrier_changes from class/net, the others from ethtool.
std::optional<uint64_t> ValueNow(const EthFacts& e, const std::string& key) {
  if (key == "carrier_changes")
    return e.carrier_changes.ok() ? std::optional<uint64_t>(*e.carrier_changes.value)
                                  : std::nullopt;
  auto it = e.stats.find(key);
  if (it == e.stats.end()) return std::nullopt;
  return it->second;
}

// The recent increases of statistic `key` of `n` with this run's (rate_window.h), as
// link.errors keeps them for IB counters: the last run's history plus the rise since it (a
// value that went back is a reset: it counts from zero). Empty on a first run.
RateHistory EthHistory(const JudgeInput& in, const NicFacts& n, const std::string& key) {
  RateHistory h;
  const PortRecord* prev = LastRecord(in, n);
  if (!prev || !in.last) return h;
  auto it = prev->recent.find(key);
  if (it != prev->recent.end()) h = it->second;
  const std::optional<uint64_t> now = ValueNow(n.eth, key);
  const std::optional<uint64_t> last = LastValue(prev, key);
  const uint64_t rise = !now || !last ? 0 : *now >= *last ? *now - *last : *now;
  AddIncrease(&h, in.last->time, in.now, rise, *in.config);
  return h;
}

}  // namespace

std::string EthRecordKey(const std::string& nic) { return nic + "/eth"; }

// eth.present. Reads: nothing of health.* (a RoCE port needs its netdev).
void CheckEthPresent(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    if (!check_util::HasPort(n) || !n.eth.read || !n.eth.netdev.empty()) continue;
    out->push_back(Make("eth.present", n.rail, Severity::kDown,
                        RailNic(n) + " RoCE port has " + n.eth.netdev_error,
                        RailNic(n) + " no netdev"));
  }
}

// eth.state. Reads: nothing of health.* (expects operstate "up").
void CheckEthState(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    if (!HasNetdev(n)) continue;
    const Fact<std::string>& s = n.eth.operstate;
    if (!s.ok()) {
      out->push_back(Make("eth.state", n.rail, Severity::kDown, Who(n) + " " + s.error,
                          Who(n) + " operstate unreadable"));
    } else if (*s.value != "up") {
      out->push_back(Make("eth.state", n.rail, Severity::kDown,
                          Who(n) + " operstate " + *s.value + " (expected up)",
                          Who(n) + " " + *s.value));
    }
  }
}

// eth.speed. Reads: the rails' links of the topology (JudgeInput::rail_links).
void CheckEthSpeed(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    // A netdev that is not up has no speed (speed_show fails); eth.state reports it.
    if (!HasNetdev(n) || !n.eth.operstate.ok() || *n.eth.operstate.value != "up") continue;
    if (n.rail >= static_cast<int>(in.rail_links.size())) continue;
    const topo::LinkSpec& want = in.rail_links[n.rail];
    if (want.rate_gbps <= 0) continue;
    const long long want_mbps = static_cast<long long>(want.rate_gbps * 1000 + 0.5);
    const Fact<long long>& sp = n.eth.speed_mbps;
    const std::string expect = std::to_string(want_mbps) + " Mb/s (" + want.ToSysfsRate() + ")";
    if (!sp.ok()) {
      out->push_back(Make("eth.speed", n.rail, Severity::kDegraded,
                          Who(n) + " " + sp.error + "; expected " + expect,
                          Who(n) + " speed unreadable"));
    } else if (*sp.value < 0) {
      out->push_back(Make("eth.speed", n.rail, Severity::kDegraded,
                          Who(n) + " speed -1 (unknown to the driver); expected " + expect,
                          Who(n) + " speed unknown"));
    } else if (*sp.value < want_mbps) {
      out->push_back(Make("eth.speed", n.rail, Severity::kDegraded,
                          Who(n) + " speed " + std::to_string(*sp.value) + " Mb/s < expected " +
                              expect,
                          Who(n) + " speed " + std::to_string(*sp.value / 1000) + " Gb/s < " +
                              FormatNumber(want.rate_gbps) + " Gb/s"));
    }
  }
}

// eth.flap. Reads: health.flap_window_seconds.
void CheckEthFlap(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  const std::string window = FormatDuration(cfg.flap_window_seconds);
  for (const NicFacts& n : in.facts->nics) {
    if (!HasNetdev(n)) continue;
    const EthFlaps f = FlapsOf(in, n);
    if (f.flaps.empty()) continue;
    const std::string count = std::to_string(f.flaps.size());
    std::string detail;
    if (f.downs_now > 0) {
      detail = Who(n) + " link went down since the last run (" + f.what + ")";
      if (cfg.flap_window_seconds > 0) detail += "; " + count + " flap(s) in the last " + window;
      detail += "; expected a stable link";
    } else {
      detail = Who(n) + " " + count + " flap(s) in the last " + window + ", the last " +
               FormatDuration(in.now - f.flaps.back()) + " ago; expected none for " + window;
    }
    out->push_back(Make("eth.flap", n.rail, Severity::kDegraded, detail,
                        Who(n) + " link flapping (" + count + " in " + window + ")"));
  }
}

// eth.errors. Reads: health.eth_error_limits, health.rate_windows_seconds,
// health.min_rate_interval_seconds (through OverLimit, as link.errors).
void CheckEthErrors(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  for (const NicFacts& n : in.facts->nics) {
    if (!HasNetdev(n) || !n.eth.stats_read) continue;
    for (const auto& [key, limit] : cfg.eth_error_limits) {
      const double lim = static_cast<double>(limit);
      const std::optional<WindowRise> w = OverLimit(EthHistory(in, n, key), in.now, lim, cfg);
      if (!w) continue;
      const std::string brief =
          lim > 0 ? check_util::Rate(w->per_hour) + " > " + check_util::Rate(lim)
                  : "+" + std::to_string(w->count);
      out->push_back(Make("eth.errors", n.rail, Severity::kDegraded,
                          Who(n) + " " + key + WindowRiseText(*w, lim),
                          Who(n) + " " + key + " " + brief));
    }
  }
}

// eth.counters. Reads: health.eth_error_limits (which statistics must be there).
void CheckEthCounters(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  for (const NicFacts& n : in.facts->nics) {
    if (!HasNetdev(n)) continue;
    const EthFacts& e = n.eth;
    auto note = [&](const std::string& detail, const std::string& reason) {
      out->push_back(Make("eth.counters", n.rail, Severity::kNote, Who(n) + " " + detail,
                          Who(n) + " " + reason));
    };
    if (!e.carrier_changes.ok())
      note(e.carrier_changes.error + ": flaps cannot be seen", "carrier_changes unreadable");
    if (!e.stats_error.empty()) {
      note(e.stats_error + "; its error counters are not judged", "ethtool unreadable");
    } else if (e.stats_read) {
      for (const auto& kv : cfg.eth_error_limits) {
        if (!e.stats.count(kv.first))
          note(kv.first + " is not among its " + std::to_string(e.stats.size()) +
                   " ethtool statistics; expected the mlx5 physical-layer counters (or remove it "
                   "from health.eth_error_limits)",
               kv.first + " missing");
      }
    }
    const PortRecord* prev = LastRecord(in, n);
    for (const std::string& key : RecordedKeys(cfg)) {
      const std::optional<uint64_t> now = ValueNow(e, key);
      const std::optional<uint64_t> last = LastValue(prev, key);
      if (now && last && *now < *last)
        note(key + " went back from " + std::to_string(*last) + " to " + std::to_string(*now) +
                 " since the last run: reset (reboot or driver reload), counted from zero",
             key + " reset");
    }
  }
}

void RecordEthState(const JudgeInput& in, RunState* next) {
  for (const NicFacts& n : in.facts->nics) {
    // An unfinished gather keeps the last record as it was (`next` starts as a copy of it).
    if (!HasNetdev(n)) continue;
    const PortRecord* prev = LastRecord(in, n);
    PortRecord rec;
    rec.state = n.eth.operstate.ok() ? *n.eth.operstate.value : std::string();
    for (const std::string& key : RecordedKeys(*in.config)) {
      std::optional<uint64_t> v = ValueNow(n.eth, key);
      // Not read this run (an ioctl that failed): keep the last value to compare with.
      if (!v) v = LastValue(prev, key);
      if (v) rec.last.counters[key] = *v;
    }
    for (const auto& kv : in.config->eth_error_limits) {
      RateHistory h = EthHistory(in, n, kv.first);
      if (!h.empty()) rec.recent[kv.first] = std::move(h);
    }
    rec.flaps = FlapsOf(in, n).flaps;
    next->ports[EthRecordKey(n.name)] = std::move(rec);
  }
}

}  // namespace railguard::health
