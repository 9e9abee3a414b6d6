// SPDX-License-Identifier: GPL-2.0-or-later
// A heterogeneous job kept in one SU (--rail-hetjob=together). Slurm 22.05 places each
// component as a job of its own, so --switches cannot tie them together; job_submit/rail
// picks one SU for all of them at submission and excludes every other node of their scope
// from each component. Pure: the Slurm side gathers the nodes and applies the exclusion.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topo/model.h"

namespace railguard::plugin {

// One node a component may get (its partition, reservation, minus --exclude).
struct ScopeNode {
  std::string name;
  bool healthy = false;  // carries the healthy feature (or health is not required)
  bool idle = false;     // idle and neither drained nor down, now
};

// The choice for all of a hetjob's `total` nodes.
struct TogetherChoice {
  int su = -1;                       // index into topo.sus; -1: no SU has `total` healthy nodes
  uint32_t healthy = 0;              // healthy nodes of that SU in the scope
  uint32_t idle_healthy = 0;         // of which idle now
  std::vector<std::string> outside;  // scope nodes not in that SU (to exclude), in order
};

// Among the SUs of `topo` with at least `total` healthy scope nodes: the one whose idle
// healthy nodes hold `total` most tightly now (best fit, so that whole SUs stay free for large
// jobs); when none holds it now, the one with the most idle healthy nodes (the shortest wait
// in all likelihood). Ties go to the first SU. Scope nodes outside the topology count as
// outside every SU.
TogetherChoice ChooseTogetherSu(const topo::Topology& topo, const std::vector<ScopeNode>& scope,
                                uint32_t total);

// Whether the job's SPANK environment ("NAME=value" entries) asks for --rail-hetjob=together.
// False with `*err` set when the value is wrong.
bool HetjobTogether(const std::vector<std::string>& spank_env, bool* together, std::string* err);

}  // namespace railguard::plugin
