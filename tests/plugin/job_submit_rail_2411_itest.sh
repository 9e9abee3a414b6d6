#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# job_submit/rail and the railguard SPANK plugin built for Slurm 24.11 (slurm-plugins-24.11.5),
# loaded by a real 24.11.5 cluster beside topology/rail (tests/plugin/itest_2411_lib.sh):
#   - sbatch knows --rail-placement (the SPANK plugin in the 24.11 sbatch);
#   - a strict 4-node job gets the railguard line, and neither a constraint nor a switch bound
#     from job_submit/rail (topology/rail keeps it on healthy nodes in one SU by its own
#     evaluation; Slurm's handling of both cost memory per waiting job and time per backfill
#     test, bench/README); it runs in one SU, and its environment has RAILGUARD_NCCL_IB_HCA
#     (SPANK in slurmstepd) and SLURM_TOPOLOGY_ADDR <spine>.<su>.<node> (topology/rail in
#     slurmd);
#   - with n001 (su1) and n017 (su3) degraded, 8-node jobs (a whole SU) run in su2 and su4
#     only, without a constraint; a 12-node job (two SUs) gets Switches=2 and the same;
#   - a --contiguous job, which topology/rail leaves to Slurm's common algorithms, gets
#     Features=rail_healthy and no node without it;
#   - n025 published degraded in Extra only: the keeper takes rail_healthy from it, and its
#     change reaches the node maps topology/rail reads (an 8-node job runs in su2, a second
#     waits);
#   - 25.05 and later: after a restart with a topology.yaml beside slurm.conf (Slurm then
#     ignores TopologyPlugin, topology_g_init), job_submit/rail says so in the log and a
#     multi-node job gets Features=rail_healthy and Switches=1@ again.
# Skips with one line when Slurm 24.11.5 ($rg_release) or its plugins are not built.
set -euo pipefail
# The release under test: 24.11.5 here; the *_2511_itest.sh run this file with 25.11.7.
rg_release=${rg_release:-24.11.5}
# shellcheck source=itest_2411_lib.sh
source "$(dirname "$0")/itest_2411_lib.sh"
[ -f "$plugins/job_submit_rail.so" ] && [ -f "$plugins/spank_railguard.so" ] ||
  fail "$plugins lacks job_submit_rail.so or spank_railguard.so"
echo "topology: $src/etc/dev-4su.yaml" >"$tmp/spank-railguard.yaml"
echo "optional $plugins/spank_railguard.so config=$tmp/spank-railguard.yaml" >"$tmp/plugstack.conf"
cat >"$tmp/extra.conf" <<CONF
JobSubmitPlugins=rail
SchedulerParameters=bf_interval=2,max_switch_wait=31536000
PlugStackConfig=$tmp/plugstack.conf
CONF
start_release
grep -q 'job_submit/rail: loaded' "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" ||
  fail "slurmctld did not log job_submit/rail loading railguard.yaml"
grep -q -- '--rail-placement=' < <(sbatch --help 2>&1) || fail "sbatch --help has no --rail-placement"
ok "job_submit/rail loads into slurmctld $release; its sbatch has --rail-placement"

set_healthy
job=$(sbatch --parsable -N4 --rail-placement=strict -o "$tmp/job.out" \
  --wrap 'echo "HCA=$RAILGUARD_NCCL_IB_HCA"; echo "ADDR=$SLURM_TOPOLOGY_ADDR"' 2>"$tmp/submit.err") ||
  fail "sbatch refused the strict job: $(cat "$tmp/submit.err")"
grep -q 'railguard: strict placement: 4 nodes in 1 scalable unit' "$tmp/submit.err" ||
  fail "no railguard line from job_submit/rail: $(cat "$tmp/submit.err")"
grep -q 'topology/rail keeps a job that fits one in one, however long it queues' "$tmp/submit.err" ||
  fail "the railguard line does not say topology/rail places the job: $(cat "$tmp/submit.err")"
