// SPDX-License-Identifier: GPL-2.0-or-later
// railctl topology validate | show | export.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "base/args.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "cli/topology_json.h"
#include "topo/export.h"
#include "topo/hostlist.h"
#include "topo/topology_yaml.h"

namespace railguard::cli {
namespace {

using nlohmann::json;

json TopologyJson(const topo::Topology& t) {
  json types = json::array();
  for (const topo::NodeType& nt : t.node_types)
    types.push_back({{"name", nt.name},
                     {"gpus", nt.gpus},
                     {"nics", nt.nics},
                     {"nic_pci", nt.nic_pci},
                     {"gpu_pci", nt.gpu_pci}});
  return {{"cluster", t.cluster},
          {"node_count", t.NodeCount()},
          {"rails", RailsJson(t)},
          {"node_types", types},
          {"scalable_units", ScalableUnitsJson(t)},
          {"domains", DomainsJson(t)},
          {"spines", SpinesJson(t)},
          {"cores", CoresJson(t)}};
}

std::string SummaryText(const topo::Topology& t) {
  std::string out = "cluster " + t.cluster + ": " + std::to_string(t.sus.size()) +
                    " scalable units, " + std::to_string(t.NodeCount()) + " nodes, " +
                    std::to_string(t.rails.size()) + " rails\n\n";
  out += Pad("RAIL", 6) + Pad("NAME", 10) + "EXPECTED LINK\n";
  for (const topo::Rail& r : t.rails)
    out += Pad(std::to_string(r.index), 6) + Pad(r.name, 10) + r.link.ToSysfsRate() + "\n";
  out += "\n" + Pad("NODE TYPE", 14) + Pad("GPUS", 6) + "NICS (rail order)\n";
  for (const topo::NodeType& nt : t.node_types) {
    std::string nics;
    for (const std::string& n : nt.nics) nics += (nics.empty() ? "" : ",") + n;
    out += Pad(nt.name, 14) + Pad(std::to_string(nt.gpus), 6) + nics + "\n";
  }
  out += "\n" + Pad("SU", 10) + Pad("NODES", 7) + Pad("TYPE", 14) + Pad("LEAVES", 28) +
         "HOSTLIST\n";
  for (const topo::ScalableUnit& su : t.sus) {
    std::string leaves;
    if (!su.leaves.empty())
      leaves = topo::LeafName(su, su.leaves.front()) + ".." +
               topo::LeafName(su, su.leaves.back());
    out += Pad(su.name, 10) + Pad(std::to_string(su.nodes.size()), 7) + Pad(su.node_type, 14) +
           Pad(leaves, 28) + CompressHostlistSorted(su.nodes) + "\n";
  }
  if (topo::HasSplitSus(t)) {
    out += "\n" + std::to_string(t.domains.size()) +
           " one-hop domains (nodes that share every rail leaf):\n" + Pad("DOMAIN", 12) +
           Pad("SU", 10) + Pad("NODES", 7) + Pad("LEAVES", 28) + "HOSTLIST\n";
    for (const topo::Domain& d : t.domains) {
      const topo::ScalableUnit& su = t.sus[static_cast<size_t>(d.su)];
      std::string leaves;
      if (!d.leaves.empty() && d.leaves.front() >= 0 && d.leaves.back() >= 0)
        leaves = topo::LeafName(su, su.leaves[static_cast<size_t>(d.leaves.front())]) + ".." +
                 topo::LeafName(su, su.leaves[static_cast<size_t>(d.leaves.back())]);
      out += Pad(d.name, 12) + Pad(su.name, 10) + Pad(std::to_string(d.nodes.size()), 7) +
             Pad(leaves, 28) + CompressHostlistSorted(d.nodes) + "\n";
    }
  }
  if (!t.spines.empty()) {
    out += "\nspines:";
    for (const topo::Switch& sw : t.spines) out += " " + sw.name;
    out += "\n";
  }
  if (!t.cores.empty()) {
    out += t.spines.empty() ? "\n" : "";
    out += "cores:";
    for (const topo::Switch& sw : t.cores) out += " " + sw.name;
    out += "\n";
  }
  return out;
}

// One node's place in the fabric: its SU, one-hop domain and, per rail, its NIC and leaf.
bool NodeText(const topo::Topology& t, const std::string& node, bool as_json, std::string* out) {
  const topo::NodeRef* ref = t.FindNode(node);
  if (!ref) return false;
  const topo::ScalableUnit& su = t.sus[ref->su];
  const topo::Domain& domain = t.domains[static_cast<size_t>(ref->domain)];
  const topo::NodeType* type = t.FindType(su.node_type);
  json rails = json::array();
  std::string text = "node " + node + ": scalable unit " + su.name +
                     (t.su_domains[ref->su] > 1 ? ", one-hop domain " + domain.name : "") +
                     ", type " + su.node_type + "\n" + Pad("RAIL", 6) + Pad("NIC", 10) +
                     Pad("LEAF", 20) + "LINK\n";
  for (int i : domain.leaves) {
    if (i < 0) continue;
    const topo::Leaf& leaf = su.leaves[static_cast<size_t>(i)];
    const std::string nic = type && leaf.rail < static_cast<int>(type->nics.size())
                                ? type->nics[leaf.rail] : "?";
    const std::string link = t.rails[leaf.rail].link.ToSysfsRate();
    rails.push_back({{"rail", leaf.rail}, {"nic", nic}, {"leaf", topo::LeafName(su, leaf)},
                     {"link", link}});
    text += Pad(std::to_string(leaf.rail), 6) + Pad(nic, 10) +
            Pad(topo::LeafName(su, leaf), 20) + link + "\n";
  }
  *out = as_json ? json{{"node", node}, {"su", su.name}, {"domain", domain.name},
                        {"node_type", su.node_type}, {"rails", rails}}.dump(2) + "\n"
                 : text;
  return true;
}

const char kValidateUsage[] =
    "usage: railctl topology validate FILE.yaml [--json]\n"
    "Checks every key, hostlist, rail and leaf; prints each problem as file:line:column.\n"
    "Exit: 0 valid, 1 invalid, 2 usage error.\n";

const char kShowUsage[] =
    "usage: railctl topology show FILE.yaml [--json] [--format summary|nodes] [--node NAME]\n"
    "  --format nodes  one line per node: <node> <su> <node_type> <gpus>\n"
    "  --node NAME     that node's scalable unit, one-hop domain, NIC and leaf per rail\n"
    "Exit: 0 ok, 1 invalid file or unknown node, 2 usage error.\n";

const char kExportUsage[] =
    "usage: railctl topology export FILE.yaml --format tree|block|slurm-yaml|yaml [-o OUT]\n"
    "  tree        topology.conf for TopologyPlugin=topology/tree (any Slurm)\n"
    "  block       topology.conf for TopologyPlugin=topology/block (Slurm >= 24.05)\n"
    "  slurm-yaml  topology.yaml (Slurm >= 25.05): flat (cluster default), <cluster>-tree and\n"
    "              <cluster>-block, for partitions to pick with Topology=<name>\n"
    "  yaml   the topology in canonical form\n"
    "OUT is written atomically; without -o the result goes to stdout.\n"
    "Exit: 0 ok, 1 invalid file or write error, 2 usage error.\n";

}  // namespace

int TopologyValidate(int argc, char** argv) {
  const Handler h("railctl topology validate", kValidateUsage, argc, argv, {{"json", 0, false}});
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectOne("FILE.yaml")) return rc;
  const Args& args = h.args();
  const std::string path = args.positional()[0];
  topo::Topology t;
  Diags diags;
  const bool ok = topo::LoadTopologyFile(path, &t, &diags);
  if (args.Has("json")) {
    json out = {{"file", path}, {"valid", ok}, {"errors", DiagsJson(diags)}};
    if (ok)
      out["summary"] = {{"cluster", t.cluster}, {"scalable_units", t.sus.size()},
                        {"nodes", t.NodeCount()}, {"rails", t.rails.size()}};
    std::printf("%s\n", out.dump(2).c_str());
    return ok ? 0 : 1;
  }
  if (!ok) {
    ReportFileErrors(path, diags);
    return 1;
  }
  std::printf("%s: ok: cluster %s, %zu scalable units, %zu nodes, %zu rails\n", path.c_str(),
              t.cluster.c_str(), t.sus.size(), t.NodeCount(), t.rails.size());
  return 0;
}

