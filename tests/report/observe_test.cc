// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for observe mode in the report (health.mode: observe): what railcheck says in Extra's
// "would" that it would have done is read per node, counted, and shown in all four forms; a
// cluster in enforce mode (no "would") shows nothing of it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/render.h"
#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_observe_test {

using testing::DevTopology;
using testing::N;
using testing::RowOf;

// railcheck's Extra in observe mode: ExtraFor(rails) with `verdict` and "would": `would` (the
// text of a JSON array).
std::string Observed(const std::string& rails, const std::string& verdict,
                     const std::string& would) {
  std::string e = testing::ExtraFor(rails);
  const size_t v = e.find("\"verdict\":\"") + 11;
  e.replace(v, e.find('"', v) - v, verdict);
  e.insert(e.size() - 2, ",\"would\":" + would);
  return e;
}

// Every node in observe mode; railcheck would drain n001 (rail 3 down; its Prolog: requeue),
// n009 (rail 3 degraded) and n017 (a node check, every rail ok), restrict n002 and resume
// n010, which it drained before observe mode. Slurm was left as it was.
Snapshot ObserveSnapshot(const topo::Topology& t) {
  Snapshot s = testing::HealthySnapshot(t);
  for (NodeSnapshot& n : s.nodes) n.extra = Observed("oooooooo", "ok", "[]");
  testing::Node(&s, "n001")->extra = Observed("oooxoooo", "drain", R"(["drain","requeue"])");
  testing::Node(&s, "n009")->extra = Observed("ooodoooo", "drain", R"(["drain"])");
  std::string gpu = Observed("oooooooo", "drain", R"(["drain"])");
  gpu.replace(gpu.find("\"failed\":[]"), 11, R"("failed":["node:gpu.count"])");
  testing::Node(&s, "n017")->extra = gpu;
  testing::Node(&s, "n002")->extra = Observed("oooooodo", "restrict", R"(["restrict"])");
  NodeSnapshot* n010 = testing::Node(&s, "n010");
  n010->extra = Observed("oooooooo", "ok", R"(["resume"])");
  n010->flags = {"drain"};
  n010->reason = "railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s";
  n010->reason_time = testing::kT - 7200;
  return s;
}

std::vector<std::string> Names(const Report& r, const std::vector<int>& idx) {
  std::vector<std::string> out;
  for (int i : idx) out.push_back(r.nodes[static_cast<size_t>(i)].name);
  return out;
}

TEST(ReportObserveMode, ReadsWouldPerNodeCountsItAndMarksThoseNodesForAttention) {
  const topo::Topology t = DevTopology();
  const Report r = testing::Build(ObserveSnapshot(t), t);
  EXPECT_EQ(r.observe, 32);
  ASSERT_EQ(r.would_nodes.size(), 4u);
  EXPECT_EQ(Names(r, r.would_nodes[0]), (std::vector<std::string>{"n001", "n009", "n017"}));
  EXPECT_EQ(Names(r, r.would_nodes[1]), std::vector<std::string>{"n002"});
  EXPECT_EQ(Names(r, r.would_nodes[2]), std::vector<std::string>{"n001"});
  EXPECT_EQ(Names(r, r.would_nodes[3]), std::vector<std::string>{"n010"});
  const NodeRow& n001 = RowOf(r, "n001");
  EXPECT_TRUE(n001.observe);
  EXPECT_EQ(n001.would, (std::vector<std::string>{"drain", "requeue"}));
  EXPECT_TRUE(n001.Would("requeue"));
  EXPECT_FALSE(n001.Would("restrict"));
  EXPECT_FALSE(n001.drained);  // observe mode: Slurm as it was
  // Every rail ok, not drained: only what railcheck would do makes n017 worth a look.
  EXPECT_TRUE(RowOf(r, "n017").attention);
  EXPECT_TRUE(RowOf(r, "n005").observe);
  EXPECT_TRUE(RowOf(r, "n005").would.empty());
  EXPECT_FALSE(RowOf(r, "n005").attention);
  EXPECT_TRUE(r.problems.empty()) << FormatDiags(r.problems);
}

