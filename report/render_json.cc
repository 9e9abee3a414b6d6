// SPDX-License-Identifier: GPL-2.0-or-later
// RenderJson: the report as JSON, schema "railguard-report" (report/SCHEMA.md), built as an
// nlohmann document and written compact, HTML-safe (< > & as \u003c \u003e \u0026).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "report/render.h"
#include "topo/hostlist.h"

namespace railguard::report {
namespace {

using Json = nlohmann::ordered_json;

// A number as the report has always written it: integral values below 1e15, and larger ones
// whose shortest form has no exponent, as integers; other finite values as the shortest text
// that reads back the same; NaN and infinities as null.
Json Number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::floor(v) && std::fabs(v) < 1e15) return static_cast<long long>(v);
  if (v == std::floor(v) && std::fabs(v) < 1e17) {
    char buf[32];
    for (int precision = 6; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
    if (!std::strchr(buf, 'e')) return static_cast<long long>(v);
  }
  return v;
}

Json TimeOrNull(double t) { return t > 0 ? Number(t) : Json(nullptr); }

// `value` when `has`, else null.
Json Opt(bool has, const std::string& value) { return has ? Json(value) : Json(nullptr); }
Json Opt(bool has, long long value) { return has ? Json(value) : Json(nullptr); }

Json Pair(const std::array<int, 2>& a) { return Json{{"24h", a[k24h]}, {"7d", a[k7d]}}; }

Json NodeNames(const Report& r, const std::vector<int>& idx) {
  Json out = Json::array();
  for (int i : idx) out.push_back(r.nodes[static_cast<size_t>(i)].name);
  return out;
}

Json Summary(const Report& r) {
  Json j;
  j["nodes"] = r.nodes.size();
  j["sus"] = r.sus.size();
  j["rails"] = r.rail_names.size();
  j["health"] = {{"healthy", r.healthy},     {"degraded", r.degraded},
                 {"rail_down", r.down_rails_nodes}, {"no_report", r.no_report},
                 {"stale", r.stale}};
  j["drained"] = r.drained;
  j["restricted"] = r.restricted;
  j["down"] = r.down;
  j["idle"] = r.idle;
  j["free"] = r.free;
  j["largest_job"] = {
      {"nodes", r.largest_job},
      {"su", Opt(r.largest_job_su >= 0,
                 r.largest_job_su >= 0 ? r.sus[static_cast<size_t>(r.largest_job_su)].name : "")}};
  j["healthy_feature"] = r.healthy_feature;
  j["healthy_feature_in_use"] = r.feature_in_use;
  Json would = Json::object();
  for (size_t a = 0; a < kWouldActionCount; ++a) would[kWouldActions[a]] = r.would_nodes[a].size();
  j["observe"] = {{"nodes", r.observe}, {"would", std::move(would)}};
  j["over_drain_budget"] = r.over_budget.size();
  return j;
}

Json Suspects(const Report& r) {
  Json out = Json::array();
  for (const Suspect& s : r.suspects) {
    std::vector<std::string> names;
    for (int i : s.nodes) names.push_back(r.nodes[static_cast<size_t>(i)].name);
    Json j;
    j["rank"] = s.rank;
    j["kind"] = s.kind;
    j["component"] = s.component;
    j["title"] = s.title;
    j["confidence"] = s.confidence;
    j["su"] = Opt(s.su >= 0, s.su >= 0 ? r.sus[static_cast<size_t>(s.su)].name : "");
    j["rail"] = Opt(s.rail >= 0, static_cast<long long>(s.rail));
    j["node"] = Opt(s.node >= 0, s.node >= 0 ? r.nodes[static_cast<size_t>(s.node)].name : "");
    j["nic"] = Opt(!s.nic.empty(), s.nic);
    j["leaf"] = Opt(!s.leaf.empty(), s.leaf);
    j["port"] = Opt(s.port > 0, static_cast<long long>(s.port));
    j["port_source"] = Opt(!s.port_source.empty(), s.port_source);
    j["end"] = Opt(!s.end.empty(), s.end);
    j["affected_nodes"] = s.nodes.size();
    j["down"] = s.down;
    j["nodes"] = CompressHostlistSorted(names);
    j["evidence"] = s.evidence;
    out.push_back(std::move(j));
  }
  return out;
}

Json Matrix(const Report& r) {
  Json out = Json::array();
  for (const SuRow& su : r.sus) {
    Json cells = Json::array();
    for (size_t k = 0; k < su.cells.size(); ++k) {
      const Cell& c = su.cells[k];
      Json j;
      j["rail"] = k;
      j["leaf"] = su.leaves[k];
      j["nic"] = su.nics[k];
      j["status"] = RailStateName(c.Worst());
      j["ok"] = c.ok;
      j["degraded"] = c.degraded;
      j["down"] = c.down;
      j["unknown"] = c.unknown;
      j["bad_nodes"] = NodeNames(r, c.bad);
      cells.push_back(std::move(j));
    }
    out.push_back({{"su", su.name}, {"nodes", su.nodes.size()}, {"cells", std::move(cells)}});
  }
  return out;
}

Json Capacity(const Report& r) {
  Json out = Json::array();
  for (const SuRow& su : r.sus) {
    out.push_back({{"su", su.name},
                   {"nodes", su.nodes.size()},
                   {"idle", su.idle},
                   {"free", su.free},
                   {"drained", su.drained},
                   {"restricted", su.restricted},
                   {"down", su.down},
                   {"bad_rail", su.unhealthy},
                   {"no_report", su.no_report},
                   {"largest_job", su.largest_job}});
  }
  return out;
}

Json RailHistoryJson(size_t k, const RailHistory& h) {
  Json j;
  j["rail"] = k;
  j["flaps"] = Pair(h.flaps);
  j["degradations"] = Pair(h.degradations);
  j["recoveries"] = Pair(h.recoveries);
  j["last_event"] = TimeOrNull(h.last_event);
  Json rates = Json::array();
  for (const CounterRate& c : h.rates)
    rates.push_back({{"counter", c.name},
                     {"per_hour", Number(c.per_hour)},
                     {"delta", c.delta},
                     {"seconds", Number(c.seconds)}});
  j["counter_rates"] = std::move(rates);
  j["counter_rates_time"] = TimeOrNull(h.rates_time);
  return j;
}

Json Node(const Report& r, const NodeRow& n) {
  Json j;
  j["name"] = n.name;
  j["su"] = r.sus[static_cast<size_t>(n.su)].name;
  j["position"] = n.position;
  j["in_slurm"] = n.in_slurm;
  j["state"] = Opt(n.in_slurm, n.state);
  j["flags"] = n.flags;
  j["drained"] = n.drained;
  j["drained_by"] = Opt(n.drained, n.drained_by);
  j["reason"] = n.reason;
  j["reason_time"] = TimeOrNull(n.reason_time);
  j["reason_user"] = n.reason_user;
  j["restricted"] = n.restricted;
  j["restricted_since"] = TimeOrNull(n.restricted ? n.restricted_since : 0);
  j["down"] = n.down;
  j["idle"] = n.idle;
  j["free"] = n.free;
  j["attention"] = n.attention;
  j["observe"] = n.observe;
  j["would"] = n.would;
  j["over_drain_budget"] = n.over_budget;
  j["health"] = {{"source", HealthSourceName(n.source)},
                 {"time", TimeOrNull(n.health_time)},
                 {"verdict", Opt(!n.verdict.empty(), n.verdict)},
                 {"stale", n.stale}};
  Json rails = Json::array();
  for (RailState s : n.rails) rails.push_back(RailStateName(s));
  j["rails"] = std::move(rails);
  Json failed = Json::array();
  for (size_t k = 0; k < n.rail_checks.size(); ++k)
    for (const std::string& c : n.rail_checks[k]) failed.push_back("rail" + std::to_string(k) + ":" + c);
  for (const std::string& c : n.node_checks) failed.push_back("node:" + c);
  j["failed"] = std::move(failed);
  Json ports = Json::array();
  for (int p : n.leaf_ports) ports.push_back(Opt(p > 0, static_cast<long long>(p)));
  j["leaf_ports"] = std::move(ports);
  j["jobs"] = n.jobs;
  Json rail_history = Json::array();
  for (size_t k = 0; k < n.history.size(); ++k)
    if (n.history[k].any()) rail_history.push_back(RailHistoryJson(k, n.history[k]));
  j["history"] = {{"drains", Pair(n.drains)},
                  {"restricts", Pair(n.restricts)},
                  {"incidents", Pair(n.incidents)},
                  {"rails", std::move(rail_history)}};
  Json events = Json::array();
  for (const NodeEvent& e : n.events)
    events.push_back({{"time", Number(e.time)},
                      {"event", e.kind},
                      {"rail", Opt(e.rail >= 0, static_cast<long long>(e.rail))},
                      {"checks", e.checks},
                      {"detail", e.detail}});
  j["events"] = std::move(events);
  return j;
}

Json Jobs(const Report& r) {
  Json out = Json::array();
  for (const JobRow& jr : r.degraded_jobs) {
    Json j;
    j["id"] = jr.id;
    j["name"] = jr.name;
    j["user"] = jr.user;
    j["partition"] = jr.partition;
    j["nodes"] = jr.nodes;
    j["node_count"] = jr.node_count;
    j["sus"] = jr.sus;
    j["start_time"] = TimeOrNull(jr.start_time);
    Json degraded = Json::array();
    for (int i : jr.bad_nodes) {
      const NodeRow& n = r.nodes[static_cast<size_t>(i)];
      Json rails = Json::array();
      for (size_t k = 0; k < n.rails.size(); ++k)
        if (n.rails[k] == RailState::kDegraded || n.rails[k] == RailState::kDown)
          rails.push_back({{"rail", k}, {"state", RailStateName(n.rails[k])}});
      degraded.push_back({{"node", n.name}, {"rails", std::move(rails)}});
    }
    j["degraded_nodes"] = std::move(degraded);
    out.push_back(std::move(j));
  }
  return out;
}

Json HistoryJson(const Report& r) {
  Json offenders = Json::array();
  for (const Offender& o : r.offenders) {
    offenders.push_back({{"node", r.nodes[static_cast<size_t>(o.node)].name},
                         {"incidents_7d", o.incidents},
                         {"events_7d", o.events},
                         {"flaps_7d", o.flaps},
                         {"degradations_7d", o.degradations},
                         {"drains_7d", o.drains},
                         {"rails", o.rails}});
  }
  Json j;
  j["read"] = r.history_read;
  j["files"] = r.history_files;
  j["windows_seconds"] = {{"24h", Number(kWindowSeconds[k24h])},
                          {"7d", Number(kWindowSeconds[k7d])}};
  j["events_7d"] = r.history_events;
  j["repeat_offender_threshold"] = kRepeatOffenderIncidents;
  j["incident_gap_seconds"] = Number(kIncidentGapSeconds);
  j["repeat_offenders"] = std::move(offenders);
  return j;
}

// The fleet's rail NIC firmware: per rail, its versions with node counts, the majority
// ("" when none) and the nodes not on it.
Json FirmwareJson(const Report& r) {
  Json out = Json::array();
  for (const FirmwareRail& fr : r.firmware) {
    Json versions = Json::array();
    for (const FirmwareVersion& v : fr.versions)
      versions.push_back({{"fw", v.fw}, {"nodes", v.nodes}});
    std::vector<std::string> differ;
    for (int i : fr.differ) differ.push_back(r.nodes[static_cast<size_t>(i)].name);
    out.push_back({{"rail", fr.rail},
                   {"versions", std::move(versions)},
                   {"majority", fr.majority},
                   {"differ", differ}});
  }
  return out;
}

// Every string of `*j` made valid UTF-8 (each invalid byte as U+FFFD). Keys are this file's.
void FixUtf8(Json* j) {
  if (j->is_string()) {
    std::string& s = j->get_ref<std::string&>();
    if (!IsValidUtf8(s)) s = ValidUtf8(s);
  } else if (j->is_structured()) {
    for (Json& item : *j) FixUtf8(&item);
  }
}

// The compact text of `j` with the report's escapes: < > & as \u003c \u003e \u0026 (safe
// inside an HTML <script> block), DEL as \u007f, \b and \f as \u0008 and \u000c. In valid
// JSON those characters and backslashes occur only inside strings.
std::string HtmlSafeDump(const Json& j) {
  const std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 32);
  size_t done = 0;
  for (size_t i = text.find_first_of("\\<>&\x7f"); i != std::string::npos;
       i = text.find_first_of("\\<>&\x7f", done)) {
    out.append(text, done, i - done);
    const char c = text[i];
    done = i + 1;
    if (c == '\\' && done < text.size()) {
      const char e = text[done++];
      out += e == 'b' ? "\\u0008" : e == 'f' ? "\\u000c" : std::string{'\\', e};
    } else {
      out += c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : c == '&' ? "\\u0026" : "\\u007f";
    }
  }
  out.append(text, done, std::string::npos);
  return out;
}

