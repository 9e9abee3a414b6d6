#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test of the railguard SPANK plugin (with topology/rail and job_submit/rail) in a
# real cluster on etc/dev-4su.yaml, with no placement section (default_mode strict):
#  - every task of srun and of a batch script gets NCCL_IB_HCA with its node's rail NICs in
#    rail order; a job's own NCCL_IB_HCA is kept;
#  - a job without --rail-placement gets strict placement (the full wait bound);
#  - --rail-placement given to srun and salloc reaches job_submit/rail (prefer: a quarter of
#    the strict wait), and srun refuses a bad value with what is allowed.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

rgp_write_configs
rgp_start || rgp_fail "the cluster did not start (see the messages above)"
rgp_set_healthy

# etc/dev-4su.yaml: node type dgx-h100, NICs in rail order.
hca="=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"

out=$(srun -N2 --exclusive -t 5 bash -c 'echo "$SLURMD_NODENAME $NCCL_IB_HCA"' 2>"$rgp_tmp/srun.err") ||
  rgp_fail "srun -N2 failed: $(cat "$rgp_tmp/srun.err")"
rgp_expect_eq "NCCL_IB_HCA of the tasks of srun -N2" "$(sort <<<"$out" | awk '{print $2}' | uniq)" "$hca"
rgp_expect_eq "tasks of srun -N2" "$(wc -l <<<"$out")" 2
rgp_ok "srun tasks get NCCL_IB_HCA=$hca"

out=$(NCCL_IB_HCA=mlx5_0 srun -N1 -t 5 printenv NCCL_IB_HCA 2>"$rgp_tmp/srun.err") ||
  rgp_fail "srun -N1 failed: $(cat "$rgp_tmp/srun.err")"
rgp_expect_eq "NCCL_IB_HCA the job set itself" "$out" mlx5_0
rgp_ok "a job's own NCCL_IB_HCA is kept"

job=$(rgp_submit -N2 --exclusive -t 5 \
  --wrap 'echo "batch $NCCL_IB_HCA"; srun bash -c "echo step \$SLURMD_NODENAME \$NCCL_IB_HCA"')
rgp_wait_state "$job" COMPLETED 60
out=$(cat "$rgp_tmp/job-$job.out")
rgp_expect_eq "NCCL_IB_HCA of the batch script" "$(sed -n 's/^batch //p' <<<"$out")" "$hca"
rgp_expect_eq "NCCL_IB_HCA of the steps in the batch script" \
  "$(sed -n 's/^step [^ ]* //p' <<<"$out" | sort -u)" "$hca"
rgp_ok "a batch script and its steps get NCCL_IB_HCA"

# The steps above left one cache file (plugstack.conf's cache=); a step after the topology
# changed (an admin renamed a NIC) gets the new name, not the cached one.
cached=$(find "$rgp_tmp/nccl-cache" -name 'nccl-*' -type f 2>/dev/null | wc -l)
rgp_expect_eq "NCCL_IB_HCA cache files after the first steps" "$cached" 1
grep -q "^node	n017	$hca\$" "$rgp_tmp"/nccl-cache/nccl-* ||
  rgp_fail "the cache does not give n017 $hca: $(head -c 600 "$rgp_tmp"/nccl-cache/nccl-*)"
sed 's/\bmlx5_0\b/mlx5_20/' "$rgp_src/etc/dev-4su.yaml" >"$rgp_tmp/dev-4su-renamed.yaml"
echo "topology: $rgp_tmp/dev-4su-renamed.yaml" >"$rgp_tmp/spank-railguard.yaml"
out=$(srun -N1 -t 5 printenv NCCL_IB_HCA 2>"$rgp_tmp/srun.err") ||
  rgp_fail "srun -N1 after the topology change failed: $(cat "$rgp_tmp/srun.err")"
rgp_expect_eq "NCCL_IB_HCA after the NIC was renamed" "$out" "=mlx5_20${hca#=mlx5_0}"
# The same file rewritten in place (same inode, same size, a later mtime): seen too.
sed 's/\bmlx5_20\b/mlx5_21/' "$rgp_tmp/dev-4su-renamed.yaml" >"$rgp_tmp/edited.yaml"
cat "$rgp_tmp/edited.yaml" >"$rgp_tmp/dev-4su-renamed.yaml"
out=$(srun -N1 -t 5 printenv NCCL_IB_HCA 2>"$rgp_tmp/srun.err") ||
  rgp_fail "srun -N1 after the topology edit failed: $(cat "$rgp_tmp/srun.err")"
rgp_expect_eq "NCCL_IB_HCA after the topology was edited in place" "$out" "=mlx5_21${hca#=mlx5_0}"
rgp_ok "steps read the NCCL_IB_HCA cache, and a changed topology replaces it"
rgp_expect_eq "Switches of the 2-node batch job without --rail-placement" \
  "$(rgp_job "$job" Switches)" "1@365-00:00:00"
rgp_ok "a job without --rail-placement gets the default, strict"

out=$(srun -N2 --exclusive --rail-placement=prefer -t 5 bash -c 'echo $SLURM_JOB_ID' 2>"$rgp_tmp/srun.err") ||
  rgp_fail "srun --rail-placement=prefer failed: $(cat "$rgp_tmp/srun.err")"
job=$(head -n 1 <<<"$out")
rgp_expect_eq "Switches of srun -N2 --rail-placement=prefer" "$(rgp_job "$job" Switches)" "1@00:01:10"
grep -qxF "srun: railguard: prefer placement: 2 nodes in 1 scalable unit if Slurm finds it within 70 s of its first evaluation of the job (a requeued job or array task keeps that clock), else spread; healthy nodes only (feature rail_healthy)" \
  "$rgp_tmp/srun.err" || rgp_fail "srun did not show the railguard line: $(cat "$rgp_tmp/srun.err")"
rgp_ok "srun --rail-placement=prefer reaches job_submit/rail"

out=$(salloc -N2 --exclusive --rail-placement=strict -t 5 bash -c 'echo $SLURM_JOB_ID' 2>"$rgp_tmp/salloc.err") ||
  rgp_fail "salloc --rail-placement=strict failed: $(cat "$rgp_tmp/salloc.err")"
rgp_expect_eq "Switches of salloc -N2 --rail-placement=strict" "$(rgp_job "$out" Switches)" "1@365-00:00:00"
rgp_ok "salloc --rail-placement=strict reaches job_submit/rail"

if out=$(srun -N1 --rail-placement=nope true 2>&1); then
  rgp_fail "srun --rail-placement=nope was accepted: $out"
fi
grep -qxF "srun: error: railguard: invalid --rail-placement value 'nope'; expected strict, prefer or off" <<<"$out" ||
  rgp_fail "srun --rail-placement=nope printed: $out"
rgp_ok "srun refuses --rail-placement=nope with what is allowed"
rgp_done
