#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=90
# Integration test of the placement guarantees of job_submit/rail (issue 12) in a real
# slurmctld on etc/dev-4su.yaml (4 SUs of 8), strict, with a prefer bound of 5 s
# (wait_base_seconds: 5, wait_per_node_seconds: 0) so that a bound that lapses would show:
#  - one free node in each SU and the rest busy: a strict -N4 job and a 2-task array of -N4
#    still wait after 15 s, three times the old bound, and then each lands in one SU;
#  - a partition holding half of every SU: an 8-node job there needs 2 SUs, not 1;
#  - a reservation: its nodes are the SUs the job sees;
#  - --rail-max-sus above the site's max_sus_default, and constraints with counts or a '|'
#    outside brackets, are refused with what to write instead;
#  - the owner of a pending job (not an operator) clears its --constraint with
#    `scontrol update`: rail_healthy is kept;
#  - a strict 4-node job requeued (requeuehold, release, begin time reset) while only one node
#    per SU is free still waits after 15 s, then runs again inside the SU that frees up;
#  - partition half with 10 of 16 nodes healthy: a 12-node job is held, not refused, and a
#    10-node job that Slurm parks (BadConstraints) when one more node degrades is taken over;
#    squeue says what each waits for; both run once the nodes are healthy again;
#  - slurmctld killed and started again while n001 is degraded: a 2-node job submitted at
#    once is accepted and never gets n001 (node features are dropped at start; the keeper
#    gives rail_healthy back from Extra).
#  - a heterogeneous job: each multi-node component is confined to its own SU and needs
#    rail_healthy; a single-node component is left alone; with --rail-hetjob=together all
#    its components run in the one SU that holds them most tightly, and one too big for any
#    SU is refused;
#  - n001 and n009 degraded: jobs with each --constraint shape Slurm 22.05 accepts and
#    railguard combines (a, a|b, (a|b), [a|b], a&b, a,b) get rail_healthy and never run there;
# RGP_ONLY=confine|views|hetjob|together|shapes|rules|owner|requeue|wait|restart runs one part (to see each fail on its own).
# About 60 s.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

rgp_write_configs "default_mode: strict" "wait_base_seconds: 5" "wait_per_node_seconds: 0" \
  "max_sus_default: 3"
cat >>"$rgp_tmp/extra.conf" <<'CONF'
PartitionName=half Nodes=n[001-004],n[009-012],n[017-020],n[025-028] MaxTime=INFINITE State=UP
CONF
rgp_start || rgp_fail "the cluster did not start (see the messages above)"
rgp_set_healthy

all_done() {
  scancel --user="$(id -un)" || true
  scancel --user=nobody 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while [ -n "$(squeue -h -t PD,R,CG -o %i)" ]; do
    [ "$SECONDS" -le "$deadline" ] || rgp_fail "jobs still there 30 s after scancel: $(squeue -h)"
    sleep 0.5
  done
}

# part NAME: whether to run part NAME (all unless RGP_ONLY names another).
part() { [ -z "${RGP_ONLY:-}" ] || [ "$RGP_ONLY" = "$1" ]; }

