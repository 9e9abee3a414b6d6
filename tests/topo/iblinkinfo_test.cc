// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of iblinkinfo output (topo/iblinkinfo.h): a real capture, both layouts written from
// real and simulated dumps and read back, the rates, and exact error texts.
#include "topo/iblinkinfo.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/shared_data.h"
#include "tests/topo/capture_test_util.h"
#include "tests/topo/discover_test_util.h"

namespace railguard::topo {
namespace topo_iblinkinfo_test {

using capture_testing::FabricText;
using capture_testing::kIbnetData;
using capture_testing::MustParse;
using capture_testing::ReadFixture;

IbFabric MustParseLinkinfo(const std::string& text) {
  return MustParse(text, CaptureFormat::kIblinkinfo);
}

std::string LinkinfoErrors(const std::string& text) {
  return capture_testing::ErrorsAs(text, CaptureFormat::kIblinkinfo);
}

// A switch (0x10, lid 2, 3 ports) whose port 2 goes to the CA 0x20 (port GUID 0x21, lid 17).
const char kSmallDump[] =
    "switchguid=0x10(10)\n"
    "Switch\t3 \"S-0000000000000010\"\t\t# \"sw\" enhanced port 0 lid 2 lmc 0\n"
    "[2]\t\"H-0000000000000020\"[1](21) \t\t# \"n1 mlx5_0\" lid 17 4xNDR\n";

std::string Spaces(size_t n) { return std::string(n, ' '); }

// tests/data/ibnet/iblinkinfo-archwiki.txt (see README.md there): two HCAs cabled back to
// back. The wiki's author renamed one host in one place only: each node's own header wins.
TEST(Iblinkinfo, ReadsTheRealArchWikiCapture) {
  const IbFabric f = MustParseLinkinfo(ReadFixture(kIbnetData + "iblinkinfo-archwiki.txt"));
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(f.nodes[0].id, "H-0002c90300002779");
  EXPECT_EQ(f.nodes[0].description, "MT25408 ConnectX Mellanox Technologies");
  EXPECT_EQ(f.nodes[0].line, 1);
  EXPECT_EQ(f.nodes[1].id, "H-0002c90300002f79");
  EXPECT_EQ(f.nodes[1].description, "hostname mlx4_0");
  EXPECT_EQ(f.Address(0, 1).lid, 4);
  EXPECT_EQ(f.Address(1, 1).lid, 3);
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0].token_a, "4xDDR");
  EXPECT_EQ(f.links[0].token_b, "4xDDR");
}

TEST(Iblinkinfo, WritesTheByNodeFormIblinkinfoPrints) {
  // infiniband-diags/iblinkinfo.c: "%6d %4d[%2s] ==%s==>  %s", the link "(%3s %18s %6s/%8s)"
  // or "(              %6s/%8s)", the peer "%6d %4d[%2s] \"%s\" (%s %s)".
  const std::string up = "==( 4X" + Spaces(8) + "106.25 Gbps Active/  LinkUp)==>  ";
  const std::string down =
      "==(" + Spaces(16) + "Down/ Polling)==>" + Spaces(13) + "[  ] \"\" ( )\n";
  EXPECT_EQ(WriteIblinkinfo(MustParse(kSmallDump, CaptureFormat::kIbnetdiscover),
                            IblinkinfoLayout::kNodes),
            "Switch: 0x0000000000000010 sw:\n" + Spaces(11) + "2    1[  ] " + down + Spaces(11) +
                "2    2[  ] " + up + Spaces(4) + "17    1[  ] \"n1 mlx5_0\" ( )\n" + Spaces(11) +
                "2    3[  ] " + down + "CA: n1 mlx5_0:\n" + Spaces(6) + "0x0000000000000021" +
                Spaces(5) + "17    1[  ] " + up + Spaces(5) + "2    2[  ] \"sw\" ( )\n");
}

