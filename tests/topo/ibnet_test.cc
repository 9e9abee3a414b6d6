// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the ibnetdiscover parser on real dumps and on hand-made broken ones.
#include "topo/ibnet.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "tests/shared_data.h"

namespace railguard::topo {
namespace topo_ibnet_test {

const std::string kShared = RAILGUARD_SHARED_DATA "/ibnetdiscover/";
const std::string kData = RAILGUARD_SOURCE_DIR "/tests/data/ibnet/";

IbFabric MustParseFile(const std::string& path) {
  IbFabric f;
  Diags errors;
  EXPECT_TRUE(ParseIbnetdiscoverFile(path, &f, &errors)) << FormatDiags(errors);
  return f;
}

// Parses `text` expecting failure; returns all errors as text.
std::string ErrorsOf(const std::string& text) {
  IbFabric f;
  Diags errors;
  EXPECT_FALSE(ParseIbnetdiscover(text, "t.topo", &f, &errors));
  return FormatDiags(errors);
}

const IbNode& NodeById(const IbFabric& f, IbNodeType type, uint64_t guid) {
  static const IbNode kNone;
  const int i = f.FindNode(guid);
  EXPECT_GE(i, 0) << IbNodeId(type, guid);
  if (i < 0 || static_cast<size_t>(i) >= f.nodes.size()) return kNone;
  EXPECT_EQ(f.nodes[i].type, type);
  return f.nodes[i];
}

// The link on `port` of the node with `guid`.
const IbLink& LinkAt(const IbFabric& f, uint64_t guid, int port) {
  static const IbLink kNone;
  const int li = f.FindLink(f.FindNode(guid), port);
  EXPECT_GE(li, 0) << "no link on port " << port;
  return li < 0 ? kNone : f.links[li];
}

std::map<std::string, int> TokenCounts(const IbFabric& f) {
  std::map<std::string, int> counts;
  for (const IbLink& l : f.links) ++counts[l.Token()];
  return counts;
}

// Counted by hand: grep -c '^Switch' / '^Ca', and the distinct {guid:port, guid:port} pairs.
TEST(IbnetParser, ReadsEveryNodeAndLinkOfTheX5FatTreeDump) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.topofile");
  IbFabric f = MustParseFile(kShared + "hpc-toolset-x5/X5.topofile");
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 11u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 89u);
  EXPECT_EQ(f.links.size(), 159u);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(TokenCounts(f), (std::map<std::string, int>{{"4xDDR", 23}, {"4xQDR", 136}}));
  for (const IbLink& l : f.links) {
    EXPECT_FALSE(l.token_a.empty());
    EXPECT_FALSE(l.token_b.empty()) << "every X5 link is listed by both of its ends";
  }
  const IbNode& sw = NodeById(f, IbNodeType::kSwitch, 0x0008f10500108c5cULL);
  EXPECT_EQ(sw.id, "S-0008f10500108c5c");
  EXPECT_EQ(sw.description, "Voltaire 4036 # 4036-8C5C");
  EXPECT_EQ(sw.ports, 36);
  EXPECT_EQ(sw.line, 220);
  const IbLink& l = LinkAt(f, 0x0008f10500200b50ULL, 4);
  EXPECT_EQ(f.nodes[f.Peer(l, f.FindNode(0x0008f10500200b50ULL), 4).node].id, "H-003048c749cd0000");
  EXPECT_EQ(l.Token(), "4xDDR");
  const IbNode& ca = NodeById(f, IbNodeType::kCa, 0x003048c749cd0000ULL);
  EXPECT_EQ(ca.description, "MT25408 ConnectX Mellanox Technologies");
  EXPECT_EQ(ca.ports, 1);
}

TEST(IbnetParser, KeepsTheLidsAndPortGuidsTheX5DumpPrints) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.topofile");
  IbFabric f = MustParseFile(kShared + "hpc-toolset-x5/X5.topofile");
  // "switchguid=0x8f10500200b50(8f10500200b50)" and "... enhanced port 0 lid 9 lmc 0".
  const int sw = f.FindNode(0x0008f10500200b50ULL);
  EXPECT_EQ(f.Address(sw, 0).guid, 0x0008f10500200b50ULL);
  EXPECT_EQ(f.Address(sw, 17).lid, 9);  // one address for all of a switch's ports
  // "[1](3048c707b60001) ... # lid 93 lmc 0 ...": a CA's port GUID is not its node GUID.
  const int ca = f.FindNode(0x003048c707b60000ULL);
  EXPECT_EQ(f.Address(ca, 1).guid, 0x003048c707b60001ULL);
  EXPECT_EQ(f.Address(ca, 1).lid, 93);
  EXPECT_EQ(f.Address(ca, 2).guid, 0u);
}

