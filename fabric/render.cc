// SPDX-License-Identifier: GPL-2.0-or-later
// Text and JSON output of a fabric sweep.
#include "fabric/render.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "topo/ibnet.h"

namespace railguard::fabric {
namespace {

using json = nlohmann::ordered_json;

const char* KindName(LinkKind k) {
  switch (k) {
    case LinkKind::kHost:
      return "host";
    case LinkKind::kUplink:
      return "uplink";
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

// Findings that only say counters were not read.
size_t Unread(const FabricReport& r) {
  size_t n = 0;
  for (const LinkFinding& f : r.findings) n += f.kind == "unread";
  return n;
}

json EndJson(const Sweep& sweep, const End& e, const std::string& name) {
  const SweptNode& n = sweep.nodes[e.node];
  const SweptPort& p = n.ports[e.entry];
  json counters = nullptr;
  if (p.counters_read) {
    counters = json::object();
    for (int c = 0; c < kCounterCount; ++c) counters[kCounterNames[c]] = p.counters[c];
  }
  const int lid =
      n.is_switch || e.entry >= static_cast<int>(n.port_lids.size()) ? n.lid : n.port_lids[e.entry];
  return {{"name", name},
          {"guid", topo::GuidString(n.guid)},
          {"port", e.port},
          {"lid", lid},
          {"width",
           {{"active", p.link.width_active},
            {"enabled", p.link.width_enabled},
            {"supported", p.link.width_supported}}},
          {"speed",
           {{"active", p.link.speed_active},
            {"enabled", p.link.speed_enabled},
            {"supported", p.link.speed_supported}}},
          {"extended_counters", p.extended},
          {"counters", counters}};
}

json EndTrafficJson(const EndTraffic& e) {
  if (!e.known) return nullptr;
  return {{"xmit_bytes_per_second", e.xmit_bps},
          {"rcv_bytes_per_second", e.rcv_bps},
          {"xmit_wait_per_second", e.xmit_wait},
          {"utilization", e.utilization},
          {"saturated", e.saturated}};
}

json LinkTrafficJson(const LinkTraffic& l) {
  return {{"capacity_bytes_per_second", l.capacity_bps},
          {"utilization", l.utilization},
          {"xmit_wait_per_second", l.xmit_wait},
          {"a", EndTrafficJson(l.a)},
          {"b", EndTrafficJson(l.b)}};
}

json TrafficJson(const topo::Topology& topo, const Traffic& t) {
  json grid = json::array();
  for (size_t s = 0; s < t.grid.size(); ++s) {
    json rails = json::array();
    for (size_t k = 0; k < t.grid[s].size(); ++k) {
      const CellTraffic& c = t.grid[s][k];
      rails.push_back({{"rail", topo.rails[k].name},
                       {"host_max_utilization", c.host_max},
                       {"uplink_utilization", c.uplink},
                       {"uplink_xmit_wait_per_second", c.uplink_wait},
                       {"host_links", c.host_links},
                       {"uplinks", c.uplinks}});
    }
    grid.push_back({{"su", topo.sus[s].name}, {"rails", rails}});
  }
  json spines = json::array();
  for (const SpineTraffic& s : t.spines)
    spines.push_back({{"name", s.name},
                      {"utilization", s.utilization},
                      {"xmit_wait_per_second", s.xmit_wait},
                      {"links", s.links}});
  return {{"seconds", t.seconds},
          {"previous_time", t.previous_time},
          {"grid", grid},
          {"spines", spines}};
}

// Stands for the links array in the JSON tree until the links are written out. Its control
// characters are escaped in JSON, so no name from the fabric can produce the same text.
const char kLinksMark[] = "\x01railguard-links\x01";

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
  size_t switches = 0;
  json unanswered = json::array();
  for (const SweptNode& n : sweep.nodes) {
    switches += n.is_switch;
    if (n.status != NodeStatus::kAnswered)
      unanswered.push_back({{"name", n.is_switch ? SwitchName(topo, n) : n.description},
                            {"guid", topo::GuidString(n.guid)},
                            {"lid", n.lid},
                            {"status", StatusName(n.status)},
                            {"error", n.error}});
  }
  json grid = json::array();
  const auto g = Grid(topo, r);
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    json rails = json::array();
    for (size_t k = 0; k < topo.rails.size(); ++k)
      rails.push_back({{"rail", topo.rails[k].name},
                       {"links", g[s][k].links},
                       {"bad", g[s][k].bad},
                       {"unread", g[s][k].unread}});
    grid.push_back({{"su", topo.sus[s].name}, {"rails", rails}});
  }
  std::vector<json> link_findings(r.links.size(), json::array());
  json findings = json::array();
  for (const LinkFinding& f : r.findings) {
    const json j = {{"kind", f.kind}, {"side", f.side}, {"message", f.message}};
    link_findings[f.link].push_back(j);
    json with_link = j;
    with_link["link"] = f.link;
    findings.push_back(with_link);
  }
  // The links are written one at a time, one link per line, instead of held as one JSON
  // tree: on a 4096-node fabric (42,000 links) the tree took about 500 MB.
  auto link_json = [&](size_t i) {
    const MappedLink& l = r.links[i];
    json j = {{"kind", KindName(l.kind)},
              {"su", l.su >= 0 ? json(topo.sus[l.su].name) : json(nullptr)},
              {"rail", l.rail >= 0 ? json(topo.rails[l.rail].name) : json(nullptr)},
              {"host", l.host.empty() ? json(nullptr) : json(l.host)},
              {"hca", l.hca.empty() ? json(nullptr) : json(l.hca)},
              {"a", EndJson(sweep, l.a, l.name_a)},
              {"b", EndJson(sweep, l.b, l.name_b)},
              {"findings", link_findings[i]}};
    if (traffic) j["traffic"] = LinkTrafficJson(traffic->links[i]);
    return j;
  };
  json missing = json::array();
  for (const MissingHca& m : r.missing)
    missing.push_back({{"su", topo.sus[m.su].name},
                       {"rail", topo.rails[m.rail].name},
                       {"host", m.host},
                       {"hca", m.hca}});
  json out = {{"complete", !sweep.partial},
              {"summary",
               {{"switches", switches},
                {"hcas", sweep.nodes.size() - switches},
                {"links", r.links.size()},
                {"findings", Problems(r)},
                {"unread", Unread(r)},
                {"unanswered", unanswered.size()},
                {"smps", sweep.smps},
                {"mads", sweep.mads},
                {"seconds", sweep.seconds},
                {"time", sweep.time}}},
              {"grid", grid},
              {"findings", findings},
              {"unanswered", unanswered},
              {"missing", missing},
              {"links", kLinksMark}};
  if (traffic) out["traffic"] = TrafficJson(topo, *traffic);
  std::string text = out.dump(2) + "\n";
  const std::string mark = json(kLinksMark).dump();
  const size_t at = text.find(mark);
  std::string links = r.links.empty() ? "[]" : "[\n";
  for (size_t i = 0; i < r.links.size(); ++i)
    links += "    " + link_json(i).dump() + (i + 1 < r.links.size() ? ",\n" : "\n  ]");
  text.replace(at, mark.size(), links);
  return text;
}

}  // namespace railguard::fabric
