#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=60
# Day one (issue 23) in a real slurmctld with topology/rail and job_submit/rail on
# etc/dev-4su.yaml, before railcheck has published any node healthy: no node has the feature
# rail_healthy, and Slurm refuses a --constraint that names a feature no node has ("Invalid
# feature specification", job_scheduler.c build_feature_list). So:
#  - `sbatch -N4 --exclusive` and `sbatch -N2 -C su2` are accepted, held with railguard's mark,
#    and their --constraint is left without rail_healthy; a single-node job runs at once;
#  - once railcheck publishes the nodes healthy (Extra and the feature, as it does), the
#    feature keeper adds rail_healthy to their constraint (on 22.05; from 24.11 topology/rail
#    keeps them on healthy nodes and their constraints stay their own), releases them, and
#    each runs in one scalable unit (the -C su2 one in su2);
#  - every node loses the feature again (a shared fault): a new 4-node job is accepted and held
#    (slurmctld still knows the feature's name), and runs once the nodes are healthy again;
#    after a slurmctld restart with every node unhealthy the name is gone: held without it;
#  - with every node of the cluster drained by an admin (features kept), a 4-node job is
#    accepted and waits; it runs when they are resumed.
# The keeper walks the job list one record per hold here (RAILGUARD_KEEPER_JOBS_CHUNK=1).
# rg_release=V (day_one_<series>_itest.sh) runs it on Slurm V built from source.
# About 60 s.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

rgp_write_configs "default_mode: strict"
# The keeper reads the job list one record per hold of the job read lock, so that the few jobs
# here make walks of many parts, each going on where the last stopped (512 per hold on a
# cluster; the 2,000-job benchmark has no parked job to find past the first part).
export RAILGUARD_KEEPER_JOBS_CHUNK=1
rgp_start || rgp_fail "the cluster did not start (see the messages above)"
rgp_log_has "railguard: job_submit/rail: RAILGUARD_KEEPER_JOBS_CHUNK=1"

# No node has the feature: the cluster as it is on its first day.
if sinfo -h -N -o '%b' | grep -q rail_healthy; then
  rgp_fail "a node has rail_healthy before anything published it: $(sinfo -h -N -o '%N %b' | grep rail_healthy | head -n 3)"
fi

# held_day_one ARGS...: submits a multi-node job that must be accepted and held without the
# feature in its constraint; prints its id.
held_day_one() {
  local job features
  job=$(rgp_submit "$@")
  grep -q 'railguard: held: only 0 nodes of its partition are healthy (feature rail_healthy) now' "$rgp_tmp/submit.err" ||
    rgp_fail "sbatch $* did not say the job is held: $(cat "$rgp_tmp/submit.err")"
  # 22.05: the keeper adds the feature at the release; from 24.11 topology/rail needs none.
  if [ "$rgp_places" = 0 ]; then
    grep -q 'and adds the feature to its constraint' "$rgp_tmp/submit.err" ||
      rgp_fail "sbatch $* did not say the feature is added later: $(cat "$rgp_tmp/submit.err")"
  elif grep -q 'adds the feature' "$rgp_tmp/submit.err"; then
    rgp_fail "sbatch $* says the feature is added later, which topology/rail does not need: $(cat "$rgp_tmp/submit.err")"
  fi
  features=$(rgp_job "$job" Features)
  [[ $features != *rail_healthy* ]] ||
    rgp_fail "job $job was given Features=$features while no node has rail_healthy"
  [[ $(scontrol show job -o "$job") == *"AdminComment=railguard: held until "* ]] ||
    rgp_fail "job $job has no railguard hold mark: $(scontrol show job -o "$job")"
  echo "$job"
}

job=$(held_day_one -N4 --exclusive -t 5 --wrap 'sleep 3')
su2job=$(held_day_one -N2 -C su2 -t 5 --wrap 'sleep 3')
single=$(rgp_submit -N1 -t 5 --wrap 'true')
rgp_wait_state "$single" COMPLETED 30
sleep 3
rgp_expect_eq "state of job $job after 3 s" "$(rgp_job "$job" JobState)" PENDING
rgp_expect_eq "state of job $su2job after 3 s" "$(rgp_job "$su2job" JobState)" PENDING
rgp_ok "day one: jobs $job (-N4 --exclusive) and $su2job (-N2 -C su2) accepted and held (Reason $(rgp_job "$job" Reason)); single-node job $single ran"

