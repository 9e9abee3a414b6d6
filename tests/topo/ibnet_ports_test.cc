// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the `ibnetdiscover -p` ports report (topo/ibnet_ports.h): a real capture, the
// report written from real and simulated dumps and read back, and exact error texts.
#include "topo/ibnet_ports.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/shared_data.h"
#include "tests/topo/capture_test_util.h"
#include "tests/topo/discover_test_util.h"
#include "topo/ibnet.h"

namespace railguard::topo {
namespace topo_ibnet_ports_test {

using capture_testing::FabricText;
using capture_testing::kIbnetData;
using capture_testing::MustParse;
using capture_testing::NodeWithGuid;
using capture_testing::ReadFixture;

IbFabric MustParsePorts(const std::string& text) { return MustParse(text, CaptureFormat::kPorts); }

std::string PortsErrors(const std::string& text) {
  return capture_testing::ErrorsAs(text, CaptureFormat::kPorts);
}

// tests/data/ibnet/ports-infiniband-exporter.txt: lines of a real report (see README.md there).
TEST(IbnetPorts, ReadsTheRealReportOfTheInfinibandExporterFixture) {
  const IbFabric f = MustParsePorts(ReadFixture(kIbnetData + "ports-infiniband-exporter.txt"));
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 4u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 3u);
  ASSERT_EQ(f.links.size(), 4u);
  for (const IbLink& l : f.links) EXPECT_EQ(l.Token(), "4xEDR");
  const IbNode& leaf = NodeWithGuid(f, 0x7cfe9003009ce5b0ULL);
  EXPECT_EQ(leaf.type, IbNodeType::kSwitch);
  EXPECT_EQ(leaf.description, "ib-i1l1s01");
  EXPECT_EQ(leaf.ports, 11);  // the highest port it lists
  EXPECT_EQ(leaf.line, 4);
  EXPECT_EQ(f.Address(f.FindNode(0x7cfe9003009ce5b0ULL), 10).lid, 1719);
  const IbNode& ca = NodeWithGuid(f, 0x7cfe9003003b4bdeULL);
  EXPECT_EQ(ca.id, "H-7cfe9003003b4bde");
  EXPECT_EQ(ca.description, "o0001 HCA-1");
  EXPECT_EQ(f.Address(f.FindNode(0x7cfe9003003b4bdeULL), 1).lid, 134);
  // Seen from both ends, and from one end only (ib-i1l2s01 has no lines of its own).
  const IbLink& both = f.links[f.FindLink(f.FindNode(0x7cfe9003003b4bdeULL), 1)];
  EXPECT_EQ(both.token_a, "4xEDR");
  EXPECT_EQ(both.token_b, "4xEDR");
  const IbLink& spine = f.links[f.FindLink(f.FindNode(0x7cfe9003009ce5b0ULL), 1)];
  EXPECT_EQ(spine.token_b, "");
  const IbNode& far = NodeWithGuid(f, 0x7cfe900300b07320ULL);
  EXPECT_EQ(far.description, "ib-i1l2s01");
  EXPECT_EQ(far.line, 0);
  // Ports without a link still count.
  EXPECT_EQ(NodeWithGuid(f, 0x506b4b03005c2740ULL).ports, 37);
  EXPECT_EQ(NodeWithGuid(f, 0x08c0eb0300add20eULL).ports, 80);
}

TEST(IbnetPorts, MakesOneNodeOfACasPortsListedOneAfterAnother) {
  const IbFabric f = MustParsePorts(
      "SW     6  8 0x005442ba00003080 4x SDR - CA    14  2 0x0008f1040396055a ( 'sw' - 'h' )\n"
      "SW     6 12 0x005442ba00003080 4x SDR - CA    10  1 0x0008f10403960559 ( 'sw' - 'h' )\n"
      "CA    14  2 0x0008f1040396055a 4x SDR - SW     6  8 0x005442ba00003080 ( 'h' - 'sw' )\n"
      "CA    10  1 0x0008f10403960559 4x SDR - SW     6 12 0x005442ba00003080 ( 'h' - 'sw' )\n"
      "CA    16  1 0x0008f10403960985 4x SDR - SW     6  5 0x005442ba00003080 ( 'h' - 'sw' )\n");
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 2u);
  const IbNode& dual = NodeWithGuid(f, 0x0008f10403960559ULL);  // its lowest port's GUID
  EXPECT_EQ(dual.ports, 2);
  EXPECT_EQ(dual.line, 3);
  EXPECT_EQ(f.Address(f.FindNode(0x0008f10403960559ULL), 2).guid, 0x0008f1040396055aULL);
  EXPECT_EQ(f.Address(f.FindNode(0x0008f10403960559ULL), 2).lid, 14);
  EXPECT_EQ(f.links.size(), 3u);
  // The switch's view of the dual port names the node by its port GUID.
  EXPECT_EQ(f.links[0].b.node, f.FindNode(0x0008f10403960559ULL));
  EXPECT_EQ(f.links[0].b.port, 2);
}

