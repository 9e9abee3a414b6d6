#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# topology_rail_partitions_2411_itest.sh on Slurm 25.11.7 (its checks, on a 25.11.7 cluster with
# the plugins of build/slurm-plugins-25.11.7). Skips with one line when 25.11.7 or its plugins are
# not built.
rg_release=25.11.7
# shellcheck source=topology_rail_partitions_2411_itest.sh
source "$(dirname "$0")/topology_rail_partitions_2411_itest.sh"
