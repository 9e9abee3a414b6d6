#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Stock Slurm 25.11.7 with the topology.yaml `railctl topology export --format slurm-yaml` writes
# (topology.yaml(5): several topologies, each partition picks one with Topology=): 32 slurmd on
# etc/dev-4su.yaml, the rail topology su1-su3 (n001-n024, GPU nodes), n025-n032 CPU nodes.
#   - slurmctld loads the file: partition gpu uses raildev-block, gputree raildev-tree, cpu
#     the cluster default (flat);
#   - an 8-node job of gpu and one of gputree each run in one whole SU;
#   - a 5-node job of gpu stays in one SU (block) beside them;
#   - an 8-node job of cpu runs on the CPU nodes, which neither rail topology lists.
# topology/rail cannot be one of these topologies (topology.yaml names only block, flat and
# tree); topology_rail_partitions_*_itest.sh covers what it does per partition instead.
# Skips with one line when Slurm 25.11.7 or its plugins are not built.
set -euo pipefail
rg_release=${rg_release:-25.11.7}
# shellcheck source=itest_2411_lib.sh
source "$(dirname "$0")/itest_2411_lib.sh"
write_gpu_3su "$tmp/gpu-3su.yaml"
"$bin/railctl" topology export "$tmp/gpu-3su.yaml" --format slurm-yaml -o "$tmp/topology.yaml" ||
  fail "railctl topology export --format slurm-yaml failed"
cat >>"$tmp/extra.conf" <<'CONF'
PartitionName=gpu Nodes=n[001-024] Topology=raildev-block State=UP
PartitionName=gputree Nodes=n[001-024] Topology=raildev-tree State=UP
PartitionName=cpu Nodes=n[025-032] State=UP
CONF
rg_cluster_start --no-trap --topo "$src/etc/dev-4su.yaml" --slurm-version "$release" \
  --railctl "$bin/railctl" --conf-extra "$tmp/extra.conf" \
  --slurm-topology-yaml "$tmp/topology.yaml" ||
  fail "the $release cluster with railctl's topology.yaml did not start"

for p in gpu:raildev-block gputree:raildev-tree; do
  grep -q "Topology=${p#*:}\b" < <(scontrol show partition "${p%%:*}") ||
    fail "partition ${p%%:*} does not use ${p#*:}: $(scontrol show partition "${p%%:*}")"
done
! grep -q 'Topology=raildev' < <(scontrol show partition cpu) ||
  fail "partition cpu names a rail topology: $(scontrol show partition cpu)"
ok "slurmctld $release loads railctl's topology.yaml; gpu uses raildev-block, gputree raildev-tree, cpu flat"

# in_one_su JOBID: waits for the job to run; prints its SU, fails unless it has exactly one.
# (No node is degraded here: stock placement knows no health.)
in_one_su() {
  local sus
  wait_state "$1" RUNNING
  sus=$(sus_of_job "$1")
  [[ $sus =~ ^su[1-3]$ ]] || fail "job $1 spans '$sus' ($(job_field "$1" NodeList)); expected one SU"
  echo "$sus"
}

a=$(submit -p gpu -N8)
sa=$(in_one_su "$a")
b=$(submit -p gputree -N8)
sb=$(in_one_su "$b")
[ "$sa" != "$sb" ] || fail "jobs $a and $b share $sa"
ok "an 8-node job of gpu (block) runs in $sa, one of gputree (tree) in $sb"
c=$(submit -p gpu -N5)
sc=$(in_one_su "$c")
[ "$sc" != "$sa" ] && [ "$sc" != "$sb" ] || fail "5-node job $c is in $sc"
ok "a 5-node job of gpu runs within one SU ($sc)"
d=$(submit -p cpu -N8)
wait_state "$d" RUNNING
[ "$(job_field "$d" NodeList)" = "n[025-032]" ] || fail "CPU job $d ran on $(job_field "$d" NodeList)"
ok "an 8-node job of cpu (flat) runs on the CPU nodes n[025-032]"

scancel -u "$(id -un)"
echo "$name: PASS ($checks checks, ${SECONDS} s)"
