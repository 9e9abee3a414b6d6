#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: PROCESSORS=2 COST=600 FIXTURES_SETUP=asan_plugins TIMEOUT=1500
# Builds the ASan + UBSan plugins that asan_itest loads into real daemons
# (rgp_build_asan_plugins, tests/plugin/itest_lib.sh), as its own CTest test: asan_itest holds
# both railcheck lanes (no railcheck cluster beside its ASan daemons), and on a fresh 2-core
# machine this build took 321 s of its 447, lanes held. CTest runs this first (the
# asan_plugins fixture), beside anything; asan_itest then finds the plugins current. Its
# limit is 1500 s, not the default 600: it is a compile beside the hardening build and three
# test clusters on 2 cores (a local CI run with other builds on the machine hit 600 s).
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"
rgp_build_asan_plugins
rgp_ok "ASan plugins built in $asan_build ($SECONDS s)"
rgp_done