# railcheck publishes every node healthy: the keeper adds the feature and releases them.
rgp_set_healthy
rgp_wait_state "$job" COMPLETED 60
rgp_wait_state "$su2job" COMPLETED 60
[[ $(rgp_sus_of_job "$job") =~ ^su[1-4]$ ]] || rgp_fail "job $job ran across '$(rgp_sus_of_job "$job")'"
rgp_expect_eq "SUs of job $su2job" "$(rgp_sus_of_job "$su2job")" su2
rgp_expect_eq "AdminComment of job $job after its release" "$(rgp_job "$job" AdminComment)" ""
if [ "$rgp_places" = 1 ]; then
  # topology/rail keeps them off nodes without the feature: their constraints stay the users'.
  rgp_expect_eq "Features of job $job after its release" "$(rgp_job "$job" Features)" "(null)"
  rgp_expect_eq "Features of job $su2job after its release" "$(rgp_job "$su2job" Features)" su2
  if grep -q "JobId=$job: constraint set to" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log"; then
    rgp_fail "the keeper set job $job's constraint, which topology/rail does not need"
  fi
  rgp_ok "once the nodes were healthy the keeper released both jobs, their constraints their own (topology/rail keeps them on healthy nodes); each ran in one SU ($(rgp_sus_of_job "$job"), su2)"
else
  rgp_expect_eq "Features of job $job after its release" "$(rgp_job "$job" Features)" rail_healthy
  rgp_expect_eq "Features of job $su2job after its release" "$(rgp_job "$su2job" Features)" "su2&rail_healthy"
  rgp_log_has "railguard: job_submit/rail: JobId=$job: constraint set to rail_healthy (held while no node had the feature)"
  rgp_ok "once the nodes were healthy the keeper gave both jobs rail_healthy and released them; each ran in one SU ($(rgp_sus_of_job "$job"), su2)"
fi

# Every node loses the feature at once. slurmctld keeps the feature's name in its list of
# active features (with no node), so it accepts the constraint now: the job is held with it.
mapfile -t all < <(scontrol show hostnames 'n[001-032]')
rgp_set_healthy "${all[@]}"
if sinfo -h -N -o '%b' | grep -q rail_healthy; then rgp_fail "a node kept rail_healthy"; fi
job=$(rgp_submit -N4 -t 5 --wrap 'sleep 1')
grep -q 'railguard: held: only 0 nodes of its partition are healthy (feature rail_healthy) now' "$rgp_tmp/submit.err" ||
  rgp_fail "sbatch -N4 did not say the job is held: $(cat "$rgp_tmp/submit.err")"
sleep 2
rgp_expect_eq "state of job $job with every node degraded" "$(rgp_job "$job" JobState)" PENDING
rgp_set_healthy
rgp_wait_state "$job" COMPLETED 60
[[ $(rgp_sus_of_job "$job") =~ ^su[1-4]$ ]] || rgp_fail "job $job ran across '$(rgp_sus_of_job "$job")'"
rgp_ok "every node lost the feature: job $job was accepted, held, and ran in one SU once they were healthy"

# The same after a restart of slurmctld, which rebuilds its feature list from the nodes: no
# node has rail_healthy, so its name is gone again (the day-one case).
rgp_set_healthy "${all[@]}"
rg_cluster_kill slurmctld TERM || rgp_fail "cannot stop slurmctld"  # saves its state
rg_cluster_respawn slurmctld || rgp_fail "slurmctld did not start again"
job=$(held_day_one -N4 -t 5 --wrap 'sleep 1')
rgp_set_healthy
rgp_wait_state "$job" COMPLETED 60
rgp_ok "after a slurmctld restart with every node unhealthy: job $job accepted without the feature, held and released"

# An admin drains the whole cluster (the features stay): Slurm accepts and the job waits.
scontrol update NodeName='n[001-032]' State=DRAIN Reason='maintenance' ||
  rgp_fail "cannot drain the nodes"
job=$(rgp_submit -N4 -t 5 --wrap 'sleep 1')
sleep 3
rgp_expect_eq "state of job $job with every node drained" "$(rgp_job "$job" JobState)" PENDING
scontrol update NodeName='n[001-032]' State=RESUME || rgp_fail "cannot resume the nodes"
rgp_wait_state "$job" COMPLETED 60
rgp_ok "with every node drained job $job was accepted and waited (Reason then: Resources or ReqNodeNotAvail), then ran"
rgp_done
