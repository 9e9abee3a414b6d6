#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: PROCESSORS=2 COST=150 TIMEOUT=1200
# packages_itest.sh for Slurm 26.05.3 built from source (scripts/build_slurm.sh 26.05.3): the packages
# scripts/package.sh --slurm-version 26.05.3 builds, refused over another Slurm release in its
# prefix, then installed and run on a 26.05.3 cluster, removed and purged. Skips with one line
# when 26.05.3 is not built.
rg_release=26.05.3
# shellcheck source=packages_itest.sh
source "$(dirname "$0")/packages_itest.sh"
