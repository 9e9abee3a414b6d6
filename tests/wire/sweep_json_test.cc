// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the fabric sweep JSON (wire/sweep_json.h): what is written reads back to the same
// document, a real sweep reads whole, the counters part asks for nothing else, and bad input
// names file:line:column and the expected form.
#include "wire/sweep_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace railguard::wire {
namespace wire_sweep_json_test {

SweepEnd EndNamed(const std::string& name, uint64_t guid, int port, bool read) {
  SweepEnd e;
  e.name = name;
  e.guid = guid;
  e.port = port;
  e.lid = 35;
  e.width_active = 1;
  e.width_enabled = 4;
  e.width_supported = 12;
  e.speed_active = "HDR";
  e.speed_enabled = "HDR";
  e.speed_supported = "NDR";
  e.extended_counters = read;
  e.counters_read = read;
  if (read)
    for (int c = 0; c < kSweepCounterCount; ++c) e.counters[c] = c * 1000;
  if (read) e.counters[kSweepCounterCount - 1] = 18446744073709551615ull;
  return e;
}

// Every member the writer writes, traffic included.
SweepDocument Sample() {
  SweepDocument d;
  d.complete = false;
  d.summary = {3,  4, 3139, 1565, 0.505, 1764600000.25, "kept", 1764590000.5, "kept discovery",
               12, 1};
  d.grid = {{"su1", {{"rail0", 2, 1, 1}, {"rail1", 1, 0, 0}}}};
  d.unanswered = {{"su1-rail0", 0x200, 2, "timed-out", "PortCounters of port 2 timed out"}};
  d.missing = {{"su1", "rail1", "h2", "mlx5_3"}};
  SweepLink host;
  host.kind = "host";
  host.su = "su1";
  host.rail = "rail0";
  host.host = "h1";
  host.hca = "mlx5_0";
  host.a = EndNamed("h1 mlx5_0", 0x0c42a10300000100ull, 1, true);
  host.b = EndNamed("su1-rail0", 0x200, 1, false);
  host.a.node_known = host.b.node_known = host.b.is_switch = true;
  host.a.description = "h1 mlx5_0";
  host.b.description = "MF0;su1-rail0:MQM8700/U1";
  host.findings = {{"width", "leaf", "width 1X < 4X (leaf side)"},
                   {"unread", "leaf", "counters of su1-rail0 port 1 not read: timed out"}};
  host.traffic = SweepLinkTraffic{25e9, 0.5, 100, {true, 12.5e9, 0, 0, 0.5, true}, {}};
  SweepLink unknown;
  unknown.kind = "unknown";
  unknown.a = EndNamed("odd \"name\" \\ t\xc3\xbcr", 0xfedcba9876543210ull, 254, true);
  unknown.b = EndNamed("spine1", 0x100, 3, true);
  unknown.findings = {{"errors", "switch", "SymbolErrorCounter 5 on the switch side"}};
  unknown.traffic = SweepLinkTraffic{};
  d.links = {host, unknown};
  d.traffic = SweepTraffic{
      60, 1764599940.25, {{"su1", {{"rail0", 0.5, 0.25, 100, 2, 1}}}}, {{"spine1", 0.125, 0, 2}}};
  return d;
}

// "line:column" of the first `needle` in `text`.
std::string Where(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  const size_t line_start = text.rfind('\n', at);
  const size_t line = std::count(text.begin(), text.begin() + static_cast<long>(at), '\n') + 1;
  const size_t column = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  return std::to_string(line) + ":" + std::to_string(column);
}

// One end in the form kAll reads, with `guid` and `port` as written, counters null.
std::string EndText(const std::string& guid, const std::string& port) {
  return R"({"name": "x", "guid": )" + guid + R"(, "port": )" + port +
         R"(, "lid": 1, "width": {"active": 4, "enabled": 4, "supported": 4}, )"
         R"("speed": {"active": "HDR", "enabled": "HDR", "supported": "HDR"}, )"
         R"("extended_counters": true, "counters": null})";
}

// A whole sweep of `links` (each a JSON object's text, one per line).
std::string SweepText(const std::vector<std::string>& links) {
  std::string s = "{\"complete\": true, \"missing\": [],\n\"links\": [";
  for (size_t i = 0; i < links.size(); ++i) s += (i ? ",\n" : "\n") + links[i];
  return s + "]}";
}

std::string LinkText(const std::string& a, const std::string& b) {
  return R"({"kind": "host", "su": null, "rail": null, "host": null, "hca": null, "findings": [], )"
         R"("a": )" +
         a + R"(, "b": )" + b + "}";
}

const std::string kGood = R"("0x0000000000000200")";

Diags ParseErrors(const std::string& text, SweepParts parts = SweepParts::kAll) {
  SweepDocument d;
  Diags errors;
  EXPECT_FALSE(ParseSweepDocument(text, "s.json", parts, &d, &errors));
  return errors;
}

TEST(SweepJson, WhatIsWrittenReadsBackToTheSameDocument) {
  const std::string text = SweepDocumentToJson(Sample());
  SweepDocument back;
  Diags d;
  ASSERT_TRUE(ParseSweepDocument(text, "s.json", SweepParts::kAll, &back, &d)) << FormatDiags(d);
  EXPECT_EQ(SweepDocumentToJson(back), text);  // the writer writes every member of the document
  EXPECT_FALSE(back.complete);
  EXPECT_EQ(back.summary.switches, 3);
  EXPECT_DOUBLE_EQ(back.summary.time, 1764600000.25);
  ASSERT_EQ(back.links.size(), 2u);
  const SweepLink& l = back.links[0];
  EXPECT_EQ(l.kind, "host");
  EXPECT_EQ(l.hca, "mlx5_0");
  EXPECT_EQ(l.a.guid, 0x0c42a10300000100ull);
  EXPECT_EQ(l.a.width_supported, 12);
  EXPECT_EQ(l.a.speed_supported, "NDR");
  EXPECT_TRUE(l.a.counters_read);
  EXPECT_EQ(l.a.counters[1], 1000u);
  EXPECT_EQ(l.a.counters[kSweepCounterCount - 1], 18446744073709551615ull);
  EXPECT_FALSE(l.b.counters_read);
  EXPECT_TRUE(l.b.node_known && l.b.is_switch && !l.a.is_switch);
  EXPECT_EQ(l.b.description, "MF0;su1-rail0:MQM8700/U1");
  EXPECT_FALSE(back.links[1].a.node_known);  // not written: the end has no node facts
  EXPECT_EQ(back.summary.discovery_kind, "kept");
  EXPECT_DOUBLE_EQ(back.summary.discovery_time, 1764590000.5);
  EXPECT_EQ(back.summary.local_lid, 12);
  EXPECT_EQ(back.summary.sm_lid, 1);
  // kDiscovery reads the same node facts and link states, not the link's own members.
  SweepDocument kept;
  ASSERT_TRUE(ParseSweepDocument(text, "s.json", SweepParts::kDiscovery, &kept, &d))
      << FormatDiags(d);
  EXPECT_EQ(kept.links[0].kind, "");
  EXPECT_EQ(kept.links[0].b.description, "MF0;su1-rail0:MQM8700/U1");
  EXPECT_EQ(kept.links[0].a.width_supported, 12);
  EXPECT_EQ(kept.summary.discovery_reason, "kept discovery");
  ASSERT_EQ(l.findings.size(), 2u);
  EXPECT_EQ(l.findings[1].kind, "unread");
  ASSERT_TRUE(l.traffic);
  EXPECT_TRUE(l.traffic->a.saturated);
  EXPECT_FALSE(l.traffic->b.known);
  EXPECT_EQ(back.links[1].su, "");  // null
  EXPECT_EQ(back.links[1].a.name, "odd \"name\" \\ t\xc3\xbcr");
  EXPECT_EQ(back.links[1].a.port, 254);
  ASSERT_EQ(back.unanswered.size(), 1u);
  EXPECT_EQ(back.unanswered[0].guid, 0x200u);
  ASSERT_TRUE(back.traffic);
  EXPECT_EQ(back.traffic->spines[0].links, 2);
  ASSERT_EQ(back.grid.size(), 1u);
  EXPECT_EQ(back.grid[0].rails[1].rail, "rail1");
}

TEST(SweepJson, TheWriterCountsFindingsAndWritesEachLinkOnOneLine) {
  SweepDocument d = Sample();
  d.summary.time = -1;  // none: left out
  d.traffic.reset();
  d.links.resize(1);
  d.links[0].traffic.reset();
  const std::string text = SweepDocumentToJson(d);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["summary"]["findings"], 2);  // the width finding and the missing HCA
  EXPECT_EQ(j["summary"]["unread"], 1);
  EXPECT_EQ(j["summary"]["links"], 1);
  EXPECT_EQ(j["summary"]["unanswered"], 1);
  EXPECT_FALSE(j["summary"].contains("time"));
  EXPECT_FALSE(j.contains("traffic"));
  EXPECT_EQ(j["findings"][1]["link"], 0);
  EXPECT_EQ(j["findings"][1]["kind"], "unread");
  EXPECT_EQ(j["links"][0]["b"]["counters"], nullptr);
  EXPECT_NE(text.find("\n  \"links\": [\n    {\"kind\":\"host\",\"su\":\"su1\","),
            std::string::npos)
      << text;
  EXPECT_EQ(text.substr(text.size() - 8), "}\n  ]\n}\n");
  SweepDocument none;
  EXPECT_NE(SweepDocumentToJson(none).find("\"links\": []\n}\n"), std::string::npos);
}

