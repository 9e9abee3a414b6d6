#include "healthcheck/checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "healthcheck/parse.h"
#include "healthcheck/sysfs.h"

namespace railguard::health {
namespace {

constexpr int kStateActive = 4;
constexpr int kPhysLinkUp = 5;
constexpr size_t kMaxFlapsKept = 100;

std::string RailNic(const NicFacts& n) { return "rail" + std::to_string(n.rail) + " " + n.name; }

std::string Rate(double per_hour) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), per_hour >= 10 ? "%.0f/h" : "%.1f/h", per_hour);
  return buf;
}

// Errors per hour over `seconds`, which is never taken below the configured minimum.
double PerHour(uint64_t delta, double seconds, const HealthConfig& cfg) {
  return static_cast<double>(delta) * 3600.0 /
         std::max(seconds, static_cast<double>(cfg.min_rate_interval_seconds));
}

bool ActiveAndUp(const NicFacts& n) {
  return n.complete && n.present && n.port_error.empty() && n.port.state.ok() &&
         n.port.state.value->code == kStateActive && n.port.phys_state.ok() &&
         n.port.phys_state.value->code == kPhysLinkUp;
}

bool HasPort(const NicFacts& n) { return n.complete && n.present && n.port_error.empty(); }

const NicFacts* NicOfRail(const NodeFacts& f, int rail) {
  for (const NicFacts& n : f.nics)
    if (n.rail == rail) return &n;
  return nullptr;
}

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

// A counter's move given its value now, at the last run and at the baseline.
CounterMove Move(const std::string& key, uint64_t value, std::optional<uint64_t> last,
                 std::optional<uint64_t> prev_sum, std::optional<uint64_t> at_baseline,
                 bool have_baseline) {
  CounterMove m;
  m.key = key;
  m.value = value;
  m.last = last;
  if (last) {
    m.went_backwards = value < *last;
    m.since_last = m.went_backwards ? value : value - *last;
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
    const int rail = g.index < static_cast<int>(f.nics.size()) ? g.index : -1;
    const std::string who = (rail >= 0 ? "rail" + std::to_string(rail) + " " : std::string()) +
                            "gpu" + std::to_string(g.index);
    add_path(g.pci_path, rail, who, g.bdf);
  }
  return out;
}

const PciDevice* Device(const NodeFacts& f, const std::string& bdf) {
  auto it = f.pci.find(bdf);
  return it == f.pci.end() ? nullptr : &it->second;
}

Finding Make(const std::string& check, int rail, Severity sev, const std::string& detail,
             const std::string& reason) {
  Finding f;
  f.check = check;
  f.rail = rail;
  f.severity = sev;
  // Paths from directory listings and values read from sysfs reach these as found: whatever
  // a broken or hostile sysfs holds, a message stays one line of printable text for the
  // report and slurmd's log, and the reason Slurm gets stays short.
  f.message = Printable(check + ": " + detail, kMaxMessageChars);
  f.reason = Printable(reason, kMaxMessageChars);
  return f;
}

int CheckIndex(const std::string& check) {
  const auto& names = HealthCheckNames();
  return static_cast<int>(std::find(names.begin(), names.end(), check) - names.begin());
}

Level LevelOf(HealthAction a) {
  switch (a) {
    case HealthAction::kDrain:
      return Level::kDrain;
    case HealthAction::kRestrict:
      return Level::kRestrict;
    case HealthAction::kWarn:
      return Level::kWarn;
    case HealthAction::kOff:
      return Level::kOk;
  }
  return Level::kOk;
}

