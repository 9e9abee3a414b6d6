// SPDX-License-Identifier: GPL-2.0-or-later
// The checks of a rail NIC, its port and its link: nic.present, port.state,
// port.link_layer, port.rate, link.flap.
#include <string>
#include <vector>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"
#include "healthcheck/parse.h"

namespace railguard::health {

using check_util::ActiveAndUp;
using check_util::HasPort;
using check_util::Make;
using check_util::RailNic;

// nic.present. Reads: the node type's nics and nic_pci (JudgeInput::nic_pci); no health.*.
void CheckNicPresent(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
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

namespace {

// The kernel's names of ports/N/state values (drivers/infiniband/core/sysfs.c, state_show:
// enum ib_port_state of include/rdma/ib_verbs.h); "" for a code it has no name for.
std::string KernelStateName(int code) {
  static const char* const kNames[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  return code >= 0 && code < 6 ? kNames[code] : "";
}

// The kernel's names of ports/N/phys_state values (enum ib_port_phys_state and
// ib_port_phys_state_str() of include/rdma/ib_verbs.h, printed by phys_state_show in
// drivers/infiniband/core/sysfs.c); "" for a code it has no name for.
std::string KernelPhysStateName(int code) {
  static const char* const kNames[] = {"",
                                       "Sleep",
                                       "Polling",
                                       "Disabled",
                                       "PortConfigurationTraining",
                                       "LinkUp",
                                       "LinkErrorRecovery",
                                       "Phy Test"};
  return code >= 1 && code < 8 ? kNames[code] : "";
}

// "phys_state 4 (PortConfigurationTraining) != 5 LinkUp": the value by its number, named as
// the kernel names that number (not as the file did), against the one expected.
std::string WrongState(const char* what, const Fact<PortStateValue>& f, const std::string& name,
                       int want, const char* want_name) {
  return std::string(what) + " " + std::to_string(f.value->code) + " (" +
         (name.empty() ? "unknown to the kernel" : name) + ") != " + std::to_string(want) + " " +
         want_name;
}

}  // namespace

// port.state. Reads: no health.* (expects state 4: ACTIVE, phys_state 5: LinkUp). The message
// lists every wrong value (and the file's text when its name is not the kernel's name of its
// number: a capture whose phys_state read "4: ACTIVE"); the reason names the most severe one:
// phys_state, the physical layer a logical state follows, then state.
void CheckPortState(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    if (!HasPort(n)) continue;
    const PortFacts& p = n.port;
    if (!p.state.ok() || !p.phys_state.ok()) {
      out->push_back(Make("port.state", n.rail, Severity::kDown,
                          RailNic(n) + " " + (p.state.ok() ? p.phys_state.error : p.state.error),
                          RailNic(n) + " port state unreadable"));
      continue;
    }
    std::vector<std::string> wrong;  // most severe first
    std::vector<std::string> detail;
    auto add = [&](const char* what, const Fact<PortStateValue>& f, const std::string& name,
                   int want, const char* want_name) {
      if (f.value->code == want) return;
      wrong.push_back(WrongState(what, f, name, want, want_name));
      detail.push_back(wrong.back() + (f.value->name == name ? std::string()
                                                             : " (the file read '" + f.raw + "')"));
    };
    add("phys_state", p.phys_state, KernelPhysStateName(p.phys_state.value->code),
        check_util::kPhysLinkUp, "LinkUp");
    add("state", p.state, KernelStateName(p.state.value->code), check_util::kStateActive, "ACTIVE");
    if (wrong.empty()) continue;
    std::string text = RailNic(n);
    for (size_t i = 0; i < detail.size(); ++i) text += (i ? ", " : " ") + detail[i];
    out->push_back(Make("port.state", n.rail, Severity::kDown, text, RailNic(n) + " " + wrong[0]));
  }
}

// port.link_layer. Reads: health.link_layer.
void CheckPortLinkLayer(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
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

namespace {

// What a port's rate falls short in: "width 1X < 4X", "speed HDR < NDR", both, or "" when
// neither explains it (the rate alone is then named).
std::string RateShortfall(const RateValue& got, const topo::LinkSpec& want) {
  std::vector<std::string> parts;
  if (want.width > 0 && got.width < want.width)
    parts.push_back("width " + std::to_string(got.width) + "X < " + std::to_string(want.width) +
                    "X");
  // Old kernels print no speed for SDR ("10 Gb/sec (4X)").
  const std::string speed = got.speed.empty() ? "SDR" : got.speed;
  const double lane = topo::LaneRateGbps(speed), want_lane = topo::LaneRateGbps(want.speed);
  if (!want.speed.empty() && speed != want.speed && want_lane > 0 && lane < want_lane)
    parts.push_back("speed " + speed + " < " + want.speed);
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace

// port.rate. Reads: the rails' links of the topology (JudgeInput::rail_links); no health.*.
// Judged on every port whose logical state is ACTIVE (the rate is the one it trained to),
// also when phys_state is wrong: port.state reports that, and both are listed.
void CheckPortRate(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  for (const NicFacts& n : in.facts->nics) {
    // A port that is not up has no meaningful rate; port.state reports it.
    if (!HasPort(n) || !n.port.state.ok() || n.port.state.value->code != check_util::kStateActive)
      continue;
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
    const std::string why = RateShortfall(*rate.value, want);
    const std::string rates = "rate " + FormatNumber(rate.value->gbps) + " Gb/s < " +
                              FormatNumber(want.rate_gbps) + " Gb/s";
    out->push_back(Make("port.rate", n.rail, Severity::kDegraded,
                        RailNic(n) + " rate " + rate.raw + " < expected " + want.ToSysfsRate() +
                            (why.empty() ? "" : ": " + why),
                        RailNic(n) + " " + (why.empty() ? rates : why)));
  }
}

// link.flap. Reads: health.flap_window_seconds (through the history's flaps).
void CheckLinkFlap(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out) {
  const HealthConfig& cfg = *in.config;
  const std::string window = FormatDuration(cfg.flap_window_seconds);
  for (const PortMoves& pm : h.ports) {
    if (pm.flaps.empty()) continue;
    const NicFacts* n = check_util::NicOfRail(*in.facts, pm.rail);
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

}  // namespace railguard::health
