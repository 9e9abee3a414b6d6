#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1 COST=130
# railcheck_drain_itest.sh on Slurm 26.05.3: its checks on a 26.05.3 cluster with the plugins
# of build/slurm-plugins-26.05.3 and the railcheck and railctl of build/slurm-tools-26.05.3.
# Skips with one line when 26.05.3 or those are not built.
rg_release=26.05.3
# shellcheck source=railcheck_drain_itest.sh
source "$(dirname "$0")/railcheck_drain_itest.sh"
