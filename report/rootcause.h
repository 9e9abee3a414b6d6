// SPDX-License-Identifier: GPL-2.0-or-later
// Root-cause hints: from which nodes have which rails degraded or down, the fabric component
// most likely at fault, ranked, each with its evidence.
//
// The fabric is rail-optimized: rail k of every node of an SU goes to that SU's rail-k leaf,
// and leaves meet at the spines. So a fault's footprint says where it is:
//
//   footprint                                     suspect (kind)
//   one node, one rail                            the cable, optic or NIC port between that
//                                                 node and its leaf (cable); the NIC or its
//                                                 PCIe slot when only PCIe/presence checks
//                                                 failed (nic)
//   one node, several rails                       the host side: PCIe switch, NIC card,
//                                                 driver or firmware (host)
//   many nodes of one (SU, rail)                  that leaf switch or its uplinks (leaf)
//   one rail in many SUs                          the spine layer of that rail, or its
//                                                 subnet manager (rail-plane)
//   every rail of one SU                          what the SU's leaves share: their spine
//                                                 uplinks, rack power (su)
//   every rail of many SUs                        the spines or the subnet manager (fabric)
//
// Broader footprints are matched first and explain their nodes' rails away, so a leaf fault
// is one suspect, not one per node. Thresholds (a node counts for a cell when its rail is
// degraded or down; "reporting" nodes are those with a known state for that rail):
//   leaf:       at least kLeafMinNodes nodes and at least kLeafMinFraction of the cell's
//               reporting nodes
//   su:         at least kSuMinRailFraction of the SU's rails match the leaf rule
//   fabric:     at least kFabricMinSus SUs match the su rule, and they are at least
//               kFabricMinSuFraction of the SUs with reports
//   rail-plane: one rail matches the leaf rule in at least kPlaneMinSus SUs, which are at
//               least kPlaneMinSuFraction of the SUs with reports
//   host:       at least kHostMinRails rails of one node not explained above
// Ranking: more nodes affected first; then the broader footprint; then more rails down;
// then by name. With a fabric sweep (rootcause_sweep.h) the leaf port of a cable suspect is
// the one the sweep found the node's HCA on, and the sweep says which end errs. Without one
// it is a guess, said so in the evidence: the node's position in its SU's hostlist + 1 (node
// i of an SU on port i+1 of each rail leaf, as in the DGX SuperPOD reference cabling); the
// rail YAML has no per-node port map, and when a leaf's `ports` is set and smaller than that
// number, the port is reported as unknown.
#pragma once

#include <vector>

#include "report/report.h"
#include "report/rootcause_sweep.h"
#include "topo/model.h"

namespace railguard::report {

constexpr int kLeafMinNodes = 3;
constexpr double kLeafMinFraction = 0.25;
constexpr double kSuMinRailFraction = 0.75;
constexpr int kFabricMinSus = 2;
constexpr double kFabricMinSuFraction = 0.5;
constexpr int kPlaneMinSus = 2;
constexpr double kPlaneMinSuFraction = 0.5;
constexpr int kHostMinRails = 2;

// The checks that mean "the NIC or its PCIe link" rather than "the cable" when a single rail
// fails only those.
bool IsHostSideCheck(const std::string& check);

// The leaf port of node `position` of SU `su` on `rail`: position + 1, or 0 when the leaf's
// port count says there is no such port.
int LeafPort(const topo::Topology& topo, int su, int rail, int position);

// The suspects for `r` (nodes, SUs and cells filled in), ranked, rank 1 first, with the
// facts of `sweep` when not nullptr (ApplySweep). Pure.
std::vector<Suspect> FindSuspects(const Report& r, const topo::Topology& topo,
                                  const SweepIndex* sweep = nullptr);

// Sorts `*s` (more nodes first, then the broader footprint, more rails down, by component)
// and numbers the ranks from 1.
void RankSuspects(std::vector<Suspect>* s);

}  // namespace railguard::report
