#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: PROCESSORS=2 COST=150 TIMEOUT=1200
# packages_itest.sh for Slurm 25.11.7 built from source (scripts/build_slurm.sh 25.11.7): the packages
# scripts/package.sh --slurm-version 25.11.7 builds, refused over another Slurm release in its
# prefix, then installed and run on a 25.11.7 cluster, removed and purged. Skips with one line
# when 25.11.7 is not built.
rg_release=25.11.7
# shellcheck source=packages_itest.sh
source "$(dirname "$0")/packages_itest.sh"
