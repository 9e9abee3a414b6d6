// SPDX-License-Identifier: GPL-2.0-or-later
// ComputeCounterMoves (checks.h): how each counter and AER total moved since the last run and the
// baseline, the flaps inside the window, the PCI functions the checks judge, and the next
// run state. Computed once per run, read by link.errors, link.flap, link.counters and pcie.*.
#include <algorithm>
#include <cmath>
#include <set>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"
#include "healthcheck/parse.h"
#include "healthcheck/rate_window.h"

namespace railguard::health {
namespace {

using check_util::RailNic;

constexpr size_t kMaxFlapsKept = 100;
const char* const kAerKinds[] = {"correctable", "nonfatal", "fatal"};

std::optional<uint64_t> Lookup(const std::map<std::string, uint64_t>& m, const std::string& k) {
  auto it = m.find(k);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

// The value of counter `key` ("name" or "hw_counters/name") in `pc`.
std::optional<uint64_t> CounterOf(const PortCounters& pc, const std::string& key) {
  if (key.rfind("hw_counters/", 0) == 0) return Lookup(pc.hw_counters, key.substr(12));
  return Lookup(pc.counters, key);
}

// The readable counters of a port, as PortCounters.
PortCounters Readable(const PortFacts& p) {
  PortCounters pc;
  for (const auto& kv : p.counters)
    if (kv.second.error.empty() && !kv.second.no_pma) pc.counters[kv.first] = kv.second.value;
  for (const auto& kv : p.hw_counters)
    if (kv.second.error.empty() && !kv.second.no_pma) pc.hw_counters[kv.first] = kv.second.value;
  return pc;
}

// A counter's move given its value now, at the last run and at the baseline; `rebooted`: the
// node rebooted since the last run, so the counter restarted from zero.
CounterMove Move(const std::string& key, uint64_t value, std::optional<uint64_t> last,
                 std::optional<uint64_t> prev_sum, std::optional<uint64_t> at_baseline,
                 bool have_baseline, bool rebooted) {
  CounterMove m;
  m.key = key;
  m.value = value;
  m.last = last;
  if (last) {
    m.went_backwards = value < *last;
    m.rebooted = rebooted;
    m.since_last = m.went_backwards || rebooted ? value : value - *last;
  }
  if (have_baseline) {
    if (prev_sum && last) {
      m.since_baseline = *prev_sum + m.since_last;
    } else if (at_baseline) {
      // No running sum for this baseline yet: count from the recorded value (a value below
      // it means the counters were reset since, and count from zero).
      m.since_baseline = value >= *at_baseline ? value - *at_baseline : value;
    }
  }
  m.bits = key.rfind("hw_counters/", 0) == 0 ? 0 : CounterBits(key);
  m.saturated = m.bits > 0 && m.bits < 64 && value == (uint64_t{1} << m.bits) - 1;
  return m;
}

std::optional<uint64_t> AerOf(const AerTotals& t, const std::string& kind) {
  if (kind == "correctable") return t.correctable;
  if (kind == "nonfatal") return t.nonfatal;
  return t.fatal;
}

void SetAer(AerTotals* t, const std::string& kind, uint64_t v) {
  if (kind == "correctable") {
    t->correctable = v;
  } else if (kind == "nonfatal") {
    t->nonfatal = v;
  } else {
    t->fatal = v;
  }
}

// The record of `key` in `m`, or nullptr.
template <typename Map>
const typename Map::mapped_type* Find(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

// The devices on the NIC and GPU paths, each once, charged to the first rail that reaches
// it (NIC paths first).
std::vector<JudgedDevice> JudgedDevices(const NodeFacts& f) {
  std::vector<JudgedDevice> out;
  std::set<std::string> seen;
  auto add_path = [&](const std::vector<std::string>& path, int rail, const std::string& who,
                      const std::string& endpoint) {
    for (size_t i = 0; i < path.size(); ++i) {
      if (!seen.insert(path[i]).second) continue;
      JudgedDevice d;
      d.bdf = path[i];
      d.rail = rail;
      d.short_label = who;
      d.label = who + (path[i] == endpoint ? " " : " bridge ") + path[i];
      d.path = path;
      d.index = i;
      out.push_back(std::move(d));
    }
  };
  for (const NicFacts& n : f.nics)
    if (n.complete && !n.pci_path.empty()) add_path(n.pci_path, n.rail, RailNic(n), n.pci);
  for (const GpuFacts& g : f.gpus) {
    if (!g.present || g.pci_path.empty()) continue;
    int rail = -1;
    const std::string who = check_util::GpuName(f, g, &rail);
    add_path(g.pci_path, rail, who, g.bdf);
  }
  return out;
}

// What the history is computed against: the last run and the baseline, when there are.
struct Refs {
  const RunState* last = nullptr;
  const NodeBaseline* baseline = nullptr;
  bool sums_valid = false;  // the last run's running sums belong to this baseline
  double now = 0;
  double last_time = 0;   // when the last run was; `now` when unknown
  bool rebooted = false;  // the boot id changed since the last run
  bool baseline_other_boot = false;  // the baseline was recorded in another boot
};

// The history of `key` in `prev` (empty without one) with this run's increase added.
RateHistory Recent(const std::map<std::string, RateHistory>* prev, const std::string& key,
                   uint64_t rise, const Refs& r, const HealthConfig& cfg) {
  RateHistory h;
  if (prev) {
    auto it = prev->find(key);
    if (it != prev->end()) h = it->second;
  }
  AddIncrease(&h, r.last_time, r.now, rise, cfg);
  return h;
}

// Flaps: link_downed rising, or the port leaving ACTIVE, since the last run. Sets the flap
// fields of `pm` from its moves and the last run's record `prev`.
void FindFlaps(const PortRecord* prev, const std::string& state, const HealthConfig& cfg,
               double now, PortMoves* pm) {
  int downs = 0;
  for (const CounterMove& m : pm->moves) {
    if (m.key == "link_downed" && m.last && m.since_last > 0) {
      downs = static_cast<int>(std::min<uint64_t>(m.since_last, 1000));
      pm->link_downed_change =
          "link_downed " + std::to_string(*m.last) + " -> " + std::to_string(m.value);
    }
  }
  if (prev && !prev->state.empty() && state != prev->state) {
    pm->state_change = "state " + prev->state + " -> " + (state.empty() ? "?" : state);
    if (prev->state == "ACTIVE") downs = std::max(downs, 1);
  }
  pm->downs_now = downs;
  if (prev) {
    for (double t : prev->flaps)
      if (now - t < cfg.flap_window_seconds) pm->flaps.push_back(t);
  }
  for (int i = 0; i < downs; ++i) pm->flaps.push_back(now);
  if (pm->flaps.size() > kMaxFlapsKept)
    pm->flaps.erase(pm->flaps.begin(), pm->flaps.end() - kMaxFlapsKept);
}

// The moves of NIC `n`'s port counters into `h` (ports and next.ports).
void PortMovesOf(const NicFacts& n, const Refs& r, const HealthConfig& cfg, CounterMoves* h) {
  const PortRecord* prev = r.last ? Find(r.last->ports, n.name) : nullptr;
  const PortCounters* base = r.baseline ? Find(r.baseline->ports, n.name) : nullptr;
  PortMoves pm;
  pm.rail = n.rail;
  PortRecord rec;
  rec.last = Readable(n.port);
  rec.state = n.port.state.ok() ? n.port.state.value->name : std::string();
  auto add = [&](const std::string& key, uint64_t value) {
    std::optional<uint64_t> last = prev ? CounterOf(prev->last, key) : std::nullopt;
    std::optional<uint64_t> sum =
        r.sums_valid && prev ? Lookup(prev->since_baseline, key) : std::nullopt;
    std::optional<uint64_t> at_base = base ? CounterOf(*base, key) : std::nullopt;
    CounterMove m = Move(key, value, last, sum, at_base, r.baseline != nullptr, r.rebooted);
    if (m.since_baseline) rec.since_baseline[key] = *m.since_baseline;
    if (cfg.link_error_limits.count(key)) {
      m.recent = Recent(prev ? &prev->recent : nullptr, key, m.since_last, r, cfg);
      if (!m.recent.empty()) rec.recent[key] = m.recent;
    }
    pm.moves.push_back(std::move(m));
  };
  for (const auto& kv : rec.last.counters) add(kv.first, kv.second);
  for (const auto& kv : rec.last.hw_counters) add("hw_counters/" + kv.first, kv.second);
  FindFlaps(prev, rec.state, cfg, r.now, &pm);
  rec.flaps = pm.flaps;
  h->next.ports[n.name] = std::move(rec);
  h->ports.push_back(std::move(pm));
}

// The moves of device `d`'s AER totals into `h` (aer and next.pcie).
void AerMovesOf(const JudgedDevice& d, const PciDevice& dev, const Refs& r,
                const HealthConfig& cfg, CounterMoves* h) {
  const PcieRecord* prev = r.last ? Find(r.last->pcie, d.bdf) : nullptr;
  // Totals of another boot are not this boot's: without them fatal errors count from boot.
  const AerTotals* base = r.baseline && !r.baseline_other_boot ? Find(r.baseline->pcie, d.bdf)
                                                               : nullptr;
  PcieRecord rec;
  std::vector<AerMove> moves;
  for (const char* kind : kAerKinds) {
    const AerFact& a = check_util::AerFileOf(dev, kind);
    if (!a.present || !a.value.ok()) continue;
    AerMove m;
    m.kind = kind;
    m.value = a.value.value->total;
    if (prev) m.last = AerOf(prev->last, kind);
    if (m.last) {
      m.rebooted = r.rebooted;
      m.since_last = m.value >= *m.last && !r.rebooted ? m.value - *m.last : m.value;
    }
    if (base) m.at_baseline = AerOf(*base, kind);
    if (r.baseline) {
      std::optional<uint64_t> sum =
          r.sums_valid && prev ? AerOf(prev->since_baseline, kind) : std::nullopt;
      if (sum && m.last) {
        m.since_baseline = *sum + m.since_last;
      } else if (m.at_baseline) {
        m.since_baseline = m.value >= *m.at_baseline ? m.value - *m.at_baseline : m.value;
      }
    }
    if (m.kind != "fatal") {
      m.recent = Recent(prev ? &prev->recent : nullptr, m.kind, m.since_last, r, cfg);
      if (!m.recent.empty()) rec.recent[m.kind] = m.recent;
    }
    SetAer(&rec.last, kind, m.value);
    if (m.since_baseline) SetAer(&rec.since_baseline, kind, *m.since_baseline);
    moves.push_back(std::move(m));
  }
  h->next.pcie[d.bdf] = rec;
  h->aer[d.bdf] = std::move(moves);
}

}  // namespace

CounterMoves ComputeCounterMoves(const JudgeInput& in) {
  const NodeFacts& f = *in.facts;
  CounterMoves h;
  h.next = in.last ? *in.last : RunState();
  h.next.node = f.node;
  h.next.time = in.now;
  h.next.runs += 1;
  Refs r;
  r.last = in.last;
  r.baseline = in.baseline;
  r.now = in.now;
  r.last_time = in.last && in.last->time > 0 ? std::min(in.last->time, in.now) : in.now;
  // A reboot restarts every counter from zero, also one that is above its last value again.
  const std::string boot = f.boot_id.ok() ? *f.boot_id.value : std::string();
  h.next.boot_id = boot;
  if (in.last && !in.last->boot_id.empty() && !boot.empty() && boot != in.last->boot_id) {
    r.rebooted = true;
    h.boot_change = "boot_id " + in.last->boot_id + " -> " + boot;
  }
  r.baseline_other_boot =
      in.baseline && !in.baseline->boot_id.empty() && !boot.empty() && boot != in.baseline->boot_id;
  // Running sums belong to one baseline; a new baseline starts them afresh.
  r.sums_valid =
      in.baseline && in.last && std::fabs(in.last->baseline_time - in.baseline->time) < 1e-6;
  h.next.baseline_time = in.baseline ? in.baseline->time : 0;
  if (in.last && in.last->time > 0) h.since_last_seconds = std::max(0.0, in.now - in.last->time);
  if (in.baseline) h.since_baseline_seconds = std::max(0.0, in.now - in.baseline->time);

  for (const NicFacts& n : f.nics)
    if (check_util::HasPort(n)) PortMovesOf(n, r, *in.config, &h);
  h.devices = JudgedDevices(f);
  for (const JudgedDevice& d : h.devices)
    if (const PciDevice* dev = check_util::Device(f, d.bdf)) AerMovesOf(d, *dev, r, *in.config, &h);
  return h;
}

}  // namespace railguard::health
