// SPDX-License-Identifier: GPL-2.0-or-later
// The checks of a rail port's error counters: link.errors (rates over the sliding windows
// against their limits, any increase where the limit is 0, judged counters stuck at their
// maximum) and link.counters (notes on counters that cannot be judged: none, N/A,
// malformed, missing, saturated, reset, a reboot).
#include <string>
#include <vector>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"
#include "healthcheck/rate_window.h"

namespace railguard::health {
namespace {

using check_util::Make;
using check_util::RailNic;
using check_util::Rate;

// The link.counters notes of one port: N/A counters, malformed ones, and counters a limit of
// health.link_error_limits names that the port does not have.
void PortCounterNotes(const NicFacts& n, const HealthConfig& cfg, std::vector<Finding>* out) {
  const PortFacts& p = n.port;
  if (!p.counters_error.empty()) {
    out->push_back(
        Make("link.counters", n.rail, Severity::kNote,
             RailNic(n) + " " + p.counters_error + "; link.errors and link.flap cannot judge it",
             RailNic(n) + " no counters"));
    return;
  }
  int no_pma = 0;
  std::vector<std::string> errors;
  for (const auto& kv : p.counters) {
    if (kv.second.no_pma) ++no_pma;
    if (!kv.second.error.empty()) errors.push_back(kv.second.error);
  }
  for (const auto& kv : p.hw_counters)
    if (!kv.second.error.empty()) errors.push_back(kv.second.error);
  if (no_pma > 0) {
    out->push_back(Make("link.counters", n.rail, Severity::kNote,
                        RailNic(n) + " " + std::to_string(no_pma) + " of " +
                            std::to_string(p.counters.size()) +
                            " counters read 'N/A (no PMA)': the device has no performance "
                            "management agent, so link.errors and link.flap cannot judge them",
                        RailNic(n) + " counters N/A"));
  }
  if (!errors.empty()) {
    std::string more =
        errors.size() > 1 ? " (and " + std::to_string(errors.size() - 1) + " more)" : "";
    out->push_back(Make("link.counters", n.rail, Severity::kNote,
                        RailNic(n) + " " + errors[0] + more, RailNic(n) + " bad counter"));
  }
  std::vector<std::string> lacking;
  for (const auto& kv : cfg.link_error_limits) {
    const bool hw = kv.first.rfind("hw_counters/", 0) == 0;
    const auto& m = hw ? p.hw_counters : p.counters;
    if (!m.count(hw ? kv.first.substr(12) : kv.first)) lacking.push_back(kv.first);
  }
  if (!lacking.empty() && no_pma == 0) {
    std::string list;
    for (size_t i = 0; i < lacking.size() && i < 3; ++i) list += (i ? ", " : "") + lacking[i];
    if (lacking.size() > 3) list += " (and " + std::to_string(lacking.size() - 3) + " more)";
    out->push_back(Make(
        "link.counters", n.rail, Severity::kNote,
        RailNic(n) + " has no counter " + list + " in " + p.dir + "; link.errors cannot judge it",
        RailNic(n) + " lacks counters"));
  }
}

// The link.counters notes of one counter's move: saturated (a counter link.errors does not
// judge; link.errors says it of those it judges), or reset since the last run (a reboot is
// said once for the node).
void MoveNotes(const NicFacts& n, const CounterMove& m, const HealthConfig& cfg,
               std::vector<Finding>* out) {
  if (m.saturated && !cfg.link_error_limits.count(m.key)) {
    out->push_back(Make("link.counters", n.rail, Severity::kNote,
                        RailNic(n) + " " + m.key + " is stuck at " + std::to_string(m.value) +
                            ", the maximum of its " + std::to_string(m.bits) +
                            "-bit counter: its increases are invisible until the counters "
                            "are reset",
                        RailNic(n) + " " + m.key + " saturated"));
  }
  if (m.went_backwards && !m.rebooted) {
    out->push_back(Make("link.counters", n.rail, Severity::kNote,
                        RailNic(n) + " " + m.key + " went backwards (" + std::to_string(*m.last) +
                            " -> " + std::to_string(m.value) +
                            ") since the last run: the counters were reset (driver "
                            "restart, reboot or perfquery -R); counting again from " +
                            std::to_string(m.value),
                        RailNic(n) + " counters reset"));
  }
}

}  // namespace

// link.errors. Reads: health.link_error_limits, health.rate_windows_seconds,
// health.min_rate_interval_seconds (through OverLimit).
void CheckLinkErrors(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  for (const PortMoves& pm : h.ports) {
    const NicFacts* n = check_util::NicOfRail(*in.facts, pm.rail);
    if (!n || check_util::IsRoce(*n)) continue;  // eth.errors judges RoCE rails
    for (const CounterMove& m : pm.moves) {
      auto limit = cfg.link_error_limits.find(m.key);
      if (limit == cfg.link_error_limits.end()) continue;
      const std::string who = RailNic(*n) + " " + m.key;
      if (m.saturated) {
        // Its next errors are invisible: blind until someone clears the counters.
        out->push_back(Make(
            "link.errors", pm.rail, Severity::kDegraded,
            who + " is stuck at " + std::to_string(m.value) + ", the maximum of its " +
                std::to_string(m.bits) +
                "-bit counter: new errors are invisible, so it cannot be judged; read the "
                "port's counters and then clear them (perfquery -x -R -C " +
                n->name + " -P " + std::to_string(n->port.number) + ")",
            who + " saturated, clear counters"));
      }
      const double lim = static_cast<double>(limit->second);
      const std::optional<WindowRise> w = OverLimit(m.recent, in.now, lim, cfg);
      if (!w) continue;
      const std::string brief =
          lim > 0 ? Rate(w->per_hour) + " > " + Rate(lim) : "+" + std::to_string(w->count);
      out->push_back(Make("link.errors", pm.rail, Severity::kDegraded,
                          who + WindowRiseText(*w, lim), who + " " + brief));
    }
  }
}

// link.counters. Reads: health.link_error_limits (which counters should exist); the
// baseline's presence (JudgeInput::baseline, baseline_path).
void CheckLinkCounters(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  if (!in.baseline) {
    out->push_back(Make("link.counters", -1, Severity::kNote,
                        "no baseline at " + in.baseline_path +
                            ": fatal AER errors are counted since boot, none accepted (record "
                            "one with `railcheck baseline`); error rates need none",
                        "no baseline"));
  }
  for (const NicFacts& n : in.facts->nics)
    if (check_util::HasPort(n) && !check_util::IsRoce(n)) PortCounterNotes(n, *in.config, out);
  for (const PortMoves& pm : h.ports) {
    const NicFacts* n = check_util::NicOfRail(*in.facts, pm.rail);
    if (!n || check_util::IsRoce(*n)) continue;  // eth.counters notes RoCE rails
    for (const CounterMove& m : pm.moves) MoveNotes(*n, m, *in.config, out);
  }
  if (!h.boot_change.empty()) {
    out->push_back(Make("link.counters", -1, Severity::kNote,
                        "the node rebooted since the last run (" + h.boot_change +
                            "): every counter and AER total counts from zero again",
                        "rebooted, counters restart"));
  }
  // An empty error: not read (a gather that timed out says so itself).
  const Fact<std::string>& boot = in.facts->boot_id;
  if (!boot.ok() && !boot.error.empty()) {
    out->push_back(Make("link.counters", -1, Severity::kNote,
                        boot.error +
                            "; a reboot is seen only where a counter went backwards "
                            "(health.boot_id_file)",
                        "boot id unreadable"));
  }
}

}  // namespace railguard::health
