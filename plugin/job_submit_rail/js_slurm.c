// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail against Slurm's internals: reads the job description into plain facts,
 * asks the C++ core (js_bridge.h) and applies its decision. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/common/slurm_log.h"
#include "plugin/job_submit_rail/js_bridge.h"
#include "plugin/job_submit_rail/js_domains.h"
#include "plugin/job_submit_rail/js_keeper.h"
#include "plugin/job_submit_rail/js_stats.h"
#include "js_version.h" /* per Slurm version: slurm_2205/, slurm_2411/ */
#include "plugin/job_submit_rail/js_slurm.h"
// clang-format on

#define PREFIX "railguard: job_submit/rail:"

static void _log(int level, const char *msg) { rg_slurm_log(PREFIX, level, msg); }

/* Appends `line` to the message the user sees, after any earlier plugin's. */
static void _tell_user(char **err_msg, const char *line) {
  if (!err_msg || !line) return;
  if (*err_msg)
    xstrfmtcat(*err_msg, "\n%s", line);
  else
    *err_msg = xstrdup(line);
}

/* ------------------------------------------------------------------ the job's facts */

/* What a job (as submitted, or as it will be after an update) asks for, in the fields
 * rg_js_facts_t borrows; the node arrays are xmalloc'd and released by _facts_free. */
typedef struct {
  uint32_t min_nodes, max_nodes, req_switch, num_tasks, ntasks_per_node, cpus_per_task;
  const char *features, *req_nodes, *exc_nodes, *partition, *reservation;
  const char *tres_per_job, *tres_per_task;
  char **spank_env;
  uint32_t spank_env_cnt;
  bool may_hold; /* a submission (see rg_js_facts_t) */
  bool contiguous; /* --contiguous */
} _job_view_t;

static uint32_t _val32(uint32_t v) { return ((v == NO_VAL) || (v == INFINITE)) ? 0 : v; }
static uint32_t _val16(uint16_t v) { return ((v == NO_VAL16) || (v == INFINITE16)) ? 0 : v; }

/* The nodes a job may get: its partitions' (the default one without -p), within its
 * reservation, minus its --exclude. NULL when none is known. REQUIRES: node and partition
 * read locks (job_submit and job_modify hold them). */
static bitstr_t *_job_nodes(const _job_view_t *v) {
  bitstr_t *nodes = NULL;

  if (v->partition && v->partition[0]) {
    char *copy = xstrdup(v->partition), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      part_record_t *part = find_part_record(tok);
      if (!part || !part->node_bitmap) continue;
      if (!nodes)
        nodes = bit_copy(part->node_bitmap);
      else
        bit_or(nodes, part->node_bitmap);
    }
    xfree(copy);
  } else if (default_part_loc && default_part_loc->node_bitmap) {
    nodes = bit_copy(default_part_loc->node_bitmap);
  }
  if (!nodes) return NULL;
  if (v->reservation && v->reservation[0]) {
    slurmctld_resv_t *resv = find_resv_name((char *)v->reservation);
    if (resv && resv->node_bitmap) bit_and(nodes, resv->node_bitmap);
  }
  if (v->exc_nodes && v->exc_nodes[0]) {
    bitstr_t *exc = NULL;
    if ((RG_NODE_NAME2BITMAP((char *)v->exc_nodes, false, &exc) == SLURM_SUCCESS) && exc)
      bit_and_not(nodes, exc);
    FREE_NULL_BITMAP(exc);
  }
  return nodes;
}

/* How many nodes --nodelist names (0 for none). */
static uint32_t _nodelist_count(const char *req_nodes) {
  rg_hostlist_t hl;
  uint32_t n;

  if (!req_nodes || !req_nodes[0]) return 0;
  if (!(hl = hostlist_create(req_nodes))) return 0;
  n = (uint32_t)hostlist_count(hl);
  hostlist_destroy(hl);
  return n;
}

/* Whether some node has the healthy feature active: Slurm accepts a --constraint only on
 * features of active_feature_list (build_feature_list; a new cluster before railcheck has
 * published any node healthy has none). True when no feature is configured or nothing is
 * loaded (nothing will be added). REQUIRES: node read lock. */
