#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: the tree export of etc/dev-4su.yaml, loaded into a real slurmctld with
# topology/tree, gives one leaf switch per SU holding exactly that SU's nodes and one top
# switch over all SU switches; and a 2-node job asking for 8 GPUs per node runs on two nodes
# of one SU.
# Env: RAILGUARD_SOURCE_DIR (default: this checkout), RAILGUARD_BINARY_DIR (railctl's folder).
set -euo pipefail

src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source-path=SCRIPTDIR source=../harness/cluster.sh
source "$src/tests/harness/cluster.sh"

fail() {
  echo "tree_export_itest: FAIL: $*" >&2
  if [ -n "${RAILGUARD_CLUSTER_DIR:-}" ] && [ -s "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" ]; then
    echo "---- last 15 lines of slurmctld.log" >&2
    tail -n 15 "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" >&2
  fi
  exit 1
}

# field RECORD KEY: the value of KEY=... in a one-line Slurm record, empty if absent.
field() {
  local tok
  local -a toks
  read -ra toks <<<"$1"
  for tok in "${toks[@]}"; do
    if [[ $tok == "$2="* ]]; then
      printf '%s\n' "${tok#*=}"
      return 0
    fi
  done
}

# hosts EXPR: the host names of a hostlist, sorted, on one line.
hosts() {
  scontrol show hostnames "$1" | sort | tr '\n' ' '
}

# What etc/dev-4su.yaml says, written out here rather than taken from railctl under test.
declare -A want_nodes=([su1]="n[001-008]" [su2]="n[009-016]" [su3]="n[017-024]" [su4]="n[025-032]")
all_sus="su[1-4]"

rg_cluster_start --topo "$src/etc/dev-4su.yaml" --topology-plugin tree ||
  fail "the cluster did not start (see the messages above)"

# --- scontrol show topology ----------------------------------------------------------------
topology=$(scontrol show topology) || fail "scontrol show topology failed"
echo "$topology"
declare -A leaf_nodes=()
tops=()
while IFS= read -r line; do
  [ -n "$line" ] || continue
  name=$(field "$line" SwitchName)
  [ -n "$name" ] || fail "scontrol show topology line without SwitchName=: $line"
  if [ -n "$(field "$line" Switches)" ]; then
    tops+=("$line")
  else
    [ -z "${leaf_nodes[$name]:-}" ] || fail "switch $name listed twice"
    leaf_nodes[$name]=$(field "$line" Nodes)
  fi
done <<<"$topology"

for su in "${!want_nodes[@]}"; do
  [ -n "${leaf_nodes[$su]:-}" ] ||
    fail "no leaf switch $su in scontrol show topology (expected SwitchName=$su Nodes=${want_nodes[$su]})"
  [ "$(hosts "${leaf_nodes[$su]}")" = "$(hosts "${want_nodes[$su]}")" ] ||
    fail "switch $su has Nodes=${leaf_nodes[$su]}, expected ${want_nodes[$su]}"
done
[ "${#leaf_nodes[@]}" -eq "${#want_nodes[@]}" ] ||
  fail "${#leaf_nodes[@]} leaf switches (${!leaf_nodes[*]}), expected ${#want_nodes[@]} (one per SU)"
[ "${#tops[@]}" -eq 1 ] || fail "${#tops[@]} switches with Switches=, expected 1 top switch"
top_switches=$(field "${tops[0]}" Switches)
[ "$(hosts "$top_switches")" = "$(hosts "$all_sus")" ] ||
  fail "top switch $(field "${tops[0]}" SwitchName) has Switches=$top_switches, expected $all_sus"

# --- a 2-node, 8-GPU-per-node job stays inside one SU --------------------------------------
submitted=$(sbatch --parsable -N2 --gpus-per-node=8 -o "$RAILGUARD_CLUSTER_DIR/job-%j.out" \
  --wrap 'sleep 1') || fail "sbatch -N2 --gpus-per-node=8 was refused"
job=${submitted%%;*}
deadline=$((SECONDS + 60))
while :; do
  record=$(scontrol show job -o "$job") || fail "scontrol show job $job failed"
  state=$(field "$record" JobState)
  case $state in
    COMPLETED) break ;;
    PENDING | CONFIGURING | RUNNING | COMPLETING) ;;
    *) fail "job $job ended $state, expected COMPLETED: $record" ;;
  esac
  [ "$SECONDS" -lt "$deadline" ] || fail "job $job still $state after 60 s: $record"
  sleep 0.5
done
[ "$(field "$record" ExitCode)" = 0:0 ] ||
  fail "job $job exit code $(field "$record" ExitCode), expected 0:0"
nodelist=$(field "$record" NodeList)
read -ra job_nodes <<<"$(hosts "$nodelist")"
[ "${#job_nodes[@]}" -eq 2 ] || fail "job $job ran on $nodelist, expected 2 nodes"
job_su=""
for su in "${!want_nodes[@]}"; do
  for node in $(hosts "${want_nodes[$su]}"); do
    [ "$node" != "${job_nodes[0]}" ] || job_su=$su
  done
done
[ -n "$job_su" ] || fail "job $job ran on ${job_nodes[0]}, which is in no SU"
[[ " $(hosts "${want_nodes[$job_su]}") " == *" ${job_nodes[1]} "* ]] ||
  fail "job $job ran on $nodelist, across SUs; expected two nodes of one SU"

echo "tree_export_itest: PASS (job $job COMPLETED on $nodelist, inside $job_su)"
