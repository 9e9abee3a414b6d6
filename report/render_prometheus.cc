// SPDX-License-Identifier: GPL-2.0-or-later
// RenderPrometheus: the report as node_exporter textfile metrics.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "report/render.h"

namespace railguard::report {
namespace {

using Labels = std::vector<std::pair<const char*, std::string>>;

class Writer {
 public:
  // Starts a metric family with its HELP and TYPE lines.
  void Family(const char* name, const char* help) {
    name_ = name;
    std::string h;
    for (const char* p = help; *p; ++p) {
      if (*p == '\\') {
        h += "\\\\";
      } else if (*p == '\n') {
        h += "\\n";
      } else {
        h.push_back(*p);
      }
    }
    out_ += std::string("# HELP ") + name + " " + h + "\n# TYPE " + name + " gauge\n";
  }

  void Sample(const Labels& labels, double value) {
    out_ += name_;
    if (!labels.empty()) {
      out_ += "{";
      for (size_t i = 0; i < labels.size(); ++i) {
        out_ += (i ? "," : "") + std::string(labels[i].first) + "=\"" +
                PrometheusLabelValue(labels[i].second) + "\"";
      }
      out_ += "}";
    }
    char buf[64];
    if (value == static_cast<double>(static_cast<long long>(value))) {
      std::snprintf(buf, sizeof buf, " %lld\n", static_cast<long long>(value));
    } else {
      std::snprintf(buf, sizeof buf, " %.6f\n", value);
    }
    out_ += buf;
  }

  std::string Take() { return std::move(out_); }