TEST(ReportObserveMode, RepeatedWordsCountOnceInTheirOrder) {
  const topo::Topology t = DevTopology();
  Snapshot s = testing::HealthySnapshot(t);
  testing::Node(&s, "n003")->extra =
      Observed("oooxoooo", "drain", R"(["requeue","drain","requeue"])");
  const Report r = testing::Build(s, t);
  EXPECT_EQ(RowOf(r, "n003").would, (std::vector<std::string>{"drain", "requeue"}));
  EXPECT_EQ(r.observe, 1);
  EXPECT_EQ(r.would_nodes[0].size(), 1u);
  EXPECT_EQ(r.would_nodes[2].size(), 1u);
}

TEST(ReportObserveMode, AnUnknownWordIsAnInputProblemAndNothingIsShown) {
  const topo::Topology t = DevTopology();
  Snapshot s = testing::HealthySnapshot(t);
  testing::Node(&s, "n003")->extra = Observed("oooxoooo", "drain", R"(["drain","reboot"])");
  const Report r = testing::Build(s, t);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].message.find("node n003: Extra"), std::string::npos)
      << r.problems[0].message;
  EXPECT_NE(r.problems[0].message.find("\"would\" entry \"reboot\""), std::string::npos)
      << r.problems[0].message;
  EXPECT_FALSE(RowOf(r, "n003").observe);
  EXPECT_EQ(r.observe, 0);
  const std::string text = RenderText(r);
  EXPECT_EQ(text.find("OBSERVE MODE"), std::string::npos);
}

TEST(ReportObserveMode, WithoutTheFeatureTheNoteSaysObserveModeSetsNone) {
  const topo::Topology t = DevTopology();
  Snapshot s = ObserveSnapshot(t);
  for (NodeSnapshot& n : s.nodes) n.features = n.features.substr(0, n.features.find(','));
  const Report r = testing::Build(s, t);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes[0],
            "no node has the feature rail_healthy: job_submit/rail does not keep multi-node jobs "
            "off unhealthy nodes, and no node counts as restricted (railcheck in observe mode "
            "sets no feature)");
}

