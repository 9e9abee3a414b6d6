/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology/rail's Slurm-version differences, Slurm 25.11: switch_record_t is topology/tree's
 * (built into this plugin from the 25.11 tree) and lives in a per-topology context
 * (tree_context_t in topology_ctx_t.plugin_ctx, as topology.yaml may list several
 * topologies). The names the shared code uses for the table resolve to the context that
 * topology_rail_2511.c points rg_tree_ctx at before each call. topo_slurm.c, topo_eval.c and
 * topo_info.c include it, after every Slurm header. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_

#include "src/interfaces/topology.h"
#include "src/plugins/topology/tree/switch_record.h"

/* The context of the call in progress; never NULL (an empty one before any build). */
extern tree_context_t *rg_tree_ctx;

#define switch_record_table (rg_tree_ctx->switch_table)
#define switch_record_cnt (rg_tree_ctx->switch_count)
#define switch_levels (rg_tree_ctx->switch_levels)

/* The parent of the top switch: 25.11's tree marks it with SWITCH_NO_PARENT. */
#define RG_TOP_PARENT(self) ((uint16_t)SWITCH_NO_PARENT)

/* Points the switch table at the context of an evaluation (eval_nodes_tree reads the same). */
#define RG_EVAL_CONTEXT(topo_eval) (rg_tree_ctx = (topo_eval)->tctx->plugin_ctx)

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_ */
