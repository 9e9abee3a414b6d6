#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every railguard test: installs what is missing (scripts/setup.sh), builds, then runs
# the unit tests and the integration tests against real Slurm daemons through CTest.
# Then the hardening checks, each in a build folder of its own: the unit tests under ASan +
# UBSan (scripts/sanitize.sh) and every fuzz target for RAILGUARD_FUZZ_SECONDS seconds
# (scripts/fuzz.sh, default 60). They are left out when arguments select CTest tests
# (scripts/test.sh -R Hostlist runs just those, as before) or with RAILGUARD_HARDENING=0.
# With them, the last line counts everything: "N passed, N failed" (CTest tests, sanitized
# unit tests, fuzz targets); the exit code is 0 only when all passed. Each stage prints how
# long it took ("test: stage build took 312 s"), and the summary lists them all.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
stage_times=()
# stage NAME START: prints and records the seconds since START (a $SECONDS value).
stage() {
  local took=$((SECONDS - $2))
  stage_times+=("$1 ${took} s")
  echo "test: stage $1 took ${took} s"
}
t=$SECONDS
bash "$here/scripts/setup.sh"
stage setup "$t"
t=$SECONDS
bash "$here/scripts/build.sh"
stage build "$t"
build=${RAILGUARD_BUILD_DIR:-$here/build}
if [ "$#" -gt 0 ] || [ "${RAILGUARD_HARDENING:-1}" = 0 ]; then
  cd "$build"
  exec ctest --output-on-failure --timeout 900 "$@"
fi

logs=$(mktemp -d /tmp/railguard-test.XXXXXX)
trap 'rm -rf "$logs"' EXIT
set +e
t=$SECONDS
(cd "$build" && ctest --output-on-failure --timeout 900) 2>&1 | tee "$logs/ctest"
ctest_rc=${PIPESTATUS[0]}
stage "ctest (unit + integration)" "$t"
t=$SECONDS
bash "$here/scripts/sanitize.sh" 2>&1 | tee "$logs/sanitize"
sanitize_rc=${PIPESTATUS[0]}
stage "ASan + UBSan unit tests" "$t"
t=$SECONDS
bash "$here/scripts/fuzz.sh" 2>&1 | tee "$logs/fuzz"
fuzz_rc=${PIPESTATUS[0]}
stage fuzz "$t"
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
  line=$(sed -n "$2" "$1" | tail -n 1)
  echo "${line:-0 0}"
}
read -r total failed <<<"$(last "$logs/ctest" \
  's/.* tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\).*/\2 \1/p')"
counts "ctest" "$ctest_rc" "$((total - failed))" "$failed"
read -r passed failed <<<"$(last "$logs/sanitize" \
  's/^sanitize: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
counts "unit tests under ASan + UBSan" "$sanitize_rc" "$passed" "$failed"
read -r passed failed <<<"$(last "$logs/fuzz" \
  's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
counts "fuzz targets" "$fuzz_rc" "$passed" "$failed"

echo
printf 'test: %s\n' "${summary[@]}"
printf 'test: stage times: %s' "${stage_times[0]}"
printf ', %s' "${stage_times[@]:1}"
printf ' (total %d s)\n' "$SECONDS"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
