#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=60
# day_one_itest.sh on Slurm 25.11.7 built from source (scripts/build_slurm.sh 25.11.7): jobs submitted
# before any node has rail_healthy are accepted, held, given the feature and released by the
# keeper. Skips with one line when 25.11.7 or its plugins are not built.
rg_release=25.11.7
# shellcheck source=day_one_itest.sh
source "$(dirname "$0")/day_one_itest.sh"
