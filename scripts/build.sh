#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Configures and builds railguard into ./build (or $RAILGUARD_BUILD_DIR). Idempotent.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${RAILGUARD_BUILD_DIR:-$here/build}
jobs=${RAILGUARD_JOBS:-$(nproc)}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=${RAILGUARD_BUILD_TYPE:-RelWithDebInfo} >/dev/null
cmake --build "$build" -j "$jobs"