// A PCIe link attribute check (speed or width): a device's current value against the
// smallest maximum of itself and its neighbours on the path (a link trains to its slower end).
// A device whose child on the path already reported the same current value is the other end
// of that same link and is not reported again.
template <typename GetCur, typename GetMax, typename Fmt, typename Short>
void CheckPcieLink(const JudgeInput& in, const History& h, const std::string& check,
                   const char* attr, GetCur get_cur, GetMax get_max, Fmt fmt, Short brief,
                   std::vector<Finding>* out) {
  const NodeFacts& f = *in.facts;
  std::map<std::string, double> reported;  // bdf -> current value it was reported with
  for (const JudgedDevice& d : h.devices) {
    const PciDevice* dev = Device(f, d.bdf);
    if (!dev || !dev->has_link) continue;
    std::optional<double> cur;
    std::string err;
    bool down = false;
    if (!get_cur(*dev, &cur, &down, &err)) {
      out->push_back(Make(check, d.rail, Severity::kDegraded, d.label + " " + err,
                          d.short_label + " PCIe " + attr + " unreadable"));
      continue;
    }
    std::optional<double> expected;
    auto consider = [&](const std::string& bdf) {
      const PciDevice* n = Device(f, bdf);
      if (!n || !n->has_link) return;
      if (std::optional<double> m = get_max(*n); m && (!expected || *m < *expected)) expected = m;
    };
    consider(d.bdf);
    if (d.index > 0) consider(d.path[d.index - 1]);
    if (d.index + 1 < d.path.size()) consider(d.path[d.index + 1]);
    if (!expected) continue;
    if (down) {
      out->push_back(
          Make(check, d.rail, Severity::kDown,
               d.label + " link down (" + attr + " " + err + "); expected " + fmt(*expected),
               d.short_label + " PCIe link down"));
      reported[d.bdf] = 0;
      continue;
    }
    if (!cur || *cur + 1e-9 >= *expected) continue;
    if (d.index > 0) {
      auto child = reported.find(d.path[d.index - 1]);
      if (child != reported.end() && std::fabs(child->second - *cur) < 1e-9) continue;
    }
    reported[d.bdf] = *cur;
    out->push_back(Make(check, d.rail, Severity::kDegraded,
                        d.label + " at " + fmt(*cur) + " < expected " + fmt(*expected),
                        d.short_label + " PCIe " + brief(*cur) + " < " + brief(*expected)));
  }
}

std::string AerBreakdown(const AerFact& a) {
  std::string out;
  if (!a.value.ok()) return out;
  for (const auto& kv : a.value.value->counts) {
    if (kv.second == 0) continue;
    out += (out.empty() ? "" : ", ") + kv.first + " " + std::to_string(kv.second);
  }
  return out;
}

const AerFact& AerFileOf(const PciDevice& d, const std::string& kind) {
  if (kind == "correctable") return d.aer_correctable;
  if (kind == "nonfatal") return d.aer_nonfatal;
  return d.aer_fatal;
}

// "" when the NIC and the GPU sit under one PCIe switch (their paths share the root port and
// the switch's upstream port); otherwise where their paths meet instead.
std::string SwitchMiss(const NicFacts& n, const GpuFacts& g) {
  std::vector<std::string> a(n.pci_path.rbegin(), n.pci_path.rend());
  std::vector<std::string> b(g.pci_path.rbegin(), g.pci_path.rend());
  if (n.host_bridge != g.host_bridge) {
    return "they are under different root complexes (" + n.host_bridge + ", " + g.host_bridge + ")";
  }
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  if (common >= 2) return "";
  if (common == 1) return "their paths meet at root port " + a[0];
  return "their paths meet only at root complex " + n.host_bridge;
}

bool HasPciPath(const NicFacts& n) { return n.complete && n.present && !n.pci_path.empty(); }

}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kNote:
      return "note";
    case Severity::kDegraded:
      return "degraded";
    case Severity::kDown:
      return "down";
  }
  return "?";
}

const char* LevelName(Level l) {
  switch (l) {
    case Level::kOk:
      return "ok";
    case Level::kWarn:
      return "warn";
    case Level::kRestrict:
      return "restrict";
    case Level::kDrain:
      return "drain";
  }
  return "?";
}

std::string FormatDuration(double seconds) {
  char buf[64];
  if (seconds < 120) {
    std::snprintf(buf, sizeof(buf), "%.0f s", seconds);
  } else if (seconds < 2 * 3600) {
    std::snprintf(buf, sizeof(buf), "%.0f min", seconds / 60);
  } else if (seconds < 2 * 86400) {
    std::snprintf(buf, sizeof(buf), "%.1f h", seconds / 3600);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f days", seconds / 86400);
  }
  return buf;
}

