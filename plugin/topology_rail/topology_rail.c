// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail: Slurm's switch tree from a railguard rail topology (one leaf switch per
 * scalable unit, one top switch), with nodes ranked scalable unit by scalable unit.
 * This file holds only the symbols Slurm looks up; each routes to topo_slurm.c. */

#include <stdbool.h>
#include <stdint.h>

#include "plugin/topology_rail/topo_slurm.h"
#include "slurm/slurm.h"

const char plugin_name[] = "railguard rail topology plugin";
const char plugin_type[] = "topology/rail";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void) { return rail_topo_init(); }

extern int fini(void) { return rail_topo_fini(); }

extern int topo_build_config(void) { return rail_topo_build_config(); }

extern bool topo_generate_node_ranking(void) { return rail_topo_generate_node_ranking(); }

extern int topo_get_node_addr(char *node_name, char **addr, char **pattern) {
  return rail_topo_get_node_addr(node_name, addr, pattern);
}
