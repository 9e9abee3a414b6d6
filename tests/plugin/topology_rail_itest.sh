#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=100
# Integration test of topology/rail in a real slurmctld on etc/dev-4su.yaml:
#  - `scontrol show topology` has one leaf switch per SU (su1..su4, exactly that SU's nodes)
#    and one top switch raildev-spine over them;
#  - every slurmd loads topology/rail as well (for its own topology address);
#  - `scontrol reconfigure` with a broken rail YAML logs every problem and keeps the last
#    good topology: the switches stay and placement keeps working; a fixed YAML loads at the
#    next reconfigure;
#  - nodes are ranked SU by SU: after swapping the nodes of su1 and su4 and reconfiguring
#    while no job runs, slurmctld's node table starts with the new su1 and jobs still run;
#  - nothing is reordered under running jobs: a reconfigure, and a slurmctld restart, with a
#    YAML that would re-rank (su1 and su4 swapped) while jobs run on several nodes keep the
#    node order; the jobs keep their nodes, their per-node CPUs (scontrol show job -d, the
#    nodes' CPUAlloc, the task counts of a step started afterwards) and end COMPLETED; the
#    next reconfigure with no job running applies the new order;
#  - nodes only in the rail topology, or only in slurm.conf, are logged by name; the latter
#    stay usable under the leaf raildev-unmapped.
# About 100 s (a new step after the slurmctld restart waits ~60 s).
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

rgp_write_configs "default_mode: strict"
rgp_start || rgp_fail "the cluster did not start (see the messages above)"
log=$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log

# check_topology: the switches of etc/dev-4su.yaml are what slurmctld serves.
check_topology() {
  local topology line name su
  local -A leaf_nodes=()
  local -a tops=()
  topology=$(scontrol show topology) || rgp_fail "scontrol show topology failed"
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    name=$(rgp_field "$line" SwitchName)
    if [ "$(rgp_field "$line" Level)" = 0 ]; then
      leaf_nodes[$name]=$(rgp_field "$line" Nodes)
    else
      tops+=("$line")
    fi
  done <<<"$topology"
  for su in su1 su2 su3 su4; do
    [ "$(scontrol show hostnames "${leaf_nodes[$su]:-}" | tr '\n' ' ')" = \
      "$(scontrol show hostnames "${rgp_su_nodes[$su]}" | tr '\n' ' ')" ] ||
      rgp_fail "switch $su has Nodes=${leaf_nodes[$su]:-} (expected ${rgp_su_nodes[$su]}); got:"$'\n'"$topology"
  done
  [ "${#leaf_nodes[@]}" -eq 4 ] ||
    rgp_fail "${#leaf_nodes[@]} leaf switches (${!leaf_nodes[*]}), expected su1..su4:"$'\n'"$topology"
  [ "${#tops[@]}" -eq 1 ] || rgp_fail "${#tops[@]} upper switches, expected 1:"$'\n'"$topology"
  rgp_expect_eq "top switch" "$(rgp_field "${tops[0]}" SwitchName) $(rgp_field "${tops[0]}" Level) $(rgp_field "${tops[0]}" Switches) $(rgp_field "${tops[0]}" Nodes)" \
    "raildev-spine 1 su[1-4] n[001-032]"
}

# reconfigure_loaded WHAT: scontrol reconfigure, then waits until topology/rail logged that it
# loaded the YAML again.
reconfigure_loaded() {
  local loads deadline=$((SECONDS + 10))
  loads=$(grep -c "railguard: topology/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml" "$log")
  scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
  while [ "$(grep -c "railguard: topology/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml" "$log")" -le "$loads" ]; do
    [ "$SECONDS" -le "$deadline" ] || rgp_fail "$1 was not loaded at reconfigure"
    sleep 0.5
  done
}

# node_order: slurmctld's node table, in order, on one line.
node_order() {
  scontrol show node -o | awk '{ sub("NodeName=", "", $1); print $1 }' | tr '\n' ' '
}

check_topology
rgp_ok "scontrol show topology: su1..su4 with their nodes under raildev-spine"
grep -q "railguard: topology/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml and $RAILGUARD_CLUSTER_DIR/topology.yaml: cluster raildev, 4 scalable units, 32 nodes" "$log" ||
  rgp_fail "slurmctld.log does not say what topology/rail loaded"
