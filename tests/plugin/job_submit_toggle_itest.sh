#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=90
# An admin turns job_submit/rail off and on again with `scontrol reconfigure` (JobSubmitPlugins
# changed in slurm.conf), as one does to take railguard out of the submission path for a while.
# Slurm 22.05 then calls the plugin's fini() from read_slurm_conf, holding the config, job,
# node and partition write locks (src/slurmctld/job_submit.c, job_submit_plugin_reconfig),
# while the plugin's feature keeper thread may be queued on one of those locks. Seen once in
# CI: bench/placement.sh's `scontrol reconfigure` timed out and slurmctld never answered again.
# This test toggles the plugin ROUNDS times (default 24) on etc/dev-4su.yaml and checks, each
# round:
#  - `scontrol reconfigure` returns within 20 s, and slurmctld answers `scontrol ping`;
#  - with the plugin off, a 2-node job gets no railguard line and no Switches bound;
#  - with it on again, a 2-node job gets the strict line, and the keeper gives rail_healthy
#    back to the nodes whose Extra says healthy (reconfigure dropped it).
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"
rounds=${RGP_TOGGLE_ROUNDS:-24}

rgp_write_configs "default_mode: strict"
rgp_start || rgp_fail "the cluster did not start (see the messages above)"
rgp_set_healthy
conf=$RAILGUARD_CLUSTER_DIR/slurm.conf
grep -q '^JobSubmitPlugins=rail$' "$conf" || rgp_fail "$conf has no JobSubmitPlugins=rail line"

# reconfigure WHAT: `scontrol reconfigure` that must return within 20 s.
reconfigure() {
  local t0=$SECONDS
  timeout 20 scontrol reconfigure >"$rgp_tmp/reconf.err" 2>&1 ||
    rgp_fail "round $r: scontrol reconfigure ($1) did not return within 20 s or failed: $(cat "$rgp_tmp/reconf.err")"
  timeout 10 scontrol ping >"$rgp_tmp/ping.out" 2>&1 && grep -q 'is UP' "$rgp_tmp/ping.out" ||
    rgp_fail "round $r: slurmctld does not answer after the reconfigure ($1): $(cat "$rgp_tmp/ping.out")"
  reconf_s=$((SECONDS - t0))
  # Slurm 22.05 frees slurm_conf in read_slurm_conf while RPC threads may read its AuthInfo
  # without a lock (slurm_auth_opts_to_socket; ASan showed it with reconfigures back to back
  # and 32 slurmd registering again after each). Let the registrations settle.
  sleep 1
}

# healthy_count: nodes whose active features hold rail_healthy.
healthy_count() {
  sinfo -h -N -o '%N %b' | awk '$2 ~ /(^|,)rail_healthy(,|$)/ {print $1}' | sort -u | wc -l
}

max_s=0
for ((r = 1; r <= rounds; r++)); do
  sed -i 's/^JobSubmitPlugins=rail$/#JobSubmitPlugins=rail/' "$conf"
  reconfigure "rail taken out"
  [ "$reconf_s" -le "$max_s" ] || max_s=$reconf_s
  job=$(rgp_submit -N2 --hold -t 5 --wrap true)
  [ -z "$(sed -n 's/^sbatch: railguard: /railguard: /p' "$rgp_tmp/submit.err")" ] ||
    rgp_fail "round $r: with JobSubmitPlugins unset, sbatch still printed a railguard line"
  sw=$(rgp_job "$job" Switches)
  [ -z "$sw" ] || [ "${sw%@*}" = 0 ] || [ "$sw" = 0 ] ||
    rgp_fail "round $r: with the plugin off, the job got Switches=$sw"
  scancel "$job"

  sed -i 's/^#JobSubmitPlugins=rail$/JobSubmitPlugins=rail/' "$conf"
  reconfigure "rail put back"
  [ "$reconf_s" -le "$max_s" ] || max_s=$reconf_s
  job=$(rgp_submit -N2 --hold -t 5 --wrap true)
  case $(sed -n 's/^sbatch: railguard: /railguard: /p' "$rgp_tmp/submit.err") in
    "railguard: strict placement: 2 nodes in 1 scalable unit"*) ;;
    *) rgp_fail "round $r: with rail back in JobSubmitPlugins, sbatch printed: $(cat "$rgp_tmp/submit.err")" ;;
  esac
  rgp_expect_eq "round $r: Switches of the 2-node job" "$(rgp_job "$job" Switches)" "1@365-00:00:00"
  scancel "$job"
  deadline=$((SECONDS + 10))
  until [ "$(healthy_count)" = 32 ]; do
    [ "$SECONDS" -le "$deadline" ] ||
      rgp_fail "round $r: 10 s after the reconfigure only $(healthy_count) of 32 nodes have rail_healthy back"
    sleep 0.2
  done
done
rgp_ok "$rounds rounds of JobSubmitPlugins off/on with scontrol reconfigure: each returned (slowest ${max_s} s), slurmctld answered, jobs were decided by the plugin only while it was on, and the keeper gave rail_healthy back to all 32 nodes each time"
rgp_done