TEST(IbnetParser, ReadsTheManPageSampleWithItsNonChassisHeaderAndDualPortHca) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/1.topo");
  IbFabric f = MustParseFile(kShared + "ibtopotool/1.topo");
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 2u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 4u);
  EXPECT_EQ(f.links.size(), 7u);
  const IbNode& hca = NodeById(f, IbNodeType::kCa, 0x0008f10403960558ULL);
  EXPECT_EQ(hca.ports, 2);
  EXPECT_GE(f.FindLink(f.FindNode(0x0008f10403960558ULL), 1), 0);
  EXPECT_GE(f.FindLink(f.FindNode(0x0008f10403960558ULL), 2), 0);
  // The sample's two views of this link disagree; the slower one counts.
  const IbLink& l = LinkAt(f, 0x005442ba00003080ULL, 10);
  EXPECT_EQ(l.token_a, "4xSDR");
  EXPECT_EQ(l.token_b, "1xSDR");
  EXPECT_EQ(l.Token(), "1xSDR");
}

TEST(IbnetParser, ReadsTheTwoHostSample) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/2.topo");
  IbFabric f = MustParseFile(kShared + "ibtopotool/2.topo");
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 1u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 2u);
  EXPECT_EQ(f.links.size(), 2u);
  EXPECT_EQ(NodeById(f, IbNodeType::kCa, 0x0002c902002789acULL).description, "compute-00-01 HCA-1");
}

TEST(IbnetParser, TurnsIbnetdiscoversOwnErrorLineIntoAWarningAndKeepsLoopbackCables) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/3.topo");
  IbFabric f = MustParseFile(kShared + "ibtopotool/3.topo");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].ToString(),
            kShared +
                "ibtopotool/3.topo:1: ibnetdiscover reported an error: \"src/query_smp.c:195; umad "
                "(DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed "
                "out\"; the dump may be incomplete");
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 2u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 6u);
  EXPECT_EQ(f.links.size(), 10u);
  // Port 1 cabled to port 2 of the same switch: one link, seen from both ports.
  const IbLink& loop = LinkAt(f, 0xe41d2d030003e470ULL, 1);
  EXPECT_EQ(loop.a.node, loop.b.node);
  EXPECT_EQ(loop.a.port, 1);
  EXPECT_EQ(loop.b.port, 2);
  EXPECT_EQ(loop.token_b, "4xEDR");
  EXPECT_EQ(NodeById(f, IbNodeType::kSwitch, 0xf4521403005764b0ULL).description,
            "MF0;switch-de779e:SX6012/U1");
}

TEST(IbnetParser, SkipsWhitespaceOnlyLinesInTheSunSwitchSample) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/4.topo");
  IbFabric f = MustParseFile(kShared + "ibtopotool/4.topo");
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 1u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 1u);
  EXPECT_EQ(f.links.size(), 1u);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(LinkAt(f, 0x0021283a8389a0a0ULL, 23).Token(), "4xQDR");
}

TEST(IbnetParser, KeepsALinkSeenFromOnlyOneSide) {
  const std::string text =
      "switchguid=0x10(10)\n"
      "Switch\t4 \"S-0000000000000010\"\t\t# \"MF0;leaf1:MQM9700/U1\" enhanced port 0 lid 1 lmc 0\n"
      "[3]\t\"H-0000000000000020\"[1](20) \t\t# \"n001 mlx5_0\" lid 2 4xNDR\n";
  IbFabric f;
  Diags errors;
  ASSERT_TRUE(ParseIbnetdiscover(text, "t.topo", &f, &errors)) << FormatDiags(errors);
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0].token_a, "4xNDR");
  EXPECT_EQ(f.links[0].token_b, "");
  EXPECT_EQ(f.links[0].Token(), "4xNDR");
  const IbNode& ca = NodeById(f, IbNodeType::kCa, 0x20);
  EXPECT_EQ(ca.description, "n001 mlx5_0");
  EXPECT_EQ(ca.ports, 0);
  EXPECT_EQ(ca.line, 0);
}