rgp_ok "slurmctld.log says what topology/rail loaded"

# slurmd loads the topology plugin too, for its own node's address.
grep -q "railguard: topology/rail: loaded" "$RAILGUARD_CLUSTER_DIR/nodes/n017/slurmd.log" ||
  rgp_fail "slurmd of n017 did not load topology/rail"
rgp_ok "slurmd loads topology/rail"

# --- a broken rail YAML at reconfigure -------------------------------------------------------
cp "$RAILGUARD_CLUSTER_DIR/topology.yaml" "$rgp_tmp/topology.good"
sed -i 's/^cluster: raildev$/cluster: raildev\nsuperpod: yes/; s/nodes: "n\[009-016\]"/nodes: "n[009-016"/' \
  "$RAILGUARD_CLUSTER_DIR/topology.yaml"
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
yaml=$RAILGUARD_CLUSTER_DIR/topology.yaml
rgp_log_has "error: railguard: topology/rail: $yaml:5:1: unknown key 'superpod' in the topology; expected one of: cluster, rails, node_types, scalable_units, spines"
rgp_log_has "error: railguard: topology/rail: $yaml:36:12: invalid hostlist 'n[009-016': "
rgp_log_has "error: railguard: topology/rail: $RAILGUARD_CLUSTER_DIR/railguard.yaml or the topology it names has problems (above); the rail topology loaded before stays in force"
rgp_ok "reconfigure with a broken YAML: each problem logged with file:line:column"
check_topology
rgp_ok "reconfigure with a broken YAML: the last good switches stay"

rgp_set_healthy  # reconfigure dropped the features set with scontrol
job=$(rgp_submit -N2 --exclusive --wrap 'sleep 1')
rgp_expect_eq "Switches of a 2-node job after the broken reconfigure" "$(rgp_job "$job" Switches)" "1@365-00:00:00"
rgp_wait_state "$job" COMPLETED 60
rgp_expect_eq "SUs of the 2-node job" "$(rgp_sus_of_job "$job" | wc -w)" 1
rgp_log_has "error: railguard: job_submit/rail: $RAILGUARD_CLUSTER_DIR/railguard.yaml or the topology it names has problems (above); the placement setup loaded before stays in force"
rgp_ok "reconfigure with a broken YAML: placement keeps working (job $job: $(rgp_job "$job" NodeList))"

cp "$rgp_tmp/topology.good" "$RAILGUARD_CLUSTER_DIR/topology.yaml"
reconfigure_loaded "the fixed YAML"
check_topology
rgp_ok "a fixed YAML loads at the next reconfigure"

# --- node ranking: slurmctld's node order follows the SUs ----------------------------------
# Swap the nodes of su1 and su4: nodes are then ranked n025..n032 first. No job runs, so the
# new order applies at this reconfigure.
sed -i 's/nodes: "n\[001-008\]"/nodes: "X"/; s/nodes: "n\[025-032\]"/nodes: "n[001-008]"/; s/nodes: "X"/nodes: "n[025-032]"/' \
  "$RAILGUARD_CLUSTER_DIR/topology.yaml"
reconfigure_loaded "the reordered YAML"
rgp_expect_eq "su1 after swapping" "$(rgp_field "$(scontrol show topology su1)" Nodes)" "n[025-032]"
order=$(node_order)
rgp_expect_eq "slurmctld's node order" "$order" \
  "$(scontrol show hostnames 'n[025-032],n[009-024],n[001-008]' | tr '\n' ' ')"
rgp_ok "nodes are ranked SU by SU: su1 (now n[025-032]) first"
rgp_set_healthy
job=$(rgp_submit -N8 --exclusive --wrap 'srun hostname')
rgp_wait_state "$job" COMPLETED 60
rgp_expect_eq "nodes of an 8-node job after reordering" "$(rgp_job "$job" NodeList)" "n[025-032]"
rgp_ok "jobs run with the reordered node table (job $job on the new su1)"

# --- reconfigure and restart while jobs run: nothing is reordered under them -----------------
# Two jobs, on n030+n001 and n031+n002, get a different number of CPUs on each of their nodes
# (a 1-core job on n030 first). Then the YAML changes so that n001 and n030 swap places in a
# ranking. Slurm rebuilds a running job's node bitmap by name, but its per-node arrays (CPUs,
# cores, memory) keep the job's old node order: a re-ranking would hand n030's CPUs to n001
# and n001's to n030.

