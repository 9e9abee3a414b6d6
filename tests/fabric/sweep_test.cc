// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the fabric sweep: the counter phase over a fake FabricSource (bounded window, mute
// nodes, deadline, extended counters), the mapping and judgement in rail terms, the output.
#include "fabric/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "fabric/baseline.h"
#include "fabric/ibmad_source.h"
#include "fabric/judge.h"
#include "fabric/render.h"
#include "tests/fabric/tiny_fabric.h"
#include "topo/topology_yaml.h"
#include "wire/sweep_json.h"

namespace railguard::fabric {
namespace fabric_sweep_test {

using namespace tiny_fabric;  // NOLINT: the fixture's names

// A PMA that answers from a table, with mute LIDs and a delay per reply.
class FakeSource : public FabricSource {
 public:
  explicit FakeSource(std::vector<SweptNode> nodes) : nodes_(std::move(nodes)) {}

  bool Discover(std::vector<SweptNode>* nodes, int* smps, std::string*) override {
    *nodes = nodes_;
    *smps = 7;
    ++discoveries;
    return true;
  }
  bool Open(std::string*) override { return true; }
  bool LocalPort(int* lid, int* sm_lid, std::string* err) override {
    if (local_lid < 0) {
      *err = "no port";
      return false;
    }
    *lid = local_lid;
    *sm_lid = sm_lid_;
    return true;
  }
  bool Send(const PmaRequest& q, int, std::string*) override {
    sent.push_back(q);
    outstanding.insert(q.tid);
    max_outstanding = std::max(max_outstanding, outstanding.size());
    if (mute.count(q.lid) || (mute_ext.count(q.lid) && q.attr == PmaAttr::kPortCountersExtended))
      return true;  // never answered
    PmaReply r;
    r.tid = q.tid;
    r.ok = true;
    r.capmask = capmask;
    if (q.attr == PmaAttr::kNodeInfo) {  // the node that has the LID now, else no reply
      const SweptNode* owner = nullptr;
      for (const SweptNode& n : nodes_)
        if (n.lid == q.lid || std::count(n.port_lids.begin(), n.port_lids.end(), q.lid)) owner = &n;
      if (!owner) return true;
      r.node_guid = owner->guid;
    }
    auto it = counters.find({q.lid, q.port});
    if (it != counters.end()) std::copy(it->second.begin(), it->second.end(), r.counters);
    if (q.attr == PmaAttr::kPortCountersExtended) r.counters[kXmitData] = 1ull << 40;
    replies.push_back(r);
    return true;
  }
  int Receive(int timeout_ms, PmaReply* r, std::string*) override {
    if (replies.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      return 0;
    }
    if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    *r = replies.front();
    replies.pop_front();
    outstanding.erase(r->tid);
    return 1;
  }

  std::set<int> mute, mute_ext;  // LIDs that never answer (anything / PortCountersExtended)
  int local_lid = 1, sm_lid_ = 1;  // what LocalPort says; local_lid < 0: it fails
  int discoveries = 0;
  uint16_t capmask = 0;
  int delay_ms = 0;
  std::map<std::pair<int, int>, std::vector<uint64_t>> counters;  // (lid, port) -> values
  std::vector<PmaRequest> sent;
  std::set<uint32_t> outstanding;
  size_t max_outstanding = 0;

  // The SM gave the HCAs at LIDs `a` and `b` each other's LID (discovery sees it too).
  void SwapLids(int a, int b) {
    for (SweptNode& n : nodes_)
      for (int& lid : n.port_lids) lid = lid == a ? b : lid == b ? a : lid;
    for (SweptNode& n : nodes_)
      if (!n.is_switch && !n.port_lids.empty()) n.lid = n.port_lids[0];
  }

