// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the four report forms (report/render.h): what each shows, the 100-column text,
// escaping of hostile input in HTML, JSON and Prometheus, and the Prometheus text format.
#include "report/render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "wire/event_log.h"
#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_render_test {

using testing::DevTopology;

// The fixture: a su2 rail-3 leaf fault, a cable, a host, hostile strings, and its history.
Report FixtureReport() {
  const topo::Topology t = DevTopology();
  Snapshot s;
  Diags d;
  EXPECT_TRUE(LoadSnapshotFile(testing::kFaultsSnapshot, &s, &d)) << FormatDiags(d);
  std::vector<wire::HealthEvent> events;
  Diags problems;
  std::string err;
  EXPECT_EQ(wire::ReadEvents(testing::kFaultsEvents, 0, 1e11, &events, &problems, &err),
            wire::EventLogStatus::kOk);
  ReportOptions o;
  o.history_read = true;
  o.history_files = {"events.log"};
  return BuildReport(s, "faults.json", t, events, problems, o);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(RenderText, ShowsTheSuspectsMatrixCapacityAndHistory) {
  const std::string text = RenderText(FixtureReport());
  EXPECT_NE(text.find(" 1. [high] leaf switch su2-rail3 (su2, rail3) or its uplinks: 8 of 8 "
                      "nodes bad on rail3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cable, optic or NIC port: n003 rail5 (mlx5_9) -> su1-rail5 port 3"),
            std::string::npos);
  EXPECT_NE(text.find("su2      8  ok   ok   ok   8d   ok   ok   ok   ok\n"), std::string::npos);
  EXPECT_NE(text.find("all     32     24     15       11           1      1        11  7 (su3)"),
            std::string::npos);
  EXPECT_NE(text.find("largest multi-node job that can start now within one SU: 7 nodes (su3)"),
            std::string::npos);
  EXPECT_NE(text.find("101         bob             4  su1             n003"), std::string::npos);
  EXPECT_NE(text.find("n003          5       6      3         2       0  5\n"), std::string::npos);
  EXPECT_NE(text.find("REPEAT OFFENDERS (at least 2 incidents in 7 days; events less than 1.0h "
                      "apart are one incident)"),
            std::string::npos);
  EXPECT_NE(text.find("fabric sweep: none given (--sweep): leaf ports are guesses, no end named"),
            std::string::npos);
  EXPECT_NE(text.find("rail5 counters at 2024-05-01 10:10 UTC (history): symbol_error 540/h, "
                      "port_rcv_errors 12/h"),
            std::string::npos);
  EXPECT_NE(text.find("INPUT PROBLEMS (4)"), std::string::npos);
}

TEST(RenderText, NoLineIsWiderThan100ColumnsAndControlCharactersAreDefused) {
  const topo::Topology t = DevTopology();
  Snapshot s = testing::HealthySnapshot(t);
  testing::Fault(&s, "n001", "oodooooo");
  NodeSnapshot* n = testing::Node(&s, "n001");
  n->reason = "railcheck: " + std::string(300, 'r') + "\x1b]0;pwned\x07\n\r";
  JobSnapshot j;
  j.id = 1;
  j.state = "running";
  j.nodes = "n001";
  j.name = "\x1b[2J" + std::string(200, 'j');
  j.user = "\xff\xfe";
  s.jobs.push_back(j);
  const std::string text = RenderText(testing::Build(s, t));
  for (const std::string& l : Lines(text)) EXPECT_LE(l.size(), 100u) << l;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find("\xff"), std::string::npos);
}

TEST(RenderText, ManyRailsWrapIntoBlocksThatFit) {
  topo::Topology t = DevTopology();
  while (t.rails.size() < 20) {
    topo::Rail r = t.rails.back();
    r.index = static_cast<int>(t.rails.size());
    r.name = "rail" + std::to_string(r.index);
    t.rails.push_back(r);
    for (topo::ScalableUnit& su : t.sus) su.leaves.push_back({r.index, {}});
  }
  const std::string text = RenderText(testing::Build(testing::HealthySnapshot(t), t));
  for (const std::string& l : Lines(text)) EXPECT_LE(l.size(), 100u) << l;
  EXPECT_NE(text.find("R19"), std::string::npos);
}

