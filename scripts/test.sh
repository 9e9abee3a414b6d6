#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every railguard test: installs what is missing (scripts/setup.sh), builds
# (scripts/build.sh), then runs the unit tests and the integration tests against real Slurm
# daemons through CTest, several at a time (RAILGUARD_CTEST_JOBS, default 4: most of an
# integration test's time is Slurm's own waiting, and each test has its own cluster).
# Then the hardening checks, in one clang build tree (scripts/hardening_build.sh): the unit
# tests under ASan + UBSan (scripts/sanitize.sh) and every fuzz target for
# RAILGUARD_FUZZ_SECONDS seconds (scripts/fuzz.sh, default 60). That tree is compiled while
# CTest runs, at the lowest CPU priority, so that its compile fills the time the integration
# tests spend waiting. Hardening is left out when arguments select CTest tests
# (scripts/test.sh -R Hostlist runs just those, as before) or with RAILGUARD_HARDENING=0.
# With it, the last line counts everything: "N passed, N failed" (CTest tests, sanitized
# unit tests, fuzz targets); the exit code is 0 only when all passed.
#
# Every step prints what it does with the time since the start ("[12:34] ..."), and a line at
# least every 30 s while it runs; full logs are in build-logs/ (RAILGUARD_LOG_DIR), each named
# when its step starts, and a failed step prints the tail of its log. The summary lists each
# stage's time and the total.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=progress.sh
source "$here/scripts/progress.sh"
logs=${RAILGUARD_LOG_DIR:-$here/build-logs}
export RAILGUARD_LOG_DIR=$logs
stage_times=()
# stage NAME START: prints and records the seconds since START (a $SECONDS value).
# The machine's busy CPU time (all processes), in clock ticks since boot: a stage's share of
# what the cores could give says whether it waited (idle cores) or was short of CPU.
cpu_busy() {
  local _ u n s i w q sq st
  read -r _ u n s i w q sq st _ </proc/stat
  echo $((u + n + s + q + sq + st))
}
cpu_mark=$(cpu_busy)
stage_cpu=()
stage() {
  local took=$((SECONDS - $2)) busy now
  now=$(cpu_busy)
  busy=$(((now - cpu_mark) * 100 / $(getconf CLK_TCK)))  # CPU-seconds x 100
  cpu_mark=$now
  stage_times+=("$1 ${took} s")
  local use=$((took > 0 ? busy / (took * $(nproc)) : 0))
  stage_cpu+=("$1 ${use}%")
  rg_say test "stage $1 took ${took} s (CPU busy ${use}% of $(nproc) cores)"
}
hardening=1
if [ "$#" -gt 0 ] || [ "${RAILGUARD_HARDENING:-1}" = 0 ]; then hardening=0; fi
rg_say test "railguard's tests: setup, build, CTest (unit + integration)$(
  [ "$hardening" = 1 ] && echo ', ASan + UBSan unit tests, fuzzing'); logs in $logs"

t=$SECONDS
rg_say test "setup: Debian packages, the installed Slurm's source, the Slurm releases"
bash "$here/scripts/setup.sh"
stage setup "$t"
t=$SECONDS
bash "$here/scripts/build.sh"
stage build "$t"
build=${RAILGUARD_BUILD_DIR:-$here/build}
jobs=${RAILGUARD_CTEST_JOBS:-4}
if [ "$hardening" = 0 ]; then
  cd "$build"
  rg_say test "ctest -j$jobs $*"
  exec ctest --output-on-failure --timeout 900 -j "$jobs" "$@"
fi

set +e
# The hardening tree compiles beside CTest (nice 19: the tests come first).
rg_step_bg "test: hardening build (clang, ASan + UBSan + libFuzzer)" \
  "$logs/hardening-build.log" '^\[ *[0-9]+%\]' -- nice -n 19 bash "$here/scripts/hardening_build.sh"
t=$SECONDS
rg_step --show "test: ctest -j$jobs (unit + integration)" "$logs/ctest.log" '' -- \
  bash -c 'cd "$1" && ctest --output-on-failure --timeout 900 -j "$2"' _ "$build" "$jobs"
ctest_rc=$?
stage "ctest (unit + integration)" "$t"
t=$SECONDS
rg_step_wait "test: hardening build (clang, ASan + UBSan + libFuzzer)"
hardening_rc=$?
stage "hardening build (rest after ctest)" "$t"
t=$SECONDS
if [ "$hardening_rc" -eq 0 ]; then
  rg_step --show "test: unit tests under ASan + UBSan" "$logs/sanitize.log" '' -- \
    bash "$here/scripts/sanitize.sh"
  sanitize_rc=$?
  stage "ASan + UBSan unit tests" "$t"
  t=$SECONDS
  rg_step --show "test: fuzz targets, ${RAILGUARD_FUZZ_SECONDS:-60} s each" "$logs/fuzz.log" '' -- \
    bash "$here/scripts/fuzz.sh"
  fuzz_rc=$?
  stage fuzz "$t"
fi
set -e

# counts NAME RC PASSED FAILED: one line of the summary; a step that failed without saying
# how many tests failed counts as one failure.
total_passed=0
total_failed=0
summary=()
counts() {
  local passed=${3:-0} failed=${4:-0}
  if [ "$2" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  summary+=("$1: $passed passed, $failed failed")
}
# last LOG SED: the fields that SED prints from the last matching line of LOG, "0 0" if none.
last() {
  local line
  line=$(sed -n "$2" "$1" 2>/dev/null | tail -n 1)
  echo "${line:-0 0}"
}
read -r total failed <<<"$(last "$logs/ctest.log" \
  's/.* tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\).*/\2 \1/p')"
counts "ctest" "$ctest_rc" "$((total - failed))" "$failed"
if [ "$hardening_rc" -eq 0 ]; then
  read -r passed failed <<<"$(last "$logs/sanitize.log" \
    's/^sanitize: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
  counts "unit tests under ASan + UBSan" "$sanitize_rc" "$passed" "$failed"
  read -r passed failed <<<"$(last "$logs/fuzz.log" \
    's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
  counts "fuzz targets" "$fuzz_rc" "$passed" "$failed"
else
  # One failure, not three: the sanitized unit tests and the fuzzers did not run (and their
  # logs in build-logs/, if any, are an earlier run's).
  counts "hardening build (sanitized unit tests and fuzzing not run)" "$hardening_rc" 0 1
fi

echo
printf 'test: %s\n' "${summary[@]}"
printf 'test: stage times: %s' "${stage_times[0]}"
printf ', %s' "${stage_times[@]:1}"
printf ' (total %d s)\n' "$SECONDS"
printf 'test: CPU busy per stage (of %d cores): %s' "$(nproc)" "${stage_cpu[0]}"
printf ', %s' "${stage_cpu[@]:1}"
echo
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