 private:
  std::vector<SweptNode> nodes_;
  std::deque<PmaReply> replies;
};

topo::Topology Tiny() {
  topo::Topology t;
  Diags d;
  EXPECT_TRUE(topo::LoadTopologyString(kYaml, "tiny.yaml", &t, &d)) << FormatDiags(d);
  return t;
}

std::vector<uint64_t> WithCounter(int counter, uint64_t value) {
  std::vector<uint64_t> v(kCounterCount, 0);
  v[counter] = value;
  return v;
}

TEST(FabricSweep, ReadsTheCountersOfEveryPortOfEverySwitchAndHca) {
  FakeSource src(TinyFabric());
  src.counters[{2, 1}] = WithCounter(kSymbolErrors, 42);
  Sweep s;
  std::string err;
  ASSERT_TRUE(RunSweep(&src, SweepOptions(), &s, &err)) << err;
  EXPECT_FALSE(s.partial);
  EXPECT_EQ(s.smps, 7);
  // 7 nodes: one ClassPortInfo each, one PortCounters per linked port (2 + 3 + 3 + 4 x 1).
  EXPECT_EQ(s.mads, 7 + 12);
  EXPECT_EQ(src.sent.size(), 19u);
  ASSERT_TRUE(s.nodes[0].is_switch);  // switches first
  for (const SweptNode& n : s.nodes) {
    EXPECT_EQ(n.status, NodeStatus::kAnswered) << n.description;
    for (const SweptPort& p : n.ports) EXPECT_TRUE(p.counters_read);
  }
  const SweptNode& leaf0 = s.nodes[s.FindNode(LeafGuid(0))];
  EXPECT_EQ(leaf0.ports[0].counters[kSymbolErrors], 42u);
  EXPECT_FALSE(leaf0.ports[0].extended);
}

TEST(FabricSweep, NeverHasMoreQueriesOutstandingThanMaxInFlight) {
  for (int window : {1, 2, 3}) {
    FakeSource src(TinyFabric());
    SweepOptions opts;
    opts.max_in_flight = window;
    Sweep s;
    std::string err;
    ASSERT_TRUE(RunSweep(&src, opts, &s, &err));
    EXPECT_EQ(src.max_outstanding, static_cast<size_t>(window));
    EXPECT_FALSE(s.partial);
  }
}

TEST(FabricSweep, MuteSwitchGivesAPartialResultThatNamesItWithinItsTimeLimit) {
  FakeSource src(TinyFabric());
  src.capmask = kPmaExtWidthSupported;
  src.mute_ext.insert(3);  // leaf of rail 1: answers ClassPortInfo and PortCounters only
  SweepOptions opts;
  opts.mad_timeout_ms = 50;
  opts.switch_timeout_ms = 200;
  Sweep s;
  std::string err;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunSweep(&src, opts, &s, &err));
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  EXPECT_LT(ms, 1000);
  EXPECT_TRUE(s.partial);
  const SweptNode& mute = s.nodes[s.FindNode(LeafGuid(1))];
  EXPECT_EQ(mute.status, NodeStatus::kTimedOut);
  EXPECT_EQ(mute.error, "PortCountersExtended of port 1: no reply within 50 ms");
  EXPECT_FALSE(mute.ports[0].counters_read);
  EXPECT_FALSE(mute.ports[1].counters_read);
  for (const SweptNode& n : s.nodes)
    if (n.guid != LeafGuid(1)) {
      EXPECT_EQ(n.status, NodeStatus::kAnswered) << n.description;
    }
  const std::string text = RenderText(Tiny(), s, JudgeSweep(Tiny(), s));
  // 7 ClassPortInfo + 2 queries for each of 12 ports, less the 4 the mute leaf never got.
  EXPECT_NE(text.find("6 links, 0 findings; 7 SMPs, 27 PMA MADs"), std::string::npos) << text;
  EXPECT_NE(text.find("PARTIAL"), std::string::npos) << text;
  EXPECT_NE(text.find("su1     ok    ok?\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("unread ("), std::string::npos) << text;  // the node line says it once
  EXPECT_NE(text.find("  su1-rail1 (0x0000000000000201, LID 3) timed-out: "
                      "PortCountersExtended of port 1: no reply within 50 ms\n"),
            std::string::npos)
      << text;
}

TEST(FabricSweep, NodesNotBegunByTheDeadlineAreNotReached) {
  FakeSource src(TinyFabric());
  src.delay_ms = 30;
  SweepOptions opts;
  opts.max_in_flight = 1;
  opts.deadline_ms = 50;
  Sweep s;
  std::string err;
  ASSERT_TRUE(RunSweep(&src, opts, &s, &err));
  EXPECT_TRUE(s.partial);
  EXPECT_EQ(s.nodes.back().status, NodeStatus::kNotReached);
  EXPECT_EQ(s.nodes.back().error, "sweep deadline of 50 ms passed first");
  EXPECT_LT(src.sent.size(), 19u);
}

TEST(FabricSweep, DataCountersComeFromPortCountersExtendedWhenThePmaHasIt) {
  FakeSource src(TinyFabric());
  src.capmask = kPmaExtWidthSupported;
  Sweep s;
  std::string err;
  ASSERT_TRUE(RunSweep(&src, SweepOptions(), &s, &err));
  EXPECT_EQ(s.mads, 7 + 2 * 12);
  const SweptPort& p = s.nodes[0].ports[0];
  EXPECT_TRUE(p.extended);
  EXPECT_EQ(p.counters[kXmitData], 1ull << 40);
}

// The discovery `s` recorded, read back as the next sweep reads it: through the sweep JSON.
KeptDiscovery KeptOf(const Sweep& s) {
  const topo::Topology t = Tiny();
  const std::string json = RenderJson(t, s, JudgeSweep(t, s));
  wire::SweepDocument d;
  Diags errors;
  EXPECT_TRUE(
      wire::ParseSweepDocument(json, "last-sweep.json", wire::SweepParts::kDiscovery, &d, &errors))
      << FormatDiags(errors);
  KeptDiscovery kept;
  std::string why;
  EXPECT_TRUE(KeptDiscoveryOf(d, &kept, &why)) << why;
  return kept;
}

// A first sweep of the tiny fabric with extended counters, and its kept discovery.
struct FirstSweep {
  FakeSource src{TinyFabric()};
  Sweep first;
  KeptDiscovery kept;
  FirstSweep() {
    src.capmask = kPmaExtWidthSupported;
    src.counters[{2, 1}] = WithCounter(kSymbolErrors, 42);
    std::string err;
    EXPECT_TRUE(RunSweep(&src, SweepOptions(), &first, &err)) << err;
    kept = KeptOf(first);
    src.sent.clear();
  }
  Sweep Again(const SweepOptions& opts = SweepOptions()) {
    Sweep s;
    std::string err;
    EXPECT_TRUE(RunSweep(&src, opts, &s, &err, &kept)) << err;
    return s;
  }
};

TEST(FabricSweep, FindNodeFindsEveryNodeInSweepOrderAndInAnyOther) {
  FakeSource src(TinyFabric());
  Sweep s;
  std::string err;
  ASSERT_TRUE(RunSweep(&src, SweepOptions(), &s, &err));
  for (size_t i = 0; i < s.nodes.size(); ++i) EXPECT_EQ(s.FindNode(s.nodes[i].guid), int(i));
  EXPECT_EQ(s.FindNode(0x999), -1);
  std::reverse(s.nodes.begin(), s.nodes.end());  // not RunSweep's order: still found
  for (size_t i = 0; i < s.nodes.size(); ++i) EXPECT_EQ(s.FindNode(s.nodes[i].guid), int(i));
  EXPECT_EQ(s.FindNode(0x999), -1);
}

TEST(FabricKeptDiscovery, ASweepKeepsTheLastDiscoveryAndReadsOnlyCounters) {
  FirstSweep f;
  EXPECT_FALSE(f.first.kept);
  EXPECT_EQ(f.first.discovery_reason, "no earlier discovery to keep");
  EXPECT_EQ(f.kept.nodes.size(), 7u);
  f.src.counters[{2, 1}] = WithCounter(kSymbolErrors, 50);
  const Sweep s = f.Again();
  EXPECT_TRUE(s.kept);
  EXPECT_EQ(f.src.discoveries, 1);
  // One NodeInfo per node at its kept LID, then no ClassPortInfo: PortCounters and
  // PortCountersExtended of the 12 linked ports only.
  EXPECT_EQ(s.smps, 7);
  EXPECT_EQ(s.mads, 2 * 12);
  int node_infos = 0;
  for (const PmaRequest& q : f.src.sent) {
    EXPECT_NE(q.attr, PmaAttr::kClassPortInfo);
    node_infos += q.attr == PmaAttr::kNodeInfo;
  }
  EXPECT_EQ(node_infos, 7);
  EXPECT_DOUBLE_EQ(s.discovered, f.first.discovered);
  EXPECT_EQ(s.discovery_reason.rfind("from a discovery ", 0), 0u) << s.discovery_reason;
  EXPECT_FALSE(s.partial);
  // The same fabric as a new discovery sees it, with this sweep's counters.
  ASSERT_EQ(s.nodes.size(), f.first.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const SweptNode &a = s.nodes[i], &b = f.first.nodes[i];
    EXPECT_EQ(a.guid, b.guid);
    EXPECT_EQ(a.description, b.description);
    EXPECT_EQ(a.lid, b.lid);
    EXPECT_EQ(a.port_lids, b.port_lids);
    ASSERT_EQ(a.ports.size(), b.ports.size());
    for (size_t e = 0; e < a.ports.size(); ++e) {
      EXPECT_EQ(a.ports[e].peer_guid, b.ports[e].peer_guid);
      EXPECT_EQ(a.ports[e].link.speed_active, b.ports[e].link.speed_active);
      EXPECT_TRUE(a.ports[e].counters_read && a.ports[e].extended);
    }
  }
  EXPECT_EQ(s.nodes[s.FindNode(LeafGuid(0))].ports[0].counters[kSymbolErrors], 50u);
  // The judgement and the text are the same as after a discovery.
  const topo::Topology t = Tiny();
  const std::string text = RenderText(t, s, JudgeSweep(t, s));
  EXPECT_NE(text.find("\ndiscovery: kept from a discovery "), std::string::npos) << text;
  EXPECT_NE(text.find("SymbolErrorCounter 50 on the leaf side"), std::string::npos) << text;
}

TEST(FabricKeptDiscovery, ALinkThatWentDownOrRetrainedMakesTheSweepDiscoverAgain) {
  for (int counter : {kLinkDowned, kLinkErrorRecovery}) {
    FirstSweep f;
    f.src.counters[{10, 1}] = WithCounter(counter, 1);  // the first HCA's port
    const Sweep s = f.Again();
    EXPECT_FALSE(s.kept);
    EXPECT_EQ(f.src.discoveries, 2);
    EXPECT_EQ(s.smps, 7 + 7);  // the LID checks, then the discovery
    EXPECT_EQ(s.discovery_reason, std::string(kCounterNames[counter]) +
                                      " of 'h1 mlx5_0' (0x0000000000001000) port 1 went from 0 "
                                      "to 1");
    // The counters read at the kept LIDs stand (the new discovery has every node at the same
    // LIDs): nothing is read twice.
    EXPECT_EQ(s.mads, 2 * 12);
    EXPECT_FALSE(s.partial);
    EXPECT_EQ(s.nodes[s.FindNode(HcaGuid(0, 0))].ports[0].counters[counter], 1u);
  }
}

TEST(FabricKeptDiscovery, ANodeThatDoesNotAnswerAtItsKeptLidMakesTheSweepDiscoverAgain) {
  FirstSweep f;
  f.src.mute.insert(11);  // h2 mlx5_0, gone or at another LID
  SweepOptions opts;
  opts.mad_timeout_ms = 20;
  const Sweep s = f.Again(opts);
  EXPECT_FALSE(s.kept);
  EXPECT_EQ(f.src.discoveries, 2);
  EXPECT_NE(s.discovery_reason.find("did not answer"), std::string::npos) << s.discovery_reason;
  EXPECT_EQ(s.discovery_reason,
            "'h2 mlx5_0' (0x0000000000001010) did not answer: NodeInfo at LID 11: no reply "
            "within 20 ms");
  // Only the mute node is asked again, from ClassPortInfo on, as a newly discovered node, and
  // it is still mute: the sweep is partial and names it. 22 PMA queries to the others, one
  // ClassPortInfo to it.
  EXPECT_TRUE(s.partial);
  EXPECT_EQ(s.nodes[s.FindNode(HcaGuid(1, 0))].status, NodeStatus::kTimedOut);
  EXPECT_EQ(s.mads, 22 + 1);
}

TEST(FabricKeptDiscovery, ANodeMuteInTheKeptSweepTooDoesNotMakeEverySweepDiscover) {
  FakeSource src(TinyFabric());
  src.mute.insert(11);  // h2 mlx5_0's management does not answer, from the first sweep on
  SweepOptions opts;
  opts.mad_timeout_ms = 20;
  Sweep first;
  std::string err;
  ASSERT_TRUE(RunSweep(&src, opts, &first, &err));
  ASSERT_TRUE(first.partial);
  const KeptDiscovery kept = KeptOf(first);
  Sweep s;
  ASSERT_TRUE(RunSweep(&src, opts, &s, &err, &kept));
  EXPECT_TRUE(s.kept) << s.discovery_reason;
  EXPECT_EQ(src.discoveries, 1);
  // Still partial, the node still named.
  EXPECT_TRUE(s.partial);
  EXPECT_EQ(s.nodes[s.FindNode(HcaGuid(1, 0))].error, "NodeInfo at LID 11: no reply within 20 ms");
}

TEST(FabricKeptDiscovery, LidsGivenOutAgainAreFoundBeforeACounterIsPinnedOnTheWrongNode) {
  FirstSweep f;
  f.src.SwapLids(10, 11);  // h1 mlx5_0 and h2 mlx5_0 (an SM restarted without its LID cache)
  f.src.counters[{10, 1}] = WithCounter(kSymbolErrors, 7);  // now h2 mlx5_0's port
  const Sweep s = f.Again();
  EXPECT_FALSE(s.kept);
  EXPECT_EQ(f.src.discoveries, 2);
  EXPECT_EQ(s.discovery_reason,
            "'h1 mlx5_0' (0x0000000000001000) did not answer: LID 10 answers NodeInfo as "
            "0x0000000000001010, another node (LIDs given out again?)");
  // Read again at the LIDs the new discovery found: the errors on h2 mlx5_0, none on h1.
  EXPECT_FALSE(s.partial);
  EXPECT_EQ(s.nodes[s.FindNode(HcaGuid(1, 0))].ports[0].counters[kSymbolErrors], 7u);
  EXPECT_EQ(s.nodes[s.FindNode(HcaGuid(0, 0))].ports[0].counters[kSymbolErrors], 0u);
  EXPECT_EQ(s.nodes[s.FindNode(HcaGuid(1, 0))].lid, 10);
}

TEST(FabricKeptDiscovery, AnOldDiscoveryOrANewSmLidIsNotKept) {
  {
    FirstSweep f;
    f.kept.time -= 1000;
    SweepOptions opts;
    opts.rediscover_after_s = 900;
    const Sweep s = f.Again(opts);
    EXPECT_FALSE(s.kept);
    EXPECT_EQ(f.src.discoveries, 2);
    EXPECT_EQ(s.discovery_reason, "the kept discovery is 1000 s old (rediscover after 900 s)");
    EXPECT_EQ(s.mads, 7 + 2 * 12);  // a sweep as without a kept discovery
  }
  {
    FirstSweep f;
    f.src.sm_lid_ = 5;
    const Sweep s = f.Again();
    EXPECT_FALSE(s.kept);
    EXPECT_EQ(s.discovery_reason,
              "the SM's LID changed from 1 to 5 (a new SM may have given out new LIDs)");
  }
  {
    FirstSweep f;
    SweepOptions opts;
    opts.rediscover_after_s = 0;
    EXPECT_EQ(f.Again(opts).discovery_reason, "discovery on every sweep (rediscover after 0 s)");
  }
  {
    FirstSweep f;
    f.src.local_lid = -1;
    EXPECT_EQ(f.Again().discovery_reason, "this port's LID and its SM's LID are unknown: no port");
  }
}

TEST(FabricKeptDiscovery, ASweepThatRecordsNoDiscoveryOrContradictsItselfIsNotKept) {
  FirstSweep f;
  const topo::Topology t = Tiny();
  wire::SweepDocument d;
  Diags errors;
  ASSERT_TRUE(wire::ParseSweepDocument(RenderJson(t, f.first, JudgeSweep(t, f.first)), "s.json",
                                       wire::SweepParts::kDiscovery, &d, &errors));
  KeptDiscovery kept;
  std::string why;
  wire::SweepDocument old = d;
  old.summary.discovery_kind.clear();
  EXPECT_FALSE(KeptDiscoveryOf(old, &kept, &why));
  EXPECT_EQ(why, "it records no discovery (written by an older railctl)");
  wire::SweepDocument bare = d;
  bare.links[0].b.node_known = false;
  EXPECT_FALSE(KeptDiscoveryOf(bare, &kept, &why));
  EXPECT_NE(why.find("has no \"switch\" and \"description\""), std::string::npos) << why;
  wire::SweepDocument two = d;
  two.links[1].a.description = "someone else";
  two.links[1].a.guid = two.links[0].a.guid;
  EXPECT_FALSE(KeptDiscoveryOf(two, &kept, &why));
  EXPECT_NE(why.find("is described two ways"), std::string::npos) << why;
}

Sweep Swept(FakeSource* src) {
  Sweep s;
  std::string err;
  EXPECT_TRUE(RunSweep(src, SweepOptions(), &s, &err)) << err;
  return s;
}

TEST(FabricJudge, MapsLinksToHostRailLeafPortAndLeafSpinePort) {
  FakeSource src(TinyFabric());
  const topo::Topology t = Tiny();
  const Sweep s = Swept(&src);
  const FabricReport r = JudgeSweep(t, s);
  ASSERT_EQ(r.links.size(), 6u);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_TRUE(r.missing.empty());
  const MappedLink& h = r.links[1];  // su1 rail0, second host
  EXPECT_EQ(h.kind, LinkKind::kHost);
  EXPECT_EQ(h.host, "h2");
  EXPECT_EQ(h.hca, "mlx5_0");
  EXPECT_EQ(h.rail, 0);
  EXPECT_EQ(h.su, 0);
  EXPECT_EQ(h.name_b, "su1-rail0");
  EXPECT_EQ(h.b.port, 2);
  const MappedLink& u = r.links[5];  // the uplink of rail 1's leaf
  EXPECT_EQ(u.kind, LinkKind::kUplink);
  EXPECT_EQ(u.name_a, "su1-rail1");
  EXPECT_EQ(u.a.port, 5);
  EXPECT_EQ(u.name_b, "spine1");
  EXPECT_EQ(u.b.port, 2);
}

// TinyFabric with a core switch (LID 4) above its spine: spine port 6 <-> core port 1.
std::vector<SweptNode> WithCore() {
  std::vector<SweptNode> nodes = TinyFabric();
  SweptNode core;
  core.guid = 0x300;
  core.is_switch = true;
  core.description = "MF0;core1:MQM9790/U1";
  core.lid = 4;
  core.ports.push_back(PortTo(1, kSpine, 6));
  nodes[0].ports.push_back(PortTo(6, core.guid, 1));
  nodes.push_back(core);
  return nodes;
}

TEST(FabricJudge, ASwitchAboveTheSpinesIsACoreSwitchWhoseLinksNameTheCoreEnd) {
  // Once by its structure (the YAML lists no cores), once by the YAML's name for it.
  const topo::Topology by_structure = Tiny();
  topo::Topology with_cores = Tiny();
  with_cores.cores.push_back({"top-a", "0x0000000000000300", 8});
  const topo::Topology& listed = with_cores;
  for (const topo::Topology* t : {&by_structure, &listed}) {
    FakeSource src(WithCore());
    src.counters[{4, 1}] = WithCounter(kSymbolErrors, 9);  // the core's port to the spine
    const Sweep s = Swept(&src);
    const FabricReport r = JudgeSweep(*t, s);
    ASSERT_EQ(r.links.size(), 7u);
    const MappedLink& c = r.links[6];  // host links, uplinks, then core links
    EXPECT_EQ(c.kind, LinkKind::kCore);
    EXPECT_EQ(c.name_a, "spine1");
    EXPECT_EQ(c.a.port, 6);
    const std::string core = t == &listed ? "top-a" : "core1";
    EXPECT_EQ(c.name_b, core);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].side, "core");
    EXPECT_EQ(r.findings[0].message, "SymbolErrorCounter 9 on the core side (" + core + " port 1)");
    EXPECT_NE(RenderJson(*t, s, r).find("\"kind\":\"core\""), std::string::npos);
  }
}

TEST(FabricJudge, ErrorCountersNameTheEndThatCountsThem) {
  FakeSource src(TinyFabric());
  src.counters[{3, 2}] = WithCounter(kSymbolErrors, 42);  // leaf of rail 1, port 2 (h2)
  src.counters[{10, 1}] = WithCounter(kLinkDowned, 3);    // h1 mlx5_0
  src.counters[{1, 1}] = WithCounter(kXmitWait, 1000);    // traffic, not an error
  const topo::Topology t = Tiny();
  const Sweep s = Swept(&src);
  const FabricReport r = JudgeSweep(t, s);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, "errors");
  EXPECT_EQ(r.findings[0].side, "host");
  EXPECT_EQ(r.findings[0].message, "LinkDownedCounter 3 on the host side (h1 mlx5_0 port 1)");
  EXPECT_EQ(r.findings[1].side, "leaf");
  EXPECT_EQ(r.findings[1].message, "SymbolErrorCounter 42 on the leaf side (su1-rail1 port 2)");
  const std::string text = RenderText(t, s, r);
  EXPECT_NE(text.find("SU      rail0 rail1\nsu1     1     1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("errors (leaf side): su1 rail1 h2 mlx5_3 port 1 <-> su1-rail1 port 2: "
                      "SymbolErrorCounter 42 on the leaf side (su1-rail1 port 2)\n"),
            std::string::npos)
      << text;
}

TEST(FabricJudge, WidthDownNamesTheEndThatEnablesLess) {
  std::vector<SweptNode> nodes = TinyFabric();
  for (SweptNode& n : nodes) {
    for (SweptPort& p : n.ports) {
      if (n.guid == LeafGuid(0) && p.port == 1) p.link.width_enabled = 1;  // switch side 1X
      if ((n.guid == LeafGuid(0) && p.port == 1) || n.guid == HcaGuid(0, 0))
        p.link.width_active = 1;
      if (n.guid == HcaGuid(1, 1)) p.link.speed_active = "EDR";  // both ends enable HDR
      if (n.guid == LeafGuid(1) && p.port == 2) p.link.speed_active = "EDR";
    }
  }
  FakeSource src(nodes);
  const FabricReport r = JudgeSweep(Tiny(), Swept(&src));
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, "width");
  EXPECT_EQ(r.findings[0].side, "leaf");
  EXPECT_EQ(r.findings[0].message,
            "width 1X < 4X (enabled 4X on h1 mlx5_0, 1X on su1-rail0; leaf side)");
  EXPECT_EQ(r.findings[1].kind, "speed");
  EXPECT_EQ(r.findings[1].side, "both");
  EXPECT_EQ(r.findings[1].message,
            "speed EDR < HDR (enabled HDR on h2 mlx5_3, HDR on su1-rail1; both ends allow more)");
}

