#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1 COST=80
# slurmd SIGKILLed and started again (`slurmd -D -N NODE`, no -c, as systemd would), with
# railcheck as Prolog and Epilog:
#  - n010's slurmd dies while a job runs there: the job's slurmstepd goes on, the new slurmd
#    finds it in its spool, the job completes without a requeue, the Epilog runs and n010 is
#    idle again;
#  - n011's slurmd stays dead until slurmctld marks n011 DOWN (not responding); started again
#    it registers, n011 is back in service (ReturnToService=2) and its Prolog runs railcheck for
#    the next job;
#  - n012 loses rail 0 while its slurmd is dead: after the restart its Prolog drains it with
#    railcheck's reason and the job completes on another node.
# About 65 s (most of it waiting for slurmctld to notice n011).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fault_lib.sh
source "$here/fault_lib.sh"

rgh_fixtures
rgh_configs
rgh_start
# n012 and n013 checked healthy once: multi-node jobs get only nodes railcheck found healthy.
rgh_checked_healthy n012 n013

# state_runs NODE: how many runs railcheck recorded on NODE (0 before the first).
state_runs() {
  local v
  v=$(rgh_state "$1" runs)
  echo "${v:-0}"
}
# run_stepds: the slurmstepd processes of this cluster (they inherit the harness's run marker
# from slurmd; other clusters on the machine have job 1 too).
run_stepds() {
  local f pid
  grep -lzxF "RAILGUARD_HARNESS_RUN=$RAILGUARD_CLUSTER_DIR" /proc/[0-9]*/environ 2>/dev/null |
    while read -r f; do
      pid=${f#/proc/}
      pid=${pid%/environ}
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != slurmstepd ] || echo "$pid"
    done
}
node_state() { rgh_node_field "$1" State; }
idle() { [ "$(node_state "$1")" = IDLE ]; }
down() { [[ $(node_state "$1") == DOWN* ]]; }

# --- n010: killed under a running job --------------------------------------------------------
runs=$(state_runs n010)
job=$(rgp_submit -N1 -w n010 --wrap 'echo start; sleep 10; echo end')
rgp_wait_state "$job" RUNNING 30
rgh_wait "job $job's script started" 20 grep -qs start "$rgp_tmp/job-$job.out"
rg_cluster_kill slurmd.n010 KILL || rgp_fail "could not kill n010's slurmd"
[ -n "$(run_stepds)" ] || rgp_fail "job $job's slurmstepd died with its slurmd"
sleep 2
rg_cluster_respawn slurmd.n010 || rgp_fail "n010's slurmd did not start again"
rgp_ok "n010's slurmd SIGKILLed under job $job and started again; the job's slurmstepd lived on"
rgp_wait_state "$job" COMPLETED 30
rgp_expect_eq "Restarts of job $job" "$(rgp_job "$job" Restarts)" 0
rgp_expect_eq "output of job $job" "$(tr '\n' ' ' <"$rgp_tmp/job-$job.out")" "start end "
rgh_wait "n010 idle after the job" 20 idle n010
rgh_wait "n010's Prolog and Epilog in railcheck's state" 10 rgh_state_at_least n010 runs $((runs + 2))
rgp_ok "job $job completed without a requeue; Prolog and Epilog ran; n010 idle"

# --- n011: dead long enough for slurmctld to mark it DOWN; n012: broken meanwhile ------------
rg_cluster_kill slurmd.n011 KILL || rgp_fail "could not kill n011's slurmd"
rg_cluster_kill slurmd.n012 KILL || rgp_fail "could not kill n012's slurmd"
rgh_node_tree n012 --fault port-down:0
t0=$SECONDS
rgh_wait "slurmctld marks n011 DOWN" 90 down n011
rgh_wait "slurmctld marks n012 DOWN" 10 down n012
rgp_ok "n011 and n012 DOWN $((SECONDS - t0)) s after their slurmd died ($(rgh_reason n011))"
rg_cluster_respawn slurmd.n011 || rgp_fail "n011's slurmd did not start again"
rg_cluster_respawn slurmd.n012 || rgp_fail "n012's slurmd did not start again"
rgh_wait "n011 back in service" 60 idle n011
rgp_expect_eq "n011's reason once back" "$(rgh_reason n011)" ""
rgp_ok "n011 registered again and is idle (ReturnToService=2)"

runs=$(state_runs n011)
job=$(rgp_submit -N1 -w n011 --wrap 'echo ran')
rgp_wait_state "$job" COMPLETED 30
rgh_wait "n011's Prolog and Epilog in railcheck's state" 10 rgh_state_at_least n011 runs $((runs + 2))
rgp_ok "job $job ran on n011; railcheck's Prolog and Epilog ran there ($(state_runs n011) runs)"

# n012: once it is back, a job sent to the idle nodes n012 and n013 finds rail 0 down in
# n012's Prolog. -w names both so that the job goes there; after the requeue it can only run
# once n012 is usable again, so it is cancelled and a job without -w shows where work goes.
rgh_wait "n012 back in service" 60 idle n012
job=$(rgp_submit -N2 -w n012,n013 --wrap 'true')
rgh_wait "n012 drained by its Prolog" 30 rgh_drained n012
# Two drain findings: the port is down, and it went down since n012's first (healthy) run.
rgp_expect_eq "n012's reason" "$(rgh_reason n012)" "railcheck: rail0 mlx5_0 phys_state 3 (Disabled) != 5 LinkUp (+1 more)"
rgh_wait "job $job back to pending" 20 bash -c "scontrol show job $job | grep -q JobState=PENDING"
scancel "$job"
rgp_ok "after its slurmd's restart n012's Prolog drained it: $(rgh_reason n012)"
job=$(rgp_submit -N1 --exclusive --wrap 'hostname')
rgp_wait_state "$job" COMPLETED 30
[ "$(rgp_job "$job" NodeList)" != n012 ] || rgp_fail "job $job ran on the drained n012"
rgp_ok "the next job ran on $(rgp_job "$job" NodeList), not on n012"
rgp_done