History ComputeHistory(const JudgeInput& in) {
  const NodeFacts& f = *in.facts;
  const HealthConfig& cfg = *in.config;
  History h;
  h.next = in.last ? *in.last : RunState();
  h.next.node = f.node;
  h.next.time = in.now;
  h.next.runs += 1;
  const bool have_baseline = in.baseline != nullptr;
  // Running sums belong to one baseline; a new baseline starts them afresh.
  const bool sums_valid =
      have_baseline && in.last && std::fabs(in.last->baseline_time - in.baseline->time) < 1e-6;
  h.next.baseline_time = have_baseline ? in.baseline->time : 0;
  if (in.last && in.last->time > 0) h.since_last_seconds = std::max(0.0, in.now - in.last->time);
  if (have_baseline) h.since_baseline_seconds = std::max(0.0, in.now - in.baseline->time);

  for (const NicFacts& n : f.nics) {
    if (!HasPort(n)) continue;
    const PortRecord* prev = nullptr;
    if (in.last) {
      auto it = in.last->ports.find(n.name);
      if (it != in.last->ports.end()) prev = &it->second;
    }
    const PortCounters* base = nullptr;
    if (have_baseline) {
      auto it = in.baseline->ports.find(n.name);
      if (it != in.baseline->ports.end()) base = &it->second;
    }
    PortMoves pm;
    pm.rail = n.rail;
    PortRecord rec;
    rec.last = Readable(n.port);
    rec.state = n.port.state.ok() ? n.port.state.value->name : std::string();
    auto add = [&](const std::string& key, uint64_t value) {
      std::optional<uint64_t> last = prev ? CounterOf(prev->last, key) : std::nullopt;
      std::optional<uint64_t> sum =
          sums_valid && prev ? Lookup(prev->since_baseline, key) : std::nullopt;
      std::optional<uint64_t> at_base = base ? CounterOf(*base, key) : std::nullopt;
      CounterMove m = Move(key, value, last, sum, at_base, have_baseline);
      if (m.since_baseline) rec.since_baseline[key] = *m.since_baseline;
      pm.moves.push_back(std::move(m));
    };
    for (const auto& kv : rec.last.counters) add(kv.first, kv.second);
    for (const auto& kv : rec.last.hw_counters) add("hw_counters/" + kv.first, kv.second);

    // Flaps: link_downed rising, or the port leaving ACTIVE, since the last run.
    int downs = 0;
    for (const CounterMove& m : pm.moves) {
      if (m.key == "link_downed" && m.last && m.since_last > 0) {
        downs = static_cast<int>(std::min<uint64_t>(m.since_last, 1000));
        pm.link_downed_change =
            "link_downed " + std::to_string(*m.last) + " -> " + std::to_string(m.value);
      }
    }
    if (prev && !prev->state.empty() && rec.state != prev->state) {
      pm.state_change = "state " + prev->state + " -> " + (rec.state.empty() ? "?" : rec.state);
      if (prev->state == "ACTIVE") downs = std::max(downs, 1);
    }
    pm.downs_now = downs;
    if (prev) {
      for (double t : prev->flaps)
        if (in.now - t < cfg.flap_window_seconds) pm.flaps.push_back(t);
    }
    for (int i = 0; i < downs; ++i) pm.flaps.push_back(in.now);
    if (pm.flaps.size() > kMaxFlapsKept)
      pm.flaps.erase(pm.flaps.begin(), pm.flaps.end() - kMaxFlapsKept);
    rec.flaps = pm.flaps;
    h.next.ports[n.name] = std::move(rec);
    h.ports.push_back(std::move(pm));
  }

  h.devices = JudgedDevices(f);
  for (const JudgedDevice& d : h.devices) {
    const PciDevice* dev = Device(f, d.bdf);
    if (!dev) continue;
    const PcieRecord* prev = nullptr;
    if (in.last) {
      auto it = in.last->pcie.find(d.bdf);
      if (it != in.last->pcie.end()) prev = &it->second;
    }
    const AerTotals* base = nullptr;
    if (have_baseline) {
      auto it = in.baseline->pcie.find(d.bdf);
      if (it != in.baseline->pcie.end()) base = &it->second;
    }
    PcieRecord rec;
    std::vector<AerMove> moves;
    for (const char* kind : {"correctable", "nonfatal", "fatal"}) {
      const AerFact& a = AerFileOf(*dev, kind);
      if (!a.present || !a.value.ok()) continue;
      AerMove m;
      m.kind = kind;
      m.value = a.value.value->total;
      if (prev) m.last = AerOf(prev->last, kind);
      if (m.last) m.since_last = m.value >= *m.last ? m.value - *m.last : m.value;
      if (base) m.at_baseline = AerOf(*base, kind);
      if (have_baseline) {
        std::optional<uint64_t> sum =
            sums_valid && prev ? AerOf(prev->since_baseline, kind) : std::nullopt;
        if (sum && m.last) {
          m.since_baseline = *sum + m.since_last;
        } else if (m.at_baseline) {
          m.since_baseline = m.value >= *m.at_baseline ? m.value - *m.at_baseline : m.value;
        }
      }
      SetAer(&rec.last, kind, m.value);
      if (m.since_baseline) SetAer(&rec.since_baseline, kind, *m.since_baseline);
      moves.push_back(std::move(m));
    }
    h.next.pcie[d.bdf] = rec;
    h.aer[d.bdf] = std::move(moves);
  }
  return h;
}

