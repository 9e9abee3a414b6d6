// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/fabric_input.h"

#include <sys/stat.h>

#include <cmath>

#include "healthcheck/checks.h"
#include "healthcheck/railcheck.h"

namespace railguard::health {

bool LoadNodeFabric(const HealthConfig& h, const std::string& node, const std::string& su,
                    double now, NodeFabric* out, std::string* note) {
  note->clear();
  if (h.fabric_evidence.empty()) return false;
  const std::string path = ExpandNode(h.fabric_evidence, node);
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  wire::FabricEvidence e;
  Diags diags;
  if (!wire::LoadFabricEvidence(path, &e, &diags)) {
    *note = "fabric evidence ignored: " + FormatDiags(diags);
    while (!note->empty() && note->back() == '\n') note->pop_back();
    return false;
  }
  const double age = now - e.time;
  if (std::fabs(age) > h.fabric_evidence_max_age_seconds) {
    *note = "fabric evidence " + path + " is stale: sweep " +
            (age >= 0 ? FormatDuration(age) + " ago" : FormatDuration(-age) + " in the future") +
            ", more than health.fabric_evidence_max_age_seconds " +
            FormatDuration(h.fabric_evidence_max_age_seconds) + "; ignored, drains nothing";
    return false;
  }
  out->file = path;
  out->time = e.time;
  for (wire::SwitchSideProblem& p : e.links)
    if (p.node == node) out->links.push_back(std::move(p));
  for (wire::LeafFault& f : e.leaves)
    if (f.su == su) out->leaves.push_back(std::move(f));
  return true;
}

}  // namespace railguard::health
