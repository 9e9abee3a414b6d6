// SPDX-License-Identifier: GPL-2.0-or-later
// The sweep's counter phase: a window of outstanding PMA queries, per-node time limits.
#include "fabric/sweep.h"

#include <algorithm>
#include <chrono>
#include <string>

namespace railguard::fabric {

bool IsErrorCounter(int counter) { return counter >= kSymbolErrors && counter <= kVl15Dropped; }

int Sweep::FindNode(uint64_t guid) const {
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
    q.port = a->attr == PmaAttr::kClassPortInfo ? 0 : n.ports[a->entry].port;
    q.lid = n.is_switch || a->entry >= n.port_lids.size() ? n.lid : n.port_lids[a->entry];
    a->timeout_ms = std::min(opts_.mad_timeout_ms, left);
    a->sent = Clock::now();
    ++n.mads;
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
    SweptPort* p = a.attr == PmaAttr::kClassPortInfo ? nullptr : &n.ports[a.entry];
    switch (a.attr) {
      case PmaAttr::kClassPortInfo:
        a.extended = r.capmask & (kPmaExtWidthSupported | kPmaExtWidthNoIetf);
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
    if (a.attr != PmaAttr::kClassPortInfo) s += " of port " + std::to_string(n.ports[a.entry].port);
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

}  // namespace

bool RunSweep(FabricSource* source, const SweepOptions& opts, Sweep* out, std::string* err) {
  const Clock::time_point start = Clock::now();
  *out = Sweep();
  if (!source->Discover(&out->nodes, &out->smps, err)) return false;
  out->nodes.erase(std::remove_if(out->nodes.begin(), out->nodes.end(),
                                  [](const SweptNode& n) { return n.is_router; }),
                   out->nodes.end());
  std::stable_sort(out->nodes.begin(), out->nodes.end(),
                   [](const SweptNode& a, const SweptNode& b) {
                     if (a.is_switch != b.is_switch) return a.is_switch;
                     return a.guid < b.guid;
                   });
  if (!source->Open(err)) return false;
  out->time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
  CounterPhase(source, opts, out, Clock::now()).Run();  // the deadline is the phase's own
  for (const SweptNode& n : out->nodes) {
    out->mads += n.mads;
    if (n.status != NodeStatus::kAnswered) out->partial = true;
  }
  out->seconds = MsSince(start) / 1000.0;
  return true;
}

}  // namespace railguard::fabric
