// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's changes to node features inside slurmctld (js_features.h). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/job_submit_rail/js_bridge.h"
#include "plugin/job_submit_rail/js_features.h"
#include "js_version.h" /* per Slurm version: slurm_2205/, slurm_2411/ */
// clang-format on

#define PREFIX "railguard: job_submit/rail:"

/* One group: the nodes whose two lists become the same two lists. */
typedef struct {
  char *features, *features_act; /* malloc'd */
  int fix;                       /* RG_JS_FIX_* */
  bool avail;                    /* the available list of one of its nodes changes */
  node_record_t **nodes;         /* xmalloc'd, n of cap */
  int n, cap;
  rg_hostlist_t names;
} _group_t;

struct rg_fix_batch {
  _group_t *groups; /* xmalloc'd, n of cap */
  int n, cap;
};

rg_fix_batch_t *rg_fix_batch_create(void) { return xmalloc(sizeof(rg_fix_batch_t)); }

void rg_fix_batch_add(rg_fix_batch_t *b, int index, char *features, char *features_act, bool avail,
                      int fix) {
  _group_t *g = NULL;
  node_record_t *node_ptr = node_record_table_ptr[index];

  for (int i = 0; i < b->n; i++)
    if (!strcmp(b->groups[i].features, features) &&
        !strcmp(b->groups[i].features_act, features_act)) {
      g = &b->groups[i];
      break;
    }
  if (g) {
    free(features);
    free(features_act);
  } else {
    if (b->n == b->cap) {
      b->cap = b->cap ? 2 * b->cap : 4;
      xrecalloc(b->groups, b->cap, sizeof(*b->groups));
    }
    g = &b->groups[b->n++];
    g->features = features;
    g->features_act = features_act;
    g->fix = fix;
    g->names = hostlist_create(NULL);
  }
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 16;
    xrecalloc(g->nodes, g->cap, sizeof(*g->nodes));
  }
  g->nodes[g->n++] = node_ptr;
  g->avail |= avail;
  hostlist_push_host(g->names, node_ptr->name);
}

/* Sets the group's lists as update_node() does without a NodeFeatures plugin (each node's
 * strings, then Slurm's feature maps), the maps once for all its nodes (js_features.h,
 * RG_FIX_BY_GROUP: also with one). */
static int _set_by_group(_group_t *g, char *names) {
  int rc = SLURM_SUCCESS;

  for (int i = 0; i < g->n; i++) {
    node_record_t *node_ptr = g->nodes[i];

    if (g->avail) {
      xfree(node_ptr->features);
      if (g->features[0]) node_ptr->features = xstrdup(g->features);
    }
    xfree(node_ptr->features_act);
    node_ptr->features_act = xstrdup(g->features_act);
  }
  if (g->avail) rc = update_node_avail_features(names, g->features, FEATURE_MODE_IND);
  if (rc == SLURM_SUCCESS)
    rc = update_node_active_features(names, g->features_act, FEATURE_MODE_IND);
  last_node_update = time(NULL);
  return rc;
}

/* With update_node(), as `scontrol update node` would. */
static int _set_via_update_node(_group_t *g, char *names) {
  update_node_msg_t msg;
  int rc;

  memset(&msg, 0, sizeof(msg));
  msg.node_state = NO_VAL;
  msg.weight = NO_VAL;
  msg.node_names = names;
  /* Without an available list update_node() changes no config record. */
  msg.features = g->avail ? xstrdup(g->features) : NULL;
  msg.features_act = xstrdup(g->features_act);
  rc = update_node(&msg, slurm_conf.slurm_user_id);
  xfree(msg.features);
  xfree(msg.features_act);
  return rc;
}

int rg_fix_batch_apply(rg_fix_batch_t *b, rg_fix_via_t via, rg_fix_done_fn done, void *arg) {
  int changed = 0;
  bool by_group = (via == RG_FIX_BY_GROUP);

  for (int i = 0; i < b->n; i++) {
    _group_t *g = &b->groups[i];
    char *names = hostlist_ranged_string_xmalloc(g->names);
    bool plain = by_group;
    int rc;

    for (int j = 0; plain && (j < g->n); j++)
      plain =
          rg_js_features_within(g->features_act, g->avail ? g->features : g->nodes[j]->features);
    rc = plain ? _set_by_group(g, names) : _set_via_update_node(g, names);
    if (rc == SLURM_SUCCESS) {
      for (int j = 0; j < g->n; j++) done(arg, g->fix, g->nodes[j]->name);
      changed += g->n;
    } else {
      error("%s %s: could not set features to %s", PREFIX, names, g->features_act);
    }
    xfree(names);
    hostlist_destroy(g->names);
    xfree(g->nodes);
    free(g->features);
    free(g->features_act);
  }
  xfree(b->groups);
  xfree(b);
  return changed;
}