TEST(IbnetPorts, WritesTheFormIbnetdiscoverPrints) {
  // printf("%2s %5d %2d 0x%016" PRIx64 " %s %s") and " - ... ( '%s' - '%s' )" or
  // "%36s'%s'" (infiniband-diags/ibnetdiscover.c, dump_ports_report).
  const IbFabric f = MustParse(
      "switchguid=0x10(10)\n"
      "Switch\t3 \"S-0000000000000010\"\t\t# \"sw\" enhanced port 0 lid 2 lmc 0\n"
      "[2]\t\"H-0000000000000020\"[1](21) \t\t# \"n1 mlx5_0\" lid 17 4xNDR\n",
      CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(WriteIbnetPorts(f),
            "SW     2  3 0x0000000000000010 4x SDR                                    'sw'\n"
            "SW     2  2 0x0000000000000010 4x NDR - CA    17  1 0x0000000000000021 ( 'sw' - 'n1 "
            "mlx5_0' )\n"
            "SW     2  1 0x0000000000000010 4x SDR                                    'sw'\n"
            "CA    17  1 0x0000000000000021 4x NDR - SW     2  2 0x0000000000000010 ( 'n1 mlx5_0' "
            "- 'sw' )\n");
}

// The report of `dump` read back is the fabric of `dump`, CAs known by port GUID.
void ExpectRoundTrip(const std::string& dump, bool by_port_guid) {
  const IbFabric f = MustParse(dump, CaptureFormat::kIbnetdiscover);
  const std::string report = WriteIbnetPorts(f);
  EXPECT_EQ(SniffCaptureFormat(report), CaptureFormat::kPorts);
  const IbFabric back = MustParsePorts(report);
  EXPECT_EQ(FabricText(back, by_port_guid), FabricText(f, by_port_guid));
}

TEST(IbnetPorts, TheReportOfASimulatedRailFabricReadsBackExactly) {
  ExpectRoundTrip(discover_testing::Simulate(discover_testing::LoadFile(discover_testing::kDev4su),
                                             {{"slow", "n002:1:4xHDR"}, {"ufm", "ufm01"}}),
                  false);
}

TEST(IbnetPorts, TheReportOfTheRealX5DumpReadsBackAsItsFabric) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.topofile");
  ExpectRoundTrip(ReadFixture(testing::SharedPath("ibnetdiscover/hpc-toolset-x5/X5.topofile")),
                  true);
}

TEST(IbnetPorts, TheReportOfTheManPageSampleReadsBackAndIsTheCommittedFixture) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/1.topo");
  const std::string dump = ReadFixture(testing::SharedPath("ibnetdiscover/ibtopotool/1.topo"));
  ExpectRoundTrip(dump, true);
  // tests/data/ibnet/manpage-ports.txt is this report (see README.md there).
  EXPECT_EQ(ReadFixture(kIbnetData + "manpage-ports.txt"),
            WriteIbnetPorts(MustParse(dump, CaptureFormat::kIbnetdiscover)));
}

TEST(IbnetPorts, AReportSavedAsAdminsSaveItReadsAsTheReport) {
  const std::string report = ReadFixture(kIbnetData + "ports-infiniband-exporter.txt");
  const std::string want = FabricText(MustParsePorts(report), false);
  for (const auto& [how, text] :
       capture_testing::SavedAsAdminsSaveIt(report, "[root@osc ~]# ", "ibnetdiscover -p")) {
    EXPECT_EQ(SniffCaptureFormat(text), CaptureFormat::kPorts) << how;
    EXPECT_EQ(FabricText(MustParse(text, CaptureFormat::kAuto), false), want) << how;
  }
}

TEST(IbnetPorts, KeepsIbnetdiscoversOwnErrorLinesAsWarnings) {
  const IbFabric f = MustParsePorts(
      "ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\n"
      "SW     2  1 0x0000000000000010 4x SDR                                    'sw'\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].ToString(),
            "capture.txt:1: ibnetdiscover reported an error: \"ibwarn: [1234] mad_rpc: "
            "_do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\"; the report may be "
            "incomplete");
}

// --- errors ---------------------------------------------------------------------------------

