// SPDX-License-Identifier: GPL-2.0-or-later
// Builders shared by the report tests: the dev layout (etc/dev-4su.yaml), healthy snapshots of
// it, and railcheck Extra values, so each test states only the faults it is about.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "report/report.h"
#include "report/snapshot.h"
#include "topo/topology_yaml.h"
#include "wire/job_log.h"

namespace railguard::report::testing {

inline const std::string kSrc = RAILGUARD_SOURCE_DIR;
inline const std::string kDevYaml = kSrc + "/etc/dev-4su.yaml";
inline const std::string kFaultsSnapshot = kSrc + "/tests/report/data/dev4su_faults.json";
inline const std::string kFaultsEvents = kSrc + "/tests/report/data/dev4su_events.log";
constexpr double kT = 1714560000;  // the time of the fixtures

// "n009" for 9: the dev layout's node names.
inline std::string N(int i) {
  char name[16];
  std::snprintf(name, sizeof name, "n%03d", i);
  return name;
}

// Job log records of job `job` on n001..n<nodes>, from `start` to `end`: every rail k (NIC
// "mlx5_<k>") sent and received `bytes` and waited `wait` ticks.
inline std::vector<wire::JobNodeRecord> EvenJobRecords(uint64_t job, int nodes, double start,
                                                       double end, uint64_t bytes,
                                                       uint64_t wait = 1000) {
  std::vector<wire::JobNodeRecord> out;
  for (int i = 1; i <= nodes; ++i) {
    wire::JobNodeRecord r;
    r.job = job;
    r.node = N(i);
    r.start = start;
    r.end = end;
    for (int k = 0; k < 8; ++k) {
      wire::JobRail x;
      x.rail = k;
      x.nic = "mlx5_" + std::to_string(k);
      x.xmit_bytes = x.rcv_bytes = bytes;
      x.xmit_wait = wait;
      r.rails.push_back(x);
    }
    out.push_back(r);
  }
  return out;
}

inline topo::Topology DevTopology() {
  topo::Topology t;
  Diags d;
  EXPECT_TRUE(topo::LoadTopologyFile(kDevYaml, &t, &d)) << FormatDiags(d);
  return t;
}

// railcheck's Extra JSON for rail states given as a string, one letter per rail:
// o = ok, d = degraded, x = down ("oooDoooo" is not accepted: lower case only).
inline std::string ExtraFor(const std::string& rails, const std::string& check = "link.errors",
                            double time = kT - 60) {
  std::string states, failed, verdict = "ok";
  for (size_t k = 0; k < rails.size(); ++k) {
    const char* s = rails[k] == 'd' ? "degraded" : rails[k] == 'x' ? "down" : "ok";
    states += std::string(k ? "," : "") + "\"" + s + "\"";
    if (rails[k] != 'o') {
      failed += std::string(failed.empty() ? "" : ",") + "\"rail" + std::to_string(k) + ":" +
                check + "\"";
      verdict = "restrict";
    }
  }
  return "{\"railcheck\":{\"time\":" + std::to_string(static_cast<long long>(time)) +
         ",\"verdict\":\"" + verdict + "\",\"rails\":[" + states + "],\"failed\":[" + failed +
         "]}}";
}

// Every node of `t` idle, healthy (feature rail_healthy, all rails ok in Extra).
inline Snapshot HealthySnapshot(const topo::Topology& t) {
  Snapshot s;
  s.time = kT;
  s.source = "test";
  for (const topo::ScalableUnit& su : t.sus) {
    for (const std::string& n : su.nodes) {
      NodeSnapshot ns;
      ns.name = n;
      ns.state = "idle";
      ns.features = su.name + ",rail_healthy";
      ns.extra = ExtraFor(std::string(t.rails.size(), 'o'));
      s.nodes.push_back(ns);
    }
  }
  return s;
}

inline NodeSnapshot* Node(Snapshot* s, const std::string& name) {
  for (NodeSnapshot& n : s->nodes)
    if (n.name == name) return &n;
  ADD_FAILURE() << "no node " << name;
  static NodeSnapshot none;
  return &none;
}

// Sets `rails` on `name`; drains it by railcheck when `drain`, else takes its feature away.
inline void Fault(Snapshot* s, const std::string& name, const std::string& rails, bool drain = true,
                  const std::string& check = "link.errors") {
  NodeSnapshot* n = Node(s, name);
  n->extra = ExtraFor(rails, check);
  const size_t comma = n->features.find(',');
  n->features = n->features.substr(0, comma);
  if (drain) {
    n->flags = {"drain"};
    n->reason = "railcheck: fault";
    n->reason_time = kT - 600;
  }
}

inline Report Build(const Snapshot& s, const topo::Topology& t,
                    const std::vector<wire::HealthEvent>& events = {}) {
  ReportOptions o;
  o.history_read = !events.empty();
  return BuildReport(s, "snap.json", t, events, {}, o);
}

inline const NodeRow& RowOf(const Report& r, const std::string& name) {
  for (const NodeRow& n : r.nodes)
    if (n.name == name) return n;
  ADD_FAILURE() << "no node " << name;
  return r.nodes.front();
}

}  // namespace railguard::report::testing
