// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/job_list.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "report/render.h"
#include "report/report.h"
#include "topo/hostlist.h"

namespace railguard::report {
namespace {

// Sent + received per node and second over the job's rails with numbers.
double BytesPerNodeSecond(const JobFabric& f) {
  double bytes = 0;
  int nodes = 0;
  for (const JobFabricRail& r : f.rails) {
    bytes += static_cast<double>(r.xmit_bytes + r.rcv_bytes);
    nodes = std::max(nodes, r.nodes_known);
  }
  const double s = f.end - f.start;
  return nodes > 0 && s > 0 ? bytes / nodes / s : 0;
}

std::string PromNumber(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

std::vector<JobFabric> JoinRecentJobs(const std::vector<wire::JobNodeRecord>& records,
                                      double since, double until, const topo::Topology* topo,
                                      const std::vector<wire::HealthEvent>& events) {
  std::map<uint64_t, double> end;
  for (const wire::JobNodeRecord& r : records) end[r.job] = std::max(end[r.job], r.end);
  std::vector<JobFabric> out;
  for (const auto& kv : end) {
    if (kv.second < since || kv.second > until) continue;
    out.push_back(JoinJob(kv.first, records, topo, events));
  }
  std::sort(out.begin(), out.end(), [](const JobFabric& a, const JobFabric& b) {
    return a.end != b.end ? a.end > b.end : a.job > b.job;
  });
  return out;
}

std::string JobListText(const std::vector<JobFabric>& jobs, double since, double until) {
  std::string out = "jobs that ended " + FormatTime(since) + " to " + FormatTime(until) + " UTC: " +
                    std::to_string(jobs.size()) + "\n";
  if (jobs.empty()) return out;
  char line[512];
  std::snprintf(line, sizeof line, "  %-10s %-20s %-16s %8s %13s  %s\n", "job", "nodes", "ended",
                "seconds", "per node", "findings");
  out += line;
  for (int with = 1; with >= 0; --with) {
    for (const JobFabric& f : jobs) {
      if (f.findings.empty() == (with == 1)) continue;
      std::string nodes = CompressHostlistSorted(f.nodes);
      if (nodes.size() > 20) nodes = nodes.substr(0, 17) + "...";
      const std::string first =
          f.findings.empty() ? "none"
                             : std::to_string(f.findings.size()) + ": " + f.findings[0].message;
      std::snprintf(line, sizeof line, "  %-10llu %-20s %-16s %8lld %11s/s  %s\n",
                    static_cast<unsigned long long>(f.job), nodes.c_str(), FormatTime(f.end).c_str(),
                    static_cast<long long>(f.end - f.start),
                    FormatBytes(BytesPerNodeSecond(f)).c_str(), first.c_str());
      out += line;
    }
  }
  return out;
}

std::string JobListJson(const std::vector<JobFabric>& jobs, double since, double until) {
  nlohmann::ordered_json j;
  j["since"] = since;
  j["until"] = until;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const JobFabric& f : jobs) list.push_back(nlohmann::ordered_json::parse(JobFabricJson(f)));
  j["jobs"] = list;
  return j.dump(1) + "\n";
}

std::string JobListPrometheus(const std::vector<JobFabric>& jobs) {
  std::string out;
  auto family = [&](const char* name, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
  };
  auto sample = [&](const char* name, const std::string& labels, double v) {
    out += std::string(name) + "{" + labels + "} " + PromNumber(v) + "\n";
  };
  auto rail_labels = [](const JobFabric& f, int rail) {
    return "job=\"" + std::to_string(f.job) + "\",rail=\"" + std::to_string(rail) + "\"";
  };
  family("railguard_job_rail_bytes_per_node_second",
         "bytes sent and received per node and second on the rail during the job");
  for (const JobFabric& f : jobs) {
    const double s = f.end - f.start;
    for (const JobFabricRail& r : f.rails)
      if (r.nodes_known > 0 && s > 0)
        sample("railguard_job_rail_bytes_per_node_second", rail_labels(f, r.rail),
               static_cast<double>(r.xmit_bytes + r.rcv_bytes) / r.nodes_known / s);
  }
  family("railguard_job_rail_min_share",
         "the lowest share of any node's rail against that node's median rail (1 = balanced)");
  for (const JobFabric& f : jobs) {
    std::map<int, double> low;
    for (const JobFabricRow& row : f.rows)
      if (row.share >= 0 && (!low.count(row.rail) || row.share < low[row.rail]))
        low[row.rail] = row.share;
    for (const auto& kv : low) sample("railguard_job_rail_min_share", rail_labels(f, kv.first), kv.second);
  }
  family("railguard_job_rail_xmit_wait_share",
         "the rail's part of the port_xmit_wait of all the job's rails");
  for (const JobFabric& f : jobs) {
    double total = 0;
    for (const JobFabricRail& r : f.rails) total += static_cast<double>(r.xmit_wait);
    if (total <= 0) continue;
    for (const JobFabricRail& r : f.rails)
      if (r.nodes_known > 0)
        sample("railguard_job_rail_xmit_wait_share", rail_labels(f, r.rail),
               static_cast<double>(r.xmit_wait) / total);
  }
  family("railguard_job_rail_errors", "error counter rises on the rail's ports during the job");
  for (const JobFabric& f : jobs)
    for (const JobFabricRail& r : f.rails)
      if (r.nodes_known > 0)
        sample("railguard_job_rail_errors", rail_labels(f, r.rail), static_cast<double>(r.errors));
  family("railguard_job_findings", "the job's fabric findings by kind (railctl job)");
  for (const JobFabric& f : jobs) {
    std::map<std::string, int> kinds = {{"slow", 0}, {"waiting", 0}, {"errors", 0}, {"unknown", 0}};
    for (const JobFabricFinding& x : f.findings) ++kinds[x.kind];
    for (const auto& kv : kinds)
      sample("railguard_job_findings",
             "job=\"" + std::to_string(f.job) + "\",kind=\"" + PrometheusLabelValue(kv.first) + "\"",
             kv.second);
  }
  family("railguard_job_end_time_seconds", "when the job's last Epilog read its counters");
  for (const JobFabric& f : jobs)
    sample("railguard_job_end_time_seconds", "job=\"" + std::to_string(f.job) + "\"", f.end);
  return out;
}

}  // namespace railguard::report
