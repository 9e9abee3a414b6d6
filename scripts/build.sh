#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Configures and builds railguard into ./build (or $RAILGUARD_BUILD_DIR). Idempotent. Prints a
# progress line at least every 30 s; the compiler output goes to build-logs/build.log (named in
# the first line), and its tail is printed when the build fails.
set -euo pipefail
# A command that stops the script says so (set -e alone would exit without a word).
trap 'echo "build: stopped: line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=progress.sh
source "$here/scripts/progress.sh"
logs=${RAILGUARD_LOG_DIR:-$here/build-logs}
build=${RAILGUARD_BUILD_DIR:-$here/build}
jobs=${RAILGUARD_JOBS:-$(nproc)}
# RelWithDebInfo with -g1 (line tables and function names: backtraces and sanitizer reports
# still name lines) instead of -g: half the compile time for the same code. The Debian packages
# are built with Debian's own flags (scripts/package.sh).
flags=${RAILGUARD_OPT_FLAGS:--O2 -g1 -DNDEBUG}
rg_step "build: cmake configure ($build)" "$logs/cmake.log" '' -- \
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE="${RAILGUARD_BUILD_TYPE:-RelWithDebInfo}" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags"
rg_step "build: compile and link (-j$jobs)" "$logs/build.log" '^\[ *[0-9]+%\]' -- \
  cmake --build "$build" -j "$jobs"
