// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail against Slurm's internals: reads the job description into plain facts,
 * asks the C++ core (js_bridge.h) and applies its decision. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/common/slurm_log.h"
#include "plugin/job_submit_rail/js_bridge.h"
#include "plugin/job_submit_rail/js_slurm.h"
// clang-format on

#define PREFIX "railguard: job_submit/rail:"

static void _log(int level, const char *msg) { rg_slurm_log(PREFIX, level, msg); }

/* Whether any node has feature `name`. Slurm rejects a job whose constraint names a feature
 * no node has, so requiring the healthy feature before the health checks set it anywhere
 * would reject every multi-node job. Runs under slurmctld's node read lock (job_submit). */
static int _feature_defined(const char *name) {
  if (!avail_feature_list) return 1;
  return list_find_first(avail_feature_list, list_find_feature, (void *)name) != NULL;
}

/* Appends `line` to the message the user sees, after any earlier plugin's. */
static void _tell_user(char **err_msg, const char *line) {
  if (!err_msg || !line) return;
  if (*err_msg)
    xstrfmtcat(*err_msg, "\n%s", line);
  else
    *err_msg = xstrdup(line);
}

extern int rail_job_submit_init(void) {
  char *path = rg_config_path(default_slurm_config_file);
  const char *shown = path ? path : "railguard.yaml"; /* NULL only when out of memory */
  int rc = path ? rg_js_load(path, (int64_t)slurm_conf.last_update, _log) : RG_LOAD_NONE;

  if (rc < 0)
    error("%s slurmctld cannot run without a valid %s (or without rail in JobSubmitPlugins)",
          PREFIX, shown);
  free(path);
  return (rc < 0) ? SLURM_ERROR : SLURM_SUCCESS;
}

extern int rail_job_submit_fini(void) {
  rg_js_fini();
  return SLURM_SUCCESS;
}

extern int rail_job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg) {
  rg_js_facts_t facts;
  rg_js_decision_t d;

  memset(&facts, 0, sizeof(facts));
  if ((job_desc->min_nodes != NO_VAL) && (job_desc->min_nodes != INFINITE))
    facts.min_nodes = job_desc->min_nodes;
  facts.has_switches = (job_desc->req_switch != NO_VAL);
  facts.has_nodelist = (job_desc->req_nodes && job_desc->req_nodes[0]);
  facts.features = job_desc->features;
  if (job_desc->num_tasks != NO_VAL) facts.num_tasks = job_desc->num_tasks;
  if (job_desc->ntasks_per_node != NO_VAL16) facts.ntasks_per_node = job_desc->ntasks_per_node;
  facts.tres_per_job = job_desc->tres_per_job;
  facts.tres_per_task = job_desc->tres_per_task;
  facts.spank_env = (const char *const *)job_desc->spank_job_env;
  facts.spank_env_cnt = job_desc->spank_job_env_size;
  facts.feature_defined = _feature_defined;
  facts.sched_params = slurm_conf.sched_params;
  facts.conf_update = (int64_t)slurm_conf.last_update;

  if (rg_js_decide(&facts, _log, &d) != 0) return SLURM_SUCCESS;

  if (d.refuse) {
    int rc =
        (d.refuse == RG_JS_BAD_OPTION) ? ESPANK_BAD_ARG : ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    _tell_user(err_msg, d.message);
    info("%s refused a job of uid %u: %s", PREFIX, submit_uid, d.message);
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
  if (d.message) {
    _tell_user(err_msg, d.message);
    verbose("%s job of uid %u: %s", PREFIX, submit_uid, d.message);
  }
  rg_js_decision_free(&d);
  return SLURM_SUCCESS;
}

extern int rail_job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid) {
  (void)job_desc;
  (void)job_ptr;
  (void)submit_uid;
  return SLURM_SUCCESS;
}
