// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for railctl topology validate | show | export, called as railctl calls them.
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

namespace railguard::cli {
namespace cli_topology_cli_test {

const std::string kSrc = RAILGUARD_SOURCE_DIR;
const std::string kDev = kSrc + "/etc/dev-4su.yaml";
const std::string kBroken = kSrc + "/tests/data/topo/broken.yaml";

struct CliRun {
  int rc;
  std::string out;
  std::string err;
};

CliRun Call(int (*cmd)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = cmd(static_cast<int>(argv.size()), argv.data());
  CliRun r{rc, ::testing::internal::GetCapturedStdout(), ::testing::internal::GetCapturedStderr()};
  return r;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(TopologyCli, ValidateSaysOkAndExitsZeroOnAGoodFile) {
  CliRun r = Call(TopologyValidate, {"validate", kDev});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, kDev + ": ok: cluster raildev, 4 scalable units, 32 nodes, 8 rails\n");
}

TEST(TopologyCli, ValidateListsEveryErrorAndExitsOne) {
  CliRun r = Call(TopologyValidate, {"validate", kBroken});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(kBroken + ":18:12: invalid hostlist 'n[004-008': "), std::string::npos);
  EXPECT_NE(r.err.find(kBroken + ":25:5: unknown key 'node_typ' in scalable unit"),
            std::string::npos);
  EXPECT_NE(r.err.find(kBroken + ": 8 errors\n"), std::string::npos) << r.err;
}

TEST(TopologyCli, ValidateJsonCarriesEachErrorWithItsPosition) {
  CliRun r = Call(TopologyValidate, {"validate", kBroken, "--json"});
  EXPECT_EQ(r.rc, 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["valid"].get<bool>());
  ASSERT_EQ(j["errors"].size(), 8u);
  EXPECT_EQ(j["errors"][0]["line"], 5);
  EXPECT_EQ(j["errors"][0]["column"], 34);
}

TEST(TopologyCli, UsageErrorsExitTwo) {
  EXPECT_EQ(Call(TopologyValidate, {"validate"}).rc, 2);
  EXPECT_EQ(Call(TopologyValidate, {"validate", kDev, "--bogus"}).rc, 2);
  EXPECT_EQ(Call(TopologyExport, {"export", kDev}).rc, 2);
  EXPECT_EQ(Call(TopologyExport, {"export", kDev, "--format", "mesh"}).rc, 2);
  EXPECT_EQ(Call(TopologyShow, {"show", kDev, "--format"}).rc, 2);
  CliRun help = Call(TopologyExport, {"export", "--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out.rfind("usage: railctl topology export", 0), 0u);
}

TEST(TopologyCli, ShowListsEveryNodeWithItsUnitTypeAndGpus) {
  CliRun r = Call(TopologyShow, {"show", kDev, "--format", "nodes"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.substr(0, 22), "n001 su1 dgx-h100 8\nn0");
  EXPECT_NE(r.out.find("n032 su4 dgx-h100 8\n"), std::string::npos);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 32);
}

TEST(TopologyCli, ShowNodeGivesItsNicAndLeafPerRail) {
  CliRun r = Call(TopologyShow, {"show", kDev, "--node", "n010", "--json"});
  ASSERT_EQ(r.rc, 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["su"], "su2");
  EXPECT_EQ(j["rails"][5]["nic"], "mlx5_9");
  EXPECT_EQ(j["rails"][5]["leaf"], "su2-rail5");
  CliRun missing = Call(TopologyShow, {"show", kDev, "--node", "n999"});
  EXPECT_EQ(missing.rc, 1);
  EXPECT_EQ(missing.err, "railctl topology show: node 'n999' is not in " + kDev + "\n");
}

TEST(TopologyCli, ExportWritesTheTreeFileAtomically) {
  const std::string out = ::testing::TempDir() + "/topology.conf." + std::to_string(getpid());
  CliRun r = Call(TopologyExport, {"export", kDev, "--format", "tree", "-o", out});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string text = Slurp(out);
  EXPECT_NE(text.find("\nSwitchName=su2 Nodes=n[009-016]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nSwitchName=raildev-spine Switches=su[1-4]\n"), std::string::npos);
  // A broken input leaves the previous export in place.
  CliRun bad = Call(TopologyExport, {"export", kBroken, "--format", "tree", "-o", out});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(Slurp(out), text);
  std::remove(out.c_str());
}

TEST(TopologyCli, ExportBlockGivesOneBlockPerUnitAndPowerOfTwoSizes) {
  CliRun r = Call(TopologyExport, {"export", kSrc + "/etc/superpod-h100.yaml", "--format", "block"});
  ASSERT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("\nBlockName=su4 Nodes=dgx[097-127]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nBlockSizes=31,62,124\n"), std::string::npos) << r.out;
}

// Inputs that never end or are binary: refused or reported with a clear message, and the
// handler returns (railctl read /dev/zero until std::bad_alloc, /dev/urandom forever).
TEST(TopologyCli, ValidateAndDiscoverRefuseDevZeroAndDevUrandom) {
  const std::pair<int (*)(int, char**), std::string> cmds[] = {
      {TopologyValidate, "validate"}, {TopologyDiscover, "discover"}};
  for (const auto& [cmd, name] : cmds) {
    for (const std::string& dev : {std::string("/dev/zero"), std::string("/dev/urandom")}) {
      const CliRun r = Call(cmd, {name, dev});
      EXPECT_EQ(r.rc, 1);
      EXPECT_EQ(r.err, name == "validate"
                           ? dev + ": is a character device; expected a rail topology YAML "
                                   "file (a regular file or a pipe)\n" + dev + ": 1 error\n"
                           : dev + ": is a character device; expected an ibnetdiscover dump (a "
                                   "regular file or a pipe)\n" + dev +
                                 ": 1 error; nothing discovered\n");
    }
  }
}

TEST(TopologyCli, BinaryBytesAreQuotedInTheMessages) {
  const std::string path = ::testing::TempDir() + "/binary_" + std::to_string(getpid());
  std::ofstream(path, std::ios::binary) << std::string("\x7f" "ELF\x02\x01\x00\x1b[2J\n", 11);
  const CliRun d = Call(TopologyDiscover, {"discover", path});
  EXPECT_EQ(d.rc, 1);
  EXPECT_EQ(d.err.substr(0, d.err.find("; expected ")),
            path + ":1: unrecognized line \"\\x7fELF\\x02\\x01\\x00\\x1b[2J\"");
  const CliRun v = Call(TopologyValidate, {"validate", path});
  EXPECT_EQ(v.rc, 1);
  for (const CliRun& r : {d, v}) {
    for (char c : r.err) {
      const unsigned char u = static_cast<unsigned char>(c);
      EXPECT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "raw byte " << int(u) << " in " << r.err;
    }
  }
  std::remove(path.c_str());
}

}  // namespace cli_topology_cli_test
}  // namespace railguard::cli