TEST(IbnetParser, ReadsGroupedOutputWithChassisHeadersAndExternalPorts) {
  IbFabric f = MustParseFile(kData + "grouped.topo");
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 2u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 1u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kRouter), 1u);
  EXPECT_EQ(f.links.size(), 3u);
  EXPECT_EQ(LinkAt(f, 0x0008f104003f125cULL, 1).Token(), "4xDDR");
  EXPECT_EQ(NodeById(f, IbNodeType::kRouter, 0x0002c90000000040ULL).description, "router1 rt0");
  EXPECT_TRUE(f.warnings.empty());
}

TEST(IbnetParser, IgnoresTheFullInfoTailOfPortLines) {
  const std::string text =
      "Switch\t4 \"S-0000000000000010\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"
      "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"n1 mlx5_0\" lid 2 4xHDR s=4 w=2 v=4\n"
      "Ca\t1 \"H-0000000000000020\"\t\t# \"n1 mlx5_0\"\n"
      "[1](20) \t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"sw\" lid 1 4xHDR s=4 w=2 v=4\n";
  IbFabric f;
  Diags errors;
  ASSERT_TRUE(ParseIbnetdiscover(text, "t.topo", &f, &errors)) << FormatDiags(errors);
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0].token_a, "4xHDR");
  EXPECT_EQ(f.links[0].token_b, "4xHDR");
}

TEST(IbnetParser, TurnsIbwarnLinesIntoWarnings) {
  const std::string text =
      "ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\n"
      "Switch\t4 \"S-0000000000000010\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n";
  IbFabric f;
  Diags errors;
  ASSERT_TRUE(ParseIbnetdiscover(text, "t.topo", &f, &errors)) << FormatDiags(errors);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].ToString(),
            "t.topo:1: ibnetdiscover reported an error: \"ibwarn: [1234] mad_rpc: _do_madrpc "
            "failed; dport (DR path slid 0; dlid 0; 0,1,3)\"; the dump may be incomplete");
}

// --- errors ---------------------------------------------------------------------------------

const std::string kSw = "Switch\t8 \"S-0000000000000010\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n";
const std::string kCa = "Ca\t1 \"H-0000000000000020\"\t\t# \"n1 mlx5_0\"\n";
const char kSwPortForm[] =
    "expected [<port>] \"<S|H|R>-<guid>\"[<port>] # \"<description>\" lid <lid> "
    "<width>x<speed>\n";
const char kCaPortForm[] =
    "expected [<port>](<port guid>) \"<S|H|R>-<guid>\"[<port>] # lid <lid> lmc <lmc> "
    "\"<description>\" lid <lid> <width>x<speed>\n";

TEST(IbnetParserErrors, NameAnUnrecognizedLineAndTheFormsALineMayTake) {
  EXPECT_EQ(ErrorsOf("hello world\n"),
            "t.topo:1: unrecognized line \"hello world\"; expected a vendid=, devid=, "
            "sysimgguid=, switchguid=, caguid= or rtguid= line, a Switch, Ca or Rt header, a "
            "[port] line, a comment or a blank line\n");
}

TEST(IbnetParserErrors, ShortenAVeryLongUnrecognizedLine) {
  const std::string shown = "t.topo:1: unrecognized line \"" + std::string(60, 'z') + "...\"; ";
  EXPECT_EQ(ErrorsOf(std::string(200, 'z') + "\n").substr(0, shown.size()), shown);
}

TEST(IbnetParserErrors, RejectABadPortCountInAHeader) {
  EXPECT_EQ(ErrorsOf("Switch\tx \"S-0000000000000010\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"),
            "t.topo:1: bad port count in header; expected Switch <ports> \"S-<guid>\" # "
            "\"<description>\" enhanced port 0 lid <lid> lmc <lmc>\n");
  EXPECT_EQ(ErrorsOf("Ca\t0 \"H-0000000000000020\"\t\t# \"x\"\n"),
            "t.topo:1: bad port count in header; expected Ca <ports> \"H-<guid>\" # "
            "\"<description>\"\n");
}

