#!/usr/bin/env bash
# Runs every railguard test: installs what is missing (scripts/setup.sh), builds, then runs
# the unit tests and the integration tests against real Slurm daemons through CTest.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/scripts/setup.sh"
bash "$here/scripts/build.sh"
build=${RAILGUARD_BUILD_DIR:-$here/build}
cd "$build"
ctest --output-on-failure --timeout 900 "$@"
