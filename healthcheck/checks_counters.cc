// SPDX-License-Identifier: GPL-2.0-or-later
// The checks of a rail port's error counters: link.errors (rates against their limits) and
// link.counters (notes on counters that cannot be judged: none, N/A, malformed, missing,
// saturated, reset).
#include <string>
#include <vector>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"

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

// The link.counters notes of one counter's move: saturated, or reset since the last run.
void MoveNotes(const NicFacts& n, const CounterMove& m, std::vector<Finding>* out) {
  if (m.saturated) {
    out->push_back(Make("link.counters", n.rail, Severity::kNote,
                        RailNic(n) + " " + m.key + " is stuck at " + std::to_string(m.value) +
                            ", the maximum of its " + std::to_string(m.bits) +
                            "-bit counter: its increases are invisible until the counters "
                            "are reset",
                        RailNic(n) + " " + m.key + " saturated"));
  }
  if (m.went_backwards) {
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

// link.errors. Reads: health.link_error_limits, health.min_rate_interval_seconds.
void CheckLinkErrors(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  for (const PortMoves& pm : h.ports) {
    const NicFacts* n = check_util::NicOfRail(*in.facts, pm.rail);
    if (!n) continue;
    for (const CounterMove& m : pm.moves) {
      auto limit = cfg.link_error_limits.find(m.key);
      if (limit == cfg.link_error_limits.end()) continue;
      const double lim = static_cast<double>(limit->second);
      if (m.last && !m.went_backwards) {
        const double rate = check_util::PerHour(m.since_last, h.since_last_seconds, cfg);
        if (m.since_last > 0 && rate > lim) {
          out->push_back(Make("link.errors", pm.rail, Severity::kDegraded,
                              RailNic(*n) + " " + m.key +
                                  check_util::RiseOverLimit(m.since_last, h.since_last_seconds,
                                                            "the last run", rate, lim),
                              RailNic(*n) + " " + m.key + " " + Rate(rate) + " > " + Rate(lim)));
          continue;
        }
      }
      if (m.since_baseline && *m.since_baseline > 0) {
        const double rate = check_util::PerHour(*m.since_baseline, h.since_baseline_seconds, cfg);
        if (rate > lim) {
          out->push_back(
              Make("link.errors", pm.rail, Severity::kDegraded,
                   RailNic(*n) + " " + m.key +
                       check_util::RiseOverLimit(*m.since_baseline, h.since_baseline_seconds,
                                                 "the baseline", rate, lim),
                   RailNic(*n) + " " + m.key + " " + Rate(rate) + " > " + Rate(lim)));
        }
      }
    }
  }
}

// link.counters. Reads: health.link_error_limits (which counters should exist); the
// baseline's presence (JudgeInput::baseline, baseline_path).
void CheckLinkCounters(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  if (!in.baseline) {
    out->push_back(Make("link.counters", -1, Severity::kNote,
                        "no baseline at " + in.baseline_path +
                            ": error rates are judged since the last run only (record one "
                            "with `railcheck baseline`)",
                        "no baseline"));
  }
  for (const NicFacts& n : in.facts->nics)
    if (check_util::HasPort(n)) PortCounterNotes(n, *in.config, out);
  for (const PortMoves& pm : h.ports) {
    const NicFacts* n = check_util::NicOfRail(*in.facts, pm.rail);
    if (!n) continue;
    for (const CounterMove& m : pm.moves) MoveNotes(*n, m, out);
  }
}

}  // namespace railguard::health