TEST(IbnetParserErrors, RejectAHeaderWithoutANodeId) {
  EXPECT_EQ(ErrorsOf("Rt\t1 \"X-0020\"\t\t# \"r\"\n"),
            "t.topo:1: bad node id in header; expected Rt <ports> \"R-<guid>\" # "
            "\"<description>\"\n");
}

TEST(IbnetParserErrors, RejectANodeIdOfAnotherType) {
  EXPECT_EQ(ErrorsOf("Ca\t1 \"S-0000000000000020\"\t\t# \"x\"\n"),
            "t.topo:1: node id \"S-0000000000000020\" does not match the Ca header; expected Ca "
            "<ports> \"H-<guid>\" # \"<description>\"\n");
}

TEST(IbnetParserErrors, RejectAHeaderWithoutItsDescription) {
  EXPECT_EQ(ErrorsOf("Ca\t1 \"H-0000000000000020\"\n"),
            "t.topo:1: header lacks the # \"<description>\" comment; expected Ca <ports> "
            "\"H-<guid>\" # \"<description>\"\n");
  EXPECT_EQ(ErrorsOf("Ca\t1 \"H-0000000000000020\"\t# n1 mlx5_0\n"),
            "t.topo:1: header lacks a quoted description after '#'; expected Ca <ports> "
            "\"H-<guid>\" # \"<description>\"\n");
  EXPECT_EQ(ErrorsOf("Ca\t1 \"H-0000000000000020\"\t# \"n1 mlx5_0\n"),
            "t.topo:1: header lacks a quoted description after '#'; expected Ca <ports> "
            "\"H-<guid>\" # \"<description>\"\n");
}

TEST(IbnetParserErrors, RejectAHeaderThatDoesNotMatchTheGuidLineBeforeIt) {
  EXPECT_EQ(ErrorsOf("switchguid=0x11(11)\n" + kSw),
            "t.topo:2: header for \"S-0000000000000010\" follows switchguid=0x0000000000000011 "
            "on line 1; expected switchguid=0x0000000000000010 before this header\n");
  EXPECT_EQ(ErrorsOf("caguid=0x10\n" + kSw),
            "t.topo:2: header for \"S-0000000000000010\" follows caguid=0x0000000000000010 on "
            "line 1; expected switchguid=0x0000000000000010 before this header\n");
}

TEST(IbnetParserErrors, RejectMalformedGuidLines) {
  EXPECT_EQ(ErrorsOf("vendid=2c9\n"),
            "t.topo:1: bad value for vendid=; expected vendid=0x<hex digits>\n");
  EXPECT_EQ(ErrorsOf("caguid=0xzz\n"),
            "t.topo:1: bad value for caguid=; expected caguid=0x<hex digits>\n");
  EXPECT_EQ(
      ErrorsOf("switchguid=0x10\n"),
      "t.topo:1: switchguid= lacks its port GUID; expected switchguid=0x<guid>(<port guid>)\n");
  EXPECT_EQ(ErrorsOf("devid=0x1021 junk\n"),
            "t.topo:1: unexpected text after devid=; expected devid=0x<hex digits>, optionally "
            "followed by a # comment\n");
  EXPECT_EQ(ErrorsOf("sysimgguid=0x12345678901234567\n"),
            "t.topo:1: bad value for sysimgguid=; expected sysimgguid=0x<hex digits>\n");
}

TEST(IbnetParserErrors, RejectASecondRecordForOneNode) {
  EXPECT_EQ(ErrorsOf(kSw + "\n" + kSw),
            "t.topo:3: second record for \"S-0000000000000010\" (first at line 1); expected one "
            "record per node\n");
}

TEST(IbnetParserErrors, RejectOneGuidUsedByTwoNodeTypes) {
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000010\"[1](10) \t\t# \"x\" lid 2 4xNDR\n"),
            "t.topo:2: \"H-0000000000000010\" has the GUID of \"S-0000000000000010\" (line 1); "
            "expected one node type per GUID\n");
}

TEST(IbnetParserErrors, RejectAPortLineBeforeAnyHeader) {
  EXPECT_EQ(ErrorsOf("[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n"),
            "t.topo:1: port line outside a node record; expected a Switch, Ca or Rt header "
            "before it\n");
  // After vendid= a new record has begun, so its port lines need its header first.
  EXPECT_EQ(ErrorsOf(kSw + "vendid=0x2c9\n[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 "
                           "4xNDR\n"),
            "t.topo:3: port line outside a node record; expected a Switch, Ca or Rt header "
            "before it\n");
}

