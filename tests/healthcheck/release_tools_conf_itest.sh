#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: without $SLURM_CONF, railcheck and railctl look where the Slurm they are
# linked to looks. A Slurm installed into a prefix reads <prefix>/etc/slurm.conf by default
# (its libslurm's compiled-in path, src/common/read_config.c); the railcheck and railctl
# built for it (build/slurm-tools-<version>/) must take railguard.yaml and slurm.conf from
# there too, not from Debian's /etc/slurm. For the system build (build/healthcheck/railcheck,
# build/railctl) that is /etc/slurm. No cluster is started. Releases that are not built are
# skipped, each with one line.
# Env: RAILGUARD_BINARY_DIR (default <repo>/build), RAILGUARD_SLURM_ROOT (/opt/railguard).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${RAILGUARD_BINARY_DIR:-$src/build}
root=${RAILGUARD_SLURM_ROOT:-/opt/railguard}
name=$(basename "${0%.sh}")
checks=0
fail() { echo "$name: FAIL: $*" >&2 && exit 1; }
ok() { checks=$((checks + 1)) && echo "$name: ok: $*"; }

# check LABEL RAILCHECK RAILCTL CONF_DIR
check() {
  local label=$1 railcheck=$2 railctl=$3 dir=$4 out
  out=$(env -u SLURM_CONF "$railcheck" --help) || fail "$label: railcheck --help failed"
  grep -qxF -- "                  $dir/railguard.yaml)" <<<"$out" ||
    fail "$label: railcheck --help does not name $dir/railguard.yaml: $(grep -A1 -- --config <<<"$out")"
  if [ -e "$dir/railguard.yaml" ]; then
    ok "$label: railcheck's default is $dir/railguard.yaml (it exists: not run)"
  else
    out=$(env -u SLURM_CONF "$railcheck" --dry-run --node n001 2>&1) && fail "$label: railcheck ran: $out"
    grep -qF "looked for $dir/railguard.yaml (beside the default slurm.conf $dir/slurm.conf)" <<<"$out" ||
      fail "$label: railcheck without SLURM_CONF did not look for $dir/railguard.yaml: $out"
    ok "$label: railcheck without SLURM_CONF reads $dir/railguard.yaml"
  fi
  if [ -e "$dir/slurm.conf" ]; then
    ok "$label: railctl report's default is $dir/slurm.conf (it exists: not run)"
  else
    out=$(env -u SLURM_CONF "$railctl" report --topology "$src/etc/dev-4su.yaml" 2>&1) &&
      fail "$label: railctl report ran: $out"
    grep -qF "neither $dir/slurm.conf (the default) nor" <<<"$out" ||
      fail "$label: railctl report without SLURM_CONF did not read $dir/slurm.conf: $out"
    ok "$label: railctl report without SLURM_CONF reads $dir/slurm.conf"
  fi
}

[ -x "$bin/healthcheck/railcheck" ] && [ -x "$bin/railctl" ] || fail "build railcheck and railctl in $bin"
check "system Slurm" "$bin/healthcheck/railcheck" "$bin/railctl" /etc/slurm
for version in 24.11.5 25.11.7; do
  tools=$bin/slurm-tools-$version
  if [ ! -x "$root/slurm-$version/sbin/slurmctld" ] || [ ! -x "$tools/railcheck" ]; then
    echo "$name: skipped $version: no Slurm $version in $root or no $tools (scripts/build_slurm.sh $version, then rebuild)"
    continue
  fi
  check "Slurm $version" "$tools/railcheck" "$tools/railctl" "$root/slurm-$version/etc"
done
echo "$name: PASS ($checks checks)"
