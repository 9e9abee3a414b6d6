#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=80
# railcheck_drain_itest.sh on Slurm 24.11.5: its checks on a 24.11.5 cluster with the plugins
# of build/slurm-plugins-24.11.5 and the railcheck and railctl of build/slurm-tools-24.11.5.
# Skips with one line when 24.11.5 or those are not built.
rg_release=24.11.5
# shellcheck source=railcheck_drain_itest.sh
source "$(dirname "$0")/railcheck_drain_itest.sh"
