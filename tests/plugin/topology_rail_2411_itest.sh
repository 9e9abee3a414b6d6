#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# topology/rail on a real Slurm 24.11.5 cluster (tests/harness/cluster.sh --slurm-version, 32
# slurmd on etc/dev-4su.yaml: 4 SUs of 8 nodes, one one-hop domain each), choosing nodes in
# topology_p_eval_nodes with no job_submit plugin and no user flags besides -N/--exclusive:
#   - the plugin loads and `scontrol show topology` shows one leaf per SU;
#   - a multi-node job lands in one SU, never on the degraded node (no rail_healthy);
#   - a job that fits an SU waits while only the degraded node would complete one;
#   - the degraded node serves a single-node job;
#   - best fit: a job goes to the fullest SU that holds it;
#   - a job that fits one SU waits for one rather than spreading over two, then runs in one.
# Skips with one line when Slurm 24.11.5 or the 24.11 plugins are not built.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=$(basename "${0%.sh}")
prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-24.11.5
plugins=$bin/slurm-plugins-24.11.5
if [ ! -x "$prefix/sbin/slurmctld" ] || [ ! -f "$plugins/topology_rail.so" ]; then
  echo "$name: skipped: no Slurm 24.11.5 in $prefix or no $plugins/topology_rail.so" \
    "(scripts/build_slurm.sh 24.11.5, then rebuild)"
  exit 0
fi
checks=0
fail() {
  echo "$name: FAIL: $*" >&2
  [ -z "${RAILGUARD_CLUSTER_DIR:-}" ] || tail -n 15 "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" >&2
  exit 1
}
ok() {
  checks=$((checks + 1))
  echo "$name: ok: $*"
}

# shellcheck source=../harness/cluster.sh
source "$src/tests/harness/cluster.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rgp-$name.XXXXXX")
trap 'rg_cluster_stop || true; rm -rf -- "$tmp"' EXIT
echo "topology: topology.yaml" >"$tmp/railguard.yaml" # healthy_feature: rail_healthy (default)
echo "SchedulerParameters=bf_interval=2" >"$tmp/extra.conf"
rg_cluster_start --no-trap --topo "$src/etc/dev-4su.yaml" --slurm-version 24.11.5 \
  --topology-plugin rail --plugin-dir "$plugins" --railctl "$bin/railctl" \
  --railguard-conf "$tmp/railguard.yaml" --conf-extra "$tmp/extra.conf" ||
  fail "the 24.11.5 cluster with topology/rail did not start"

# What etc/dev-4su.yaml says, written out here rather than read with the code under test.
su_of() { echo "su$(((10#${1#n} - 1) / 8 + 1))"; }
# job_field JOBID KEY: one field of `scontrol show job -o`.
job_field() {
  local tok
  for tok in $(scontrol show job -o "$1"); do
    [[ $tok != "$2="* ]] || { echo "${tok#*=}"; return 0; }
  done
}
# sus_of_job JOBID: the SUs of the job's nodes, sorted, unique, on one line.
sus_of_job() {
  local n
  for n in $(scontrol show hostnames "$(job_field "$1" NodeList)"); do su_of "$n"; done |
    sort -u | tr '\n' ' ' | sed 's/ $//'
}
submit() { sbatch --parsable --exclusive -o /dev/null "$@" --wrap 'sleep 300'; }
# wait_state JOBID STATE: waits up to 20 s for the job to be in STATE.
wait_state() {
  local deadline=$((SECONDS + 20)) state=""
  while [ "$SECONDS" -le "$deadline" ]; do
    state=$(job_field "$1" JobState)
    [ "$state" != "$2" ] || return 0
    sleep 0.5
  done
  fail "job $1 is $state after 20 s, expected $2 ($(job_field "$1" Reason))"
}
# stays_pending JOBID WHY: the job is still pending after three backfill cycles.
stays_pending() {
  sleep 7
  [ "$(job_field "$1" JobState)" = PENDING ] ||
    fail "job $1 ($2) is $(job_field "$1" JobState) on $(job_field "$1" NodeList); expected it to wait"
}
# one_su JOBID [NOT-SU]: the running job holds nodes of exactly one SU (not NOT-SU), no n003.
one_su() {
  local sus nodes
  wait_state "$1" RUNNING
  sus=$(sus_of_job "$1")
  nodes=$(job_field "$1" NodeList)
  [[ $sus =~ ^su[1-4]$ ]] || fail "job $1 spans '$sus' ($nodes); expected one SU"
  [ -z "${2:-}" ] || [ "$sus" != "$2" ] || fail "job $1 is in $2 ($nodes)"
  ! scontrol show hostnames "$nodes" | grep -qx n003 || fail "job $1 runs on degraded n003"
  echo "$sus"
}