static bool _healthy_feature_exists(const char *feature) {
  return !feature || !feature[0] || !active_feature_list || rg_js_active_feature(feature, NULL);
}

/* Decided at init: the topology plugin changes only when slurmctld starts (from 23.11 a
 * reconfigure starts a new slurmctld), and 22.05 has none that places (RG_PLACING_*). */
static bool g_topology_rail_places; /* set once by rail_job_submit_init */

bool rg_js_topology_places(bool contiguous) { return !contiguous && g_topology_rail_places; }

/* Whether slurmctld places jobs with topology/rail: TopologyPlugin names it, on a release
 * whose topology plugins evaluate nodes, and no topology.yaml beside slurm.conf where Slurm
 * reads one (with one, 25.05 and later ignore TopologyPlugin: topology_g_init stats the file,
 * and the file can name only Slurm's own plugins). Reads the file system: at init only. */
static bool _topology_rail_loaded(void) {
  const char *plugin = RG_PLACING_TOPOLOGY_PLUGIN;
  struct stat st;
  char *yaml;
  bool yaml_there;

  if (!plugin || !strstr(plugin, "topology/rail")) return false;
  if (!RG_READS_TOPOLOGY_YAML) return true;
  yaml = get_extra_conf_path("topology.yaml");
  yaml_there = yaml && !stat(yaml, &st);
  if (yaml_there)
    info(
        "%s %s exists, so Slurm places jobs by it and not by %s: multi-node jobs get the "
        "healthy feature and --switches",
        PREFIX, yaml, plugin);
  xfree(yaml);
  return !yaml_there;
}

/* Fills `f` from `v`: with `counted` the job's nodes counted per domain (js_domains.h) where
 * a setup is loaded, else one by one, the node arrays pointing into Slurm's node table. */
static void _facts_fill(const _job_view_t *v, rg_js_facts_t *f, bool counted) {
  bitstr_t *nodes = _job_nodes(v);
  node_record_t *node_ptr;
  uint32_t n = 0;
  char *feature = rg_js_healthy_feature();

  memset(f, 0, sizeof(*f));
  f->min_nodes = v->min_nodes;
  f->max_nodes = v->max_nodes;
  f->has_switches = (v->req_switch > 0);
  f->user_switches = v->req_switch;
  f->nodelist_count = _nodelist_count(v->req_nodes);
  f->features = v->features;
  f->num_tasks = v->num_tasks;
  f->ntasks_per_node = v->ntasks_per_node;
  f->cpus_per_task = v->cpus_per_task;
  f->tres_per_job = v->tres_per_job;
  f->tres_per_task = v->tres_per_task;
  f->spank_env = (const char *const *)v->spank_env;
  f->spank_env_cnt = v->spank_env_cnt;
  f->partition = v->partition;
  f->sched_params = slurm_conf.sched_params;
  f->may_hold = v->may_hold;
  f->feature_exists = _healthy_feature_exists(feature);
  f->topology_places = rg_js_topology_places(v->contiguous);
  if (nodes && counted && rg_js_count_domains(nodes, feature, f)) FREE_NULL_BITMAP(nodes);
  free(feature);
  if (!nodes) return;
  f->node_cnt = (uint32_t)bit_set_count(nodes);
  f->node_names = xcalloc(f->node_cnt + 1, sizeof(char *));
  f->node_features = xcalloc(f->node_cnt + 1, sizeof(char *));
  f->node_cpus = xcalloc(f->node_cnt + 1, sizeof(uint32_t));
  f->node_index = xcalloc(f->node_cnt + 1, sizeof(uint32_t));
  for (int i = 0; (node_ptr = next_node(&i)) && (n < f->node_cnt); i++) {
    if (!bit_test(nodes, node_ptr->index)) continue;
    ((const char **)f->node_names)[n] = node_ptr->name;
    ((const char **)f->node_features)[n] =
        node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
    ((uint32_t *)f->node_cpus)[n] = node_ptr->config_ptr ? node_ptr->config_ptr->cpus : 0;
    ((uint32_t *)f->node_index)[n] = (uint32_t)node_ptr->index;
    n++;
  }
  f->node_cnt = n;
  FREE_NULL_BITMAP(nodes);
}

