#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test of topology/rail in a real slurmctld on etc/dev-4su.yaml:
#  - `scontrol show topology` has one leaf switch per SU (su1..su4, exactly that SU's nodes)
#    and one top switch raildev-spine over them;
#  - every slurmd loads topology/rail as well (for its own topology address);
#  - `scontrol reconfigure` with a broken rail YAML logs every problem and keeps the last
#    good topology: the switches stay and placement keeps working; a fixed YAML loads at the
#    next reconfigure;
#  - nodes are ranked SU by SU: after swapping the nodes of su1 and su4 and reconfiguring,
#    slurmctld's node table starts with the new su1 and jobs still run;
#  - nodes only in the rail topology, or only in slurm.conf, are logged by name; the latter
#    stay usable under the leaf raildev-unmapped.
# About 10 s.
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
rgp_expect_eq "Switches of a 2-node job after the broken reconfigure" "$(rgp_job "$job" Switches)" "1@00:01:10"
rgp_wait_state "$job" COMPLETED 60
rgp_expect_eq "SUs of the 2-node job" "$(rgp_sus_of_job "$job" | wc -w)" 1
rgp_log_has "error: railguard: job_submit/rail: $RAILGUARD_CLUSTER_DIR/railguard.yaml or the topology it names has problems (above); the placement setup loaded before stays in force"
rgp_ok "reconfigure with a broken YAML: placement keeps working (job $job: $(rgp_job "$job" NodeList))"

cp "$rgp_tmp/topology.good" "$RAILGUARD_CLUSTER_DIR/topology.yaml"
loads=$(grep -c "railguard: topology/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml" "$log")
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
deadline=$((SECONDS + 10))
while [ "$(grep -c "railguard: topology/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml" "$log")" -le "$loads" ]; do
  [ "$SECONDS" -le "$deadline" ] || rgp_fail "the fixed YAML was not loaded at reconfigure"
  sleep 0.5
done
check_topology
rgp_ok "a fixed YAML loads at the next reconfigure"

# --- node ranking: slurmctld's node order follows the SUs ----------------------------------
# Swap the nodes of su1 and su4: nodes are then ranked n025..n032 first.
sed -i 's/nodes: "n\[001-008\]"/nodes: "X"/; s/nodes: "n\[025-032\]"/nodes: "n[001-008]"/; s/nodes: "X"/nodes: "n[025-032]"/' \
  "$RAILGUARD_CLUSTER_DIR/topology.yaml"
loads=$(grep -c "railguard: topology/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml" "$log")
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
deadline=$((SECONDS + 10))
while [ "$(grep -c "railguard: topology/rail: loaded $RAILGUARD_CLUSTER_DIR/railguard.yaml" "$log")" -le "$loads" ]; do
  [ "$SECONDS" -le "$deadline" ] || rgp_fail "the reordered YAML was not loaded at reconfigure"
  sleep 0.5
done
rgp_expect_eq "su1 after swapping" "$(rgp_field "$(scontrol show topology su1)" Nodes)" "n[025-032]"
order=$(scontrol show node -o | awk '{ sub("NodeName=", "", $1); print $1 }' | tr '\n' ' ')
rgp_expect_eq "slurmctld's node order" "$order" \
  "$(scontrol show hostnames 'n[025-032],n[009-024],n[001-008]' | tr '\n' ' ')"
rgp_ok "nodes are ranked SU by SU: su1 (now n[025-032]) first"
rgp_set_healthy
job=$(rgp_submit -N8 --exclusive --wrap 'srun hostname')
rgp_wait_state "$job" COMPLETED 60
rgp_expect_eq "nodes of an 8-node job after reordering" "$(rgp_job "$job" NodeList)" "n[025-032]"
rgp_ok "jobs run with the reordered node table (job $job on the new su1)"

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
