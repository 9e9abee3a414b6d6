#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm_topology_yaml_2511_itest.sh on Slurm 26.05.3: stock Slurm with the topology.yaml railctl
# exports, on a 26.05.3 cluster. Skips with one line when 26.05.3 or its plugins are not built.
rg_release=26.05.3
# shellcheck source=slurm_topology_yaml_2511_itest.sh
source "$(dirname "$0")/slurm_topology_yaml_2511_itest.sh"
