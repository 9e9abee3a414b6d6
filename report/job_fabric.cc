// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/job_fabric.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "topo/hostlist.h"

namespace railguard::report {
namespace {

using JobJson = nlohmann::ordered_json;

std::string JobUtc(double t) {
  const time_t tt = static_cast<time_t>(t);
  struct tm tm;
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The leaf switch node `node`'s rail `rail` reaches, or "".
std::string LeafOf(const topo::Topology& t, const std::string& node, int rail) {
  const topo::NodeRef* ref = t.FindNode(node);
  if (!ref || ref->domain < 0 || ref->su < 0) return "";
  const topo::Domain& d = t.domains[ref->domain];
  if (rail < 0 || rail >= static_cast<int>(d.leaves.size()) || d.leaves[rail] < 0) return "";
  const topo::ScalableUnit& su = t.sus[ref->su];
  return topo::LeafName(su, su.leaves[d.leaves[rail]]);
}

template <typename T>
T Median(std::vector<T> v) {
  if (v.empty()) return T();
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
  return buf;
}

// The rows of one node's record and its findings.
void JudgeNode(const wire::JobNodeRecord& rec, const topo::Topology* topo,
               const JobFabricOptions& o, JobFabric* f) {
  std::vector<uint64_t> traffic, waits;
  for (const wire::JobRail& r : rec.rails) {
    if (!r.known()) continue;
    traffic.push_back(r.xmit_bytes + r.rcv_bytes);
    waits.push_back(r.xmit_wait);
  }
  const uint64_t median = Median(traffic);
  const uint64_t median_wait = Median(waits);
  for (const wire::JobRail& r : rec.rails) {
    JobFabricRow row;
    row.node = rec.node;
    row.rail = r.rail;
    row.leaf = topo ? LeafOf(*topo, rec.node, r.rail) : "";
    row.data = r;
    const std::string where = rec.node + " rail" + std::to_string(r.rail) + " " + r.nic +
                              (row.leaf.empty() ? "" : " (leaf " + row.leaf + ")");
    auto add = [&](const char* kind, const std::string& msg) {
      f->findings.push_back({kind, rec.node, r.rail, r.nic, row.leaf, where + ": " + msg});
    };
    if (!r.known()) {
      add("unknown", "no numbers: " + r.unknown);
    } else {
      const uint64_t t = r.xmit_bytes + r.rcv_bytes;
      if (median >= o.min_median_bytes && traffic.size() > 1) {
        row.share = static_cast<double>(t) / static_cast<double>(median);
        if (row.share < o.slow_fraction)
          add("slow", "carried " + FormatBytes(static_cast<double>(t)) + ", " +
                          Percent(row.share) + " of the node's median rail (" +
                          FormatBytes(static_cast<double>(median)) + "): the job's slow path");
      }
      if (r.xmit_wait >= o.min_wait &&
          static_cast<double>(r.xmit_wait) > o.wait_factor * static_cast<double>(median_wait))
        add("waiting", "port_xmit_wait rose " + std::to_string(r.xmit_wait) +
                           " ticks, against a median of " + std::to_string(median_wait) +
                           " on the node's rails: it waited on the fabric");
      if (r.ErrorCount() > 0) {
        std::string list;
        for (const auto& e : r.errors)
          list += (list.empty() ? "" : ", ") + e.first + " +" + std::to_string(e.second);
        add("errors", "error counters rose during the job: " + list);
      }
    }
    f->rows.push_back(std::move(row));
  }
}

}  // namespace

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 || bytes >= 100 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

JobFabric JoinJob(uint64_t job, const std::vector<wire::JobNodeRecord>& records,
                  const topo::Topology* topo, const std::vector<wire::HealthEvent>& events,
                  const JobFabricOptions& options) {
  JobFabric f;
  f.job = job;
  // The latest record per node; how many earlier ones it had.
  std::map<std::string, const wire::JobNodeRecord*> latest;
  std::map<std::string, int> runs;
  for (const wire::JobNodeRecord& r : records) {
    if (r.job != job) continue;
    ++runs[r.node];
    const wire::JobNodeRecord*& l = latest[r.node];
    if (!l || r.end >= l->end) l = &r;
  }
  for (const auto& kv : latest) f.nodes.push_back(kv.first);
  std::sort(f.nodes.begin(), f.nodes.end(), HostLess);
  std::vector<uint64_t> shared;
  bool first = true;
  for (const std::string& node : f.nodes) {
    const wire::JobNodeRecord& r = *latest[node];
    f.start = first ? r.start : std::min(f.start, r.start);
    f.end = first ? r.end : std::max(f.end, r.end);
    first = false;
    JudgeNode(r, topo, options, &f);
    for (uint64_t s : r.shared_with)
      if (std::find(shared.begin(), shared.end(), s) == shared.end()) shared.push_back(s);
    if (runs[node] > 1)
      f.notes.push_back(node + ": " + std::to_string(runs[node] - 1) +
                        " earlier run(s) of the job (requeued); the latest is shown");
    if (topo && !topo->FindNode(node))
      f.notes.push_back(node + " is not in the topology: no leaf names");
  }
  if (!shared.empty()) {
    std::sort(shared.begin(), shared.end());
    std::string ids;
    for (uint64_t s : shared) ids += (ids.empty() ? "" : ", ") + std::to_string(s);
    f.notes.push_back("nodes shared with job(s) " + ids +
                      ": the counters are the nodes' and hold their traffic too");
  }
  std::map<int, JobFabricRail> rails;
  for (const JobFabricRow& row : f.rows) {
    JobFabricRail& t = rails[row.rail];
    t.rail = row.rail;
    ++t.nodes;
    if (!row.data.known()) continue;
    ++t.nodes_known;
    t.xmit_bytes += row.data.xmit_bytes;
    t.rcv_bytes += row.data.rcv_bytes;
    t.xmit_wait += row.data.xmit_wait;
    t.errors += row.data.ErrorCount();
  }
  for (const auto& kv : rails) f.rails.push_back(kv.second);
  for (const wire::HealthEvent& e : events) {
    if (e.time < f.start || e.time > f.end) continue;
    if (latest.count(e.node)) f.events.push_back(e);
  }
  return f;
}

std::string JobFabricText(const JobFabric& f) {
  std::string out = "job " + std::to_string(f.job) + ": ";
  if (f.nodes.empty()) return out + "no record in the job log\n";
  char line[256];
  out += std::to_string(f.nodes.size()) + " node" + (f.nodes.size() == 1 ? "" : "s") + " (" +
         CompressHostlistSorted(f.nodes) + "), " + JobUtc(f.start) + " to " +
         JobUtc(f.end) + " (" + std::to_string(static_cast<long long>(f.end - f.start)) + " s)\n";
  std::snprintf(line, sizeof line, "  %-6s %12s %12s %14s %8s %7s\n", "rail", "sent", "received",
                "xmit_wait", "errors", "nodes");
  out += line;
  for (const JobFabricRail& r : f.rails) {
    std::snprintf(line, sizeof line, "  rail%-2d %12s %12s %14llu %8llu %3d/%d\n", r.rail,
                  FormatBytes(static_cast<double>(r.xmit_bytes)).c_str(),
                  FormatBytes(static_cast<double>(r.rcv_bytes)).c_str(),
                  static_cast<unsigned long long>(r.xmit_wait),
                  static_cast<unsigned long long>(r.errors), r.nodes_known, r.nodes);
    out += line;
  }
  if (f.findings.empty()) {
    out += "findings: none (every rail of every node carried its share, no errors)\n";
  } else {
    out += "findings:\n";
    for (const JobFabricFinding& x : f.findings) out += "  " + x.kind + ": " + x.message + "\n";
    out += "nodes with findings, rail by rail:\n";
    std::snprintf(line, sizeof line, "  %-10s %-6s %-9s %-12s %11s %11s %11s %12s %6s\n", "node",
                  "rail", "nic", "leaf", "sent", "received", "peak out/s", "xmit_wait", "share");
    out += line;
    for (const JobFabricRow& row : f.rows) {
      bool listed = false;
      for (const JobFabricFinding& x : f.findings) listed = listed || x.node == row.node;
      if (!listed) continue;
      const wire::JobRail& d = row.data;
      if (!d.known()) {
        std::snprintf(line, sizeof line, "  %-10s rail%-2d %-9s %-12s %s\n", row.node.c_str(),
                      row.rail, d.nic.c_str(), row.leaf.empty() ? "-" : row.leaf.c_str(),
                      "(no numbers)");
      } else {
        std::snprintf(line, sizeof line, "  %-10s rail%-2d %-9s %-12s %11s %11s %11s %12llu %6s\n",
                      row.node.c_str(), row.rail, d.nic.c_str(),
                      row.leaf.empty() ? "-" : row.leaf.c_str(),
                      FormatBytes(static_cast<double>(d.xmit_bytes)).c_str(),
                      FormatBytes(static_cast<double>(d.rcv_bytes)).c_str(),
                      d.peak_xmit_bps > 0 ? FormatBytes(d.peak_xmit_bps).c_str() : "-",
                      static_cast<unsigned long long>(d.xmit_wait),
                      row.share >= 0 ? Percent(row.share).c_str() : "-");
      }
      out += line;
    }
  }
  if (!f.events.empty()) {
    out += "railcheck events on its nodes during the job:\n";
    for (const wire::HealthEvent& e : f.events)
      out += "  " + JobUtc(e.time) + " " + e.node + " " +
             (e.rail >= 0 ? "rail" + std::to_string(e.rail) + " " : std::string()) +
             wire::EventKindName(e.kind) + (e.detail.empty() ? "" : ": " + e.detail) + "\n";
  }
  for (const JobApp& a : f.apps) {
    // Bandwidths with one decimal ("338.8 GB/s"), seconds with three digits ("1.28 s").
    auto num = [](double v, const char* unit) {
      char b[48];
      std::snprintf(b, sizeof b, unit[1] == 'G' ? "%.1f%s" : "%.3g%s", v, unit);
      return v >= 0 ? std::string(b) : std::string("?");
    };
    std::string what;
    if (a.kind == "step-times") {
      what = std::to_string(a.steps) + " steps; median " + num(a.step_median_s, " s") + ", p95 " +
             num(a.step_p95_s, " s") + ", slowest " + num(a.step_max_s, " s") + " (step " +
             std::to_string(a.step_max_at) + ")";
    } else if (a.kind == "nccl-inspector") {
      what = std::to_string(a.collectives) + " collectives across nodes (up to " +
             std::to_string(a.ranks) + " ranks) on " + std::to_string(a.hosts.size()) +
             " hosts; bus bandwidth " + num(a.avg_busbw, " GB/s") + " median, " +
             num(a.peak_busbw, " GB/s") + " at best (" +
             FormatBytes(static_cast<double>(a.peak_bytes)) + " messages)";
    } else {
      what = std::to_string(a.ranks) + " ranks on " + std::to_string(a.hosts.size()) +
             " hosts; bus bandwidth " + num(a.avg_busbw, " GB/s") + " on average, " +
             num(a.peak_busbw, " GB/s") + " at best (" +
             FormatBytes(static_cast<double>(a.peak_bytes)) + " messages)";
    }
    out += "application (" + a.kind + ", " + a.file + "): " + what + "\n";
    if (!a.others.empty()) {
      std::string list;
      for (size_t i = 0; i < a.others.size() && i < 8; ++i)
        list += (i ? ", " : "") + a.others[i];
      if (a.others.size() > 8) list += " and " + std::to_string(a.others.size() - 8) + " more";
      out += "  its hosts " + list + " are not among the job's nodes\n";
    }
  }
  for (const std::string& n : f.notes) out += "note: " + n + "\n";
  return out;
}

std::string JobFabricJson(const JobFabric& f) {
  JobJson j;
  j["job"] = f.job;
  j["nodes"] = f.nodes;
  j["start"] = f.start;
  j["end"] = f.end;
  JobJson rails = JobJson::array();
  for (const JobFabricRail& r : f.rails)
    rails.push_back({{"rail", r.rail},
                     {"xmit_bytes", r.xmit_bytes},
                     {"rcv_bytes", r.rcv_bytes},
                     {"xmit_wait", r.xmit_wait},
                     {"errors", r.errors},
                     {"nodes_known", r.nodes_known},
                     {"nodes", r.nodes}});
  j["rails"] = rails;
  JobJson rows = JobJson::array();
  for (const JobFabricRow& row : f.rows) {
    JobJson o;
    o["node"] = row.node;
    o["rail"] = row.rail;
    o["nic"] = row.data.nic;
    o["leaf"] = row.leaf.empty() ? JobJson() : JobJson(row.leaf);
    if (!row.data.known()) {
      o["unknown"] = row.data.unknown;
    } else {
      o["xmit_bytes"] = row.data.xmit_bytes;
      o["rcv_bytes"] = row.data.rcv_bytes;
      o["xmit_wait"] = row.data.xmit_wait;
      o["peak_xmit_bps"] = row.data.peak_xmit_bps;
      o["peak_rcv_bps"] = row.data.peak_rcv_bps;
      JobJson e = JobJson::object();
      for (const auto& x : row.data.errors) e[x.first] = x.second;
      o["errors"] = e;
      o["share"] = row.share >= 0 ? JobJson(row.share) : JobJson();
    }
    rows.push_back(o);
  }
  j["nodes_rails"] = rows;
  JobJson findings = JobJson::array();
  for (const JobFabricFinding& x : f.findings)
    findings.push_back({{"kind", x.kind},
                        {"node", x.node},
                        {"rail", x.rail},
                        {"nic", x.nic},
                        {"leaf", x.leaf.empty() ? JobJson() : JobJson(x.leaf)},
                        {"message", x.message}});
  j["findings"] = findings;
  JobJson events = JobJson::array();
  for (const wire::HealthEvent& e : f.events)
    events.push_back({{"time", e.time},
                      {"node", e.node},
                      {"event", wire::EventKindName(e.kind)},
                      {"rail", e.rail},
                      {"detail", e.detail}});
  j["events"] = events;
  JobJson apps = JobJson::array();
  for (const JobApp& a : f.apps)
    apps.push_back({{"file", a.file},
                    {"kind", a.kind},
                    {"ranks", a.ranks},
                    {"hosts", a.hosts},
                    {"hosts_not_in_job", a.others},
                    {"avg_busbw_gbs", a.avg_busbw >= 0 ? JobJson(a.avg_busbw) : JobJson()},
                    {"peak_busbw_gbs", a.peak_busbw >= 0 ? JobJson(a.peak_busbw) : JobJson()},
                    {"peak_bytes", a.peak_bytes},
                    {"collectives", a.collectives},
                    {"steps", a.steps},
                    {"step_median_s", a.step_median_s >= 0 ? JobJson(a.step_median_s) : JobJson()},
                    {"step_p95_s", a.step_p95_s >= 0 ? JobJson(a.step_p95_s) : JobJson()},
                    {"step_max_s", a.step_max_s >= 0 ? JobJson(a.step_max_s) : JobJson()},
                    {"step_max_at", a.step_max_at}});
  j["applications"] = apps;
  j["notes"] = f.notes;
  return j.dump(1, ' ', false, JobJson::error_handler_t::replace) + "\n";
}

}  // namespace railguard::report
