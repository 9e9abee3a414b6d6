// SPDX-License-Identifier: GPL-2.0-or-later
// The sweep's counter phase: a window of outstanding PMA queries, per-node time limits.
#include "fabric/sweep.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <utility>

#include "topo/ib_fabric.h"

namespace railguard::fabric {

bool IsErrorCounter(int counter) { return counter >= kSymbolErrors && counter <= kVl15Dropped; }

int Sweep::FindNode(uint64_t guid) const {
  // RunSweep's order (switches, then HCAs, each by GUID): a binary search in each part. The
  // judge asks once per port (84,544 at 32,768 HCAs), which a scan made quadratic.
  const auto by_guid = [](const SweptNode& n, uint64_t g) { return n.guid < g; };
  const auto split = std::partition_point(nodes.begin(), nodes.end(),
                                          [](const SweptNode& n) { return n.is_switch; });
  for (auto [lo, hi] : {std::pair{nodes.begin(), split}, std::pair{split, nodes.end()}}) {
    const auto it = std::lower_bound(lo, hi, guid, by_guid);
    if (it != hi && it->guid == guid) return static_cast<int>(it - nodes.begin());
  }
  // Nodes in another order (built by hand) or a GUID that is not there: a scan.
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].guid == guid) return static_cast<int>(i);
  return -1;
}

namespace {

using Clock = std::chrono::steady_clock;

int MsSince(Clock::time_point t) {
  return static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
}

// A node whose counters are being read: which query is outstanding.
struct Active {
  int node = 0;
  size_t entry = 0;  // the port the outstanding query is about
  PmaAttr attr = PmaAttr::kClassPortInfo;
  bool extended = false;  // the node's PMA has PortCountersExtended
  uint32_t tid = 0;
  Clock::time_point node_start, sent;
  int timeout_ms = 0;  // of the outstanding query
};

const char* AttrName(PmaAttr a) {
  switch (a) {
    case PmaAttr::kClassPortInfo:
      return "ClassPortInfo";
    case PmaAttr::kPortCounters:
      return "PortCounters";
    case PmaAttr::kNodeInfo:
      return "NodeInfo";
    default:
      return "PortCountersExtended";
  }
}

// The counter phase over one source, a bounded window of outstanding queries.
class CounterPhase {
 public:
  CounterPhase(FabricSource* source, const SweepOptions& opts, Sweep* sweep,
               Clock::time_point start)
      : source_(source), opts_(opts), sweep_(sweep), start_(start) {}

  void Run() {
    std::vector<SweptNode>& nodes = sweep_->nodes;
    const size_t window = static_cast<size_t>(std::max(1, opts_.max_in_flight));
    while (next_ < nodes.size() || !active_.empty()) {
      while (active_.size() < window && next_ < nodes.size()) Begin(static_cast<int>(next_++));
      if (active_.empty()) continue;
      PmaReply r;
      std::string err;
      const int got = source_->Receive(WaitMs(), &r, &err);
      if (got < 0) {
        // The handle is broken: every outstanding node ends with the reason.
        for (const Active& a : active_) Fail(a, "receive failed: " + err);
        active_.clear();
      } else if (got > 0) {
        OnReply(r);
      }
      Expire();
    }
  }

 private:
  void Begin(int node) {
    SweptNode& n = sweep_->nodes[node];
    if (n.status == NodeStatus::kAnswered) return;  // read before (a kept discovery's phase)
    if (n.ports.empty()) {
      n.status = NodeStatus::kAnswered;
      return;
    }
    if (MsSince(start_) >= opts_.deadline_ms) {
      n.status = NodeStatus::kNotReached;
      n.error = "sweep deadline of " + std::to_string(opts_.deadline_ms) + " ms passed first";
      return;
    }
    Active a;
    a.node = node;
    a.node_start = Clock::now();
    if (n.check_lid) {
      a.attr = PmaAttr::kNodeInfo;
    } else if (n.pma_known) {
      a.attr = PmaAttr::kPortCounters;
      a.extended = n.pma_extended;
    }
    if (Issue(&a)) active_.push_back(a);
  }

