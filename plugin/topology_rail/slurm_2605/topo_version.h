/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology/rail's Slurm-version differences, Slurm 26.05: the switch table as in 25.11 (a
 * per-topology context, topo_tree_ctx.h), plus what 26.05 asks of an evaluation: every failed
 * try says whether Slurm's retry loop (common_topo_choose_nodes) should go on
 * (topo_eval->eval_action), and a failure carries a reason Slurm shows the user (ESLURM_TOPO_*,
 * as the pending job's state description). topo_slurm.c, topo_eval.c and topo_info.c include
 * it, after every Slurm header. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_

#include "plugin/topology_rail/topo_tree_ctx.h"

/* A failed try: `reason` (an ESLURM_TOPO_* code) is returned, `action` (EVAL_ACTION_BREAK:
 * fewer nodes cannot help; EVAL_ACTION_RETRY_DEFAULT: Slurm may drop its least resourceful
 * nodes and call again) tells Slurm's retry loop what to do. */
#define RG_EVAL_FAIL(topo_eval, reason, action) ((topo_eval)->eval_action = (action), (reason))

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_VERSION_H_ */
