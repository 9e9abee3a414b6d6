// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail against Slurm's internals: gathers the node table, hands it to the C++ core
 * (topo_bridge.h) and turns the plan into Slurm's switch_record_table. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/common/slurm_log.h"
#include "plugin/topology_rail/topo_bridge.h"
#include "plugin/topology_rail/topo_slurm.h"
#include "topo_version.h" /* per Slurm version: slurm_2205/, slurm_2411/ */
// clang-format on

#define PREFIX "railguard: topology/rail:"

/* slurmctld's job list. slurmd loads this plugin too and has none: a weak reference lets the
 * plugin load there, with &job_list NULL. */
#pragma weak job_list

/* True from a load until the next topo_build_config: slurmctld ranks nodes and then builds
 * the switch table in one (re)configuration, and both must use one load. slurmd only builds,
 * so its reconfiguration reloads in build. */
static bool loaded_since_build = false;

int rg_unmapped_leaf = -1;
unsigned long rg_topo_table_generation = 0;

static void _log(int level, const char *msg) { rg_slurm_log(PREFIX, level, msg); }

/* Loads the setup; returns the rg_topo_load result. */
static int _load(void) {
  char *path = rg_config_path(default_slurm_config_file);
  const char *shown = path ? path : "railguard.yaml"; /* NULL only when out of memory */
  int rc = path ? rg_topo_load(path, _log) : RG_LOAD_NONE;

  if (rc == RG_LOAD_KEPT)
    error(
        "%s %s or the topology it names has problems (above); the rail topology loaded before "
        "stays in force",
        PREFIX, shown);
  else if (rc == RG_LOAD_NONE && running_in_slurmctld())
    error(
        "%s %s or the topology it names has problems (above); slurmctld stops rather than run "
        "without the rail topology",
        PREFIX, shown);
  else if (rc == RG_LOAD_NONE)
    error(
        "%s %s or the topology it names has problems (above); topology addresses on this node fall "
        "back to node names",
        PREFIX, shown);
  free(path);
  loaded_since_build = true;
  return rc;
}

static void _reload_if_stale(void) {
  if (!loaded_since_build) (void)_load();
}

/* The nodes of the node table: names[i] is nodes[i]->name. Returns the count. */
static int _gather_nodes(const char ***names, node_record_t ***nodes) {
  node_record_t *node_ptr;
  int n = 0;

  *names = xcalloc(node_record_count + 1, sizeof(char *));
  *nodes = xcalloc(node_record_count + 1, sizeof(node_record_t *));
  for (int i = 0; (node_ptr = next_node(&i)); i++) {
    (*names)[n] = node_ptr->name;
    (*nodes)[n] = node_ptr;
    n++;
  }
  return n;
}

static void _free_table(void) {
  if (!switch_record_table) return;
  for (int i = 0; i < switch_record_cnt; i++) {
    switch_record_t *s = &switch_record_table[i];
    xfree(s->name);
    xfree(s->nodes);
    xfree(s->switches);
    xfree(s->switches_dist);
    xfree(s->switch_desc_index);
    xfree(s->switch_index);
    FREE_NULL_BITMAP(s->node_bitmap);
  }
  xfree(switch_record_table);
  rg_topo_table_generation++;
  switch_record_cnt = 0;
  rg_unmapped_leaf = -1;
  switch_levels = 0;
}

/* Replaces Slurm's switch table with `plan`. REQUIRES: children precede their parents. */
static void _install(const rg_plan_t *plan, node_record_t **nodes) {
  int cnt = plan->switch_cnt;
  switch_record_t *table = xcalloc(cnt, sizeof(switch_record_t));

  for (int i = 0; i < cnt; i++) {
    const rg_switch_t *p = &plan->switches[i];
    switch_record_t *s = &table[i];

    s->name = xstrdup(p->name);
    s->level = p->level;
    s->link_speed = p->link_speed;
    s->parent = (p->parent == i) ? RG_TOP_PARENT(i) : (uint16_t)p->parent;
    s->node_bitmap = bit_alloc(node_record_count);
    for (int k = 0; k < p->node_cnt; k++) bit_set(s->node_bitmap, nodes[p->nodes[k]]->index);
    s->num_switches = (uint16_t)p->child_cnt;
    s->switch_index = xcalloc(p->child_cnt + 1, sizeof(uint16_t));
    for (int k = 0; k < p->child_cnt; k++) {
      s->switch_index[k] = (uint16_t)p->children[k];
      bit_or(s->node_bitmap, table[p->children[k]].node_bitmap);
    }
    if (p->children_expr) s->switches = xstrdup(p->children_expr);
    s->num_desc_switches = (uint16_t)p->desc_cnt;
    s->switch_desc_index = xcalloc(cnt, sizeof(uint16_t));
    for (int k = 0; k < p->desc_cnt; k++) s->switch_desc_index[k] = (uint16_t)p->descendants[k];
    s->switches_dist = xcalloc(cnt, sizeof(uint32_t));
    for (int k = 0; k < cnt; k++) s->switches_dist[k] = p->dist[k];
    s->nodes = bitmap2node_name(s->node_bitmap);
  }
  _free_table();
  switch_record_table = table;
  switch_record_cnt = cnt;
  rg_topo_table_generation++;
  switch_levels = plan->levels;
  for (int i = 0; i < cnt; i++)
    if (plan->switches[i].unmapped) rg_unmapped_leaf = i;
}