TEST(ReportObserveMode, TextSaysWhatWouldBeDoneAndThatNothingWasChanged) {
  const topo::Topology t = DevTopology();
  const std::string text = RenderText(testing::Build(ObserveSnapshot(t), t));
  EXPECT_NE(text.find("observe mode on 32 of 32 nodes: railcheck changed nothing in Slurm there\n"
                      "  would drain 3 nodes, restrict 1, requeue jobs on 1, resume 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nOBSERVE MODE (32 nodes: what railcheck would have done; nothing was "
                      "changed in Slurm)\n"
                      "  would drain 3 nodes: n[001,009,017]\n"
                      "  would restrict 1 node: n002\n"
                      "  would requeue jobs on 1 node: n001\n"
                      "  would resume 1 node: n010\n"
                      "NODE  SU   WOULD          VERDICT   STATE               FAILED CHECKS\n"
                      "n001  su1  drain,requeue  drain     idle                3:link.errors\n"
                      "n002  su1  restrict       restrict  idle                6:link.errors\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("n017  su3  drain          drain     idle                node:gpu.count\n"),
            std::string::npos)
      << text;
  // Where nodes are listed, a WOULD column says it per node.
  EXPECT_NE(
      text.find("n010  idle+drain          2024-05-01 08:40   2.0h  railcheck  resume         "
                "railcheck: rail3"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("n009  su2  3:degraded            3:link.errors                   drain"
                      "          -\n"),
            std::string::npos)
      << text;
}

TEST(ReportObserveMode, TextSaysWhenObserveModeWouldChangeNothing) {
  const topo::Topology t = DevTopology();
  Snapshot s = testing::HealthySnapshot(t);
  for (int i = 1; i <= 8; ++i) testing::Node(&s, N(i))->extra = Observed("oooooooo", "ok", "[]");
  const std::string text = RenderText(testing::Build(s, t));
  EXPECT_NE(text.find("observe mode on 8 of 32 nodes: railcheck changed nothing in Slurm there\n"
                      "  would change nothing\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nOBSERVE MODE (8 nodes: what railcheck would have done; nothing was "
                      "changed in Slurm)\n  none: no node in observe mode would be drained, "
                      "restricted, requeued or resumed\n"),
            std::string::npos)
      << text;
}

TEST(ReportObserveMode, JsonHasWouldPerNodeAndCountsInTheSummary) {
  const topo::Topology t = DevTopology();
  const nlohmann::json j = nlohmann::json::parse(RenderJson(testing::Build(ObserveSnapshot(t), t)));
  EXPECT_EQ(j["summary"]["observe"],
            nlohmann::json::parse(
                R"({"nodes":32,"would":{"drain":3,"restrict":1,"requeue":1,"resume":1}})"));
  ASSERT_EQ(j["nodes"].size(), 32u);
  EXPECT_EQ(j["nodes"][0]["name"], "n001");
  EXPECT_EQ(j["nodes"][0]["observe"], true);
  EXPECT_EQ(j["nodes"][0]["would"], nlohmann::json::parse(R"(["drain","requeue"])"));
  EXPECT_EQ(j["nodes"][0]["attention"], true);
  EXPECT_EQ(j["nodes"][4]["observe"], true);
  EXPECT_EQ(j["nodes"][4]["would"], nlohmann::json::array());
  EXPECT_EQ(j["nodes"][16]["would"], nlohmann::json::parse(R"(["drain"])"));
}

TEST(ReportObserveMode, HtmlShowsBadgesPerNodeAndTheSummary) {
  const topo::Topology t = DevTopology();
  const std::string html = RenderHtml(testing::Build(ObserveSnapshot(t), t));
  EXPECT_NE(html.find("<div class=\"card c-would\"><b>3</b><span>would drain (observe)</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<section id=\"observe\"><p class=\"observe\"><b>Observe mode</b> on 32 of "
                      "32 nodes: railcheck judged and published their health, and changed "
                      "nothing in Slurm. Would drain 3 nodes: <a href=\"#node-n001\">n001</a>, "
                      "<a href=\"#node-n009\">n009</a>, <a href=\"#node-n017\">n017</a>. Would "
                      "restrict 1 node: <a href=\"#node-n002\">n002</a>. Would requeue jobs on 1 "
                      "node: <a href=\"#node-n001\">n001</a>. Would resume 1 node: "
                      "<a href=\"#node-n010\">n010</a>.</p></section>"),
            std::string::npos);
  // n017's rails are all ok: it gets a drill-down only because railcheck would drain it.
  const size_t n017 = html.find("<details class=\"node\" id=\"node-n017\"");
  ASSERT_NE(n017, std::string::npos);
  const std::string drill = html.substr(n017, html.find("</details>", n017) - n017);
  EXPECT_NE(drill.find("<span class=\"would\">would drain</span></summary>"), std::string::npos)
      << drill;
  EXPECT_NE(drill.find("<dt>observe mode</dt><dd>railcheck would drain; nothing was changed in "
                       "Slurm</dd>"),
            std::string::npos)
      << drill;
  EXPECT_NE(html.find("<span class=\"would\">would drain</span><span class=\"would\">would "
                      "requeue</span></summary>"),
            std::string::npos);
  EXPECT_NE(html.find("6 free, 2 railcheck would act on (observe mode)</summary>"),
            std::string::npos);
}

TEST(ReportObserveMode, PrometheusHasPerNodeSamplesAndAlwaysEveryTotal) {
  const topo::Topology t = DevTopology();
  const std::string text = RenderPrometheus(testing::Build(ObserveSnapshot(t), t));
  EXPECT_NE(text.find("# HELP railguard_observe_nodes "), std::string::npos);
  EXPECT_NE(text.find("# TYPE railguard_observe_nodes gauge\n"
                      "railguard_observe_nodes{cluster=\"raildev\"} 32\n"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE railguard_would_nodes gauge\n"
                      "railguard_would_nodes{cluster=\"raildev\",action=\"drain\"} 3\n"
                      "railguard_would_nodes{cluster=\"raildev\",action=\"restrict\"} 1\n"
                      "railguard_would_nodes{cluster=\"raildev\",action=\"requeue\"} 1\n"
                      "railguard_would_nodes{cluster=\"raildev\",action=\"resume\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("# TYPE railguard_node_would gauge\n"
                "railguard_node_would{cluster=\"raildev\",node=\"n001\",action=\"drain\"} 1\n"
                "railguard_node_would{cluster=\"raildev\",node=\"n001\",action=\"requeue\"} 1\n"
                "railguard_node_would{cluster=\"raildev\",node=\"n002\",action=\"restrict\"} 1\n"
                "railguard_node_would{cluster=\"raildev\",node=\"n009\",action=\"drain\"} 1\n"
                "railguard_node_would{cluster=\"raildev\",node=\"n010\",action=\"resume\"} 1\n"
                "railguard_node_would{cluster=\"raildev\",node=\"n017\",action=\"drain\"} 1\n"
                "# HELP "),
      std::string::npos)
      << text;
}

// Enforce mode (Extra without "would", as every railcheck before observe mode wrote it).
TEST(ReportObserveMode, EnforceModeShowsNothingOfIt) {
  const topo::Topology t = DevTopology();
  Snapshot s = testing::HealthySnapshot(t);
  testing::Fault(&s, "n001", "oooxoooo");
  const Report r = testing::Build(s, t);
  EXPECT_EQ(r.observe, 0);
  for (const std::vector<int>& nodes : r.would_nodes) EXPECT_TRUE(nodes.empty());
  for (const NodeRow& n : r.nodes) {
    EXPECT_FALSE(n.observe) << n.name;
    EXPECT_TRUE(n.would.empty()) << n.name;
  }
  const std::string text = RenderText(r);
  EXPECT_EQ(text.find("observe"), std::string::npos) << text;
  EXPECT_EQ(text.find("OBSERVE"), std::string::npos) << text;
  EXPECT_EQ(text.find("WOULD"), std::string::npos) << text;
  const std::string html = RenderHtml(r);
  EXPECT_EQ(html.find("<section id=\"observe\">"), std::string::npos);
  EXPECT_EQ(html.find("<span class=\"would\">"), std::string::npos);
  EXPECT_EQ(html.find("card c-would"), std::string::npos);
  EXPECT_EQ(html.find("<dt>observe mode</dt>"), std::string::npos);
  EXPECT_EQ(html.find("would act on"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(RenderJson(r));
  EXPECT_EQ(j["summary"]["observe"],
            nlohmann::json::parse(
                R"({"nodes":0,"would":{"drain":0,"restrict":0,"requeue":0,"resume":0}})"));
  EXPECT_EQ(j["nodes"][0]["observe"], false);
  EXPECT_EQ(j["nodes"][0]["would"], nlohmann::json::array());
  // The totals are always there (alerts need a 0), per-node samples never.
  const std::string prom = RenderPrometheus(r);
  EXPECT_NE(prom.find("railguard_observe_nodes{cluster=\"raildev\"} 0\n"), std::string::npos);
  for (const char* action : {"drain", "restrict", "requeue", "resume"})
    EXPECT_NE(prom.find("railguard_would_nodes{cluster=\"raildev\",action=\"" +
                        std::string(action) + "\"} 0\n"),
              std::string::npos)
        << action;
  EXPECT_EQ(prom.find("railguard_node_would{"), std::string::npos);
}

}  // namespace report_observe_test
}  // namespace railguard::report
