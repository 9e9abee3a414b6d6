#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the hardening tree: clang with AddressSanitizer, UBSan (no recovery: the first report
# stops the program) and libFuzzer's coverage hooks, in one build folder. Every library of the
# project is compiled once there and serves both the unit-test runner that scripts/sanitize.sh
# runs (railguard_tests) and the libFuzzer targets that scripts/fuzz.sh runs (fuzz_targets).
# -O1 with line tables only: sanitizer reports name files and lines, and clang compiles this
# several times faster than -O2 -g, while libFuzzer still runs fast enough.
#
# Usage: scripts/hardening_build.sh [TARGET...]   (default: railguard_tests fuzz_targets)
# Env:   RAILGUARD_HARDENING_BUILD_DIR  build folder (default: ./build-hardening)
#        RAILGUARD_JOBS                 compile jobs (default: nproc)
# Needs clang-14 (or clang) with its libFuzzer and
# sanitizer runtimes (scripts/setup.sh installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${RAILGUARD_HARDENING_BUILD_DIR:-$here/build-hardening}
jobs=${RAILGUARD_JOBS:-$(nproc)}
pick() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { echo "$c"; return; }; done; }
cc=$(pick clang-14 clang)
cxx=$(pick clang++-14 clang++)
if [ -z "$cc" ] || [ -z "$cxx" ]; then
  echo "hardening_build: clang not found; expected clang-14 (scripts/setup.sh installs it)" >&2
  exit 2
fi
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(railguard_tests fuzz_targets)
flags="-O1 -gline-tables-only"
mkdir -p "$build"
echo "hardening_build: configuring $build ($cxx, ASan + UBSan + libFuzzer hooks, $flags)"
cmake -S "$here" -B "$build" -DRAILGUARD_SANITIZE=ON -DRAILGUARD_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  -DCMAKE_C_FLAGS=-fno-sanitize-recover=all -DCMAKE_CXX_FLAGS=-fno-sanitize-recover=all \
  >"$build/configure.log" 2>&1 || { tail -n 30 "$build/configure.log" >&2; exit 1; }
echo "hardening_build: building ${targets[*]} with -j$jobs"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
