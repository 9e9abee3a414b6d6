// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for rail order from hwloc (topo/hwloc_rails.h) and `railctl topology rails`.
#include "topo/hwloc_rails.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace railguard::topo {
namespace topo_hwloc_rails_test {

using nlohmann::json;

const std::string kData = std::string(RAILGUARD_SOURCE_DIR) + "/tests/data/hwloc/";

// The DGX H100 rail order: GPU k (bus order) beside the compute NIC of the user guide's table.
const std::vector<std::string> kDgxNics = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                           "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};
const std::vector<std::string> kDgxGpuPci = {"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0",
                                             "0000:61:00.0", "0000:9d:00.0", "0000:c3:00.0",
                                             "0000:d1:00.0", "0000:df:00.0"};
const std::vector<std::string> kDgxNicPci = {"0000:18:00.0", "0000:40:00.0", "0000:4f:00.0",
                                             "0000:5e:00.0", "0000:9a:00.0", "0000:c0:00.0",
                                             "0000:ce:00.0", "0000:dc:00.0"};
// Each pair's switch upstream port sits three buses above its NIC.
const std::vector<std::string> kDgxVia = {"0000:15:00.0", "0000:3d:00.0", "0000:4c:00.0",
                                          "0000:5b:00.0", "0000:97:00.0", "0000:bd:00.0",
                                          "0000:cb:00.0", "0000:d9:00.0"};

std::string FromXml(const std::string& fixture, RailOrder* order) {
  std::string err;
  // Called first: the order in which EXPECT_EQ evaluates its two arguments is unspecified
  // (GCC reads err after the call, clang before it).
  const bool ok = RailOrderFromXml(kData + fixture, order, &err);
  EXPECT_EQ(err.empty(), ok);
  return err;
}

std::vector<std::string> OtherNicList(const RailOrder& order) {
  std::vector<std::string> out;
  for (const OtherNic& n : order.other_nics) out.push_back(n.nic + "@" + n.nic_pci);
  return out;
}

TEST(HwlocRails, DgxH100FixtureGivesTheUserGuideRailOrder) {
  RailOrder order;
  ASSERT_EQ("", FromXml("dgx-h100.xml", &order));
  EXPECT_EQ(kData + "dgx-h100.xml", order.source);
  EXPECT_EQ(kDgxNics, order.NicNames());
  ASSERT_EQ(8u, order.rails.size());
  for (size_t k = 0; k < order.rails.size(); ++k) {
    const RailNic& r = order.rails[k];
    EXPECT_EQ(static_cast<int>(k), r.rail);
    EXPECT_EQ(kDgxGpuPci[k], r.gpu_pci) << "rail " << k;
    EXPECT_EQ(kDgxNics[k], r.nic) << "rail " << k;
    EXPECT_EQ(kDgxNicPci[k], r.nic_pci) << "rail " << k;
    EXPECT_EQ(kDgxVia[k], r.via) << "rail " << k;
  }
}

TEST(HwlocRails, StorageAndInbandNicsAreNotRails) {
  RailOrder order;
  ASSERT_EQ("", FromXml("dgx-h100.xml", &order));
  EXPECT_EQ((std::vector<std::string>{"mlx5_1@0000:29:00.0", "mlx5_2@0000:29:00.1",
                                      "mlx5_7@0000:aa:00.0", "mlx5_8@0000:aa:00.1"}),
            OtherNicList(order));
}

TEST(HwlocRails, NvswitchesAndTheBmcDisplayAreNotGpus) {
  IoFacts facts;
  std::string err;
  ASSERT_TRUE(GatherIoFactsFromXml(kData + "dgx-h100.xml", &facts, &err)) << err;
  // 8 GPUs, 8 compute NICs, 4 storage ports, 4 NVSwitches, 1 ASPEED VGA.
  EXPECT_EQ(25, facts.pci_functions);
  std::vector<std::string> gpus;
  for (const PciEndpoint& g : facts.gpus) gpus.push_back(g.busid);
  EXPECT_EQ(kDgxGpuPci, gpus);
  EXPECT_EQ(12u, facts.nics.size());
}

TEST(HwlocRails, GpuBridgesAreListedFromRootPortToDownstreamPort) {
  IoFacts facts;
  std::string err;
  ASSERT_TRUE(GatherIoFactsFromXml(kData + "dgx-h100.xml", &facts, &err)) << err;
  ASSERT_FALSE(facts.gpus.empty());
  EXPECT_EQ((std::vector<std::string>{"0000:14:01.0", "0000:15:00.0", "0000:16:01.0"}),
            facts.gpus[0].bridges);
}

TEST(HwlocRails, RoceNicsAndGpusKnownOnlyByTheirCudaDevicesPairTheSameWay) {
  RailOrder order;
  ASSERT_EQ("", FromXml("dgx-h100-roce.xml", &order));
  EXPECT_EQ(kDgxNics, order.NicNames());
  ASSERT_EQ(8u, order.rails.size());
  EXPECT_EQ("0000:df:00.0", order.rails[7].gpu_pci);
  EXPECT_EQ("0000:dc:00.0", order.rails[7].nic_pci);
  EXPECT_EQ(4u, order.other_nics.size());
}

TEST(HwlocRails, FillNodeTypeGivesTheRailYamlNodeType) {
  RailOrder order;
  ASSERT_EQ("", FromXml("dgx-h100.xml", &order));
  NodeType type;
  type.name = "dgx-h100";
  type.nics = {"stale"};
  order.FillNodeType(&type);
  EXPECT_EQ("dgx-h100", type.name);
  EXPECT_EQ(8, type.gpus);
  EXPECT_EQ(kDgxNics, type.nics);
  EXPECT_EQ(kDgxNicPci, type.nic_pci);
  EXPECT_EQ(kDgxGpuPci, type.gpu_pci);
}

// --- errors from fixtures --------------------------------------------------------------------

TEST(HwlocRailsErrors, GpuWhoseSwitchHasNoNicIsAnError) {
  RailOrder order;
  EXPECT_EQ(kData +
                "gpu-without-nic.xml: GPU 5 (0000:c3:00.0) shares no PCIe switch with any NIC; "
                "expected an OpenFabrics NIC on a function of class 0x0207 or 0x0200 behind the "
                "same switch",
            FromXml("gpu-without-nic.xml", &order));
}

TEST(HwlocRailsErrors, TwoNicsEquallyNearAGpuAreAnError) {
  RailOrder order;
  EXPECT_EQ(kData +
                "ambiguous-pairing.xml: GPU 0 (0000:1b:00.0) is equally near mlx5_0 "
                "(0000:18:00.0) and mlx5_3 (0000:19:00.0) via switch 0000:15:00.0, and no other "
                "GPU claims either; cannot tell which is rail 0",
            FromXml("ambiguous-pairing.xml", &order));
}

TEST(HwlocRailsErrors, TwoGpusNearestToOneNicAreAnError) {
  RailOrder order;
  EXPECT_EQ(kData +
                "shared-nic.xml: GPU 0 (0000:1b:00.0) and GPU 1 (0000:1c:00.0) are both nearest "
                "to mlx5_0 (0000:18:00.0); expected one NIC per GPU",
            FromXml("shared-nic.xml", &order));
}

TEST(HwlocRailsErrors, TopologyWithoutGpusIsAnError) {
  RailOrder order;
  EXPECT_EQ(kData +
                "no-gpus.xml: no NVIDIA GPU among 13 PCI functions; expected vendor 0x10de with "
                "class 0x0302 (3D) or 0x0300 (VGA), or a cuda/nvml OS device",
            FromXml("no-gpus.xml", &order));
}

TEST(HwlocRailsErrors, ExportWithoutIoObjectsIsAnError) {
  RailOrder order;
  EXPECT_EQ(kData + "no-io.xml: no PCI devices in the topology, so no GPU to pair with a NIC",
            FromXml("no-io.xml", &order));
}

TEST(HwlocRailsErrors, FileThatIsNotXmlNamesTheFileAndHwlocsReason) {
  RailOrder order;
  EXPECT_EQ(kData +
                "not-xml.xml: hwloc cannot load this as an XML topology (Invalid argument); "
                "expected an hwloc XML export such as 'lstopo --of xml' writes",
            FromXml("not-xml.xml", &order));
}

TEST(HwlocRailsErrors, MissingFileIsAnError) {
  RailOrder order;
  EXPECT_EQ(kData + "absent.xml: cannot open: No such file or directory",
            FromXml("absent.xml", &order));
}

TEST(HwlocRailsErrors, EmptyFileIsAnError) {
  const std::string path = ::testing::TempDir() + "hwloc_rails_empty.xml";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(nullptr, f);
  std::fclose(f);
  RailOrder order;
  std::string err;
  EXPECT_FALSE(RailOrderFromXml(path, &order, &err));
  EXPECT_EQ(path + ": file is empty; expected an hwloc XML export such as 'lstopo --of xml' writes",
            err);
  std::remove(path.c_str());
}

TEST(HwlocRailsErrors, DirectoryIsAnError) {
  RailOrder order;
  std::string err;
  EXPECT_FALSE(RailOrderFromXml(kData, &order, &err));
  EXPECT_EQ(kData + ": cannot read: Is a directory", err);
}

// --- the pairing rules, on facts given by hand -------------------------------------------------

PciEndpoint Gpu(const std::string& busid, std::vector<std::string> bridges) {
  return {"", busid, std::move(bridges)};
}

PciEndpoint Nic(const std::string& name, const std::string& busid,
                std::vector<std::string> bridges) {
  return {name, busid, std::move(bridges)};
}

IoFacts Facts(std::vector<PciEndpoint> gpus, std::vector<PciEndpoint> nics) {
  IoFacts f;
  f.source = "hand";
  f.pci_functions = static_cast<int>(gpus.size() + nics.size());
  f.gpus = std::move(gpus);
  f.nics = std::move(nics);
  return f;
}

std::string Judge(const IoFacts& facts, RailOrder* order) {
  std::string err;
  const bool ok = FindRailOrder(facts, order, &err);  // first, as in FromXml
  EXPECT_EQ(err.empty(), ok);
  return err;
}

TEST(HwlocRailsJudge, RailsFollowGpuBusOrderNotInputOrder) {
  IoFacts facts = Facts({Gpu("0000:9d:00.0", {"0000:96:01.0", "0000:97:00.0"}),
                         Gpu("0000:1b:00.0", {"0000:14:01.0", "0000:15:00.0"})},
                        {Nic("mlx5_0", "0000:18:00.0", {"0000:14:01.0", "0000:15:00.0"}),
                         Nic("mlx5_6", "0000:9a:00.0", {"0000:96:01.0", "0000:97:00.0"})});
  RailOrder order;
  ASSERT_EQ("", Judge(facts, &order));
  EXPECT_EQ((std::vector<std::string>{"mlx5_0", "mlx5_6"}), order.NicNames());
  EXPECT_EQ("0000:1b:00.0", order.rails[0].gpu_pci);
  EXPECT_EQ("0000:97:00.0", order.rails[1].via);
}

// Below, every device hangs off downstream port 0000:16:0N.0 of one switch whose upstream port
// is kUp: sharing only kUp is less near than sharing a downstream port too.
const char kUp[] = "0000:15:00.0";

std::vector<std::string> Port(int n) { return {kUp, "0000:16:0" + std::to_string(n) + ".0"}; }

TEST(HwlocRailsJudge, TheDeeperSharedBridgeWins) {
  IoFacts facts = Facts({Gpu("0000:1b:00.0", Port(1))}, {Nic("mlx5_3", "0000:19:00.0", Port(2)),
                                                         Nic("mlx5_0", "0000:1a:00.0", Port(1))});
  RailOrder order;
  ASSERT_EQ("", Judge(facts, &order));
  EXPECT_EQ((std::vector<std::string>{"mlx5_0"}), order.NicNames());
  EXPECT_EQ("0000:16:01.0", order.rails[0].via);
  EXPECT_EQ((std::vector<std::string>{"mlx5_3@0000:19:00.0"}), OtherNicList(order));
}

TEST(HwlocRailsJudge, ANicClaimedByAnotherGpuLeavesTheOtherChoice) {
  // GPU 0 is equally near both NICs; GPU 1 shares a port with mlx5_0, so GPU 0 gets mlx5_3.
  IoFacts facts =
      Facts({Gpu("0000:1b:00.0", Port(1)), Gpu("0000:1c:00.0", Port(2))},
            {Nic("mlx5_0", "0000:18:00.0", Port(2)), Nic("mlx5_3", "0000:19:00.0", Port(3))});
  RailOrder order;
  ASSERT_EQ("", Judge(facts, &order));
  EXPECT_EQ((std::vector<std::string>{"mlx5_3", "mlx5_0"}), order.NicNames());
  EXPECT_EQ(kUp, order.rails[0].via);
  EXPECT_EQ("0000:16:02.0", order.rails[1].via);
}

TEST(HwlocRailsJudge, SharingOnlyAHostBridgeIsNotSharingASwitch) {
  // Two root ports of one host bridge, and a NIC right on the host bridge.
  IoFacts facts =
      Facts({Gpu("0000:1b:00.0", {"0000:14:01.0"})},
            {Nic("mlx5_0", "0000:18:00.0", {"0000:14:02.0"}), Nic("mlx5_1", "0000:29:00.0", {})});
  RailOrder order;
  EXPECT_EQ(
      "hand: GPU 0 (0000:1b:00.0) shares no PCIe switch with any NIC; expected an OpenFabrics "
      "NIC on a function of class 0x0207 or 0x0200 behind the same switch",
      Judge(facts, &order));
}

TEST(HwlocRailsJudge, ThreeEquallyNearNicsAreAllNamed) {
  IoFacts facts = Facts({Gpu("0000:1b:00.0", Port(4))}, {Nic("mlx5_0", "0000:18:00.0", Port(1)),
                                                         Nic("mlx5_3", "0000:19:00.0", Port(2)),
                                                         Nic("mlx5_4", "0000:1a:00.0", Port(3))});
  RailOrder order;
  EXPECT_EQ(
      "hand: GPU 0 (0000:1b:00.0) is equally near mlx5_0 (0000:18:00.0), mlx5_3 (0000:19:00.0) "
      "and mlx5_4 (0000:1a:00.0) via switch 0000:15:00.0, and no other GPU claims any of them; "
      "cannot tell which is rail 0",
      Judge(facts, &order));
}

TEST(HwlocRailsJudge, GpusBesideTheirNicsClaimThemBeforeAnEquallyNearGpuCan) {
  // GPU 1 is equally near both NICs, but GPU 0 and GPU 2 each share a port with one of them:
  // GPU 1 must not take mlx5_3 from GPU 2 just because it comes first in bus order.
  IoFacts facts = Facts(
      {Gpu("0000:1a:00.0", Port(1)), Gpu("0000:1b:00.0", Port(3)), Gpu("0000:1c:00.0", Port(2))},
      {Nic("mlx5_0", "0000:18:00.0", Port(1)), Nic("mlx5_3", "0000:19:00.0", Port(2))});
  RailOrder order;
  EXPECT_EQ(
      "hand: GPU 0 (0000:1a:00.0) and GPU 1 (0000:1b:00.0) are both nearest to mlx5_0 "
      "(0000:18:00.0); expected one NIC per GPU",
      Judge(facts, &order));
}

TEST(HwlocRailsJudge, NoPciDevicesAtAllIsSaidPlainly) {
  IoFacts facts;
  facts.source = "hand";
  RailOrder order;
  EXPECT_EQ("hand: no PCI devices in the topology, so no GPU to pair with a NIC",
            Judge(facts, &order));
}

// --- railctl topology rails --------------------------------------------------------------------

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

CliRun Rails(std::vector<std::string> args) {
  args.insert(args.begin(), "rails");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  CliRun r;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  r.code = cli::TopologyRails(static_cast<int>(args.size()), argv.data());
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

TEST(HwlocRailsCli, PrintsTheTableTheNonRailNicsAndTheYamlLine) {
  const std::string path = kData + "dgx-h100.xml";
  CliRun r = Rails({"--xml", path});
  EXPECT_EQ(0, r.code);
  EXPECT_EQ("", r.err);
  EXPECT_EQ(path +
                ": 8 GPUs, each paired with the NIC under its PCIe switch\n"
                "\n"
                "RAIL  GPU PCI       NIC      NIC PCI       VIA SWITCH\n"
                "0     0000:1b:00.0  mlx5_0   0000:18:00.0  0000:15:00.0\n"
                "1     0000:43:00.0  mlx5_3   0000:40:00.0  0000:3d:00.0\n"
                "2     0000:52:00.0  mlx5_4   0000:4f:00.0  0000:4c:00.0\n"
                "3     0000:61:00.0  mlx5_5   0000:5e:00.0  0000:5b:00.0\n"
                "4     0000:9d:00.0  mlx5_6   0000:9a:00.0  0000:97:00.0\n"
                "5     0000:c3:00.0  mlx5_9   0000:c0:00.0  0000:bd:00.0\n"
                "6     0000:d1:00.0  mlx5_10  0000:ce:00.0  0000:cb:00.0\n"
                "7     0000:df:00.0  mlx5_11  0000:dc:00.0  0000:d9:00.0\n"
                "\n"
                "non-rail NICs: mlx5_1 (0000:29:00.0), mlx5_2 (0000:29:00.1), "
                "mlx5_7 (0000:aa:00.0), mlx5_8 (0000:aa:00.1)\n"
                "\n"
                "# node_types[].nics for the rail YAML\n"
                "nics: [mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11]\n",
            r.out);
}

TEST(HwlocRailsCli, JsonCarriesTheSameRailsAndNics) {
  const std::string path = kData + "dgx-h100.xml";
  CliRun r = Rails({"--json", "--xml=" + path});
  ASSERT_EQ(0, r.code) << r.err;
  EXPECT_EQ(0u, r.out.find("{\n  \"source\": ")) << "source comes first";
  const json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(path, j["source"]);
  EXPECT_EQ(json(kDgxNics), j["nics"]);
  ASSERT_EQ(8u, j["rails"].size());
  EXPECT_EQ((json{{"rail", 5},
                  {"gpu_pci", "0000:c3:00.0"},
                  {"nic", "mlx5_9"},
                  {"nic_pci", "0000:c0:00.0"},
                  {"via", "0000:bd:00.0"}}),
            j["rails"][5]);
  EXPECT_EQ((json::array({{{"nic", "mlx5_1"}, {"nic_pci", "0000:29:00.0"}},
                          {{"nic", "mlx5_2"}, {"nic_pci", "0000:29:00.1"}},
                          {{"nic", "mlx5_7"}, {"nic_pci", "0000:aa:00.0"}},
                          {{"nic", "mlx5_8"}, {"nic_pci", "0000:aa:00.1"}}})),
            j["non_rail_nics"]);
}

TEST(HwlocRailsCli, AmbiguousPairingExitsOneWithTheReason) {
  const std::string path = kData + "ambiguous-pairing.xml";
  CliRun r = Rails({"--xml", path, "--json"});
  EXPECT_EQ(1, r.code);
  EXPECT_EQ("", r.out);
  EXPECT_EQ("railctl topology rails: " + path +
                ": GPU 0 (0000:1b:00.0) is equally near mlx5_0 (0000:18:00.0) and mlx5_3 "
                "(0000:19:00.0) via switch 0000:15:00.0, and no other GPU claims either; cannot "
                "tell which is rail 0\n",
            r.err);
}

TEST(HwlocRailsCli, UnreadableXmlExitsOne) {
  CliRun r = Rails({"--xml", kData + "not-xml.xml"});
  EXPECT_EQ(1, r.code);
  EXPECT_EQ("", r.out);
  EXPECT_EQ("railctl topology rails: " + kData +
                "not-xml.xml: hwloc cannot load this as an XML topology (Invalid argument); "
                "expected an hwloc XML export such as 'lstopo --of xml' writes\n",
            r.err);
}

TEST(HwlocRailsCli, UnknownFlagIsAUsageError) {
  CliRun r = Rails({"--yaml"});
  EXPECT_EQ(2, r.code);
  EXPECT_EQ("", r.out);
  EXPECT_EQ(0u, r.err.find("railctl topology rails: unknown option '--yaml'\n"
                           "usage: railctl topology rails [--xml FILE] [--json] [--help]\n"))
      << r.err;
}

TEST(HwlocRailsCli, XmlWithoutAFileIsAUsageError) {
  CliRun r = Rails({"--xml"});
  EXPECT_EQ(2, r.code);
  EXPECT_EQ(0u, r.err.find("railctl topology rails: option '--xml' needs a value\n")) << r.err;
  r = Rails({"--xml="});
  EXPECT_EQ(2, r.code);
  EXPECT_EQ(0u, r.err.find("railctl topology rails: option '--xml' needs a FILE\n")) << r.err;
}

TEST(HwlocRailsCli, StrayArgumentsAndRepeatedXmlAreUsageErrors) {
  CliRun r = Rails({"dgx.xml"});
  EXPECT_EQ(2, r.code);
  EXPECT_EQ(0u, r.err.find("railctl topology rails: unexpected argument 'dgx.xml'\n")) << r.err;
  r = Rails({"--xml", "a.xml", "--xml", "b.xml"});
  EXPECT_EQ(2, r.code);
  EXPECT_EQ(0u, r.err.find("railctl topology rails: option '--xml' given more than once\n"))
      << r.err;
}

TEST(HwlocRailsCli, HelpPrintsUsageAndExitsZero) {
  CliRun r = Rails({"--help"});
  EXPECT_EQ(0, r.code);
  EXPECT_EQ("", r.err);
  EXPECT_EQ(0u, r.out.find("usage: railctl topology rails [--xml FILE] [--json] [--help]\n"));
  EXPECT_NE(std::string::npos, r.out.find("Exit: 0 ok, 1 "));
}

TEST(HwlocRailsCli, LiveModeWithoutGpusFailsCleanly) {
  IoFacts facts;
  std::string err;
  ASSERT_TRUE(GatherIoFactsFromLiveSystem(&facts, &err)) << err;
  if (!facts.gpus.empty()) GTEST_SKIP() << "this machine has NVIDIA GPUs";
  CliRun r = Rails({});
  EXPECT_EQ(1, r.code);
  EXPECT_EQ("", r.out);
  const std::string reason =
      facts.pci_functions == 0
          ? std::string("no PCI devices in the topology, so no GPU to pair with a NIC")
          : "no NVIDIA GPU among " + std::to_string(facts.pci_functions) +
                " PCI functions; expected vendor 0x10de with class 0x0302 (3D) or 0x0300 (VGA), "
                "or a cuda/nvml OS device";
  EXPECT_EQ("railctl topology rails: live topology: " + reason +
                "\nrailctl topology rails: run this on a GPU node, or pass --xml with an export "
                "made there by 'lstopo --of xml FILE'\n",
            r.err);
}

}  // namespace topo_hwloc_rails_test
}  // namespace railguard::topo
