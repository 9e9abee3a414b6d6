// SPDX-License-Identifier: GPL-2.0-or-later
// The switch tree topology/rail gives Slurm, planned from the rail topology and the nodes of
// slurm.conf: one leaf-level switch per one-hop domain (an SU of one leaf per rail is one),
// a switch per SU of several domains above its domain leaves, one leaf for nodes the rail
// topology does not know, and one top switch above them all; plus a node ranking that orders
// nodes SU by SU, domain by domain. Pure: the Slurm-facing code turns the plan into Slurm's
// switch_record_table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topo/model.h"

namespace railguard::plugin {

// Slurm's INFINITE: the distance between switches that share no ancestor.
inline constexpr uint32_t kNoPath = 0xffffffff;

struct PlannedSwitch {
  std::string name;
  int level = 0;                 // 0 = leaf (a one-hop domain or the unmapped nodes); 1 = a
                                 // split SU's switch, or the top; the top is above all
  uint32_t link_speed = 1;       // Gb/s per node over all rails; 1 (Slurm's default) when
                                 // unknown, as for the unmapped leaf
  std::vector<int> nodes;        // leaves: indexes into the node list given to PlanSwitches
  std::vector<int> children;     // top and SU switches: indexes into SwitchPlan::switches
  std::string children_expr;     // the children as a compressed hostlist ("su[1-4]")
  int parent = -1;               // the parent's index; the top switch names itself
  std::vector<int> descendants;  // every switch below this one
  std::vector<uint32_t> dist;    // hops to every switch of the plan (0 to itself)
  bool unmapped = false;         // true: the leaf of the nodes the rail topology does not
                                 // list (CPU or login nodes), not a one-hop domain
};

// One line for the daemon's log.
struct PlanNote {
  bool warning = false;  // true: a mismatch the admin should fix; false: information
  std::string text;
};

struct SwitchPlan {
  std::vector<PlannedSwitch> switches;  // SU by SU in file order: its domain leaves, then its
                                        // switch if split; the unmapped leaf; the top last
  std::vector<uint32_t> rank;           // per given node: its place, SU by SU, from 0
  std::vector<PlanNote> notes;          // nodes missing on either side, the unmapped switch
  int levels = 0;                       // the highest switch level
};

// Plans the switches for `slurm_nodes` (the node names of slurm.conf, in any order).
// `source` names the rail topology in notes. Nodes the topology does not list go under a
// leaf "<cluster>-unmapped" (still usable, outside every SU); SUs none of whose nodes are in
// slurm.conf get no switch, nor do such domains. Node ranks follow SU order, then domain
// order, then the hostlist order;
// unmapped nodes come last in Slurm's sorted hostlist order.
// REQUIRES: `topo` loaded and validated.
SwitchPlan PlanSwitches(const topo::Topology& topo, const std::vector<std::string>& slurm_nodes,
                        const std::string& source);

// What the node ranking of a reconfiguration knows besides the plan.
struct RankingFacts {
  // The node table's order as the last (re)configuration of this slurmctld left it; empty at
  // the first ranking of the process.
  std::vector<std::string> previous;
  // Running, suspended or completing jobs that hold more than one node. Slurm rebuilds such a
  // job's node bitmap by name at a reconfigure, but its per-node arrays (CPUs, cores, memory,
  // GRES) keep the job's old node order: a new relative order of its nodes mismatches them.
  int multi_node_jobs = 0;
  // False at slurmctld's start, which ranks before it recovers its jobs: `previous` then comes
  // from the order file (FormatNodeOrder) and is kept, as if multi-node jobs ran.
  bool jobs_known = true;
};

struct Ranking {
  std::vector<uint32_t> rank;  // per node given: its place in the node table, from 0
  bool kept = false;           // true: the previous order was kept over a different new one
  std::vector<PlanNote> notes;  // one line when the previous order was kept
};

// Ranks `nodes` (the node names of slurm.conf) given `fresh`, the SU-by-SU ranks of
// PlanSwitches for them. The fresh ranks apply when nothing was ranked before, or when the
// jobs are known and no multi-node job holds nodes. Otherwise every node of `facts.previous` keeps its place
// relative to the others and nodes new to the table come after all of them, in fresh-rank
// order; a note says so when that differs from the fresh order. `source` names the rail
// topology in the note.
// REQUIRES: fresh.size() == nodes.size(); distinct fresh ranks; distinct names.
Ranking RankNodes(const std::vector<std::string>& nodes, const std::vector<uint32_t>& fresh,
                  const RankingFacts& facts, const std::string& source);

// The order file topology/rail keeps in StateSaveLocation, so that a restarted slurmctld
// keeps the order its recovered jobs were allocated in: a comment line, then one node name
// per line in node-table order.
inline constexpr const char* kNodeOrderFile = "railguard_node_order";
std::string FormatNodeOrder(const std::vector<std::string>& order);

// Reads FormatNodeOrder's text (`path` names it in errors) into `*order`. Lines starting
// with '#' and empty lines are skipped. False with `*error` = "<path>:<line>: <what>;
// expected one node name per line" for a name with blanks or a name given twice.
bool ParseNodeOrder(const std::string& text, const std::string& path,
                    std::vector<std::string>* order, std::string* error);

}  // namespace railguard::plugin
