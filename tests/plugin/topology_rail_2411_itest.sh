#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# topology/rail on a real Slurm 24.11.5 ($rg_release) cluster (tests/harness/cluster.sh
# --slurm-version, 32 slurmd on etc/dev-4su.yaml: 4 SUs of 8 nodes, one one-hop domain each), choosing nodes in
# topology_p_eval_nodes with no job_submit plugin and no user flags besides -N/--exclusive:
#   - the plugin loads and `scontrol show topology` shows one leaf per SU;
#   - a multi-node job lands in one SU, never on the degraded node (no rail_healthy);
#   - a job that fits an SU waits while only the degraded node would complete one;
#   - the degraded node serves a single-node job;
#   - best fit: a job goes to the fullest SU that holds it;
#   - a job that fits one SU waits for one rather than spreading over two, then runs in one;
#   - a job that can never fit one SU (--nodelist over two, its partition) runs on two;
#   - job steps (slurmstepd) do not read the rail topology.
# Skips with one line when Slurm 24.11.5 ($rg_release) or its plugins are not built.
set -euo pipefail
# The release under test: 24.11.5 here; the *_2511_itest.sh run this file with 25.11.7.
rg_release=${rg_release:-24.11.5}
# shellcheck source=itest_2411_lib.sh
source "$(dirname "$0")/itest_2411_lib.sh"
echo "PartitionName=half Nodes=n[017-020,025-028] State=UP" >>"$tmp/extra.conf"
start_release

grep -q 'topology/rail: loaded' "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" ||
  fail "slurmctld did not log topology/rail loading the rail topology"
[ "$(scontrol show config | awk '$1 == "TopologyPlugin" { print $3 }')" = topology/rail ] ||
  fail "TopologyPlugin is not topology/rail"
topo=$(scontrol show topology 2>&1)
for su in su1 su2 su3 su4; do
  grep -q "^SwitchName=$su Level=0 .*Nodes=n" <<<"$topo" || fail "no leaf $su in: $topo"
done
ok "topology/rail loads into Slurm $release; scontrol show topology lists a leaf per SU"

# Every node healthy (rail_healthy) but n003, as railcheck publishes it.
set_healthy n003

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
sleep 1
w=$(submit -N2 -w n001,n009)
wait_state "$w" RUNNING
[ "$(sus_of_job "$w")" = "su1 su2" ] ||
  fail "job $w with --nodelist n001,n009 is in '$(sus_of_job "$w")'"
h=$(submit -N6 -p half)
wait_state "$h" RUNNING
[ "$(sus_of_job "$h")" = "su3 su4" ] || fail "job $h of partition half is in '$(sus_of_job "$h")'"
ok "jobs that can never fit one SU run on the fewest: a --nodelist over two SUs, 6 nodes of a partition with 4 per SU"

scancel -u "$(id -un)"
# slurmstepd loads the topology plugin at every job step from 24.11 on (22.05 does not),
# for its message fan-out only: the steps above must not have read railguard.yaml and the
# topology there (slurmd logs its steps' lines with the step's [JOBID.STEP]).
step_loads=$(grep -hE '\[[0-9]+\.(batch|extern|[0-9]+)\].*topology/rail: loaded' \
  "$RAILGUARD_CLUSTER_DIR"/nodes/*/slurmd.log || true)
[ -z "$step_loads" ] ||
  fail "job steps read the rail topology in slurmstepd: $(head -n 2 <<<"$step_loads")"
ok "job steps leave the rail topology unread (slurmstepd)"
echo "$name: PASS ($checks checks, ${SECONDS} s)"
