// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail's node selection on Slurm 24.11 and later (see topo_eval.h). Resource accounting
 * stays Slurm's: this file only narrows node_map to one-hop domains and healthy nodes, then
 * calls Slurm's own evaluation (topology/tree's eval_nodes_tree, built into the plugin from
 * the matching tree) on the switch table topo_slurm.c built (one leaf switch per domain). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdlib.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/core_array.h"
#include "src/common/log.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/node_features.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/topology.h"
#include "src/plugins/topology/common/common_topo.h"
#include "src/plugins/topology/tree/eval_nodes_tree.h"
#include "src/slurmctld/slurmctld.h"
#include "plugin/topology_rail/topo_bridge.h"
#include "plugin/topology_rail/topo_domains.h"
#include "plugin/topology_rail/topo_eval.h"
#include "plugin/topology_rail/topo_slurm.h"
#include "topo_version.h" /* the switch table: slurm_2411/, slurm_2511/ */
// clang-format on

/* Clears from `map` every node without active `feature` (its rails are degraded), with the
 * node bitmap slurmctld keeps per active feature (node_features.h: active_feature_list, kept
 * by every node update, including job_submit/rail's and an admin's scontrol update): no
 * string scan of each node's features per evaluation. The list holds each node's features_act,
 * as the scan read them (slurmctld's read_config sets them to the configured features). No
 * list or no such feature: no node has it. */
static void _drop_degraded(bitstr_t *map, const char *feature) {
  node_feature_t *f = active_feature_list ? list_find_first_ro(active_feature_list,
                                                               list_find_feature, (void *)feature)
                                          : NULL;

  if (f && f->node_bitmap)
    bit_and(map, f->node_bitmap);
  else
    bit_clear_all(map);
}

/* True when `part` (the job's partition; NULL = all nodes) holds a node of the rail topology.
 * A partition that holds none (CPU nodes only) is left to Slurm's own selection, as if its
 * topology were flat: no healthy feature asked, no domain. */
static bool _rail_partition(bitstr_t *part) {
  int n;

  rg_domains(&n);
  return n && (!part || rg_domains_overlap_any(part));
}

/* The most nodes of `part` (the job's partition; NULL = all nodes) that one one-hop domain
 * holds. */
static int _largest_domain(bitstr_t *part) {
  int most = 0, n;
  const rg_domain_t *d = rg_domains(&n);

  for (int k = 0; k < n; k++) most = MAX(most, part ? rg_domain_count(&d[k], part) : d[k].size);
  return most;
}

/* True when one domain holds all of `req` (the job's --nodelist), or there is no `req`. */
static bool _req_in_one_domain(bitstr_t *req) {
  int n;
  const rg_domain_t *d = rg_domains(&n);

  if (!req) return true;
  for (int k = 0; k < n; k++)
    if (bit_super_set(req, switch_record_table[d[k].sw].node_bitmap)) return true;
  return false;
}

/* Into `saved` (node_record_count entries, NULL where nothing is saved): copies of the core
 * bitmaps of the nodes of `nodes` (one domain). */
static void _save_cores(bitstr_t **cores, bitstr_t **saved, bitstr_t *nodes) {
  for (int i = 0; next_node_bitmap(nodes, &i); i++)
    if (cores[i]) saved[i] = bit_copy(cores[i]);
}

/* Gives the nodes of `nodes` back the cores `saved` holds (Slurm's evaluation only clears),
 * when `restore`, and frees those copies (`saved` is NULL everywhere again). */
static void _drop_saved_cores(bitstr_t **cores, bitstr_t **saved, bitstr_t *nodes, bool restore) {
  for (int i = 0; next_node_bitmap(nodes, &i); i++) {
    if (restore && cores[i] && saved[i]) bit_or(cores[i], saved[i]);
    FREE_NULL_BITMAP(saved[i]);
  }
}

/* Tries the job in one domain after another, fewest usable nodes first (best fit, so that
 * whole domains stay free for large jobs). Each try sees node_map narrowed to the domain;
 * a failed try restores node_map and the cores of the domain's nodes (Slurm's evaluation
 * touches only the nodes of node_map: copying the cores of that one domain instead of every
 * node's keeps the cost of a try to the domain's size). Returns SLURM_SUCCESS with node_map =
 * the chosen nodes, else an error (the job waits for a domain; it never spreads): on 26.05
 * ESLURM_TOPO_NO_FIT, which Slurm shows as the pending job's reason, when no domain holds
 * enough usable nodes. */
