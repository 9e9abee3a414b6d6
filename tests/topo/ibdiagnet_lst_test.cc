// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of ibdiagnet's ibdiagnet2.lst (topo/ibdiagnet_lst.h): a real list, lists written from
// real and simulated dumps and read back as the ibnetdiscover reading of the same fabric, the
// rates, terminal wrappings, and exact error texts.
#include "topo/ibdiagnet_lst.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/shared_data.h"
#include "tests/topo/capture_test_util.h"
#include "tests/topo/discover_test_util.h"
#include "topo/iblinkinfo.h"
#include "topo/ibnet_ports.h"

namespace railguard::topo {
namespace topo_ibdiagnet_lst_test {

using capture_testing::FabricText;
using capture_testing::kIbnetData;
using capture_testing::MustParse;
using capture_testing::NodeWithGuid;
using capture_testing::ReadFixture;

IbFabric MustParseLst(const std::string& text) {
  return MustParse(text, CaptureFormat::kIbdiagnetLst);
}

std::string LstErrors(const std::string& text) {
  return capture_testing::ErrorsAs(text, CaptureFormat::kIbdiagnetLst);
}

// The two ends of one QDR link in ibdiagnet's layout (the GUIDs, LIDs and numbers of an
// ibdiagnet2.lst line quoted in a public 2014 note): HCA port 1 and port 0x14 (20) of a
// 0x24-port (36) switch.
const std::string kCaEnd =
    "{ CA Ports:02 SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 PortGUID:"
    "0002c90300165e61 VenID:000002c9 DevID:1003 Rev:00000000 {n001 HCA-1} LID:0005 PN:01 }";
const std::string kSwEnd =
    "{ SW Ports:24 SystemGUID:0002c90300688830 NodeGUID:0002c90300688830 PortGUID:"
    "0002c90300688830 VenID:000002c9 DevID:c738 Rev:000000a1 {MF0;leaf1:IS5030/U1} LID:0002 "
    "PN:14 }";
const std::string kUp = " PHY=4x LOG=ACT SPD=10\n";
const std::string kCaToSw = kCaEnd + " " + kSwEnd + kUp;
const std::string kSwToCa = kSwEnd + " " + kCaEnd + kUp;

// tests/data/ibnet/ibutils-subnet.lst (see its comment lines and README.md there): 24 lines of
// a real list, 12 links each from both ends, printed before SPD= was (SDR).
TEST(IbdiagnetLst, ReadsTheRealIbutilsSubnetList) {
  const std::string list = ReadFixture(kIbnetData + "ibutils-subnet.lst");
  EXPECT_EQ(SniffCaptureFormat(list), CaptureFormat::kIbdiagnetLst);
  const IbFabric f = MustParseLst(list);
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 12u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 3u);
  ASSERT_EQ(f.links.size(), 12u);
  for (const IbLink& l : f.links) {
    EXPECT_EQ(l.token_a, "4xSDR");
    EXPECT_EQ(l.token_b, "4xSDR");
  }
  // Line 9: "{ SW Ports:18 ... NodeGUID:0000000000000001 ... LID:0005 PN:05 } { CA Ports:02
  // ... NodeGUID:0002c901093dc5d0 PortGUID:0002c901093dc5d1 ... {swlab225 HCA-1 (Topspin HCA)}
  // LID:003B PN:01 }"; line 31 is the same link from the HCA.
  const int sw = f.FindNode(0x1);
  const int ca = f.FindNode(0x0002c901093dc5d0ULL);
  ASSERT_GE(sw, 0);
  ASSERT_GE(ca, 0);
  EXPECT_EQ(f.nodes[sw].id, "S-0000000000000001");
  EXPECT_EQ(f.nodes[sw].description, "MT47396 Infiniscale-III Mellanox Technologies");
  EXPECT_EQ(f.nodes[sw].ports, 24);  // Ports:18 is hex
  EXPECT_EQ(f.nodes[sw].line, 9);
  EXPECT_EQ(f.nodes[ca].id, "H-0002c901093dc5d0");
  EXPECT_EQ(f.nodes[ca].description, "swlab225 HCA-1 (Topspin HCA)");
  EXPECT_EQ(f.nodes[ca].ports, 2);
  const int link = f.FindLink(sw, 5);
  ASSERT_GE(link, 0);
  EXPECT_EQ(f.FindLink(ca, 1), link);
  EXPECT_EQ(f.links[link].line, 9);
  EXPECT_EQ(f.Peer(f.links[link], sw, 5).node, ca);
  EXPECT_EQ(f.Address(sw, 5).lid, 5);
  EXPECT_EQ(f.Address(sw, 5).guid, 0x1u);
  EXPECT_EQ(f.Address(ca, 1).lid, 0x3b);
  EXPECT_EQ(f.Address(ca, 1).guid, 0x0002c901093dc5d1ULL);
  // PN:17 is port 23; the subnet manager's HCA ("CA-SM") is a CA.
  const int uplink = f.FindLink(sw, 23);
  ASSERT_GE(uplink, 0);
  const IbPort far = f.Peer(f.links[uplink], sw, 23);
  EXPECT_EQ(f.nodes[far.node].id, "S-0002c90109faf588");
  EXPECT_EQ(far.port, 4);
  EXPECT_EQ(NodeWithGuid(f, 0x0002c90109769a00ULL).type, IbNodeType::kCa);
  EXPECT_EQ(NodeWithGuid(f, 0x0002c90109769a00ULL).description,
            "MT23108 InfiniHost Mellanox Technologies");
}

TEST(IbdiagnetLst, ReadsBothEndsOfALinkAndItsHexNumbers) {
  const IbFabric f = MustParseLst(kCaToSw + kSwToCa);
  ASSERT_EQ(f.nodes.size(), 2u);
  const IbNode& ca = NodeWithGuid(f, 0x0002c90300165e60ULL);
  EXPECT_EQ(ca.id, "H-0002c90300165e60");
  EXPECT_EQ(ca.description, "n001 HCA-1");
  EXPECT_EQ(ca.ports, 2);
  EXPECT_EQ(ca.line, 1);
  const IbNode& sw = NodeWithGuid(f, 0x0002c90300688830ULL);
  EXPECT_EQ(sw.type, IbNodeType::kSwitch);
  EXPECT_EQ(sw.description, "MF0;leaf1:IS5030/U1");
  EXPECT_EQ(sw.ports, 36);
  ASSERT_EQ(f.links.size(), 1u);
  const IbLink& l = f.links[0];
  EXPECT_EQ(f.nodes[l.a.node].id, "H-0002c90300165e60");
  EXPECT_EQ(l.a.port, 1);
  EXPECT_EQ(f.nodes[l.b.node].id, "S-0002c90300688830");
  EXPECT_EQ(l.b.port, 20);
  EXPECT_EQ(l.token_a, "4xQDR");
  EXPECT_EQ(l.token_b, "4xQDR");
  EXPECT_EQ(f.Address(l.a.node, 1).guid, 0x0002c90300165e61ULL);
  EXPECT_EQ(f.Address(l.a.node, 1).lid, 5);
  EXPECT_EQ(f.Address(l.b.node, 20).lid, 2);
}

TEST(IbdiagnetLst, ReadsALinkListedFromOneEndRoutersTheSmMarkAnd0xGuids) {
  const IbFabric f = MustParseLst(
      "{ RTR Ports:02 SystemGUID:0x30 NodeGUID:0x30 PortGUID:0x31 VenID:0 DevID:0 Rev:0 {gw} "
      "LID:0009 PN:01 } { SW-SM Ports:08 SystemGUID:10 NodeGUID:10 PortGUID:10 VenID:0 DevID:0 "
      "Rev:0 {sw} LID:0001 PN:08 } PHY=4x LOG=ACT SPD=100\n"
      "{ Rt Ports:02 SystemGUID:30 NodeGUID:30 PortGUID:32 VenID:0 DevID:0 Rev:0 {gw} LID:000A "
      "PN:02 } { SW Ports:08 SystemGUID:10 NodeGUID:10 PortGUID:10 VenID:0 DevID:0 Rev:0 {sw} "
      "LID:0001 PN:07 } PHY=4x LOG=ACT SPD=100 FEC=RS\n");
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(f.nodes[0].id, "R-0000000000000030");
  EXPECT_EQ(f.nodes[1].id, "S-0000000000000010");
  ASSERT_EQ(f.links.size(), 2u);
  EXPECT_EQ(f.links[0].token_b, "");  // the switch's line for it is not in the list
  EXPECT_EQ(f.links[0].Token(), "4xNDR");
  EXPECT_EQ(f.Address(0, 2).guid, 0x32u);
}

// A switch (0x10, lid 2, 3 ports) whose port 2 goes to the CA 0x20 (port GUID 0x21, lid 17).
const char kSmallDump[] =
    "switchguid=0x10(10)\n"
    "Switch\t3 \"S-0000000000000010\"\t\t# \"sw\" enhanced port 0 lid 2 lmc 0\n"
    "[2]\t\"H-0000000000000020\"[1](21) \t\t# \"n1 mlx5_0\" lid 17 4xNDR\n";

TEST(IbdiagnetLst, WritesTheLinesIbdiagnetWrites) {
  // opensm's osm_dump.c and ibutils' ibdm: "{ %s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:
  // ... PortGUID:... VenID:... DevID:... Rev:... {%s} LID:%04X PN:%02X } " for each end, then
  // "PHY=%s LOG=%s SPD=%s\n".
  const std::string sw =
      "{ SW Ports:03 SystemGUID:0000000000000010 NodeGUID:0000000000000010 PortGUID:"
      "0000000000000010 VenID:00000000 DevID:0000 Rev:00000000 {sw} LID:0002 PN:02 } ";
  const std::string ca =
      "{ CA Ports:01 SystemGUID:0000000000000020 NodeGUID:0000000000000020 PortGUID:"
      "0000000000000021 VenID:00000000 DevID:0000 Rev:00000000 {n1 mlx5_0} LID:0011 PN:01 } ";
  EXPECT_EQ(WriteIbdiagnetLst(MustParse(kSmallDump, CaptureFormat::kIbnetdiscover)),
            sw + ca + "PHY=4x LOG=ACT SPD=100\n" + ca + sw + "PHY=4x LOG=ACT SPD=100\n");
}

// The list written of `dump` is an ibdiagnet2.lst that reads back as the ibnetdiscover reading
// of `dump`: the same nodes by node GUID, descriptions, port counts, addresses and links.
void ExpectRoundTrips(const std::string& dump) {
  const IbFabric f = MustParse(dump, CaptureFormat::kIbnetdiscover);
  const std::string list = WriteIbdiagnetLst(f);
  EXPECT_EQ(SniffCaptureFormat(list), CaptureFormat::kIbdiagnetLst);
  EXPECT_EQ(FabricText(MustParseLst(list), false), FabricText(f, false));
}

TEST(IbdiagnetLst, TheListOfASimulatedRailFabricReadsBackExactly) {
  ExpectRoundTrips(discover_testing::Simulate(discover_testing::LoadFile(discover_testing::kDev4su),
                                              {{"slow", "n003:2:2xNDR"}, {"sharp", "2"}}));
}

TEST(IbdiagnetLst, TheListOfTheRealX5DumpReadsBackAsItsFabric) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.topofile");
  ExpectRoundTrips(ReadFixture(testing::SharedPath("ibnetdiscover/hpc-toolset-x5/X5.topofile")));
}