static void _facts_free(rg_js_facts_t *f) {
  rg_js_domains_free_counts(f);
  xfree(f->node_names);
  xfree(f->node_features);
  xfree(f->node_cpus);
  xfree(f->node_index);
}

/* The Slurm error for a refusal. */
static int _refusal_rc(int refuse) {
  switch (refuse) {
    case RG_JS_BAD_OPTION: return ESPANK_BAD_ARG;
    case RG_JS_BAD_CONSTRAINT: return ESLURM_INVALID_FEATURE;
    default: return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
  }
}

/* ------------------------------------------------------------------ entry points */

extern int rail_job_submit_init(void) {
  char *path = rg_config_path(default_slurm_config_file);
  const char *shown = path ? path : "railguard.yaml"; /* NULL only when out of memory */
  int rc = path ? rg_js_load(path, (int64_t)slurm_conf.last_update, _log) : RG_LOAD_NONE;

  if (rc < 0)
    error("%s slurmctld cannot run without a valid %s (or without rail in JobSubmitPlugins)",
          PREFIX, shown);
  free(path);
  if (rc < 0) return SLURM_ERROR;
  (void)rg_js_check_switch_wait(slurm_conf.sched_params, RG_PLACING_TOPOLOGY_PLUGIN, _log);
  g_topology_rail_places = _topology_rail_loaded();
  if (g_topology_rail_places)
    info(
        "%s topology/rail keeps multi-node jobs on healthy nodes and in the fewest one-hop "
        "domains: they get no healthy-feature constraint, and no --switches when they fit one "
        "domain (--contiguous jobs get both)",
        PREFIX);
  rg_js_stats_init();
  rg_keeper_start();
  return SLURM_SUCCESS;
}

extern int rail_job_submit_fini(void) {
  rg_keeper_stop();
  rg_js_domains_fini();
  rg_js_fini();
  return SLURM_SUCCESS;
}

/* Decides for `v` and applies the decision to `job_desc` (the submission, or the update's
 * changes). Returns the Slurm error of a refusal, else SLURM_SUCCESS; *nodes gets the job's
 * node count (0 = unknown or nothing decided), *together its --rail-hetjob=together. */
static int _decide_and_apply(const _job_view_t *v, job_desc_msg_t *job_desc, uint32_t uid,
                             const char *what, char **err_msg, uint32_t *nodes,
                             bool *together) {
  rg_js_facts_t facts;
  rg_js_decision_t d;
  int rc = SLURM_SUCCESS, decided;

  *nodes = 0;
  *together = false;
  _facts_fill(v, &facts, true);
  decided = rg_js_decide(&facts, _log, &d);
  if (decided == -2) { /* counted for a setup reloaded meanwhile: node by node */
    _facts_free(&facts);
    _facts_fill(v, &facts, false);
    decided = rg_js_decide(&facts, _log, &d);
  }
  if (decided != 0) {
    _facts_free(&facts);
    return SLURM_SUCCESS;
  }
  _facts_free(&facts);
  if (d.refuse) {
    rc = _refusal_rc(d.refuse);
    _tell_user(err_msg, d.message);
    info("%s refused %s of uid %u: %s", PREFIX, what, uid, d.message);
    rg_js_decision_free(&d);
    return rc;
  }
  if (d.set_switches) {
    job_desc->req_switch = d.req_switch;
    job_desc->wait4switch = d.wait4switch;
  }
  if (d.features) {
    xfree(job_desc->features);
    job_desc->features = xstrdup(d.features);
  }
  /* A job the user submitted held (-H) keeps the user's hold and gets no mark: once the user
   * releases it, the keeper takes it over if Slurm parks it (plugin/core/held_jobs.h). */
  if (d.hold_mark && (job_desc->priority != 0)) {
    char *marked = rg_js_with_hold_mark(job_desc->admin_comment, d.hold_mark);
    job_desc->priority = 0;
    xfree(job_desc->admin_comment);
    job_desc->admin_comment = xstrdup(marked ? marked : d.hold_mark);
    free(marked);
    info("%s held %s of uid %u: %s", PREFIX, what, uid, d.hold_mark);
    rg_keeper_look_at_jobs(); /* its reason, and its release when nodes are healthy */
  }
  if (d.message) {
    _tell_user(err_msg, d.message);
    verbose("%s %s of uid %u: %s", PREFIX, what, uid, d.message);
  }
  *nodes = d.nodes;
  *together = d.together;
  rg_js_decision_free(&d);
  return SLURM_SUCCESS;
}