const char kForm[] =
    "; expected <SW|CA|RT> <lid> <port> 0x<port guid> <width> <speed>, then - <SW|CA|RT> <lid> "
    "<port> 0x<port guid> ( '<description>' - '<peer description>' ), or '<description>' for "
    "a port without a link\n";
const std::string kGood =
    "SW     2  2 0x0000000000000010 4x NDR - CA    17  1 0x0000000000000021 ( 'sw' - 'n1' )\n";

TEST(IbnetPortsErrors, NameEachBadPartOfALine) {
  EXPECT_EQ(PortsErrors("XX     2  2 0x10 4x NDR                                    'sw'\n"),
            std::string("t.txt:1: bad node type \"XX\"") + kForm);
  EXPECT_EQ(PortsErrors("SW     x  2 0x10 4x NDR                                    'sw'\n"),
            std::string("t.txt:1: bad lid") + kForm);
  EXPECT_EQ(PortsErrors("SW     2  0 0x10 4x NDR                                    'sw'\n"),
            std::string("t.txt:1: bad port number") + kForm);
  EXPECT_EQ(PortsErrors("SW     2  2 10 4x NDR                                    'sw'\n"),
            std::string("t.txt:1: bad port GUID") + kForm);
  EXPECT_EQ(PortsErrors("SW     2  2 0x10 4X 106.25                               'sw'\n"),
            std::string("t.txt:1: bad link width and speed \"4X 106.25\"") + kForm);
  EXPECT_EQ(PortsErrors("SW     2  2 0x10 4x NDR                                    sw\n"),
            std::string("t.txt:1: expected '-' and the peer, or a quoted description, after "
                        "the speed") +
                kForm);
  EXPECT_EQ(PortsErrors("SW     2  2 0x10 4x NDR                                    'sw\n"),
            std::string("t.txt:1: unterminated description") + kForm);
  EXPECT_EQ(PortsErrors("SW     2  2 0x10 4x NDR - HCA    17  1 0x21 ( 'sw' - 'n1' )\n"),
            std::string("t.txt:1: bad peer node type \"HCA\"") + kForm);
  EXPECT_EQ(
      PortsErrors("SW     2  2 0x10 4x NDR - CA    17  1 0x21 ( 'sw' 'n1' )\n"),
      std::string("t.txt:1: missing the ( '<description>' - '<peer description>' ) pair") + kForm);
}

TEST(IbnetPortsErrors, AGarbageLineInTheMiddleIsAnErrorAtItsLine) {
  EXPECT_EQ(PortsErrors("[root@h ~]# ibnetdiscover -p\n" + kGood + "Last login: today\n" + kGood),
            std::string("t.txt:3: bad node type \"Last\"") + kForm);
}

TEST(IbnetPortsErrors, RejectTwoEndsThatNameDifferentPeers) {
  EXPECT_EQ(PortsErrors(kGood + "CA    17  1 0x0000000000000021 4x NDR - SW     2  3 "
                                "0x0000000000000010 ( 'n1' - 'sw' )\n"),
            "t.txt:2: port 1 of \"H-0000000000000021\" is linked to \"S-0000000000000010\"[3] "
            "here but to \"S-0000000000000010\"[2] at line 1; expected both ends of a link to "
            "name each other\n");
  EXPECT_EQ(PortsErrors(kGood + kGood),
            "t.txt:2: port 2 of \"S-0000000000000010\" is listed twice in its record (first at "
            "line 1); expected each port once\n");
}

TEST(IbnetPortsErrors, RejectOneGuidUsedByTwoNodeTypes) {
  EXPECT_EQ(PortsErrors(kGood + "SW     9  1 0x0000000000000021 4x SDR      "
                                "                              'x'\n"),
            "t.txt:2: \"S-0000000000000021\" has the GUID of \"H-0000000000000021\"; expected one "
            "node type per GUID\n");
}

TEST(IbnetPortsErrors, RejectAPortGuidThatIsTwoPorts) {
  EXPECT_EQ(PortsErrors(kGood +
                        "SW     2  3 0x0000000000000010 4x NDR - CA    17  2 "
                        "0x0000000000000021 ( 'sw' - 'n1' )\n" +
                        "CA    17  1 0x0000000000000021 4x NDR - SW     2  2 0x0000000000000010 "
                        "( 'n1' - 'sw' )\n"),
            "t.txt:2: the peer's port GUID 0x0000000000000021 is port 1 in its own lines, not 2; "
            "expected both ends of a link to name each other\n");
}

}  // namespace topo_ibnet_ports_test
}  // namespace railguard::topo
