// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of what two sweeps give: traffic (utilization, PortXmitWait) per link, SU x rail and
// spine; error growth judged with railcheck's window rule; the Prometheus samples; the options.
#include "fabric/traffic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "fabric/judge.h"
#include "fabric/prometheus.h"
#include "fabric/render.h"
#include "fabric/window.h"
#include "healthcheck/rate_window.h"
#include "tests/fabric/tiny_fabric.h"
#include "topo/topology_yaml.h"

namespace railguard::fabric {
namespace fabric_traffic_test {

using namespace tiny_fabric;  // NOLINT: the fixture's names

constexpr double kPrevTime = 1000, kNow = 1060;  // sweeps 60 s apart
// 4X HDR: 4 lanes x 50 Gb/s = 25e9 bytes/s; PortXmitData words that fill `share` of it in 60 s.
uint64_t Words(double share) { return static_cast<uint64_t>(25e9 * 60 * share / 4); }

topo::Topology TinyTopo() {
  topo::Topology t;
  Diags d;
  EXPECT_TRUE(topo::LoadTopologyString(kYaml, "tiny.yaml", &t, &d)) << FormatDiags(d);
  return t;
}

// The tiny fabric as a finished sweep at kNow: every port read with extended counters, all 0
// but what `set` says ((guid, port) -> counter -> value).
using Values = std::map<std::pair<uint64_t, int>, std::map<int, uint64_t>>;
Sweep SweepWith(const Values& set) {
  Sweep s;
  s.nodes = TinyFabric();
  s.time = kNow;
  for (SweptNode& n : s.nodes) {
    n.status = NodeStatus::kAnswered;
    for (SweptPort& p : n.ports) {
      p.counters_read = p.extended = true;
      auto it = set.find({n.guid, p.port});
      if (it != set.end())
        for (const auto& [c, v] : it->second) p.counters[c] = v;
    }
  }
  return s;
}

SweepBaseline PreviousWith(const Values& set) {
  SweepBaseline b;
  b.time = kPrevTime;
  for (const SweptNode& n : TinyFabric())
    for (const SweptPort& p : n.ports) {
      std::array<uint64_t, kCounterCount> v{};
      auto it = set.find({n.guid, p.port});
      if (it != set.end())
        for (const auto& [c, x] : it->second) v[c] = x;
      b.ports[{n.guid, p.port}] = v;
    }
  return b;
}

const MappedLink* FindLink(const FabricReport& r, const std::string& a, int port, size_t* i) {
  for (*i = 0; *i < r.links.size(); ++*i)
    if (r.links[*i].name_a == a && r.links[*i].a.port == port) return &r.links[*i];
  return nullptr;
}

// h1 mlx5_0 sends at 50% of its link, su1-rail0's uplink carries 25% towards the spine and
// waited 6000 ticks; the spine's port to su1-rail1 was reset (below its previous value).
TEST(Traffic, UtilizationAndXmitWaitPerLinkSuRailAndSpine) {
  const topo::Topology t = TinyTopo();
  const Sweep now = SweepWith({{{HcaGuid(0, 0), 1}, {{kXmitData, 100 + Words(0.5)}}},
                               {{LeafGuid(0), 5}, {{kXmitData, Words(0.25)}, {kXmitWait, 6000}}},
                               {{kSpine, 2}, {{kXmitData, Words(0.1)}}}});
  const SweepBaseline prev = PreviousWith(
      {{{HcaGuid(0, 0), 1}, {{kXmitData, 100}}}, {{kSpine, 2}, {{kXmitData, Words(0.9)}}}});
  const FabricReport r = JudgeSweep(t, now);
  const Traffic tr = ComputeTraffic(t, now, r, prev);
  EXPECT_DOUBLE_EQ(tr.seconds, 60);
  size_t i = 0;
  ASSERT_TRUE(FindLink(r, "h1 mlx5_0", 1, &i));
  EXPECT_DOUBLE_EQ(tr.links[i].capacity_bps, 25e9);
  EXPECT_NEAR(tr.links[i].utilization, 0.5, 1e-9);
  EXPECT_NEAR(tr.links[i].a.xmit_bps, 12.5e9, 1);
  EXPECT_NEAR(tr.links[i].b.utilization, 0, 1e-12);
  ASSERT_TRUE(FindLink(r, "su1-rail0", 5, &i));
  EXPECT_EQ(r.links[i].kind, LinkKind::kUplink);
  EXPECT_NEAR(tr.links[i].utilization, 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(tr.links[i].xmit_wait, 100);
  ASSERT_TRUE(FindLink(r, "su1-rail1", 5, &i));
  EXPECT_NEAR(tr.links[i].b.utilization, 0.1, 1e-9);  // reset: counted from 0
  EXPECT_NEAR(tr.grid[0][0].host_max, 0.5, 1e-9);
  EXPECT_NEAR(tr.grid[0][0].uplink, 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(tr.grid[0][0].uplink_wait, 100);
  EXPECT_EQ(tr.grid[0][0].host_links, 2);
  EXPECT_NEAR(tr.grid[0][1].uplink, 0.1, 1e-9);
  ASSERT_EQ(tr.spines.size(), 1u);
  EXPECT_EQ(tr.spines[0].name, "spine1");
  // Towards the spine 0.25 + 0 of 2 links, from it 0 + 0.1: the busier direction.
  EXPECT_NEAR(tr.spines[0].utilization, 0.125, 1e-9);

  const std::string text = RenderText(t, now, r, &tr);
  EXPECT_NE(text.find("traffic over 60.0 s since the previous sweep:\n"
                      "busiest links (utilization of the busier direction, PortXmitWait/s):\n"
                      "  su1 rail0 h1 mlx5_0 port 1 <-> su1-rail0 port 1: 50.0% h1 mlx5_0 -> "
                      "su1-rail0, xmit wait 0/s\n"
                      "  su1 rail0 su1-rail0 port 5 <-> spine1 port 1: 25.0% su1-rail0 -> spine1, "
                      "xmit wait 100/s\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("su1     50.0%/25.0% 0.0%/10.0%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("PortXmitWait per second per SU x rail (host links / leaf uplinks):\n"
                      "SU      rail0       rail1\n"
                      "su1     0/100       0/0\n"
                      "spine spine1: 12.5% over 2 links, xmit wait 0/s\n"),
            std::string::npos)
      << text;

  const nlohmann::json j = nlohmann::json::parse(RenderJson(t, now, r, &tr));
  EXPECT_DOUBLE_EQ(j["summary"]["time"].get<double>(), kNow);
  const auto& link = j["links"][0];
  EXPECT_EQ(link["host"], "h1");
  EXPECT_NEAR(link["traffic"]["a"]["xmit_bytes_per_second"].get<double>(), 12.5e9, 1);
  EXPECT_NEAR(j["traffic"]["grid"][0]["rails"][0]["uplink_utilization"].get<double>(), 0.25,
              1e-9);
  EXPECT_EQ(j["traffic"]["spines"][0]["name"], "spine1");
}

TEST(Traffic, A32BitDataCounterAtItsMaximumIsSaidToBeAFloor) {
  const topo::Topology t = TinyTopo();
  Sweep now = SweepWith({{{HcaGuid(1, 1), 1}, {{kXmitData, 0xffffffffu}}}});
  for (SweptNode& n : now.nodes)
    for (SweptPort& p : n.ports) p.extended = false;
  const FabricReport r = JudgeSweep(t, now);
  const Traffic tr = ComputeTraffic(t, now, r, PreviousWith({}));
  size_t i = 0;
  ASSERT_TRUE(FindLink(r, "h2 mlx5_3", 1, &i));
  EXPECT_TRUE(tr.links[i].a.saturated);
  EXPECT_NE(RenderTrafficText(t, r, tr).find("(32-bit counter saturated: at least)"),
            std::string::npos);
}

// --- sweep-to-sweep windows -----------------------------------------------------------------

TEST(SweepWindow, ErrorGrowthIsJudgedPerHourAgainstRailchecksLimits) {
  const topo::Topology t = TinyTopo();
  // 60 s apart: rates are over at least an hour (min_rate_interval_seconds, the 1 h window).
  const Sweep now = SweepWith({{{LeafGuid(0), 1}, {{kSymbolErrors, 1000 + 200}}},
                               {{LeafGuid(0), 2}, {{kSymbolErrors, 1000 + 100}}},
                               {{HcaGuid(0, 1), 1}, {{kLocalLinkIntegrityErrors, 1}}},
                               {{LeafGuid(1), 2}, {{kSymbolErrors, 130}}}});
  const SweepBaseline prev = PreviousWith({{{LeafGuid(0), 1}, {{kSymbolErrors, 1000}}},
                                           {{LeafGuid(0), 2}, {{kSymbolErrors, 1000}}},
                                           {{LeafGuid(1), 2}, {{kSymbolErrors, 500}}}});
  SweepWindow w;
  w.previous = &prev;
  w.seconds = kNow - kPrevTime;
  const FabricReport r = JudgeSweep(t, now, nullptr, &w);
  std::vector<std::string> msgs;
  for (const LinkFinding& f : r.findings) msgs.push_back(f.side + ": " + f.message);
  std::sort(msgs.begin(), msgs.end());
  EXPECT_EQ(msgs, (std::vector<std::string>{
                      "host: LocalLinkIntegrityErrors +1 in 1 h; expected no increase on the "
                      "host side (h1 mlx5_3 port 1)",
                      "leaf: SymbolErrorCounter +130 in 1 h (130/h) > limit 120/h on the leaf "
                      "side (su1-rail1 port 2)",
                      "leaf: SymbolErrorCounter +200 in 1 h (200/h) > limit 120/h on the leaf "
                      "side (su1-rail0 port 1)"}));
  // The same counters without the window: every value above 0 is a finding.
  EXPECT_EQ(JudgeSweep(t, now).findings.size(), 4u);
}

TEST(SweepWindow, ConfigLimitsAndALongGapChangeTheVerdict) {
  HealthConfig h;
  h.link_error_limits["symbol_error"] = 1000;
  EXPECT_FALSE(SweepOverLimit(200, 60, *CounterLimit(h, kSymbolErrors), h));
  h.link_error_limits.erase("symbol_error");
  EXPECT_FALSE(CounterLimit(h, kSymbolErrors));
  EXPECT_EQ(*CounterLimit(h, kLinkDowned), 0);
  EXPECT_FALSE(CounterLimit(h, kXmitWait));
  // Railcheck's defaults, by the sysfs names (etc/railguard.yaml).
  const HealthConfig d;
  EXPECT_EQ(*CounterLimit(d, kSymbolErrors), 120);
  EXPECT_EQ(*CounterLimit(d, kLinkErrorRecovery), 10);
  EXPECT_EQ(*CounterLimit(d, kRcvErrors), 10);
  EXPECT_EQ(*CounterLimit(d, kLocalLinkIntegrityErrors), 0);
  EXPECT_EQ(*CounterLimit(d, kExcessiveBufferOverrunErrors), 0);
  EXPECT_EQ(*CounterLimit(d, kVl15Dropped), 100);
  // 200 over 2 h is 100/h: under 120.
  EXPECT_FALSE(SweepOverLimit(200, 7200, 120, HealthConfig()));
  const auto r = SweepOverLimit(300, 7200, 120, HealthConfig());
  ASSERT_TRUE(r);
  EXPECT_EQ(SweepRiseText(*r, 120), " +300 in 2 h (150/h) > limit 120/h");
}

// The sweep window, on the shared rule (config/rate_rule.h), gives railcheck's verdict for the
// one increase two sweeps see (healthcheck/rate_window.h OverLimit over a history of that one
// sample).
TEST(SweepWindow, AgreesWithRailchecksOverLimitForOneIncrease) {
  for (const std::vector<int>& windows : {std::vector<int>{3600, 86400}, {600, 7200}}) {
    for (const int min_interval : {60, 3600}) {
      HealthConfig h;
      h.rate_windows_seconds = windows;
      h.min_rate_interval_seconds = min_interval;
      for (const uint64_t count : {0, 1, 5, 119, 121, 500, 100000}) {
        for (const double elapsed : {10.0, 600.0, 3600.0, 5000.0, 50000.0}) {
          for (const double limit : {0.0, 10.0, 120.0}) {
            const double now = 100000;
            const health::RateHistory hist = {{now - elapsed, now, count}};
            const auto theirs = health::OverLimit(hist, now, limit, h);
            const auto ours = SweepOverLimit(count, elapsed, limit, h);
            ASSERT_EQ(bool(theirs), bool(ours)) << count << " " << elapsed << " " << limit;
            if (ours) {
              EXPECT_DOUBLE_EQ(ours->per_hour, theirs->per_hour);
            }
          }
        }
      }
    }
  }
}

// --- Prometheus -----------------------------------------------------------------------------

TEST(Prometheus, EveryLineParsesAndHoldsTheSweepsValues) {
  const topo::Topology t = TinyTopo();
  Sweep now = SweepWith({{{LeafGuid(1), 2}, {{kSymbolErrors, 42}, {kXmitWait, 7}}},
                         {{HcaGuid(1, 1), 1}, {{kXmitData, Words(0.5)}}}});
  for (SweptPort& p : now.nodes[now.FindNode(HcaGuid(0, 0))].ports) p.link.width_active = 1;
  const FabricReport r = JudgeSweep(t, now);
  const Traffic tr = ComputeTraffic(t, now, r, PreviousWith({}));
  const std::string text = RenderPrometheus(t, now, r, &tr);
  const std::regex help(R"(# HELP ([a-z_]+) .+)"), type(R"(# TYPE ([a-z_]+) (counter|gauge))");
  const std::regex sample(
      R"(([a-z_]+)(\{([a-z_]+="([^"\\]|\\.)*")(,[a-z_]+="([^"\\]|\\.)*")*\})? (-?[0-9.e+-]+))");
  std::set<std::string> families, series;
  std::map<std::string, double> value;
  std::string current;
  size_t lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line); ++lines) {
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      EXPECT_TRUE(families.insert(m[1]).second) << "family twice: " << line;
      current = m[1];
    } else if (std::regex_match(line, m, type)) {
      EXPECT_EQ(m[1], current) << line;
    } else {
      ASSERT_TRUE(std::regex_match(line, m, sample)) << "not a sample line: " << line;
      EXPECT_EQ(m[1], current) << "sample outside its family: " << line;
      const std::string key = line.substr(0, line.rfind(' '));
      EXPECT_TRUE(series.insert(key).second) << "series twice: " << line;
      value[key] = std::stod(line.substr(line.rfind(' ') + 1));
    }
  }
  EXPECT_EQ(text.back(), '\n');
  const std::string leaf_end =
      R"(su="su1",rail="rail1",leaf="su1-rail1",port="2",host="h2",hca="mlx5_3",end="leaf")";
  EXPECT_EQ(value.at("railguard_fabric_port_errors_total{" + leaf_end +
                     R"(,counter="SymbolErrorCounter"})"),
            42);
  EXPECT_EQ(value.at("railguard_fabric_port_xmit_wait_total{" + leaf_end + "}"), 7);
  EXPECT_EQ(value.at(R"(railguard_fabric_port_utilization_ratio{su="su1",rail="rail1",)"
                     R"(leaf="su1-rail1",port="2",host="h2",hca="mlx5_3",end="host"})"),
            0.5);
  EXPECT_EQ(value.at(R"(railguard_fabric_link_width_ok{su="su1",rail="rail0",leaf="su1-rail0",)"
                     R"(port="1",host="h1",hca="mlx5_0"})"),
            0);
  EXPECT_EQ(value.at(R"(railguard_fabric_link_width_ok{su="su1",rail="rail1",leaf="su1-rail1",)"
                     R"(port="2",host="h2",hca="mlx5_3"})"),
            1);
  EXPECT_EQ(value.at("railguard_fabric_sweep_time_seconds"), kNow);
  // 6 links: 12 ends x 12 error counters, and every end's xmit wait.
  size_t errors = 0;
  for (const std::string& s : series) errors += s.rfind("railguard_fabric_port_errors_total", 0) == 0;
  EXPECT_EQ(errors, 12u * 12u);
  EXPECT_EQ(families.size(), 9u);
}

// --- options --------------------------------------------------------------------------------

int RunSweepCli(std::vector<std::string> a, std::string* err) {
  std::vector<char*> argv;
  for (std::string& s : a) argv.push_back(s.data());
  ::testing::internal::CaptureStderr();
  const int rc = cli::FabricSweep(static_cast<int>(argv.size()), argv.data());
  *err = ::testing::internal::GetCapturedStderr();
  return rc;
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

TEST(FabricSweepCli, RejectsConflictingOutputsAndWindowsAndAPreviousSweepWithoutItsTime) {
  std::string err;
  EXPECT_EQ(RunSweepCli({"sweep", "t.yaml", "--json", "--prometheus"}, &err), 2);
  EXPECT_EQ(FirstLine(err), "railctl fabric sweep: --json and --prometheus both given; expected "
                            "at most one output format");
  EXPECT_EQ(RunSweepCli({"sweep", "t.yaml", "--baseline", "a", "--previous", "b"}, &err), 2);
  EXPECT_NE(err.find("--baseline and --previous both given"), std::string::npos) << err;
  EXPECT_EQ(RunSweepCli({"sweep", "t.yaml", "--config", "r.yaml"}, &err), 2);
  EXPECT_EQ(FirstLine(err), "railctl fabric sweep: --config needs --previous; expected "
                            "--previous SWEEP.json --config FILE");

  EXPECT_EQ(RunSweepCli({"sweep", "t.yaml", "--state-dir", "/tmp", "--previous", "b"}, &err), 2);
  EXPECT_NE(err.find("--state-dir with --baseline or --previous"), std::string::npos) << err;

  const std::string dir = ::testing::TempDir();
  const std::string topo = dir + "/traffic_cli_topo.yaml", old = dir + "/traffic_cli_old.json",
                    bad = dir + "/traffic_cli_bad.json";
  std::ofstream(topo) << kYaml;
  std::ofstream(old) << "{\"summary\": {\"seconds\": 1}, \"links\": []}\n";
  std::ofstream(bad) << "{\"summary\": {\"time\": \"yesterday\"},\n \"links\": []}\n";
  EXPECT_EQ(RunSweepCli({"sweep", topo, "--previous", old}, &err), 1);
  EXPECT_EQ(FirstLine(err), "railctl fabric sweep: " + old +
                                ": no \"summary\": {\"time\"}; expected the --json of a sweep "
                                "that records its time (this version of railctl fabric sweep); "
                                "nothing swept");
  EXPECT_EQ(RunSweepCli({"sweep", topo, "--state-dir", topo}, &err), 1);
  EXPECT_EQ(FirstLine(err), "railctl fabric sweep: --state-dir '" + topo +
                                "' is not a folder; expected an existing folder for the sweep "
                                "state");
  EXPECT_EQ(RunSweepCli({"sweep", topo, "--previous", bad}, &err), 1);
  EXPECT_NE(err.find(bad + ":1:22: bad \"summary\": {\"time\"}; expected the sweep's Unix time in "
                           "seconds, a number >= 0"),
            std::string::npos)
      << err;
}

}  // namespace fabric_traffic_test
}  // namespace railguard::fabric