void CheckNicPresent(const JudgeInput& in, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    if (!n.complete) continue;
    if (!n.present) {
      out->push_back(
          Make("nic.present", n.rail, Severity::kDown,
               RailNic(n) + " missing: " + n.missing + "; expected the rail NIC of the node type",
               RailNic(n) + " missing"));
    } else if (!n.port_error.empty()) {
      out->push_back(Make("nic.present", n.rail, Severity::kDown,
                          RailNic(n) + " has no readable port: " + n.port_error,
                          RailNic(n) + " no port"));
    }
    // mlx5 names follow probe order: a NIC that failed to probe renumbers the ones after it,
    // and the name then points at another rail's card.
    if (n.present && n.rail < static_cast<int>(in.nic_pci.size()) && !n.pci.empty() &&
        n.pci != in.nic_pci[n.rail]) {
      out->push_back(Make("nic.present", n.rail, Severity::kDown,
                          RailNic(n) + " is PCI function " + n.pci + ", expected " +
                              in.nic_pci[n.rail] +
                              " (nic_pci of the node type): the NICs were renumbered or moved",
                          RailNic(n) + " is " + n.pci + ", not " + in.nic_pci[n.rail]));
    }
  }
}

void CheckPortState(const JudgeInput& in, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    if (!HasPort(n)) continue;
    const PortFacts& p = n.port;
    if (!p.state.ok() || !p.phys_state.ok()) {
      out->push_back(Make("port.state", n.rail, Severity::kDown,
                          RailNic(n) + " " + (p.state.ok() ? p.phys_state.error : p.state.error),
                          RailNic(n) + " port state unreadable"));
      continue;
    }
    std::vector<std::string> wrong;
    std::vector<std::string> brief;
    if (p.state.value->code != kStateActive) {
      wrong.push_back("state " + p.state.raw + " (expected 4: ACTIVE)");
      brief.push_back(p.state.value->name);
    }
    if (p.phys_state.value->code != kPhysLinkUp) {
      wrong.push_back("phys_state " + p.phys_state.raw + " (expected 5: LinkUp)");
      brief.push_back(p.phys_state.value->name);
    }
    if (wrong.empty()) continue;
    std::string detail = RailNic(n) + " " + wrong[0];
    std::string reason = RailNic(n) + " port " + brief[0];
    if (wrong.size() > 1) {
      detail += ", " + wrong[1];
      reason += "/" + brief[1];
    }
    out->push_back(Make("port.state", n.rail, Severity::kDown, detail, reason));
  }
}

void CheckPortLinkLayer(const JudgeInput& in, std::vector<Finding>* out) {
  const std::string& want = in.config->link_layer;
  for (const NicFacts& n : in.facts->nics) {
    if (!HasPort(n)) continue;
    const Fact<std::string>& ll = n.port.link_layer;
    if (!ll.ok()) {
      out->push_back(Make("port.link_layer", n.rail, Severity::kDown, RailNic(n) + " " + ll.error,
                          RailNic(n) + " link_layer unreadable"));
    } else if (*ll.value != want) {
      out->push_back(Make("port.link_layer", n.rail, Severity::kDown,
                          RailNic(n) + " link_layer " + *ll.value + "; expected " + want,
                          RailNic(n) + " " + *ll.value + " != " + want));
    }
  }
}

void CheckPortRate(const JudgeInput& in, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    // A port that is not up has no meaningful rate; port.state reports it.
    if (!ActiveAndUp(n)) continue;
    if (n.rail >= static_cast<int>(in.rail_links.size())) continue;
    const topo::LinkSpec& want = in.rail_links[n.rail];
    if (want.rate_gbps <= 0) continue;
    const Fact<RateValue>& rate = n.port.rate;
    if (!rate.ok()) {
      out->push_back(Make("port.rate", n.rail, Severity::kDegraded, RailNic(n) + " " + rate.error,
                          RailNic(n) + " rate unreadable"));
      continue;
    }
    if (rate.value->gbps + 1e-9 >= want.rate_gbps) continue;
    out->push_back(Make("port.rate", n.rail, Severity::kDegraded,
                        RailNic(n) + " rate " + rate.raw + " < expected " + want.ToSysfsRate(),
                        RailNic(n) + " rate " + FormatNumber(rate.value->gbps) + " Gb/s < " +
                            FormatNumber(want.rate_gbps) + " Gb/s"));
  }
}

