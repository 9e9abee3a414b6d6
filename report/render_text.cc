// SPDX-License-Identifier: GPL-2.0-or-later
// RenderText: the terminal form of the report.
#include <algorithm>
#include <cstdio>

#include "report/render.h"
#include "report/text_util.h"
#include "topo/hostlist.h"

namespace railguard::report {
namespace {

constexpr size_t kWidth = 100;

// `s` cut to at most `width` bytes on a UTF-8 boundary, "..." marking a cut.
std::string Cut(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  if (width <= 3) return s.substr(0, width);
  size_t end = width - 3;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end) + "...";
}

std::string Pad(const std::string& s, size_t width) {
  const std::string c = Cut(s, width);
  return c + std::string(width - c.size(), ' ');
}

std::string PadLeft(const std::string& s, size_t width) {
  const std::string c = Cut(s, width);
  return std::string(width - c.size(), ' ') + c;
}

// A table whose last column takes what is left of the 100 columns.
class Table {
 public:
  Table(std::vector<std::string> headers, std::vector<size_t> widths, std::vector<bool> right)
      : headers_(std::move(headers)), widths_(std::move(widths)), right_(std::move(right)) {}

  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  std::string Render() const {
    std::string out = Line(headers_);
    for (const auto& r : rows_) out += Line(r);
    return out;
  }

