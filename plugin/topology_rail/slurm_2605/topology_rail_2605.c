// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail for Slurm 26.05: the entry points 26.05's src/interfaces/topology.c looks up
 * beyond 25.11's (those are slurm_2511/topology_rail_2511.c, built into the same plugin). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdbool.h>
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "src/plugins/topology/common/common_topo.h"
#include "plugin/topology_rail/topo_eval.h"
#include "topo_version.h"
// clang-format on

/* Jobs of one node take Slurm's fast path (cons_tres's _get_one_res), as under tree and block:
 * no resource evaluation of every node and no tree evaluation per job. Slurm walks the nodes
 * that can run the job in its own order (weight, then GPUs near the job's cores) and takes
 * the first topology_p_eval_node accepts. */
extern bool topology_p_allow_one_node(void *tctx) {
  (void)tctx;
  return true;
}

/* In Slurm's first pass, a node of a domain where no job runs is refused: a one-node job goes
 * beside other jobs, and whole domains stay free for multi-node jobs. Slurm makes the second
 * pass only when the first found no node; there any node its common test accepts serves. */
extern int topology_p_eval_node(topology_eval_t *topo_eval, int node_idx) {
  if (topo_eval->first_pass && rail_topo_in_unused_domain(node_idx)) return SLURM_ERROR;
  return common_test_node(topo_eval, node_idx);
}

/* Task ranks follow the domains: each node's rank is its leaf switch's number in the upper
 * bits (TOPO_RANK_ID_SHIFT), so a step's tasks fill one domain before the next. */
extern int topology_p_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size,
                               void *tctx) {
  rg_use_ctx(tctx);
  return rail_topo_get_rank(node_bitmap, node_rank, size, TOPO_RANK_ID_SHIFT);
}
