#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# job_submit/rail and the railguard SPANK plugin built for Slurm 24.11 (slurm-plugins-24.11.5),
# loaded by a real 24.11.5 cluster beside topology/rail (tests/plugin/itest_2411_lib.sh):
#   - sbatch knows --rail-placement (the SPANK plugin in the 24.11 sbatch);
#   - a strict 4-node job gets the railguard line, Features=rail_healthy and one switch from
#     job_submit/rail, runs in one SU, and its environment has RAILGUARD_NCCL_IB_HCA (SPANK in
#     slurmstepd) and SLURM_TOPOLOGY_ADDR <spine>.<su>.<node> (topology/rail in slurmd).
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
[ "$(job_field "$job" Features)" = rail_healthy ] ||
  fail "job $job has Features=$(job_field "$job" Features), expected rail_healthy"
[[ $(job_field "$job" Switches) == 1@* ]] ||
  fail "job $job has Switches=$(job_field "$job" Switches), expected 1@..."
ok "job_submit/rail tells the user and sets Features=rail_healthy, Switches=$(job_field "$job" Switches)"

wait_state "$job" COMPLETED
su=$(sus_of_job "$job")
[[ $su =~ ^su[1-4]$ ]] || fail "job $job spans '$su'"
grep -q '^HCA==mlx5_[0-9]' "$tmp/job.out" || fail "no RAILGUARD_NCCL_IB_HCA in the job: $(cat "$tmp/job.out")"
grep -q "^ADDR=raildev-spine\.$su\.n[0-9]*$" "$tmp/job.out" ||
  fail "SLURM_TOPOLOGY_ADDR is not raildev-spine.$su.<node>: $(cat "$tmp/job.out")"
ok "the job ran in $su with RAILGUARD_NCCL_IB_HCA (SPANK) and SLURM_TOPOLOGY_ADDR raildev-spine.$su.<node>"
echo "$name: PASS ($checks checks, ${SECONDS} s)"
