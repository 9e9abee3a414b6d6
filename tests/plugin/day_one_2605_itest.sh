#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=60
# day_one_itest.sh on Slurm 26.05.3 built from source (scripts/build_slurm.sh 26.05.3): jobs submitted
# before any node has rail_healthy are accepted, held, given the feature and released by the
# keeper. Skips with one line when 26.05.3 or its plugins are not built.
rg_release=26.05.3
# shellcheck source=day_one_itest.sh
source "$(dirname "$0")/day_one_itest.sh"
