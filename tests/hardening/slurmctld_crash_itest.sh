#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1 COST=100
# slurmctld SIGKILLed in the middle of a job stream, with topology/rail, job_submit/rail and
# railcheck (Prolog, Epilog) loaded, and started again on the same slurm.conf and
# StateSaveLocation (no -c), as systemd would after a crash:
#  - every job completes: those running and those pending at the crash, and those submitted
#    after it;
#  - every multi-node job ran inside one scalable unit (strict placement), before and after;
#  - `scontrol show topology` is the same text before and after;
#  - n004, drained by railcheck (rail 3 at 200 Gb/s), is still drained with railcheck's reason
#    and keeps its Extra; rail_healthy, which Slurm's restart drops like a reconfigure does,
#    is back on every healthy node after one periodic railcheck round, and not on n004.
# Slurm writes its state at most every 5 s (SAVE_MAX_WAIT in state_save.c): a job started or
# ended in the last seconds before a crash is forgotten by Slurm itself, railguard or not (the
# restarted slurmctld starts it again, its nodes report a "Duplicate jobid" and Slurm drains
# them; or it waits for a completion that was already sent; or a job accepted just before is
# gone). So the kill comes once a job of the stream runs and Slurm saved its job states after
# the stream's last submission, start and end (the state file's time against the clock and
# the log), not after a fixed pause: on a loaded CI machine a fixed 6 s let the first jobs
# end and others start just before the kill. The stream's jobs do not end on a timer either
# (CI once saw the whole first wave of 12 s jobs end, and the waiting jobs start, before Slurm's
# save after the last start): each waits for a release file, which the test writes once
# slurmctld is dead, so the first jobs end while slurmctld is down and the others wait until
# it is back. About 60 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fault_lib.sh
source "$here/fault_lib.sh"

rgh_fixtures
rgh_node_tree n004 --fault rate-down:3
rgh_configs
rgf_strict
rgh_start
log=$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log

rgf_periodic_all n004
rgh_drained n004 || rgp_fail "n004 not drained by its periodic run"
reason=$(rgh_reason n004)
rgp_expect_eq "n004's reason" "$reason" "railcheck: rail3 mlx5_5 width 2X < 4X"
extra=$(rgh_node_field n004 Extra)
[[ $extra == *'"verdict":"drain"'* ]] || rgp_fail "n004 Extra: $extra"
rgf_healthy_everywhere_but n004 || rgp_fail "rail_healthy not on exactly the 31 healthy nodes"
rgp_ok "before: n004 drained by railcheck, rail_healthy on the 31 other nodes"
topology=$(scontrol show topology)

# --- phase A: a stream of jobs, then the crash -----------------------------------------------
# last_job_event: seconds since the epoch of slurmctld's last log line about a job starting or
# ending (0 when none).
last_job_event() {
  local ts
  ts=$(grep -E 'sched: Allocate JobId=|_start_job: Started JobId=|_job_complete: JobId=[0-9]+ done' \
    "$log" | tail -n 1 | sed -n 's/^\[\([^]]*\)\].*/\1/p')
  if [ -n "$ts" ]; then date -d "$ts" +%s.%N; else echo 0; fi
}
# saved_since_last_event: true when the job state file was written after the last job event
# and after the last submission returned ($submitted_at: a job accepted is a change too).
saved_since_last_event() {
  local saved
  saved=$(stat -c %.9Y "$RAILGUARD_CLUSTER_DIR/ctld/state/job_state" 2>/dev/null) || return 1
  awk -v s="$saved" -v e="$(last_job_event)" -v t="$submitted_at" \
    'BEGIN { exit !(s > e && s > t) }'
}
jobs=()
# Each job of phase A runs until $release exists (at most 5 minutes, so that a failed test
# leaves no job behind for long).
release=$RAILGUARD_CLUSTER_DIR/release-phase-a
wait_release="for i in \$(seq 600); do [ -e '$release' ] && exit 0; sleep 0.5; done; exit 1"
for n in 8 2 1 4 8 2 1 4 2 8 1 4 8; do
  job=$(rgp_submit -N"$n" --exclusive --wrap "$wait_release")
  jobs+=("$job")
