/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A set of Slurm node indexes (a domain's nodes) and whether it is one run [first, end) of
 * indexes. Sites number nodes domain by domain, so a domain's nodes are usually one run, and
 * counting a map's nodes in it then reads only that run's words (bit_set_count_range), not
 * the whole map: with 128 domains of 32 nodes, one or two words per domain instead of 64
 * (Slurm is built without hardware popcount, so every word counted is a libgcc call). Used by
 * topology/rail's domain index and job_submit/rail's domain counts, in slurmctld's scheduling
 * path: no I/O, no lock, no allocation. REQUIRES: src/common/slurm_xlator.h included first. */
#ifndef RAILGUARD_PLUGIN_COMMON_NODE_RUN_H_
#define RAILGUARD_PLUGIN_COMMON_NODE_RUN_H_

#include "src/common/bitstring.h"

typedef struct {
  int first; /* the set is exactly the indexes [first, end): first; else -1 */
  int end;
} rg_node_run_t;

/* The run of `nodes` (NULL or empty: none). */
rg_node_run_t rg_node_run_of(bitstr_t *nodes);

/* How many nodes of `map` are in `nodes`, whose run is `run` (rg_node_run_of(nodes)): over
 * the run's words when it is one inside `map`, else bit_overlap (`map` and `nodes` of one
 * size). 0 when either is NULL. */
int rg_node_run_count(rg_node_run_t run, bitstr_t *nodes, bitstr_t *map);

#endif /* RAILGUARD_PLUGIN_COMMON_NODE_RUN_H_ */
