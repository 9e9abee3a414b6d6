#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report_live_itest.sh on Slurm 26.05.3: its checks on a 26.05.3 cluster, read by the railctl
# of build/slurm-tools-26.05.3. Skips with one line when 26.05.3 or that railctl is not built.
rg_release=26.05.3
# shellcheck source=report_live_itest.sh
source "$(dirname "$0")/report_live_itest.sh"
