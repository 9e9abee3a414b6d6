/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology/rail's Slurm-version differences, Slurm 24.11: switch_record_t is topology/tree's
 * (built into this plugin from the 24.11 tree; its table is three globals, defined in
 * topology_rail_2411.c) and the top switch has SWITCH_NO_PARENT. topo_slurm.c, topo_eval.c and
 * topo_info.c include it. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_

#include "src/interfaces/topology.h"
#include "src/plugins/topology/tree/switch_record.h"

/* The parent of the top switch: 24.11's tree marks it with SWITCH_NO_PARENT. */
#define RG_TOP_PARENT(self) ((uint16_t)SWITCH_NO_PARENT)

/* Points the switch table at the context of an evaluation: one global table on 24.11. */
#define RG_EVAL_CONTEXT(topo_eval) ((void)(topo_eval))

/* A failed try: Slurm before 26.05 has no ESLURM_TOPO_* reasons nor eval_action; its retry
 * loop always goes on, and the job waits for "Resources". */
#define RG_EVAL_FAIL(topo_eval, reason, action) ((void)(topo_eval), SLURM_ERROR)

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_ */
