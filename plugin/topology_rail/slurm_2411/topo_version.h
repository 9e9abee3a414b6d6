/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology/rail's Slurm-version differences, Slurm 24.11: switch_record_t is topology/tree's
 * (built into this plugin from the 24.11 tree, table in topo_eval_2411.c) and the top switch
 * has SWITCH_NO_PARENT. topo_slurm.c includes this file only. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_

#include "src/interfaces/topology.h"
#include "src/plugins/topology/tree/switch_record.h"

/* The parent of the top switch: 24.11's tree marks it with SWITCH_NO_PARENT. */
#define RG_TOP_PARENT(self) ((uint16_t)SWITCH_NO_PARENT)

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_ */
