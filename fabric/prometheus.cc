// SPDX-License-Identifier: GPL-2.0-or-later
// Prometheus text exposition of a sweep.
#include "fabric/prometheus.h"

#include <cstdio>
#include <vector>

namespace railguard::fabric {
namespace {

std::string Escaped(const std::string& v) {
  std::string o;
  for (char c : v) {
    if (c == '\\' || c == '"') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

std::string Number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Which side of the link an end is: host/leaf of a host link, leaf/spine of an uplink, a/b of
// other links (a = the end whose switch names the link in the leaf and port labels).
const char* Side(const MappedLink& l, bool b) {
  switch (l.kind) {
    case LinkKind::kHost:
      return b ? "leaf" : "host";
    case LinkKind::kUplink:
      return b ? "spine" : "leaf";
    case LinkKind::kCore:
      return b ? "core" : "spine";
    default:
      return b ? "b" : "a";
  }
}

class Writer {
 public:
  void Family(const char* name, const char* type, const char* help) {
    o_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void Sample(const char* name, const std::string& labels, double v) {
    o_ += name + (labels.empty() ? std::string() : "{" + labels + "}") + " " + Number(v) + "\n";
  }
  std::string Take() { return std::move(o_); }

 private:
  std::string o_;
};

}  // namespace

std::string RenderPrometheus(const topo::Topology& topo, const Sweep& sweep,
                             const FabricReport& r, const Traffic* traffic) {
  // The labels of each link, then of each of its ends.
  std::vector<std::string> link_labels;
  for (const MappedLink& l : r.links) {
    const bool leaf_is_b = l.kind == LinkKind::kHost;
    const std::string& leaf = leaf_is_b ? l.name_b : l.name_a;
    const int port = leaf_is_b ? l.b.port : l.a.port;
    link_labels.push_back(
        "su=\"" + Escaped(l.su >= 0 ? topo.sus[l.su].name : "") + "\",rail=\"" +
        Escaped(l.rail >= 0 ? topo.rails[l.rail].name : "") + "\",leaf=\"" + Escaped(leaf) +
        "\",port=\"" + std::to_string(port) + "\",host=\"" + Escaped(l.host) + "\",hca=\"" +
        Escaped(l.hca) + "\"");
  }
  auto end_labels = [&](size_t i, bool b) {
    return link_labels[i] + ",end=\"" + Side(r.links[i], b) + "\"";
  };
  auto port_of = [&](const End& e) -> const SweptPort& {
    return sweep.nodes[e.node].ports[e.entry];
  };
  Writer w;
  w.Family("railguard_fabric_sweep_complete", "gauge",
           "1 when every node answered the sweep's counter queries, 0 for a partial sweep.");
  w.Sample("railguard_fabric_sweep_complete", "", sweep.partial ? 0 : 1);
  w.Family("railguard_fabric_sweep_seconds", "gauge", "Wall time of the sweep.");
  w.Sample("railguard_fabric_sweep_seconds", "", sweep.seconds);
  w.Family("railguard_fabric_sweep_time_seconds", "gauge",
           "Unix time the sweep's counter phase began.");
  w.Sample("railguard_fabric_sweep_time_seconds", "", sweep.time);

  w.Family("railguard_fabric_port_errors_total", "counter",
           "PMA PortCounters error counter of one end of a link, by counter name.");
  for (size_t i = 0; i < r.links.size(); ++i)
    for (const bool b : {false, true}) {
      const SweptPort& p = port_of(b ? r.links[i].b : r.links[i].a);
      if (!p.counters_read) continue;
      for (int c = 0; c < kCounterCount; ++c)
        if (IsErrorCounter(c))
          w.Sample("railguard_fabric_port_errors_total",
                   end_labels(i, b) + ",counter=\"" + kCounterNames[c] + "\"",
                   static_cast<double>(p.counters[c]));
    }
  w.Family("railguard_fabric_port_xmit_wait_total", "counter",
           "PMA PortXmitWait of one end of a link: ticks it had data to send but could not.");
  for (size_t i = 0; i < r.links.size(); ++i)
    for (const bool b : {false, true}) {
      const SweptPort& p = port_of(b ? r.links[i].b : r.links[i].a);
      if (p.counters_read)
        w.Sample("railguard_fabric_port_xmit_wait_total", end_labels(i, b),
                 static_cast<double>(p.counters[kXmitWait]));
    }
  std::vector<int> width_bad(r.links.size(), 0), speed_bad(r.links.size(), 0);
  for (const LinkFinding& f : r.findings) {
    if (f.kind == "width") width_bad[f.link] = 1;
    if (f.kind == "speed") speed_bad[f.link] = 1;
  }
  w.Family("railguard_fabric_link_width_ok", "gauge",
           "1 when the link's active width is what its rail (or both ends) expect, else 0.");
  for (size_t i = 0; i < r.links.size(); ++i)
    w.Sample("railguard_fabric_link_width_ok", link_labels[i], width_bad[i] ? 0 : 1);
  w.Family("railguard_fabric_link_speed_ok", "gauge",
           "1 when the link's active speed is what its rail (or both ends) expect, else 0.");
  for (size_t i = 0; i < r.links.size(); ++i)
    w.Sample("railguard_fabric_link_speed_ok", link_labels[i], speed_bad[i] ? 0 : 1);
  if (traffic) {
    // A gauge of every end whose traffic both sweeps saw.
    auto per_end = [&](const char* name, const char* help, double EndTraffic::*field) {
      w.Family(name, "gauge", help);
      for (size_t i = 0; i < r.links.size(); ++i)
        for (const bool b : {false, true}) {
          const EndTraffic& e = b ? traffic->links[i].b : traffic->links[i].a;
          if (e.known) w.Sample(name, end_labels(i, b), e.*field);
        }
    };
    per_end("railguard_fabric_port_utilization_ratio",
            "Bytes one end sent per second since the previous sweep over the link's capacity.",
            &EndTraffic::utilization);
    per_end("railguard_fabric_port_xmit_wait_per_second",
            "PortXmitWait ticks per second of one end since the previous sweep (congestion).",
            &EndTraffic::xmit_wait);
  }
  return w.Take();
}

}  // namespace railguard::fabric
