/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology/rail's Slurm-version differences, Slurm 25.11: the switch table in a per-topology
 * context (topo_tree_ctx.h), and a failed evaluation that is only SLURM_ERROR. topo_slurm.c,
 * topo_eval.c and topo_info.c include it, after every Slurm header. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_

#include "plugin/topology_rail/topo_tree_ctx.h"

/* A failed try: Slurm before 26.05 has no ESLURM_TOPO_* reasons nor eval_action; its retry
 * loop always goes on, and the job waits for "Resources". */
#define RG_EVAL_FAIL(topo_eval, reason, action) ((void)(topo_eval), SLURM_ERROR)

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_ */