TEST(FabricJudge, HcasTheTopologyExpectsButTheSweepLacksAreMissing) {
  std::vector<SweptNode> nodes = TinyFabric();
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].guid == HcaGuid(1, 1)) nodes.erase(nodes.begin() + static_cast<long>(i));
  for (SweptNode& n : nodes)
    if (n.guid == LeafGuid(1)) n.ports.erase(n.ports.begin() + 1);
  FakeSource src(nodes);
  const FabricReport r = JudgeSweep(Tiny(), Swept(&src));
  ASSERT_EQ(r.missing.size(), 1u);
  EXPECT_EQ(r.missing[0].host, "h2");
  EXPECT_EQ(r.missing[0].hca, "mlx5_3");
  EXPECT_EQ(r.missing[0].su, 0);
  EXPECT_EQ(r.missing[0].rail, 1);
  const topo::Topology t = Tiny();
  const std::string text = RenderText(t, Swept(&src), r);
  EXPECT_NE(text.find("5 links, 1 findings;"), std::string::npos) << text;
  EXPECT_NE(text.find("su1     ok    1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("missing: su1 rail1 h2 mlx5_3 not found in the fabric (cable down or HCA "
                      "unreachable)\n"),
            std::string::npos)
      << text;
  // A missing HCA is a finding, not an unread port (the count once wrapped around below 0).
  const nlohmann::json j = nlohmann::json::parse(RenderJson(t, Swept(&src), r));
  EXPECT_EQ(j["summary"]["findings"], 1);
  EXPECT_EQ(j["summary"]["unread"], 0);
}