TEST(IbdiagnetLst, TheListOfTheManPageSampleReadsBackAndIsTheCommittedFixture) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/1.topo");
  const std::string dump = ReadFixture(testing::SharedPath("ibnetdiscover/ibtopotool/1.topo"));
  ExpectRoundTrips(dump);
  // tests/data/ibnet/manpage-ibdiagnet2.lst is this (see README.md there).
  EXPECT_EQ(ReadFixture(kIbnetData + "manpage-ibdiagnet2.lst"),
            WriteIbdiagnetLst(MustParse(dump, CaptureFormat::kIbnetdiscover)));
}

// The real list's fabric written as a ports report and as iblinkinfo output reads back as the
// same fabric (CAs known by their lowest port GUID there).
TEST(IbdiagnetLst, TheRealListIsTheSameFabricInTheOtherFormats) {
  const IbFabric f = MustParseLst(ReadFixture(kIbnetData + "ibutils-subnet.lst"));
  for (const std::string& text : {WriteIbnetPorts(f), WriteIblinkinfo(f, IblinkinfoLayout::kNodes),
                                  WriteIblinkinfo(f, IblinkinfoLayout::kLines)})
    EXPECT_EQ(FabricText(MustParse(text, CaptureFormat::kAuto), true), FabricText(f, true));
}