TEST(IbnetParserErrors, ReportABrokenHeaderOnceAndNotEachOfItsPortLines) {
  EXPECT_EQ(ErrorsOf("Switch\tx \"S-0000000000000010\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"
                     "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n"
                     "[2]\t\"H-0000000000000030\"[1](30) \t\t# \"y\" lid 3 4xNDR\n"),
            "t.topo:1: bad port count in header; expected Switch <ports> \"S-<guid>\" # "
            "\"<description>\" enhanced port 0 lid <lid> lmc <lmc>\n");
}

TEST(IbnetParserErrors, NameEachMissingPartOfASwitchPortLine) {
  EXPECT_EQ(ErrorsOf(kSw + "[x]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n"),
            std::string("t.topo:2: bad local port number; ") + kSwPortForm);
  EXPECT_EQ(ErrorsOf(kSw + "[1]\tH-0000000000000020[1](20) \t\t# \"x\" lid 2 4xNDR\n"),
            std::string("t.topo:2: missing the peer's node id; ") + kSwPortForm);
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"(20) \t\t# \"x\" lid 2 4xNDR\n"),
            std::string("t.topo:2: missing the peer's port number; ") + kSwPortForm);
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[1](20) \t\t \"x\" lid 2 4xNDR\n"),
            std::string("t.topo:2: missing '#' before the peer's description; ") + kSwPortForm);
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[1](20) \t\t# lid 2 4xNDR\n"),
            std::string("t.topo:2: missing the peer's quoted description; ") + kSwPortForm);
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" 4xNDR\n"),
            std::string("t.topo:2: missing the peer's lid after its description; ") + kSwPortForm);
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2\n"),
            std::string("t.topo:2: missing the link width and speed; ") + kSwPortForm);
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4x-NDR\n"),
            std::string("t.topo:2: bad link width and speed \"4x-NDR\"; ") + kSwPortForm);
}

TEST(IbnetParserErrors, NameEachMissingPartOfACaPortLine) {
  EXPECT_EQ(ErrorsOf(kCa + "[1](20) \t\"S-0000000000000010\"[1]\t\t# \"sw\" lid 1 4xNDR\n"),
            std::string("t.topo:2: missing the local lid and lmc after '#'; ") + kCaPortForm);
  EXPECT_EQ(ErrorsOf(kCa + "[1](20) \t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 sw lid 1 "
                           "4xNDR\n"),
            std::string("t.topo:2: missing the peer's quoted description; ") + kCaPortForm);
}

TEST(IbnetParserErrors, RejectAPortBeyondTheNodesPortCount) {
  EXPECT_EQ(ErrorsOf(kSw + "[9]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n"),
            "t.topo:2: port 9 of \"S-0000000000000010\" exceeds its 8 ports (line 1); expected "
            "a port from 1 to 8\n");
  // The peer's port is checked against the peer's own record, wherever that comes.
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[2](20) \t\t# \"x\" lid 2 4xNDR\n" + kCa),
            "t.topo:2: port 2 of \"H-0000000000000020\" exceeds its 1 ports (line 3); expected "
            "a port from 1 to 1\n");
}

TEST(IbnetParserErrors, RejectAPortCabledToItself) {
  EXPECT_EQ(ErrorsOf(kSw + "[3]\t\"S-0000000000000010\"[3]\t\t# \"sw\" lid 1 4xNDR\n"),
            "t.topo:2: port 3 of \"S-0000000000000010\" is linked to itself; expected a peer "
            "port other than the port itself\n");
}

TEST(IbnetParserErrors, RejectAPortListedTwiceInOneRecord) {
  const std::string port = "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n";
  EXPECT_EQ(ErrorsOf(kSw + port + port),
            "t.topo:3: port 1 of \"S-0000000000000010\" is listed twice in its record (first at "
            "line 2); expected each port once\n");
}