TEST(FabricRender, JsonHasBothEndsOfEveryLinkWithWidthSpeedAndCounters) {
  FakeSource src(TinyFabric());
  src.counters[{2, 1}] = WithCounter(kSymbolErrors, 5);
  const topo::Topology t = Tiny();
  const Sweep s = Swept(&src);
  const nlohmann::json j = nlohmann::json::parse(RenderJson(t, s, JudgeSweep(t, s)));
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["summary"]["links"], 6);
  EXPECT_EQ(j["summary"]["findings"], 1);
  const nlohmann::json& l = j["links"][0];
  EXPECT_EQ(l["kind"], "host");
  EXPECT_EQ(l["su"], "su1");
  EXPECT_EQ(l["rail"], "rail0");
  EXPECT_EQ(l["host"], "h1");
  EXPECT_EQ(l["a"]["name"], "h1 mlx5_0");
  EXPECT_EQ(l["a"]["lid"], 10);
  EXPECT_EQ(l["b"]["name"], "su1-rail0");
  EXPECT_EQ(l["b"]["guid"], "0x0000000000000200");
  EXPECT_EQ(l["b"]["width"]["active"], 4);
  EXPECT_EQ(l["b"]["speed"]["enabled"], "HDR");
  EXPECT_EQ(l["b"]["counters"]["SymbolErrorCounter"], 5);
  EXPECT_EQ(l["findings"][0]["side"], "leaf");
  EXPECT_EQ(j["grid"][0]["rails"][0]["bad"], 1);
}