void CheckLinkErrors(const JudgeInput& in, const History& h, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  for (const PortMoves& pm : h.ports) {
    const NicFacts* n = NicOfRail(*in.facts, pm.rail);
    if (!n) continue;
    for (const CounterMove& m : pm.moves) {
      auto limit = cfg.link_error_limits.find(m.key);
      if (limit == cfg.link_error_limits.end()) continue;
      const double lim = static_cast<double>(limit->second);
      if (m.last && !m.went_backwards) {
        const double rate = PerHour(m.since_last, h.since_last_seconds, cfg);
        if (m.since_last > 0 && rate > lim) {
          out->push_back(Make("link.errors", pm.rail, Severity::kDegraded,
                              RailNic(*n) + " " + m.key + " +" + std::to_string(m.since_last) +
                                  " in " + FormatDuration(h.since_last_seconds) +
                                  " since the last run (" + Rate(rate) + ") > limit " + Rate(lim),
                              RailNic(*n) + " " + m.key + " " + Rate(rate) + " > " + Rate(lim)));
          continue;
        }
      }
      if (m.since_baseline && *m.since_baseline > 0) {
        const double rate = PerHour(*m.since_baseline, h.since_baseline_seconds, cfg);
        if (rate > lim) {
          out->push_back(Make("link.errors", pm.rail, Severity::kDegraded,
                              RailNic(*n) + " " + m.key + " +" + std::to_string(*m.since_baseline) +
                                  " in " + FormatDuration(h.since_baseline_seconds) +
                                  " since the baseline (" + Rate(rate) + ") > limit " + Rate(lim),
                              RailNic(*n) + " " + m.key + " " + Rate(rate) + " > " + Rate(lim)));
        }
      }
    }
  }
}

void CheckLinkFlap(const JudgeInput& in, const History& h, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  const std::string window = FormatDuration(cfg.flap_window_seconds);
  for (const PortMoves& pm : h.ports) {
    if (pm.flaps.empty()) continue;
    const NicFacts* n = NicOfRail(*in.facts, pm.rail);
    if (!n) continue;
    const std::string count = std::to_string(pm.flaps.size());
    std::string detail;
    if (pm.downs_now > 0) {
      std::string what = pm.link_downed_change;
      if (!pm.state_change.empty()) what += (what.empty() ? "" : ", ") + pm.state_change;
      detail = RailNic(*n) + " link went down since the last run (" + what + ")";
      if (cfg.flap_window_seconds > 0) detail += "; " + count + " flap(s) in the last " + window;
      detail += "; expected a stable link";
    } else {
      const double ago = in.now - pm.flaps.back();
      detail = RailNic(*n) + " " + count + " flap(s) in the last " + window + ", the last " +
               FormatDuration(ago) + " ago; expected none for " + window;
    }
    out->push_back(Make("link.flap", pm.rail, Severity::kDegraded, detail,
                        RailNic(*n) + " link flapping (" + count + " in " + window + ")"));
  }
}