TEST(SweepJson, ARealSweepReadsWholeAndWritesBackWhatItHolds) {
  const std::string path =
      std::string(RAILGUARD_SOURCE_DIR) + "/tests/report/data/dev4su_sweep.json";
  SweepDocument d;
  Diags errors;
  ASSERT_TRUE(LoadSweepDocument(path, SweepParts::kAll, &d, &errors)) << FormatDiags(errors);
  EXPECT_EQ(d.links.size(), 43u);
  EXPECT_EQ(d.summary.time, -1);  // written before sweeps had one
  EXPECT_EQ(d.summary.smps, 3139);
  // The fixture is trimmed, so what the writer derives (the summary's counts, the top-level
  // findings with their link indices) differs; everything else is as the sweep wrote it.
  std::ifstream in(path);
  nlohmann::json want = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  nlohmann::json got = nlohmann::json::parse(SweepDocumentToJson(d));
  for (nlohmann::json* j : {&want, &got}) {
    j->erase("findings");
    for (const char* k : {"links", "findings", "unread", "unanswered"}) (*j)["summary"].erase(k);
  }
  EXPECT_EQ(got, want);
}

TEST(SweepJson, TheCountersPartNeedsOnlyGuidPortAndCounters) {
  std::string counters = "{";
  for (int c = 0; c < kSweepCounterCount; ++c)
    counters +=
        std::string(c ? ", " : "") + "\"" + kSweepCounterNames[c] + "\": " + std::to_string(c);
  const std::string text =
      R"({"summary": {"time": 17}, "links": [{"a": {"guid": "0x00000000000000AB", )"
      R"("port": 3, "counters": null}, "b": {"guid": )" +
      kGood + R"(, "port": 1, "counters": )" + counters + "}}}]}";
  SweepDocument d;
  Diags errors;
  ASSERT_TRUE(ParseSweepDocument(text, "s.json", SweepParts::kCounters, &d, &errors))
      << FormatDiags(errors);
  ASSERT_EQ(d.links.size(), 1u);
  EXPECT_EQ(d.links[0].a.guid, 0xabu);
  EXPECT_FALSE(d.links[0].a.counters_read);
  EXPECT_TRUE(d.links[0].b.counters_read);
  EXPECT_EQ(d.links[0].b.counters[16], 16u);
  EXPECT_DOUBLE_EQ(d.summary.time, 17);
  EXPECT_EQ(FormatDiags(ParseErrors(text)),
            "s.json:1:1: no \"missing\" array; expected an array\n");
}

