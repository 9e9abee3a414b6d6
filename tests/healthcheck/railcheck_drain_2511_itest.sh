#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=130
# railcheck_drain_itest.sh on Slurm 25.11.7: its checks on a 25.11.7 cluster with the plugins
# of build/slurm-plugins-25.11.7 and the railcheck and railctl of build/slurm-tools-25.11.7.
# Skips with one line when 25.11.7 or those are not built.
rg_release=25.11.7
# shellcheck source=railcheck_drain_itest.sh
source "$(dirname "$0")/railcheck_drain_itest.sh"