TEST(RenderJson, FollowsTheSchema) {
  const nlohmann::json j = nlohmann::json::parse(RenderJson(FixtureReport()));
  EXPECT_EQ(j["schema"], "railguard-report");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["cluster"], "raildev");
  EXPECT_EQ(j["time"], 1714560000);
  EXPECT_EQ(j["summary"]["free"], 15);
  EXPECT_EQ(j["summary"]["largest_job"]["nodes"], 7);
  EXPECT_EQ(j["summary"]["largest_job"]["su"], "su3");
  ASSERT_GE(j["suspects"].size(), 4u);
  const nlohmann::json& top = j["suspects"][0];
  EXPECT_EQ(top["rank"], 1);
  EXPECT_EQ(top["kind"], "leaf");
  EXPECT_EQ(top["leaf"], "su2-rail3");
  EXPECT_EQ(top["su"], "su2");
  EXPECT_EQ(top["rail"], 3);
  EXPECT_EQ(top["nodes"], "n[009-016]");
  EXPECT_TRUE(top["node"].is_null());
  const nlohmann::json& down = j["suspects"][2];  // a rail down ranks before a degraded one
  EXPECT_EQ(down["node"], "n026");
  EXPECT_EQ(down["down"], 1);
  const nlohmann::json& cable = j["suspects"][3];
  EXPECT_EQ(cable["kind"], "cable");
  EXPECT_EQ(cable["node"], "n003");
  EXPECT_EQ(cable["nic"], "mlx5_9");
  EXPECT_EQ(cable["port"], 3);
  ASSERT_GE(j["matrix"].size(), 2u);
  ASSERT_GE(j["matrix"][1]["cells"].size(), 4u);
  const nlohmann::json& cell = j["matrix"][1]["cells"][3];
  EXPECT_EQ(cell["status"], "degraded");
  EXPECT_EQ(cell["degraded"], 8);
  EXPECT_EQ(cell["leaf"], "su2-rail3");
  ASSERT_EQ(j["nodes"].size(), 32u);
  const nlohmann::json& n003 = j["nodes"][2];
  EXPECT_EQ(n003["name"], "n003");
  ASSERT_EQ(n003["rails"].size(), 8u);
  EXPECT_EQ(n003["rails"][5], "degraded");
  ASSERT_GE(n003["failed"].size(), 1u);
  EXPECT_EQ(n003["failed"][0], "rail5:link.errors");
  EXPECT_EQ(n003["restricted_since"], 1714558200);
  ASSERT_GE(n003["history"]["rails"].size(), 1u);
  EXPECT_EQ(n003["history"]["rails"][0]["flaps"]["7d"], 3);
  ASSERT_GE(n003["history"]["rails"][0]["counter_rates"].size(), 1u);
  EXPECT_EQ(n003["history"]["rails"][0]["counter_rates"][0]["per_hour"], 540);
  ASSERT_GE(j["jobs_on_degraded_paths"].size(), 1u);
  EXPECT_EQ(j["jobs_on_degraded_paths"][0]["id"], 101);
  ASSERT_GE(j["history"]["repeat_offenders"].size(), 1u);
  EXPECT_EQ(j["history"]["repeat_offenders"][0]["node"], "n003");
  ASSERT_EQ(j["problems"].size(), 4u);
  EXPECT_EQ(j["problems"][0]["line"], 29);
}