TEST(FabricPortInfo, WidthAndSpeedMasksDecodeToTheWidestAndFastest) {
  EXPECT_EQ(WidestLanes(1), 1);
  EXPECT_EQ(WidestLanes(1 | 2), 4);
  EXPECT_EQ(WidestLanes(1 | 2 | 4 | 8 | 16), 12);
  EXPECT_EQ(WidestLanes(16), 2);
  EXPECT_EQ(WidestLanes(0), 0);
  EXPECT_EQ(FastestSpeed(7, 0), "QDR");
  EXPECT_EQ(FastestSpeed(7, 7), "HDR");
  EXPECT_EQ(FastestSpeed(7, 15), "NDR");
  EXPECT_EQ(FastestSpeed(1, 0), "SDR");
  EXPECT_EQ(FastestSpeed(0, 0), "");
}

TEST(FabricSweepCli, RejectsAWindowOutsideItsRangeAndAMissingTopology) {
  auto run = [](std::vector<std::string> a, std::string* err) {
    std::vector<char*> argv;
    for (std::string& s : a) argv.push_back(s.data());
    ::testing::internal::CaptureStderr();
    const int rc = cli::FabricSweep(static_cast<int>(argv.size()), argv.data());
    *err = ::testing::internal::GetCapturedStderr();
    return rc;
  };
  std::string err;
  EXPECT_EQ(run({"sweep", "t.yaml", "--max-in-flight", "0"}, &err), 2);
  EXPECT_EQ(err.substr(0, err.find('\n')),
            "railctl fabric sweep: invalid --max-in-flight '0'; expected an integer from 1 to 64");
  EXPECT_EQ(run({"sweep", "/nonexistent/t.yaml"}, &err), 1);
  EXPECT_NE(err.find("/nonexistent/t.yaml"), std::string::npos) << err;
}

}  // namespace fabric_sweep_test
}  // namespace railguard::fabric