void CheckLinkCounters(const JudgeInput& in, const History& h, std::vector<Finding>* out) {
  if (!in.baseline) {
    out->push_back(Make("link.counters", -1, Severity::kNote,
                        "no baseline at " + in.baseline_path +
                            ": error rates are judged since the last run only (record one "
                            "with `railcheck baseline`)",
                        "no baseline"));
  }
  for (const NicFacts& n : in.facts->nics) {
    if (!HasPort(n)) continue;
    const PortFacts& p = n.port;
    if (!p.counters_error.empty()) {
      out->push_back(
          Make("link.counters", n.rail, Severity::kNote,
               RailNic(n) + " " + p.counters_error + "; link.errors and link.flap cannot judge it",
               RailNic(n) + " no counters"));
      continue;
    }
    int no_pma = 0;
    std::vector<std::string> errors;
    for (const auto& kv : p.counters) {
      if (kv.second.no_pma) ++no_pma;
      if (!kv.second.error.empty()) errors.push_back(kv.second.error);
    }
    for (const auto& kv : p.hw_counters)
      if (!kv.second.error.empty()) errors.push_back(kv.second.error);
    if (no_pma > 0) {
      out->push_back(Make("link.counters", n.rail, Severity::kNote,
                          RailNic(n) + " " + std::to_string(no_pma) + " of " +
                              std::to_string(p.counters.size()) +
                              " counters read 'N/A (no PMA)': the device has no performance "
                              "management agent, so link.errors and link.flap cannot judge them",
                          RailNic(n) + " counters N/A"));
    }
    if (!errors.empty()) {
      std::string more =
          errors.size() > 1 ? " (and " + std::to_string(errors.size() - 1) + " more)" : "";
      out->push_back(Make("link.counters", n.rail, Severity::kNote,
                          RailNic(n) + " " + errors[0] + more, RailNic(n) + " bad counter"));
    }
    // Counters a limit names that this port does not have.
    std::vector<std::string> lacking;
    for (const auto& kv : in.config->link_error_limits) {
      const bool hw = kv.first.rfind("hw_counters/", 0) == 0;
      const auto& m = hw ? p.hw_counters : p.counters;
      if (!m.count(hw ? kv.first.substr(12) : kv.first)) lacking.push_back(kv.first);
    }
    if (!lacking.empty() && no_pma == 0) {
      std::string list;
      for (size_t i = 0; i < lacking.size() && i < 3; ++i) list += (i ? ", " : "") + lacking[i];
      if (lacking.size() > 3) list += " (and " + std::to_string(lacking.size() - 3) + " more)";
      out->push_back(Make(
          "link.counters", n.rail, Severity::kNote,
          RailNic(n) + " has no counter " + list + " in " + p.dir + "; link.errors cannot judge it",
          RailNic(n) + " lacks counters"));
    }
  }
  for (const PortMoves& pm : h.ports) {
    const NicFacts* n = NicOfRail(*in.facts, pm.rail);
    if (!n) continue;
    for (const CounterMove& m : pm.moves) {
      if (m.saturated) {
        out->push_back(Make("link.counters", pm.rail, Severity::kNote,
                            RailNic(*n) + " " + m.key + " is stuck at " + std::to_string(m.value) +
                                ", the maximum of its " + std::to_string(m.bits) +
                                "-bit counter: its increases are invisible until the counters "
                                "are reset",
                            RailNic(*n) + " " + m.key + " saturated"));
      }
      if (m.went_backwards) {
        out->push_back(Make("link.counters", pm.rail, Severity::kNote,
                            RailNic(*n) + " " + m.key + " went backwards (" +
                                std::to_string(*m.last) + " -> " + std::to_string(m.value) +
                                ") since the last run: the counters were reset (driver "
                                "restart, reboot or perfquery -R); counting again from " +
                                std::to_string(m.value),
                            RailNic(*n) + " counters reset"));
      }
    }
  }
}

void CheckPcieSpeed(const JudgeInput& in, const History& h, std::vector<Finding>* out) {
  CheckPcieLink(
      in, h, "pcie.speed", "current_link_speed",
      [](const PciDevice& d, std::optional<double>* cur, bool* down, std::string* err) {
        if (!d.cur_speed.ok()) {
          *err = d.cur_speed.error;
          return false;
        }
        if (d.cur_speed.value->unknown) {
          *down = true;
          *err = d.cur_speed.raw;
          return true;
        }
        *cur = d.cur_speed.value->gts;
        return true;
      },
      [](const PciDevice& d) -> std::optional<double> {
        if (!d.max_speed.ok() || d.max_speed.value->unknown) return std::nullopt;
        return d.max_speed.value->gts;
      },
      [](double v) { return FormatPcieSpeed(v); },
      [](double v) { return FormatNumber(v) + " GT/s"; }, out);
}

void CheckPcieWidth(const JudgeInput& in, const History& h, std::vector<Finding>* out) {
  CheckPcieLink(
      in, h, "pcie.width", "current_link_width",
      [](const PciDevice& d, std::optional<double>* cur, bool* down, std::string* err) {
        if (!d.cur_width.ok()) {
          *err = d.cur_width.error;
          return false;
        }
        if (*d.cur_width.value == 0) {
          *down = true;
          *err = "0";
          return true;
        }
        *cur = *d.cur_width.value;
        return true;
      },
      [](const PciDevice& d) -> std::optional<double> {
        if (!d.max_width.ok() || *d.max_width.value == 0) return std::nullopt;
        return *d.max_width.value;
      },
      [](double v) { return "x" + FormatNumber(v); },
      [](double v) { return "x" + FormatNumber(v); }, out);
}

