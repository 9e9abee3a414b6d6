// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's changes to node features inside slurmctld: the fixes of one hold of the
 * write locks (js_keeper.c), grouped by the two lists they set, each group applied with one
 * update of Slurm's feature maps for all its nodes. */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_FEATURES_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_FEATURES_H_

#include <stdbool.h>

/* The fixes of one hold: start with rg_fix_batch_create(), add each node's fix, apply. */
typedef struct rg_fix_batch rg_fix_batch_t;

/* How a batch changes Slurm's records. */
typedef enum {
  /* Slurm's update_node(), one call per group, as `scontrol update node` would: it updates
   * the feature maps node by node (every feature's node map, once per node: 11-20 us per
   * node at 4,096 nodes and 130 features). */
  RG_FIX_VIA_UPDATE_NODE,
  /* The group's nodes' lists set as update_node() sets them without a NodeFeatures plugin,
   * then Slurm's own update_node_avail_features() and update_node_active_features() once for
   * the whole group. Also where a NodeFeatures plugin is configured: there update_node()
   * translates the lists, and node_features/helpers gives the active list back every feature
   * it does not own (node_features_p_node_xlate: new U (orig - changeable)), so it could not
   * take the healthy feature from a node (keeper_helpers_2511_itest.sh); a batch only adds or
   * drops that one feature of lists Slurm already holds translated. A group whose active list
   * is not within its available list (which update_node() refuses with its own message) goes
   * through update_node(). */
  RG_FIX_BY_GROUP,
} rg_fix_via_t;

rg_fix_batch_t *rg_fix_batch_create(void);

/* Adds node `index` (a node_record_t's index), whose lists become `features`
 * and `features_act` (malloc'd; the batch owns them from here on), `avail` when its
 * available list changes, `fix` an RG_JS_FIX_* kind (js_bridge.h). */
void rg_fix_batch_add(rg_fix_batch_t *b, int index, char *features, char *features_act, bool avail,
                      int fix);

/* Called for each node a batch changed, with its RG_JS_FIX_* kind and name. */
typedef void (*rg_fix_done_fn)(void *arg, int fix, const char *name);

/* Applies the batch and frees it: calls `done` for each node changed, logs an error for a
 * group Slurm refused, and returns how many nodes changed. REQUIRES: job, node and partition
 * write locks (those of the update-node RPC). */
int rg_fix_batch_apply(rg_fix_batch_t *b, rg_fix_via_t via, rg_fix_done_fn done, void *arg);

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_FEATURES_H_ */
