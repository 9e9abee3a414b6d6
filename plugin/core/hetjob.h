// SPDX-License-Identifier: GPL-2.0-or-later
// A heterogeneous job kept in one one-hop domain (--rail-hetjob=together; the SU itself when
// it has one leaf per rail). Slurm 22.05 places each component as a job of its own, so
// --switches cannot tie them together; job_submit/rail picks one domain for all of them at
// submission and excludes every other node of their scope from each component. Pure: the Slurm side gathers the nodes and applies the exclusion.
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
  int domain = -1;                   // index into topo.domains; -1: none has `total` healthy
  int su = -1;                       // index into topo.sus: the SU of that domain
  uint32_t healthy = 0;              // healthy nodes of that domain in the scope
  uint32_t idle_healthy = 0;         // of which idle now
  std::vector<std::string> outside;  // scope nodes not in that domain (to exclude), in order
};

// Among the one-hop domains of `topo` with at least `total` healthy scope nodes: the one
// whose idle healthy nodes hold `total` most tightly now (best fit, so that whole domains stay
// free for large jobs); when none holds it now, the one with the most idle healthy nodes (the
// shortest wait in all likelihood). Ties go to the first domain. Scope nodes outside the
// topology count as outside every domain.
TogetherChoice ChooseTogetherSu(const topo::Topology& topo, const std::vector<ScopeNode>& scope,
                                uint32_t total);

// Whether the job's SPANK environment ("NAME=value" entries) asks for --rail-hetjob=together.
// False with `*err` set when the value is wrong.
bool HetjobTogether(const std::vector<std::string>& spank_env, bool* together, std::string* err);

}  // namespace railguard::plugin
