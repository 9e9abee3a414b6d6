// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the capture parsers (topo/capture.h: ibnetdiscover, its -p ports report, iblinkinfo
// and ibdiagnet2.lst, each on every input, terminal wrappings included) and, on what parses as
// the format the sniffer picks, discovery (Discover) twice: with default options, and with a
// rail order and a node map that names some of the CAs. Checks each parsed fabric's
// cross-references, and that a discovered topology that loads survives EmitTopologyYaml; the
// fabric is then audited against that topology as a plan (topo/plan_audit.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "fuzz/fuzz_check.h"
#include "fuzz/topology_roundtrip.h"
#include "topo/capture.h"
#include "topo/discover.h"
#include "topo/plan_audit.h"
#include "topo/topology_yaml.h"

namespace railguard::fuzz {
namespace {

// Every link's ends point at it, and every node is found under its GUID.
void CheckFabric(const topo::IbFabric& f) {
  const int nodes = static_cast<int>(f.nodes.size());
  for (int i = 0; i < nodes; ++i) {
    const topo::IbNode& n = f.nodes[i];
    RG_FUZZ_CHECK(f.FindNode(n.guid) == i, "node " + n.id + " is not found by its GUID");
    RG_FUZZ_CHECK(n.id == topo::IbNodeId(n.type, n.guid), "node id " + n.id);
  }
  for (int l = 0; l < static_cast<int>(f.links.size()); ++l) {
    const topo::IbLink& link = f.links[l];
    for (const topo::IbPort& end : {link.a, link.b}) {
      RG_FUZZ_CHECK(end.node >= 0 && end.node < nodes, "link " + std::to_string(l));
      RG_FUZZ_CHECK(f.FindLink(end.node, end.port) == l,
                    "port " + std::to_string(end.port) + " of " + f.nodes[end.node].id +
                        " does not lead to link " + std::to_string(l));
    }
    RG_FUZZ_CHECK(!link.Token().empty(), "link " + std::to_string(l) + " has no token");
  }
}

void Run(const topo::IbFabric& fabric, const topo::DiscoverOptions& opts) {
  const topo::Discovery d = topo::Discover(fabric, opts);
  std::string text = topo::DiscoverySummary(d);
  for (const topo::Finding& f : d.findings) text += f.ToString();
  if (d.topology.sus.empty()) return;
  // railctl writes this YAML; when it loads, it must round-trip like any other topology.
  topo::Topology loaded;
  Diags diags;
  if (topo::LoadTopologyString(topo::EmitTopologyYaml(d.topology), "discovered.yaml", &loaded,
                               &diags)) {
    CheckTopologyRoundTrip(loaded);
    for (const topo::Finding& f : topo::AuditAgainstPlan(loaded, fabric))
      RG_FUZZ_CHECK(!f.kind.empty() && !f.message.empty(), "an audit finding without words");
  }
}

void FuzzIbnet(std::string_view text) {
  const topo::CaptureFormat sniffed = topo::SniffCaptureFormat(text);
  RG_FUZZ_CHECK(sniffed != topo::CaptureFormat::kAuto, "the sniffer answered auto");
  topo::IbFabric fabric;
  bool ok = false;
  for (topo::CaptureFormat format :
       {topo::CaptureFormat::kIbnetdiscover, topo::CaptureFormat::kPorts,
        topo::CaptureFormat::kIblinkinfo, topo::CaptureFormat::kIbdiagnetLst}) {
    topo::IbFabric parsed;
    Diags errors;
    const bool parsed_ok = topo::ParseCapture(text, "fuzz.topo", format, &parsed, &errors);
    CheckAgreesWithErrors(parsed_ok, errors);
    if (parsed_ok) CheckFabric(parsed);
    if (format == sniffed) {
      ok = parsed_ok;
      fabric = std::move(parsed);
    }
  }
  if (!ok) return;

  Run(fabric, topo::DiscoverOptions());

  topo::DiscoverOptions named;
  named.rail_order = {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5"};
  int cas = 0;
  for (const topo::IbNode& n : fabric.nodes) {
    if (n.type != topo::IbNodeType::kCa || cas == 16) continue;
    named.node_map[n.guid] = "h" + std::to_string(cas / 2) + " mlx5_" + std::to_string(cas % 2);
    ++cas;
  }
  Run(fabric, named);
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzIbnet(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
