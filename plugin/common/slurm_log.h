/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's log for the plugins built against Slurm's internals (topology/rail, job_submit/rail). */
#ifndef RAILGUARD_PLUGIN_COMMON_SLURM_LOG_H_
#define RAILGUARD_PLUGIN_COMMON_SLURM_LOG_H_

/* Logs "<prefix> <msg>" at the Slurm level of `level` (RG_LOG_* of plugin/common/bridge.h):
 * error, info, verbose, debug (anything else). */
void rg_slurm_log(const char *prefix, int level, const char *msg);

#endif /* RAILGUARD_PLUGIN_COMMON_SLURM_LOG_H_ */
