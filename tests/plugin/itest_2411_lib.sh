# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by tests/plugin/*_2411_itest.sh and *_2511_itest.sh (sourced, not run): the skip
# when Slurm $rg_release (default 24.11.5) or its plugins are not built (one line, exit 0), a
# cluster of that release (tests/harness/cluster.sh --slurm-version) on etc/dev-4su.yaml with
# topology/rail from build/slurm-plugins-$rg_release, and small job helpers.
# Env: RAILGUARD_SOURCE_DIR, RAILGUARD_BINARY_DIR (the build tree), RAILGUARD_SLURM_ROOT
# (default /opt/railguard: scripts/build_slurm.sh's prefixes).
# shellcheck shell=bash
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=$(basename "${0%.sh}")
release=${rg_release:-24.11.5}
plugins=$bin/slurm-plugins-$release
# shellcheck source=../harness/cluster.sh
source "$src/tests/harness/cluster.sh"
rg_skip_unbuilt "$name" "$release" "$plugins/topology_rail.so"
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rgp-$name.XXXXXX")
trap 'rg_cluster_stop || true; rm -rf -- "$tmp"' EXIT
echo "topology: topology.yaml" >"$tmp/railguard.yaml" # healthy_feature: rail_healthy (default)
echo "SchedulerParameters=bf_interval=2" >"$tmp/extra.conf"

# start_release [HARNESS-OPTIONS...]: the $release cluster with topology/rail, $tmp/railguard.yaml
# and $tmp/extra.conf (a test may rewrite both first); the harness takes the release's railctl
# (slurm-tools-$release) when it is built.
start_release() {
  rg_cluster_start --no-trap --topo "$src/etc/dev-4su.yaml" --slurm-version "$release" \
    --topology-plugin rail --plugin-dir "$plugins" \
    --railguard-conf "$tmp/railguard.yaml" --conf-extra "$tmp/extra.conf" "$@" ||
    fail "the $release cluster with topology/rail did not start"
}

# The node health railcheck publishes in Extra (format: wire/extra_json.h), healthy and
# degraded: job_submit/rail's feature keeper takes rail_healthy from a node whose Extra is not.
extra_ok='{"railcheck":{"failed":[],"rails":["ok","ok","ok","ok","ok","ok","ok","ok"],"time":1,"verdict":"ok"}}'
extra_degraded='{"railcheck":{"failed":["rail3:port.rate"],"rails":["ok","ok","ok","degraded","ok","ok","ok","ok"],"time":1,"verdict":"restrict"}}'

# set_healthy [DEGRADED-NODE...]: every node gets its SU feature, rail_healthy and a healthy
# Extra, as railcheck publishes them, except the nodes named (SU feature, degraded Extra).
set_healthy() {
  local s n
  for s in 1 2 3 4; do
    scontrol update NodeName="n[$(printf '%03d' $((s * 8 - 7)))-$(printf '%03d' $((s * 8)))]" \
      Extra="$extra_ok" AvailableFeatures="su$s,rail_healthy" ActiveFeatures="su$s,rail_healthy"
  done
  for n in "$@"; do
    scontrol update NodeName="$n" Extra="$extra_degraded" AvailableFeatures="$(su_of "$n")" \
      ActiveFeatures="$(su_of "$n")"
  done
}

# write_gpu_3su FILE: etc/dev-4su.yaml without su4, for tests of GPU and CPU nodes: su4's nodes
# n025-n032 stay in slurm.conf (the harness starts a slurmd for every node of dev-4su.yaml) but
# are in no rail topology, as CPU nodes are.
write_gpu_3su() {
  sed '/- name: su4/,/leaves: \*leaves8/d' "$src/etc/dev-4su.yaml" >"$1"
  grep -q 'name: su3' "$1" && ! grep -q 'name: su4' "$1" || fail "could not write $1 (dev-4su.yaml without su4)"
}

# submit SBATCH-OPTIONS...: an exclusive 300 s job; prints its id.
submit() {
  sbatch --parsable --exclusive -o /dev/null "$@" --wrap 'sleep 300' || fail "sbatch $* was refused"
}

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
# two_8_node_jobs: submits two exclusive 8-node jobs (a whole SU each) of 60 s, into jobs=().
two_8_node_jobs() {
  local i job
  jobs=()
  for i in 1 2; do
    job=$(sbatch --parsable -N8 --exclusive -t 5 -o /dev/null --wrap 'sleep 60' 2>"$tmp/submit.err") ||
      fail "sbatch -N8 refused: $(cat "$tmp/submit.err")"
    jobs+=("$job")
  done
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

