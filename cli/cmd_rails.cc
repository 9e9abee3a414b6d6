// SPDX-License-Identifier: GPL-2.0-or-later
// railctl topology rails: rail order (GPU -> nearest NIC) from hwloc, live or from XML.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "base/args.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "topo/hwloc_rails.h"

namespace railguard::cli {
namespace {

using ojson = nlohmann::ordered_json;  // keys in the order a reader expects

const char kRailsUsage[] =
    "usage: railctl topology rails [--xml FILE] [--json] [--help]\n"
    "Pairs each GPU with the NIC under the same PCIe switch; rail k is the NIC nearest GPU k,\n"
    "GPUs in PCI bus-id order. Prints the node type's nics list for the rail YAML.\n"
    "  --xml FILE  read an hwloc XML export ('lstopo --of xml FILE') instead of this machine\n"
    "  --json      print the result as JSON\n"
    "Exit: 0 ok, 1 unreadable input, no GPU or ambiguous pairing, 2 usage error.\n";

std::string YamlList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return "[" + out + "]";
}

std::string RailsText(const topo::RailOrder& order) {
  size_t nic_width = 5;
  for (const topo::RailNic& r : order.rails) nic_width = std::max(nic_width, r.nic.size() + 2);
  std::string out = order.source + ": " + std::to_string(order.rails.size()) +
                    " GPUs, each paired with the NIC under its PCIe switch\n\n";
  out += Pad("RAIL", 6) + Pad("GPU PCI", 14) + Pad("NIC", nic_width) + Pad("NIC PCI", 14) +
         "VIA SWITCH\n";
  for (const topo::RailNic& r : order.rails)
    out += Pad(std::to_string(r.rail), 6) + Pad(r.gpu_pci, 14) + Pad(r.nic, nic_width) +
           Pad(r.nic_pci, 14) + r.via + "\n";
  std::string others;
  for (const topo::OtherNic& n : order.other_nics)
    others += (others.empty() ? "" : ", ") + n.nic + " (" + n.nic_pci + ")";
  out += "\nnon-rail NICs: " + (others.empty() ? std::string("none") : others) + "\n";
  out += "\n# node_types[].nics for the rail YAML\nnics: " + YamlList(order.NicNames()) + "\n";
  return out;
}

ojson RailOrderJson(const topo::RailOrder& order) {
  ojson rails = ojson::array();
  for (const topo::RailNic& r : order.rails)
    rails.push_back({{"rail", r.rail},
                     {"gpu_pci", r.gpu_pci},
                     {"nic", r.nic},
                     {"nic_pci", r.nic_pci},
                     {"via", r.via}});
  ojson others = ojson::array();
  for (const topo::OtherNic& n : order.other_nics)
    others.push_back({{"nic", n.nic}, {"nic_pci", n.nic_pci}});
  return {{"source", order.source},
          {"rails", rails},
          {"non_rail_nics", others},
          {"nics", order.NicNames()}};
}

}  // namespace

int TopologyRails(int argc, char** argv) {
  const Handler h("railctl topology rails", kRailsUsage, argc, argv,
                  {{"xml", 0, true}, {"json", 0, false}});
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectNone()) return rc;
  const Args& args = h.args();
  if (args.GetAll("xml").size() > 1) return h.UsageError("option '--xml' given more than once");
  const bool live = !args.Has("xml");
  const std::string path = args.Get("xml");
  if (!live && path.empty()) return h.UsageError("option '--xml' needs a FILE");

  topo::IoFacts facts;
  topo::RailOrder order;
  std::string err;
  const bool gathered = live ? topo::GatherIoFactsFromLiveSystem(&facts, &err)
                             : topo::GatherIoFactsFromXml(path, &facts, &err);
  if (!gathered || !topo::FindRailOrder(facts, &order, &err)) {
    h.Fail(err);
    if (gathered && live && facts.gpus.empty())
      std::fputs(
          "railctl topology rails: run this on a GPU node, or pass --xml with an export "
          "made there by 'lstopo --of xml FILE'\n",
          stderr);
    return 1;
  }
  const std::string out =
      args.Has("json")
          ? RailOrderJson(order).dump(2, ' ', false, ojson::error_handler_t::replace) + "\n"
          : RailsText(order);
  return h.Write("", out);
}

}  // namespace railguard::cli