/* ------------------------------------------------------------------ hetjobs kept together */

/* Slurm 22.05 calls job_submit once per component of a heterogeneous job, in order
 * (het_job_offset 0, 1, ...), on the thread of the submit RPC, before it creates any of
 * them (proc_req.c, _slurm_rpc_submit_batch_het_job); the descriptions of the earlier
 * components stay valid until then. So the components seen so far on this thread are kept,
 * and at each one the SU for all of them is chosen again and every component's --exclude
 * rewritten: the last call's choice is the one that stays. */
#define HET_MAX 32      /* components kept together at most */
#define HET_EXC_MAX 256 /* a component's own --exclude, at most (characters) */
static __thread int het_n = -1; /* components seen of the hetjob on this thread; -1: none */
static __thread bool het_together, het_apart;
static __thread job_desc_msg_t *het_desc[HET_MAX];
static __thread uint32_t het_nodes[HET_MAX];
static __thread char het_exc[HET_MAX][HET_EXC_MAX]; /* each component's own --exclude */

/* Every node not in the chosen SU, with the component's own --exclude, as a hostlist. */
static char *_het_exclude(const uint8_t *inside, const char *own) {
  rg_hostlist_t hl = hostlist_create((own && own[0]) ? own : NULL);
  node_record_t *node_ptr;
  char *ranged;

  for (int i = 0; (node_ptr = next_node(&i)); i++)
    if (!inside[node_ptr->index]) hostlist_push_host(hl, node_ptr->name);
  hostlist_uniq(hl);
  ranged = hostlist_ranged_string_xmalloc(hl);
  hostlist_destroy(hl);
  return ranged;
}

/* Chooses the SU for components 0..het_n-1 (scope: `v`'s nodes) and rewrites their
 * --exclude. Returns the Slurm error of a refusal (no SU has the healthy nodes), else
 * SLURM_SUCCESS. REQUIRES: node and partition read locks. */
static int _het_apply(const _job_view_t *v, char **err_msg) {
  bitstr_t *scope = _job_nodes(v);
  rg_js_scope_node_t *nodes = xcalloc(node_record_count + 1, sizeof(*nodes));
  uint8_t *inside = xcalloc(node_record_count + 1, 1);
  char *feature = rg_js_healthy_feature(), *su = NULL, *line = NULL;
  node_record_t *node_ptr;
  uint32_t total = 0, healthy = 0, idle = 0;
  int rc = SLURM_SUCCESS, found;

  for (int i = 0; i < het_n; i++) total += het_nodes[i] ? het_nodes[i] : 1;
  for (int i = 0; (node_ptr = next_node(&i)); i++) {
    const char *act = node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
    nodes[node_ptr->index].name = node_ptr->name;
    if (!scope || !bit_test(scope, node_ptr->index)) continue;
    nodes[node_ptr->index].healthy = !feature || !feature[0] || rg_js_has_feature(act, feature);
    nodes[node_ptr->index].idle =
        IS_NODE_IDLE(node_ptr) && !IS_NODE_DRAIN(node_ptr) && !IS_NODE_DOWN(node_ptr);
  }
  found = rg_js_together_su(nodes, (uint32_t)node_record_count, total, &su, &healthy, &idle,
                            inside);
  if (found == 0) {
    xstrfmtcat(line, "railguard: --rail-hetjob=together: no scalable unit of its partition has "
               "%u healthy nodes for all %d components (the most: %u); use --rail-hetjob=apart "
               "or fewer nodes", total, het_n, healthy);
    _tell_user(err_msg, line);
    rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
  } else if (found > 0) {
    for (int c = 0; c < het_n; c++) {
      xfree(het_desc[c]->exc_nodes);
      het_desc[c]->exc_nodes = _het_exclude(inside, het_exc[c]);
    }
    xstrfmtcat(line, "railguard: --rail-hetjob=together: components 0-%d (%u nodes) in "
               "scalable unit %s (%u healthy nodes, %u idle now; chosen at submission), every "
               "other node excluded", het_n - 1, total, su, healthy, idle);
    _tell_user(err_msg, line);
  }
  xfree(line);
  free(su);
  free(feature);
  xfree(nodes);
  xfree(inside);
  FREE_NULL_BITMAP(scope);
  return rc;
}

