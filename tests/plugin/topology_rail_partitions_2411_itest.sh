#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# topology/rail on a real Slurm 24.11.5 ($rg_release) cluster of GPU and CPU nodes, each kind
# in a partition of its own: the GPU partition gets rail placement, the CPU partition Slurm's
# own (flat) selection. 32 slurmd on etc/dev-4su.yaml; the rail topology railguard.yaml names
# lists su1-su3 only (n001-n024), so n025-n032 stand for CPU nodes: no rails, no healthy
# feature (railcheck does not run there), under topology/rail's "unmapped" leaf.
#   - `scontrol show topology` has a leaf per SU and one for the CPU nodes;
#   - 4- and 8-node jobs of the CPU partition run at once on CPU nodes (before, topology/rail
#     asked every multi-node job for the healthy feature: they waited forever);
#   - an 8-node job of the GPU partition runs in one SU, of healthy nodes;
#   - in a partition of both kinds, a multi-node job keeps to the rail nodes, a single-node
#     job may use a CPU node;
#   - with TopologyParam=RoutePart, slurmctld fans its messages out through topology/rail by
#     partition (Slurm's common_topo.c, built into the plugin, reads slurmctld's partition
#     list): slurmctld still runs at the end. Before, the plugin's export map hid the
#     `part_list` and `idle_node_bitmap` that common_topo.c defines for programs other than
#     slurmctld, so the plugin read its own empty copies and slurmctld crashed at its first
#     message to several nodes.
# Slurm 25.05+ could give partitions different topologies in topology.yaml, but that file
# names only the built-in block, flat and tree plugins (see plugin/README.md), so topology/rail
# scopes itself by partition. Skips with one line when the release or its plugins are not built.
set -euo pipefail
rg_release=${rg_release:-24.11.5}
# shellcheck source=itest_2411_lib.sh
source "$(dirname "$0")/itest_2411_lib.sh"
write_gpu_3su "$tmp/gpu-3su.yaml"
echo "topology: $tmp/gpu-3su.yaml" >"$tmp/railguard.yaml"
cat >>"$tmp/extra.conf" <<'CONF'
PartitionName=gpu Nodes=n[001-024] State=UP
PartitionName=cpu Nodes=n[025-032] State=UP
PartitionName=mixed Nodes=n[017-032] State=UP
TopologyParam=RoutePart
CONF
start_release

topo=$(scontrol show topology 2>&1)
for sw in su1 su2 su3 raildev-unmapped; do
  grep -q "^SwitchName=$sw Level=0 " <<<"$topo" || fail "no leaf $sw in: $topo"
done
grep -q "^SwitchName=raildev-unmapped Level=0 .*Nodes=n\[025-032\]" <<<"$topo" ||
  fail "the CPU nodes are not under raildev-unmapped: $topo"
ok "scontrol show topology: a leaf per SU and raildev-unmapped for the CPU nodes n[025-032]"

# GPU nodes healthy as railcheck publishes them, n003 degraded; CPU nodes get nothing.
for s in 1 2 3; do
  scontrol update NodeName="n[$(printf '%03d' $((s * 8 - 7)))-$(printf '%03d' $((s * 8)))]" \
    Extra="$extra_ok" AvailableFeatures="su$s,rail_healthy" ActiveFeatures="su$s,rail_healthy"
done
scontrol update NodeName=n003 Extra="$extra_degraded" AvailableFeatures=su1 ActiveFeatures=su1

# nodes_of JOBID: the job's nodes, one per line.
nodes_of() { scontrol show hostnames "$(job_field "$1" NodeList)"; }

c4=$(submit -p cpu -N4)
wait_state "$c4" RUNNING
c4n=$(nodes_of "$c4")
! grep -qv '^n0\(2[5-9]\|3[0-2]\)$' <<<"$c4n" || fail "CPU job $c4 ran on $(job_field "$c4" NodeList)"
scancel "$c4"
wait_state "$c4" CANCELLED
c8=$(submit -p cpu -N8)
wait_state "$c8" RUNNING
[ "$(job_field "$c8" NodeList)" = "n[025-032]" ] || fail "CPU job $c8 ran on $(job_field "$c8" NodeList)"
ok "CPU partition: a 4-node and an 8-node job run on CPU nodes without the healthy feature"
scancel "$c8"
wait_state "$c8" CANCELLED

g=$(submit -p gpu -N8)
gs=$(one_su "$g" su1)
ok "GPU partition: an 8-node job runs in one SU ($gs), not su1 with degraded n003"
scancel "$g"
wait_state "$g" CANCELLED

# partition mixed: su3 (GPU, n017-n024) and the CPU nodes n025-n032.
m=$(submit -p mixed -N8)
wait_state "$m" RUNNING
[ "$(job_field "$m" NodeList)" = "n[017-024]" ] || fail "mixed job $m ran on $(job_field "$m" NodeList)"
m2=$(submit -p mixed -N2)
stays_pending "$m2" "2 nodes while the only free nodes of mixed are CPU nodes"
one=$(sbatch --parsable -o /dev/null -p mixed -N1 --exclusive --wrap 'sleep 300')
wait_state "$one" RUNNING
[[ $(job_field "$one" NodeList) =~ ^n0(2[5-9]|3[0-2])$ ]] || fail "single-node job $one ran on $(job_field "$one" NodeList)"
ok "mixed partition: an 8-node job takes su3's GPU nodes, a 2-node job waits rather than use CPU nodes, a single-node job runs on CPU node $(job_field "$one" NodeList)"

scancel -u "$(id -un)"
# The cancelled jobs' kill requests go to several nodes at once: through the RoutePart split.
for j in "$m" "$m2" "$one"; do wait_state "$j" CANCELLED; done
sleep 2
scontrol ping | grep -q 'is UP' || fail "slurmctld is not answering after the jobs' kill messages: $(scontrol ping 2>&1)"
grep -q 'TopologyParam *= *RoutePart' < <(scontrol show config) ||
  fail "slurmctld does not run with TopologyParam=RoutePart"
ok "TopologyParam=RoutePart: slurmctld still up after its messages to several nodes went out by partition"
echo "$name: PASS ($checks checks, ${SECONDS} s)"