TEST(IbdiagnetLst, AListSavedAsAdminsSaveItReadsAsTheList) {
  for (const std::string name : {"ibutils-subnet.lst", "manpage-ibdiagnet2.lst"}) {
    const std::string list = ReadFixture(kIbnetData + name);
    const std::string want = FabricText(MustParseLst(list), false);
    for (const auto& [how, text] : capture_testing::SavedAsAdminsSaveIt(
             list, "[root@ufm01 ~]# ", "cat /var/tmp/ibdiagnet2/ibdiagnet2.lst")) {
      EXPECT_EQ(SniffCaptureFormat(text), CaptureFormat::kIbdiagnetLst) << name << ": " << how;
      EXPECT_EQ(FabricText(MustParse(text, CaptureFormat::kAuto), false), want)
          << name << ": " << how;
    }
  }
  IbFabric f;
  Diags d;
  ASSERT_TRUE(ParseIbdiagnetLst("\xEF\xBB\xBF$ cat ibdiagnet2.lst\r\n" + kCaToSw, "l.lst", &f, &d));
  ASSERT_EQ(f.capture_notes.size(), 2u);
  EXPECT_EQ(f.capture_notes[1], "a shell prompt and command (line 1)");
}

// The token of a link whose state part (after the two ends) is `state`.
std::string TokenOf(const std::string& state) {
  const IbFabric f = MustParseLst(kCaEnd + " " + kSwEnd + " " + state + "\n");
  return f.links.empty() ? "" : f.links[0].Token();
}

