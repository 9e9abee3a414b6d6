// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail against Slurm's internals: one function per plugin entry point
 * (topology_rail.c routes each entry point here). Plain C types only, so that the entry file
 * needs no Slurm internal header. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_SLURM_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_SLURM_H_

#include <stdbool.h>

/* Loads railguard.yaml (found by the rule of config/locate.h:
 * beside $SLURM_CONF, else beside Slurm's default slurm.conf) and its rail topology. In slurmctld
 * a failure returns SLURM_ERROR, so that Slurm stops with the problems in its log; in slurmd
 * it is logged and topology addresses fall back to node names. */
int rail_topo_init(void);

/* The index in the switch table of the leaf that holds the nodes the rail topology does not
 * list (CPU, login nodes: "<cluster>-unmapped"), or -1 when every node is in a one-hop domain
 * or there is no table. Set with the table by rail_topo_build_config. (One per plugin: Slurm
 * 25.11's topology.yaml cannot name topology/rail, so it never has more than one context.) */
extern int rg_unmapped_leaf;

/* Counts every change of the switch table (rebuilt or freed): what indexes of it kept between
 * calls compare against (topo_domains.c). */
extern unsigned long rg_topo_table_generation;

/* Releases the switch table and the loaded setup. */
int rail_topo_fini(void);

/* Reloads the setup if this (re)configuration has not loaded it yet (a failed reload keeps
 * the last good one), then sets node_rank of every node: SU by SU at a reconfigure while no
 * running, suspended or completing job holds more than one node (and at a first start);
 * otherwise in the order the last (re)configuration left, new nodes after it; a starting
 * slurmctld keeps the order saved in StateSaveLocation (rg_topo_rank). Returns false when
 * there is nothing to rank by. */
bool rail_topo_generate_node_ranking(void);

/* Reloads as above, then rebuilds switch_record_table, switch_record_cnt and switch_levels
 * for the current node table; in slurmctld also records (and saves) the table's order for the
 * next ranking. Always SLURM_SUCCESS (Slurm ignores the result). */
int rail_topo_build_config(void);

/* "<top>.<leaf>.<node>" and "switch.switch.node" for `node_name`; the bare node name when
 * there are no switches or the node is under none. SLURM_ERROR for an unknown node. */
int rail_topo_get_node_addr(char *node_name, char **addr, char **pattern);

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_SLURM_H_ */