done
submitted_at=$(date +%s.%N)
# started_and_saved: some job of the stream runs, and the state file was written after the
# last start or end (on a loaded machine the first jobs may start seconds after their sbatch).
# A start alone does not make Slurm save its job states (22.05: backfill's and the main
# scheduler's starts only mark them changed, saved by the periodic checkpoint minutes later;
# a submission, a job's end or a job update schedule a save, proc_req.c). Once jobs run, the
# test updates the first job's comment, at most every 3 s, until a save follows the last start.
poked=0
started_and_saved() {
  [[ $(rgf_job_states "${jobs[@]}") == *RUNNING* ]] || return 1
  saved_since_last_event && return 0
  if ((SECONDS - poked >= 3)); then
    scontrol update JobId="${jobs[0]}" Comment="crash test: save job states" >/dev/null
    poked=$SECONDS
  fi
  return 1
}
rgh_wait "slurmctld saving its job states after the first jobs started" 30 started_and_saved
states=$(rgf_job_states "${jobs[@]}" | tr '\n' ' ')
rg_cluster_kill slurmctld KILL || rgp_fail "could not kill slurmctld"
[[ $states == *RUNNING* && $states == *PENDING* ]] ||
  rgp_fail "at the crash the stream should have running and pending jobs: $states"
rgp_ok "slurmctld SIGKILLed with ${#jobs[@]} jobs submitted, its job states saved: $states"
if scontrol ping >/dev/null 2>&1; then rgp_fail "slurmctld still answers after SIGKILL"; fi
touch "$release"
sleep 8  # the running jobs end meanwhile; their slurmstepd retry the completion
lines=$(wc -l <"$log")
rg_cluster_respawn slurmctld || rgp_fail "slurmctld did not start again"
for plugin in topology/rail job_submit/rail; do
  grep -q "railguard: $plugin: loaded" < <(tail -n +"$((lines + 1))" "$log") ||
    rgp_fail "the new slurmctld did not log loading $plugin"
done
rgp_ok "slurmctld started again from its StateSaveLocation; topology/rail and job_submit/rail loaded"

# --- what survived ---------------------------------------------------------------------------
rgp_expect_eq "scontrol show topology after the restart" "$(scontrol show topology)" "$topology"
rgp_ok "scontrol show topology: the same $(wc -l <<<"$topology") switches"
rgh_drained n004 || rgp_fail "n004 lost its drain in the restart ($(rgh_node_field n004 State))"
rgp_expect_eq "n004's reason after the restart" "$(rgh_reason n004)" "$reason"
rgp_expect_eq "n004's Extra after the restart" "$(rgh_node_field n004 Extra)" "$extra"
rgp_ok "n004 still drained: $reason; Extra kept"
for job in "${jobs[@]}"; do
  scontrol show job "$job" >/dev/null 2>&1 || rgp_fail "job $job is gone after the restart"
done
rgp_ok "all ${#jobs[@]} jobs known after the restart: $(rgf_job_states "${jobs[@]}" | tr '\n' ' ')"
if grep -E 'Duplicate jobid|sent from wrong node' "$log"; then
  rgp_fail "Slurm lost job states in the crash (above): the kill came before its state save"
fi
if rgf_healthy_everywhere_but n004; then
  kept="kept"
else
  kept="dropped"
fi
rgf_periodic_all n004
deadline=$((SECONDS + 10))
until rgf_healthy_everywhere_but n004; do
  [ "$SECONDS" -lt "$deadline" ] ||
    rgp_fail "rail_healthy on the 31 healthy nodes, not on n004: not within 10 s; the nodes that differ:
$(rgf_healthy_differences n004)"
  sleep 0.5
done
rgp_ok "rail_healthy: $kept by the restart; after one periodic round on the 31 healthy nodes only"

# --- phase B: the stream goes on -------------------------------------------------------------
for n in 4 8 2 1 8 4; do
  job=$(rgp_submit -N"$n" --exclusive --wrap 'sleep 2')
  jobs+=("$job")
done
[[ $(rgp_job "${jobs[-1]}" Switches) == 1@* ]] ||
  rgp_fail "job_submit/rail did not place job ${jobs[-1]} after the restart: Switches=$(rgp_job "${jobs[-1]}" Switches)"
rgf_wait_completed 150 "${jobs[@]}"
rgp_ok "all ${#jobs[@]} jobs COMPLETED"
multi=$(rgf_check_one_su "${jobs[@]}")
for job in "${jobs[@]}"; do
  [[ $(scontrol show hostnames "$(rgp_job "$job" NodeList)") != *n004* ]] ||
    rgp_fail "job $job ran on the drained n004"
done
rgp_ok "each of the $multi multi-node jobs ran in one SU; none on n004"
requeued=0
for job in "${jobs[@]}"; do
  [ "$(rgp_job "$job" Restarts)" = 0 ] || requeued=$((requeued + 1))
done
pid=$(cat "$RAILGUARD_CLUSTER_DIR/pids/slurmctld")
kill -0 "$pid" || rgp_fail "slurmctld died after the restart"
rgp_ok "$requeued job(s) were requeued by Slurm's recovery; slurmctld still up"
rgp_done