TEST(Iblinkinfo, WritesTheLineFormOfIblinkinfoL) {
  const std::string up = "==( 4X" + Spaces(8) + "106.25 Gbps Active/  LinkUp)==>  ";
  const std::string sw = "0x0000000000000010 \"" + Spaces(28) + "sw\"" + Spaces(6) + "2    ";
  EXPECT_EQ(WriteIblinkinfo(MustParse(kSmallDump, CaptureFormat::kIbnetdiscover),
                            IblinkinfoLayout::kLines),
            sw + "1[  ] ==(" + Spaces(16) + "Down/ Polling)==>" + Spaces(13) + "[  ] \"\" ( )\n" +
                sw + "2[  ] " + up + "0x0000000000000021" + Spaces(5) +
                "17    1[  ] \"n1 mlx5_0\" ( )\n" + sw + "3[  ] ==(" + Spaces(16) +
                "Down/ Polling)==>" + Spaces(13) + "[  ] \"\" ( )\n" + "0x0000000000000021 \"" +
                Spaces(21) + "n1 mlx5_0\"" + Spaces(5) + "17    1[  ] " + up +
                "0x0000000000000010" + Spaces(6) + "2    2[  ] \"sw\" ( )\n");
}

// Both layouts of `dump`, read back, are the fabric of `dump` (CAs known by port GUID).
void ExpectRoundTrips(const std::string& dump, bool by_port_guid) {
  const IbFabric f = MustParse(dump, CaptureFormat::kIbnetdiscover);
  for (IblinkinfoLayout layout : {IblinkinfoLayout::kNodes, IblinkinfoLayout::kLines}) {
    const std::string text = WriteIblinkinfo(f, layout);
    EXPECT_EQ(SniffCaptureFormat(text), CaptureFormat::kIblinkinfo);
    EXPECT_EQ(FabricText(MustParseLinkinfo(text), by_port_guid), FabricText(f, by_port_guid))
        << (layout == IblinkinfoLayout::kNodes ? "by node" : "-l");
  }
}

TEST(Iblinkinfo, BothLayoutsOfASimulatedRailFabricReadBackExactly) {
  ExpectRoundTrips(discover_testing::Simulate(discover_testing::LoadFile(discover_testing::kDev4su),
                                              {{"slow", "n003:2:2xNDR"}, {"sharp", "2"}}),
                   false);
}

TEST(Iblinkinfo, BothLayoutsOfTheRealX5DumpReadBackAsItsFabric) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.topofile");
  ExpectRoundTrips(ReadFixture(testing::SharedPath("ibnetdiscover/hpc-toolset-x5/X5.topofile")),
                   true);
}

TEST(Iblinkinfo, BothLayoutsOfTheManPageSampleReadBackAndAreTheCommittedFixtures) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/1.topo");
  const std::string dump = ReadFixture(testing::SharedPath("ibnetdiscover/ibtopotool/1.topo"));
  ExpectRoundTrips(dump, true);
  // tests/data/ibnet/manpage-iblinkinfo*.txt are these (see README.md there).
  const IbFabric f = MustParse(dump, CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(ReadFixture(kIbnetData + "manpage-iblinkinfo.txt"),
            WriteIblinkinfo(f, IblinkinfoLayout::kNodes));
  EXPECT_EQ(ReadFixture(kIbnetData + "manpage-iblinkinfo-l.txt"),
            WriteIblinkinfo(f, IblinkinfoLayout::kLines));
}

TEST(Iblinkinfo, OutputSavedAsAdminsSaveItReadsAsTheOutput) {
  for (const std::string name : {"iblinkinfo-archwiki.txt", "manpage-iblinkinfo-l.txt"}) {
    const std::string output = ReadFixture(kIbnetData + name);
    const std::string want = FabricText(MustParseLinkinfo(output), false);
    for (const auto& [how, text] :
         capture_testing::SavedAsAdminsSaveIt(output, "user@login:~$ ", "sudo iblinkinfo")) {
      EXPECT_EQ(SniffCaptureFormat(text), CaptureFormat::kIblinkinfo) << name << ": " << how;
      EXPECT_EQ(FabricText(MustParse(text, CaptureFormat::kAuto), false), want)
          << name << ": " << how;
    }
  }
}

