// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/railcheck_gather.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "healthcheck/confirm.h"
#include "healthcheck/gather.h"
#include "healthcheck/railcheck_judge_act.h"

namespace railguard::health {

NodeFacts GatherFacts(const RunContext& ctx, const Options& o, const Setup& s, const StateFiles& st,
                      std::vector<std::string>* notes) {
  const CliDeps& deps = ctx.deps;
  ctx.Phase(kReadingPhase);
  GatherSpec spec;
  spec.node = s.node;
  spec.sysfs_root = s.sysfs_root;
  spec.nics = s.type->nics;
  spec.gpu_pci = s.type->gpu_pci;
  spec.read_timeout_ms = s.health().read_timeout_ms;
  // However busy the node, the gathers (first and re-reads) end by half the run's time limit,
  // leaving the rest for judging and acting; a read stuck in the kernel ends one sooner.
  const auto budget_end = ctx.start + std::chrono::milliseconds(500 * s.time_limit_seconds);
  auto total_ms = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          budget_end - std::chrono::steady_clock::now())
                          .count();
    return static_cast<int>(std::max<long long>(spec.read_timeout_ms, left));
  };
  spec.total_timeout_ms = total_ms();
  // RoCE rails' ethtool statistics: only the live node's netdevs can be asked.
  if (s.sysfs_root == kLiveSysfs && deps.open_ethtool) spec.ethtool = deps.open_ethtool();
  spec.boot_id_file = ExpandNode(s.health().boot_id_file, s.node);
  std::shared_ptr<Verbs> verbs =
      s.sysfs_root == kLiveSysfs && deps.open_verbs ? deps.open_verbs() : nullptr;
  NodeFacts facts = Gather(spec, deps.fs, verbs);
  if (o.mode == Mode::kBaseline) return facts;
  ctx.Phase("judging transients");
  ConfirmSpec cs;
  cs.reads = s.health().confirm_reads;
  cs.delay_ms = s.health().confirm_delay_ms;
  cs.read_ms = s.health().read_timeout_ms;
  cs.budget_end = budget_end;
  ConfirmDeps cd;
  const double now = deps.now();
  cd.judge = [&](const NodeFacts& f) { return Judge(JudgeInputOf(RunInput{o, s, st, f, now})); };
  cd.reread = [&](const std::vector<int>& rails, bool gpus) {
    GatherSpec again = spec;
    again.nics.clear();
    for (int r : rails) again.nics.push_back(s.type->nics[r]);
    again.gpus = gpus;
    again.total_timeout_ms = total_ms();
    ctx.Phase(kReadingPhase);
    NodeFacts f = Gather(again, deps.fs, verbs);
    ctx.Phase("judging transients");
    return f;
  };
  cd.sleep = [&ctx](int ms) {
    ctx.Phase("waiting to re-read");
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
  cd.now = [] { return std::chrono::steady_clock::now(); };
  return ConfirmTransients(std::move(facts), cs, cd, notes);
}

}  // namespace railguard::health