[ "$(job_field "$job" Features)" = "(null)" ] ||
  fail "job $job has Features=$(job_field "$job" Features), expected none (topology/rail places it)"
[ -z "$(job_field "$job" Switches)" ] ||
  fail "job $job has Switches=$(job_field "$job" Switches), expected none (topology/rail places it)"
ok "job_submit/rail tells the user; the job has no constraint and no switch bound: topology/rail places it"


wait_state "$job" COMPLETED
su=$(sus_of_job "$job")
[[ $su =~ ^su[1-4]$ ]] || fail "job $job spans '$su'"
grep -q '^HCA==mlx5_[0-9]' "$tmp/job.out" || fail "no RAILGUARD_NCCL_IB_HCA in the job: $(cat "$tmp/job.out")"
grep -q "^ADDR=raildev-spine\.$su\.n[0-9]*$" "$tmp/job.out" ||
  fail "SLURM_TOPOLOGY_ADDR is not raildev-spine.$su.<node>: $(cat "$tmp/job.out")"
ok "the job ran in $su with RAILGUARD_NCCL_IB_HCA (SPANK) and SLURM_TOPOLOGY_ADDR raildev-spine.$su.<node>"

# Degraded nodes stay out of multi-node jobs that ask for nothing: topology/rail drops them.
set_healthy n001 n017
jobs=()
for size in 8 8 12; do
  job=$(sbatch --parsable -N"$size" --exclusive -t 5 -o /dev/null --wrap 'sleep 2' 2>"$tmp/submit.err") ||
    fail "sbatch -N$size refused: $(cat "$tmp/submit.err")"
  jobs+=("$job")
done
[ "$(job_field "${jobs[0]}" Features)" = "(null)" ] && [ -z "$(job_field "${jobs[0]}" Switches)" ] ||
  fail "8-node job ${jobs[0]}: Features=$(job_field "${jobs[0]}" Features) Switches=$(job_field "${jobs[0]}" Switches), expected neither"
[[ $(job_field "${jobs[2]}" Switches) == 2@* ]] ||
  fail "12-node job ${jobs[2]} has Switches=$(job_field "${jobs[2]}" Switches), expected 2@..."
for job in "${jobs[@]}"; do wait_state "$job" COMPLETED; done
for job in "${jobs[@]}"; do
  nodes=$(scontrol show hostnames "$(job_field "$job" NodeList)" | paste -sd' ')
  [[ " $nodes " != *" n001 "* && " $nodes " != *" n017 "* ]] ||
    fail "job $job ran on a degraded node: $nodes"
done
used="$(sus_of_job "${jobs[0]}") $(sus_of_job "${jobs[1]}")"
[[ $used == "su2 su4" || $used == "su4 su2" ]] ||
  fail "the 8-node jobs ran in '$used', expected su2 and su4 (su1 and su3 have a degraded node)"
ok "with n001 and n017 degraded, 8-node jobs ran in $used and the 12-node job ($(job_field "${jobs[2]}" Switches)) on $(sus_of_job "${jobs[2]}"), none on a degraded node"

# --contiguous is left to Slurm's common algorithms: the job asks Slurm for the feature.
job=$(sbatch --parsable -N4 --contiguous --exclusive -t 5 -o /dev/null --wrap 'sleep 1' 2>"$tmp/submit.err") ||
  fail "sbatch -N4 --contiguous refused: $(cat "$tmp/submit.err")"
[ "$(job_field "$job" Features)" = rail_healthy ] ||
  fail "--contiguous job $job has Features=$(job_field "$job" Features), expected rail_healthy"
wait_state "$job" COMPLETED
nodes=$(scontrol show hostnames "$(job_field "$job" NodeList)" | paste -sd' ')
[[ " $nodes " != *" n001 "* && " $nodes " != *" n017 "* ]] || fail "--contiguous job $job ran on a degraded node: $nodes"
ok "a --contiguous job gets Features=rail_healthy and ran on $nodes"