TEST(IbdiagnetLst, NamesEachPerLaneRateAsTheIbSpeed) {
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=2.5"), "4xSDR");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=5"), "4xDDR");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=10"), "4xQDR");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=FDR10"), "4xFDR10");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=14"), "4xFDR");
  EXPECT_EQ(TokenOf("PHY=1x LOG=ACT SPD=25"), "1xEDR");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=50"), "4xHDR");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ARM SPD=100"), "4xNDR");
  EXPECT_EQ(TokenOf("PHY=2x LOG=INI SPD=100"), "2xNDR");
  EXPECT_EQ(TokenOf("PHY=12x LOG=ACT SPD=200"), "12xXDR");
  EXPECT_EQ(TokenOf("PHY=8x LOG=ACT SPD=??"), "8x???");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=UNKNOWN"), "4x???");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT SPD=EDR20"), "4x???");
  EXPECT_EQ(TokenOf("PHY=?? LOG=ACT SPD=100"), "??NDR");
  EXPECT_EQ(TokenOf("PHY=UNKNOWN LOG=ACT SPD=100"), "??NDR");
  EXPECT_EQ(TokenOf("PHY=4x LOG=ACT"), "4xSDR");  // before SPD= was printed
}

TEST(IbdiagnetLst, APortThatIsNotUpKeepsItsNodesButHasNoLink) {
  const IbFabric f = MustParseLst(kCaEnd + " " + kSwEnd + " PHY=4x LOG=DWN SPD=10\n");
  EXPECT_EQ(f.nodes.size(), 2u);
  EXPECT_TRUE(f.links.empty());
  EXPECT_EQ(f.Address(0, 1).lid, 5);
  EXPECT_TRUE(MustParseLst(kCaEnd + " " + kSwEnd + " PHY=4x LOG=DOWN\n").links.empty());
}

TEST(IbdiagnetLst, SkipsCommentsAndKeepsTheToolsOwnErrorLinesAsWarnings) {
  const IbFabric f = MustParseLst(
      "# This database file was automatically generated by IBDIAG\n\n"
      "ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\n" +
      kCaToSw);
  EXPECT_EQ(f.links.size(), 1u);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].ToString(),
            "capture.txt:3: ibdiagnet reported an error: \"ibwarn: [1234] mad_rpc: _do_madrpc "
            "failed; dport (DR path slid 0; dlid 0; 0,1,3)\"; the list may be incomplete");
}

// --- errors ---------------------------------------------------------------------------------

