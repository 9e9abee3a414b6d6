// SPDX-License-Identifier: GPL-2.0-or-later
// Checks from the fabric evidence (healthcheck/fabric_input.h): the switch end of a rail's
// link, and the rail's leaf as a whole.
#include <string>

#include "healthcheck/checks.h"
#include "healthcheck/fabric_input.h"

namespace railguard::health {
namespace {

std::string NicOf(const JudgeInput& in, int rail) {
  for (const NicFacts& n : in.facts->nics)
    if (n.rail == rail) return n.name;
  return "?";
}

std::string Where(const JudgeInput& in, const wire::SwitchSideProblem& p) {
  return "rail" + std::to_string(p.rail) + " " + NicOf(in, p.rail) + " switch side " + p.leaf +
         (p.port > 0 ? " port " + std::to_string(p.port) : "");
}

// The switch-side problems of kind `errors` (true) or width/speed (false).
void SwitchSide(const JudgeInput& in, bool errors, const char* check, std::vector<Finding>* out) {
  if (!in.fabric) return;
  for (const wire::SwitchSideProblem& p : in.fabric->links) {
    if ((p.problem == "errors") != errors) continue;
    Finding f;
    f.check = check;
    f.rail = p.rail;
    f.severity = Severity::kDegraded;
    f.reason = Where(in, p) + " " + (errors ? "errors" : p.problem + " down") + " (fabric sweep)";
    f.message = std::string(check) + ": " + Where(in, p) + ": " + p.detail + " (fabric sweep " +
                FormatDuration(in.now - in.fabric->time) + " ago, " + in.fabric->file + ")";
    out->push_back(std::move(f));
  }
}

}  // namespace

void CheckFabricSwitchErrors(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  SwitchSide(in, true, "fabric.switch_errors", out);
}

void CheckFabricSwitchRate(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  SwitchSide(in, false, "fabric.switch_rate", out);
}

void CheckFabricLeaf(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  if (!in.fabric) return;
  for (const wire::LeafFault& l : in.fabric->leaves) {
    Finding f;
    f.check = "fabric.leaf";
    f.rail = l.rail;
    f.severity = Severity::kDegraded;
    f.reason = "rail" + std::to_string(l.rail) + " leaf " + l.leaf + " " +
               std::to_string(l.bad_ports) + "/" + std::to_string(l.ports) +
               " ports erring (fabric sweep)";
    f.message = "fabric.leaf: rail" + std::to_string(l.rail) + " leaf " + l.leaf + " of " + l.su +
                ": " + std::to_string(l.bad_ports) + " of " + std::to_string(l.ports) +
                " host ports have findings (fabric sweep " +
                FormatDuration(in.now - in.fabric->time) + " ago, " + in.fabric->file +
                "): no multi-node jobs in " + l.su;
    out->push_back(std::move(f));
  }
}

}  // namespace railguard::health
