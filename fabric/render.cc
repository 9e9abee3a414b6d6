// SPDX-License-Identifier: GPL-2.0-or-later
// Text and JSON output of a fabric sweep.
#include "fabric/render.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "topo/ibnet.h"
#include "wire/sweep_json.h"

namespace railguard::fabric {
namespace {

const char* KindName(LinkKind k) {
  switch (k) {
    case LinkKind::kHost:
      return "host";
    case LinkKind::kUplink:
      return "uplink";
    case LinkKind::kCore:
      return "core";
    default:
      return "unknown";
  }
}

const char* StatusName(NodeStatus s) {
  switch (s) {
    case NodeStatus::kAnswered:
      return "answered";
    case NodeStatus::kTimedOut:
      return "timed-out";
    default:
      return "not-reached";
  }
}

std::string Cell(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

// Per (SU, rail): links, links with findings, links with unread counters.
struct GridCell {
  int links = 0, bad = 0, unread = 0;
};

std::vector<std::vector<GridCell>> Grid(const topo::Topology& topo, const FabricReport& r) {
  std::vector<std::vector<GridCell>> g(topo.sus.size(), std::vector<GridCell>(topo.rails.size()));
  std::vector<int> bad(r.links.size(), 0), unread(r.links.size(), 0);
  for (const LinkFinding& f : r.findings) (f.kind == "unread" ? unread : bad)[f.link] = 1;
  for (size_t i = 0; i < r.links.size(); ++i) {
    const MappedLink& l = r.links[i];
    if (l.su < 0 || l.rail < 0 || l.kind == LinkKind::kUnknown) continue;
    GridCell& c = g[l.su][l.rail];
    ++c.links;
    c.bad += bad[i];
    c.unread += unread[i];
  }
  for (const MissingHca& m : r.missing) ++g[m.su][m.rail].bad;
  return g;
}

// Findings other than "unread" (those show as "?" in the grid and as the unanswered nodes),
// and missing HCAs.
size_t Problems(const FabricReport& r) {
  size_t n = r.missing.size();
  for (const LinkFinding& f : r.findings) n += f.kind != "unread";
  return n;
}

wire::SweepEnd EndOf(const Sweep& sweep, const End& e, const std::string& name) {
  const SweptNode& n = sweep.nodes[e.node];
  const SweptPort& p = n.ports[e.entry];
  wire::SweepEnd out;
  out.name = name;
  out.guid = n.guid;
  out.port = e.port;
  out.lid =
      n.is_switch || e.entry >= static_cast<int>(n.port_lids.size()) ? n.lid : n.port_lids[e.entry];
  out.width_active = p.link.width_active;
  out.width_enabled = p.link.width_enabled;
  out.width_supported = p.link.width_supported;
  out.speed_active = p.link.speed_active;
  out.speed_enabled = p.link.speed_enabled;
  out.speed_supported = p.link.speed_supported;
  out.extended_counters = p.extended;
  out.counters_read = p.counters_read;
  if (p.counters_read) std::copy(p.counters, p.counters + kCounterCount, out.counters.begin());
  out.node_known = true;  // so that the next sweep can keep this discovery
  out.is_switch = n.is_switch;
  out.description = n.description;
  return out;
}

wire::SweepEndTraffic EndTrafficOf(const EndTraffic& e) {
  return {e.known, e.xmit_bps, e.rcv_bps, e.xmit_wait, e.utilization, e.saturated};
}

wire::SweepTraffic TrafficOf(const topo::Topology& topo, const Traffic& t) {
  wire::SweepTraffic out{t.seconds, t.previous_time, {}, {}};
  for (size_t s = 0; s < t.grid.size(); ++s) {
    wire::SweepTrafficRow row{topo.sus[s].name, {}};
    for (size_t k = 0; k < t.grid[s].size(); ++k) {
      const CellTraffic& c = t.grid[s][k];
      row.rails.push_back(
          {topo.rails[k].name, c.host_max, c.uplink, c.uplink_wait, c.host_links, c.uplinks});
    }
    out.grid.push_back(std::move(row));
  }
  for (const SpineTraffic& s : t.spines)
    out.spines.push_back({s.name, s.utilization, s.xmit_wait, s.links});
  return out;
}

// The sweep as wire/sweep_json.h has it.
wire::SweepDocument DocumentOf(const topo::Topology& topo, const Sweep& sweep,
                               const FabricReport& r, const Traffic* traffic) {
  wire::SweepDocument d;
  d.complete = !sweep.partial;
  for (const SweptNode& n : sweep.nodes) {
    (n.is_switch ? d.summary.switches : d.summary.hcas) += 1;
    if (n.status != NodeStatus::kAnswered)
      d.unanswered.push_back({n.is_switch ? SwitchName(topo, n) : n.description, n.guid, n.lid,
                              StatusName(n.status), n.error});
  }
  d.summary.smps = sweep.smps;
  d.summary.mads = sweep.mads;
  d.summary.seconds = sweep.seconds;
  d.summary.time = sweep.time;
  d.summary.discovery_kind = sweep.kept ? "kept" : "new";
  d.summary.discovery_time = sweep.discovered;
  d.summary.discovery_reason = sweep.discovery_reason;
  d.summary.local_lid = sweep.local_lid;
  d.summary.sm_lid = sweep.sm_lid;
  const auto g = Grid(topo, r);
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    wire::SweepGridRow row{topo.sus[s].name, {}};
    for (size_t k = 0; k < topo.rails.size(); ++k)
      row.rails.push_back({topo.rails[k].name, g[s][k].links, g[s][k].bad, g[s][k].unread});
    d.grid.push_back(std::move(row));
  }
  d.links.reserve(r.links.size());
  for (size_t i = 0; i < r.links.size(); ++i) {
    const MappedLink& l = r.links[i];
    wire::SweepLink w;
    w.kind = KindName(l.kind);
    if (l.su >= 0) w.su = topo.sus[l.su].name;
    if (l.rail >= 0) w.rail = topo.rails[l.rail].name;
    w.host = l.host;
    w.hca = l.hca;
    w.a = EndOf(sweep, l.a, l.name_a);
    w.b = EndOf(sweep, l.b, l.name_b);
    if (traffic) {
      const LinkTraffic& t = traffic->links[i];
      w.traffic = wire::SweepLinkTraffic{t.capacity_bps, t.utilization, t.xmit_wait,
                                         EndTrafficOf(t.a), EndTrafficOf(t.b)};
    }
    d.links.push_back(std::move(w));
  }
  // JudgeSweep finds link by link, so each link's findings in order are r.findings in order.
  for (const LinkFinding& f : r.findings)
    d.links[f.link].findings.push_back({f.kind, f.side, f.message});
  for (const MissingHca& m : r.missing)
    d.missing.push_back({topo.sus[m.su].name, topo.rails[m.rail].name, m.host, m.hca});
  if (traffic) d.traffic = TrafficOf(topo, *traffic);
  return d;
}

}  // namespace

std::string LinkWhere(const topo::Topology& topo, const MappedLink& l) {
  std::string s;
  if (l.su >= 0) s += topo.sus[l.su].name + " ";
  if (l.rail >= 0) s += topo.rails[l.rail].name + " ";
  return s + l.name_a + " port " + std::to_string(l.a.port) + " <-> " + l.name_b + " port " +
         std::to_string(l.b.port);
}

std::string RenderText(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r,
                       const Traffic* traffic) {
  size_t switches = 0, unanswered = 0;
  for (const SweptNode& n : sweep.nodes) {
    switches += n.is_switch;
    unanswered += n.status != NodeStatus::kAnswered;
  }
  char head[256];
  std::snprintf(head, sizeof(head),
                "fabric sweep: %zu switches, %zu HCAs, %zu links, %zu findings; %d SMPs, %d PMA "
                "MADs in %.2f s; %s\n",
                switches, sweep.nodes.size() - switches, r.links.size(), Problems(r), sweep.smps,
                sweep.mads, sweep.seconds,
                sweep.partial ? "PARTIAL (some nodes did not answer)" : "complete");
  std::string o = head;
  o +=
      std::string("discovery: ") + (sweep.kept ? "kept " : "new: ") + sweep.discovery_reason + "\n";
  size_t w = 6;
  for (const topo::Rail& rail : topo.rails) w = std::max(w, rail.name.size() + 1);
  o += Cell("SU", 8);
  for (const topo::Rail& rail : topo.rails) o += Cell(rail.name, w);
  while (o.back() == ' ') o.pop_back();
  o += "\n";
  const auto grid = Grid(topo, r);
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    o += Cell(topo.sus[s].name, 8);
    for (const GridCell& c : grid[s]) {
      std::string v = c.links == 0 ? "-" : c.bad ? std::to_string(c.bad) : "ok";
      if (c.unread) v += "?";
      o += Cell(v, w);
    }
    while (!o.empty() && o.back() == ' ') o.pop_back();
    o += "\n";
  }
  for (const LinkFinding& f : r.findings) {
    if (f.kind == "unread") continue;
    o += f.kind + " (" + f.side + " side): " + LinkWhere(topo, r.links[f.link]) + ": " + f.message +
         "\n";
  }
  for (const MissingHca& m : r.missing)
    o += "missing: " + topo.sus[m.su].name + " " + topo.rails[m.rail].name + " " + m.host + " " +
         m.hca + " not found in the fabric (cable down or HCA unreachable)\n";
  if (unanswered) {
    o += "partial: " + std::to_string(unanswered) + " of " + std::to_string(sweep.nodes.size()) +
         " nodes not fully read:\n";
    for (const SweptNode& n : sweep.nodes) {
      if (n.status == NodeStatus::kAnswered) continue;
      o += "  " + (n.is_switch ? SwitchName(topo, n) : n.description) + " (" +
           topo::GuidString(n.guid) + ", LID " + std::to_string(n.lid) + ") " +
           StatusName(n.status) + ": " + n.error + "\n";
    }
  }
  if (traffic) o += RenderTrafficText(topo, r, *traffic);
  return o;
}

std::string RenderJson(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r,
                       const Traffic* traffic) {
  return wire::SweepDocumentToJson(DocumentOf(topo, sweep, r, traffic));
}

}  // namespace railguard::fabric
