#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test of one-hop domains (issue 14 item 4) in a real slurmctld with topology/rail
# and job_submit/rail, strict, on tests/data/topo/b300-2su.yaml: the B300 SuperPOD pattern
# scaled down, 2 SUs of 32 nodes with two leaves per rail, so one-hop domains of 16 nodes
# (su1-d1 = n[001-016], su1-d2 = n[017-032], su2-d1 = n[033-048], su2-d2 = n[049-064]).
#  - topology/rail gives Slurm one leaf switch per domain, under a switch per SU;
#  - with 8 nodes busy in every domain (so each SU has 16 free, split 8 + 8), a strict
#    16-node job waits: before one-hop domains the SU was one leaf switch and the job ran
#    across su1's two domains at once;
#  - once one domain is free, the job runs inside that domain and nowhere else;
#  - on an idle cluster a 16-node job lands inside one domain.
# 64 slurmd daemons; about 60 s.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

# The layout; one_hop_domain_b300_itest.sh runs the same on etc/superpod-b300.yaml (two SUs of
# 64 nodes, domains of 32: the B300 SuperPOD reference itself) with these set.
topo=${RG_OHD_TOPO:-$src/tests/data/topo/b300-2su.yaml}
prefix=${RG_OHD_PREFIX:-n}    # node names: prefix + 3 digits
su_size=${RG_OHD_SU:-32}      # nodes per SU, 2 SUs
dom=${RG_OHD_DOMAIN:-16}      # nodes per one-hop domain, 2 per SU
half=$((dom / 2))
total=$((2 * su_size))
name_of() { printf '%s%03d' "$prefix" "$1"; }
range_of() { printf '%s[%03d-%03d]' "$prefix" "$1" "$2"; }
rgp_write_configs "default_mode: strict"
echo "topology: $topo" >"$rgp_tmp/spank-railguard.yaml"
rgp_start --topo "$topo" --timeout 150 || rgp_fail "the cluster did not start (see the messages above)"

# What b300-2su.yaml says, written out here rather than read with the code under test.
declare -A domain_nodes=([su1-d1]="$(range_of 1 "$dom")" [su1-d2]="$(range_of $((dom + 1)) "$su_size")"
  [su2-d1]="$(range_of $((su_size + 1)) $((su_size + dom)))"
  [su2-d2]="$(range_of $((su_size + dom + 1)) "$total")")
domain_of() {
  local n=$((10#${1#"$prefix"}))
  echo "su$(((n - 1) / su_size + 1))-d$(((n - 1) % su_size / dom + 1))"
}
domains_of_job() {
  local node
  for node in $(scontrol show hostnames "$(rgp_job "$1" NodeList)"); do
    domain_of "$node"
  done | sort -u | tr '\n' ' ' | sed 's/ $//'
}

for node in $(scontrol show hostnames "$(range_of 1 "$total")"); do
  scontrol update NodeName="$node" Extra="$rgp_extra_ok" AvailableFeatures="rail_healthy" \
    ActiveFeatures="rail_healthy"
done || rgp_fail "scontrol update of node features failed"

# --- the switch tree topology/rail gives Slurm --------------------------------------------------
topology=$(scontrol show topology)
for d in su1-d1 su1-d2 su2-d1 su2-d2; do
  grep -Eq "^SwitchName=$d Level=0 .*Nodes=${domain_nodes[$d]//[/\\[}" <<<"$topology" ||
    rgp_fail "scontrol show topology has no leaf switch $d with nodes ${domain_nodes[$d]}:
$topology"
done
grep -Eq "^SwitchName=su1 Level=1 .*Switches=su1-d\[1-2\]" <<<"$topology" ||
  rgp_fail "scontrol show topology has no switch su1 above su1-d[1-2]:
$topology"
rgp_ok "topology/rail: one leaf switch per one-hop domain, each SU above its two"

# --- half of each domain free: a job of one domain's size waits for one domain -----------------
declare -A blocker=()
for d in su1-d1 su1-d2 su2-d1 su2-d2; do
  nodes=$(scontrol show hostnames "${domain_nodes[$d]}" | awk -v n="$half" 'NR <= n' | paste -sd,)
  blocker[$d]=$(rgp_submit -w "$nodes" -N"$half" --exclusive -t 10 --rail-placement=off \
    --wrap 'sleep 300')
done
for d in "${!blocker[@]}"; do rgp_wait_state "${blocker[$d]}" RUNNING 60; done
job=$(rgp_submit -N"$dom" --exclusive -t 5 --wrap 'sleep 30')
sw=$(rgp_job "$job" Switches)
rgp_expect_eq "switches bound of job $job" "${sw%%@*}" 1
echo "$rgp_name: $half free nodes in every domain ($dom per SU); waiting 12 s"
sleep 12
rgp_expect_eq "state of $dom-node job $job with no free domain (nodes: $(rgp_job "$job" NodeList))" \
  "$(rgp_job "$job" JobState)" PENDING
rgp_ok "a $dom-node job does not run across the two half-free domains of one SU"

scancel "${blocker[su2-d1]}"
rgp_wait_state "$job" RUNNING 60
rgp_expect_eq "domains of job $job ($(rgp_job "$job" NodeList))" "$(domains_of_job "$job")" su2-d1
rgp_ok "once su2-d1 is free, the $dom-node job runs inside it"

scancel --user="$(id -un)"
deadline=$((SECONDS + 30))
while [ -n "$(squeue -h -t PD,R,CG -o %i)" ]; do
  [ "$SECONDS" -le "$deadline" ] || rgp_fail "jobs still there 30 s after scancel: $(squeue -h)"
  sleep 0.5
done

# --- an idle cluster: one domain -----------------------------------------------------------------
job=$(rgp_submit -N"$dom" --exclusive -t 5 --wrap 'sleep 5')
rgp_wait_state "$job" RUNNING 60
got=$(domains_of_job "$job")
[[ $got =~ ^su[12]-d[12]$ ]] || rgp_fail "job $job on an idle cluster spans '$got', expected one domain"
rgp_ok "on an idle cluster a $dom-node job runs inside one one-hop domain ($got)"

rgp_done
