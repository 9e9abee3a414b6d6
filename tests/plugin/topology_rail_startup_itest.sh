#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: slurmctld with topology/rail (and job_submit/rail) does not start on an
# invalid railguard.yaml or rail topology, and its log says why, file:line:column. Never a
# silent flat topology.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

# start_must_fail NAME: starts with the current configs in run directory $rgp_tmp/NAME,
# expects the start to fail, and leaves the kept slurmctld log in $log.
start_must_fail() {
  local dir=$rgp_tmp/$1
  if rgp_start --dir "$dir" --keep 2>"$rgp_tmp/$1.err"; then
    rgp_fail "slurmctld started with an invalid $1"
  fi
  log=$dir/ctld/slurmctld.log
  [ -s "$log" ] || rgp_fail "no slurmctld log in $dir (start output: $(tail -n 5 "$rgp_tmp/$1.err"))"
  grep -q "cluster.sh: error: slurmctld exited during startup" "$rgp_tmp/$1.err" ||
    rgp_fail "the start failed, but not because slurmctld exited: $(tail -n 5 "$rgp_tmp/$1.err")"
  conf=$dir/railguard.yaml
}

# expect_log LINE: the kept log has LINE (after its timestamp).
expect_log() {
  grep -qF -- "$1" "$log" || { grep -v pmix "$log" | tail -n 15 >&2; rgp_fail "log lacks: $1"; }
}

# 1. A bad railguard.yaml, with job_submit/rail loaded too: job_submit/rail is initialized
#    first and stops slurmctld.
rgp_write_configs "default_mode: sometimes" "healthy: x"
start_must_fail railguard-yaml
expect_log "error: railguard: job_submit/rail: $conf:3:17: invalid default_mode 'sometimes'; expected strict, prefer or off"
expect_log "error: railguard: job_submit/rail: $conf:4:3: unknown key 'healthy' in placement; expected one of: default_mode, healthy_feature, wait_base_seconds, wait_per_node_seconds, wait_max_seconds, max_sus_default"
expect_log "fatal: failed to initialize job_submit plugin"
rgp_ok "a bad railguard.yaml stops slurmctld (job_submit/rail), each problem in the log"

# 2. A bad rail topology, topology/rail alone.
rgp_write_configs
sed -i '/^JobSubmitPlugins=/d' "$rgp_tmp/extra.conf"
sed 's/^  - {index: 7, link: \*ndr}$/  - {index: 9, link: *ndr}/' "$src/etc/dev-4su.yaml" \
  >"$rgp_tmp/broken-topology.yaml"
echo "topology: $rgp_tmp/broken-topology.yaml" >"$rgp_tmp/railguard.yaml"
start_must_fail topology
yaml=$rgp_tmp/broken-topology.yaml
expect_log "error: railguard: topology/rail: $yaml:7:3: rail 7 is missing; expected rails numbered 0 to 7"
expect_log "error: railguard: topology/rail: $yaml:14: rail index 9 out of range; expected 0 to 7 (8 rails listed)"
expect_log "error: railguard: topology/rail: $conf or the topology it names has problems (above); slurmctld stops rather than run without the rail topology"
expect_log "fatal: Failed to initialize topology plugin"
rgp_ok "a bad rail topology stops slurmctld (topology/rail), each problem in the log"

# 3. A topology file that does not exist.
echo "topology: missing.yaml" >"$rgp_tmp/railguard.yaml"
start_must_fail missing
expect_log "error: railguard: topology/rail: $rgp_tmp/missing/missing.yaml: cannot open: No such file or directory"
expect_log "fatal: Failed to initialize topology plugin"
rgp_ok "a missing rail topology stops slurmctld"
rgp_done
