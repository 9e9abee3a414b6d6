/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology/rail's Slurm-version differences, Slurm 22.05: where switch_record_t lives and
 * how the top switch's parent is written. topo_slurm.c includes this file only. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_

#include "src/common/slurm_topology.h" /* switch_record_t and its table, in slurmctld */

/* The parent of the top switch (index `self`): 22.05's tree names the top switch itself. */
#define RG_TOP_PARENT(self) ((uint16_t)(self))

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_ */