const char kForm[] =
    "; expected { <SW|CA|Rt|RTR> Ports:<hex> SystemGUID:<hex> NodeGUID:<hex> PortGUID:<hex> "
    "VenID:<hex> DevID:<hex> Rev:<hex> {<description>} LID:<hex> PN:<hex> } for each end, then "
    "PHY=<width> LOG=<state> SPD=<rate>\n";

// kCaToSw with its first `from` replaced by `to`.
std::string With(const std::string& from, const std::string& to) {
  std::string line = kCaToSw;
  const size_t at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? line : line.replace(at, from.size(), to);
}

TEST(IbdiagnetLstErrors, NameWhereATruncatedLineEnds) {
  // Cut in the second end's PN, in its description, after its PN, and before the state.
  EXPECT_EQ(LstErrors(kCaToSw.substr(0, kCaToSw.find("PN:14") + 3) + "\n"),
            "t.txt:1: bad PN \"\" in the second end; expected PN:<port in hex, 1 to FFFF>\n");
  EXPECT_EQ(LstErrors(kCaToSw.substr(0, kCaToSw.find("leaf1")) + "\n"),
            std::string("t.txt:1: missing the '}' and LID: after the description in the second "
                        "end") +
                kForm);
  EXPECT_EQ(LstErrors(kCaToSw.substr(0, kCaToSw.find("PN:14") + 5) + "\n"),
            std::string("t.txt:1: missing the '}' that closes the second end") + kForm);
  EXPECT_EQ(LstErrors(kCaEnd + " " + kSwEnd + "\n"),
            std::string("t.txt:1: missing PHY=<width> after the second end") + kForm);
  EXPECT_EQ(LstErrors(kCaEnd + "\n"),
            std::string("t.txt:1: missing the '{' that opens the second end") + kForm);
}

TEST(IbdiagnetLstErrors, NameEachBadField) {
  const std::string rates =
      "; expected SPD=2.5, 5, 10, FDR10, 14, 25, EDR20, 50, 100, 200, ?? or "
      "UNKNOWN (Gb/s per lane)\n";
  // kCaToSw with `from` replaced by `to`, and the error it gives after "t.txt:1: ".
  const struct {
    const char* from;
    const char* to;
    std::string want;
  } kCases[] = {
      {"{ CA ", "{ HCA ",
       "bad node type \"HCA\" in the first end; expected SW, CA, Rt or RTR, with -SM at the "
       "subnet manager's port\n"},
      {"Ports:02", "Ports:0x2",
       "bad Ports \"0x2\" in the first end; expected Ports:<port count in hex>\n"},
      {"NodeGUID:0002c90300165e60", "NodeGUID:0002c9030016zz60",
       "bad NodeGUID \"0002c9030016zz60\" in the first end; expected NodeGUID:<16 hex digits>\n"},
      {"PortGUID:0002c90300165e61", "PortGUID:10002c90300165e61",
       "bad PortGUID \"10002c90300165e61\" in the first end; expected PortGUID:<16 hex digits>\n"},
      {"SystemGUID:", "SysGUID:", "missing SystemGUID: in the first end" + std::string(kForm)},
      {"DevID:1003", "DevID:", "bad DevID \"\" in the first end; expected DevID:<hex>\n"},
      {"{n001 HCA-1}", "n001 HCA-1",
       "missing the {<description>} after Rev: in the first end" + std::string(kForm)},
      {"LID:0005", "LID:10005",
       "bad LID \"10005\" in the first end; expected LID:<hex, 0 to FFFF>\n"},
      {"PN:01", "PN:00", "bad PN \"00\" in the first end; expected PN:<port in hex, 1 to FFFF>\n"},
      {"PN:01", "PN:1g", "bad PN \"1g\" in the first end; expected PN:<port in hex, 1 to FFFF>\n"},
      {"PHY=4x", "PHY=3x",
       "bad link width \"3x\"; expected PHY=1x, 2x, 4x, 8x, 12x, ?? or UNKNOWN\n"},
      {"LOG=ACT", "LOG=ACTIVE",
       "bad port state \"ACTIVE\"; expected LOG=ACT, ARM, INI, DWN, DOWN or UNKNOWN\n"},
      {"SPD=10", "SPD=7", "bad per-lane rate \"7\"" + rates},
      {"SPD=10", "SPD=NDR", "bad per-lane rate \"NDR\"" + rates},
      {"PHY=4x LOG=ACT", "LOG=ACT PHY=4x",
       "expected PHY=<width> after the second end, not \"LOG=ACT\"" + std::string(kForm)},
      {"SPD=10", "SPD=10 (cable)",
       "unexpected \"(cable)\" after the link's state" + std::string(kForm)},
  };
  for (const auto& c : kCases) EXPECT_EQ(LstErrors(With(c.from, c.to)), "t.txt:1: " + c.want);
}