# The keeper's own changes reach the node maps topology/rail reads (Slurm's active_feature_list,
# which the keeper changes once per group of nodes, js_features.c): n025's Extra says degraded
# while its lists still say healthy (a hand edit, or a railcheck whose feature update failed).
# The keeper takes rail_healthy from its active list; then, with su1 and su3 degraded too, only
# su2 is whole: of two 8-node jobs one runs there and the other waits (strict). A map left with
# n025 in it would run the second in su4.
mark=$(wc -l <"$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log")
scontrol update NodeName=n025 Extra="$extra_degraded" || fail "cannot publish n025 degraded in Extra"
deadline=$((SECONDS + 20))
until tail -n +"$((mark + 1))" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" |
  grep -q 'job_submit/rail: took rail_healthy on 1 nodes (n025)'; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the keeper did not take rail_healthy from n025 within 20 s"
  sleep 0.5
done
[ "$(sinfo -h -N -n n025 -o %b)" = su4 ] || fail "n025's active features are '$(sinfo -h -N -n n025 -o %b)', expected su4"
two_8_node_jobs
wait_state "${jobs[0]}" RUNNING
[ "$(sus_of_job "${jobs[0]}")" = su2 ] || fail "8-node job ${jobs[0]} runs in '$(sus_of_job "${jobs[0]}")', expected su2"
sleep 5
[ "$(job_field "${jobs[1]}" JobState)" = PENDING ] ||
  fail "8-node job ${jobs[1]} is $(job_field "${jobs[1]}" JobState) on $(job_field "${jobs[1]}" NodeList) with su2 taken: the keeper's change to n025 did not reach the node maps"
scancel "${jobs[@]}"
set_healthy n001 n017 # n025 healthy again
ok "the keeper took rail_healthy from n025 (Extra degraded): 8-node job ${jobs[0]} ran in su2, ${jobs[1]} waits for a whole healthy SU"

# A topology.yaml (25.05 on) takes over from TopologyPlugin: then only the job's request keeps
# it healthy and together.
if [ "${release%%.*}" -ge 25 ]; then
  cat >"$RAILGUARD_CLUSTER_DIR/topology.yaml" <<'YAML'
# topology.yaml(5) of Slurm 25.05+, the smallest: one flat topology, the cluster default
- topology: flat
  cluster_default: true
  flat: true
YAML
  lines=$(wc -l <"$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log")
  rg_cluster_kill slurmctld TERM || fail "cannot stop slurmctld"
  rg_cluster_respawn slurmctld || fail "slurmctld did not start again with topology.yaml"
  tail -n +"$((lines + 1))" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" |
    grep -q "topology.yaml exists, so Slurm places jobs by it and not by topology/rail" ||
    fail "job_submit/rail did not log that topology.yaml takes over from topology/rail"
  # The keeper gives rail_healthy back from each node's Extra after the restart.
  deadline=$((SECONDS + 20))
  until [ "$(sinfo -h -N -o '%N %b' | grep -c rail_healthy)" -ge 30 ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "the keeper did not give rail_healthy back within 20 s"
    sleep 0.5
  done
  job=$(sbatch --parsable -N4 -t 5 -o /dev/null --wrap 'sleep 1' 2>"$tmp/submit.err") ||
    fail "sbatch -N4 refused with topology.yaml: $(cat "$tmp/submit.err")"
  [ "$(job_field "$job" Features)" = rail_healthy ] && [[ $(job_field "$job" Switches) == 1@* ]] ||
    fail "job $job with topology.yaml: Features=$(job_field "$job" Features) Switches=$(job_field "$job" Switches), expected rail_healthy and 1@..."
  scancel "$job"
  ok "with a topology.yaml Slurm ignores topology/rail: job_submit/rail logs it, and job $job gets Features=rail_healthy, Switches=$(job_field "$job" Switches)"
fi
echo "$name: PASS ($checks checks, ${SECONDS} s)"
