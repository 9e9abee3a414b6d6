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

/* No fast path for jobs of one node: they go through rail_topo_eval_nodes as on 25.11, which
 * puts them into the fullest domain that has room (tree's best fit over the leaves), so that
 * whole domains stay free for multi-node jobs. Slurm's fast path would take any node. */
extern bool topology_p_allow_one_node(void *tctx) {
  (void)tctx;
  return false;
}

/* Whether one node can serve the job: Slurm's common test, as tree and block use it. */
extern int topology_p_eval_node(topology_eval_t *topo_eval, int node_idx) {
  return common_test_node(topo_eval, node_idx);
}

/* Task ranks follow the domains: each node's rank is its leaf switch's number in the upper
 * bits (TOPO_RANK_ID_SHIFT), so a step's tasks fill one domain before the next. */
extern int topology_p_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size,
                               void *tctx) {
  rg_use_ctx(tctx);
  return rail_topo_get_rank(node_bitmap, node_rank, size, TOPO_RANK_ID_SHIFT);
}