  // Sends the query `a` describes; false (and the node failed) when it cannot.
  bool Issue(Active* a) {
    SweptNode& n = sweep_->nodes[a->node];
    const int left = opts_.switch_timeout_ms - MsSince(a->node_start);
    if (left <= 0) {
      Fail(*a, "no answer for all ports within " + std::to_string(opts_.switch_timeout_ms) + " ms");
      return false;
    }
    PmaRequest q;
    a->tid = q.tid = next_tid_++;
    if (next_tid_ == 0) next_tid_ = 1;
    q.attr = a->attr;
    const bool node_wide = a->attr == PmaAttr::kClassPortInfo || a->attr == PmaAttr::kNodeInfo;
    q.port = node_wide ? 0 : n.ports[a->entry].port;
    q.lid =
        n.is_switch || node_wide || a->entry >= n.port_lids.size() ? n.lid : n.port_lids[a->entry];
    a->timeout_ms = std::min(opts_.mad_timeout_ms, left);
    a->sent = Clock::now();
    ++(a->attr == PmaAttr::kNodeInfo ? sweep_->smps : n.mads);
    std::string err;
    if (!source_->Send(q, a->timeout_ms, &err)) {
      Fail(*a, std::string(AttrName(a->attr)) + " not sent: " + err);
      return false;
    }
    return true;
  }

  void OnReply(const PmaReply& r) {
    auto it = std::find_if(active_.begin(), active_.end(),
                           [&](const Active& a) { return a.tid == r.tid; });
    if (it == active_.end()) return;  // the reply to a query that already timed out
    Active a = *it;
    active_.erase(it);
    SweptNode& n = sweep_->nodes[a.node];
    if (!r.ok) return Fail(a, Where(a) + ": " + r.error);
    SweptPort* p = a.attr == PmaAttr::kClassPortInfo || a.attr == PmaAttr::kNodeInfo
                       ? nullptr
                       : &n.ports[a.entry];
    switch (a.attr) {
      case PmaAttr::kNodeInfo:
        if (r.node_guid != n.guid) {
          n.lid_taken = true;
          return Fail(a, "LID " + std::to_string(n.lid) + " answers NodeInfo as " +
                             topo::GuidString(r.node_guid) +
                             ", another node (LIDs given out again?)");
        }
        if (n.pma_known) {
          a.attr = PmaAttr::kPortCounters;
          a.extended = n.pma_extended;
        } else {
          a.attr = PmaAttr::kClassPortInfo;
        }
        break;
      case PmaAttr::kClassPortInfo:
        a.extended = r.capmask & (kPmaExtWidthSupported | kPmaExtWidthNoIetf);
        n.pma_known = true;
        n.pma_extended = a.extended;
        a.attr = PmaAttr::kPortCounters;
        a.entry = 0;
        break;
      case PmaAttr::kPortCounters:
        std::copy(r.counters, r.counters + kCounterCount, p->counters);
        if (a.extended) {
          a.attr = PmaAttr::kPortCountersExtended;
        } else {
          p->counters_read = true;
          ++a.entry;
        }
        break;
      case PmaAttr::kPortCountersExtended:
        std::copy(r.counters + kXmitData, r.counters + kCounterCount, p->counters + kXmitData);
        p->extended = p->counters_read = true;
        a.attr = PmaAttr::kPortCounters;
        ++a.entry;
        break;
    }
    if (a.entry >= n.ports.size()) {
      n.status = NodeStatus::kAnswered;
      return;
    }
    if (Issue(&a)) active_.push_back(a);
  }

