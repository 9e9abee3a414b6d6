#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=60
# day_one_itest.sh on Slurm 24.11.5 built from source (scripts/build_slurm.sh 24.11.5): jobs submitted
# before any node has rail_healthy are accepted, held, given the feature and released by the
# keeper. Skips with one line when 24.11.5 or its plugins are not built.
rg_release=24.11.5
# shellcheck source=day_one_itest.sh
source "$(dirname "$0")/day_one_itest.sh"
