#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The placement benchmark's quick mode as an integration test (bench/placement.sh --quick:
# etc/dev-4su.yaml, 40 jobs of the real Microsoft ITP trace through topology/tree and through
# railguard's plugins, then the sbatch latency and the in-process plugin cost):
#  - the side-by-side table, the verdict line and the cost tables are printed;
#  - both policies ran every job of the stream;
#  - with railguard, every multi-node job that fits one SU ran inside one SU.
# About 2.5 minutes.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=placement_quick_itest
out=$(mktemp -d "${TMPDIR:-/tmp}/rg-placement-quick.XXXXXX")
trap 'rm -rf -- "$out"' EXIT

fail() {
  echo "$name: FAIL: $*" >&2
  [ -s "$out/run.txt" ] && { echo "---- benchmark output" >&2; tail -n 60 "$out/run.txt" >&2; }
  exit 1
}

bash "$src/bench/placement.sh" --quick --build "$bin" --out "$out/bench" >"$out/run.txt" 2>&1 ||
  fail "bench/placement.sh --quick exited with $?"
results=$out/bench/results.txt
[ -s "$results" ] || fail "no results.txt"

# row TITLE COLUMN: the COLUMN-th value (1 = topology/tree, 2 = railguard) of a table row.
row() {
  local line
  line=$(grep -m 1 -F -- "$1" "$results") || fail "the table has no row '$1'"
  line=${line#"$1"}
  # Values may contain spaces ("21/21 (100.0%)"): split on runs of two or more spaces.
  sed -E 's/^ +//; s/ {2,}/\n/g' <<<"$line" | sed -n "${2}p"
}

grep -qE '^metric +topology/tree +railguard$' "$results" || fail "no table header"
jobs=$(grep -vc '^#' "$out/bench/stream.txt")
[ "$(row 'jobs (with a completion record)' 1)" = "$jobs" ] ||
  fail "topology/tree ran $(row 'jobs (with a completion record)' 1) of $jobs jobs"
[ "$(row 'jobs (with a completion record)' 2)" = "$jobs" ] ||
  fail "railguard ran $(row 'jobs (with a completion record)' 2) of $jobs jobs"
echo "$name: ok: the table is printed; both policies ran all $jobs jobs"

fit=$(row 'multi-node jobs fitting one SU' 2)
share=$(row '  of those, placed in one SU' 2)
[ "$fit" -gt 0 ] || fail "the quick stream has no multi-node job"
[ "$share" = "$fit/$fit (100.0%)" ] ||
  fail "railguard placed $share multi-node jobs that fit one SU in one SU; expected all $fit"
echo "$name: ok: railguard placed every multi-node job that fits one SU in one SU ($share)"

grep -q '^verdict: \(PASS\|FAIL\): railguard placed' "$results" || fail "no verdict line"
grep -q '^== sbatch round trip' "$results" || fail "no sbatch latency table"
grep -q '^generated 128 SUs x 32 nodes  *4096  *128 ' "$results" ||
  fail "no topology/rail setup time for the 4096-node layout"
grep -q '^job_submit/rail per-job decision' "$results" || fail "no job_submit decision timing"
echo "$name: ok: verdict, sbatch latency and plugin cost are printed"
echo "$name: PASS (${SECONDS} s)"
