#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# topology_rail_partitions_2411_itest.sh on Slurm 26.05.3 (its checks, on a 26.05.3 cluster with
# the plugins of build/slurm-plugins-26.05.3). Skips with one line when 26.05.3 or its plugins are
# not built.
rg_release=26.05.3
# shellcheck source=topology_rail_partitions_2411_itest.sh
source "$(dirname "$0")/topology_rail_partitions_2411_itest.sh"