TEST(IbnetParserErrors, RejectTwoEndsThatNameDifferentPeers) {
  // The switch says port 1 goes to the HCA's port 1; the HCA says its port 1 goes to port 2.
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n" + kCa +
                     "[1](20) \t\"S-0000000000000010\"[2]\t\t# lid 2 lmc 0 \"sw\" lid 1 4xNDR\n"),
            "t.topo:4: port 1 of \"H-0000000000000020\" is linked to \"S-0000000000000010\"[2] "
            "here but to \"S-0000000000000010\"[1] at line 2; expected both ends of a link to "
            "name each other\n");
  // Two switch ports both claim the HCA's only port.
  EXPECT_EQ(ErrorsOf(kSw + "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n" +
                     "[2]\t\"H-0000000000000020\"[1](20) \t\t# \"x\" lid 2 4xNDR\n"),
            "t.topo:3: port 2 of \"S-0000000000000010\" is linked to \"H-0000000000000020\"[1], "
            "which line 2 links to \"S-0000000000000010\"[1]; expected both ends of a link to "
            "name each other\n");
}

TEST(IbnetParserErrors, StopAfterFiftyErrors) {
  std::string text;
  for (int i = 0; i < 80; ++i) text += "junk\n";
  IbFabric f;
  Diags errors;
  EXPECT_FALSE(ParseIbnetdiscover(text, "t.topo", &f, &errors));
  ASSERT_EQ(errors.size(), 51u);
  EXPECT_EQ(errors.back().ToString(), "t.topo:51: too many errors; giving up");
}

TEST(IbnetParserErrors, ReportAFileThatCannotBeOpened) {
  IbFabric f;
  Diags errors;
  EXPECT_FALSE(ParseIbnetdiscoverFile("/nonexistent/x.topo", &f, &errors));
  EXPECT_EQ(FormatDiags(errors), "/nonexistent/x.topo: cannot open: No such file or directory\n");
}

TEST(IbnetParserErrors, NeverCrashOnAnyPrefixOrMangledLineOfARealDump) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/3.topo");
  // Every prefix of a real dump, and every line with a character dropped, parses or fails with
  // errors; none crashes, and a failed parse always says why.
  IbFabric whole = MustParseFile(kShared + "ibtopotool/3.topo");
  std::string text;
  {
    std::ifstream in(kShared + "ibtopotool/3.topo");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (size_t n = 0; n <= text.size(); n += 7) {
    IbFabric f;
    Diags errors;
    const bool ok = ParseIbnetdiscover(text.substr(0, n), "t", &f, &errors);
    EXPECT_EQ(ok, errors.empty()) << n;
  }
  for (size_t i = 0; i < text.size(); i += 3) {
    std::string mangled = text;
    mangled.erase(i, 1);
    IbFabric f;
    Diags errors;
    const bool ok = ParseIbnetdiscover(mangled, "t", &f, &errors);
    EXPECT_EQ(ok, errors.empty()) << i;
  }
  EXPECT_EQ(whole.links.size(), 10u);
}

TEST(IbnetLinks, CompareBySpeedThenWidthWithUnknownsSlowest) {
  EXPECT_TRUE(LinkSlower("4xHDR", "4xNDR"));
  EXPECT_TRUE(LinkSlower("2xNDR", "4xNDR"));
  EXPECT_TRUE(LinkSlower("1xSDR", "4xSDR"));
  EXPECT_FALSE(LinkSlower("4xNDR", "4xNDR"));
  EXPECT_FALSE(LinkSlower("4xNDR", "4xHDR"));
  EXPECT_TRUE(LinkSlower("4x???", "1xSDR"));
  EXPECT_FALSE(LinkSlower("1xSDR", "4x???"));
  EXPECT_FALSE(LinkSlower("999999999999xNDR", "4xNDR") && LinkSlower("4xNDR", "999999999999xNDR"));
}

TEST(IbnetIds, PrintGuidsAsIbnetdiscoverAndTheYamlDo) {
  EXPECT_EQ(IbNodeId(IbNodeType::kSwitch, 0x8f10500200b50ULL), "S-0008f10500200b50");
  EXPECT_EQ(IbNodeId(IbNodeType::kCa, 0x20), "H-0000000000000020");
  EXPECT_EQ(IbNodeId(IbNodeType::kRouter, 0x20), "R-0000000000000020");
  EXPECT_EQ(GuidString(0xe41d2d030003e470ULL), "0xe41d2d030003e470");
}

}  // namespace topo_ibnet_test
}  // namespace railguard::topo
