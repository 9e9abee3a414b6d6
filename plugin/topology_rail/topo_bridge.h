// SPDX-License-Identifier: GPL-2.0-or-later
/* C ABI between topology/rail's Slurm-facing C code and its C++ core (topo_bridge.cc).
 * Every function catches all exceptions; none throws. Not thread-safe: Slurm calls the
 * topology plugin under its configuration lock. */
#ifndef RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_BRIDGE_H_
#define RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_BRIDGE_H_

#include <stdint.h>

#include "plugin/common/bridge.h" /* rg_log_fn, RG_LOG_*, RG_LOAD_* */

#ifdef __cplusplus
extern "C" {
#endif

/* One switch of the plan; indexes refer to the node names given to rg_topo_plan and to the
 * plan's own switch array. */
typedef struct {
  char *name;          /* switch name */
  int level;           /* 0 = leaf, 1 = top */
  uint32_t link_speed; /* arbitrary units (Gb/s per node) */
  int parent;          /* index of the parent; the top switch names itself */
  int *nodes;          /* leaves: node indexes */
  int node_cnt;
  int *children; /* top: child switch indexes */
  int child_cnt;
  char *children_expr; /* top: child names as a hostlist; NULL for leaves */
  int *descendants;    /* all switches below */
  int desc_cnt;
  uint32_t *dist; /* hops to each switch of the plan */
  int unmapped;   /* 1: the leaf of the nodes the rail topology does not list (not a
                   * one-hop domain); 0: a one-hop domain, an SU's or the top switch */
} rg_switch_t;

typedef struct {
  rg_switch_t *switches; /* leaves first, the top switch last */
  int switch_cnt;
  int levels;     /* highest switch level */
  uint32_t *rank; /* per node given: its rank, SU by SU */
} rg_plan_t;

/* Loads railguard.yaml at `conf_path` and the rail topology it names, logging every problem
 * through `log`. Returns RG_LOAD_OK when loaded; RG_LOAD_KEPT when loading failed but an
 * earlier setup stays in force; RG_LOAD_NONE when loading failed and there is none. */
int rg_topo_load(const char *conf_path, rg_log_fn log);

/* Plans the switches and ranks for `count` node names. Notes (nodes missing on either side)
 * go to `log` unless it is NULL. Returns 0 with *out set (release with rg_topo_plan_free),
 * or -1 when nothing is loaded or planning failed. */
int rg_topo_plan(const char *const *names, int count, rg_log_fn log, rg_plan_t **out);

/* Sets rank[0..count) for `count` node names (the node table before Slurm sorts it by rank):
 * SU by SU (the plan's ranks) when nothing was ranked before or when `multi_node_jobs`
 * (running, suspended or completing jobs on more than one node) is 0; otherwise the order
 * rg_topo_note_order recorded last is kept, new nodes after it (RankNodes, switch_plan.h),
 * with one line to `log`. At the first ranking of the process, `state_dir`'s order file
 * (kNodeOrderFile), when there is one, is that order and is kept (the jobs are not recovered
 * yet); a bad file is logged and ignored. `state_dir` may be NULL (no file). Returns 0, or
 * -1 (rank untouched: Slurm then sorts by name) when there is neither a loaded topology nor
 * an order to keep, or on an internal error. */
int rg_topo_rank(const char *const *names, int count, int multi_node_jobs, const char *state_dir,
                 rg_log_fn log, uint32_t *rank);

/* Records `count` node names in the order this (re)configuration left the node table, for the
 * next rg_topo_rank, and writes them to `state_dir`'s order file when they changed (the first
 * call always writes). A failed write is logged. `state_dir` may be NULL (no file). */
void rg_topo_note_order(const char *const *names, int count, const char *state_dir,
                        rg_log_fn log);

/* The node feature that marks a node's rails healthy (placement.healthy_feature of the
 * loaded setup), malloc'd (release with free()); NULL when nothing is loaded, the feature is
 * "" (no health marking), health.mode is observe (nothing kept out), or out of memory. */
char *rg_topo_healthy_feature(void);

/* Releases a plan from rg_topo_plan; NULL is fine. */
void rg_topo_plan_free(rg_plan_t *plan);

/* Forgets the loaded setup and the recorded node order. */
void rg_topo_fini(void);

#ifdef __cplusplus
}
#endif

#endif /* RAILGUARD_PLUGIN_TOPOLOGY_RAIL_TOPO_BRIDGE_H_ */
