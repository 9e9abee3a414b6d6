#include "report/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <unordered_map>

#include "healthcheck/act.h"
#include "base/json_reader.h"
#include "report/rootcause.h"
#include "topo/hostlist.h"

namespace railguard::report {
namespace {

constexpr size_t kMaxNodeEvents = 20;

bool HasFeature(const std::string& list, const std::string& feature) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma - start == feature.size() && list.compare(start, comma - start, feature) == 0)
      return true;
    start = comma + 1;
  }
  return false;
}

// Rails a railcheck drain reason names: "railcheck: rail3 mlx5_5 rate ..." -> {3}.
std::vector<int> RailsInReason(const std::string& reason, size_t rails) {
  std::vector<int> out;
  size_t pos = 0;
  while ((pos = reason.find("rail", pos)) != std::string::npos) {
    const bool word_start = pos == 0 || !std::isalnum(static_cast<unsigned char>(reason[pos - 1]));
    pos += 4;
    if (!word_start) continue;
    size_t end = pos;
    long value = 0;
    while (end < reason.size() && end - pos < 4 &&
           std::isdigit(static_cast<unsigned char>(reason[end])))
      value = value * 10 + (reason[end++] - '0');
    if (end == pos ||
        (end < reason.size() && std::isalnum(static_cast<unsigned char>(reason[end]))))
      continue;
    if (static_cast<size_t>(value) < rails &&
        std::find(out.begin(), out.end(), static_cast<int>(value)) == out.end())
      out.push_back(static_cast<int>(value));
  }
  return out;
}

// Flags that keep an idle node from taking a new job.
bool Unschedulable(const NodeSnapshot& n) {
  for (const char* f : {"drain", "not_responding", "maint", "reserved", "fail", "powered_down",
                        "powering_down", "powering_up", "reboot_requested", "completing"})
    if (n.HasFlag(f)) return true;
  return false;
}

std::string Where(const std::string& snapshot_name, const NodeSnapshot& n) {
  return n.extra_line > 0 ? snapshot_name : "slurm node " + n.name;
}

void FillHealth(const NodeSnapshot& sn, const std::string& snapshot_name, size_t rails, double now,
                const ReportOptions& options, NodeRow* row, Diags* problems) {
  row->rails.assign(rails, RailState::kUnknown);
  row->rail_checks.assign(rails, {});
  RailcheckExtra extra;
  std::string err;
  const ExtraStatus st = ParseRailcheckExtra(sn.extra, &extra, &err);
  if (st == ExtraStatus::kError) {
    problems->push_back(
        {Where(snapshot_name, sn), sn.extra_line, 0,
         "node " + sn.name + ": Extra " + err + "; rails of " + sn.name + " unknown"});
  } else if (st == ExtraStatus::kOk && extra.rails.size() != rails) {
    problems->push_back({Where(snapshot_name, sn), sn.extra_line, 0,
                         "node " + sn.name + ": Extra lists " + std::to_string(extra.rails.size()) +
                             " rails; expected " + std::to_string(rails) +
                             " (the topology's rails); rails of " + sn.name + " unknown"});
  } else if (st == ExtraStatus::kOk) {
    row->source = HealthSource::kExtra;
    row->health_time = extra.time;
    row->verdict = extra.verdict;
    row->rails = extra.rails;
    row->stale = now - extra.time > options.stale_after_seconds;
    for (const FailedCheck& f : extra.failed) {
      std::vector<std::string>& list =
          f.rail >= 0 ? row->rail_checks[static_cast<size_t>(f.rail)] : row->node_checks;
      if (std::find(list.begin(), list.end(), f.check) == list.end()) list.push_back(f.check);
    }
    return;
  }
  if (row->drained_by == "railcheck") {
    const std::vector<int> named = RailsInReason(sn.reason, rails);
    if (!named.empty()) {
      row->source = HealthSource::kReason;
      for (int r : named) row->rails[static_cast<size_t>(r)] = RailState::kDegraded;
    }
  }
}

