#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the railguard SPANK plugin costs each job step in slurmstepd (it sets NCCL_IB_HCA in
# every task), with its NCCL_IB_HCA cache and with cache=none (the whole rail topology parsed
# at every step, as before the cache), for etc/superpod-h100.yaml (127 nodes) and a generated
# 4,096-node layout (128 SUs of 32, the layout of bench/sched_scale.sh). Each step is a fresh
# process (bench/bench_spank_step.c): plugin load, slurm_spank_init, slurm_spank_task_init.
#
# usage: bench/spank_step.sh [--runs N] [--slurm-version V] [--build DIR]
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${RAILGUARD_BINARY_DIR:-$src/build}
runs=50 version=""
die() { echo "spank_step.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=${2:?}; shift ;;
    --slurm-version) version=${2:?}; shift ;;
    --build) bin=${2:?}; shift ;;
    -h | --help) sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]{0,4}$ ]] || die "--runs '$runs': expected a whole number from 1 to 99999"
plugins=$bin/slurm-plugins${version:+-$version}
[ -x "$bin/bench_spank_step" ] || die "$bin/bench_spank_step not built (scripts/build.sh)"
[ -f "$plugins/spank_railguard.so" ] || die "$plugins/spank_railguard.so not built"

tmp=$(mktemp -d /tmp/rg-spank-bench.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT
# shellcheck source=sched_lib.sh
source "$src/bench/sched_lib.sh"
echo "spank_step.sh: writing the 4,096-node layout"
sched_layout "$tmp/layout-4096.yaml" 128 32 4 spankbench
"$bin/railctl" topology validate "$tmp/layout-4096.yaml" >/dev/null ||
  die "the generated layout is invalid"
echo "topology: $src/etc/superpod-h100.yaml" >"$tmp/rg-127.yaml"
echo "topology: $tmp/layout-4096.yaml" >"$tmp/rg-4096.yaml"

echo "== SPANK plugin per job step ($plugins/spank_railguard.so, $runs steps each, ms)"
echo "   load: dlopen with its libraries; init: slurm_spank_init (remote); task: task_init"
"$bin/bench_spank_step" --plugin "$plugins/spank_railguard.so" --config "$tmp/rg-127.yaml" \
  --node dgx100 --runs "$runs" --label "127 nodes (etc/superpod-h100.yaml)"
"$bin/bench_spank_step" --plugin "$plugins/spank_railguard.so" --config "$tmp/rg-4096.yaml" \
  --node n4000 --runs "$runs" --label "4,096 nodes (128 SUs of 32)"