// The link token of a port line with `link` between "==(" and ")==>".
std::string TokenOf(const std::string& link) {
  const IbFabric f = MustParseLinkinfo("CA: a:\n      0x0000000000000001      1    1[  ] ==(" +
                                       link + ")==>       2    1[  ] \"b\" ( )\nCA: b:\n" +
                                       "      0x0000000000000002      2    1[  ] ==(" + link +
                                       ")==>       1    1[  ] \"a\" ( )\n");
  return f.links.empty() ? "" : f.links[0].Token();
}

TEST(Iblinkinfo, NamesEachPerLaneRateAsTheIbSpeed) {
  EXPECT_EQ(TokenOf(" 4X           2.5 Gbps Active/  LinkUp"), "4xSDR");
  EXPECT_EQ(TokenOf(" 4X           5.0 Gbps Active/  LinkUp"), "4xDDR");
  EXPECT_EQ(TokenOf(" 4X          10.0 Gbps Active/  LinkUp"), "4xQDR");
  EXPECT_EQ(TokenOf(" 4X 10.0 Gbps (FDR10) Active/  LinkUp"), "4xFDR10");
  EXPECT_EQ(TokenOf(" 4X       14.0625 Gbps Active/  LinkUp"), "4xFDR");
  EXPECT_EQ(TokenOf(" 1X      25.78125 Gbps Active/  LinkUp"), "1xEDR");
  EXPECT_EQ(TokenOf(" 4X        53.125 Gbps Active/  LinkUp"), "4xHDR");
  EXPECT_EQ(TokenOf(" 4X        106.25 Gbps Active/  LinkUp"), "4xNDR");
  EXPECT_EQ(TokenOf(" 2X        106.25 Gbps Active/  LinkUp"), "2xNDR");
  EXPECT_EQ(TokenOf("12X         212.5 Gbps Active/  LinkUp"), "12xXDR");
  EXPECT_EQ(TokenOf(" 4X     undefined (16) Active/  LinkUp"), "4x???");
  // iblinkinfo -p's HOQ and VL stall figures follow the state.
  EXPECT_EQ(TokenOf(" 4X        106.25 Gbps Active/  LinkUp) (HOQ:16 VL_Stall:7"), "4xNDR");
}

TEST(Iblinkinfo, ReadsIblinkinfoLOfSwitchesOnlyAndTakesUnlistedPeersForCas) {
  const IbFabric f = MustParseLinkinfo(
      "0x0000000000200002 \"               hxa-su1-leaf-r1\"      4    1[  ] ==( 4X       "
      "106.25 Gbps Active/  LinkUp)==>  0x0000000000100003      5    1[  ] \"gpu01 mlx5_0\" "
      "(Could be 12X Could be 10.0 Gbps)\n"
      "0x0000000000200002 \"               hxa-su1-leaf-r1\"      4    2[  ] ==(" +
      Spaces(16) + "Down/ Polling)==>" + Spaces(13) + "[  ] \"\" ( )\n" +
      "0x0000000000200002 \"               hxa-su1-leaf-r1\"      4    3[  ] ==( 4X       "
      "106.25 Gbps Active/  LinkUp)==>    \"Port not available\"\n");
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(f.nodes[0].id, "S-0000000000200002");
  EXPECT_EQ(f.nodes[0].description, "hxa-su1-leaf-r1");
  EXPECT_EQ(f.nodes[0].ports, 3);
  EXPECT_EQ(f.nodes[1].id, "H-0000000000100003");
  EXPECT_EQ(f.nodes[1].description, "gpu01 mlx5_0");
  EXPECT_EQ(f.nodes[1].line, 0);
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0].Token(), "4xNDR");
  EXPECT_EQ(f.Address(1, 1).lid, 5);
}