/* Keeps track of the hetjob component `job_desc` (decided: `nodes`, `together`) and, once
 * two or more components of a together hetjob are known, confines them all to one SU. */
static int _het_component(job_desc_msg_t *job_desc, const _job_view_t *v, uint32_t nodes,
                          bool together, char **err_msg) {
  uint32_t off = job_desc->het_job_offset;

  if (off == NO_VAL) {
    het_n = -1;
    return SLURM_SUCCESS;
  }
  if (off == 0) {
    het_n = 0;
    het_together = het_apart = false;
  } else if ((het_n < 0) || (off != (uint32_t)het_n)) {
    het_n = -1; /* not the next component of the hetjob seen here: nothing to keep */
    return SLURM_SUCCESS;
  }
  het_together = het_together || together;
  if ((het_n >= HET_MAX) ||
      (job_desc->exc_nodes && (strlen(job_desc->exc_nodes) >= HET_EXC_MAX))) {
    if (het_together && !het_apart)
      _tell_user(err_msg, "railguard: --rail-hetjob=together: more than 32 components or a "
                          "long --exclude; each component is confined on its own");
    het_apart = true;
  }
  if (het_apart) return SLURM_SUCCESS;
  het_desc[het_n] = job_desc;
  het_nodes[het_n] = nodes;
  snprintf(het_exc[het_n], HET_EXC_MAX, "%s", job_desc->exc_nodes ? job_desc->exc_nodes : "");
  het_n++;
  if (!het_together || (het_n < 2)) return SLURM_SUCCESS;
  return _het_apply(v, err_msg);
}

static int _job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg) {
  _job_view_t v;

  memset(&v, 0, sizeof(v));
  v.min_nodes = _val32(job_desc->min_nodes);
  v.max_nodes = _val32(job_desc->max_nodes);
  v.req_switch = _val32(job_desc->req_switch);
  v.num_tasks = _val32(job_desc->num_tasks);
  v.ntasks_per_node = _val16(job_desc->ntasks_per_node);
  v.cpus_per_task = _val16(job_desc->cpus_per_task);
  v.features = job_desc->features;
  v.req_nodes = job_desc->req_nodes;
  v.exc_nodes = job_desc->exc_nodes;
  v.partition = job_desc->partition;
  v.reservation = job_desc->reservation;
  v.tres_per_job = job_desc->tres_per_job;
  v.tres_per_task = job_desc->tres_per_task;
  v.spank_env = job_desc->spank_job_env;
  v.spank_env_cnt = job_desc->spank_job_env_size;
  v.may_hold = true;
  v.contiguous = (job_desc->contiguous != NO_VAL16) && job_desc->contiguous;
  {
    uint32_t nodes;
    bool together;
    int rc = _decide_and_apply(&v, job_desc, submit_uid, "a job", err_msg, &nodes, &together);
    if (rc != SLURM_SUCCESS) {
      het_n = -1;
      return rc;
    }
    return _het_component(job_desc, &v, nodes, together, err_msg);
  }
}