TEST(IbdiagnetLstErrors, BinaryGarbageAndPromptsInTheMiddleAreErrorsAtTheirLines) {
  EXPECT_EQ(LstErrors(kCaToSw + std::string("\x7f\x01\xfe\x00garbage", 11) + "\n" + kSwToCa),
            std::string("t.txt:2: not a link line: \"\\x7f\\x01\\xfe\\x00garbage\"") + kForm);
  EXPECT_EQ(LstErrors(capture_testing::Crlf("\xEF\xBB\xBF[root@ufm01 ~]# cat ibdiagnet2.lst\n" +
                                            kCaToSw + "[root@ufm01 ~]# ls\n" + kSwToCa)),
            std::string("t.txt:3: not a link line: \"[root@ufm01 ~]# ls\"") + kForm);
  // A capture of another tool read as a list says so at its first line.
  const std::string errors = LstErrors(ReadFixture(kIbnetData + "iblinkinfo-archwiki.txt"));
  EXPECT_EQ(errors.substr(0, errors.find('\n') + 1),
            "t.txt:1: not a link line: \"CA: MT25408 ConnectX Mellanox Technologies:\"" +
                std::string(kForm));
}

TEST(IbdiagnetLstErrors, RejectTwoEndsThatNameDifferentPeers) {
  const std::string other_port = kSwEnd.substr(0, kSwEnd.find("PN:14")) + "PN:15 }";
  EXPECT_EQ(LstErrors(kCaToSw + other_port + " " + kCaEnd + kUp),
            "t.txt:2: port 21 of \"S-0002c90300688830\" is linked to \"H-0002c90300165e60\"[1], "
            "which line 1 links to \"S-0002c90300688830\"[20]; expected both ends of a link to "
            "name each other\n");
  EXPECT_EQ(LstErrors(kCaToSw + kCaToSw),
            "t.txt:2: port 1 of \"H-0002c90300165e60\" is listed twice in its record (first at "
            "line 1); expected each port once\n");
}

TEST(IbdiagnetLstErrors, RejectAPortBeyondItsNodesPortCountAndOneGuidOfTwoTypes) {
  EXPECT_EQ(LstErrors(With("Ports:24", "Ports:10")),
            "t.txt:1: port 20 of \"S-0002c90300688830\" exceeds its 16 ports (line 1); expected "
            "a port from 1 to 16\n");
  EXPECT_EQ(LstErrors(kCaToSw + With("{ CA ", "{ SW ")),
            "t.txt:2: \"S-0002c90300165e60\" has the GUID of \"H-0002c90300165e60\" (line 1); "
            "expected one node type per GUID\n");
}

TEST(IbdiagnetLstErrors, StopAfterFiftyErrorsAndNeverHang) {
  std::string garbage;
  for (int i = 0; i < 200; ++i) garbage += "{ SW Ports:\n";
  IbFabric f;
  Diags d;
  EXPECT_FALSE(ParseIbdiagnetLst(garbage, "g.lst", &f, &d));
  ASSERT_EQ(d.size(), 51u);
  EXPECT_EQ(d.back().ToString(), "g.lst:51: too many errors; giving up");
  // One long line of braces after an end's head: a bounded search, one error.
  d.clear();
  EXPECT_FALSE(
      ParseIbdiagnetLst("{ SW Ports:1 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:1 DevID:1 Rev:1 {" +
                            std::string(1 << 20, '}') + "\n",
                        "g.lst", &f, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].ToString() + "\n",
            "g.lst:1: missing the '}' and LID: after the description in the first end" +
                std::string(kForm));
}

}  // namespace topo_ibdiagnet_lst_test
}  // namespace railguard::topo
