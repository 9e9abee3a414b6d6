#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# one_hop_domain_itest.sh on etc/superpod-b300.yaml, the B300 SuperPOD layout itself: 2 SUs of
# 64 nodes (dgx001-dgx128), two leaves per rail, one-hop domains of 32 nodes. 128 slurmd
# daemons; a 32-node job must wait for a whole domain and then run inside it.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export RG_OHD_TOPO=$src/etc/superpod-b300.yaml RG_OHD_PREFIX=dgx RG_OHD_SU=64 RG_OHD_DOMAIN=32
exec bash "$src/tests/plugin/one_hop_domain_itest.sh"
