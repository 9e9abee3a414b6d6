#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report_live_itest.sh on Slurm 24.11.5: its checks on a 24.11.5 cluster, read by the railctl
# of build/slurm-tools-24.11.5. Skips with one line when 24.11.5 or that railctl is not built.
rg_release=24.11.5
# shellcheck source=report_live_itest.sh
source "$(dirname "$0")/report_live_itest.sh"
