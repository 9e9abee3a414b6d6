// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the drain budget's alert in the report (issue 23): nodes whose Extra says
// "budget":"over" (a finding that would take them out, left in service because
// health.drain_budget is spent) are counted and listed in all four forms; without them the
// alert is absent (Prometheus: 0).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report/render.h"
#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_budget_alert_test {

using testing::DevTopology;
using testing::RowOf;

// railcheck's Extra for a drain finding on rail 3 left in service over the budget.
std::string OverBudget() {
  std::string e = testing::ExtraFor("ooodoooo");
  const size_t v = e.find("\"verdict\":\"") + 11;
  e.replace(v, e.find('"', v) - v, "drain");
  e.insert(e.size() - 2, ",\"budget\":\"over\"");
  return e;
}

Snapshot StormSnapshot(const topo::Topology& t) {
  Snapshot s = testing::HealthySnapshot(t);
  for (const char* n : {"n003", "n004", "n011"}) testing::Node(&s, n)->extra = OverBudget();
  return s;
}

TEST(ReportDrainBudget, NodesOverTheBudgetAreAnAlertInEveryForm) {
  const topo::Topology t = DevTopology();
  const Report r = testing::Build(StormSnapshot(t), t);
  ASSERT_TRUE(r.problems.empty()) << FormatDiags(r.problems);
  EXPECT_EQ(r.over_budget.size(), 3u);
  EXPECT_TRUE(RowOf(r, "n003").over_budget);
  EXPECT_TRUE(RowOf(r, "n003").attention);
  EXPECT_FALSE(RowOf(r, "n005").over_budget);

  const std::string text = RenderText(r);
  EXPECT_NE(text.find("ALERT: drain budget spent (health.drain_budget): 3 nodes with findings "
                      "stay in service\n  n[003-004,011]\n"),
            std::string::npos)
      << text;
  const nlohmann::json j = nlohmann::json::parse(RenderJson(r));
  EXPECT_EQ(j["summary"]["over_drain_budget"], 3);
  for (const nlohmann::json& n : j["nodes"])
    EXPECT_EQ(n["over_drain_budget"].get<bool>(), n["name"] == "n003" || n["name"] == "n004" ||
                                                      n["name"] == "n011")
        << n["name"];
  const std::string prom = RenderPrometheus(r);
  EXPECT_NE(prom.find("railguard_over_drain_budget_nodes{cluster=\"raildev\"} 3\n"),
            std::string::npos)
      << prom;
  EXPECT_NE(prom.find("railguard_node_over_drain_budget{cluster=\"raildev\",node=\"n011\"} 1\n"),
            std::string::npos);
  const std::string html = RenderHtml(r);
  EXPECT_NE(html.find("<b>3</b><span>over the drain budget, in service</span>"),
            std::string::npos);
  EXPECT_NE(html.find("over the drain budget</span>"), std::string::npos);
}

TEST(ReportDrainBudget, WithinTheBudgetThereIsNoAlert) {
  const topo::Topology t = DevTopology();
  const Report r = testing::Build(testing::HealthySnapshot(t), t);
  EXPECT_TRUE(r.over_budget.empty());
  EXPECT_EQ(RenderText(r).find("drain budget"), std::string::npos);
  EXPECT_NE(RenderPrometheus(r).find("railguard_over_drain_budget_nodes{cluster=\"raildev\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(RenderPrometheus(r).find("railguard_node_over_drain_budget{"), std::string::npos);
}

}  // namespace report_budget_alert_test
}  // namespace railguard::report