// `j` as report text: valid UTF-8, compact and HTML-safe.
std::string Text(Json j) {
  FixUtf8(&j);
  return HtmlSafeDump(j);
}

}  // namespace

// The document is written in three parts so that no tree holds every node at once: the
// members before "nodes", the nodes one by one, and the members after them.
std::string RenderJson(const Report& r) {
  Json head;
  head["schema"] = "railguard-report";
  head["version"] = kReportSchemaVersion;
  head["cluster"] = r.cluster;
  head["slurm_cluster"] = r.slurm_cluster;
  head["time"] = Number(r.time);
  head["source"] = r.source;
  Json rails = Json::array();
  for (size_t k = 0; k < r.rail_names.size(); ++k)
    rails.push_back({{"index", k}, {"name", r.rail_names[k]}, {"nic", r.rail_nics[k]}});
  head["rails"] = std::move(rails);
  head["summary"] = Summary(r);
  head["sweep"] = r.sweep_file.empty() ? Json(nullptr)
                                       : Json{{"file", r.sweep_file},
                                              {"time", Number(r.sweep_time)},
                                              {"complete", r.sweep_complete}};
  head["suspects"] = Suspects(r);
  head["matrix"] = Matrix(r);
  head["capacity"] = Capacity(r);
  Json tail;
  tail["jobs_on_degraded_paths"] = Jobs(r);
  if (r.jobs_read) {
    Json jobs = Json::array();
    for (const JobFabric& j : r.jobs_with_findings) {
      Json findings = Json::array();
      for (const JobFabricFinding& f : j.findings)
        findings.push_back({{"kind", f.kind},
                            {"node", f.node},
                            {"rail", f.rail},
                            {"nic", f.nic},
                            {"leaf", Opt(!f.leaf.empty(), f.leaf)},
                            {"message", f.message}});
      jobs.push_back({{"job", j.job},
                      {"nodes", CompressHostlistSorted(j.nodes)},
                      {"start", Number(j.start)},
                      {"end", Number(j.end)},
                      {"findings", std::move(findings)}});
    }
    tail["jobs_fabric"] = {{"window_seconds", 86400},
                           {"recorded", r.jobs_recorded},
                           {"with_findings", std::move(jobs)}};
  } else {
    tail["jobs_fabric"] = nullptr;
  }
  tail["history"] = HistoryJson(r);
  tail["firmware"] = FirmwareJson(r);
  tail["nodes_not_in_topology"] = r.extra_nodes;
  tail["notes"] = r.notes;
  Json problems = Json::array();
  for (const Diag& d : r.problems)
    problems.push_back({{"file", d.file},
                        {"line", Opt(d.line > 0, static_cast<long long>(d.line))},
                        {"message", d.message},
                        {"text", d.ToString()}});
  tail["problems"] = std::move(problems);
  std::string out = Text(std::move(head));
  out.pop_back();  // its closing '}'
  out.reserve(out.size() + r.nodes.size() * 1100 + 4096);
  out += ",\"nodes\":[";
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    if (i > 0) out += ',';
    out += Text(Node(r, r.nodes[i]));
  }
  out += "],";
  out += Text(std::move(tail)).substr(1);  // without its opening '{'
  return out + "\n";
}

}  // namespace railguard::report
