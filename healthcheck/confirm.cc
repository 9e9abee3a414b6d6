// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/confirm.h"

#include <algorithm>
#include <map>

namespace railguard::health {
namespace {

bool Counts(const Finding& f) {
  if (f.action != HealthAction::kDrain && f.action != HealthAction::kRestrict) return false;
  const std::vector<std::string>& checks = TransientChecks();
  return std::find(checks.begin(), checks.end(), f.check) != checks.end();
}

// Rail (-1: the GPU scan) -> the message of its first transient finding, in `j`.
std::map<int, std::string> Suspects(const Judgement& j) {
  std::map<int, std::string> out;
  for (const Finding& f : j.verdict.findings)
    if (Counts(f)) out.emplace(f.rail, f.message);
  return out;
}

std::string Times(int n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

const std::vector<std::string>& TransientChecks() {
  static const std::vector<std::string> kChecks = {"port.state", "port.rate", "gather.timeout"};
  return kChecks;
}

void MergeReread(const NodeFacts& again, const std::vector<int>& rails, bool gpus,
                 NodeFacts* into) {
  auto reread = [&](int rail) {
    return (gpus && rail < 0) || std::find(rails.begin(), rails.end(), rail) != rails.end();
  };
  std::vector<GatherTimeout>& t = into->timeouts;
  t.erase(std::remove_if(t.begin(), t.end(), [&](const GatherTimeout& x) { return reread(x.rail); }),
          t.end());
  for (size_t i = 0; i < rails.size() && i < again.nics.size(); ++i) {
    if (rails[i] < 0 || rails[i] >= static_cast<int>(into->nics.size())) continue;
    NicFacts n = again.nics[i];
    n.rail = rails[i];
    into->nics[rails[i]] = std::move(n);
  }
  for (GatherTimeout x : again.timeouts) {
    if (x.rail >= 0 && x.rail < static_cast<int>(rails.size())) {
      x.rail = rails[x.rail];
      if (x.rail < static_cast<int>(into->nics.size()))
        x.task = "rail" + std::to_string(x.rail) + " " + into->nics[x.rail].name;
    } else if (x.rail >= 0 || !gpus) {
      continue;
    }
    t.push_back(std::move(x));
  }
  for (const auto& kv : again.pci) into->pci[kv.first] = kv.second;
  if (gpus) {
    into->gpus_complete = again.gpus_complete;
    into->gpu_source = again.gpu_source;
    into->gpu_error = again.gpu_error;
    into->gpus = again.gpus;
  }
  into->verbs_used = into->verbs_used || again.verbs_used;
  into->gather_ms += again.gather_ms;
}

NodeFacts ConfirmTransients(NodeFacts facts, const ConfirmSpec& spec, const ConfirmDeps& deps,
                            std::vector<std::string>* notes) {
  std::map<int, std::string> pending = Suspects(deps.judge(facts));
  const std::map<int, std::string> first = pending;
  int done = 0;
  const std::string apart = std::to_string(spec.delay_ms) + " ms apart";
  while (!pending.empty() && done < spec.reads) {
    if (deps.now() + std::chrono::milliseconds(spec.delay_ms + spec.read_ms) > spec.budget_end)
      break;
    deps.sleep(spec.delay_ms);
    ++done;
    std::vector<int> rails;
    bool gpus = false;
    for (const auto& kv : pending) {
      if (kv.first >= 0) rails.push_back(kv.first);
      else gpus = true;
    }
    MergeReread(deps.reread(rails, gpus), rails, gpus, &facts);
    const std::map<int, std::string> still = Suspects(deps.judge(facts));
    for (auto it = pending.begin(); it != pending.end();) {
      auto s = still.find(it->first);
      if (s != still.end()) {
        it->second = s->second;
        ++it;
        continue;
      }
      notes->push_back("transient, not counted: " + first.at(it->first) + "; read again " +
                       std::to_string(done) + " of " + std::to_string(spec.reads) + " after " +
                       std::to_string(spec.delay_ms) + " ms: no longer failing");
      it = pending.erase(it);
    }
  }
  for (const auto& kv : pending) {
    if (done == spec.reads) {
      if (spec.reads > 0)
        notes->push_back("confirmed on " + Times(done + 1, "read") + " " + apart + ": " +
                         kv.second);
    } else {
      notes->push_back("counted unconfirmed (no time left for re-read " +
                       std::to_string(done + 1) + " of " + std::to_string(spec.reads) +
                       " within half the run's time limit): " + kv.second);
    }
  }
  return facts;
}

}  // namespace railguard::health
