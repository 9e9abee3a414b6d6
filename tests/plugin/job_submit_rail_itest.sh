#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test of job_submit/rail (with topology/rail and the SPANK plugin) in a real
# slurmctld on etc/dev-4su.yaml, default_mode strict (the default, written out for the
# reconfigure step to change), every node rail_healthy unless said:
#  - 2-, 4- and 8-node jobs each land inside one SU, with --switches=1 and the longest wait
#    Slurm allows (max_switch_wait = a year); the user sees one railguard line;
#  - a 12-node job gets --switches=2 and spans exactly 2 SUs; --gpus=16 alone counts as 2
#    nodes;
#  - --rail-placement=off leaves req_switch alone but still requires rail_healthy; under
#    strict an explicit --switches is replaced;
#  - bad --rail-placement / --rail-max-sus values and a job over its SU limit are refused
#    with the message;
#  - a node without rail_healthy gets single-node jobs but no multi-node job;
#  - SLOW (about 20 s of the test's 30 s): strict holds an 8-node job until one SU is free,
#    while an "off" job of the same size starts at once across SUs;
#  - a changed default_mode takes effect at `scontrol reconfigure`;
#  - an admin gives rail_healthy back to a node railcheck published degraded: the keeper takes
#    it from the node's active list again, and passes Slurm no available list (Slurm would
#    split the node's config record off: debug2 "nodes n005 available features set to");
#  - Slurm's node maps follow the keeper's changes (it changes them once per group of nodes):
#    a --constraint=rail_healthy job runs on a node the restore gave the feature, and waits
#    on n005 once the keeper took it.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

rgp_write_configs "default_mode: strict"
rgp_start || rgp_fail "the cluster did not start (see the messages above)"
rgp_set_healthy

# all_done: cancels every job and waits until none is left.
all_done() {
  scancel --user="$(id -un)" || true
  local deadline=$((SECONDS + 30))
  while [ -n "$(squeue -h -t PD,R,CG -o %i)" ]; do
    [ "$SECONDS" -le "$deadline" ] || rgp_fail "jobs still there 30 s after scancel: $(squeue -h)"
    sleep 0.5
  done
}

# told JOB-ARGS: the railguard line sbatch printed for the last rgp_submit.
told() {
  sed -n 's/^sbatch: railguard: /railguard: /p' "$rgp_tmp/submit.err"
}

# --- 2, 4 and 8 nodes: one SU each ---------------------------------------------------------
strict_line() { # N SUS: the strict line for N nodes in SUS scalable units
  local su="1 scalable unit" it=it
  [ "$2" = 1 ] || { su="$2 scalable units"; it=them; }
  echo "railguard: strict placement: $1 nodes in $su; Slurm holds the job for $it however long it queues; healthy nodes only (feature rail_healthy)"
}
declare -A job_of=()
for n in 2 4 8; do
  job_of[$n]=$(rgp_submit -N"$n" --exclusive -t 5 --wrap 'sleep 120')
  rgp_expect_eq "message for $n nodes" "$(told)" \
    "$(strict_line "$n" 1)"
done
for n in 2 4 8; do
  job=${job_of[$n]}
  rgp_wait_state "$job" RUNNING 30
  rgp_expect_eq "Switches of the $n-node job" "$(rgp_job "$job" Switches)" "1@365-00:00:00"
  rgp_expect_eq "Features of the $n-node job" "$(rgp_job "$job" Features)" rail_healthy
  sus=$(rgp_sus_of_job "$job")
  [ "$(wc -w <<<"$sus")" = 1 ] ||
    rgp_fail "the $n-node job $job runs on $(rgp_job "$job" NodeList): SUs $sus, expected one"
  rgp_ok "$n-node job $job inside $sus ($(rgp_job "$job" NodeList)), Switches=1@365-00:00:00"
done
all_done

# --- 12 nodes: two SUs ---------------------------------------------------------------------
job=$(rgp_submit -N12 --exclusive -t 5 --wrap 'sleep 60')
rgp_expect_eq "message for 12 nodes" "$(told)" \
  "$(strict_line 12 2)"
rgp_wait_state "$job" RUNNING 30
rgp_expect_eq "Switches of the 12-node job" "$(rgp_job "$job" Switches)" "2@365-00:00:00"
rgp_expect_eq "SUs of the 12-node job $(rgp_job "$job" NodeList)" "$(rgp_sus_of_job "$job" | wc -w)" 2
rgp_ok "12-node job $job spans 2 SUs: $(rgp_sus_of_job "$job") ($(rgp_job "$job" NodeList))"
all_done

job=$(rgp_submit --gpus=16 --exclusive -t 5 --wrap 'sleep 1')
rgp_expect_eq "message for --gpus=16" "$(told)" "$(strict_line 2 1)"
rgp_ok "--gpus=16 without --nodes is placed as 2 nodes"
all_done

