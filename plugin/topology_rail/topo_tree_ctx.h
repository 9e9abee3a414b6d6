/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the switch table lives since Slurm 25.11 (included by slurm_2511/ and slurm_2605/
 * topo_version.h): switch_record_t is topology/tree's (built into this plugin from the
 * release's tree) and lives in a per-topology context (tree_context_t in
 * topology_ctx_t.plugin_ctx, as topology.yaml may list several topologies). The names the
 * shared code uses for the table resolve to the context that the entry file
 * (slurm_2511/topology_rail_2511.c) points rg_tree_ctx at before each call. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_TREE_CTX_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_TREE_CTX_H_

#include "src/interfaces/topology.h"
#include "src/plugins/topology/tree/switch_record.h"

/* The context of the call in progress; never NULL (an empty one before any build). */
extern tree_context_t *rg_tree_ctx;
/* Points rg_tree_ctx at `plugin_ctx` (a tree_context_t), or at an empty one for NULL. */
void rg_use_ctx(void *plugin_ctx);

#define switch_record_table (rg_tree_ctx->switch_table)
#define switch_record_cnt (rg_tree_ctx->switch_count)
#define switch_levels (rg_tree_ctx->switch_levels)

/* The parent of the top switch: tree marks it with SWITCH_NO_PARENT. */
#define RG_TOP_PARENT(self) ((uint16_t)SWITCH_NO_PARENT)

/* Points the switch table at the context of an evaluation (eval_nodes_tree reads the same). */
#define RG_EVAL_CONTEXT(topo_eval) (rg_tree_ctx = (topo_eval)->tctx->plugin_ctx)

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_TREE_CTX_H_ */
