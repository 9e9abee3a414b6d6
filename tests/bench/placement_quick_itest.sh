#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=300
# The placement benchmark's quick mode as an integration test (bench/placement.sh --quick:
# etc/dev-4su.yaml, 40 jobs of the real Microsoft ITP trace through stock topology/tree,
# topology/tree with --switches on every multi-node job, and railguard's plugins, with a fault
# half way through; then the sbatch latency and the in-process plugin cost):
#  - the side-by-side table, the fault rows, the verdict line and the cost tables are printed;
#  - every policy ran every job of the stream;
#  - the switches policy gave every multi-node job --switches=1@5:00;
#  - with railguard, every multi-node job that fits one SU ran inside one SU, and no
#    multi-node job started on a degraded node after the fault.
# About 4 minutes.
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

# row TITLE COLUMN: the COLUMN-th value (1 = stock tree, 2 = tree + --switches,
# 3 = railguard (strict)) of a table row.
row() {
  local line
  line=$(grep -m 1 -F -- "$1" "$results") || fail "the table has no row '$1'"
  line=${line#"$1"}
  # Values may contain spaces ("21/21 (100.0%)"): split on runs of two or more spaces.
  sed -E 's/^ +//; s/ {2,}/\n/g' <<<"$line" | sed -n "${2}p"
}

grep -qE '^metric +stock tree +tree \+ --switches +railguard \(strict\)$' "$results" ||
  fail "no table header"
jobs=$(grep -vc '^#' "$out/bench/stream.txt")
for c in 1 2 3; do
  [ "$(row 'jobs (with a completion record)' $c)" = "$jobs" ] ||
    fail "policy $c ran $(row 'jobs (with a completion record)' $c) of $jobs jobs"
  [[ $(row 'p95 wait, all jobs (s)' $c) =~ ^[0-9]+$ ]] || fail "policy $c has no p95 wait"
  [[ $(row 'jobs started after the fault' $c) =~ ^[0-9]+$ ]] || fail "policy $c has no fault row"
done
echo "$name: ok: the table is printed; every policy ran all $jobs jobs"

# The switches policy's option for each multi-node job (the script submits each job with the
# option of its line): one SU of 8 holds every multi-node job of the quick stream.
multi=$(awk '!/^#/ && $4 > 1' "$out/bench/stream.txt" | wc -l)
[ "$(wc -l <"$out/bench/switches.txt")" = "$multi" ] ||
  fail "switches.txt has $(wc -l <"$out/bench/switches.txt") lines for $multi multi-node jobs"
grep -qv -- '--switches=1@5:00$' "$out/bench/switches.txt" &&
  fail "quick: expected --switches=1@5:00 for every multi-node job: $(head -3 "$out/bench/switches.txt")"
[ -s "$out/bench/fault-switches.txt" ] || fail "no fault was injected into the switches run"

fit=$(row 'multi-node jobs fitting one SU' 3)
share=$(row '  of those, placed in one SU' 3)
[ "$fit" -gt 0 ] || fail "the quick stream has no multi-node job"
[ "$share" = "$fit/$fit (100.0%)" ] ||
  fail "railguard placed $share multi-node jobs that fit one SU in one SU; expected all $fit"
echo "$name: ok: railguard placed every multi-node job that fits one SU in one SU ($share)"
degraded=$(row '  multi-node, on a degraded node' 3)
[ "$degraded" = 0 ] || fail "railguard started $degraded multi-node jobs on degraded nodes"
echo "$name: ok: railguard started no multi-node job on a degraded node after the fault"

grep -q '^verdict: \(PASS\|FAIL\): railguard (strict) placed .* after the fault' "$results" ||
  fail "no verdict line"
grep -q '^== sbatch round trip' "$results" || fail "no sbatch latency table"
grep -q '^generated 128 SUs x 32 nodes  *4096  *128 ' "$results" ||
  fail "no topology/rail setup time for the 4096-node layout"
grep -q '^job_submit/rail per-job decision' "$results" || fail "no job_submit decision timing"
echo "$name: ok: verdict, sbatch latency and plugin cost are printed"
echo "$name: PASS (${SECONDS} s)"
