// SPDX-License-Identifier: GPL-2.0-or-later
// BuildReport: one builder per section of the report (header, nodes and SUs, the SU x rail
// health matrix with capacity, jobs on degraded paths, history, suspects, notes).
#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <unordered_map>

#include "base/json_reader.h"
#include "base/names.h"
#include "report/firmware_section.h"
#include "report/history_section.h"
#include "report/rootcause.h"
#include "topo/hostlist.h"
#include "wire/drain_reason.h"

namespace railguard::report {
namespace {

using SlurmIndex = std::unordered_map<std::string, const NodeSnapshot*>;

// The active features of a Slurm node (Slurm reports "" when they equal the available ones).
const std::string& ActiveFeatures(const NodeSnapshot& n) {
  return n.features_act.empty() ? n.features : n.features_act;
}

// Flags that keep an idle node from taking a new job.
bool Unschedulable(const NodeSnapshot& n) {
  for (const char* f : {"drain", "not_responding", "maint", "reserved", "fail", "powered_down",
                        "powering_down", "powering_up", "reboot_requested", "completing",
                        "blocked"})
    if (n.HasFlag(f)) return true;
  return false;
}

std::string Where(const std::string& snapshot_name, const NodeSnapshot& n) {
  return n.extra_line > 0 ? snapshot_name : "slurm node " + n.name;
}

// The node's rails from railcheck's Extra, else from a railcheck drain reason naming them.
void FillHealth(const NodeSnapshot& sn, const std::string& snapshot_name, size_t rails, double now,
                const ReportOptions& options, NodeRow* row, Diags* problems) {
  row->rails.assign(rails, RailState::kUnknown);
  row->rail_checks.assign(rails, {});
  wire::RailcheckExtra extra;
  std::string err;
  const wire::ExtraStatus st = wire::ReadExtra(sn.extra, wire::ExtraReadMode::kStrict, &extra, &err);
  if (st == wire::ExtraStatus::kOk) row->over_budget = extra.over_budget;
  if (st == wire::ExtraStatus::kOk && extra.would) {
    // What railcheck would do does not depend on the rails matching the topology.
    row->observe = true;
    for (const char* action : kWouldActions)
      if (std::find(extra.would->begin(), extra.would->end(), action) != extra.would->end())
        row->would.push_back(action);
  }
  if (st == wire::ExtraStatus::kError) {
    problems->push_back(
        {Where(snapshot_name, sn), sn.extra_line, 0,
         "node " + sn.name + ": Extra " + err + "; rails of " + sn.name + " unknown"});
  } else if (st == wire::ExtraStatus::kOk && extra.rails.size() != rails) {
    problems->push_back({Where(snapshot_name, sn), sn.extra_line, 0,
                         "node " + sn.name + ": Extra lists " + std::to_string(extra.rails.size()) +
                             " rails; expected " + std::to_string(rails) +
                             " (the topology's rails); rails of " + sn.name + " unknown"});
  } else if (st == wire::ExtraStatus::kOk) {
    row->source = HealthSource::kExtra;
    row->health_time = extra.time;
    row->verdict = extra.verdict;
    row->rails = extra.rails;
    if (extra.fw.size() == rails) {
      row->fw = extra.fw;
    } else if (!extra.fw.empty()) {
      problems->push_back({Where(snapshot_name, sn), sn.extra_line, 0,
                           "node " + sn.name + ": Extra lists " + std::to_string(extra.fw.size()) +
                               " firmware versions (\"fw\"); expected " + std::to_string(rails) +
                               " (the topology's rails); firmware of " + sn.name + " unknown"});
    }
    row->stale = now - extra.time > options.stale_after_seconds;
    for (const wire::FailedCheck& f : extra.failed) {
      std::vector<std::string>& list =
          f.rail >= 0 ? row->rail_checks[static_cast<size_t>(f.rail)] : row->node_checks;
      if (std::find(list.begin(), list.end(), f.check) == list.end()) list.push_back(f.check);
    }
    return;
  }
  if (row->drained_by == "railcheck") {
    const std::vector<int> named = wire::RailsInReason(sn.reason, rails);
    if (!named.empty()) {
      row->source = HealthSource::kReason;
      for (int r : named) row->rails[static_cast<size_t>(r)] = RailState::kDegraded;
    }
  }
}

// Header: cluster, time, source, options, rail names and NICs.
void BuildHeader(const Snapshot& snapshot, const topo::Topology& topo,
                 const ReportOptions& options, Report* r) {
  r->cluster = topo.cluster;
  r->slurm_cluster = snapshot.slurm_cluster;
  r->time = snapshot.time;
  r->source = snapshot.source;
  r->healthy_feature = options.healthy_feature;
  r->history_read = options.history_read;
  r->history_files = options.history_files;
  const topo::NodeType* first_type = topo.node_types.empty() ? nullptr : &topo.node_types[0];
  for (const topo::Rail& rail : topo.rails) {
    r->rail_names.push_back(rail.name.empty() ? "rail" + std::to_string(rail.index) : rail.name);
    r->rail_nics.push_back(first_type && static_cast<size_t>(rail.index) < first_type->nics.size()
                               ? first_type->nics[static_cast<size_t>(rail.index)]
                               : "?");
  }
}

// True when some Slurm node has `feature` (available or active).
bool FeatureInUse(const Snapshot& snapshot, const std::string& feature) {
  for (const NodeSnapshot& n : snapshot.nodes)
    if (HasFeature(n.features, feature) || HasFeature(ActiveFeatures(n), feature)) return true;
  return false;
}

// SU `s` without its nodes: leaves and NICs per rail, empty cells.
SuRow SuRowFor(const topo::Topology& topo, size_t s) {
  const topo::ScalableUnit& su = topo.sus[s];
  const size_t rails = topo.rails.size();
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
  return row;
}

// Node `p` of SU `s`, as Slurm shows it (`sn`, nullptr when Slurm does not have it).
NodeRow NodeRowFor(const topo::Topology& topo, size_t s, size_t p, const NodeSnapshot* sn,
                   const std::string& snapshot_name, double now, bool feature_in_use,
                   const ReportOptions& options, Diags* problems) {
  const size_t rails = topo.rails.size();
  NodeRow n;
  n.name = topo.sus[s].nodes[p];
  n.su = static_cast<int>(s);
  n.position = static_cast<int>(p);
  n.history.assign(rails, RailHistory());
  for (size_t k = 0; k < rails; ++k) {
    // With a sweep the port is where it found the HCA (BuildReport); without, the guess.
    n.leaf_ports.push_back(options.sweep ? 0
                                         : LeafPort(topo, static_cast<int>(s),
                                                    static_cast<int>(k), static_cast<int>(p)));
  }
  if (!sn) {
    n.rails.assign(rails, RailState::kUnknown);
    n.rail_checks.assign(rails, {});
    return n;
  }
  n.in_slurm = true;
  n.state = sn->state;
  n.flags = sn->flags;
  n.drained = sn->HasFlag("drain");
  n.reason = sn->reason;
  n.reason_time = sn->reason_time;
  n.reason_user = sn->reason_user;
  if (n.drained) n.drained_by = wire::IsRailcheckReason(sn->reason) ? "railcheck" : "admin";
  n.down = sn->state == "down" || sn->HasFlag("not_responding");
  n.idle = sn->state == "idle";
  n.restricted = feature_in_use && !n.drained && !n.down &&
                 !HasFeature(ActiveFeatures(*sn), options.healthy_feature);
  FillHealth(*sn, snapshot_name, rails, now, options, &n, problems);
  n.free = n.idle && !n.down && !Unschedulable(*sn) && !n.restricted && !n.Unhealthy();
  return n;
}

// Nodes and SUs in topology order, with `*index` to find a node's row.
void BuildNodes(const Snapshot& snapshot, const std::string& snapshot_name,
                const topo::Topology& topo, const ReportOptions& options, Report* r,
                NodeIndex* index) {
  SlurmIndex slurm;
  slurm.reserve(snapshot.nodes.size() * 2);
  for (const NodeSnapshot& n : snapshot.nodes) slurm.emplace(n.name, &n);
  index->reserve(topo.NodeCount() * 2);
  r->nodes.reserve(topo.NodeCount());
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    SuRow row = SuRowFor(topo, s);
    for (size_t p = 0; p < topo.sus[s].nodes.size(); ++p) {
      auto it = slurm.find(topo.sus[s].nodes[p]);
      NodeRow n = NodeRowFor(topo, s, p, it == slurm.end() ? nullptr : it->second, snapshot_name,
                             snapshot.time, r->feature_in_use, options, &r->problems);
      const int idx = static_cast<int>(r->nodes.size());
      index->emplace(n.name, idx);
      row.nodes.push_back(idx);
      r->nodes.push_back(std::move(n));
    }
    r->sus.push_back(std::move(row));
  }
}

// Node `idx` into its SU's cells (the health matrix) and counts.
void CountNode(const NodeRow& n, int idx, SuRow* su) {
  for (size_t k = 0; k < su->cells.size(); ++k) {
    Cell& c = su->cells[k];
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
  su->idle += n.idle;
  su->free += n.free;
  su->drained += n.drained;
  su->restricted += n.restricted;
  su->down += n.down;
  su->unhealthy += n.Unhealthy();
  su->no_report += n.source == HealthSource::kNone;
}

// Node `n` into the report's health totals.
void CountNodeHealth(const NodeRow& n, Report* r) {
  bool any_down = false, all_ok = true;
  for (RailState s : n.rails) {
    any_down = any_down || s == RailState::kDown;
    all_ok = all_ok && s == RailState::kOk;
  }
  if (n.source == HealthSource::kNone) {
    ++r->no_report;
  } else if (any_down) {
    ++r->down_rails_nodes;
  } else if (n.Unhealthy()) {
    ++r->degraded;
  } else if (all_ok) {
    ++r->healthy;
  }
  r->stale += n.stale;
}

// The SU x rail matrix, capacity per SU (the largest multi-node job) and the totals.
void BuildMatrixAndCapacity(Report* r) {
  for (SuRow& su : r->sus) {
    for (int idx : su.nodes) {
      const NodeRow& n = r->nodes[static_cast<size_t>(idx)];
      CountNode(n, idx, &su);
      CountNodeHealth(n, r);
    }
    su.largest_job = su.free >= 2 ? su.free : 0;
    r->idle += su.idle;
    r->free += su.free;
    r->drained += su.drained;
    r->restricted += su.restricted;
    r->down += su.down;
    if (su.largest_job > r->largest_job) {
      r->largest_job = su.largest_job;
      r->largest_job_su = static_cast<int>(&su - r->sus.data());
    }
  }
}

// Observe mode: how many nodes run railcheck in it, and which would take each action; and
// the nodes left in service over the drain budget.
void BuildObserve(Report* r) {
  for (size_t i = 0; i < r->nodes.size(); ++i) {
    const NodeRow& n = r->nodes[i];
    r->observe += n.observe;
    if (n.over_budget) r->over_budget.push_back(static_cast<int>(i));
    for (size_t a = 0; a < kWouldActionCount; ++a)
      if (n.Would(kWouldActions[a])) r->would_nodes[a].push_back(static_cast<int>(i));
  }
}

// Running jobs with a node that has a bad rail, largest first; every job's nodes get its id.
void BuildDegradedJobs(const Snapshot& snapshot, const std::string& snapshot_name,
                       const NodeIndex& index, Report* r) {
  for (const JobSnapshot& j : snapshot.jobs) {
    if (j.state != "running") continue;
    std::vector<std::string> hosts;
    std::string err;
    if (!ExpandHostlist(j.nodes, &hosts, &err, 1u << 20)) {
      r->problems.push_back({j.line > 0 ? snapshot_name : "slurm job " + std::to_string(j.id),
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
      NodeRow& n = r->nodes[static_cast<size_t>(it->second)];
      n.jobs.push_back(j.id);
      if (std::find(sus.begin(), sus.end(), n.su) == sus.end()) sus.push_back(n.su);
      if (n.Unhealthy() &&
          std::find(row.bad_nodes.begin(), row.bad_nodes.end(), it->second) == row.bad_nodes.end())
        row.bad_nodes.push_back(it->second);
    }
    std::sort(sus.begin(), sus.end());
    for (int s : sus) row.sus.push_back(r->sus[static_cast<size_t>(s)].name);
    if (!row.bad_nodes.empty()) r->degraded_jobs.push_back(std::move(row));
  }
  std::sort(r->degraded_jobs.begin(), r->degraded_jobs.end(),
            [](const JobRow& a, const JobRow& b) {
              if (a.node_count != b.node_count) return a.node_count > b.node_count;
              return a.id < b.id;
            });
}

// History counts, repeat offenders, which nodes need a look, and their events.
void BuildHistory(const std::vector<wire::HealthEvent>& events, const NodeIndex& index,
                  Report* r) {
  r->history_events = CountHistory(events, r->time, index, &r->nodes);
  r->offenders = FindOffenders(r->nodes);
  for (NodeRow& n : r->nodes)
    n.attention = n.Unhealthy() || n.drained || n.restricted || n.down || !n.would.empty() ||
                  n.over_budget;
  for (const Offender& o : r->offenders) r->nodes[static_cast<size_t>(o.node)].attention = true;
  CollectEvents(events, r->time, index, &r->nodes);
}

// What is worth saying that is not a suspect.
std::vector<std::string> Notes(const Report& r, const ReportOptions& options) {
  std::vector<std::string> notes;
  if (!r.feature_in_use)
    notes.push_back("no node has the feature " + options.healthy_feature +
                    ": job_submit/rail does not keep multi-node jobs off unhealthy nodes, "
                    "and no node counts as restricted " +
                    (r.observe > 0 ? "(railcheck in observe mode sets no feature)"
                                   : "(is railcheck running?)"));
  if (r.no_report > 0)
    notes.push_back(std::to_string(r.no_report) + " of " + std::to_string(r.nodes.size()) +
                    " nodes have no railcheck report in Extra: their rails are unknown");
  if (r.stale > 0)
    notes.push_back(std::to_string(r.stale) + " nodes have a railcheck report older than " +
                    FormatAge(options.stale_after_seconds) + " (railcheck not running?)");
  if (!r.extra_nodes.empty())
    notes.push_back(std::to_string(r.extra_nodes.size()) +
                    " Slurm nodes are not in the rail topology and are left out: " +
                    CompressHostlistSorted(r.extra_nodes));
  size_t missing = 0;
  for (const NodeRow& n : r.nodes) missing += !n.in_slurm;
  if (missing > 0) notes.push_back(std::to_string(missing) + " topology nodes are not in Slurm");
  if (!options.history_read)
    notes.push_back(
        "no health event history was read: flaps, drains and counter rates "
        "are not shown");
  return notes;
}

}  // namespace

const char* HealthSourceName(HealthSource s) {
  static const char* const kNames[] = {"extra", "reason", "none"};  // enum order
  const size_t i = static_cast<size_t>(s);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "?";
}

int NodeRow::BadRails() const {
  int n = 0;
  for (RailState s : rails) n += s == RailState::kDegraded || s == RailState::kDown;
  return n;
}

bool NodeRow::Would(const char* action) const {
  return std::find(would.begin(), would.end(), action) != would.end();
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
                   const topo::Topology& file_topo, const std::vector<wire::HealthEvent>& events,
                   const Diags& history_problems, const ReportOptions& options) {
  // An SU with several leaves per rail is reported domain by domain: each one-hop domain is a
  // row of the grid, a leaf footprint of the root cause, a unit of placeable capacity.
  topo::Topology view;
  const bool split = topo::HasSplitSus(file_topo);
  if (split) view = topo::DomainView(file_topo);
  const topo::Topology& topo = split ? view : file_topo;
  Report r;
  BuildHeader(snapshot, topo, options, &r);
  r.feature_in_use = FeatureInUse(snapshot, options.healthy_feature);
  NodeIndex index;
  BuildNodes(snapshot, snapshot_name, topo, options, &r, &index);
  BuildMatrixAndCapacity(&r);
  BuildObserve(&r);
  for (const NodeSnapshot& n : snapshot.nodes)
    if (!index.count(n.name)) r.extra_nodes.push_back(n.name);
  BuildDegradedJobs(snapshot, snapshot_name, index, &r);
  BuildHistory(events, index, &r);
  r.firmware = BuildFirmware(r.nodes, r.rail_names.size());
  if (options.sweep) {
    r.sweep_file = options.sweep->file;
    r.sweep_time = options.sweep->time;
    r.sweep_complete = options.sweep->complete;
    const SweepIndex index(*options.sweep);
    for (NodeRow& n : r.nodes)
      for (size_t k = 0; k < n.leaf_ports.size(); ++k)
        if (const SweepLink* l = index.HostLink(n.name, r.rail_names[k])) n.leaf_ports[k] = l->b.port;
    r.suspects = FindSuspects(r, topo, &index);
  } else {
    r.suspects = FindSuspects(r, topo);
  }
  r.notes = Notes(r, options);
  for (const Diag& d : history_problems) r.problems.push_back(d);
  return r;
}

}  // namespace railguard::report