# --- off and explicit --switches -------------------------------------------------------------
job=$(rgp_submit -N4 --exclusive --rail-placement=off -t 5 --wrap 'sleep 1')
rgp_expect_eq "message for --rail-placement=off" "$(told)" \
  "railguard: --rail-placement=off: no scalable-unit bound; healthy nodes only (feature rail_healthy)"
rgp_expect_eq "Switches with --rail-placement=off" "$(rgp_job "$job" Switches)" ""
rgp_expect_eq "Features with --rail-placement=off" "$(rgp_job "$job" Features)" "rail_healthy"
rgp_ok "--rail-placement=off leaves req_switch untouched and still requires rail_healthy"

job=$(rgp_submit -N4 --exclusive --switches=3@5:00 -t 5 --wrap 'sleep 1')
rgp_expect_eq "message for --switches" "$(told)" \
  "railguard: strict placement: 4 nodes in 1 scalable unit (your --switches=3 is replaced); Slurm holds the job for it however long it queues; healthy nodes only (feature rail_healthy)"
rgp_expect_eq "Switches of an explicit --switches=3@5:00" "$(rgp_job "$job" Switches)" "1@365-00:00:00"
rgp_expect_eq "Features with an explicit --switches" "$(rgp_job "$job" Features)" rail_healthy
rgp_ok "under strict an explicit --switches=3@5:00 is replaced by 1@365-00:00:00"
all_done

# --- refusals --------------------------------------------------------------------------------
# refused EXPECTED-LINE... -- SBATCH-ARGS: sbatch must fail and print each line.
refused() {
  local -a want=()
  while [ "$1" != -- ]; do want+=("$1"); shift; done
  shift
  local out line
  if out=$(sbatch "$@" --wrap true 2>&1); then
    rgp_fail "sbatch $* was accepted: $out"
  fi
  for line in "${want[@]}"; do
    grep -qxF -- "$line" <<<"$out" || rgp_fail "sbatch $* printed:"$'\n'"$out"$'\n'"expected the line: $line"
  done
}
refused "sbatch: error: railguard: invalid --rail-placement value 'bogus'; expected strict, prefer or off" \
  -- -N2 --rail-placement=bogus
rgp_ok "--rail-placement=bogus is refused with what is allowed"
refused "sbatch: error: railguard: invalid --rail-max-sus value '0'; expected a whole number from 1 to 4096" \
  -- -N2 --rail-max-sus=0
rgp_ok "--rail-max-sus=0 is refused with what is allowed"
refused "sbatch: error: railguard: 12 nodes need 2 scalable units of its partition, more than --rail-max-sus=1 allows; ask for fewer nodes or use --rail-placement=prefer" \
  "sbatch: error: Batch job submission failed: Requested node configuration is not available" \
  -- -N12 --rail-max-sus=1
rgp_ok "a strict job needing more SUs than --rail-max-sus is refused by job_submit/rail"

# --- a node without rail_healthy -------------------------------------------------------------
rgp_set_healthy n005
seven=$(rgp_submit -N7 -C su1 --exclusive -t 5 --wrap 'sleep 120')
rgp_wait_state "$seven" RUNNING 30
rgp_expect_eq "nodes of a 7-node job in su1 with n005 unhealthy" "$(rgp_job "$seven" NodeList)" "n[001-004,006-008]"
single=$(rgp_submit -N1 -C su1 --exclusive -t 5 --wrap 'sleep 1')
rgp_wait_state "$single" COMPLETED 30
rgp_expect_eq "node of a single-node job in su1" "$(rgp_job "$single" NodeList)" n005
rgp_expect_eq "Features of the single-node job" "$(rgp_job "$single" Features)" su1
eight=$(rgp_submit -N8 --exclusive -t 5 --wrap 'sleep 1')
rgp_wait_state "$eight" COMPLETED 30
case " $(scontrol show hostnames "$(rgp_job "$eight" NodeList)" | tr '\n' ' ') " in
  *" n005 "*) rgp_fail "multi-node job $eight ran on the unhealthy n005" ;;
esac
rgp_ok "unhealthy n005 gets a single-node job ($single) but no multi-node job ($seven, $eight: $(rgp_job "$eight" NodeList))"
all_done
rgp_set_healthy

# --- slow: strict waits for a whole SU ---------------------------------------------------------
echo "$rgp_name: slow part: an 8-node job waits for a free SU (about 20 s)"
declare -A blocker=()
for node in n001 n009 n017 n025; do
  blocker[$node]=$(rgp_submit -w "$node" --exclusive -t 10 --wrap 'sleep 300')
done
for node in "${!blocker[@]}"; do rgp_wait_state "${blocker[$node]}" RUNNING 30; done
strict=$(rgp_submit -N8 --exclusive -t 5 --wrap 'sleep 30')
sleep 8
rgp_expect_eq "state of the strict 8-node job while no SU is free" "$(rgp_job "$strict" JobState)" PENDING
off=$(rgp_submit -N8 --exclusive --rail-placement=off -t 5 --wrap 'sleep 30')
rgp_wait_state "$off" RUNNING 30
[ "$(rgp_sus_of_job "$off" | wc -w)" -ge 2 ] ||
  rgp_fail "the off job $off runs in one SU ($(rgp_job "$off" NodeList)) though none is free"