# block_all_but_one ARRAY-NAME: in each SU, a job on its first 7 nodes (placement off), running;
# ARRAY-NAME[suN] gets its id. One free node per SU is left.
block_all_but_one() {
  local -n ids=$1
  local su first nodes
  for su in su1 su2 su3 su4; do
    first=${rgp_su_nodes[$su]%%-*}
    first=${first#n[}
    nodes="n[$first-$(printf '%03d' $((10#$first + 6)))]"
    ids[$su]=$(rgp_submit -w "$nodes" -N7 --exclusive -t 10 --rail-placement=off --wrap 'sleep 300')
  done
  for su in "${!ids[@]}"; do rgp_wait_state "${ids[$su]}" RUNNING 60; done
}

# --- confinement that does not lapse ---------------------------------------------------------
if part confine; then
declare -A blocker=()
block_all_but_one blocker
job=$(rgp_submit -N4 --exclusive -t 5 --wrap 'sleep 20')
array=$(rgp_submit -a 1-2 -N4 --exclusive -t 5 --wrap 'sleep 20')
echo "$rgp_name: one free node per SU; waiting 15 s, three times the prefer bound"
sleep 15
rgp_expect_eq "state of strict job $job after 15 s" "$(rgp_job "$job" JobState)" PENDING
for t in 1 2; do
  rgp_expect_eq "state of array task ${array}_$t after 15 s" \
    "$(rgp_job "${array}_$t" JobState)" PENDING
done
rgp_ok "after 15 s with a free node in every SU, job $job and array $array still wait for an SU (Reason $(rgp_job "$job" Reason))"
scancel "${blocker[su2]}" "${blocker[su3]}"
for j in "$job" "${array}_1" "${array}_2"; do
  rgp_wait_state "$j" RUNNING 60
  sus=$(rgp_sus_of_job "$j")
  [ "$(wc -w <<<"$sus")" = 1 ] || rgp_fail "job $j runs on $(rgp_job "$j" NodeList): SUs $sus"
  rgp_ok "job $j landed in one SU: $sus ($(rgp_job "$j" NodeList))"
done
all_done
fi

# --- the partition's and the reservation's view of the SUs ----------------------------------
if part views; then
job=$(rgp_submit -p half -N8 --exclusive -t 5 --wrap 'sleep 1')
rgp_expect_eq "Switches of an 8-node job in partition half" "$(rgp_job "$job" Switches)" "2@365-00:00:00"
rgp_wait_state "$job" COMPLETED 30
rgp_ok "partition half (4 nodes of each SU): an 8-node job gets 2 SUs"
scontrol create reservation ReservationName=rg_half Users=root StartTime=now Duration=10 \
  Nodes='n[001-004],n[009-012]' Flags=IGNORE_JOBS >/dev/null || rgp_fail "cannot create a reservation"
job=$(rgp_submit --reservation=rg_half -N6 --exclusive -t 5 --wrap 'sleep 1')
rgp_expect_eq "Switches of a 6-node job in reservation rg_half" "$(rgp_job "$job" Switches)" "2@365-00:00:00"
rgp_wait_state "$job" COMPLETED 30
rgp_ok "reservation rg_half (4 nodes in each of 2 SUs): a 6-node job gets 2 SUs"
scontrol delete ReservationName=rg_half
all_done
fi

# --- a heterogeneous job ---------------------------------------------------------------------
if part hetjob; then
printf '#!/bin/bash\ntrue\n' >"$rgp_tmp/het.sh"
het=$(rgp_submit -N3 --exclusive -t 5 : -N1 --exclusive -t 5 : -N2 --exclusive -t 5 "$rgp_tmp/het.sh")
for c in 0 2; do
  rgp_expect_eq "Switches of component $c of hetjob $het" \
    "$(rgp_field "$(scontrol show job -o "$het+$c")" Switches)" "1@365-00:00:00"
  rgp_expect_eq "Features of component $c of hetjob $het" \
    "$(rgp_field "$(scontrol show job -o "$het+$c")" Features)" "rail_healthy"
done
rgp_expect_eq "Features of the single-node component 1" \
  "$(rgp_field "$(scontrol show job -o "$het+1")" Features)" "(null)"
rgp_wait_state "$het" COMPLETED 60
for c in 0 2; do
  nodes=$(rgp_field "$(scontrol show job -o "$het+$c")" NodeList)
  sus=$(for n in $(scontrol show hostnames "$nodes"); do rgp_su_of "$n"; done | sort -u | wc -l)
  rgp_expect_eq "SUs of component $c ($nodes)" "$sus" 1
done
rgp_ok "hetjob $het: components 0 and 2 each ran in one SU on rail_healthy nodes; component 1 (one node) left alone"
all_done
fi

# --- constraint shapes -----------------------------------------------------------------------
if part shapes; then
rgp_set_healthy n001 n009
declare -A shape_job=()
for shape in 'su1' 'su1|su2' '(su1|su2)' '[su1|su2]' 'su1&su1' 'su2,su2'; do
  shape_job[$shape]=$(rgp_submit -N2 --exclusive -C "$shape" -t 5 --wrap 'sleep 1')
done
for shape in "${!shape_job[@]}"; do
  job=${shape_job[$shape]}
  [[ $(rgp_job "$job" Features) == *rail_healthy* ]] ||
    rgp_fail "-C '$shape': job $job has Features=$(rgp_job "$job" Features)"
  rgp_wait_state "$job" COMPLETED 90
  case " $(scontrol show hostnames "$(rgp_job "$job" NodeList)" | tr '\n' ' ') " in
    *" n001 "* | *" n009 "*) rgp_fail "-C '$shape': job $job ran on a degraded node ($(rgp_job "$job" NodeList))" ;;
  esac
  rgp_ok "-C '$shape': Features=$(rgp_job "$job" Features), ran on $(rgp_job "$job" NodeList), not on n001 or n009"
