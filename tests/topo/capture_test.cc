// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of telling a capture's format and reading it (topo/capture.h): every fixture and
// real dump is sniffed as what it is, --format overrides the sniffing, and the four formats
// of one rail fabric discover the same topology.
#include "topo/capture.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/shared_data.h"
#include "tests/topo/capture_test_util.h"
#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/ibdiagnet_lst.h"
#include "topo/iblinkinfo.h"
#include "topo/ibnet_ports.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_capture_test {

using capture_testing::kIbnetData;
using capture_testing::MustParse;
using capture_testing::ReadFixture;

TEST(CaptureFormat, SniffsEveryFixtureAsWhatItIs) {
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "grouped.topo")),
            CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "ports-infiniband-exporter.txt")),
            CaptureFormat::kPorts);
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "manpage-ports.txt")),
            CaptureFormat::kPorts);
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "iblinkinfo-archwiki.txt")),
            CaptureFormat::kIblinkinfo);
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "manpage-iblinkinfo.txt")),
            CaptureFormat::kIblinkinfo);
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "manpage-iblinkinfo-l.txt")),
            CaptureFormat::kIblinkinfo);
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "ibutils-subnet.lst")),
            CaptureFormat::kIbdiagnetLst);
  EXPECT_EQ(SniffCaptureFormat(ReadFixture(kIbnetData + "manpage-ibdiagnet2.lst")),
            CaptureFormat::kIbdiagnetLst);
}

TEST(CaptureFormat, SniffsTheRealDumpsAsIbnetdiscover) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/3.topo");
  for (const std::string name : {"ibtopotool/1.topo", "ibtopotool/2.topo", "ibtopotool/3.topo",
                                 "ibtopotool/4.topo", "hpc-toolset-x5/X5.topofile"})
    EXPECT_EQ(SniffCaptureFormat(ReadFixture(testing::SharedPath("ibnetdiscover/" + name))),
              CaptureFormat::kIbnetdiscover)
        << name;
}