TEST(SweepJson, BadDiscoveryFactsNameFileLineColumnAndTheExpectedForm) {
  const std::string end = EndText(kGood, "1");
  const std::string link = LinkText(end, end.substr(0, end.size() - 1) + R"(, "switch": 1})");
  const std::string text =
      "{\"complete\": true, \"missing\": [],\n\"summary\": {\"discovery\": {\"kind\": \"old\", "
      "\"time\": 1, \"reason\": \"\", \"local_lid\": 1, \"sm_lid\": 1}},\n\"links\": [\n" +
      link + "]}";
  EXPECT_EQ(FormatDiags(ParseErrors(text, SweepParts::kDiscovery)),
            "s.json:2:35: bad \"kind\" 'old'; expected \"new\" or \"kept\"\n"
            "s.json:4:" +
                Where(link, "1}").substr(2) +
                ": bad or missing \"switch\"; expected true or false\n");
  // kCounters reads neither.
  SweepDocument d;
  Diags errors;
  EXPECT_TRUE(ParseSweepDocument(text, "s.json", SweepParts::kCounters, &d, &errors))
      << FormatDiags(errors);
}

TEST(SweepJson, BadInputNamesFileLineColumnAndTheExpectedForm) {
  // JSON syntax.
  Diags e = ParseErrors("{\"links\": [}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].line, 1);
  EXPECT_EQ(e[0].column, 12);
  EXPECT_EQ(FormatDiags(ParseErrors("[1]", SweepParts::kCounters)),
            "s.json:1:1: no \"links\" array; expected the JSON of railctl fabric sweep --json\n");
  // Both ends are read: a bad GUID on one, a bad port on the other.
  std::string text = SweepText({LinkText(EndText("\"0x12\"", "1"), EndText(kGood, "300"))});
  EXPECT_EQ(FormatDiags(ParseErrors(text)),
            "s.json:" + Where(text, "\"0x12\"") +
                ": bad or missing \"guid\"; expected \"0x\" and 16 hex digits\n"
                "s.json:" +
                Where(text, "300") +
                ": bad or missing \"port\"; expected an integer from 1 to 254\n");
  // A problem in a link's own members ends the link.
  text = SweepText({R"({"kind": 3})", LinkText(EndText(kGood, "1"), "7")});
  EXPECT_EQ(FormatDiags(ParseErrors(text)),
            "s.json:3:10: bad or missing \"kind\"; expected a string\n"
            "s.json:" +
                Where(text, "7}") + ": bad or missing \"b\"; expected an object\n");
  // Counters: every name, as a non-negative integer.
  text = SweepText({LinkText(EndText(kGood, "1"), EndText(kGood, "2"))});
  const std::string partial = text.substr(0, text.rfind("null")) + R"({"SymbolErrorCounter": -1})" +
                              text.substr(text.rfind("null") + 4);
  EXPECT_EQ(FormatDiags(ParseErrors(partial)),
            "s.json:" + Where(partial, "-1") +
                ": bad or missing \"SymbolErrorCounter\"; expected a non-negative integer\n");
  const std::string no_counters = text.substr(0, text.rfind(", \"counters\": null")) + "}}]}";
  EXPECT_EQ(
      FormatDiags(ParseErrors(no_counters)),
      "s.json:" +
          Where(no_counters, "{\"name\": \"x\", \"guid\": \"0x0000000000000200\", \"port\": 2") +
          ": no \"counters\"; expected an object or null\n");
  // The summary's time.
  text = R"({"summary": {"time": "noon"}, "links": []})";
  EXPECT_EQ(FormatDiags(ParseErrors(text, SweepParts::kCounters)),
            "s.json:1:22: bad \"summary\": {\"time\"}; expected the sweep's Unix time in seconds, "
            "a number >= 0\n");
  // Optional sections are checked whole when present.
  text =
      "{\"complete\": false, \"missing\": [], \"links\": [],\n"
      "\"traffic\": {\"seconds\": 60, \"previous_time\": 1, \"grid\": [],\n"
      "  \"spines\": [{\"name\": \"spine1\", \"utilization\": \"high\"}]}}";
  EXPECT_EQ(FormatDiags(ParseErrors(text)),
            "s.json:" + Where(text, "\"high\"") +
                ": bad or missing \"utilization\"; expected a number\n");
  text = R"({"complete": true, "missing": [{"su": "su1"}], "links": [], "grid": 3})";
  EXPECT_EQ(FormatDiags(ParseErrors(text)),
            "s.json:" + Where(text, "{\"su\"") + ": bad or missing \"rail\"; expected a string\n" +
                "s.json:" + Where(text, "3}") + ": bad or missing \"grid\"; expected an array\n");
}

TEST(SweepJson, AtMostTwentyProblemsAreReported) {
  std::vector<std::string> links(30, R"({"kind": 3})");
  EXPECT_EQ(ParseErrors(SweepText(links)).size(), 20u);
  SweepDocument d;
  Diags errors;
  EXPECT_FALSE(LoadSweepDocument("/nonexistent/sweep.json", SweepParts::kAll, &d, &errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].ToString().find("/nonexistent/sweep.json"), std::string::npos);
}

}  // namespace wire_sweep_json_test
}  // namespace railguard::wire