done
rgp_set_healthy
all_done
fi

# --- no way around the admin's rules ---------------------------------------------------------
if part rules; then
refused() { # EXPECTED-LINE -- SBATCH-ARGS
  local want=$1 out
  shift 2
  if out=$(sbatch "$@" --wrap true 2>&1); then rgp_fail "sbatch $* was accepted: $out"; fi
  grep -qxF -- "$want" <<<"$out" || rgp_fail "sbatch $* printed:"$'\n'"$out"$'\n'"expected: $want"
}
refused "sbatch: error: railguard: --rail-max-sus=4 is above the site limit of 3 scalable units (max_sus_default); it can lower that limit, not raise it" \
  -- -N20 --rail-max-sus=4
rgp_ok "--rail-max-sus cannot raise the site's max_sus_default"
refused "sbatch: error: railguard: Slurm does not apply the other terms of a --constraint with counts ('su1*2&su2*2') to every node, so rail_healthy would not keep degraded nodes out; submit without '*N' counts (one job per node group) or ask your admin" \
  -- -N4 -C 'su1*2&su2*2'
refused "sbatch: error: railguard: '[su1|su2]|su3' has a '|' outside its brackets, which Slurm cannot combine with rail_healthy; write the alternatives inside the brackets, e.g. '[a|b|c]'" \
  -- -N2 -C '[su1|su2]|su3'
rgp_ok "constraints that cannot keep degraded nodes out are refused with the form to use"
fi

if part owner; then