extern int rail_topo_init(void) {
  /* slurmstepd (24.11 on) loads the topology plugin at every job step, for its message
   * fan-out (split_hostlist, which needs no rail data): reading railguard.yaml and the whole
   * topology there cost every step the parse (2 ms at 127 nodes, 19 ms at 4,096). A build
   * of the switch table there would still load it first (_reload_if_stale). */
  if (running_in_slurmstepd()) return SLURM_SUCCESS;
  if ((_load() == RG_LOAD_NONE) && running_in_slurmctld()) return SLURM_ERROR;
  return SLURM_SUCCESS;
}

extern int rail_topo_fini(void) {
  _free_table();
  rg_topo_fini();
  return SLURM_SUCCESS;
}

static int _count_multi_node_job(void *x, void *arg) {
  job_record_t *job_ptr = x;

  if (job_ptr->job_resrcs && (job_ptr->job_resrcs->nhosts > 1) &&
      (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr) || IS_JOB_COMPLETING(job_ptr)))
    (*(int *)arg)++;
  return 0;
}

/* Running, suspended or completing jobs that hold more than one node; 0 outside slurmctld.
 * REQUIRES: slurmctld's job read lock (read_slurm_conf, the only caller of the ranking, runs
 * under its config_write_lock: config, job, node and partition write locks). */
static int _multi_node_jobs(void) {
  int count = 0;

  if (!running_in_slurmctld() || !&job_list || !job_list) return 0;
  (void)list_for_each_ro(job_list, _count_multi_node_job, &count);
  return count;
}

/* StateSaveLocation, where the order file goes; NULL outside slurmctld or when unset. */
static const char *_state_dir(void) {
  if (!running_in_slurmctld() || !slurm_conf.state_save_location ||
      !slurm_conf.state_save_location[0])
    return NULL;
  return slurm_conf.state_save_location;
}

extern bool rail_topo_generate_node_ranking(void) {
  const char **names = NULL;
  node_record_t **nodes = NULL;
  uint32_t *rank;
  bool ranked = false;
  int n;

  _reload_if_stale();
  if (!node_record_count) return false;
  n = _gather_nodes(&names, &nodes);
  rank = xcalloc(n + 1, sizeof(uint32_t));
  if (rg_topo_rank(names, n, _multi_node_jobs(), _state_dir(), _log, rank) == 0) {
    for (int i = 0; i < n; i++) nodes[i]->node_rank = rank[i];
    ranked = true;
  }
  xfree(rank);
  xfree(names);
  xfree(nodes);
  return ranked;
}

extern int rail_topo_build_config(void) {
  const char **names = NULL;
  node_record_t **nodes = NULL;
  rg_plan_t *plan = NULL;
  int n;

  _reload_if_stale();
  loaded_since_build = false;
  if (!node_record_count) return SLURM_SUCCESS;
  n = _gather_nodes(&names, &nodes);
  /* Slurm has just sorted the node table (by rank): the order the next ranking, or the next
   * start, keeps. */
  if (running_in_slurmctld()) rg_topo_note_order(names, n, _state_dir(), _log);
  /* Every slurmd would repeat the same notes; slurmctld's log is the place for them. */
  if (rg_topo_plan(names, n, running_in_slurmctld() ? _log : NULL, &plan) != 0) {
    error("%s no rail topology loaded; no switches", PREFIX);
    _free_table();
  } else if (plan->switch_cnt == 0) {
    _free_table(); /* no nodes: no switches */
  } else if (plan->switch_cnt > UINT16_MAX) {
    error("%s %d switches is more than Slurm's switch table holds", PREFIX, plan->switch_cnt);
    _free_table();
  } else {
    _install(plan, nodes);
  }
  rg_topo_plan_free(plan);
  xfree(names);
  xfree(nodes);
  return SLURM_SUCCESS;
}

extern int rail_topo_get_node_addr(char *node_name, char **addr, char **pattern) {
  node_record_t *node_ptr;
  int chain[64], depth = 0, sw = -1;

  if (!switch_record_cnt) {
    *addr = xstrdup(node_name);
    *pattern = xstrdup("node");
    return SLURM_SUCCESS;
  }
  if (!(node_ptr = find_node_record(node_name))) return SLURM_ERROR;
  for (int i = 0; i < switch_record_cnt; i++) {
    if ((switch_record_table[i].level == 0) &&
        bit_test(switch_record_table[i].node_bitmap, node_ptr->index)) {
      sw = i;
      break;
    }
  }
  /* Leaf first, then each parent, until the switch that is its own parent. */
  while ((sw >= 0) && (depth < 64)) {
    chain[depth++] = sw;
    if ((switch_record_table[sw].parent == sw) || (switch_record_table[sw].parent >= switch_record_cnt))
      break;
    sw = switch_record_table[sw].parent;
  }
  *addr = NULL;
  *pattern = NULL;
  while (depth > 0) {
    xstrfmtcat(*addr, "%s.", switch_record_table[chain[--depth]].name);
    xstrcat(*pattern, "switch.");
  }
  xstrcat(*addr, node_name);
  xstrcat(*pattern, "node");
  return SLURM_SUCCESS;
}