void CountHistory(const std::vector<health::HealthEvent>& events, double now,
                  const std::unordered_map<std::string, int>& index, Report* r) {
  for (const health::HealthEvent& e : events) {
    const double age = now - e.time;
    if (age < 0 || age > kWindowSeconds[k7d]) continue;
    auto it = index.find(e.node);
    if (it == index.end()) continue;
    NodeRow& n = r->nodes[static_cast<size_t>(it->second)];
    ++r->history_events;
    const bool in24 = age <= kWindowSeconds[k24h];
    const auto count = [&](std::array<int, 2>* a) {
      (*a)[k7d] += 1;
      if (in24) (*a)[k24h] += 1;
    };
    RailHistory* rh = e.rail >= 0 && static_cast<size_t>(e.rail) < n.history.size()
                          ? &n.history[static_cast<size_t>(e.rail)]
                          : nullptr;
    switch (e.kind) {
      case health::EventKind::kFlap:
        if (rh) count(&rh->flaps);
        break;
      case health::EventKind::kDegraded:
      case health::EventKind::kDown:
        if (rh) count(&rh->degradations);
        break;
      case health::EventKind::kRecovered:
        if (rh) count(&rh->recoveries);
        break;
      case health::EventKind::kDrained:
        count(&n.drains);
        break;
      case health::EventKind::kRestricted:
        count(&n.restricts);
        n.restricted_since = std::max(n.restricted_since, e.time);
        break;
      case health::EventKind::kResumed:
      case health::EventKind::kRestored:
        break;
    }
    if (rh) {
      rh->last_event = std::max(rh->last_event, e.time);
      if (!e.counters.empty() && e.time >= rh->rates_time) {
        rh->rates_time = e.time;
        rh->rates.clear();
        for (const health::EventCounter& c : e.counters)
          if (c.seconds > 0 && c.delta > 0)
            rh->rates.push_back({c.name, c.PerHour(), c.delta, c.seconds});
        std::sort(rh->rates.begin(), rh->rates.end(),
                  [](const CounterRate& a, const CounterRate& b) {
                    return a.per_hour != b.per_hour ? a.per_hour > b.per_hour : a.name < b.name;
                  });
      }
    }
  }
}

// The events of attention nodes, newest first, at most kMaxNodeEvents each.
void CollectEvents(const std::vector<health::HealthEvent>& events, double now,
                   const std::unordered_map<std::string, int>& index, Report* r) {
  for (const health::HealthEvent& e : events) {
    const double age = now - e.time;
    if (age < 0 || age > kWindowSeconds[k7d]) continue;
    auto it = index.find(e.node);
    if (it == index.end()) continue;
    NodeRow& n = r->nodes[static_cast<size_t>(it->second)];
    if (!n.attention) continue;
    NodeEvent ne;
    ne.time = e.time;
    ne.kind = health::EventKindName(e.kind);
    ne.rail = e.rail;
    for (const std::string& c : e.checks) ne.checks += (ne.checks.empty() ? "" : ",") + c;
    ne.detail = e.detail;
    n.events.push_back(std::move(ne));
  }
  for (NodeRow& n : r->nodes) {
    if (n.events.empty()) continue;
    std::stable_sort(n.events.begin(), n.events.end(),
                     [](const NodeEvent& a, const NodeEvent& b) { return a.time > b.time; });
    if (n.events.size() > kMaxNodeEvents) n.events.resize(kMaxNodeEvents);
  }
}

void FindOffenders(Report* r) {
  for (size_t i = 0; i < r->nodes.size(); ++i) {
    const NodeRow& n = r->nodes[i];
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
    if (o.events < kRepeatOffenderEvents) continue;
    std::sort(rails.begin(), rails.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& p : rails) o.rails.push_back(p.second);
    r->offenders.push_back(o);
  }
  std::sort(r->offenders.begin(), r->offenders.end(), [](const Offender& a, const Offender& b) {
    return a.events != b.events ? a.events > b.events : a.node < b.node;
  });
}

}  // namespace

const char* HealthSourceName(HealthSource s) {
  switch (s) {
    case HealthSource::kExtra:
      return "extra";
    case HealthSource::kReason:
      return "reason";
    case HealthSource::kNone:
      return "none";
  }
  return "?";
}

int NodeRow::BadRails() const {
  int n = 0;
  for (RailState s : rails) n += s == RailState::kDegraded || s == RailState::kDown;
  return n;
}

RailState Cell::Worst() const {
  if (down > 0) return RailState::kDown;
  if (degraded > 0) return RailState::kDegraded;
  if (ok > 0) return RailState::kOk;
  return RailState::kUnknown;
}

std::string FormatTime(double t) {
  if (t <= 0) return "-";
  const time_t tt = static_cast<time_t>(t);
  struct tm tm;
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

std::string FormatAge(double seconds) {
  char buf[32];
  if (seconds < 0) seconds = 0;
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.0fs", seconds);
  } else if (seconds < 3600) {
    std::snprintf(buf, sizeof buf, "%.0fm", std::floor(seconds / 60));
  } else if (seconds < 86400) {
    std::snprintf(buf, sizeof buf, "%.1fh", seconds / 3600);
  } else {
    std::snprintf(buf, sizeof buf, "%.1fd", seconds / 86400);
  }
  return buf;
}

