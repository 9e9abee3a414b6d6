// SPDX-License-Identifier: GPL-2.0-or-later
// Rates between two sweeps, and their text section.
#include "fabric/traffic.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "fabric/render.h"

namespace railguard::fabric {
namespace {

// `s` padded to `width` columns, or followed by one space when it is as wide or wider.
std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

constexpr uint64_t kMax32 = 0xffffffffu;

// Growth of counter `c`: a counter below its previous value was reset and counts from 0.
double Grew(const SweptPort& p, const std::array<uint64_t, kCounterCount>& prev, int c) {
  const uint64_t now = p.counters[c];
  return static_cast<double>(now >= prev[c] ? now - prev[c] : now);
}

EndTraffic EndRates(const Sweep& sweep, const End& e, const SweepBaseline& previous, double seconds,
                    double capacity) {
  EndTraffic t;
  const SweptNode& n = sweep.nodes[e.node];
  const SweptPort& p = n.ports[e.entry];
  const auto* prev = previous.Find(n.guid, e.port);
  if (!p.counters_read || !prev) return t;
  t.known = true;
  t.xmit_bps = Grew(p, *prev, kXmitData) * 4 / seconds;
  t.rcv_bps = Grew(p, *prev, kRcvData) * 4 / seconds;
  t.xmit_wait = Grew(p, *prev, kXmitWait) / seconds;
  t.utilization = capacity > 0 ? t.xmit_bps / capacity : 0;
  t.saturated = !p.extended && (p.counters[kXmitData] == kMax32 || p.counters[kRcvData] == kMax32);
  return t;
}

double Capacity(const LinkState& s) {
  return s.width_active * topo::LaneRateGbps(s.speed_active) * 1e9 / 8;
}

// Sums of bytes and capacity in each direction, for utilizations of link groups.
struct Sum {
  double out = 0, in = 0, capacity = 0, wait = 0;
  int links = 0;
  double Utilization() const { return capacity > 0 ? std::max(out, in) / capacity : 0; }
};

}  // namespace

std::string Percent(double u) {
  char buf[32];
  std::snprintf(buf, sizeof buf, u < 0.1 && u > 0 ? "%.2f%%" : "%.1f%%", u * 100);
  return buf;
}

Traffic ComputeTraffic(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r,
                       const SweepBaseline& previous) {
  Traffic t;
  t.seconds = sweep.time - previous.time;
  t.previous_time = previous.time;
  t.grid.assign(topo.sus.size(), std::vector<CellTraffic>(topo.rails.size()));
  std::vector<std::vector<Sum>> up(topo.sus.size(), std::vector<Sum>(topo.rails.size()));
  std::map<std::string, Sum> spines;
  for (const MappedLink& l : r.links) {
    LinkTraffic lt;
    const LinkState& A = sweep.nodes[l.a.node].ports[l.a.entry].link;
    const LinkState& B = sweep.nodes[l.b.node].ports[l.b.entry].link;
    lt.capacity_bps = std::min(Capacity(A), Capacity(B));
    lt.a = EndRates(sweep, l.a, previous, t.seconds, lt.capacity_bps);
    lt.b = EndRates(sweep, l.b, previous, t.seconds, lt.capacity_bps);
    lt.utilization = std::max(lt.a.utilization, lt.b.utilization);
    lt.xmit_wait = std::max(lt.a.xmit_wait, lt.b.xmit_wait);
    t.links.push_back(lt);
    if (!lt.a.known || !lt.b.known || l.su < 0 || l.rail < 0) continue;
    if (l.kind == LinkKind::kHost) {
      CellTraffic& c = t.grid[l.su][l.rail];
      c.host_max = std::max(c.host_max, lt.utilization);
      c.host_wait += lt.a.xmit_wait + lt.b.xmit_wait;
      ++c.host_links;
    } else if (l.kind == LinkKind::kUplink) {  // a = leaf, b = spine
      for (Sum* s : {&up[l.su][l.rail], &spines[l.name_b]}) {
        s->out += lt.a.xmit_bps;
        s->in += lt.b.xmit_bps;
        s->capacity += lt.capacity_bps;
        ++s->links;
      }
      up[l.su][l.rail].wait += lt.a.xmit_wait + lt.b.xmit_wait;
      spines[l.name_b].wait += lt.b.xmit_wait;
    }
  }
  for (size_t s = 0; s < topo.sus.size(); ++s)
    for (size_t k = 0; k < topo.rails.size(); ++k) {
      t.grid[s][k].uplink = up[s][k].Utilization();
      t.grid[s][k].uplink_wait = up[s][k].wait;
      t.grid[s][k].uplinks = up[s][k].links;
    }
  for (const auto& [name, s] : spines) t.spines.push_back({name, s.Utilization(), s.wait, s.links});
  return t;
}

std::string RenderTrafficText(const topo::Topology& topo, const FabricReport& r,
                              const Traffic& t, size_t top) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "traffic over %.1f s since the previous sweep:\n", t.seconds);
  std::string o = buf;
  std::vector<size_t> order;
  for (size_t i = 0; i < t.links.size(); ++i)
    if (t.links[i].a.known && t.links[i].b.known) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    if (t.links[x].utilization != t.links[y].utilization)
      return t.links[x].utilization > t.links[y].utilization;
    return t.links[x].xmit_wait > t.links[y].xmit_wait;
  });
  if (order.size() > top) order.resize(top);
  o += "busiest links (utilization of the busier direction, PortXmitWait/s):\n";
  for (size_t i : order) {
    const LinkTraffic& l = t.links[i];
    const MappedLink& m = r.links[i];
    const bool a_out = l.a.utilization >= l.b.utilization;
    std::snprintf(buf, sizeof buf, ": %s %s -> %s, xmit wait %.0f/s%s\n",
                  Percent(l.utilization).c_str(), (a_out ? m.name_a : m.name_b).c_str(),
                  (a_out ? m.name_b : m.name_a).c_str(), l.xmit_wait,
                  l.a.saturated || l.b.saturated ? " (32-bit counter saturated: at least)" : "");
    o += "  " + LinkWhere(topo, m) + buf;
  }
  size_t w = 12;
  for (const topo::Rail& rail : topo.rails) w = std::max(w, rail.name.size() + 1);
  // A grid of SUs x rails under `title`, each cell what `show` makes of it.
  auto grid = [&](const char* title, auto show) {
    o += title;
    std::string line = Pad("SU", 8);
    for (const topo::Rail& rail : topo.rails) line += Pad(rail.name, w);
    for (size_t s = 0; s <= t.grid.size(); ++s) {
      while (line.back() == ' ') line.pop_back();
      o += line + "\n";
      if (s == t.grid.size()) break;
      line = Pad(topo.sus[s].name, 8);
      for (const CellTraffic& c : t.grid[s]) line += Pad(show(c), w);
    }
  };
  grid("utilization per SU x rail (busiest host link / leaf uplinks):\n", [](const CellTraffic& c) {
    return (c.host_links ? Percent(c.host_max) : std::string("-")) + "/" +
           (c.uplinks ? Percent(c.uplink) : std::string("-"));
  });
  bool waited = false;
  for (const auto& row : t.grid)
    for (const CellTraffic& c : row) waited |= c.host_wait > 0 || c.uplink_wait > 0;
  if (waited)
    grid("PortXmitWait per second per SU x rail (host links / leaf uplinks):\n",
         [](const CellTraffic& c) {
           char v[64];
           std::snprintf(v, sizeof v, "%.0f/%.0f", c.host_wait, c.uplink_wait);
           return std::string(v);
         });
  for (const SpineTraffic& s : t.spines) {
    std::snprintf(buf, sizeof buf, "spine %s: %s over %d links, xmit wait %.0f/s\n",
                  s.name.c_str(), Percent(s.utilization).c_str(), s.links, s.xmit_wait);
    o += buf;
  }
  return o;
}

}  // namespace railguard::fabric
