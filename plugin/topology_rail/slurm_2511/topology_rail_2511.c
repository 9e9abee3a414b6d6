// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail for Slurm 25.11 and 26.05: the symbols src/interfaces/topology.c looks up
 * (26.05's additions are in slurm_2605/topology_rail_2605.c, built beside this file), each
 * routed to topo_slurm.c (shared with 22.05) or to topo_eval.h (shared with 24.11) after
 * pointing rg_tree_ctx (topo_version.h) at the topology context Slurm passes. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdbool.h>
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "plugin/topology_rail/topo_eval.h"
#include "plugin/topology_rail/topo_slurm.h"
#include "topo_version.h"
// clang-format on

const char plugin_name[] = "railguard rail topology plugin";
const char plugin_type[] = "topology/rail";
/* Not one of slurm.h's TOPOLOGY_PLUGIN_* (100-10x): a packed topology names its plugin. */
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;
/* Exclusive=TOPO partitions and --exclusive=topo jobs: Slurm keeps other jobs off every node of
 * the domains such a job touches (rail_topo_whole_topo; the leaf of unmapped nodes is none). */
const bool supports_exclusive_topo = true;

static tree_context_t empty_ctx;
tree_context_t *rg_tree_ctx = &empty_ctx;

void rg_use_ctx(void *plugin_ctx) { rg_tree_ctx = plugin_ctx ? plugin_ctx : &empty_ctx; }

/* Commands (scontrol, srun, sbatch) load the plugin too, only to unpack and print the
 * topology: they read no rail setup (nor log about it on the user's terminal). */
extern int init(void) { return running_in_daemon() ? rail_topo_init() : SLURM_SUCCESS; }
extern void fini(void) {
  rg_use_ctx(NULL);
  rail_topo_eval_fini();
  (void)rail_topo_fini();
}
/* Nodes come from slurm.conf and the rail topology; dynamic topology units are not taken. */
extern int topology_p_add_rm_node(node_record_t *node_ptr, char *unit, topology_ctx_t *tctx) {
  (void)node_ptr;
  (void)tctx;
  return (unit && unit[0]) ? ESLURM_NOT_SUPPORTED : SLURM_SUCCESS;
}
extern int topology_p_build_config(topology_ctx_t *tctx) {
  if (!tctx->plugin_ctx) tctx->plugin_ctx = xmalloc(sizeof(tree_context_t));
  rg_use_ctx(tctx->plugin_ctx);
  return rail_topo_build_config_and_index();
}
/* Frees the context's switch table; the next build reloads the rail setup. */
extern int topology_p_destroy_config(topology_ctx_t *tctx) {
  rg_use_ctx(tctx->plugin_ctx);
  rail_topo_eval_fini();
  (void)rail_topo_fini();
  rg_use_ctx(NULL);
  xfree(tctx->plugin_ctx);
  return SLURM_SUCCESS;
}
extern int topology_p_eval_nodes(topology_eval_t *topo_eval) {
  return rail_topo_eval_nodes(topo_eval);
}
extern int topology_p_whole_topo(bitstr_t *node_mask, void *ctx) {
  rg_use_ctx(ctx);
  return rail_topo_whole_topo(node_mask);
}
extern bitstr_t *topology_p_get_bitmap(char *name, void *ctx) {
  rg_use_ctx(ctx);
  return rail_topo_get_bitmap(name);
}
extern bool topology_p_generate_node_ranking(topology_ctx_t *tctx) {
  rg_use_ctx(tctx->plugin_ctx);
  return rail_topo_generate_node_ranking();
}
extern int topology_p_get_node_addr(char *node_name, char **addr, char **pattern, void *ctx) {
  rg_use_ctx(ctx);
  return rail_topo_get_node_addr(node_name, addr, pattern);
}
extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
                                     uint16_t tree_width, void *ctx) {
  (void)ctx;
  return rail_topo_split_hostlist(hl, sp_hl, count, tree_width);
}
extern int topology_p_get(topology_data_t type, void *data, void *ctx) {
  rg_use_ctx(ctx);
  return rail_topo_get(type, data, plugin_id);
}
extern int topology_p_topoinfo_free(void *info) { return rail_topo_info_free(info); }
extern int topology_p_topoinfo_pack(void *info, buf_t *buffer, uint16_t protocol_version) {
  return rail_topo_info_pack(info, buffer, protocol_version);
}
/* `unit` (a switch name, 25.x) and `nodes_list` select records alike. */
extern int topology_p_topoinfo_print(void *info, char *nodes_list, char *unit, char **out) {
  return rail_topo_info_print(info, (unit && unit[0]) ? unit : nodes_list, out);
}
extern int topology_p_topoinfo_unpack(void **info, buf_t *buffer, uint16_t protocol_version) {
  return rail_topo_info_unpack(info, buffer, protocol_version);
}
/* No per-job topology data (as tree). */
extern void topology_p_jobinfo_free(void *jobinfo) { (void)jobinfo; }
extern void topology_p_jobinfo_pack(void *jobinfo, buf_t *buffer, uint16_t protocol_version) {
  (void)jobinfo;
  (void)buffer;
  (void)protocol_version;
}
extern int topology_p_jobinfo_unpack(void **jobinfo, buf_t *buffer, uint16_t protocol_version) {
  (void)jobinfo;
  (void)buffer;
  (void)protocol_version;
  return SLURM_SUCCESS;
}
extern int topology_p_jobinfo_get(topology_jobinfo_type_t type, void *jobinfo, void *data) {
  (void)type;
  (void)jobinfo;
  (void)data;
  return ESLURM_NOT_SUPPORTED;
}
/* Free nodes outside wholly free domains (backfill's bf_topopt_enable weighs placements by
 * it); tree reports 0. */
extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask, void *ctx) {
  rg_use_ctx(ctx);
  return rail_topo_fragmentation(node_mask);
}
/* "<topology>:<top>:<leaf>" for the node (its switches from the top down), as tree writes it. */
extern void topology_p_get_topology_str(node_record_t *node_ptr, char **str,
                                        topology_ctx_t *tctx) {
  int chain[64], depth = 0;

  rg_use_ctx(tctx->plugin_ctx);
  for (int i = 0; i < switch_record_cnt; i++) {
    if ((switch_record_table[i].level != 0) ||
        !bit_test(switch_record_table[i].node_bitmap, node_ptr->index))
      continue;
    for (int sw = i; (sw < switch_record_cnt) && (depth < 64); sw = switch_record_table[sw].parent)
      chain[depth++] = sw;
    break;
  }
  if (!depth) return;
  xstrfmtcat(*str, "%s%s", *str ? "," : "", tctx->name);
  while (depth > 0) xstrfmtcat(*str, ":%s", switch_record_table[chain[--depth]].name);
}