static int _eval_one_domain(topology_eval_t *topo_eval) {
  bitstr_t *orig_map = bit_copy(topo_eval->node_map);
  bitstr_t *try_map = bit_alloc(bit_size(orig_map));
  bitstr_t *req = topo_eval->job_ptr->details->req_node_bitmap;
  bitstr_t **saved = xcalloc(node_record_count, sizeof(bitstr_t *));
  int n, rc = SLURM_ERROR;
  const rg_domain_t *d = rg_domains(&n);
  /* Per domain, the usable nodes it holds (node_map does not change between tries: a failed
   * try puts it back), or -1 when it cannot hold the job (too few, or not all of --nodelist):
   * counted once, not once per try. */
  int *usable = xcalloc(MAX(n, 1), sizeof(int));
  bool any_tried = false;

  for (int k = 0; k < n; k++) {
    usable[k] = rg_domain_count(&d[k], orig_map);
    if ((usable[k] < (int)topo_eval->min_nodes) ||
        (req && !bit_super_set(req, switch_record_table[d[k].sw].node_bitmap)))
      usable[k] = -1;
  }
  for (;;) {
    int best = -1;

    for (int k = 0; k < n; k++)
      if ((usable[k] >= 0) && ((best < 0) || (usable[k] < usable[best]))) best = k;
    if (best < 0) break;
    usable[best] = -1; /* tried */
    any_tried = true;
    bit_and(topo_eval->node_map, switch_record_table[d[best].sw].node_bitmap);
    bit_copybits(try_map, topo_eval->node_map); /* eval_nodes_tree narrows node_map */
    _save_cores(topo_eval->avail_core, saved, try_map);
    rc = eval_nodes_tree(topo_eval);
    if (rc != SLURM_SUCCESS) bit_copybits(topo_eval->node_map, orig_map);
    _drop_saved_cores(topo_eval->avail_core, saved, try_map, rc != SLURM_SUCCESS);
    if (rc == SLURM_SUCCESS) break;
    if (rc == ESLURM_NOT_SUPPORTED) break; /* e.g. --contiguous: Slurm's common algorithms */
  }
  xfree(usable);
  xfree(saved);
  FREE_NULL_BITMAP(try_map);
  FREE_NULL_BITMAP(orig_map);
  if (rc == SLURM_SUCCESS || rc == ESLURM_NOT_SUPPORTED) return rc;
  /* No domain holds min_nodes of node_map: dropping nodes cannot help. A domain that did but
   * whose nodes lacked a resource: Slurm may retry without its least resourceful nodes. */
  if (!any_tried) return RG_EVAL_FAIL(topo_eval, ESLURM_TOPO_NO_FIT, EVAL_ACTION_BREAK);
  return RG_EVAL_FAIL(topo_eval, ESLURM_TOPO_INSUFFICIENT_RESOURCES, EVAL_ACTION_RETRY_DEFAULT);
}

/* topo_eval->eval_nodes: a partition without rail nodes is Slurm's (flat); in one with them,
 * multi-node jobs keep to rail nodes and leave degraded ones out; a job that fits one domain
 * of its partition gets one domain; any other job the fewest domains (tree's evaluation over
 * the leaves). */
static int _eval_rail(topology_eval_t *topo_eval) {
  bool multi = (topo_eval->min_nodes > 1) || (topo_eval->req_nodes > 1);
  job_record_t *job_ptr = topo_eval->job_ptr;
  bitstr_t *req = job_ptr->details->req_node_bitmap;
  char *healthy;

  if (!switch_record_cnt) return ESLURM_NOT_SUPPORTED; /* no topology: Slurm's own choice */
  if (!_rail_partition(job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL))
    return ESLURM_NOT_SUPPORTED; /* CPU-only partition: Slurm's own choice */
  if (multi) {
    /* Rail nodes only (a partition of GPU and CPU nodes keeps its multi-node jobs on the
     * GPU nodes), and of those the healthy ones. */
    if (rg_unmapped_leaf >= 0)
      bit_and_not(topo_eval->node_map, switch_record_table[rg_unmapped_leaf].node_bitmap);
    if ((healthy = rg_topo_healthy_feature())) {
      _drop_degraded(topo_eval->node_map, healthy);
      free(healthy);
    }
    if (req && !bit_super_set(req, topo_eval->node_map)) /* --nodelist: a degraded node, */
      return RG_EVAL_FAIL(topo_eval, ESLURM_TOPO_REQ_NODES_NOT_AVAIL, /* or one off the rails */
                          EVAL_ACTION_BREAK);
    if (bit_set_count(topo_eval->node_map) < (int)topo_eval->min_nodes)
      return RG_EVAL_FAIL(topo_eval, ESLURM_TOPO_EMPTY_NODE_MAP, EVAL_ACTION_BREAK);
  }
  /* A job its partition cannot fit in one domain, or whose --nodelist spans domains, may
   * never run in one: it gets the fewest domains instead of waiting forever. */
  if (multi && _req_in_one_domain(req) &&
      ((int)topo_eval->min_nodes <=
       _largest_domain(job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL)))
    return _eval_one_domain(topo_eval);
  return eval_nodes_tree(topo_eval);
}