# start_jobs GO: starts the three jobs (pad, job, job2); the 2-node ones run one step, wait
# for the file GO, then run another step; each step writes the task count per node, as
# slurmctld lays out a new step from the job's per-node CPUs. Returns once the first steps ran.
start_jobs() {
  local go=$1 deadline
  rgp_set_healthy
  pad=$(rgp_submit -N1 -n1 -c2 -w n030 --wrap "while [ ! -e $go ]; do sleep 0.2; done")
  rgp_wait_state "$pad" RUNNING 30
  cat >"$rgp_tmp/steps.sh" <<STEPS
#!/bin/bash
srun bash -c 'echo \$SLURMD_NODENAME' | sort | uniq -c | tr -s ' ' >$rgp_tmp/steps-\$SLURM_JOB_ID.before
while [ ! -e $go ]; do sleep 0.2; done
srun bash -c 'echo \$SLURMD_NODENAME' | sort | uniq -c | tr -s ' ' >$rgp_tmp/steps-\$SLURM_JOB_ID.after
STEPS
  job=$(rgp_submit -N2 -n3 -c2 -w n001,n030 "$rgp_tmp/steps.sh")
  job2=$(rgp_submit -N2 -n3 -c2 -w n002,n031 "$rgp_tmp/steps.sh")
  rgp_wait_state "$job" RUNNING 30
  rgp_wait_state "$job2" RUNNING 30
  deadline=$((SECONDS + 30))
  while [ ! -s "$rgp_tmp/steps-$job.before" ] || [ ! -s "$rgp_tmp/steps-$job2.before" ]; do
    [ "$SECONDS" -le "$deadline" ] || rgp_fail "the first steps of jobs $job and $job2 did not run"
    sleep 0.5
  done
}

# job_details JOBID: the job's nodes and the per-node lines of `scontrol show job -d`.
job_details() {
  rgp_job "$1" NodeList
  scontrol show job -d "$1" | grep -E '^ *Nodes=' | sed 's/^ *//'
}
# cpu_alloc: CPUAlloc of the jobs' nodes, as slurmctld's node selection counts them.
cpu_alloc() {
  local node
  for node in n001 n002 n030 n031; do
    echo "$node $(rgp_field "$(scontrol show node -o "$node")" CPUAlloc)"
  done
}
# snapshot: what must not change while the jobs run.
snapshot() {
  job_details "$job"
  job_details "$job2"
  cpu_alloc
}

# check_jobs_kept WHEN BEFORE-SNAPSHOT BEFORE-ORDER GO SECONDS: the node order and the
# snapshot are as before; then the jobs end COMPLETED within SECONDS, their second steps have
# the task counts of the first, and the nodes are free again.
check_jobs_kept() {
  local when=$1 j
  rgp_expect_eq "slurmctld's node order after $when while jobs run" "$(node_order)" "$3"
  rgp_expect_eq "nodes and per-node CPUs of jobs $job and $job2 (scontrol show job -d) and CPUAlloc of their nodes after $when" \
    "$(snapshot)" "$2"
  touch "$4"
  for j in "$job" "$job2" "$pad"; do rgp_wait_state "$j" COMPLETED "$5"; done
  for j in "$job" "$job2"; do
    rgp_expect_eq "task counts of job $j's step after $when" \
      "$(cat "$rgp_tmp/steps-$j.after")" "$(cat "$rgp_tmp/steps-$j.before")"
  done
  rgp_expect_eq "CPUAlloc once the jobs ended" "$(cpu_alloc)" "$(printf '%s 0\n' n001 n002 n030 n031)"
}

# 1. scontrol reconfigure. The table is n[025-032],n[009-024],n[001-008]; the original YAML
#    (su1 and su4 swapped back) ranks n001 before n030.
start_jobs "$rgp_tmp/go1"
before=$(snapshot)
order_before=$(node_order)
[ "$(grep -c 'CPU_IDs=' <<<"$before")" -eq 4 ] ||
  rgp_fail "the jobs do not have different CPUs on each of their nodes:"$'\n'"$before"