rgp_ok "while no SU is free, strict job $strict waits and off job $off starts across $(rgp_sus_of_job "$off")"
scancel "$off"
scancel "${blocker[n017]}"
rgp_wait_state "$strict" RUNNING 60
rgp_expect_eq "nodes of the strict 8-node job once su3 is free" "$(rgp_job "$strict" NodeList)" "n[017-024]"
rgp_ok "strict job $strict starts on su3 as soon as it is free"
all_done

# --- a changed placement section takes effect at reconfigure --------------------------------
sed -i 's/default_mode: strict/default_mode: prefer/' "$RAILGUARD_CLUSTER_DIR/railguard.yaml"
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
# The keeper thread reloads railguard.yaml off Slurm's locks, within a second.
for _ in $(seq 50); do
  grep -qF "railguard: job_submit/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml and $RAILGUARD_CLUSTER_DIR/topology.yaml: default placement prefer" \
    "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" && break
  sleep 0.2
done
rgp_log_has "railguard: job_submit/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml and $RAILGUARD_CLUSTER_DIR/topology.yaml: default placement prefer"
# The reconfigure dropped the features set at run time; the keeper gives them back from Extra.
for _ in $(seq 50); do
  [ "$(scontrol show nodes -o | grep -c 'ActiveFeatures=[^ ]*rail_healthy')" = 32 ] && break
  sleep 0.2
done
rgp_expect_eq "nodes with rail_healthy after the reconfigure" \
  "$(scontrol show nodes -o | grep -c 'ActiveFeatures=[^ ]*rail_healthy')" 32
rgp_ok "the reconfigure dropped run-time features and the keeper restored rail_healthy on all 32 nodes from Extra"
# ...in Slurm's node maps too (the keeper changes them once per group of nodes, js_features.c):
# Slurm matches a --constraint against them, not against the lists scontrol shows.
job=$(rgp_submit -N1 -w n009 --constraint=rail_healthy -t 5 --wrap 'sleep 30')
rgp_wait_state "$job" RUNNING 30
rgp_ok "a job asking for rail_healthy on n009 runs after the keeper's restore ($job)"
scancel "$job"
job=$(rgp_submit -N2 --exclusive -t 5 --wrap 'sleep 1')
rgp_expect_eq "Switches of a 2-node job after switching to prefer" "$(rgp_job "$job" Switches)" "1@00:01:10"
rgp_ok "default_mode changed to prefer takes effect after scontrol reconfigure"
all_done

# --- a hand edit cannot keep the feature on a degraded node -----------------------------------
# As railcheck publishes a degraded node once the feature is available: Extra, active list.
scontrol update NodeName=n005 Extra="$rgp_extra_degraded" ActiveFeatures=su1 ||
  rgp_fail "cannot publish n005 degraded"
scontrol setdebug debug2 || rgp_fail "scontrol setdebug debug2 failed"
mark=$(wc -l <"$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log")
scontrol update NodeName=n005 ActiveFeatures=su1,rail_healthy || rgp_fail "cannot give n005 rail_healthy"
rgp_log_has "railguard: job_submit/rail: took rail_healthy on 1 nodes (n005): from the health railcheck published in their Extra"
scontrol setdebug info || rgp_fail "scontrol setdebug info failed"
rgp_expect_eq "n005's active features after the keeper's pass" \
  "$(rgp_field "$(scontrol show node -o n005)" ActiveFeatures)" su1
rgp_expect_eq "n005's available features after the keeper's pass" \
  "$(rgp_field "$(scontrol show node -o n005)" AvailableFeatures)" su1,rail_healthy
if tail -n +"$mark" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" | grep -F 'nodes n005 available features set to'; then
  rgp_fail "the keeper passed Slurm n005's available list, which did not change (Slurm splits the node's config record off)"
fi
rgp_ok "the keeper took rail_healthy from degraded n005's active list again after a hand edit, its available list left alone"
# Slurm's node map of rail_healthy lost n005 too: a job asking for it on n005 waits, one that
# does not runs.
cjob=$(sbatch --parsable -o /dev/null -N1 -w n005 --constraint=rail_healthy -t 5 --wrap 'sleep 30' 2>"$rgp_tmp/constraint.err") || cjob=""
if [ -n "$cjob" ]; then
  sleep 5
  rgp_expect_eq "state of job $cjob asking for rail_healthy on n005" "$(rgp_job "$cjob" JobState)" PENDING
  scancel "$cjob"
fi
job=$(rgp_submit -N1 -w n005 -t 5 --wrap 'sleep 1')
rgp_wait_state "$job" COMPLETED 30
rgp_ok "Slurm's node map follows the keeper: a job asking for rail_healthy on n005 ${cjob:+($cjob) waits}${cjob:-was refused: $(cat "$rgp_tmp/constraint.err")}, a plain one ($job) ran"
rgp_done