extern int rail_job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg) {
  rg_js_stats_t t0 = rg_js_stats_begin();
  int rc = _job_submit(job_desc, submit_uid, err_msg);

  rg_js_stats_end(t0);
  return rc;
}

/* The fields of an update that can change a job's placement or health requirement. */
static bool _update_touches_placement(const job_desc_msg_t *u) {
  return u->features || (u->min_nodes != NO_VAL) || (u->max_nodes != NO_VAL) ||
         (u->req_switch != NO_VAL) || (u->wait4switch != NO_VAL) || (u->num_tasks != NO_VAL) ||
         (u->ntasks_per_node != NO_VAL16) || (u->cpus_per_task != NO_VAL16) || u->req_nodes ||
         u->exc_nodes || u->partition || u->reservation || u->tres_per_job || u->tres_per_task ||
         (u->contiguous != NO_VAL16);
}

extern int rail_job_modify(job_desc_msg_t *job_desc, void *job_ptr_v, uint32_t submit_uid) {
  job_record_t *job_ptr = job_ptr_v;
  __typeof__(((job_record_t *)0)->details) det; /* struct job_details, job_details_t */
  _job_view_t v;
  char *msg = NULL;
  uint32_t nodes;
  bool together;
  int rc;

  /* A release or a new constraint may leave the job for Slurm to park: the keeper looks. */
  if (job_ptr && IS_JOB_PENDING(job_ptr)) rg_keeper_look_at_jobs();
  /* Operators may do anything; running jobs keep what they got. */
  if (!job_ptr || !job_ptr->details || !IS_JOB_PENDING(job_ptr) ||
      validate_operator(submit_uid) || !_update_touches_placement(job_desc))
    return SLURM_SUCCESS;
  det = job_ptr->details;
  memset(&v, 0, sizeof(v));
  v.min_nodes = _val32((job_desc->min_nodes != NO_VAL) ? job_desc->min_nodes : det->min_nodes);
  v.max_nodes = _val32((job_desc->max_nodes != NO_VAL) ? job_desc->max_nodes : det->max_nodes);
  v.req_switch =
      _val32((job_desc->req_switch != NO_VAL) ? job_desc->req_switch : job_ptr->req_switch);
  v.num_tasks = _val32((job_desc->num_tasks != NO_VAL) ? job_desc->num_tasks : det->num_tasks);
  v.ntasks_per_node = _val16((job_desc->ntasks_per_node != NO_VAL16) ? job_desc->ntasks_per_node
                                                                     : det->ntasks_per_node);
  v.cpus_per_task = _val16((job_desc->cpus_per_task != NO_VAL16) ? job_desc->cpus_per_task
                                                                 : det->cpus_per_task);
  v.features = job_desc->features ? job_desc->features : det->features;
  v.req_nodes = job_desc->req_nodes ? job_desc->req_nodes : det->req_nodes;
  v.exc_nodes = job_desc->exc_nodes ? job_desc->exc_nodes : det->exc_nodes;
  v.partition = job_desc->partition ? job_desc->partition : job_ptr->partition;
  v.reservation = job_desc->reservation ? job_desc->reservation : job_ptr->resv_name;
  v.tres_per_job = job_desc->tres_per_job ? job_desc->tres_per_job : job_ptr->tres_per_job;
  v.tres_per_task = job_desc->tres_per_task ? job_desc->tres_per_task : job_ptr->tres_per_task;
  v.spank_env = job_ptr->spank_job_env;
  v.spank_env_cnt = job_ptr->spank_job_env_size;
  v.contiguous = (job_desc->contiguous != NO_VAL16) ? job_desc->contiguous : det->contiguous;
  /* An update that sets the features to "" clears them: the decision then starts from none. */
  if (job_desc->features && !job_desc->features[0]) v.features = NULL;
  rc = _decide_and_apply(&v, job_desc, submit_uid, "an update of a pending job", &msg, &nodes,
                         &together);
  xfree(msg); /* Slurm 22.05's job_modify has no message for the user: the log has it */
  return rc;
}
