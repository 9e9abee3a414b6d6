// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail for Slurm 24.11: the symbols src/interfaces/topology.c looks up, each routed
 * to topo_slurm.c (shared with 22.05) or to topo_eval.h (shared with 25.11); and the
 * switch table topology/tree's evaluation code reads, which topo_slurm.c fills. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdbool.h>
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "src/common/run_in_daemon.h"
#include "plugin/topology_rail/topo_eval.h"
#include "plugin/topology_rail/topo_slurm.h"
#include "topo_version.h"
// clang-format on

const char plugin_name[] = "railguard rail topology plugin";
const char plugin_type[] = "topology/rail";
/* Not one of slurm.h's TOPOLOGY_PLUGIN_* (100-103): a packed topology names its plugin. */
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* topology/tree's globals on 24.11 (its switch_record.c, not built in, defines them). */
switch_record_t *switch_record_table = NULL;
int switch_record_cnt = 0;
int switch_levels = 0;

/* Commands (scontrol, srun, sbatch) load the plugin too, only to unpack and print the
 * topology: they read no rail setup (nor log about it on the user's terminal). */
extern int init(void) { return running_in_daemon() ? rail_topo_init() : SLURM_SUCCESS; }
extern int fini(void) {
  rail_topo_eval_fini();
  return rail_topo_fini();
}
extern int topology_p_build_config(void) { return rail_topo_build_config_and_index(); }
extern int topology_p_eval_nodes(topology_eval_t *topo_eval) {
  return rail_topo_eval_nodes(topo_eval);
}
extern int topology_p_whole_topo(bitstr_t *node_mask) { return rail_topo_whole_topo(node_mask); }
extern bitstr_t *topology_p_get_bitmap(char *name) { return rail_topo_get_bitmap(name); }
extern bool topology_p_generate_node_ranking(void) { return rail_topo_generate_node_ranking(); }
extern int topology_p_get_node_addr(char *node_name, char **addr, char **pattern) {
  return rail_topo_get_node_addr(node_name, addr, pattern);
}
extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
                                     uint16_t tree_width) {
  return rail_topo_split_hostlist(hl, sp_hl, count, tree_width);
}
extern int topology_p_topology_free(void *info) { return rail_topo_info_free(info); }
extern int topology_p_get(topology_data_t type, void *data) {
  return rail_topo_get(type, data, plugin_id);
}
extern int topology_p_topology_pack(void *info, buf_t *buffer, uint16_t protocol_version) {
  return rail_topo_info_pack(info, buffer, protocol_version);
}
extern int topology_p_topology_print(void *info, char *nodes_list, char **out) {
  return rail_topo_info_print(info, nodes_list, out);
}
extern int topology_p_topology_unpack(void **info, buf_t *buffer, uint16_t protocol_version) {
  return rail_topo_info_unpack(info, buffer, protocol_version);
}
/* Fragmentation is reported by topology/block only (as tree, 0). */
extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask) {
  (void)node_mask;
  return 0;
}