grep -q 'topology/rail: loaded' "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" ||
  fail "slurmctld did not log topology/rail loading the rail topology"
[ "$(scontrol show config | awk '$1 == "TopologyPlugin" { print $3 }')" = topology/rail ] ||
  fail "TopologyPlugin is not topology/rail"
topo=$(scontrol show topology 2>&1)
for su in su1 su2 su3 su4; do
  grep -q "^SwitchName=$su Level=0 .*Nodes=n" <<<"$topo" || fail "no leaf $su in: $topo"
done
ok "topology/rail loads into Slurm 24.11.5; scontrol show topology lists a leaf per SU"

# Every node healthy (rail_healthy) but n003, as railcheck publishes it.
for s in 1 2 3 4; do
  scontrol update NodeName="n[$(printf '%03d' $((s * 8 - 7)))-$(printf '%03d' $((s * 8)))]" \
    AvailableFeatures="su$s,rail_healthy" ActiveFeatures="su$s,rail_healthy"
done
scontrol update NodeName=n003 AvailableFeatures=su1 ActiveFeatures=su1

a=$(submit -N8)
sa=$(one_su "$a" su1)
b=$(submit -N8)
sb=$(one_su "$b" su1)
c=$(submit -N8)
sc=$(one_su "$c" su1)
[ "$(printf '%s\n' "$sa" "$sb" "$sc" | sort -u | wc -l)" = 3 ] || fail "8-node jobs share an SU: $sa $sb $sc"
ok "three 8-node jobs each run in one whole SU ($sa, $sb, $sc), none in su1 (7 healthy nodes)"

d=$(submit -N8)
stays_pending "$d" "8 nodes while only su1 with degraded n003 is free"
ok "an 8-node job waits rather than use su1's degraded n003"

s=$(sbatch --parsable -o /dev/null -N1 -w n003 --wrap 'sleep 300')
wait_state "$s" RUNNING
ok "the degraded n003 runs a single-node job"

scancel "$d" "$a"
wait_state "$a" CANCELLED
e=$(submit -N5)
[ "$(one_su "$e")" = su1 ] || fail "5-node job $e went to $(sus_of_job "$e"), not su1 (best fit: 7 free healthy vs 8)"
ok "best fit: a 5-node job takes su1 (7 healthy free) over the empty $sa"

g=$(submit -N6)
[ "$(one_su "$g")" = "$sa" ] || fail "6-node job $g is in $(sus_of_job "$g"), expected $sa"
f=$(submit -N3)
stays_pending "$f" "3 nodes with 2 free in su1 and 2 in $sa"
ok "a 3-node job waits while no SU has 3 free healthy nodes (4 free over two SUs)"
scancel "$g"
[ "$(one_su "$f")" = "$sa" ] || fail "3-node job $f is in $(sus_of_job "$f"), expected $sa"
ok "once $sa is free the waiting 3-node job runs in it"

scancel -u "$(id -un)"
echo "$name: PASS ($checks checks, ${SECONDS} s)"
