#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: PROCESSORS=2 COST=400 TIMEOUT=1200
# packages_itest.sh for Slurm 24.11.5 built from source (scripts/build_slurm.sh 24.11.5): the packages
# scripts/package.sh --slurm-version 24.11.5 builds, refused over another Slurm release in its
# prefix, then installed and run on a 24.11.5 cluster, removed and purged. Skips with one line
# when 24.11.5 is not built.
rg_release=24.11.5
# shellcheck source=packages_itest.sh
source "$(dirname "$0")/packages_itest.sh"
