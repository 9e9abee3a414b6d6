// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace railguard::health {
namespace {

using nlohmann::json;

std::string RailSummary(const Verdict& v) {
  int ok = 0, degraded = 0, down = 0;
  for (const RailHealth& r : v.rails) {
    if (r.status == RailStatus::kOk) ++ok;
    if (r.status == RailStatus::kDegraded) ++degraded;
    if (r.status == RailStatus::kDown) ++down;
  }
  std::string s = "rails: " + std::to_string(ok) + " ok";
  if (degraded) s += ", " + std::to_string(degraded) + " degraded";
  if (down) s += ", " + std::to_string(down) + " down";
  return s;
}

template <typename T, typename F>
json FactJson(const Fact<T>& f, F value) {
  if (f.ok()) return value(*f.value);
  return json{{"error", f.error}};
}

}  // namespace

std::string ReportText(const RunReport& r) {
  std::string out = "railcheck " + r.node + " " + r.mode + (r.dry_run ? " (dry run)" : "") + ": ";
  if (r.verdict) {
    out += std::string(LevelName(r.verdict->level)) + " (" + RailSummary(*r.verdict) + ")\n";
    for (const Finding& f : r.verdict->findings) {
      char action[16];
      std::snprintf(action, sizeof(action), "%-9s", HealthActionName(f.action));
      out += "  " + std::string(action) + f.message + "\n";
    }
  } else {
    out += "baseline\n";
  }
  for (const std::string& p : r.problems) out += "error: " + p + "\n";
  for (const std::string& a : r.actions)
    out += std::string(r.dry_run ? "would: " : "slurm: ") + a + "\n";
  if (!r.events.empty()) {
    out += "events: ";
    for (size_t i = 0; i < r.events.size(); ++i) out += (i ? ", " : "") + r.events[i];
    out += " -> " + r.events_log + "\n";
  }
  if (!r.job.empty()) out += "job: " + r.job + "\n";
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

std::string ReportJson(const RunReport& r) {
  json j = json::object();
  j["node"] = r.node;
  j["mode"] = r.mode;
  j["dry_run"] = r.dry_run;
  j["exit_code"] = r.exit_code;
  if (r.verdict) j["verdict"] = LevelName(r.verdict->level);
  json rails = json::array();
  if (r.facts) {
    for (const NicFacts& n : r.facts->nics) {
      json rail = {{"rail", n.rail}, {"nic", n.name}};
      if (r.verdict && n.rail < static_cast<int>(r.verdict->rails.size()))
        rail["status"] = wire::RailStateName(r.verdict->rails[n.rail].status);
      rail["present"] = n.present;
      if (!n.complete) rail["gathered"] = false;
      if (!n.pci.empty()) rail["pci"] = n.pci;
      if (n.present && n.port_error.empty()) {
        const PortFacts& p = n.port;
        rail["port"] = p.number;
        rail["source"] = p.source;
        rail["state"] = FactJson(p.state, [&](const PortStateValue&) { return p.state.raw; });
        rail["phys_state"] =
            FactJson(p.phys_state, [&](const PortStateValue&) { return p.phys_state.raw; });
        rail["rate"] = FactJson(p.rate, [&](const RateValue&) { return p.rate.raw; });
        rail["link_layer"] = FactJson(p.link_layer, [](const std::string& s) { return s; });
      }
      rails.push_back(rail);
    }
    int present = 0;
    for (const GpuFacts& g : r.facts->gpus) present += g.present ? 1 : 0;
    j["gpus"] = {
        {"expected", r.gpus_expected}, {"present", present}, {"source", r.facts->gpu_source}};
    j["gather_ms"] = r.facts->gather_ms;
  }
  j["rails"] = rails;
  json findings = json::array();
  if (r.verdict) {
    for (const Finding& f : r.verdict->findings) {
      findings.push_back({{"check", f.check},
                          {"rail", f.rail},
                          {"severity", SeverityName(f.severity)},
                          {"action", HealthActionName(f.action)},
                          {"message", f.message}});
    }
  }
  j["findings"] = findings;
  j["slurm"] = r.actions;
  j["errors"] = r.problems;
  j["events"] = r.events;
  if (!r.events_log.empty()) j["events_log"] = r.events_log;
  if (!r.job.empty()) j["job"] = r.job;
  j["warnings"] = r.warnings;
  j["total_ms"] = r.total_ms;
  j["slurm_rpcs"] = {{"get_node", r.slurm_reads}, {"update_node", r.slurm_writes}};
  return j.dump(1) + "\n";
}

}  // namespace railguard::health