# User nobody needs to read slurm.conf and the SPANK plugin's files, and reach munged.
chmod o+rx "$RAILGUARD_CLUSTER_DIR" "$RAILGUARD_CLUSTER_DIR/munge" "$rgp_tmp"
chmod o+r "$SLURM_CONF" "$rgp_tmp"/*.conf "$rgp_tmp"/*.yaml
as_nobody() { (cd /tmp && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" "$@"); }
owned=$(as_nobody sbatch --parsable -o /dev/null -N2 --begin=now+1hour -C su2 -t 5 --wrap true \
  2>"$rgp_tmp/nobody.err") || rgp_fail "user nobody cannot submit: $(cat "$rgp_tmp/nobody.err")"
owned=${owned%%;*}
rgp_expect_eq "Features of nobody's job" "$(rgp_job "$owned" Features)" "su2&rail_healthy"
as_nobody scontrol update JobId="$owned" Features=su3 ||
  rgp_fail "nobody's scontrol update of its job failed"
rgp_expect_eq "Features of nobody's job after its update to su3" \
  "$(rgp_job "$owned" Features)" "su3&rail_healthy"
as_nobody scontrol update JobId="$owned" Features= || true
rgp_expect_eq "Features of nobody's job after clearing them" "$(rgp_job "$owned" Features)" "rail_healthy"
rgp_ok "the owner's scontrol update of a pending job keeps rail_healthy"
all_done
fi

# --- a requeued job keeps its confinement -----------------------------------------------------
if part requeue; then
# A strict 4-node job runs in one SU; it is requeued (held, so that its nodes can be taken
# first), the cluster is left with one free node per SU, and it is released with its begin
# time reset (Slurm 22.05 delays a requeued job by the credential lifetime, 120 s): Slurm's
# switch-wait clock, started at its first evaluation long ago, is not reset by the requeue.
job=$(rgp_submit -N4 --exclusive -t 5 --wrap 'sleep 300')
rgp_wait_state "$job" RUNNING 30
first_nodes=$(rgp_job "$job" NodeList)
first_su=$(rgp_sus_of_job "$job")
scontrol requeuehold "$job" || rgp_fail "scontrol requeuehold $job failed"
rgp_wait_state "$job" PENDING 30
declare -A rq_blocker=()
block_all_but_one rq_blocker
scontrol release "$job" || rgp_fail "scontrol release $job failed"
scontrol update JobId="$job" StartTime=now || rgp_fail "cannot reset the begin time of $job"
echo "$rgp_name: requeued job $job (first on $first_nodes, $first_su) released with one free node per SU; waiting 15 s"
sleep 15
rgp_expect_eq "state of the requeued job $job after 15 s" "$(rgp_job "$job" JobState)" PENDING
rgp_expect_eq "Switches of the requeued job" "$(rgp_job "$job" Switches)" "1@365-00:00:00"
rgp_ok "after its requeue, job $job still waits for one SU (Reason $(rgp_job "$job" Reason)), Switches=1@365-00:00:00"
scancel "${rq_blocker[su3]}"
rgp_wait_state "$job" RUNNING 60
rgp_expect_eq "SUs of the requeued job on $(rgp_job "$job" NodeList)" "$(rgp_sus_of_job "$job")" su3
rgp_ok "the requeued job $job ran again inside one SU, su3 ($(rgp_job "$job" NodeList)), once it was free"
all_done
fi

# --- a heterogeneous job kept in one SU ---------------------------------------------------------
if part together; then
printf '#!/bin/bash\nsleep 20\n' >"$rgp_tmp/het-together.sh"
# Idle nodes: su1 2, su2 6, su3 8, su4 4. The 5 nodes of the hetjob fit su2 most tightly.
b1=$(rgp_submit -w 'n[001-006]' -N6 --exclusive -t 5 --rail-placement=off --wrap 'sleep 300')
b2=$(rgp_submit -w 'n[009-010]' -N2 --exclusive -t 5 --rail-placement=off --wrap 'sleep 300')
b4=$(rgp_submit -w 'n[025-028]' -N4 --exclusive -t 5 --rail-placement=off --wrap 'sleep 300')
for b in "$b1" "$b2" "$b4"; do rgp_wait_state "$b" RUNNING 30; done
het=$(rgp_submit --rail-hetjob=together -N3 --exclusive -t 5 : -N1 --exclusive -t 5 \
  : -N1 --exclusive -t 5 "$rgp_tmp/het-together.sh")
grep -qF "railguard: --rail-hetjob=together: components 0-2 (5 nodes) in scalable unit su2 (8 healthy nodes, 6 idle now; chosen at submission), every other node excluded" "$rgp_tmp/submit.err" ||
  rgp_fail "sbatch did not print the together line: $(cat "$rgp_tmp/submit.err")"
for c in 0 1 2; do
  rgp_wait_state "$het+$c" RUNNING 30
  sus=$(rgp_sus_of_job "$het+$c")
  rgp_expect_eq "SU of component $c of hetjob $het ($(rgp_job "$het+$c" NodeList))" "$sus" su2
done
rgp_ok "hetjob $het with --rail-hetjob=together: its 3 components (3+1+1 nodes) all run in su2, the SU that holds them most tightly"
scancel "$het"
# Too big for any SU: refused with what to do.
if sbatch --rail-hetjob=together -N6 -t 5 : -N4 -t 5 "$rgp_tmp/het-together.sh" \
  >/dev/null 2>"$rgp_tmp/het.err"; then
  rgp_fail "a 10-node hetjob kept together on 8-node SUs was accepted"
fi
grep -qF "railguard: --rail-hetjob=together: no scalable unit of its partition has 10 healthy nodes for all 2 components (the most: 8); use --rail-hetjob=apart or fewer nodes" "$rgp_tmp/het.err" ||
  rgp_fail "the refusal of a 10-node together hetjob says: $(cat "$rgp_tmp/het.err")"
rgp_ok "a 10-node hetjob kept together is refused: no SU has 10 nodes"
all_done
fi

# --- too few healthy nodes: the job waits, never refused ---------------------------------------
if part wait; then
# Partition half has 16 nodes, 4 per SU; 6 degraded leave 10 healthy.
rgp_set_healthy n001 n002 n009 n010 n017 n018
held=$(rgp_submit -p half -N12 -t 5 --wrap 'sleep 1')
rgp_expect_eq "the line for a 12-node job with 10 healthy nodes" \
  "$(sed -n 's/^sbatch: //p' "$rgp_tmp/submit.err")" \
  "railguard: held: only 10 nodes of partition half are healthy (feature rail_healthy) now and this job needs 12 nodes; it waits, and railguard releases it when 12 are healthy (squeue shows the count); then strict placement: 12 nodes in 3 scalable units; Slurm holds the job for them however long it queues; healthy nodes only (feature rail_healthy)"
# A 10-node job accepted while 10 are healthy, evaluated only after one more node degrades:
# Slurm's scheduler parks it (BadConstraints, priority 0); the keeper takes it over.
parked=$(rgp_submit -p half -N10 -t 5 --begin=now+4 --wrap 'sleep 1')
rgp_set_healthy n001 n002 n009 n010 n017 n018 n019
# Slurm's main scheduler looks at a job whose begin time passed at its next run: every 60 s
# (sched_interval), or at once after a submission. Submit one after the begin time.
sleep 5
rgp_submit -N1 -t 1 --wrap true >/dev/null
want_held="railguard: waits for 12 healthy nodes (feature rail_healthy), 9 now"
want_parked="railguard: waits for 10 healthy nodes (feature rail_healthy), 9 now"
deadline=$((SECONDS + 30))
until [ "$(squeue -h -j "$held" -o %r)" = "$want_held" ] &&
  [ "$(squeue -h -j "$parked" -o %r)" = "$want_parked" ]; do
  [ "$SECONDS" -le "$deadline" ] ||
    rgp_fail "after 30 s: job $held shows '$(squeue -h -j "$held" -o '%T %r')', job $parked '$(squeue -h -j "$parked" -o '%T %r')'; expected PENDING with '$want_held' and '$want_parked'"
  sleep 0.5
done
rgp_expect_eq "state of the held job" "$(rgp_job "$held" JobState)" PENDING
rgp_expect_eq "state of the parked job" "$(rgp_job "$parked" JobState)" PENDING
rgp_ok "jobs $held (12 nodes) and $parked (10 nodes) wait in partition half with 9 healthy nodes; squeue says for how many"
rgp_set_healthy
rgp_wait_state "$held" COMPLETED 60
rgp_wait_state "$parked" COMPLETED 60
rgp_log_has "railguard: job_submit/rail: released JobId=$held: "
rgp_log_has "railguard: job_submit/rail: took over JobId=$parked, which Slurm parked (BadConstraints)"
rgp_expect_eq "AdminComment of job $held after its release" "$(rgp_job "$held" AdminComment)" ""
rgp_ok "once all 16 nodes were healthy again, the keeper released both and they ran"
all_done
fi

# --- health exclusion across a slurmctld restart ---------------------------------------------
if part restart; then
rgp_set_healthy n001
# slurmctld saves node state a moment after an update; a crash before that loses it (and
# n001's degraded Extra with it). Wait for the save, as a real cluster would have long done.
touch "$rgp_tmp/degraded-at"
for _ in $(seq 100); do
  [ "$RAILGUARD_CLUSTER_DIR/ctld/state/node_state" -nt "$rgp_tmp/degraded-at" ] && break
  sleep 0.2
done
[ "$RAILGUARD_CLUSTER_DIR/ctld/state/node_state" -nt "$rgp_tmp/degraded-at" ] ||
  rgp_fail "slurmctld did not save its node state within 20 s"
rg_cluster_kill slurmctld || rgp_fail "cannot kill slurmctld"
rg_cluster_respawn slurmctld || rgp_fail "slurmctld did not start again"
job=$(rgp_submit -N2 -C su1 --exclusive -t 5 --wrap 'sleep 1')
rgp_wait_state "$job" COMPLETED 60
case " $(scontrol show hostnames "$(rgp_job "$job" NodeList)" | tr '\n' ' ') " in
  *" n001 "*) rgp_fail "job $job ran on the degraded n001 right after the restart" ;;
esac
rgp_ok "right after a slurmctld restart, job $job was accepted and kept off degraded n001 ($(rgp_job "$job" NodeList))"
rgp_expect_eq "nodes with rail_healthy after the restart" \
  "$(scontrol show nodes -o | grep -c 'ActiveFeatures=[^ ]*rail_healthy')" 31
rgp_log_has "railguard: job_submit/rail: gave back (slurm.conf was read) rail_healthy on 31 nodes (n[002-032]): from the health railcheck published in their Extra"
rgp_ok "the keeper restored rail_healthy on the 31 healthy nodes from Extra, not on n001"
fi
rgp_done