TEST(CaptureFormat, SniffsPastWrappersCommentsAndTheToolsOwnErrors) {
  EXPECT_EQ(SniffCaptureFormat("\xEF\xBB\xBF[root@h ~]# ibnetdiscover -p\r\n\r\n"
                               "ibwarn: [1] mad_rpc: _do_madrpc failed\r\n"
                               "CA    17  1 0x0000000000000021 4x NDR - SW     2  2 "
                               "0x0000000000000010 ( 'n1' - 'sw' )\r\n"),
            CaptureFormat::kPorts);
  EXPECT_EQ(SniffCaptureFormat("# saved 2024-03-01\nSwitch: 0x0000000000000010 sw:\n"),
            CaptureFormat::kIblinkinfo);
  EXPECT_EQ(SniffCaptureFormat("\xEF\xBB\xBF"
                               "admin@ufm:~$ cat ibdiagnet2.lst\r\n# IBDIAG\r\n"
                               "{ CA-SM Ports:02 SystemGUID:0002c90109769a03 ...\r\n"),
            CaptureFormat::kIbdiagnetLst);
  EXPECT_EQ(SniffCaptureFormat("{ Switch Ports:02\n"), CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(SniffCaptureFormat("           2    2[  ] ==(                Down/ Polling)==>"),
            CaptureFormat::kIblinkinfo);
  EXPECT_EQ(SniffCaptureFormat("Switch36 \"S-0002c90200403e60\"# \"sw1\" enhanced port 0 lid 2"),
            CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(SniffCaptureFormat("hello world\n"), CaptureFormat::kIbnetdiscover);
  // A line of no format is passed over: the next one tells, and that parser reports it.
  const std::string text =
      "Last login: Fri Mar  1 10:22:33 2024\n"
      "SW     2  1 0x0000000000000010 4x SDR                                    'sw'\n";
  EXPECT_EQ(SniffCaptureFormat(text), CaptureFormat::kPorts);
  EXPECT_EQ(capture_testing::ErrorsAs(text, CaptureFormat::kAuto),
            "t.txt:1: bad node type \"Last\"; expected <SW|CA|RT> <lid> <port> 0x<port guid> "
            "<width> <speed>, then - <SW|CA|RT> <lid> <port> 0x<port guid> ( '<description>' - "
            "'<peer description>' ), or '<description>' for a port without a link\n");
  EXPECT_EQ(SniffCaptureFormat("junk\nvendid=0x2c9\nCA: x:\n"), CaptureFormat::kIbnetdiscover);
  EXPECT_EQ(SniffCaptureFormat(""), CaptureFormat::kIbnetdiscover);
}

TEST(CaptureFormat, AnExplicitFormatOverridesTheSniffing) {
  const std::string report = ReadFixture(kIbnetData + "ports-infiniband-exporter.txt");
  IbFabric f;
  Diags d;
  CaptureFormat read_as = CaptureFormat::kAuto;
  EXPECT_FALSE(ParseCapture(report, "r.txt", CaptureFormat::kIblinkinfo, &f, &d, &read_as));
  EXPECT_EQ(read_as, CaptureFormat::kIblinkinfo);
  EXPECT_EQ(d.front().ToString(),
            "r.txt:1: port line before any header; expected a Switch: 0x<port guid> "
            "<description>:, CA: <description>: or Router: <description>: header before it");
  d.clear();
  EXPECT_TRUE(ParseCapture(report, "r.txt", CaptureFormat::kAuto, &f, &d, &read_as));
  EXPECT_EQ(read_as, CaptureFormat::kPorts);
  EXPECT_EQ(f.links.size(), 4u);
}

TEST(CaptureFormat, NamesTheFormatsAsTheFormatFlagDoes) {
  for (CaptureFormat f :
       {CaptureFormat::kAuto, CaptureFormat::kIbnetdiscover, CaptureFormat::kPorts,
        CaptureFormat::kIblinkinfo, CaptureFormat::kIbdiagnetLst}) {
    CaptureFormat back = CaptureFormat::kAuto;
    EXPECT_TRUE(ParseCaptureFormatName(CaptureFormatName(f), &back));
    EXPECT_EQ(back, f);
  }
  CaptureFormat named = CaptureFormat::kAuto;
  EXPECT_TRUE(ParseCaptureFormatName("ibdiagnet", &named));
  EXPECT_EQ(named, CaptureFormat::kIbdiagnetLst);
  CaptureFormat unused;
  EXPECT_FALSE(ParseCaptureFormatName("ibdiagnet2.lst", &unused));
  EXPECT_FALSE(ParseCaptureFormatName("lst", &unused));
  EXPECT_EQ(CaptureFormatTitle(CaptureFormat::kPorts), "an ibnetdiscover -p ports report");
  EXPECT_EQ(CaptureFormatTitle(CaptureFormat::kIbdiagnetLst), "an ibdiagnet2.lst link list");
}

TEST(CaptureFormat, ReadsAFileAndSaysWhenItCannot) {
  IbFabric f;
  Diags d;
  CaptureFormat read_as = CaptureFormat::kAuto;
  EXPECT_TRUE(ParseCaptureFile(kIbnetData + "iblinkinfo-archwiki.txt", CaptureFormat::kAuto, &f, &d,
                               &read_as));
  EXPECT_EQ(read_as, CaptureFormat::kIblinkinfo);
  EXPECT_EQ(f.links.size(), 1u);
  EXPECT_FALSE(ParseCaptureFile("/nonexistent/x.txt", CaptureFormat::kAuto, &f, &d));
  EXPECT_EQ(d.back().ToString(), "/nonexistent/x.txt: cannot open: No such file or directory");
}

// The ibnetdiscover dump, ports report, iblinkinfo output (both layouts) and ibdiagnet2.lst of
// one simulated rail fabric, with faults, discover the same YAML and the same findings.
TEST(CaptureFormat, EveryFormatOfOneRailFabricDiscoversTheSameTopology) {
  const std::string dump = discover_testing::Simulate(
      discover_testing::LoadFile(discover_testing::kDev4su),
      {{"swap", "n001:1:2"}, {"drop", "n005:1"}, {"unnamed", "n010:3"}, {"ufm", "ufm01"}});
  const IbFabric fabric = MustParse(dump, CaptureFormat::kAuto);
  const Discovery want = Discover(fabric, discover_testing::DevOptions());
  ASSERT_FALSE(want.topology.sus.empty());
  ASSERT_NE(discover_testing::AllFindings(want), "");
  for (const std::string& text :
       {WriteIbnetPorts(fabric), WriteIblinkinfo(fabric, IblinkinfoLayout::kNodes),
        WriteIblinkinfo(fabric, IblinkinfoLayout::kLines), WriteIbdiagnetLst(fabric)}) {
    const Discovery d =
        Discover(MustParse(text, CaptureFormat::kAuto), discover_testing::DevOptions());
    EXPECT_EQ(EmitTopologyYaml(d.topology), EmitTopologyYaml(want.topology));
    EXPECT_EQ(discover_testing::AllFindings(d), discover_testing::AllFindings(want));
  }
}

}  // namespace topo_capture_test
}  // namespace railguard::topo
