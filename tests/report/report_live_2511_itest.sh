#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report_live_itest.sh on Slurm 25.11.7: its checks on a 25.11.7 cluster, read by the railctl
# of build/slurm-tools-25.11.7. Skips with one line when 25.11.7 or that railctl is not built.
rg_release=25.11.7
# shellcheck source=report_live_itest.sh
source "$(dirname "$0")/report_live_itest.sh"