TEST(RenderText, JobsOnASlowOrErringPathAreListedWhenAJobLogWasRead) {
  Report r = FixtureReport();
  EXPECT_EQ(RenderText(r).find("JOBS THAT RAN ON A SLOW"), std::string::npos);  // none read
  EXPECT_NE(RenderJson(r).find("\"jobs_fabric\":null"), std::string::npos);
  wire::JobNodeRecord rec;
  rec.job = 4242;
  rec.node = "n003";
  rec.start = testing::kT - 3600;
  rec.end = testing::kT - 60;
  for (int k = 0; k < 8; ++k) {
    wire::JobRail x;
    x.rail = k;
    x.nic = "mlx5_" + std::to_string(k);
    x.xmit_bytes = x.rcv_bytes = (k == 5 ? 1 : 10) * (uint64_t{1} << 30);
    rec.rails.push_back(x);
  }
  r.jobs_read = true;
  r.jobs_recorded = 2;
  r.jobs_with_findings.push_back(JoinJob(4242, {rec}, nullptr, {}));
  const std::string text = RenderText(r);
  EXPECT_NE(text.find("JOBS THAT RAN ON A SLOW OR ERRING PATH (job log, ended in the last 24h): "
                      "1 of 2 recorded jobs"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  job 4242 on n003, ended "), std::string::npos) << text;
  EXPECT_NE(text.find("    slow: n003 rail5 mlx5_5: carried 2.0 GiB, 10% of the node's median"),
            std::string::npos)
      << text;
  const std::string html = RenderHtml(r);
  EXPECT_NE(html.find("<section id=\"job-paths\">"), std::string::npos);
  EXPECT_NE(html.find("<td>4242</td><td>n003</td>"), std::string::npos);
  const std::string json = RenderJson(r);
  EXPECT_NE(json.find("\"jobs_fabric\":{\"window_seconds\":86400,\"recorded\":2,"),
            std::string::npos)
      << json.substr(json.find("jobs_fabric"), 300);
}

TEST(RenderJson, EscapesHostileStringsAndReplacesInvalidUtf8) {
  const topo::Topology t = DevTopology();
  Snapshot s = testing::HealthySnapshot(t);
  testing::Node(&s, "n001")->flags = {"drain"};
  testing::Node(&s, "n001")->reason = "</script>\"\\\x01\xff";
  const std::string text = RenderJson(testing::Build(s, t));
  EXPECT_EQ(text.find("</script>"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(text);
  ASSERT_GE(j["nodes"].size(), 1u);
  EXPECT_EQ(j["nodes"][0]["reason"], "</script>\"\\\x01\xEF\xBF\xBD");
}

TEST(RenderHtml, IsOneSelfContainedPageWithTheHeatmapAndDrillDowns) {
  const std::string html = RenderHtml(FixtureReport());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* external : {"http://", "https://", " src=\"", "<link", "@import", "url("})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  EXPECT_NE(html.find("<td class=\"cell degraded most\" data-su=\"su2\" data-rail=\"3\" "
                      "data-leaf=\"su2-rail3\" data-ok=\"0\" data-degraded=\"8\" data-down=\"0\""),
            std::string::npos);
  EXPECT_NE(html.find("<details class=\"node\" id=\"node-n009\" data-node=\"n009\">"),
            std::string::npos);
  EXPECT_NE(html.find("<div class=\"panel\" id=\"cell-1-3\">"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#node-n009\">n009</a> degraded: port.rate (leaf port 1)"),
            std::string::npos);
}

TEST(RenderHtml, EscapesEveryTextFromTheInput) {
  const std::string html = RenderHtml(FixtureReport());
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt; swapped DIMM"), std::string::npos);
  EXPECT_NE(html.find("&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("eve&quot;q\\uote"), std::string::npos);
  // Exactly one script element: ours.
  size_t scripts = 0;
  for (size_t p = html.find("<script"); p != std::string::npos; p = html.find("<script", p + 1))
    ++scripts;
  EXPECT_EQ(scripts, 1u);
}

TEST(RenderHtml, EscapingHelpers) {
  EXPECT_EQ(HtmlEscape("<a href='x'>&\"\x01\xff</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;\xEF\xBF\xBD&lt;/a&gt;");
  EXPECT_EQ(NodeAnchor("n009"), "node-n009");
  EXPECT_EQ(NodeAnchor("a\"b<c#d_e"), "node-a_22b_3Cc_23d_5Fe");
}

TEST(RenderPrometheus, EveryLineIsValidExpositionFormat) {
  const std::string text = RenderPrometheus(FixtureReport());
  const std::regex help("# HELP (railguard_[a-z_]+) [^\n]+");
  const std::regex type("# TYPE (railguard_[a-z_]+) gauge");
  const std::regex sample(
      "(railguard_[a-z_]+)(\\{([a-z_]+=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\",?)*\\})? "
      "-?[0-9]+(\\.[0-9]+)?");
  std::set<std::string> typed;
  std::set<std::string> series;
  std::string current;
  for (const std::string& l : Lines(text)) {
    std::smatch m;
    if (std::regex_match(l, m, help)) {
      current = m[1];
    } else if (std::regex_match(l, m, type)) {
      EXPECT_EQ(m[1], current) << "TYPE without its HELP: " << l;
      EXPECT_TRUE(typed.insert(current).second) << "family twice: " << l;
    } else if (std::regex_match(l, m, sample)) {
      EXPECT_EQ(m[1], current) << "sample outside its family: " << l;
      const std::string labels = l.substr(0, l.rfind(' '));
      EXPECT_TRUE(series.insert(labels).second) << "duplicate series: " << l;
    } else {
      ADD_FAILURE() << "not exposition format: " << l;
    }
  }
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("railguard_rail_nodes{cluster=\"raildev\",su=\"su2\",rail=\"3\","
                      "leaf=\"su2-rail3\",state=\"degraded\"} 8\n"),
            std::string::npos);
  EXPECT_NE(text.find("railguard_suspect_nodes{cluster=\"raildev\",rank=\"1\",kind=\"leaf\","
                      "component=\"su2-rail3\",confidence=\"high\",end=\"unknown\"} 8\n"),
            std::string::npos);
  EXPECT_NE(text.find("railguard_su_free_nodes{cluster=\"raildev\",su=\"su3\"} 7\n"),
            std::string::npos);
  EXPECT_NE(text.find("railguard_largest_job_nodes{cluster=\"raildev\",su=\"su3\"} 7\n"),
            std::string::npos);
}

TEST(RenderPrometheus, EscapesLabelValues) {
  const std::string text = RenderPrometheus(FixtureReport());
  EXPECT_NE(text.find("railguard_job_degraded_nodes{cluster=\"raildev\",job=\"101\","
                      "user=\"bob\",name=\"llama-pretrain\"} 1\n"),
            std::string::npos);
  EXPECT_EQ(PrometheusLabelValue("a\"b\\c\nd\xff"), "a\\\"b\\\\c\\nd\xEF\xBF\xBD");
}

TEST(RenderPrometheus, HostileJobNamesStayInsideTheirLabel) {
  const topo::Topology t = DevTopology();
  Snapshot s = testing::HealthySnapshot(t);
  testing::Fault(&s, "n001", "oodooooo");
  JobSnapshot j;
  j.id = 5;
  j.state = "running";
  j.nodes = "n001";
  j.name = "x\"} 1\nrailguard_fake 1\n#";
  j.user = "u\\";
  s.jobs.push_back(j);
  const std::string text = RenderPrometheus(testing::Build(s, t));
  EXPECT_NE(text.find("railguard_job_degraded_nodes{cluster=\"raildev\",job=\"5\",user=\"u\\\\\","
                      "name=\"x\\\"} 1\\nrailguard_fake 1\\n#\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\nrailguard_fake"), std::string::npos);
}

}  // namespace report_render_test
}  // namespace railguard::report
