// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the report's firmware section (report/firmware_section.h, issue 13 item 11): the
// fleet's rail NIC firmware per rail from Extra's "fw", the majority and the nodes off it, in
// the text and JSON forms.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report/render.h"
#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_firmware_test {

using namespace testing;

// Extra of a healthy 8-rail node whose NICs run `fw` (one entry per rail).
std::string ExtraWithFw(const std::vector<std::string>& fw) {
  std::string list;
  for (const std::string& v : fw) list += std::string(list.empty() ? "" : ",") + "\"" + v + "\"";
  std::string e = ExtraFor("oooooooo");
  return e.substr(0, e.size() - 2) + ",\"fw\":[" + list + "]}}";
}

Report Build(const Snapshot& s, const topo::Topology& t) {
  return BuildReport(s, "s.json", t, {}, {}, ReportOptions());
}

TEST(ReportFirmware, VersionsPerRailAndTheNodesOffTheMajority) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  const std::vector<std::string> same(8, "28.39.1002");
  for (NodeSnapshot& n : s.nodes) n.extra = ExtraWithFw(same);
  std::vector<std::string> odd = same;
  odd[4] = "28.37.1014";
  Node(&s, N(9))->extra = ExtraWithFw(odd);
  Node(&s, N(17))->extra = ExtraWithFw(odd);
  Node(&s, N(2))->extra = ExtraFor("oooooooo");  // an older railcheck: no "fw"
  const Report r = Build(s, t);
  EXPECT_TRUE(r.problems.empty()) << FormatDiags(r.problems);
  ASSERT_EQ(r.firmware.size(), 8u);
  const FirmwareRail& rail4 = r.firmware[4];
  EXPECT_EQ(rail4.majority, "28.39.1002");
  ASSERT_EQ(rail4.versions.size(), 2u);
  EXPECT_EQ(rail4.versions[0].fw, "28.39.1002");
  EXPECT_EQ(rail4.versions[0].nodes, static_cast<int>(s.nodes.size()) - 3);
  EXPECT_EQ(rail4.versions[1].fw, "28.37.1014");
  EXPECT_EQ(rail4.versions[1].nodes, 2);
  ASSERT_EQ(rail4.differ.size(), 2u);
  EXPECT_EQ(r.nodes[static_cast<size_t>(rail4.differ[0])].name, N(9));
  EXPECT_EQ(r.nodes[static_cast<size_t>(rail4.differ[1])].name, N(17));
  EXPECT_TRUE(r.firmware[0].differ.empty());

  const std::string text = RenderText(r);
  EXPECT_NE(text.find("NIC FIRMWARE PER RAIL"), std::string::npos) << text;
  const size_t at = text.find("\n" + r.rail_names[4] + " ");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string line = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  EXPECT_NE(line.find(" " + r.rail_nics[4] + " "), std::string::npos) << line;
  EXPECT_NE(
      line.find("  28.39.1002 (" + std::to_string(s.nodes.size() - 3) + "), 28.37.1014 (2)  "),
      std::string::npos)
      << line;
  EXPECT_EQ(line.substr(line.size() - 11), " n[009,017]") << line;

  const std::string prom = RenderPrometheus(r);
  EXPECT_NE(prom.find("railguard_rail_firmware_nodes{cluster=\"" + r.cluster +
                      "\",rail=\"4\",fw=\"28.37.1014\",majority=\"0\"} 2\n"),
            std::string::npos)
      << prom;
  EXPECT_NE(prom.find("railguard_node_firmware_off_majority{cluster=\"" + r.cluster +
                      "\",node=\"n017\",rail=\"4\",fw=\"28.37.1014\"} 1\n"),
            std::string::npos)
      << prom;

  const nlohmann::json j = nlohmann::json::parse(RenderJson(r));
  EXPECT_EQ(j["firmware"][4]["majority"], "28.39.1002");
  EXPECT_EQ(j["firmware"][4]["differ"], nlohmann::json::array({N(9), N(17)}));
  EXPECT_EQ(j["firmware"][4]["versions"][1]["nodes"], 2);
}

TEST(ReportFirmware, NoFirmwarePublishedNoSection) {
  const topo::Topology t = DevTopology();
  const Report r = Build(HealthySnapshot(t), t);
  EXPECT_EQ(RenderText(r).find("NIC FIRMWARE"), std::string::npos);
  for (const FirmwareRail& fr : r.firmware) EXPECT_TRUE(fr.versions.empty());
}

TEST(ReportFirmware, ATieHasNoMajorityAndListsEveryNode) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (size_t i = 0; i < s.nodes.size(); ++i)
    s.nodes[i].extra = ExtraWithFw(std::vector<std::string>(8, i % 2 ? "A.1" : "B.2"));
  const Report r = Build(s, t);
  EXPECT_EQ(r.firmware[0].majority, "");
  EXPECT_EQ(r.firmware[0].differ.size(), s.nodes.size());
}

TEST(ReportFirmware, AFwListOfTheWrongLengthIsAnInputProblem) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  Node(&s, N(5))->extra = ExtraWithFw({"28.39.1002"});
  const Report r = Build(s, t);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].message.find("node n005: Extra lists 1 firmware versions (\"fw\"); "
                                       "expected 8"),
            std::string::npos)
      << r.problems[0].message;
  for (const NodeRow& n : r.nodes)
    if (n.name == N(5)) {
      EXPECT_EQ(n.rails.size(), 8u);
    }
}

}  // namespace report_firmware_test
}  // namespace railguard::report