void CheckPcieAer(const JudgeInput& in, const History& h, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  for (const JudgedDevice& d : h.devices) {
    const PciDevice* dev = Device(*in.facts, d.bdf);
    if (!dev) continue;
    for (const char* kind : {"correctable", "nonfatal", "fatal"}) {
      const AerFact& a = AerFileOf(*dev, kind);
      const std::string check =
          std::string(kind) == "correctable" ? "pcie.aer_correctable" : "pcie.aer";
      if (a.present && !a.value.ok()) {
        out->push_back(Make(check, d.rail, Severity::kDegraded, d.label + " " + a.value.error,
                            d.short_label + " AER unreadable"));
      }
    }
    auto moves = h.aer.find(d.bdf);
    if (moves == h.aer.end()) continue;
    for (const AerMove& m : moves->second) {
      const AerFact& file = AerFileOf(*dev, m.kind);
      const std::string breakdown = AerBreakdown(file);
      const std::string why = breakdown.empty() ? "" : " (" + breakdown + ")";
      if (m.kind == "fatal") {
        // Sticky: a fatal error stays a fault until the counters reset (reboot) or a new
        // baseline accepts it.
        const uint64_t ref = m.at_baseline.value_or(0);
        if (m.value > ref) {
          const std::string against = m.at_baseline
                                          ? " > " + std::to_string(ref) + " at the baseline"
                                          : " > 0 (no baseline: counted since boot)";
          out->push_back(
              Make("pcie.aer", d.rail, Severity::kDown,
                   d.label + " fatal AER errors " + std::to_string(m.value) + against + why,
                   d.short_label + " PCIe fatal AER error"));
        }
        continue;
      }
      const bool corr = m.kind == "correctable";
      const std::string check = corr ? "pcie.aer_correctable" : "pcie.aer";
      const std::string name = corr ? "correctable" : "non-fatal";
      const double lim =
          static_cast<double>(corr ? cfg.aer_correctable_per_hour : cfg.aer_nonfatal_per_hour);
      if (m.last && m.since_last > 0) {
        const double rate = PerHour(m.since_last, h.since_last_seconds, cfg);
        if (rate > lim) {
          out->push_back(Make(check, d.rail, Severity::kDegraded,
                              d.label + " " + name + " AER errors +" +
                                  std::to_string(m.since_last) + " in " +
                                  FormatDuration(h.since_last_seconds) + " since the last run (" +
                                  Rate(rate) + ") > limit " + Rate(lim) + why,
                              d.short_label + " PCIe " + name + " AER " + Rate(rate)));
          continue;
        }
      }
      if (m.since_baseline && *m.since_baseline > 0) {
        const double rate = PerHour(*m.since_baseline, h.since_baseline_seconds, cfg);
        if (rate > lim) {
          out->push_back(
              Make(check, d.rail, Severity::kDegraded,
                   d.label + " " + name + " AER errors +" + std::to_string(*m.since_baseline) +
                       " in " + FormatDuration(h.since_baseline_seconds) + " since the baseline (" +
                       Rate(rate) + ") > limit " + Rate(lim) + why,
                   d.short_label + " PCIe " + name + " AER " + Rate(rate)));
        }
      }
    }
  }
}

void CheckGpuCount(const JudgeInput& in, std::vector<Finding>* out) {
  const NodeFacts& f = *in.facts;
  if (!f.gpus_complete) return;
  const std::string expected = std::to_string(in.gpus_expected);
  if (!f.gpu_error.empty()) {
    out->push_back(Make("gpu.count", -1, Severity::kDown,
                        "cannot look for GPUs: " + f.gpu_error + "; expected " + expected,
                        "GPU scan failed"));
    return;
  }
  int present = 0;
  for (const GpuFacts& g : f.gpus) present += g.present ? 1 : 0;
  if (f.gpu_source == "gpu_pci") {
    for (const GpuFacts& g : f.gpus) {
      if (g.present) continue;
      const int rail = g.index < static_cast<int>(f.nics.size()) ? g.index : -1;
      const std::string who = (rail >= 0 ? "rail" + std::to_string(rail) + " " : std::string()) +
                              "gpu" + std::to_string(g.index);
      out->push_back(Make("gpu.count", rail, Severity::kDown,
                          who + " " + g.bdf + " missing (" + g.missing + "); " +
                              std::to_string(present) + " of " + expected + " GPUs present",
                          who + " missing"));
    }
    return;
  }
  if (present == in.gpus_expected) return;
  const std::string count = std::to_string(present) + " NVIDIA GPUs in " +
                            JoinPath(f.sysfs_root, "bus/pci/devices") + ", expected " + expected;
  // Rails whose PCIe switch holds no GPU name the slot to look at.
  std::vector<const NicFacts*> alone;
  if (present < in.gpus_expected) {
    for (const NicFacts& n : f.nics) {
      if (!HasPciPath(n)) continue;
      bool beside = false;
      for (const GpuFacts& g : f.gpus)
        if (g.present && !g.pci_path.empty() && SwitchMiss(n, g).empty()) beside = true;
      if (!beside) alone.push_back(&n);
    }
  }
  if (alone.empty()) {
    out->push_back(Make("gpu.count", -1, Severity::kDown, count,
                        std::to_string(present) + " of " + expected + " GPUs"));
  }
  for (const NicFacts* n : alone) {
    out->push_back(
        Make("gpu.count", n->rail, Severity::kDown,
             RailNic(*n) + " has no GPU under its PCIe switch (" + count + ")",
             RailNic(*n) + " GPU missing (" + std::to_string(present) + " of " + expected + ")"));
  }
}