// --- errors ---------------------------------------------------------------------------------

const char kPortForm[] =
    "; expected [0x<port guid>] <lid> <port>[<ext>] ==(<width> <rate> Gbps <state>/ <physical "
    "state>)==> <peer lid> <peer port>[<ext>] \"<peer description>\" (<note>), the port GUID on "
    "a CA's lines, or [  ] \"\" ( ) for a port without a link\n";
const char kLineForm[] =
    "; expected 0x<port guid> \"<description>\" <lid> <port>[<ext>] ==(<width> <rate> Gbps "
    "<state>/ <physical state>)==> 0x<peer port guid> <peer lid> <peer port>[<ext>] \"<peer "
    "description>\" (<note>) (iblinkinfo -l)\n";
const char kHeaderForm[] =
    "; expected Switch: 0x<port guid> <description>:, CA: <description>: or Router: "
    "<description>:\n";
const std::string kSwitch = "Switch: 0x0000000000000010 sw:\n";
const std::string kUp = "==( 4X        106.25 Gbps Active/  LinkUp)==>  ";

TEST(IblinkinfoErrors, NameAPeerThatHasNoLinesOfItsOwn) {
  // iblinkinfo --switches-only names a CA by its LID alone.
  EXPECT_EQ(
      LinkinfoErrors(kSwitch + "           2    1[  ] " + kUp + "    17    1[  ] \"n1\" ( )\n"),
      "t.txt:2: no node listed has lid 17 (the peer \"n1\"); expected every node's own lines "
      "(iblinkinfo without --switches-only, --cas-only or a partial scan), or iblinkinfo -l, "
      "which names peers by GUID\n");
}

TEST(IblinkinfoErrors, NameALidThatTwoPortsShare) {
  EXPECT_EQ(
      LinkinfoErrors(kSwitch + "           2    1[  ] " + kUp +
                     "     0    1[  ] \"n1\" ( )\nCA: n1:\n      0x0000000000000021      0    "
                     "1[  ] " +
                     kUp +
                     "     2    1[  ] \"sw\" ( )\nCA: n2:\n      0x0000000000000031   "
                     "   0    1[  ] ==(" +
                     Spaces(16) + "Down/ Polling)==>" + Spaces(13) + "[  ] \"\" ( )\n"),
      "t.txt:2: lid 0 is on line 4 and on line 6; expected one port per lid (iblinkinfo -l "
      "names peers by GUID)\n");
}

TEST(IblinkinfoErrors, NameEachBadPartOfAPortLine) {
  EXPECT_EQ(LinkinfoErrors("           2    1[  ] " + kUp + "     3    1[  ] \"n1\" ( )\n"),
            "t.txt:1: port line before any header; expected a Switch: 0x<port guid> "
            "<description>:, CA: <description>: or Router: <description>: header before it\n");
  EXPECT_EQ(LinkinfoErrors("CA: n1:\n           2    1[  ] " + kUp + "     3    1[  ] \"x\" ( )\n"),
            std::string("t.txt:2: missing the port's GUID") + kPortForm);
  EXPECT_EQ(LinkinfoErrors(kSwitch + "      0x0000000000000010      2    1[  ] " + kUp +
                           "     3    1[  ] \"x\" ( )\n"),
            std::string("t.txt:2: a port GUID on a switch's port line") + kPortForm);
  EXPECT_EQ(
      LinkinfoErrors(kSwitch + "           2    x[  ] " + kUp + "     3    1[  ] \"x\" ( )\n"),
      std::string("t.txt:2: missing the port's lid and port") + kPortForm);
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    1[  ] =( 4X)=>\n"),
            std::string("t.txt:2: missing the ==(<link>)==> part") + kPortForm);
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    1[  ] ==( 4X 10.0 Gbps)==>  3 1[  ] \"x\"\n"),
            std::string("t.txt:2: missing the port state") + kPortForm);
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    1[  ] ==( 3X 10.0 Gbps Active/  LinkUp)==>  "
                                     "3 1[  ] \"x\" ( )\n"),
            "t.txt:2: bad link width \"3X\"; expected 1X, 2X, 4X, 8X, 12X or undefined (<n>)\n");
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    1[  ] ==( 4X 99.0 Gbps Active/  LinkUp)==>  "
                                     "3 1[  ] \"x\" ( )\n"),
            "t.txt:2: bad per-lane rate \"99.0 Gbps\"; expected 2.5, 5.0, 10.0, 10.0 (FDR10), "
            "14.0625, 25.78125, 53.125, 106.25 or 212.5 Gbps, or undefined (<n>)\n");
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    1[  ] " + kUp + "     3    ( )\n"),
            std::string("t.txt:2: missing the peer's lid and port") + kPortForm);
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    1[  ] " + kUp + "     3    1[  ] x ( )\n"),
            std::string("t.txt:2: missing the peer's quoted description") + kPortForm);
}

