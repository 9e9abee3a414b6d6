// SPDX-License-Identifier: GPL-2.0-or-later
// Acting on a verdict: what to change on the node in Slurm (drain with a railcheck: reason,
// resume, the healthy feature, per-rail health in the Extra field), planned as a pure
// function of the verdict, the node's Slurm state and the run state's streaks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "healthcheck/checks.h"
#include "healthcheck/state.h"
#include "wire/drain_reason.h"

namespace railguard::health {

// The node as Slurm sees it.
struct SlurmNode {
  std::string name;
  bool drain = false;  // the DRAIN flag (draining or drained)
  bool down = false;   // base state DOWN
  std::string reason;
  std::string features;      // available features, comma separated
  std::string features_act;  // active features; Slurm reports "" when equal to features
  std::string extra;         // the Extra field
};

// What to change; unset fields are left alone. Sent as one update_node_msg_t.
struct NodeUpdate {
  std::optional<std::string> drain_reason;  // set DRAIN with this reason
  bool resume = false;                      // clear DRAIN (NODE_RESUME)
  std::optional<std::string> features;      // new available features
  std::optional<std::string> features_act;  // new active features
  std::optional<std::string> extra;         // new Extra

  bool empty() const { return !drain_reason && !resume && !features && !features_act && !extra; }
};

// The plan for one run.
struct Plan {
  NodeUpdate update;
  RunState next;                   // the run state with streaks and counts updated
  std::vector<std::string> lines;  // what is done and why, one line each
};

// The Slurm reason for a drain verdict (wire/drain_reason.h): the first drain finding's short
// form made printable, " (+N more)" when there are others, cut to wire::kMaxReasonChars.
// REQUIRES: v.level == Level::kDrain.
std::string DrainReason(const Verdict& v);

// The node's per-rail health for the Extra field (wire::WriteExtra): time `now`, the verdict,
// each rail's status and the rail (or node) and check of every finding that is not a note.
// When `current` already holds a JSON object its other keys are kept; when it holds other
// text nullopt is returned (railcheck does not overwrite what someone else put there).
std::optional<std::string> ExtraJson(const Verdict& v, double now, const std::string& current);

// Plans the Slurm changes for verdict `v` on `node`, given the run state `next` (from the
// judge: counters already updated, streaks from the previous run):
//  - streaks: clean_streak counts runs without a drain or restrict finding,
//    drain_free_streak runs without a drain finding;
//  - drain verdict: drain the node with DrainReason() unless it is already drained (by
//    railcheck: the reason is kept as it is, so a flapping link is drained once; by an
//    admin: nothing is touched); the healthy feature is removed;
//  - a node drained by railcheck (reason prefix) is resumed once drain_free_streak reaches
//    health.resume_after_clean_runs; a node drained by anyone else is never resumed; a
//    railcheck drain that `next` does not show (feature_held false: the state file was not
//    written or was deleted) starts both streaks from zero;
//  - restrict verdict: the feature is removed (the node keeps running single-node jobs);
//  - clean: the feature is (re-)added every run (`scontrol reconfigure` drops features set
//    by update), except after railcheck removed it: then only once clean_streak reaches
//    resume_after_clean_runs;
//  - Extra carries ExtraJson().
Plan PlanActions(const Verdict& v, const SlurmNode& node, RunState next, const HealthConfig& health,
                 const std::string& feature, double now);

// `list` (comma separated) with `feature` added or removed; order otherwise kept.
std::string WithFeature(const std::string& list, const std::string& feature, bool present);

// Talks to slurmctld. Implemented over libslurm (slurm_api.h); tests use a fake.
class SlurmApi {
 public:
  virtual ~SlurmApi() = default;
  // The node `name`. False with `*err` when Slurm cannot be asked or has no such node.
  virtual bool GetNode(const std::string& name, SlurmNode* out, std::string* err) = 0;
  // Applies `u` to node `name` in one request. False with `*err` (Slurm's error text).
  virtual bool UpdateNode(const std::string& name, const NodeUpdate& u, std::string* err) = 0;
};

}  // namespace railguard::health
