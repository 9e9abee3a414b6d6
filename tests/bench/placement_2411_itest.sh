#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=95
# bench/placement.sh on Slurm 24.11.5 (--slurm-version) with the stock topology/block policy:
#  - on the system Slurm (22.05), --policies block is refused with a message naming the
#    release it needs;
#  - on 24.11.5 (scripts/build_slurm.sh's prefix, plugins from build/slurm-plugins-24.11.5), a
#    short quick run of stock block and railguard prints both columns, the header names the
#    release, every policy ran every job, the block cluster really ran topology/block with
#    railctl's block export, and railguard placed every multi-node job that fits one SU in one
#    SU and none on a degraded node.
# Skipped (one line) when 24.11.5 or its plugins are not built. About 2 minutes.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=$(basename "${0%.sh}")
release=${rg_release:-24.11.5}
out=$(mktemp -d "${TMPDIR:-/tmp}/rg-$name.XXXXXX")
trap 'rm -rf -- "$out"' EXIT

fail() {
  echo "$name: FAIL: $*" >&2
  [ -s "$out/run.txt" ] && { echo "---- benchmark output" >&2; tail -n 60 "$out/run.txt" >&2; }
  exit 1
}

# The system Slurm has no topology/block with BlockSizes: refused before any cluster starts.
if bash "$src/bench/placement.sh" --quick --build "$bin" --policies tree,block \
  >"$out/refused.txt" 2>&1; then
  fail "--policies block on the system Slurm was accepted"
fi
grep -q 'policies block: .*needs Slurm >= 24.05.*--slurm-version' "$out/refused.txt" ||
  fail "--policies block on the system Slurm: no clear refusal: $(cat "$out/refused.txt")"
echo "$name: ok: --policies block is refused on the system Slurm"

prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$release
if [ ! -x "$prefix/sbin/slurmctld" ] || [ ! -f "$bin/slurm-plugins-$release/topology_rail.so" ]; then
  echo "$name: skipped the $release run: no Slurm $release in $prefix or no" \
    "$bin/slurm-plugins-$release/topology_rail.so (scripts/build_slurm.sh $release, then rebuild)"
  exit 0
fi

bash "$src/bench/placement.sh" --quick --build "$bin" --out "$out/bench" \
  --slurm-version "$release" --policies block,rail --jobs 24 --latency 0 --no-cost \
  >"$out/run.txt" 2>&1 || fail "bench/placement.sh --slurm-version $release exited with $?"
results=$out/bench/results.txt
[ -s "$results" ] || fail "no results.txt"
grep -q "^slurm: *$release " "$results" || fail "the header does not name Slurm $release"

# row TITLE COLUMN: the COLUMN-th value (1 = stock block, 2 = railguard (strict)) of a row.
row() {
  local line
  line=$(grep -m 1 -F -- "$1" "$results") || fail "the table has no row '$1'"
  line=${line#"$1"}
  sed -E 's/^ +//; s/ {2,}/\n/g' <<<"$line" | sed -n "${2}p"
}
grep -qE '^metric +stock block +railguard \(strict\)$' "$results" || fail "no table header"
jobs=$(grep -vc '^#' "$out/bench/stream.txt")
for c in 1 2; do
  [ "$(row 'jobs (with a completion record)' "$c")" = "$jobs" ] ||
    fail "policy $c ran $(row 'jobs (with a completion record)' "$c") of $jobs jobs"
done
echo "$name: ok: both policies ran all $jobs jobs on Slurm $release"

# The block cluster ran topology/block with the block export (one block per SU of 8).
grep -q '^BlockName=' "$out/bench/topology-block.conf" || fail "no block export"
grep -q '^BlockSizes=8,16,32$' "$out/bench/topology-block.conf" ||
  fail "unexpected BlockSizes: $(grep BlockSizes "$out/bench/topology-block.conf")"
grep -q "block: topology/block with 4 blocks, 8,16,32" "$out/run.txt" ||
  fail "the block cluster did not run topology/block with the 4 blocks of the export"
echo "$name: ok: the block policy ran topology/block with railctl's block export"

fit=$(row 'multi-node jobs fitting one SU' 2)
share=$(row '  of those, placed in one SU' 2)
[ "$fit" -gt 0 ] || fail "the stream has no multi-node job"
[ "$share" = "$fit/$fit (100.0%)" ] ||
  fail "railguard placed $share multi-node jobs that fit one SU in one SU; expected all $fit"
degraded=$(row '  multi-node, on a degraded node' 2)
[ "$degraded" = 0 ] || fail "railguard started $degraded multi-node jobs on degraded nodes"
echo "$name: ok: railguard on $release: $share in one SU, none on a degraded node"
echo "$name: PASS (${SECONDS} s)"