Report BuildReport(const Snapshot& snapshot, const std::string& snapshot_name,
                   const topo::Topology& topo, const std::vector<health::HealthEvent>& events,
                   const Diags& history_problems, const ReportOptions& options) {
  Report r;
  r.cluster = topo.cluster;
  r.slurm_cluster = snapshot.slurm_cluster;
  r.time = snapshot.time;
  r.source = snapshot.source;
  r.healthy_feature = options.healthy_feature;
  r.history_read = options.history_read;
  r.history_files = options.history_files;
  const size_t rails = topo.rails.size();
  const topo::NodeType* first_type = topo.node_types.empty() ? nullptr : &topo.node_types[0];
  for (const topo::Rail& rail : topo.rails) {
    r.rail_names.push_back(rail.name.empty() ? "rail" + std::to_string(rail.index) : rail.name);
    r.rail_nics.push_back(first_type && static_cast<size_t>(rail.index) < first_type->nics.size()
                              ? first_type->nics[static_cast<size_t>(rail.index)]
                              : "?");
  }

  std::unordered_map<std::string, const NodeSnapshot*> slurm;
  slurm.reserve(snapshot.nodes.size() * 2);
  for (const NodeSnapshot& n : snapshot.nodes) {
    slurm.emplace(n.name, &n);
    const std::string& act = n.features_act.empty() ? n.features : n.features_act;
    if (HasFeature(n.features, options.healthy_feature) || HasFeature(act, options.healthy_feature))
      r.feature_in_use = true;
  }

  std::unordered_map<std::string, int> index;
  index.reserve(topo.NodeCount() * 2);
  r.nodes.reserve(topo.NodeCount());
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    const topo::ScalableUnit& su = topo.sus[s];
    SuRow row;
    row.name = su.name;
    row.cells.assign(rails, Cell());
    row.leaves.assign(rails, "?");
    for (const topo::Leaf& leaf : su.leaves)
      if (leaf.rail >= 0 && static_cast<size_t>(leaf.rail) < rails)
        row.leaves[static_cast<size_t>(leaf.rail)] = topo::LeafName(su, leaf);
    const topo::NodeType* type = topo.FindType(su.node_type);
    for (size_t k = 0; k < rails; ++k)
      row.nics.push_back(type && k < type->nics.size() ? type->nics[k] : "?");
    for (size_t p = 0; p < su.nodes.size(); ++p) {
      NodeRow n;
      n.name = su.nodes[p];
      n.su = static_cast<int>(s);
      n.position = static_cast<int>(p);
      n.history.assign(rails, RailHistory());
      for (size_t k = 0; k < rails; ++k)
        n.leaf_ports.push_back(
            LeafPort(topo, static_cast<int>(s), static_cast<int>(k), static_cast<int>(p)));
      auto it = slurm.find(n.name);
      if (it == slurm.end()) {
        n.rails.assign(rails, RailState::kUnknown);
        n.rail_checks.assign(rails, {});
      } else {
        const NodeSnapshot& sn = *it->second;
        n.in_slurm = true;
        n.state = sn.state;
        n.flags = sn.flags;
        n.drained = sn.HasFlag("drain");
        n.reason = sn.reason;
        n.reason_time = sn.reason_time;
        n.reason_user = sn.reason_user;
        if (n.drained)
          n.drained_by = sn.reason.rfind(health::kReasonPrefix, 0) == 0 ? "railcheck" : "admin";
        n.down = sn.state == "down" || sn.HasFlag("not_responding");
        n.idle = sn.state == "idle";
        const std::string& act = sn.features_act.empty() ? sn.features : sn.features_act;
        n.restricted =
            r.feature_in_use && !n.drained && !n.down && !HasFeature(act, options.healthy_feature);
        FillHealth(sn, snapshot_name, rails, snapshot.time, options, &n, &r.problems);
        n.free = n.idle && !n.down && !Unschedulable(sn) && !n.restricted && !n.Unhealthy();
      }
      const int idx = static_cast<int>(r.nodes.size());
      index.emplace(n.name, idx);
      row.nodes.push_back(idx);
      r.nodes.push_back(std::move(n));
    }
    r.sus.push_back(std::move(row));
  }

  // Per SU and cell, and totals.
  for (SuRow& su : r.sus) {
    for (int idx : su.nodes) {
      const NodeRow& n = r.nodes[static_cast<size_t>(idx)];
      for (size_t k = 0; k < rails; ++k) {
        Cell& c = su.cells[k];
        switch (n.rails[k]) {
          case RailState::kOk:
            ++c.ok;
            break;
          case RailState::kDegraded:
            ++c.degraded;
            c.bad.push_back(idx);
            break;
          case RailState::kDown:
            ++c.down;
            c.bad.push_back(idx);
            break;
          case RailState::kUnknown:
            ++c.unknown;
            break;
        }
      }
      su.idle += n.idle;
      su.free += n.free;
      su.drained += n.drained;
      su.restricted += n.restricted;
      su.down += n.down;
      su.unhealthy += n.Unhealthy();
      su.no_report += n.source == HealthSource::kNone;
      bool any_down = false, all_ok = true;
      for (RailState s : n.rails) {
        any_down = any_down || s == RailState::kDown;
        all_ok = all_ok && s == RailState::kOk;
      }
      if (n.source == HealthSource::kNone) {
        ++r.no_report;
      } else if (any_down) {
        ++r.down_rails_nodes;
      } else if (n.Unhealthy()) {
        ++r.degraded;
      } else if (all_ok) {
        ++r.healthy;
      }
      r.stale += n.stale;
    }
    su.largest_job = su.free >= 2 ? su.free : 0;
    r.idle += su.idle;
    r.free += su.free;
    r.drained += su.drained;
    r.restricted += su.restricted;
    r.down += su.down;
    if (su.largest_job > r.largest_job) {
      r.largest_job = su.largest_job;
      r.largest_job_su = static_cast<int>(&su - r.sus.data());
    }
  }
  for (const NodeSnapshot& n : snapshot.nodes)
    if (!index.count(n.name)) r.extra_nodes.push_back(n.name);

  // Jobs on degraded paths.
  for (const JobSnapshot& j : snapshot.jobs) {
    if (j.state != "running") continue;
    std::vector<std::string> hosts;
    std::string err;
    if (!ExpandHostlist(j.nodes, &hosts, &err, 1u << 20)) {
      r.problems.push_back({j.line > 0 ? snapshot_name : "slurm job " + std::to_string(j.id),
                            j.line, 0,
                            "job " + std::to_string(j.id) + ": node list '" +
                                ValidUtf8(j.nodes).substr(0, 80) + "': " + err});
      continue;
    }
    JobRow row;
    row.id = j.id;
    row.name = j.name;
    row.user = j.user;
    row.state = j.state;
    row.nodes = j.nodes;
    row.partition = j.partition;
    row.node_count = static_cast<int>(hosts.size());
    row.start_time = j.start_time;
    std::vector<int> sus;
    for (const std::string& h : hosts) {
      auto it = index.find(h);
      if (it == index.end()) continue;
      NodeRow& n = r.nodes[static_cast<size_t>(it->second)];
      n.jobs.push_back(j.id);
      if (std::find(sus.begin(), sus.end(), n.su) == sus.end()) sus.push_back(n.su);
      if (n.Unhealthy() &&
          std::find(row.bad_nodes.begin(), row.bad_nodes.end(), it->second) == row.bad_nodes.end())
        row.bad_nodes.push_back(it->second);
    }
    std::sort(sus.begin(), sus.end());
    for (int s : sus) row.sus.push_back(r.sus[static_cast<size_t>(s)].name);
    if (!row.bad_nodes.empty()) r.degraded_jobs.push_back(std::move(row));
  }
  std::sort(r.degraded_jobs.begin(), r.degraded_jobs.end(), [](const JobRow& a, const JobRow& b) {
    if (a.node_count != b.node_count) return a.node_count > b.node_count;
    return a.id < b.id;
  });

  CountHistory(events, snapshot.time, index, &r);
  FindOffenders(&r);
  for (NodeRow& n : r.nodes) n.attention = n.Unhealthy() || n.drained || n.restricted || n.down;
  for (const Offender& o : r.offenders) r.nodes[static_cast<size_t>(o.node)].attention = true;
  CollectEvents(events, snapshot.time, index, &r);
  r.suspects = FindSuspects(r, topo);

  // Notes.
  if (!r.feature_in_use)
    r.notes.push_back("no node has the feature " + options.healthy_feature +
                      ": job_submit/rail does not keep multi-node jobs off unhealthy nodes, "
                      "and no node counts as restricted (is railcheck running?)");
  if (r.no_report > 0)
    r.notes.push_back(std::to_string(r.no_report) + " of " + std::to_string(r.nodes.size()) +
                      " nodes have no railcheck report in Extra: their rails are unknown");
  if (r.stale > 0)
    r.notes.push_back(std::to_string(r.stale) + " nodes have a railcheck report older than " +
                      FormatAge(options.stale_after_seconds) + " (railcheck not running?)");
  if (!r.extra_nodes.empty())
    r.notes.push_back(std::to_string(r.extra_nodes.size()) +
                      " Slurm nodes are not in the rail topology and are left out: " +
                      CompressHostlistSorted(r.extra_nodes));
  size_t missing = 0;
  for (const NodeRow& n : r.nodes) missing += !n.in_slurm;
  if (missing > 0) r.notes.push_back(std::to_string(missing) + " topology nodes are not in Slurm");
  if (!options.history_read)
    r.notes.push_back(
        "no health event history was read: flaps, drains and counter rates "
        "are not shown");
  for (const Diag& d : history_problems) r.problems.push_back(d);
  return r;
}

}  // namespace railguard::report
