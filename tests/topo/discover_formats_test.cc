// SPDX-License-Identifier: GPL-2.0-or-later
// Generated fabrics with every trait, in every capture format (issue 25, item 6): a fabric of
// rail planes under core switches, with a management leaf group, an appliance on compute
// leaves, UFM and SHARP nodes, a host left at "localhost", an empty slot, a swapped cable pair
// and a slow link is written by the simulator as ibnetdiscover output, then as ibnetdiscover -p,
// iblinkinfo (both layouts) and ibdiagnet2.lst (the writers of topo/), each also as an admin
// saves it from a terminal (BOM, prompt and command, CRLF). Discovery of every one gives the
// YAML and the findings of the ibnetdiscover output; and the YAML, simulated again with the
// same traits, is discovered as itself.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/topo/discover_test_util.h"
#include "topo/capture.h"
#include "topo/discover.h"
#include "topo/fabric_sim.h"
#include "topo/ibdiagnet_lst.h"
#include "topo/iblinkinfo.h"
#include "topo/ibnet_ports.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_discover_formats_test {

using discover_testing::AllFindings;
using discover_testing::DevOptions;
using discover_testing::kDev4su;
using discover_testing::LoadFile;
using discover_testing::PlanesDevLayout;

using Traits = std::vector<std::pair<std::string, std::string>>;

// Traits that keep every node of the layout in the topology discovery gives.
const Traits kKeepNodes = {
    {"service", "login:3:2"}, {"service", "gw:4:1"}, {"appliance", "stor01:su2:0,1"},
    {"ufm", "ufm01"},         {"sharp", "4"},        {"swap", "n020:3:4"},
    {"slow", "n027:5:4xEDR"}};

// kKeepNodes and two that leave a node out: a host left at "localhost", an empty slot.
Traits AllTraits() {
  Traits t = kKeepNodes;
  t.push_back({"host-name", "n006:localhost"});
  t.push_back({"empty", "n012"});
  return t;
}

// The dev layout with 8 spines in rail planes under 2 core switches, `traits` applied.
std::string TraitFabric(const Topology& t, int cores, const Traits& traits) {
  SimOptions opts;
  opts.rail_planes = true;
  opts.cores = cores;
  for (const auto& [flag, value] : traits) {
    std::string err;
    EXPECT_TRUE(AddSimFault(t, flag, value, &opts.faults, &err)) << flag << ": " << err;
  }
  std::string out, err;
  EXPECT_TRUE(SimulateFabric(t, opts, &out, &err)) << err;
  return out;
}

// `text` as an admin saves it from a terminal session: a UTF-8 byte-order mark, the prompt
// and command line first, CRLF line ends.
std::string AsSavedFromATerminal(const std::string& text, const std::string& command) {
  std::string out = "\xEF\xBB\xBF[root@ufm01 ~]# " + command + "\r\n";
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

Discovery DiscoverText(const std::string& text, const std::string& name, CaptureFormat want) {
  IbFabric f;
  Diags errors;
  CaptureFormat read_as = CaptureFormat::kAuto;
  EXPECT_TRUE(ParseCapture(text, name, CaptureFormat::kAuto, &f, &errors, &read_as))
      << name << ": " << FormatDiags(errors);
  EXPECT_EQ(read_as, want) << name;
  return Discover(f, DevOptions());
}

TEST(DiscoverFormats, AFabricWithEveryTraitIsDiscoveredAlikeFromEveryFormatAsSaved) {
  const std::string dump = TraitFabric(PlanesDevLayout(), 2, AllTraits());
  const Discovery want = DiscoverText(dump, "fabric.topo", CaptureFormat::kIbnetdiscover);
  const std::string yaml = EmitTopologyYaml(want.topology);
  const std::string findings = AllFindings(want);
  // What the traits must give, so that the comparisons below compare something.
  EXPECT_EQ(want.topology.cores.size(), 2u);
  EXPECT_EQ(want.topology.spines.size(), 8u);
  EXPECT_EQ(want.topology.sus.size(), 4u);
  EXPECT_EQ(want.topology.NodeCount(), 30u);  // n006 (localhost) and n012 (empty) left out
  EXPECT_EQ(discover_testing::KindCounts(want), (std::map<std::string, int>{{"rail-mismatch", 2},
                                                                            {"host-name", 1},
                                                                            {"link-speed", 1},
                                                                            {"service-hosts", 2},
                                                                            {"non-compute", 7}}))
      << findings;

  IbFabric f;
  Diags errors;
  ASSERT_TRUE(ParseCapture(dump, "fabric.topo", CaptureFormat::kIbnetdiscover, &f, &errors));
  const struct {
    std::string name, text, command;
    CaptureFormat format;
  } captures[] = {
      {"ports", WriteIbnetPorts(f), "ibnetdiscover -p", CaptureFormat::kPorts},
      {"iblinkinfo", WriteIblinkinfo(f, IblinkinfoLayout::kNodes), "iblinkinfo",
       CaptureFormat::kIblinkinfo},
      {"iblinkinfo -l", WriteIblinkinfo(f, IblinkinfoLayout::kLines), "iblinkinfo -l",
       CaptureFormat::kIblinkinfo},
      {"ibdiagnet2.lst", WriteIbdiagnetLst(f), "cat ibdiagnet2.lst", CaptureFormat::kIbdiagnetLst},
      {"ibnetdiscover", dump, "ibnetdiscover", CaptureFormat::kIbnetdiscover},
  };
  for (const auto& c : captures) {
    for (const bool saved : {false, true}) {
      const std::string text = saved ? AsSavedFromATerminal(c.text, c.command) : c.text;
      const Discovery got = DiscoverText(text, c.name, c.format);
      EXPECT_EQ(EmitTopologyYaml(got.topology), yaml) << c.name << (saved ? " as saved" : "");
      EXPECT_EQ(AllFindings(got), findings) << c.name << (saved ? " as saved" : "");
    }
  }
}

TEST(DiscoverFormats, TheDiscoveredYamlSimulatedWithTheSameTraitsIsDiscoveredAsItself) {
  const Discovery first = DiscoverText(TraitFabric(PlanesDevLayout(), 2, kKeepNodes), "first.topo",
                                       CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(first.topology.NodeCount(), 32u);
  // The YAML names its cores: the simulator takes them from there.
  const Topology again = discover_testing::Load(EmitTopologyYaml(first.topology));
  const Discovery second =
      DiscoverText(TraitFabric(again, 0, kKeepNodes), "second.topo", CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(EmitTopologyYaml(second.topology), EmitTopologyYaml(first.topology));
  EXPECT_EQ(AllFindings(second), AllFindings(first));
}

}  // namespace topo_discover_formats_test
}  // namespace railguard::topo
