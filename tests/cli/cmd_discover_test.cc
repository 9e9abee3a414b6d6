// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of `railctl topology discover` (cli/cmd_discover.cc), called as railctl calls it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "tests/shared_data.h"
#include "tests/topo/discover_test_util.h"
#include "topo/capture.h"
#include "topo/ibdiagnet_lst.h"
#include "topo/iblinkinfo.h"
#include "topo/ibnet_ports.h"

namespace railguard::cli {
namespace cli_cmd_discover_test {

using topo::discover_testing::DevYamlWithSimulatedGuids;
using topo::discover_testing::kDev4su;
using topo::discover_testing::kIbtopotool;
using topo::discover_testing::kX5;
using topo::discover_testing::LoadFile;
using topo::discover_testing::Simulate;

struct CliResult {
  int rc;
  std::string out;
  std::string err;
};

CliResult RunDiscover(std::vector<std::string> args) {
  args.insert(args.begin(), "discover");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = cli::TopologyDiscover(static_cast<int>(argv.size()), argv.data());
  CliResult r{rc, ::testing::internal::GetCapturedStdout(),
              ::testing::internal::GetCapturedStderr()};
  return r;
}

// Writes a simulated dev dump with `faults` to a temporary file; returns its path.
std::string DevDumpFile(const std::vector<std::pair<std::string, std::string>>& faults,
                        const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid());
  std::ofstream(path) << Simulate(LoadFile(kDev4su), faults);
  return path;
}

TEST(DiscoverCli, PrintsTheYamlAndExitsZeroOnACleanFabric) {
  const std::string dump = DevDumpFile({}, "clean.topo");
  const CliResult r =
      RunDiscover({dump, "--cluster", "raildev", "--node-type", "dgx-h100", "--gpus", "8"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, DevYamlWithSimulatedGuids());
  EXPECT_EQ(r.err, dump +
                       ": discovered 4 scalable units, 32 hosts, 8 rails, 32 leaves and 2 spines "
                       "from 34 switches, 256 CAs (256 compute HCAs, 0 unnamed, 0 non-compute) "
                       "and 320 links; 0 findings\n");
  std::remove(dump.c_str());
}

TEST(DiscoverCli, ListsFindingsOnStderrAndExitsOne) {
  const std::string dump = DevDumpFile({{"drop", "n005:1"}}, "drop.topo");
  const std::string out = ::testing::TempDir() + "/drop_" + std::to_string(getpid()) + ".yaml";
  const CliResult r = RunDiscover({dump, "-o", out, "--node-type", "dgx-h100"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "missing-link: n005 has no mlx5_3 link (rail 1); expected a cable to su1-rail1 port "
            "5");
  std::ifstream in(out);
  const std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(yaml.substr(0, 19), "cluster: discovered");
  std::remove(dump.c_str());
  std::remove(out.c_str());
}

TEST(DiscoverCli, ExitsZeroWhenOnlyNonComputeCasAreFound) {
  // UFM hosts and SHARP aggregation nodes are reported and left out, but are not faults.
  const std::string dump = DevDumpFile({{"ufm", "ufm01"}, {"sharp", "1"}}, "ufm.topo");
  const CliResult r = RunDiscover({dump, "--cluster", "raildev", "--node-type", "dgx-h100"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("non-compute: ufm01 mlx5_0 on spine1 port"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, DevYamlWithSimulatedGuids());
  std::remove(dump.c_str());
}

// A real fabric gave 216 non-compute lines, one per SHARP node and UFM host, burying the three
// findings to act on: a kind with more than 3 findings is one line with its count and the
// first 3; --all lists each; findings that need action come first.
TEST(DiscoverCli, RepeatingFindingsAreOneLineAndAllListsEach) {
  const std::string dump =
      DevDumpFile({{"sharp", "12"}, {"swap", "n001:1:2"}}, "sharp.topo");
  const CliResult r = RunDiscover({dump});
  EXPECT_EQ(r.rc, 1) << r.err;
  const size_t grouped = r.err.find("non-compute: 12 findings (--all lists each), the first 3: ");
  EXPECT_NE(grouped, std::string::npos) << r.err;
  const size_t swap = r.err.find("rail-mismatch: ");
  EXPECT_NE(swap, std::string::npos) << r.err;
  EXPECT_LT(swap, grouped) << "the finding to act on comes first:\n" << r.err;
  size_t lines = 0;
  for (size_t at = 0; (at = r.err.find("\nnon-compute: ", at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, 1u) << r.err;
  const CliResult every = RunDiscover({dump, "--all"});
  lines = 0;
  for (size_t at = 0; (at = every.err.find("\nnon-compute: ", at)) != std::string::npos; ++at)
    ++lines;
  EXPECT_EQ(lines, 12u) << every.err;
  EXPECT_EQ(every.out, r.out);
  std::remove(dump.c_str());
}

TEST(DiscoverCli, PrintsJsonWithSusRailsAndFindings) {
  const std::string dump = DevDumpFile({{"swap", "n001:1:2"}}, "swap.topo");
  const CliResult r = RunDiscover({dump, "--json"});
  EXPECT_EQ(r.rc, 1);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["sus"].size(), 4u);
  EXPECT_EQ(j["sus"][0]["nodes"], "n[001-008]");
  ASSERT_EQ(j["rails"].size(), 8u);
  EXPECT_EQ(j["rails"][7]["hca"], "mlx5_11");
  EXPECT_EQ(j["rails"][7]["link"], "4xNDR");
  ASSERT_EQ(j["findings"].size(), 2u);
  EXPECT_EQ(j["findings"][0],
            (nlohmann::json{{"kind", "rail-mismatch"},
                            {"node", "n001"},
                            {"hca", "mlx5_3"},
                            {"switch", "su1-rail2"},
                            {"guid", "0xfc6a1c0300000102"},
                            {"port", 1},
                            {"message",
                             "n001 mlx5_3 is cabled to su1-rail2 port 1, the leaf of rail 2 "
                             "(mlx5_4); expected su1-rail1, the leaf of rail 1 (mlx5_3) "
                             "(swapped cables?)"}}));
  EXPECT_EQ(j["switches"].size(), 34u);
  std::remove(dump.c_str());
}

TEST(DiscoverCli, WritesNoYamlWhenNoRailCanBeInferred) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5");
  const CliResult r = RunDiscover({kX5 + "X5.topofile", "--node-map", kX5 + "X5.map"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("\nrailctl topology discover: no topology written: no scalable unit of "
                       "rail-optimized hosts was found\n"),
            std::string::npos);
}

TEST(DiscoverCli, ExitsOneWithFileAndLineOnABrokenDump) {
  const std::string dump = ::testing::TempDir() + "/broken_" + std::to_string(getpid());
  std::ofstream(dump) << "#\nSwitch\t8 oops\n";
  const CliResult r = RunDiscover({dump});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, dump +
                       ":2: bad node id in header; expected Switch <ports> \"S-<guid>\" # "
                       "\"<description>\" enhanced port 0 lid <lid> lmc <lmc>\n" +
                       dump +
                       ": 1 error; nothing discovered (read as ibnetdiscover output; --format "
                       "to say otherwise)\n");
  std::remove(dump.c_str());
}

TEST(DiscoverCli, ExitsTwoOnUsageErrors) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/2.topo");
  const std::string dump = kIbtopotool + "2.topo";
  const CliResult gpus = RunDiscover({dump, "--gpus", "x"});
  EXPECT_EQ(gpus.rc, 2);
  EXPECT_EQ(gpus.err.substr(0, gpus.err.find('\n')),
            "railctl topology discover: invalid --gpus 'x'; expected an integer from 0 to 64");
  const CliResult order = RunDiscover({dump, "--rail-order", "mlx5_0,,mlx5_1"});
  EXPECT_EQ(order.rc, 2);
  EXPECT_EQ(order.err.substr(0, order.err.find('\n')),
            "railctl topology discover: invalid --rail-order 'mlx5_0,,mlx5_1'; expected distinct "
            "HCA names separated by commas, e.g. mlx5_0,mlx5_3,mlx5_4");
  EXPECT_EQ(RunDiscover({dump, "--rail-order", "a,a"}).rc, 2);
  // The list `railctl topology rails` prints is accepted as it is.
  EXPECT_EQ(RunDiscover({dump, "--rail-order", "[HCA-1]"}).rc, 0);
  EXPECT_EQ(RunDiscover({dump, "--rail-order", "[HCA-1, mlx5_0]"}).rc, 1);
  EXPECT_EQ(RunDiscover({dump, "--exclude", "(("}).rc, 2);
  EXPECT_EQ(RunDiscover({dump, "--cluster", "a b"}).rc, 2);
  EXPECT_EQ(RunDiscover({dump, "--frobnicate"}).rc, 2);
  EXPECT_EQ(RunDiscover({}).rc, 2);
  const CliResult help = RunDiscover({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out.substr(0, 40), "usage: railctl topology discover DUMP [-");
}

// Writes `text` to a temporary file named after `name`; returns its path.
std::string TempFile(const std::string& text, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(DiscoverCli, ReadsAPortsReportIblinkinfoOutputAndAnIbdiagnetListWithoutAFlag) {
  topo::IbFabric fabric;
  Diags errors;
  ASSERT_TRUE(topo::ParseCapture(Simulate(LoadFile(kDev4su)), "dev.topo",
                                 topo::CaptureFormat::kAuto, &fabric, &errors))
      << FormatDiags(errors);
  const std::vector<std::pair<std::string, std::string>> captures = {
      {"an ibnetdiscover -p ports report", topo::WriteIbnetPorts(fabric)},
      {"iblinkinfo output", topo::WriteIblinkinfo(fabric, topo::IblinkinfoLayout::kNodes)},
      {"iblinkinfo output", topo::WriteIblinkinfo(fabric, topo::IblinkinfoLayout::kLines)},
      {"an ibdiagnet2.lst link list", topo::WriteIbdiagnetLst(fabric)}};
  for (const auto& [title, text] : captures) {
    const std::string path = TempFile(text, "capture.txt");
    const CliResult r =
        RunDiscover({path, "--cluster", "raildev", "--node-type", "dgx-h100", "--gpus", "8"});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, DevYamlWithSimulatedGuids()) << title;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), path + ": read as " + title);
    std::remove(path.c_str());
  }
}

TEST(DiscoverCli, SaysWhatItSkippedOfATerminalCapture) {
  const std::string dump = Simulate(LoadFile(kDev4su));
  const std::string banner =
      "=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2024.03.01 10:22:33 =~=~=~=~=~=~=~=~=~=~=~=\r\n";
  const std::string prompt = "[root@head01 ~]# ";
  const std::string path =
      TempFile(banner + prompt + "ibnetdiscover\r\n" + dump + prompt, "putty.log");
  const CliResult r = RunDiscover({path, "--cluster", "raildev", "--node-type", "dgx-h100"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, DevYamlWithSimulatedGuids());
  const long last = 3 + std::count(dump.begin(), dump.end(), '\n');
  const std::string skipped =
      ": read as ibnetdiscover output; skipped a PuTTY log banner (line 1), a shell prompt and "
      "command (line 2), a shell prompt (line ";
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), path + skipped + std::to_string(last) + ")");
  std::remove(path.c_str());
}

TEST(DiscoverCli, AFormatFlagOverridesTheSniffing) {
  const std::string path =
      TempFile("SW     2  1 0x0000000000000010 4x SDR                                    'sw'\n",
               "ports.txt");
  const CliResult wrong = RunDiscover({path, "--format", "iblinkinfo"});
  EXPECT_EQ(wrong.rc, 1);
  EXPECT_EQ(wrong.err, path +
                           ":1: port line before any header; expected a Switch: 0x<port guid> "
                           "<description>:, CA: <description>: or Router: <description>: header "
                           "before it\n" +
                           path + ": 1 error; nothing discovered\n");
  const CliResult lst = RunDiscover({path, "--format", "ibdiagnet"});
  EXPECT_EQ(lst.rc, 1);
  EXPECT_EQ(lst.err.substr(0, lst.err.find(';')),
            path + ":1: not a link line: \"SW     2  1 0x0000000000000010 4x SDR" +
                std::string(23, ' ') + "...\"");
  const CliResult bad = RunDiscover({path, "--format", "ibdiagnet2.lst"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(bad.err.substr(0, bad.err.find('\n')),
            "railctl topology discover: invalid --format 'ibdiagnet2.lst'; expected "
            "ibnetdiscover, ports, iblinkinfo, ibdiagnet or auto");
  const CliResult live = RunDiscover({"--live", "--format", "ports"});
  EXPECT_EQ(live.rc, 2);
  EXPECT_EQ(live.err.substr(0, live.err.find('\n')),
            "railctl topology discover: --format reads a capture, not --live; expected one of them");
  std::remove(path.c_str());
}

}  // namespace cli_cmd_discover_test
}  // namespace railguard::cli
