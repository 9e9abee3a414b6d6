#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs railguard's unit-test runner (railguard_tests) built with AddressSanitizer and UBSan in
# the hardening tree (scripts/hardening_build.sh: clang, one compile of the libraries shared
# with the fuzz targets). Any ASan, LeakSanitizer or UBSan report fails the run: UBSan is
# built with -fno-sanitize-recover, and both stop at the first error. The plugins are built
# with ASan + UBSan and run inside real Slurm daemons by tests/plugin/asan_itest.sh (a CTest
# integration test), so they are not built again here.
#
# Usage: scripts/sanitize.sh [GTEST_FLAG...]     e.g. --gtest_filter='Hostlist*'
# Env:   RAILGUARD_HARDENING_BUILD_DIR  build folder (default: ./build-hardening)
#        RAILGUARD_JOBS                 compile jobs (default: nproc)
# Last line: "sanitize: N passed, N failed" (unit tests). Exit 0 only when all passed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${RAILGUARD_HARDENING_BUILD_DIR:-$here/build-hardening}
bash "$here/scripts/hardening_build.sh" railguard_tests

asan=halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export ASAN_OPTIONS=$asan:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# GoogleTest's shards, one runner each, side by side (the unit tests already run side by side
# under CTest in the main build): measured on the 2-core machine, 856 tests took 102 s in one
# runner, which kept one core busy.
shards=${RAILGUARD_SANITIZE_SHARDS:-$(nproc)}
logdir=$(mktemp -d /tmp/railguard-sanitize.XXXXXX)
trap 'rm -rf "$logdir"' EXIT

echo "sanitize: running railguard_tests under ASan + UBSan ($shards shards side by side)"
pids=()
for ((i = 0; i < shards; i++)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
    "$build/railguard_tests" --gtest_brief=1 "$@" >"$logdir/shard$i.log" 2>&1 &
  pids+=($!)
done
passed=0 failed=0 rc=0
for ((i = 0; i < shards; i++)); do
  shard_rc=0
  wait "${pids[$i]}" || shard_rc=$?
  log=$logdir/shard$i.log
  cat "$log"
  # "[  PASSED  ] N tests." once; "[  FAILED  ] Suite.Test (N ms)" for each failed test.
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -n 1)
  f=$(grep -c '^\[  FAILED  \] [^ ]* ([0-9]* ms)$' "$log" || true)
  if [ "$shard_rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    # A sanitizer report stops the runner in the middle of a test: count that test as failed.
    f=1
    echo "sanitize: shard $i of railguard_tests stopped with exit code $shard_rc (a sanitizer report above)"
  fi
  passed=$((passed + ${p:-0})) failed=$((failed + f))
  [ "$shard_rc" -eq 0 ] || rc=$shard_rc
done
echo "sanitize: $passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
