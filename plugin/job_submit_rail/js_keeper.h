// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's feature keeper: a thread of slurmctld that keeps every node's healthy
 * feature in line with the health railcheck published in its Extra (slurmctld resets node
 * features at every start and reconfigure, but keeps Extra), reloads railguard.yaml off
 * Slurm's locks after a reconfigure, and releases the multi-node jobs that wait for healthy
 * nodes (plugin/core/held_jobs.h) once there are enough. */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_KEEPER_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_KEEPER_H_

/* Starts the thread (logs an error when it cannot). Call from the plugin's init(). */
void rg_keeper_start(void);

/* Stops the thread: joins it, unless it is queued on a slurmctld lock, which fini()'s caller
 * may hold (a reconfigure that changes JobSubmitPlugins holds every write lock); it is then
 * left to end by itself, doing nothing, and the plugin's code stays loaded for it. */
void rg_keeper_stop(void);

/* Tells the keeper that a job may have become one to look after (job_submit/rail held it at
 * submission, or a pending job was updated: released, given another constraint): its next pass
 * reads the parked jobs. Safe from any thread, under any lock. */
void rg_keeper_look_at_jobs(void);

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_KEEPER_H_ */
