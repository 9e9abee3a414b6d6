// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's facts about a job's nodes per one-hop domain, counted over Slurm bitmaps
 * instead of node by node: at 4,096 nodes, handing every node of the partition to the bridge
 * (its name, its active features for the healthy one, its CPUs) took 0.87 ms per submission
 * (bench/sched_scale.sh), over the 1 ms p99 the plugin may add.
 *
 * Per domain of the topology in force it keeps a bitmap of slurmctld's node records, built
 * once (each record's name asked of the bridge) and rebuilt when the setup was reloaded, when
 * slurm.conf was read or the node table changed size, when a slot of the table holds another
 * record than at the build, and at least a minute after the build once a node changed (a
 * record freed and made again at the same address under another name, as dynamic nodes may,
 * is then seen within that minute). A submission then costs one overlap count per domain,
 * the healthy feature's node bitmap from Slurm's active feature list, and the CPUs of the
 * config records the nodes belong to. */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_DOMAINS_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_DOMAINS_H_

#include <stdbool.h>

#include "plugin/job_submit_rail/js_bridge.h"
#include "src/common/bitstring.h"

/* Fills f->su_counts (xmalloc'd, freed by rg_js_domains_free_counts), su_count_n,
 * generation, healthy_count (the nodes of `nodes` on the rails with `feature` active; 0 when
 * `feature` is NULL or empty) and max_cpus for the job's `nodes`. Returns false when nothing
 * is loaded (f unchanged): the caller hands the nodes over one by one. REQUIRES: node and
 * partition read locks (job_submit and job_modify hold them). */
bool rg_js_count_domains(bitstr_t *nodes, const char *feature, rg_js_facts_t *f);

/* Whether `feature` is in Slurm's active feature list (some node has it active); *nodes, when
 * `nodes` is not NULL, gets its node bitmap (borrowed; NULL when absent or when Slurm keeps
 * none). REQUIRES: node read lock. */
bool rg_js_active_feature(const char *feature, bitstr_t **nodes);

/* Frees what rg_js_count_domains() put in `f`. */
void rg_js_domains_free_counts(rg_js_facts_t *f);

/* Frees the bitmaps kept between submissions. Call from fini(). */
void rg_js_domains_fini(void);

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_DOMAINS_H_ */