TEST(IblinkinfoErrors, NameABadHeader) {
  EXPECT_EQ(LinkinfoErrors("Switch: 10 sw:\n"),
            std::string("t.txt:1: bad switch GUID in header") + kHeaderForm);
  EXPECT_EQ(LinkinfoErrors("CA: n1 mlx5_0\n"),
            std::string("t.txt:1: header does not end with ':'") + kHeaderForm);
  EXPECT_EQ(LinkinfoErrors("CA: n1 mlx5_0:\n"),
            std::string("t.txt:1: a header without port lines") + kPortForm);
}

TEST(IblinkinfoErrors, RejectMixedLayouts) {
  const std::string l_line = "0x0000000000000010 \"sw\"      2    1[  ] ==(" + Spaces(16) +
                             "Down/ Polling)==>" + Spaces(13) + "[  ] \"\" ( )\n";
  EXPECT_EQ(LinkinfoErrors(l_line + kSwitch),
            std::string("t.txt:2: a node header in -l output (layout set by line 1)") + kLineForm);
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    2[  ] ==(" + Spaces(16) +
                           "Down/ Polling)==>" + Spaces(13) + "[  ] \"\" ( )\n" + l_line),
            std::string("t.txt:3: a -l line in by-node output (layout set by line 2)") + kPortForm);
}

TEST(IblinkinfoErrors, AGarbageLineInTheMiddleIsAnErrorAtItsLine) {
  const std::string output = ReadFixture(kIbnetData + "iblinkinfo-archwiki.txt");
  const size_t second = output.find('\n', output.find('\n') + 1);
  EXPECT_EQ(LinkinfoErrors("$ iblinkinfo\n" + output.substr(0, second + 1) + "Last login: today\n" +
                           output.substr(second + 1)),
            std::string("t.txt:4: missing the port's GUID") + kPortForm);
}

TEST(IblinkinfoErrors, RejectTwoEndsThatNameDifferentPeers) {
  EXPECT_EQ(LinkinfoErrors(kSwitch + "           2    1[  ] " + kUp +
                           "    17    1[  ] \"n1\" ( )\n" + "           2    2[  ] " + kUp +
                           "    17    1[  ] \"n1\" ( )\nCA: n1:\n      0x0000000000000021     17"
                           "    1[  ] " +
                           kUp + "     2    1[  ] \"sw\" ( )\n"),
            "t.txt:3: port 2 of \"S-0000000000000010\" is linked to \"H-0000000000000021\"[1], "
            "which line 2 links to \"S-0000000000000010\"[1]; expected both ends of a link to "
            "name each other\n");
}

}  // namespace topo_iblinkinfo_test
}  // namespace railguard::topo