void CheckRailAffinity(const JudgeInput& in, std::vector<Finding>* out) {
  const NodeFacts& f = *in.facts;
  if (!f.gpus_complete || !f.gpu_error.empty()) return;
  int present = 0;
  for (const GpuFacts& g : f.gpus) present += g.present ? 1 : 0;
  // With a GPU missing from a scan, GPU k is no longer the k-th function on the bus: the
  // pairing would be wrong everywhere after it, and gpu.count already says why.
  if (f.gpu_source == "scan" && present != in.gpus_expected) return;
  for (const GpuFacts& g : f.gpus) {
    if (!g.present || g.pci_path.empty()) continue;
    const NicFacts* n = NicOfRail(f, g.index);
    if (!n || !HasPciPath(*n)) continue;
    const std::string meet = SwitchMiss(*n, g);
    if (meet.empty()) continue;
    const std::string gpu = "gpu" + std::to_string(g.index);
    out->push_back(Make("rail.affinity", n->rail, Severity::kDegraded,
                        RailNic(*n) + " (" + n->pci + ") and " + gpu + " (" + g.bdf +
                            ") are not under one PCIe switch: " + meet + "; expected GPU " +
                            std::to_string(g.index) + " beside the NIC of rail " +
                            std::to_string(n->rail),
                        RailNic(*n) + " not beside " + gpu));
  }
}

void CheckGatherTimeout(const JudgeInput& in, std::vector<Finding>* out) {
  for (const GatherTimeout& t : in.facts->timeouts) {
    const std::string what = t.path.empty() ? "starting" : "reading " + t.path;
    out->push_back(
        Make("gather.timeout", t.rail, Severity::kDown,
             t.task + ": " + what + " did not finish within " + std::to_string(t.limit_ms) + " ms",
             t.rail >= 0 ? t.task + " sysfs read timed out" : "GPU scan timed out"));
  }
}

Judgement Judge(const JudgeInput& in) {
  Judgement j;
  History h = ComputeHistory(in);
  std::vector<Finding> found;
  CheckNicPresent(in, &found);
  CheckPortState(in, &found);
  CheckPortLinkLayer(in, &found);
  CheckPortRate(in, &found);
  CheckLinkErrors(in, h, &found);
  CheckLinkFlap(in, h, &found);
  CheckLinkCounters(in, h, &found);
  CheckPcieSpeed(in, h, &found);
  CheckPcieWidth(in, h, &found);
  CheckPcieAer(in, h, &found);
  CheckGpuCount(in, &found);
  CheckRailAffinity(in, &found);
  CheckGatherTimeout(in, &found);

  Verdict& v = j.verdict;
  for (const NicFacts& n : in.facts->nics) v.rails.push_back(RailHealth{n.rail, n.name});
  for (Finding& f : found) {
    auto a = in.config->actions.find(f.check);
    f.action = a == in.config->actions.end() ? HealthAction::kWarn : a->second;
    if (f.action == HealthAction::kOff) continue;
    v.level = std::max(v.level, LevelOf(f.action));
    if (f.rail >= 0 && f.rail < static_cast<int>(v.rails.size()) && f.severity != Severity::kNote) {
      RailStatus s = f.severity == Severity::kDown ? RailStatus::kDown : RailStatus::kDegraded;
      v.rails[f.rail].status = std::max(v.rails[f.rail].status, s);
    }
    v.findings.push_back(std::move(f));
  }
  std::stable_sort(v.findings.begin(), v.findings.end(), [](const Finding& a, const Finding& b) {
    if (LevelOf(a.action) != LevelOf(b.action)) return LevelOf(a.action) > LevelOf(b.action);
    if (a.severity != b.severity) return a.severity > b.severity;
    if (CheckIndex(a.check) != CheckIndex(b.check))
      return CheckIndex(a.check) < CheckIndex(b.check);
    return a.rail < b.rail;
  });
  j.next = std::move(h.next);
  h.next = RunState();
  j.history = std::move(h);
  return j;
}

}  // namespace railguard::health
