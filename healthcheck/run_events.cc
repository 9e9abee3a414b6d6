// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/run_events.h"

#include <algorithm>

#include "base/names.h"
#include "healthcheck/act.h"
#include "healthcheck/checks.h"
#include "wire/extra_json.h"

namespace railguard::health {

using wire::EventCounter;
using wire::EventKind;
using wire::HealthEvent;

std::vector<wire::HealthEvent> EventsForRun(const SlurmNode& before, const Verdict& verdict,
                                            const Plan& plan, const CounterMoves& moves,
                                            const std::string& feature, double now) {
  std::vector<HealthEvent> out;
  wire::RailcheckExtra published_extra;
  std::string unused;
  wire::ReadExtra(before.extra, wire::ExtraReadMode::kLenient, &published_extra, &unused);
  const std::vector<RailStatus>& published = published_extra.rails;
  for (const RailHealth& r : verdict.rails) {
    const RailStatus was = r.rail >= 0 && static_cast<size_t>(r.rail) < published.size()
                               ? published[r.rail]
                               : RailStatus::kOk;
    const PortMoves* port = nullptr;
    for (const PortMoves& p : moves.ports)
      if (p.rail == r.rail) port = &p;
    HealthEvent e;
    e.time = now;
    e.node = before.name;
    e.rail = r.rail;
    e.nic = r.nic;
    if (r.status != was) {
      e.kind = r.status == RailStatus::kDown       ? EventKind::kDown
               : r.status == RailStatus::kDegraded ? EventKind::kDegraded
                                                   : EventKind::kRecovered;
      for (const Finding& f : verdict.findings) {
        if (f.rail != r.rail || f.severity == Severity::kNote) continue;
        if (std::find(e.checks.begin(), e.checks.end(), f.check) == e.checks.end())
          e.checks.push_back(f.check);
        if (e.detail.empty()) e.detail = f.message;
      }
      if (port) {
        for (const CounterMove& m : port->moves)
          if (m.since_last > 0 && !m.went_backwards)
            e.counters.push_back({m.key, m.value, m.since_last, moves.since_last_seconds});
      }
      out.push_back(e);
    }
    if (port && port->downs_now > 0) {
      HealthEvent f = e;
      f.kind = EventKind::kFlap;
      f.checks = {"link.flap"};
      f.detail = port->link_downed_change.empty() ? port->state_change : port->link_downed_change;
      f.counters.clear();
      for (const CounterMove& m : port->moves)
        if (m.key == "link_downed" && m.since_last > 0)
          f.counters.push_back({m.key, m.value, m.since_last, moves.since_last_seconds});
      out.push_back(f);
    }
  }
  HealthEvent node;
  node.time = now;
  node.node = before.name;
  node.rail = -1;
  for (const Finding& f : verdict.findings)
    if (f.severity != Severity::kNote &&
        std::find(node.checks.begin(), node.checks.end(), f.check) == node.checks.end())
      node.checks.push_back(f.check);
  // A drain, not a reason refreshed on a node already drained.
  if (plan.update.drain_reason && !before.drain) {
    HealthEvent e = node;
    e.kind = EventKind::kDrained;
    e.detail = *plan.update.drain_reason;
    out.push_back(e);
  }
  if (plan.update.resume) {
    HealthEvent e = node;
    e.kind = EventKind::kResumed;
    e.checks.clear();
    e.detail = "resumed after clean runs (was: " + before.reason + ")";
    out.push_back(e);
  }
  const std::string active_before =
      before.features_act.empty() ? before.features : before.features_act;
  const bool had = HasFeature(active_before, feature);
  const bool has = plan.update.features_act ? HasFeature(*plan.update.features_act, feature) : had;
  if (had != has) {
    HealthEvent e = node;
    e.kind = has ? EventKind::kRestored : EventKind::kRestricted;
    if (has) e.checks.clear();
    e.detail = (has ? "feature " + feature + " given back"
                    : "feature " + feature + " taken away: single-node jobs only");
    out.push_back(e);
  }
  return out;
}

}  // namespace railguard::health
