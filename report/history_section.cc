// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/history_section.h"

#include <algorithm>
#include <map>

namespace railguard::report {
namespace {

constexpr size_t kMaxNodeEvents = 20;

// The row of `e`'s node when `e` is within 7 days before `now`, else nullptr.
NodeRow* RowInWindow(const wire::HealthEvent& e, double now, const NodeIndex& index,
                     std::vector<NodeRow>* nodes) {
  const double age = now - e.time;
  if (age < 0 || age > kWindowSeconds[k7d]) return nullptr;
  auto it = index.find(e.node);
  return it == index.end() ? nullptr : &(*nodes)[static_cast<size_t>(it->second)];
}

bool IsProblem(wire::EventKind k) {
  return k != wire::EventKind::kRecovered && k != wire::EventKind::kResumed &&
         k != wire::EventKind::kRestored;
}

// Cuts each node's problem times (`times`, by row) into incidents (the rule in the header).
void CountIncidents(std::map<NodeRow*, std::vector<double>>* times, double now) {
  for (auto& kv : *times) {
    std::vector<double>& t = kv.second;
    std::sort(t.begin(), t.end());
    for (size_t i = 0; i < t.size(); ++i) {
      const bool last_of_run = i + 1 == t.size() || t[i + 1] - t[i] > kIncidentGapSeconds;
      if (!last_of_run) continue;
      kv.first->incidents[k7d] += 1;
      if (now - t[i] <= kWindowSeconds[k24h]) kv.first->incidents[k24h] += 1;
    }
  }
}

}  // namespace

int CountHistory(const std::vector<wire::HealthEvent>& events, double now,
                 const NodeIndex& index, std::vector<NodeRow>* nodes) {
  int counted = 0;
  std::map<NodeRow*, std::vector<double>> problem_times;
  for (const wire::HealthEvent& e : events) {
    NodeRow* row = RowInWindow(e, now, index, nodes);
    if (!row) continue;
    NodeRow& n = *row;
    ++counted;
    if (IsProblem(e.kind)) problem_times[row].push_back(e.time);
    const bool in24 = now - e.time <= kWindowSeconds[k24h];
    const auto count = [&](std::array<int, 2>* a) {
      (*a)[k7d] += 1;
      if (in24) (*a)[k24h] += 1;
    };
    RailHistory* rh = e.rail >= 0 && static_cast<size_t>(e.rail) < n.history.size()
                          ? &n.history[static_cast<size_t>(e.rail)]
                          : nullptr;
    switch (e.kind) {
      case wire::EventKind::kFlap:
        if (rh) count(&rh->flaps);
        break;
      case wire::EventKind::kDegraded:
      case wire::EventKind::kDown:
        if (rh) count(&rh->degradations);
        break;
      case wire::EventKind::kRecovered:
        if (rh) count(&rh->recoveries);
        break;
      case wire::EventKind::kDrained:
        count(&n.drains);
        break;
      case wire::EventKind::kRestricted:
        count(&n.restricts);
        n.restricted_since = std::max(n.restricted_since, e.time);
        break;
      case wire::EventKind::kResumed:
      case wire::EventKind::kRestored:
        break;
    }
    if (rh) {
      rh->last_event = std::max(rh->last_event, e.time);
      if (!e.counters.empty() && e.time >= rh->rates_time) {
        rh->rates_time = e.time;
        rh->rates.clear();
        for (const wire::EventCounter& c : e.counters)
          if (c.seconds > 0 && c.delta > 0)
            rh->rates.push_back({c.name, c.PerHour(), c.delta, c.seconds});
        std::sort(rh->rates.begin(), rh->rates.end(),
                  [](const CounterRate& a, const CounterRate& b) {
                    return a.per_hour != b.per_hour ? a.per_hour > b.per_hour : a.name < b.name;
                  });
      }
    }
  }
  CountIncidents(&problem_times, now);
  return counted;
}

// The events of attention nodes, newest first, at most kMaxNodeEvents each.
void CollectEvents(const std::vector<wire::HealthEvent>& events, double now,
                   const NodeIndex& index, std::vector<NodeRow>* nodes) {
  for (const wire::HealthEvent& e : events) {
    NodeRow* n = RowInWindow(e, now, index, nodes);
    if (!n || !n->attention) continue;
    NodeEvent ne;
    ne.time = e.time;
    ne.kind = wire::EventKindName(e.kind);
    ne.rail = e.rail;
    for (const std::string& c : e.checks) ne.checks += (ne.checks.empty() ? "" : ",") + c;
    ne.detail = e.detail;
    n->events.push_back(std::move(ne));
  }
  for (NodeRow& n : *nodes) {
    if (n.events.empty()) continue;
    std::stable_sort(n.events.begin(), n.events.end(),
                     [](const NodeEvent& a, const NodeEvent& b) { return a.time > b.time; });
    if (n.events.size() > kMaxNodeEvents) n.events.resize(kMaxNodeEvents);
  }
}

std::vector<Offender> FindOffenders(const std::vector<NodeRow>& nodes) {
  std::vector<Offender> offenders;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeRow& n = nodes[i];
    Offender o;
    o.node = static_cast<int>(i);
    o.drains = n.drains[k7d];
    std::vector<std::pair<int, int>> rails;  // events, rail
    for (size_t k = 0; k < n.history.size(); ++k) {
      const RailHistory& h = n.history[k];
      o.flaps += h.flaps[k7d];
      o.degradations += h.degradations[k7d];
      const int e = h.flaps[k7d] + h.degradations[k7d];
      if (e > 0) rails.push_back({e, static_cast<int>(k)});
    }
    o.events = o.flaps + o.degradations + o.drains + n.restricts[k7d];
    o.incidents = n.incidents[k7d];
    if (o.incidents < kRepeatOffenderIncidents) continue;
    std::sort(rails.begin(), rails.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& p : rails) o.rails.push_back(p.second);
    offenders.push_back(o);
  }
  std::sort(offenders.begin(), offenders.end(), [](const Offender& a, const Offender& b) {
    if (a.incidents != b.incidents) return a.incidents > b.incidents;
    return a.events != b.events ? a.events > b.events : a.node < b.node;
  });
  return offenders;
}

}  // namespace railguard::report
