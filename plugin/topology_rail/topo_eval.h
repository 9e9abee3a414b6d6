/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology/rail's entry points that Slurm has since 24.05 (topology_p_*; built for 24.11 and
 * later): node selection (topo_eval.c) and the records of `scontrol show topology`
 * (topo_info.c), on the switch table topo_slurm.c builds (reached through topo_version.h).
 * The entry points 22.05 has too (init, build_config, ranking, node address) stay in
 * topo_slurm.c. REQUIRES: src/common/slurm_xlator.h included first. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_EVAL_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_EVAL_H_

#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/pack.h"
#include "src/interfaces/topology.h"

/* Selects the job's nodes into topo_eval->node_map through Slurm's common evaluation
 * (common_topo_choose_nodes, tree's eval_nodes_tree). In a partition that holds nodes of the
 * rail topology, a job of more than one node gets only rail nodes with the healthy feature;
 * one that fits a one-hop domain gets one domain (the fullest that holds it) or nothing (it
 * waits); a larger one the fewest domains. A partition without rail nodes (CPU nodes only),
 * or no switch table, is left to Slurm's own algorithms, as topology/flat would. Returns
 * Slurm's result. */
int rail_topo_eval_nodes(topology_eval_t *topo_eval);

/* Whether node index `node_idx` sits in a one-hop domain none of whose nodes runs or ends a
 * job (all in slurmctld's idle_node_bitmap): a domain a job of its size could still take
 * whole. False for a node of no domain (unmapped, or no switch table). Under slurmctld's node
 * lock, as every evaluation. */
bool rail_topo_in_unused_domain(int node_idx);

/* rail_topo_build_config, then the domain index of the new table (topo_domains.h), built
 * here, where slurmctld holds its write locks, rather than by the first evaluation after it:
 * evaluations, fragmentation and ranks may run side by side under read locks, and only
 * read it. SLURM_SUCCESS. */
int rail_topo_build_config_and_index(void);

/* Frees what the evaluation keeps between calls (the domain index, topo_domains.h): at
 * fini, and where the switch table is destroyed. */
void rail_topo_eval_fini(void);

/* Adds to node_mask every node of each domain it touches. SLURM_SUCCESS. */
int rail_topo_whole_topo(bitstr_t *node_mask);

/* The nodes of the switch named `name` (not to be freed), NULL if there is none. */
bitstr_t *rail_topo_get_bitmap(char *name);

/* Message fan-out: Slurm's tree-width split (common_topo_split_hostlist_treewidth). */
int rail_topo_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
                             uint16_t tree_width);

/* The nodes of `mask` that sit in a domain `mask` holds only part of (0 when every domain is
 * wholly in or wholly out of it): how fragmented the free nodes are, for the backfill
 * scheduler's topology-aware choice (SchedulerParameters=bf_topopt_enable; lower is better,
 * as topology/block's count). Domains only; the leaf of unmapped nodes is not one. */
uint32_t rail_topo_fragmentation(bitstr_t *mask);

/* For each node of node_bitmap, in index order, its leaf switch's number (1 = the first in the
 * table; 0 = none) shifted left by id_shift (26.05's TOPO_RANK_ID_SHIFT): Slurm orders a
 * step's tasks by it, so ranks follow the domains. *node_rank (xmalloc'd, NULL for an empty
 * map) holds *size entries. SLURM_SUCCESS. */
int rail_topo_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size,
                       uint32_t id_shift);

/* topology_p_get: TOPO_DATA_TOPOLOGY_PTR (a copy of the switch table tagged with plugin id
 * `id`, freed by rail_topo_info_free), TOPO_DATA_REC_CNT, TOPO_DATA_EXCLUSIVE_TOPO (0). */
int rail_topo_get(topology_data_t type, void *data, uint32_t id);

/* Packs, unpacks, prints and frees what rail_topo_get hands out (tree's wire layout).
 * Unpack returns SLURM_ERROR with *out NULL on a short buffer. Print: every switch, the
 * switch named `name`, or the leaves holding the nodes `name`; xmalloc'd into *out. */
int rail_topo_info_pack(void *info, buf_t *buffer, uint16_t protocol_version);
int rail_topo_info_unpack(void **out, buf_t *buffer, uint16_t protocol_version);
int rail_topo_info_print(void *info, char *name, char **out);
int rail_topo_info_free(void *info);

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_EVAL_H_ */