  // Ends every outstanding query whose own timeout or node's time limit has passed.
  void Expire() {
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < active_.size();) {
      const Active& a = active_[i];
      if (now - a.sent >= std::chrono::milliseconds(a.timeout_ms)) {
        Fail(a, Where(a) + ": no reply within " + std::to_string(a.timeout_ms) + " ms");
        active_.erase(active_.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
  }

  // How long Receive may wait: until the earliest outstanding query expires.
  int WaitMs() const {
    int wait = opts_.mad_timeout_ms;
    for (const Active& a : active_) wait = std::min(wait, a.timeout_ms - MsSince(a.sent));
    return std::max(0, wait);
  }

  std::string Where(const Active& a) const {
    const SweptNode& n = sweep_->nodes[a.node];
    std::string s = AttrName(a.attr);
    if (a.attr == PmaAttr::kNodeInfo) s += " at LID " + std::to_string(n.lid);
    if (a.attr == PmaAttr::kPortCounters || a.attr == PmaAttr::kPortCountersExtended)
      s += " of port " + std::to_string(n.ports[a.entry].port);
    return s;
  }

  void Fail(const Active& a, const std::string& why) {
    SweptNode& n = sweep_->nodes[a.node];
    n.status = NodeStatus::kTimedOut;
    n.error = why;
  }

  FabricSource* source_;
  const SweepOptions& opts_;
  Sweep* sweep_;
  Clock::time_point start_;
  size_t next_ = 0;
  std::vector<Active> active_;
  uint32_t next_tid_ = 1;
};

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// How a node is named in a reason.
std::string NodeName(const SweptNode& n) {
  return (n.description.empty() ? std::string() : "'" + n.description + "' ") + "(" +
         topo::GuidString(n.guid) + ")";
}

// Why counters read at the kept discovery's LIDs say the cabling may have changed, or "".
// REQUIRES: `now` holds `kept`'s nodes in the same order.
std::string ChangeSeen(const KeptDiscovery& kept, const Sweep& now) {
  for (size_t i = 0; i < now.nodes.size(); ++i) {
    const SweptNode& n = now.nodes[i];
    const SweptNode& k = kept.nodes[i];
    // A node mute in the kept sweep too (a switch whose management is down) says nothing new:
    // discovering again for it every sweep would cost every sweep a discovery.
    bool read_before = false;
    for (const SweptPort& q : k.ports) read_before |= q.counters_read;
    if (n.status != NodeStatus::kAnswered && (read_before || n.lid_taken))
      return NodeName(n) + " did not answer: " + n.error;
    for (size_t e = 0; e < n.ports.size(); ++e) {
      const SweptPort& p = n.ports[e];
      const SweptPort& q = k.ports[e];
      if (!p.counters_read || !q.counters_read) continue;
      for (int c : {kLinkDowned, kLinkErrorRecovery}) {
        if (p.counters[c] != q.counters[c])
          return std::string(kCounterNames[c]) + " of " + NodeName(n) + " port " +
                 std::to_string(p.port) + " went from " + std::to_string(q.counters[c]) + " to " +
                 std::to_string(p.counters[c]);
      }
    }
  }
  return "";
}

// Takes into `fresh` (a new discovery's nodes) the counters `read` holds for the same node at
// the same LIDs; a node all of whose ports it has is answered (not read again).
void TakeCounters(const std::vector<SweptNode>& read, std::vector<SweptNode>* fresh) {
  std::unordered_map<uint64_t, const SweptNode*> by_guid;
  for (const SweptNode& n : read)
    if (n.status == NodeStatus::kAnswered) by_guid[n.guid] = &n;
  for (SweptNode& n : *fresh) {
    auto it = by_guid.find(n.guid);
    if (it == by_guid.end()) continue;
    const SweptNode& o = *it->second;
    if (o.is_switch != n.is_switch || (n.is_switch && o.lid != n.lid)) continue;
    size_t taken = 0;
    for (size_t e = 0; e < n.ports.size(); ++e) {
      for (size_t f = 0; f < o.ports.size(); ++f) {
        const SweptPort& q = o.ports[f];
        if (q.port != n.ports[e].port || !q.counters_read) continue;
        const int lid_n = n.is_switch || e >= n.port_lids.size() ? n.lid : n.port_lids[e];
        const int lid_o = o.is_switch || f >= o.port_lids.size() ? o.lid : o.port_lids[f];
        if (lid_n != lid_o) break;
        std::copy(q.counters, q.counters + kCounterCount, n.ports[e].counters);
        n.ports[e].extended = q.extended;
        n.ports[e].counters_read = true;
        ++taken;
        break;
      }
    }
    n.pma_known = o.pma_known;
    n.pma_extended = o.pma_extended;
    if (taken == n.ports.size()) n.status = NodeStatus::kAnswered;
  }
}

// Why `kept` is not used, or "" when it is.
std::string WhyNotKept(const KeptDiscovery* kept, const SweepOptions& opts, double now,
                       bool local_known, const std::string& local_err, const Sweep& out) {
  if (!kept) return "no earlier discovery to keep";
  if (opts.rediscover_after_s <= 0) return "discovery on every sweep (rediscover after 0 s)";
  const double age = now - kept->time;
  char text[160];
  if (age < 0) {
    std::snprintf(text, sizeof(text), "the kept discovery is %.0f s in the future", -age);
    return text;
  }
  if (age >= opts.rediscover_after_s) {
    std::snprintf(text, sizeof(text), "the kept discovery is %.0f s old (rediscover after %d s)",
                  age, opts.rediscover_after_s);
    return text;
  }
  if (!local_known) return "this port's LID and its SM's LID are unknown: " + local_err;
  if (out.local_lid != kept->local_lid)
    return "this port's LID changed from " + std::to_string(kept->local_lid) + " to " +
           std::to_string(out.local_lid);
  if (out.sm_lid != kept->sm_lid)
    return "the SM's LID changed from " + std::to_string(kept->sm_lid) + " to " +
           std::to_string(out.sm_lid) + " (a new SM may have given out new LIDs)";
  return "";
}

}  // namespace

void ArrangeNodes(std::vector<SweptNode>* nodes) {
  nodes->erase(
      std::remove_if(nodes->begin(), nodes->end(), [](const SweptNode& n) { return n.is_router; }),
      nodes->end());
  std::stable_sort(nodes->begin(), nodes->end(), [](const SweptNode& a, const SweptNode& b) {
    if (a.is_switch != b.is_switch) return a.is_switch;
    return a.guid < b.guid;
  });
}

bool RunSweep(FabricSource* source, const SweepOptions& opts, Sweep* out, std::string* err,
              const KeptDiscovery* kept) {
  const Clock::time_point start = Clock::now();
  *out = Sweep();
  std::string local_err;
  const bool local_known = source->LocalPort(&out->local_lid, &out->sm_lid, &local_err);
  if (!local_known) out->local_lid = out->sm_lid = 0;
  const double now = UnixNow();
  std::string why_new = WhyNotKept(kept, opts, now, local_known, local_err, *out);
  std::vector<SweptNode> read;  // counters read at the kept discovery's LIDs
  bool opened = false;
  if (why_new.empty()) {
    out->nodes = kept->nodes;
    for (SweptNode& n : out->nodes) {
      n.status = NodeStatus::kNotReached;
      n.error.clear();
      n.mads = 0;
      n.check_lid = true;
      for (SweptPort& p : n.ports) {
        p.counters_read = p.extended = false;
        std::fill(p.counters, p.counters + kCounterCount, 0);
      }
    }
    if (!source->Open(err)) return false;
    opened = true;
    out->time = UnixNow();
    CounterPhase(source, opts, out, Clock::now()).Run();
    for (const SweptNode& n : out->nodes) out->mads += n.mads;
    const std::string change = ChangeSeen(*kept, *out);
    if (change.empty()) {
      char text[96];
      std::snprintf(text, sizeof(text), "from a discovery %.0f s old", now - kept->time);
      out->kept = true;
      out->discovered = kept->time;
      out->discovery_reason = text;
    } else {
      why_new = change;
      read = std::move(out->nodes);
      out->nodes.clear();
    }
  }
  if (!out->kept) {
    out->discovered = UnixNow();
    out->discovery_reason = why_new;
    const int checks = out->smps;  // the kept phase's NodeInfo queries, if it ran
    if (!source->Discover(&out->nodes, &out->smps, err)) return false;
    out->smps += checks;
    ArrangeNodes(&out->nodes);
    if (!opened) {
      if (!source->Open(err)) return false;
      out->time = UnixNow();
    }
    TakeCounters(read, &out->nodes);
    CounterPhase(source, opts, out, Clock::now()).Run();  // the deadline is the phase's own
    for (const SweptNode& n : out->nodes) out->mads += n.mads;
  }
  for (const SweptNode& n : out->nodes)
    if (n.status != NodeStatus::kAnswered) out->partial = true;
  out->seconds = MsSince(start) / 1000.0;
  return true;
}

}  // namespace railguard::fabric
