#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every libFuzzer target of fuzz/ (built with ASan + UBSan in the hardening tree,
# scripts/hardening_build.sh) for a bounded time, starting from its seed corpus
# (tests/fuzz/<target>/) and its dictionary (fuzz/<target>.dict). Any crash, sanitizer
# report, failed property, leak, timeout (-timeout) or memory blow-up (-rss_limit_mb) fails
# the run. Prints one row per target: executions, coverage (edges) at the start (the seeds and
# the kept corpus) and at the end, and the result; for a failure, the report and the command
# that reproduces it.
#
# Usage: scripts/fuzz.sh [TARGET...]      (default: every target in fuzz/CMakeLists.txt)
# Env:   RAILGUARD_FUZZ_SECONDS         fuzzing time per target (default: 60)
#        RAILGUARD_HARDENING_BUILD_DIR  build folder (default: ./build-hardening); it keeps
#                                       the corpus each run grows (fuzz/corpus/<target>/), the
#                                       logs and this run's failing inputs
#                                       (fuzz/artifacts/<target>/)
#        RAILGUARD_FUZZ_JOBS            targets run at a time (default: nproc)
#        RAILGUARD_JOBS                 compile jobs (default: nproc)
# Last line: "fuzz: N passed, N failed" (targets). Exit 0 only when every target passed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${RAILGUARD_FUZZ_SECONDS:-60}
pick() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { echo "$c"; return; }; done; }
build=${RAILGUARD_HARDENING_BUILD_DIR:-$here/build-hardening}
bash "$here/scripts/hardening_build.sh" fuzz_targets

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < "$build/fuzz/targets.txt"
fi

export UBSAN_OPTIONS=print_stacktrace=1
symbolizer=$(pick llvm-symbolizer-14 llvm-symbolizer)  # function names and lines in reports
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$(command -v "$symbolizer")
for t in "${targets[@]}"; do
  [ -x "$build/fuzz/fuzz_$t" ] || { echo "fuzz: no target '$t' (see $build/fuzz/targets.txt)" >&2; exit 2; }
done
results=$build/fuzz/results
rm -rf "$results"
mkdir -p "$results"

# fuzz_one TARGET: runs TARGET for $seconds and writes its row
# (target|executions|cov start|cov end|result) to $results/TARGET.row and, when it failed, the
# report and how to reproduce it to $results/TARGET.report.
fuzz_one() {
  local t=$1 bin=$build/fuzz/fuzz_$1 rc result execs cov_start cov_end input
  local corpus=$build/fuzz/corpus/$t artifacts=$build/fuzz/artifacts/$t
  local log=$build/fuzz/logs/$t.log
  rm -rf "$artifacts"  # only this run's failing inputs
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
              -artifact_prefix="$artifacts/")
  [ -f "$here/fuzz/$t.dict" ] && args+=(-dict="$here/fuzz/$t.dict")
  # New inputs go to the first folder; the committed seeds stay as they are.
  rc=0
  timeout $((seconds + 300)) "$bin" "${args[@]}" "$corpus" "$here/tests/fuzz/$t" >"$log" 2>&1 ||
    rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov_start=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$log" | head -n 1)
  cov_end=$(sed -n 's/^#[0-9]*.* cov: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ]; then
    result=ok
  elif [ "$rc" -eq 124 ]; then
    result="hung (killed after $((seconds + 300)) s)"
  elif grep -q 'ERROR: libFuzzer: timeout' "$log"; then
    result="timeout (an input took over 10 s)"
  elif grep -q 'ERROR: libFuzzer: out-of-memory' "$log"; then
    result="out of memory (over 2048 MB)"
  elif grep -q 'ERROR: LeakSanitizer' "$log"; then
    result=leak
  elif grep -q 'fuzz check failed' "$log"; then
    result="property failed"
  elif grep -q 'runtime error:' "$log"; then
    result="undefined behaviour"
  elif grep -q 'ERROR: AddressSanitizer' "$log"; then
    result="memory error"
  else
    result="crash (exit code $rc)"
  fi
  if [ "$result" != ok ]; then
    {
      echo "fuzz: $t FAILED: $result; the report ($log):"
      grep -m 1 -A 40 -E 'fuzz check failed|runtime error:|==[0-9]+==ERROR|ERROR: libFuzzer' "$log" ||
        tail -n 40 "$log"
      for input in "$artifacts"/*; do
        [ -f "$input" ] || continue
        echo "fuzz: failing input saved; reproduce with: $bin $input"
        echo "fuzz: its first bytes, as hex:"
        head -c 256 "$input" | od -An -tx1 | head -n 8
      done
    } >"$results/$t.report"
  fi
  echo "$t|${execs:-?}|${cov_start:-?}|${cov_end:-?}|$result" >"$results/$t.row"
  echo "fuzz: $t: $result"
}

# One target per core at a time (RAILGUARD_FUZZ_JOBS): each libFuzzer run is one process.
parallel=${RAILGUARD_FUZZ_JOBS:-$(nproc)}
echo "fuzz: ${#targets[@]} targets, $seconds s each, $parallel at a time"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  echo "fuzz: $t for $seconds s"
  fuzz_one "$t" &
  running=$((running + 1))
done
wait || true

rows=()
failures=()
for t in "${targets[@]}"; do
  if [ -f "$results/$t.row" ]; then
    rows+=("$(cat "$results/$t.row")")
  else
    rows+=("$t|?|?|?|no result (the run of this target did not finish)")
  fi
  case ${rows[-1]} in *"|ok") ;; *) failures+=("$t") ;; esac
  [ -f "$results/$t.report" ] && cat "$results/$t.report"
done

echo
printf '%-14s %12s %10s %10s %8s  %s\n' target executions "cov start" "cov end" new result
for row in "${rows[@]}"; do
  IFS='|' read -r t execs start end result <<<"$row"
  new=?
  [[ "$start" =~ ^[0-9]+$ && "$end" =~ ^[0-9]+$ ]] && new=+$((end - start))
  printf '%-14s %12s %10s %10s %8s  %s\n' "$t" "$execs" "$start" "$end" "$new" "$result"
done
echo "fuzz: $((${#targets[@]} - ${#failures[@]})) passed, ${#failures[@]} failed"
[ "${#failures[@]}" -eq 0 ]