cp "$rgp_tmp/topology.good" "$RAILGUARD_CLUSTER_DIR/topology.yaml"
reconfigure_loaded "the original YAML"
rgp_expect_eq "su1 after swapping back" "$(rgp_field "$(scontrol show topology su1)" Nodes)" "n[001-008]"
check_jobs_kept "a reconfigure" "$before" "$order_before" "$rgp_tmp/go1" 60
rgp_log_has "railguard: topology/rail: 2 job(s) run on more than one node: the node order stays as it was"
rgp_ok "a reconfigure while jobs run keeps the node order; jobs $job, $job2 keep their nodes and CPUs and end COMPLETED"
reconfigure_loaded "the original YAML"
rgp_expect_eq "slurmctld's node order at a reconfigure with no job running" "$(node_order)" \
  "$(scontrol show hostnames 'n[001-032]' | tr '\n' ' ')"
rgp_ok "the next reconfigure with no job running applies the new order"

# 2. A slurmctld restart: it ranks nodes before it recovers its jobs. The table is
#    n[001-032]; the YAML now has su1 and su4 swapped, which ranks n030 before n001.
start_jobs "$rgp_tmp/go2"
before=$(snapshot)
order_before=$(node_order)
sed -i 's/nodes: "n\[001-008\]"/nodes: "X"/; s/nodes: "n\[025-032\]"/nodes: "n[001-008]"/; s/nodes: "X"/nodes: "n[025-032]"/' \
  "$RAILGUARD_CLUSTER_DIR/topology.yaml"
rg_cluster_kill slurmctld TERM || rgp_fail "could not stop slurmctld"
rg_cluster_respawn slurmctld || rgp_fail "slurmctld did not start again"
rgp_expect_eq "su1 after the restart" "$(rgp_field "$(scontrol show topology su1)" Nodes)" "n[025-032]"
# After a restart Slurm 22.05 refuses a job's first new step for a while ("step creation
# temporarily disabled, retrying (Requested nodes are busy)"); srun retries after ~60 s.
check_jobs_kept "a restart" "$before" "$order_before" "$rgp_tmp/go2" 180
rgp_log_has "railguard: topology/rail: slurmctld ranks nodes before it recovers its jobs: the node order it saved (railguard_node_order) stays"
rgp_ok "a slurmctld restart while jobs run keeps the node order; jobs $job, $job2 keep their nodes and CPUs and end COMPLETED"
reconfigure_loaded "the swapped YAML"
rgp_expect_eq "slurmctld's node order at a reconfigure after the restart, no job running" "$(node_order)" \
  "$(scontrol show hostnames 'n[025-032],n[009-024],n[001-008]' | tr '\n' ' ')"
rgp_ok "after the restart, a reconfigure with no job running applies the new order"

# --- nodes on one side only ------------------------------------------------------------------
# su1 of the rail topology becomes n[033-040]: slurm.conf has none of them, and n[001-008]
# are in no SU any more.
cp "$rgp_tmp/topology.good" "$RAILGUARD_CLUSTER_DIR/topology.yaml"
sed -i 's/nodes: "n\[001-008\]"/nodes: "n[033-040]"/' "$RAILGUARD_CLUSTER_DIR/topology.yaml"
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
rgp_log_has "error: railguard: topology/rail: scalable unit su1 has none of its nodes in slurm.conf; it gets no switch"
rgp_log_has "error: railguard: topology/rail: 8 node(s) of $RAILGUARD_CLUSTER_DIR/topology.yaml are not in slurm.conf: n[033-040]; left out of the topology"
rgp_log_has "error: railguard: topology/rail: 8 node(s) of slurm.conf are not in $RAILGUARD_CLUSTER_DIR/topology.yaml: n[001-008]; they go under switch raildev-unmapped, usable but outside every scalable unit"
rgp_expect_eq "the unmapped switch" "$(scontrol show topology raildev-unmapped)" \
  "SwitchName=raildev-unmapped Level=0 LinkSpeed=1 Nodes=n[001-008]"
rgp_expect_eq "switches under the top switch" "$(rgp_field "$(scontrol show topology raildev-spine)" Switches)" \
  "su[2-4],raildev-unmapped"
job=$(rgp_submit -N1 -w n003 --wrap 'sleep 1')
rgp_wait_state "$job" COMPLETED 60
rgp_ok "nodes missing on either side are logged by name; unmapped ones stay usable (job $job)"
rgp_done