int TopologyShow(int argc, char** argv) {
  const Handler h("railctl topology show", kShowUsage, argc, argv,
                  {{"json", 0, false}, {"format", 0, true}, {"node", 0, true}});
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectOne("FILE.yaml")) return rc;
  const Args& args = h.args();
  const std::string format = args.Get("format", "summary");
  if (format != "summary" && format != "nodes")
    return h.UsageError("unknown format '" + format + "'; expected summary or nodes");
  topo::Topology t;
  if (!LoadTopologyOrReport(args.positional()[0], &t)) return 1;
  if (args.Has("node")) {
    std::string text;
    if (!NodeText(t, args.Get("node"), args.Has("json"), &text))
      return h.Fail("node '" + args.Get("node") + "' is not in " + args.positional()[0]);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (format == "nodes") {
    for (const topo::ScalableUnit& su : t.sus) {
      const topo::NodeType* type = t.FindType(su.node_type);
      for (const std::string& node : su.nodes)
        std::printf("%s %s %s %d\n", node.c_str(), su.name.c_str(), su.node_type.c_str(),
                    type ? type->gpus : 0);
    }
    return 0;
  }
  if (args.Has("json")) {
    std::printf("%s\n", TopologyJson(t).dump(2).c_str());
  } else {
    std::fputs(SummaryText(t).c_str(), stdout);
  }
  return 0;
}

int TopologyExport(int argc, char** argv) {
  const Handler h("railctl topology export", kExportUsage, argc, argv,
                  {{"format", 0, true}, {"output", 'o', true}});
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectOne("FILE.yaml")) return rc;
  const Args& args = h.args();
  const std::string format = args.Get("format");
  if (format != "tree" && format != "block" && format != "slurm-yaml" && format != "yaml")
    return h.UsageError("--format must be tree, block, slurm-yaml or yaml");
  const std::string path = args.positional()[0];
  topo::Topology t;
  if (!LoadTopologyOrReport(path, &t)) return 1;
  std::string text;
  if (format == "tree") text = topo::ExportTreeConf(t, path);
  if (format == "block") text = topo::ExportBlockConf(t, path);
  if (format == "slurm-yaml") text = topo::ExportTopologyYaml(t, path);
  if (format == "yaml") text = topo::EmitTopologyYaml(t);
  return h.Write(args.Get("output"), text);
}

}  // namespace railguard::cli
