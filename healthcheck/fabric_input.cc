// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/fabric_input.h"

#include <sys/stat.h>

#include <chrono>
#include <cmath>

#include "base/text_file.h"
#include "healthcheck/checks.h"
#include "healthcheck/isolate.h"
#include "healthcheck/railcheck.h"

namespace railguard::health {

bool ReadEvidenceHere(const std::string& path, std::string* text, std::string* why) {
  why->clear();
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  Diags diags;
  if (ReadTextFile(path, wire::kFabricEvidenceInput, text, &diags)) return true;
  *why = FormatDiags(diags);
  if (why->empty()) *why = path + ": could not be read";
  return false;
}

EvidenceRead BoundedEvidenceRead(int limit_ms) {
  return [limit_ms](const std::string& path, std::string* text, std::string* why) {
    ChildLimits limits;
    limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
    const ChildOutcome c = RunInChild(
        [&path](ChildReporter&, std::string* out, std::string* err) {
          // 0: read; 1: absent; 2: unreadable (err says why).
          if (ReadEvidenceHere(path, out, err)) return 0;
          return err->empty() ? 1 : 2;
        },
        limits);
    if (!c.started) return ReadEvidenceHere(path, text, why);
    if (c.finished) {
      if (c.code == 0) {
        *text = c.out;
        return true;
      }
      *why = c.code == 1 ? "" : c.err;
      return false;
    }
    *why = path + ": not read within " + std::to_string(limit_ms) +
           " ms (a hung file system?); this run judges without it" +
           (c.reaped ? "" : ", and its reader is left to end when the read returns");
    return false;
  };
}

bool LoadNodeFabric(const HealthConfig& h, const std::string& node, const std::string& su,
                    double now, NodeFabric* out, std::string* note, const EvidenceRead& read) {
  note->clear();
  if (h.fabric_evidence.empty()) return false;
  const std::string path = ExpandNode(h.fabric_evidence, node);
  std::string text;
  std::string why;
  wire::FabricEvidence e;
  Diags diags;
  if (!read(path, &text, &why) || !wire::ParseFabricEvidence(text, path, &e, &diags)) {
    if (!why.empty() || !diags.empty())
      *note = "fabric evidence ignored: " + (why.empty() ? FormatDiags(diags) : why);
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
