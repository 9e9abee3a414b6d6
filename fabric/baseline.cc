// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a fabric baseline back from sweep JSON.
#include "fabric/baseline.h"

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topo/ib_fabric.h"
#include "wire/sweep_json.h"

namespace railguard::fabric {

const std::array<uint64_t, kCounterCount>* SweepBaseline::Find(uint64_t guid, int port) const {
  auto it = ports.find({guid, port});
  return it == ports.end() ? nullptr : &it->second;
}

namespace {

// The counters of every end `d` has them for, and its time.
void Take(const wire::SweepDocument& d, SweepBaseline* out) {
  out->time = d.summary.time;
  for (const wire::SweepLink& l : d.links)
    for (const wire::SweepEnd* e : {&l.a, &l.b})
      if (e->counters_read) out->ports[{e->guid, e->port}] = e->counters;
}

}  // namespace

bool KeptDiscoveryOf(const wire::SweepDocument& d, KeptDiscovery* out, std::string* why) {
  if (d.summary.discovery_kind.empty()) {
    *why = "it records no discovery (written by an older railctl)";
    return false;
  }
  std::unordered_map<uint64_t, size_t> index;
  std::vector<SweptNode> nodes;
  std::vector<std::vector<std::pair<SweptPort, int>>> ports;  // per node: each port, its LID
  for (const wire::SweepLink& l : d.links) {
    for (const auto& [e, peer] : {std::pair{&l.a, &l.b}, std::pair{&l.b, &l.a}}) {
      if (!e->node_known) {
        *why = "the end " + topo::GuidString(e->guid) + " port " + std::to_string(e->port) +
               " has no \"switch\" and \"description\"";
        return false;
      }
      auto [it, added] = index.emplace(e->guid, nodes.size());
      if (added) {
        SweptNode n;
        n.guid = e->guid;
        n.is_switch = e->is_switch;
        n.description = e->description;
        n.lid = e->is_switch ? e->lid : 0;
        nodes.push_back(std::move(n));
        ports.emplace_back();
      }
      SweptNode& n = nodes[it->second];
      if (n.is_switch != e->is_switch || n.description != e->description ||
          (n.is_switch && n.lid != e->lid)) {
        *why =
            topo::GuidString(e->guid) + " is described two ways (switch or not, description, LID)";
        return false;
      }
      for (const auto& [p, lid] : ports[it->second]) {
        if (p.port == e->port) {
          *why =
              topo::GuidString(e->guid) + " port " + std::to_string(e->port) + " is on two links";
          return false;
        }
      }
      SweptPort p;
      p.port = e->port;
      p.peer_guid = peer->guid;
      p.peer_port = peer->port;
      p.link = {e->width_active, e->width_enabled, e->width_supported,
                e->speed_active, e->speed_enabled, e->speed_supported};
      p.counters_read = e->counters_read;
      p.extended = e->extended_counters;
      std::copy(e->counters.begin(), e->counters.end(), p.counters);
      if (e->counters_read) {
        n.pma_known = true;
        n.pma_extended = e->extended_counters;
      }
      ports[it->second].emplace_back(p, e->lid);
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {  // ports ascending, as discovery gives them
    SweptNode& n = nodes[i];
    std::sort(ports[i].begin(), ports[i].end(),
              [](const auto& a, const auto& b) { return a.first.port < b.first.port; });
    for (const auto& [p, lid] : ports[i]) {
      n.ports.push_back(p);
      if (!n.is_switch) n.port_lids.push_back(lid);
    }
    n.num_ports = n.ports.empty() ? 0 : n.ports.back().port;
    if (!n.is_switch && !n.port_lids.empty()) n.lid = n.port_lids.front();
  }
  ArrangeNodes(&nodes);
  out->nodes = std::move(nodes);
  out->time = d.summary.discovery_time;
  out->local_lid = d.summary.local_lid;
  out->sm_lid = d.summary.sm_lid;
  return true;
}

bool ParseSweepBaseline(std::string_view text, const std::string& filename, SweepBaseline* out,
                        Diags* errors) {
  wire::SweepDocument d;
  if (!wire::ParseSweepDocument(text, filename, wire::SweepParts::kCounters, &d, errors))
    return false;
  Take(d, out);
  return true;
}

bool LoadSweepBaseline(const std::string& path, SweepBaseline* out, Diags* errors,
                       bool with_discovery) {
  wire::SweepDocument d;
  const wire::SweepParts parts =
      with_discovery ? wire::SweepParts::kDiscovery : wire::SweepParts::kCounters;
  if (!wire::LoadSweepDocument(path, parts, &d, errors)) return false;
  Take(d, out);
  if (with_discovery) {
    KeptDiscovery kept;
    if (KeptDiscoveryOf(d, &kept, &out->no_discovery)) out->discovery = std::move(kept);
  }
  return true;
}

}  // namespace railguard::fabric