 private:
  std::string Line(const std::vector<std::string>& cells) const {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string c = TerminalSafe(cells[i]);
      if (i + 1 == cells.size()) {
        line += Cut(c, kWidth > line.size() ? kWidth - line.size() : 0);
      } else {
        line += (right_[i] ? PadLeft(c, widths_[i]) : Pad(c, widths_[i])) + "  ";
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  }

  std::vector<std::string> headers_;
  std::vector<size_t> widths_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

std::string CellText(const Cell& c) {
  if (c.degraded == 0 && c.down == 0) return c.ok > 0 ? "ok" : "-";
  std::string s;
  if (c.degraded) s += std::to_string(c.degraded) + "d";
  if (c.down) s += std::to_string(c.down) + "x";
  return s;
}

size_t NameWidth(const Report& r) {
  size_t w = 4;
  for (const NodeRow& n : r.nodes) w = std::max(w, n.name.size());
  return std::min<size_t>(w, 20);
}

size_t SuWidth(const Report& r) {
  size_t w = 3;
  for (const SuRow& s : r.sus) w = std::max(w, s.name.size());
  return std::min<size_t>(w, 16);
}

std::string StateText(const NodeRow& n) { return NodeStateText(n, "not-in-slurm"); }

std::string BadRailsText(const Report& r, const NodeRow& n) {
  std::string s;
  for (size_t k = 0; k < n.rails.size(); ++k) {
    if (n.rails[k] != RailState::kDegraded && n.rails[k] != RailState::kDown) continue;
    s += (s.empty() ? "" : " ") + std::to_string(k) + ":" +
         (n.rails[k] == RailState::kDown ? "down" : "degraded");
  }
  (void)r;
  return s;
}

std::string ChecksText(const NodeRow& n) {
  std::string s;
  for (size_t k = 0; k < n.rail_checks.size(); ++k)
    for (const std::string& c : n.rail_checks[k])
      s += (s.empty() ? "" : " ") + std::to_string(k) + ":" + c;
  for (const std::string& c : n.node_checks) s += (s.empty() ? "" : " ") + std::string("node:") + c;
  return s;
}

std::string RatesText(const NodeRow& n) {
  std::string s;
  for (size_t k = 0; k < n.history.size(); ++k) {
    const RailHistory& h = n.history[k];
    for (size_t i = 0; i < h.rates.size() && i < 2; ++i) {
      char buf[64];
      std::snprintf(buf, sizeof buf, h.rates[i].per_hour >= 10 ? "%.0f/h" : "%.1f/h",
                    h.rates[i].per_hour);
      s += (s.empty() ? "" : ", ") + std::to_string(k) + ":" + h.rates[i].name + " " + buf;
    }
  }
  return s;
}

// `text` in lines of at most kWidth columns, broken at spaces where it can: the first line
// starts with `prefix`, the others with `next`. For what must not be cut (evidence, observe
// mode's node lists).
std::string Wrapped(std::string text, std::string prefix, const std::string& next) {
  std::string out;
  while (!text.empty()) {
    const size_t room = kWidth - prefix.size();
    size_t take = text.size();
    if (take > room) {
      take = text.rfind(' ', room);
      if (take == std::string::npos || take < room / 2) take = room;
      while (take > 0 && (static_cast<unsigned char>(text[take]) & 0xC0) == 0x80) --take;
    }
    out += prefix + text.substr(0, take) + "\n";
    text = text.substr(take);
    while (!text.empty() && text[0] == ' ') text.erase(0, 1);
    prefix = next;
  }
  return out;
}

// "1 node", "3 nodes".
std::string NodesText(size_t n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); }

// What railcheck would do on the node in observe mode ("drain,requeue"), "none" when nothing,
// "-" when the node is not in observe mode.
std::string WouldText(const NodeRow& n) {
  if (!n.observe) return "-";
  return n.would.empty() ? "none" : JoinStrings(n.would, ",");
}

std::string More(size_t shown, size_t total, const char* what) {
  if (shown >= total) return "";
  return "  ... and " + std::to_string(total - shown) + " more " + what +
         " (railctl report --json lists all)\n";
}

void Summary(const Report& r, std::string* out) {
  *out += "railguard report: cluster " + TerminalSafe(r.cluster);
  if (!r.slurm_cluster.empty() && r.slurm_cluster != r.cluster)
    *out += " (Slurm " + TerminalSafe(r.slurm_cluster) + ")";
  *out += ", " + FormatTime(r.time) + " UTC, from " + Cut(TerminalSafe(r.source), 40) + "\n";
  *out += std::to_string(r.nodes.size()) + " nodes in " + std::to_string(r.sus.size()) + " SUs x " +
          std::to_string(r.rail_names.size()) + " rails: " + std::to_string(r.healthy) +
          " healthy, " + std::to_string(r.degraded) + " degraded, " +
          std::to_string(r.down_rails_nodes) + " with a rail down, " + std::to_string(r.no_report) +
          " no report\n";
  *out += "Slurm: " + std::to_string(r.drained) + " drained, " + std::to_string(r.restricted) +
          " restricted, " + std::to_string(r.down) + " down, " + std::to_string(r.idle) +
          " idle, " + std::to_string(r.free) + " free (idle and healthy)\n";
  *out += "largest multi-node job that can start now within one SU: ";
  if (r.largest_job_su >= 0) {
    *out += std::to_string(r.largest_job) + " nodes (" +
            TerminalSafe(r.sus[static_cast<size_t>(r.largest_job_su)].name) + ")\n";
  } else {
    *out += "none (no SU has 2 free nodes)\n";
  }
  if (!r.over_budget.empty()) {
    std::vector<std::string> names;
    for (int i : r.over_budget) names.push_back(r.nodes[static_cast<size_t>(i)].name);
    *out += "ALERT: drain budget spent (health.drain_budget): " +
            NodesText(r.over_budget.size()) + " with findings stay in service\n  " +
            TerminalSafe(CompressHostlistSorted(names)) + "\n";
  }
  if (r.observe > 0) {
    *out += "observe mode on " + std::to_string(r.observe) + " of " +
            std::to_string(r.nodes.size()) + " nodes: railcheck changed nothing in Slurm there\n";
    std::string actions;
    for (size_t a = 0; a < kWouldActionCount; ++a) {
      const size_t count = r.would_nodes[a].size();
      if (count == 0) continue;
      actions += actions.empty() ? "would " + std::string(WouldPhrase(a)) + " " + NodesText(count)
                                 : ", " + std::string(WouldPhrase(a)) + " " + std::to_string(count);
    }
    *out += "  " + (actions.empty() ? "would change nothing" : actions) + "\n";
  }
  *out += r.sweep_file.empty()
              ? "fabric sweep: none given (--sweep): leaf ports are guesses, no end named\n"
              : "fabric sweep: " + Cut(TerminalSafe(r.sweep_file), 60) + ", " +
                    FormatTime(r.sweep_time) + " UTC" +
                    (r.sweep_complete ? "" : ", PARTIAL (some switches did not answer)") + "\n";
}

void Suspects(const Report& r, std::string* out) {
  *out += "\nSUSPECTS (most nodes affected first)\n";
  if (r.suspects.empty()) {
    *out += "  none: no node reports a degraded or down rail\n";
    return;
  }
  for (const Suspect& s : r.suspects) {
    const std::string head = (s.rank < 10 ? " " : "") + std::to_string(s.rank) + ". [" +
                             s.confidence + (s.end.empty() ? "" : ", end: " + s.end) + "] ";
    *out += Cut(head + TerminalSafe(s.title), kWidth) + "\n";
    // Evidence wraps rather than being cut: it is what the admin acts on.
    for (const std::string& e : s.evidence)
      *out += Wrapped(TerminalSafe(e), "      - ", "        ");
  }
}

void Matrix(const Report& r, std::string* out) {
  *out += "\nSU x RAIL (ok: every reporting node ok; Nd: N degraded; Nx: N down; -: no report)\n";
  const size_t suw = SuWidth(r);
  size_t cellw = 5;
  for (const SuRow& su : r.sus)
    for (const Cell& c : su.cells) cellw = std::max(cellw, CellText(c).size() + 1);
  const size_t lead = suw + 2 + 5 + 2;
  const size_t rails = r.rail_names.size();
  const size_t per_block = std::max<size_t>(1, (kWidth - lead) / cellw);
  for (size_t first = 0; first < rails || first == 0; first += per_block) {
    const size_t last = std::min(rails, first + per_block);
    std::string head = Pad("SU", suw) + "  " + PadLeft("NODES", 5) + "  ";
    for (size_t k = first; k < last; ++k) head += Pad("R" + std::to_string(k), cellw);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    *out += head + "\n";
    for (const SuRow& su : r.sus) {
      std::string line = Pad(TerminalSafe(su.name), suw) + "  " +
                         PadLeft(std::to_string(su.nodes.size()), 5) + "  ";
      for (size_t k = first; k < last; ++k) line += Pad(CellText(su.cells[k]), cellw);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      *out += line + "\n";
    }
    if (rails == 0) break;
  }
}

void Capacity(const Report& r, std::string* out) {
  *out += "\nCAPACITY (free: idle, schedulable, not restricted, no bad rail)\n";
  const size_t suw = SuWidth(r);
  Table t(
      {"SU", "NODES", "IDLE", "FREE", "DRAINED", "RESTRICTED", "DOWN", "BAD-RAIL", "LARGEST-JOB"},
      {suw, 5, 5, 5, 7, 10, 5, 8, 11}, {false, true, true, true, true, true, true, true, false});
  for (const SuRow& su : r.sus)
    t.Row({su.name, std::to_string(su.nodes.size()), std::to_string(su.idle),
           std::to_string(su.free), std::to_string(su.drained), std::to_string(su.restricted),
           std::to_string(su.down), std::to_string(su.unhealthy),
           su.largest_job > 0 ? std::to_string(su.largest_job) : "-"});
  int unhealthy = 0;
  for (const SuRow& su : r.sus) unhealthy += su.unhealthy;
  t.Row({"all", std::to_string(r.nodes.size()), std::to_string(r.idle), std::to_string(r.free),
         std::to_string(r.drained), std::to_string(r.restricted), std::to_string(r.down),
         std::to_string(unhealthy),
         r.largest_job_su >= 0 ? std::to_string(r.largest_job) + " (" +
                                     r.sus[static_cast<size_t>(r.largest_job_su)].name + ")"
                               : "-"});
  *out += t.Render();
}

void Unavailable(const Report& r, std::string* out) {
  std::vector<const NodeRow*> rows;
  for (const NodeRow& n : r.nodes)
    if (n.drained || n.restricted || n.down) rows.push_back(&n);
  *out += "\nDRAINED, RESTRICTED AND DOWN NODES\n";
  if (rows.empty()) {
    *out += "  none\n";
    return;
  }
  // In observe mode a WOULD column says what railcheck would do (a drained node: resume).
  const bool observe = r.observe > 0;
  std::vector<std::string> head = {"NODE", "STATE", "SINCE (UTC)", "AGE", "BY", "REASON"};
  std::vector<size_t> widths = {NameWidth(r), 18, 16, 5, 9, 0};
  std::vector<bool> right = {false, false, false, true, false, false};
  if (observe) {
    head.insert(head.begin() + 5, "WOULD");
    widths.insert(widths.begin() + 5, 13);
    right.insert(right.begin() + 5, false);
  }
  Table t(head, widths, right);
  size_t shown = 0;
  for (const NodeRow* n : rows) {
    if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
    std::string by = n->drained ? n->drained_by : n->restricted ? "railcheck" : "slurm";
    std::string reason = n->reason;
    double since = n->reason_time;
    if (!n->drained && n->restricted) {
      reason = "restricted to single-node jobs (no " + r.healthy_feature + ")";
      if (!n->verdict.empty()) reason += "; railcheck verdict " + n->verdict;
      const std::string checks = ChecksText(*n);
      if (!checks.empty()) reason += ": " + checks;
      since = n->restricted_since > 0 ? n->restricted_since : n->health_time;
    }
    const std::string age = since > 0 ? FormatAge(r.time - since) : "-";
    std::vector<std::string> row = {n->name, StateText(*n), FormatTime(since), age, by, reason};
    if (observe) row.insert(row.begin() + 5, WouldText(*n));
    t.Row(std::move(row));
  }
  *out += t.Render() + More(std::min<size_t>(rows.size(), kTextMaxRows), rows.size(), "nodes");
}

// Observe mode (only when some node runs railcheck in it): per action the nodes that would
// take it, then those nodes one by one.
void Observe(const Report& r, std::string* out) {
  if (r.observe == 0) return;
  *out += "\nOBSERVE MODE (" + NodesText(static_cast<size_t>(r.observe)) +
          ": what railcheck would have done; nothing was changed in Slurm)\n";
  std::vector<const NodeRow*> rows;
  for (const NodeRow& n : r.nodes)
    if (!n.would.empty()) rows.push_back(&n);
  if (rows.empty()) {
    *out += "  none: no node in observe mode would be drained, restricted, requeued or resumed\n";
    return;
  }
  for (size_t a = 0; a < kWouldActionCount; ++a) {
    if (r.would_nodes[a].empty()) continue;
    std::vector<std::string> names;
    for (int i : r.would_nodes[a]) names.push_back(r.nodes[static_cast<size_t>(i)].name);
    *out += Wrapped(TerminalSafe("would " + std::string(WouldPhrase(a)) + " " +
                                 NodesText(names.size()) + ": " + CompressHostlistSorted(names)),
                    "  ", "    ");
  }
  Table t({"NODE", "SU", "WOULD", "VERDICT", "STATE", "FAILED CHECKS"},
          {NameWidth(r), SuWidth(r), 13, 8, 18, 0}, {false, false, false, false, false, false});
  size_t shown = 0;
  for (const NodeRow* n : rows) {
    if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
    const std::string checks = ChecksText(*n);
    t.Row({n->name, r.sus[static_cast<size_t>(n->su)].name, WouldText(*n),
           n->verdict.empty() ? "-" : n->verdict, StateText(*n), checks.empty() ? "-" : checks});
  }
  *out += t.Render() + More(std::min<size_t>(rows.size(), kTextMaxRows), rows.size(), "nodes");
}

void BadRails(const Report& r, std::string* out) {
  std::vector<const NodeRow*> rows;
  for (const NodeRow& n : r.nodes)
    if (n.Unhealthy()) rows.push_back(&n);
  *out += "\nNODES WITH DEGRADED OR DOWN RAILS (rail:state; counters from the history)\n";
  if (rows.empty()) {
    *out += "  none\n";
    return;
  }
  const bool observe = r.observe > 0;
  std::vector<std::string> head = {"NODE", "SU", "BAD RAILS", "FAILED CHECKS", "COUNTER RATES"};
  std::vector<size_t> widths = {NameWidth(r), SuWidth(r), 20, 30, 0};
  if (observe) {
    head.insert(head.begin() + 4, "WOULD");
    widths.insert(widths.begin() + 4, 13);
  }
  Table t(head, widths, std::vector<bool>(head.size(), false));
  size_t shown = 0;
  for (const NodeRow* n : rows) {
    if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
    const std::string rates = RatesText(*n);
    std::vector<std::string> row = {n->name, r.sus[static_cast<size_t>(n->su)].name,
                                    BadRailsText(r, *n), ChecksText(*n),
                                    rates.empty() ? "-" : rates};
    if (observe) row.insert(row.begin() + 4, WouldText(*n));
    t.Row(std::move(row));
  }
  *out += t.Render() + More(std::min<size_t>(rows.size(), kTextMaxRows), rows.size(), "nodes");
}

void Jobs(const Report& r, std::string* out) {
  *out += "\nRUNNING JOBS ON DEGRADED PATHS (a node of the job has a degraded or down rail)\n";
  if (r.degraded_jobs.empty()) {
    *out += "  none\n";
    return;
  }
  Table t({"JOBID", "USER", "NODES", "SUS", "BAD NODES", "NAME"}, {10, 10, 5, 14, 24, 0},
          {false, false, true, false, false, false});
  size_t shown = 0;
  for (const JobRow& j : r.degraded_jobs) {
    if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
    std::vector<std::string> bad;
    for (int i : j.bad_nodes) bad.push_back(r.nodes[static_cast<size_t>(i)].name);
    std::string sus;
    for (const std::string& s : j.sus) sus += (sus.empty() ? "" : ",") + s;
    t.Row({std::to_string(j.id), j.user, std::to_string(j.node_count), sus,
           CompressHostlistSorted(bad), j.name});
  }
  *out += t.Render() + More(std::min<size_t>(r.degraded_jobs.size(), kTextMaxRows),
                            r.degraded_jobs.size(), "jobs");
}

void JobPaths(const Report& r, std::string* out) {
  if (!r.jobs_read) return;
  *out += "\nJOBS THAT RAN ON A SLOW OR ERRING PATH (job log, ended in the last 24h): " +
          std::to_string(r.jobs_with_findings.size()) + " of " +
          std::to_string(r.jobs_recorded) + " recorded jobs\n";
  if (r.jobs_with_findings.empty()) {
    *out += "  none\n";
    return;
  }
  size_t shown = 0;
  for (const JobFabric& j : r.jobs_with_findings) {
    if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
    *out += "  job " + std::to_string(j.job) + " on " + CompressHostlistSorted(j.nodes) +
            ", ended " + FormatTime(j.end) + ": " + std::to_string(j.findings.size()) +
            " finding" + (j.findings.size() == 1 ? "" : "s") + " (railctl job " +
            std::to_string(j.job) + ")\n";
    for (size_t k = 0; k < j.findings.size() && k < 3; ++k)
      *out += "    " + j.findings[k].kind + ": " + j.findings[k].message + "\n";
    if (j.findings.size() > 3)
      *out += "    ... " + std::to_string(j.findings.size() - 3) + " more\n";
  }
  *out += More(std::min<size_t>(r.jobs_with_findings.size(), kTextMaxRows),
               r.jobs_with_findings.size(), "jobs");
}

void HistoryText(const Report& r, std::string* out) {
  *out += "\nHISTORY (events per node and rail; 24h/7d)\n";
  if (!r.history_read) {
    *out += "  no history read\n";
    return;
  }
  struct Row {
    const NodeRow* n;
    int rail;
    int total;
  };
  std::vector<Row> rows;
  for (const NodeRow& n : r.nodes) {
    for (size_t k = 0; k < n.history.size(); ++k) {
      const RailHistory& h = n.history[k];
      const int total = h.flaps[k7d] + h.degradations[k7d];
      if (total > 0) rows.push_back({&n, static_cast<int>(k), total});
    }
    if (n.drains[k7d] + n.restricts[k7d] > 0)
      rows.push_back({&n, -1, n.drains[k7d] + n.restricts[k7d]});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.total > b.total; });
  if (rows.empty()) {
    *out += "  no events in the last 7 days (" + std::to_string(r.history_events) + " read)\n";
    return;
  }
  Table t({"NODE", "RAIL", "FLAPS", "DEGRADED", "DRAINS", "RESTRICTS", "LAST EVENT (UTC)"},
          {NameWidth(r), 4, 7, 8, 7, 9, 0}, {false, true, true, true, true, true, false});
  const auto pair = [](const std::array<int, 2>& a) {
    return std::to_string(a[k24h]) + "/" + std::to_string(a[k7d]);
  };
  size_t shown = 0;
  for (const Row& row : rows) {
    if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
    if (row.rail < 0) {
      t.Row({row.n->name, "node", "-", "-", pair(row.n->drains), pair(row.n->restricts),
             row.n->events.empty() ? "-" : FormatTime(row.n->events.front().time)});
    } else {
      const RailHistory& h = row.n->history[static_cast<size_t>(row.rail)];
      t.Row({row.n->name, std::to_string(row.rail), pair(h.flaps), pair(h.degradations), "-", "-",
             FormatTime(h.last_event)});
    }
  }
  *out += t.Render() + More(std::min<size_t>(rows.size(), kTextMaxRows), rows.size(), "rows");
  *out += "\nREPEAT OFFENDERS (at least " + std::to_string(kRepeatOffenderIncidents) +
          " incidents in 7 days; events less than " + FormatAge(kIncidentGapSeconds) +
          " apart are one incident)\n";
  if (r.offenders.empty()) {
    *out += "  none\n";
    return;
  }
  Table o({"NODE", "INCIDENTS", "EVENTS", "FLAPS", "DEGRADED", "DRAINS",
           "RAILS (most events first)"},
          {NameWidth(r), 9, 6, 5, 8, 6, 0}, {false, true, true, true, true, true, false});
  shown = 0;
  for (const Offender& off : r.offenders) {
    if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
    std::string rails;
    for (int k : off.rails) rails += (rails.empty() ? "" : ",") + std::to_string(k);
    o.Row({r.nodes[static_cast<size_t>(off.node)].name, std::to_string(off.incidents),
           std::to_string(off.events),
           std::to_string(off.flaps), std::to_string(off.degradations), std::to_string(off.drains),
           rails.empty() ? "-" : rails});
  }
  *out += o.Render() +
          More(std::min<size_t>(r.offenders.size(), kTextMaxRows), r.offenders.size(), "nodes");
}

// The fleet's rail NIC firmware (only when some node published it).
void Firmware(const Report& r, std::string* out) {
  bool any = false;
  for (const FirmwareRail& fr : r.firmware) any = any || !fr.versions.empty();
  if (!any) return;
  *out += "\nNIC FIRMWARE PER RAIL (fw_ver from railcheck; nodes not on the majority version)\n";
  Table t({"RAIL", "NIC", "VERSIONS (NODES)", "NOT ON THE MAJORITY"}, {8, 8, 36, 0},
          {false, false, false, false});
  for (const FirmwareRail& fr : r.firmware) {
    if (fr.versions.empty()) continue;
    const size_t k = static_cast<size_t>(fr.rail);
    std::string versions;
    for (const FirmwareVersion& v : fr.versions)
      versions += (versions.empty() ? "" : ", ") + v.fw + " (" + std::to_string(v.nodes) + ")";
    std::vector<std::string> differ;
    for (int i : fr.differ) differ.push_back(r.nodes[static_cast<size_t>(i)].name);
    std::string off = differ.empty() ? "-" : CompressHostlistSorted(differ);
    if (!differ.empty() && fr.majority.empty()) off += " (no majority)";
    t.Row({k < r.rail_names.size() ? r.rail_names[k] : "rail" + std::to_string(k),
           k < r.rail_nics.size() ? r.rail_nics[k] : "?", versions, off});
  }
  *out += t.Render();
}

void Notes(const Report& r, std::string* out) {
  if (!r.notes.empty()) {
    *out += "\nNOTES\n";
    for (const std::string& n : r.notes) *out += Cut("  - " + TerminalSafe(n), kWidth) + "\n";
  }
  if (!r.problems.empty()) {
    *out += "\nINPUT PROBLEMS (" + std::to_string(r.problems.size()) + ")\n";
    size_t shown = 0;
    for (const Diag& d : r.problems) {
      if (shown++ >= static_cast<size_t>(kTextMaxRows)) break;
      *out += Cut("  " + TerminalSafe(d.ToString()), kWidth) + "\n";
    }
    *out += More(std::min<size_t>(r.problems.size(), kTextMaxRows), r.problems.size(), "problems");
  }
}

}  // namespace

std::string RenderText(const Report& r) {
  using Section = void (*)(const Report&, std::string*);
  const Section sections[] = {Summary,  Suspects, Matrix,      Capacity, Unavailable, Observe,
                              BadRails, Jobs,     JobPaths,    HistoryText, Firmware, Notes};
  std::string out;
  for (Section section : sections) section(r, &out);
  // The 100-column promise holds whatever the input names are.
  std::string fitted;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    fitted += Cut(out.substr(start, end - start), kWidth) + "\n";
    start = end + 1;
  }
  return fitted;
}

}  // namespace railguard::report
