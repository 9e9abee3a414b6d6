/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-hop domains of topology/rail's switch table, indexed once per table (not per job
 * evaluation): which switch each is, its size, whether its nodes are one run of node indexes
 * (counted over that run's words only: plugin/common/node_run.h), and per node its leaf's
 * number. Used in slurmctld's scheduling path
 * (under its locks): no I/O, no lock of its own. The index is built with the table
 * (rail_topo_build_config_and_index, under slurmctld's write locks); a call that finds the
 * table changed since (rg_topo_table_generation, its address) rebuilds it. Built for Slurm 24.11
 * and later. REQUIRES: src/common/slurm_xlator.h included first. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_DOMAINS_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_DOMAINS_H_

#include <stdint.h>

#include "plugin/common/node_run.h"
#include "src/common/bitstring.h"

typedef struct {
  int sw;            /* its index in switch_record_table */
  int size;          /* its nodes */
  rg_node_run_t run; /* whether its nodes are one run of indexes (plugin/common/node_run.h) */
} rg_domain_t;

/* The domains of the current switch table, in table order (leaves, not the leaf of unmapped
 * nodes), *n of them; NULL with *n = 0 when there is no table. Valid until the table
 * changes. */
const rg_domain_t *rg_domains(int *n);

/* The nodes of `map` in domain `d`. */
int rg_domain_count(const rg_domain_t *d, bitstr_t *map);

/* True when `map` holds a node of some domain. */
bool rg_domains_overlap_any(bitstr_t *map);

/* Per node index, the number of its leaf switch (1 = the first leaf of the table, the leaf of
 * unmapped nodes included; 0 = none), *n entries; NULL with *n = 0 when there is no table. */
const uint32_t *rg_leaf_number_of_nodes(int *n);

/* The domain of node index `node_idx` (its first leaf's, as rg_leaf_number_of_nodes), NULL
 * when it is in none (an unmapped node, an index past the table's) or there is no table. */
const rg_domain_t *rg_domain_of_node(int node_idx);

/* Frees the index (plugin fini). */
void rg_domains_free(void);

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_DOMAINS_H_ */