extern int rail_topo_eval_nodes(topology_eval_t *topo_eval) {
  job_record_t *job_ptr = topo_eval->job_ptr;

  RG_EVAL_CONTEXT(topo_eval);
  topo_eval->eval_nodes = _eval_rail;
  /* Ahead of Slurm's other algorithms (spread, LLN, ...) only where the rails decide: with no
   * switch table, in a partition without rail nodes, or for --contiguous (which tree's
   * evaluation does not do), _eval_rail answers ESLURM_NOT_SUPPORTED, and Slurm's own choice
   * must follow; 26.05 takes a trumping algorithm's answer as final. */
  topo_eval->trump_others =
      switch_record_cnt && !job_ptr->details->contiguous &&
      _rail_partition(job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL);
  return common_topo_choose_nodes(topo_eval);
}

extern bool rail_topo_in_unused_domain(int node_idx) {
  const rg_domain_t *d = rg_domain_of_node(node_idx);

  return d && idle_node_bitmap && (rg_domain_count(d, idle_node_bitmap) == d->size);
}

extern void rail_topo_eval_fini(void) { rg_domains_free(); }

extern int rail_topo_build_config_and_index(void) {
  int rc = rail_topo_build_config(), n;

  (void)rg_domains(&n);
  return rc;
}

extern int rail_topo_whole_topo(bitstr_t *node_mask) {
  int n;
  const rg_domain_t *d = rg_domains(&n);

  for (int k = 0; k < n; k++)
    if (rg_domain_count(&d[k], node_mask))
      bit_or(node_mask, switch_record_table[d[k].sw].node_bitmap);
  return SLURM_SUCCESS;
}

extern bitstr_t *rail_topo_get_bitmap(char *name) {
  for (int i = 0; i < switch_record_cnt; i++)
    if (!xstrcmp(switch_record_table[i].name, name)) return switch_record_table[i].node_bitmap;
  return NULL;
}

extern int rail_topo_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
                                    uint16_t tree_width) {
  return common_topo_split_hostlist_treewidth(hl, sp_hl, count, tree_width);
}

/* The nodes of `mask` in the domains `mask` does not wholly hold: free capacity a job that
 * needs a whole domain cannot use. Per domain, the count of its nodes in the mask (over the
 * domain's own words, topo_domains.h) against its size, kept in the index. */
extern uint32_t rail_topo_fragmentation(bitstr_t *mask) {
  uint32_t frag = 0;
  int n;
  const rg_domain_t *d = rg_domains(&n);

  if (!mask) return 0;
  for (int k = 0; k < n; k++) {
    const int in_mask = rg_domain_count(&d[k], mask);

    if (in_mask && (in_mask < d[k].size)) frag += (uint32_t)in_mask;
  }
  return frag;
}

extern int rail_topo_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size,
                              uint32_t id_shift) {
  int known, n = 0, cnt;
  /* Per node index its leaf's number, kept with the domain index: this runs for every
   * multi-node job Slurm allocates. */
  const uint32_t *unit_of = rg_leaf_number_of_nodes(&known);

  *node_rank = NULL;
  *size = 0;
  if (!node_bitmap || !(cnt = bit_set_count(node_bitmap))) return SLURM_SUCCESS;
  *node_rank = xcalloc(cnt, sizeof(**node_rank));
  *size = (uint32_t)cnt;
  for (int i = 0; next_node_bitmap(node_bitmap, &i) && (n < cnt); i++, n++)
    (*node_rank)[n] = ((i < known) ? unit_of[i] : 0) << id_shift;
  return SLURM_SUCCESS;
}