 private:
  std::string name_;
  std::string out_;
};

}  // namespace

std::string RenderPrometheus(const Report& r) {
  Writer w;
  const std::string& cl = r.cluster;
  w.Family("railguard_report_time_seconds",
           "When the Slurm state of this report was read (seconds since the epoch).");
  w.Sample({{"cluster", cl}, {"source", r.source}}, r.time);

  w.Family("railguard_nodes", "Nodes by fabric health: healthy, degraded, rail_down, no_report.");
  w.Sample({{"cluster", cl}, {"health", "healthy"}}, r.healthy);
  w.Sample({{"cluster", cl}, {"health", "degraded"}}, r.degraded);
  w.Sample({{"cluster", cl}, {"health", "rail_down"}}, r.down_rails_nodes);
  w.Sample({{"cluster", cl}, {"health", "no_report"}}, r.no_report);

  const auto per_su = [&](const char* name, const char* help, int SuRow::*field) {
    w.Family(name, help);
    for (const SuRow& su : r.sus) w.Sample({{"cluster", cl}, {"su", su.name}}, su.*field);
  };
  w.Family("railguard_su_nodes", "Nodes of each scalable unit in the rail topology.");
  for (const SuRow& su : r.sus)
    w.Sample({{"cluster", cl}, {"su", su.name}}, static_cast<double>(su.nodes.size()));
  per_su("railguard_su_idle_nodes", "Idle nodes per scalable unit.", &SuRow::idle);
  per_su("railguard_su_free_nodes",
         "Free nodes per scalable unit: idle, schedulable, not restricted, no bad rail.",
         &SuRow::free);
  per_su("railguard_su_drained_nodes", "Drained or draining nodes per scalable unit.",
         &SuRow::drained);
  per_su("railguard_su_restricted_nodes",
         "Nodes without the healthy feature (single-node jobs only) per scalable unit.",
         &SuRow::restricted);
  per_su("railguard_su_down_nodes", "Down or not responding nodes per scalable unit.",
         &SuRow::down);
  per_su("railguard_su_largest_job_nodes",
         "Largest multi-node job that could start now inside the scalable unit (0 = none).",
         &SuRow::largest_job);

  w.Family("railguard_largest_job_nodes",
           "Largest multi-node job that could start now inside one scalable unit.");
  w.Sample({{"cluster", cl},
            {"su", r.largest_job_su >= 0 ? r.sus[static_cast<size_t>(r.largest_job_su)].name
                                         : std::string()}},
           r.largest_job);

  w.Family("railguard_rail_nodes",
           "Nodes per scalable unit, rail and rail state (ok, degraded, down, unknown).");
  for (const SuRow& su : r.sus) {
    for (size_t k = 0; k < su.cells.size(); ++k) {
      const Cell& c = su.cells[k];
      const std::pair<const char*, int> states[] = {
          {"ok", c.ok}, {"degraded", c.degraded}, {"down", c.down}, {"unknown", c.unknown}};
      for (const auto& st : states)
        w.Sample({{"cluster", cl},
                  {"su", su.name},
                  {"rail", std::to_string(k)},
                  {"leaf", su.leaves[k]},
                  {"state", st.first}},
                 st.second);
    }
  }

  w.Family("railguard_node_bad_rails", "Rails of the node that are degraded or down.");
  for (const NodeRow& n : r.nodes)
    w.Sample({{"cluster", cl}, {"node", n.name}, {"su", r.sus[static_cast<size_t>(n.su)].name}},
             n.BadRails());
  w.Family("railguard_node_drained",
           "1 when the node is drained or draining; by = railcheck or admin.");
  for (const NodeRow& n : r.nodes)
    w.Sample({{"cluster", cl}, {"node", n.name}, {"by", n.drained ? n.drained_by : ""}},
             n.drained ? 1 : 0);
  w.Family("railguard_node_restricted",
           "1 when the node lacks the healthy feature while it is in use (single-node jobs).");
  for (const NodeRow& n : r.nodes)
    w.Sample({{"cluster", cl}, {"node", n.name}}, n.restricted ? 1 : 0);

  w.Family("railguard_over_drain_budget_nodes",
           "Nodes whose railcheck finding would take them out of multi-node jobs but which stay "
           "in service because the drain budget (health.drain_budget) is spent: alert when > 0.");
  w.Sample({{"cluster", cl}}, static_cast<double>(r.over_budget.size()));
  w.Family("railguard_node_over_drain_budget",
           "1 for each node left in service over the drain budget; only those are listed.");
  for (const NodeRow& n : r.nodes)
    if (n.over_budget) w.Sample({{"cluster", cl}, {"node", n.name}}, 1);

  w.Family("railguard_observe_nodes",
           "Nodes whose railcheck runs in observe mode (health.mode: observe): it changes "
           "nothing in Slurm and publishes what it would do.");
  w.Sample({{"cluster", cl}}, r.observe);
  w.Family("railguard_would_nodes",
           "Nodes in observe mode on which railcheck would take the action in enforce mode: "
           "drain, restrict, requeue (the node's jobs), resume; every action, 0 when none.");
  for (size_t a = 0; a < kWouldActionCount; ++a)
    w.Sample({{"cluster", cl}, {"action", kWouldActions[a]}},
             static_cast<double>(r.would_nodes[a].size()));
  w.Family("railguard_node_would",
           "1 for each node in observe mode and action railcheck would take there in enforce "
           "mode (drain, restrict, requeue, resume); only those are listed.");
  for (const NodeRow& n : r.nodes)
    for (const std::string& action : n.would)
      w.Sample({{"cluster", cl}, {"node", n.name}, {"action", action}}, 1);

  w.Family("railguard_suspect_nodes",
           "Root-cause suspects, ranked (1 = first); the value is the number of nodes "
           "affected.");
  for (const Suspect& s : r.suspects)
    w.Sample({{"cluster", cl},
              {"rank", std::to_string(s.rank)},
              {"kind", s.kind},
              {"component", s.component},
              {"confidence", s.confidence},
              {"end", s.end.empty() ? "unknown" : s.end}},
             static_cast<double>(s.nodes.size()));

  w.Family("railguard_jobs_on_degraded_paths",
           "Running jobs with at least one node that has a degraded or down rail.");
  w.Sample({{"cluster", cl}}, static_cast<double>(r.degraded_jobs.size()));
  w.Family("railguard_job_degraded_nodes",
           "Nodes with a degraded or down rail per running job on a degraded path.");
  for (const JobRow& j : r.degraded_jobs)
    w.Sample({{"cluster", cl}, {"job", std::to_string(j.id)}, {"user", j.user}, {"name", j.name}},
             static_cast<double>(j.bad_nodes.size()));

  w.Family("railguard_node_rail_events",
           "Health events per node, rail, kind (flap, degradation) and window (24h, 7d); "
           "only non-zero counts are listed.");
  for (const NodeRow& n : r.nodes) {
    for (size_t k = 0; k < n.history.size(); ++k) {
      const RailHistory& h = n.history[k];
      for (int win = 0; win < 2; ++win) {
        const std::pair<const char*, int> kinds[] = {
            {"flap", h.flaps[static_cast<size_t>(win)]},
            {"degradation", h.degradations[static_cast<size_t>(win)]}};
        for (const auto& kind : kinds)
          if (kind.second > 0)
            w.Sample({{"cluster", cl},
                      {"node", n.name},
                      {"rail", std::to_string(k)},
                      {"kind", kind.first},
                      {"window", kWindowNames[win]}},
                     kind.second);
      }
    }
  }
  w.Family("railguard_node_drain_events",
           "Drains of the node by railcheck per window (24h, 7d); only non-zero counts are "
           "listed.");
  for (const NodeRow& n : r.nodes)
    for (int win = 0; win < 2; ++win)
      if (n.drains[static_cast<size_t>(win)] > 0)
        w.Sample({{"cluster", cl}, {"node", n.name}, {"window", kWindowNames[win]}},
                 n.drains[static_cast<size_t>(win)]);
  w.Family("railguard_repeat_offender_events",
           "Events in 7 days of nodes at or above the repeat-offender threshold.");
  for (const Offender& o : r.offenders)
    w.Sample({{"cluster", cl}, {"node", r.nodes[static_cast<size_t>(o.node)].name}}, o.events);
  w.Family("railguard_repeat_offender_incidents",
           "Incidents in 7 days (events less than an hour apart are one) of nodes at or above "
           "the repeat-offender threshold.");
  for (const Offender& o : r.offenders)
    w.Sample({{"cluster", cl}, {"node", r.nodes[static_cast<size_t>(o.node)].name}},
             o.incidents);

  w.Family("railguard_rail_firmware_nodes",
           "Nodes whose NIC of the rail runs the firmware version (fw_ver, from railcheck); "
           "majority is 1 for the version most nodes run.");
  for (const FirmwareRail& fr : r.firmware)
    for (const FirmwareVersion& v : fr.versions)
      w.Sample({{"cluster", cl},
                {"rail", std::to_string(fr.rail)},
                {"fw", v.fw},
                {"majority", v.fw == fr.majority ? "1" : "0"}},
               v.nodes);
  w.Family("railguard_node_firmware_off_majority",
           "1 for each node and rail whose NIC runs another firmware than most nodes' NIC of "
           "that rail; only such nodes are listed.");
  for (const FirmwareRail& fr : r.firmware)
    for (int i : fr.differ) {
      const NodeRow& n = r.nodes[static_cast<size_t>(i)];
      w.Sample({{"cluster", cl},
                {"node", n.name},
                {"rail", std::to_string(fr.rail)},
                {"fw", n.fw[static_cast<size_t>(fr.rail)]}},
               1);
    }

  w.Family("railguard_report_problems",
           "Input problems the report skipped (bad Extra values, job node lists, history "
           "lines).");
  w.Sample({{"cluster", cl}}, static_cast<double>(r.problems.size()));
  w.Family("railguard_stale_health_reports",
           "Nodes whose railcheck report in Extra is older than the stale limit.");
  w.Sample({{"cluster", cl}}, r.stale);
  return w.Take();
}

}  // namespace railguard::report
