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

// port.state. Reads: no health.* (expects state 4: ACTIVE, phys_state 5: LinkUp).
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
    std::vector<std::string> wrong;
    std::vector<std::string> brief;
    if (p.state.value->code != check_util::kStateActive) {
      wrong.push_back("state " + p.state.raw + " (expected 4: ACTIVE)");
      brief.push_back(p.state.value->name);
    }
    if (p.phys_state.value->code != check_util::kPhysLinkUp) {
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

// port.rate. Reads: the rails' links of the topology (JudgeInput::rail_links); no health.*.
void CheckPortRate(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
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
