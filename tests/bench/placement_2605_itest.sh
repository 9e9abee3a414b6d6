#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=95
# placement_2411_itest.sh on Slurm 26.05.3: bench/placement.sh --quick with stock topology/block
# and railguard on a 26.05.3 cluster (plugins from build/slurm-plugins-26.05.3). Skipped (one
# line) when 26.05.3 or its plugins are not built.
rg_release=26.05.3
# shellcheck source=placement_2411_itest.sh
source "$(dirname "$0")/placement_2411_itest.sh"
