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
log=$(mktemp /tmp/railguard-sanitize.XXXXXX)
trap 'rm -f "$log"' EXIT

echo "sanitize: running railguard_tests under ASan + UBSan"
set +e
"$build/railguard_tests" --gtest_brief=1 "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# "[  PASSED  ] N tests." once; "[  FAILED  ] Suite.Test (N ms)" for each failed test.
passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -n 1)
failed=$(grep -c '^\[  FAILED  \] [^ ]* ([0-9]* ms)$' "$log" || true)
passed=${passed:-0}
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  # A sanitizer report stops the runner in the middle of a test: count that test as failed.
  failed=1
  echo "sanitize: railguard_tests stopped with exit code $rc (a sanitizer report above)"
fi
echo "sanitize: $passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
