#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds one Slurm release from ../shared/slurm into a prefix of its own, beside Debian's
# system Slurm: only the daemons, commands, libslurm and plugins that railguard and its
# tests use. The configured source tree is kept (the plugins build against its config.h
# and internal headers); a stamp makes a second run cost nothing.
#
# Usage: scripts/build_slurm.sh VERSION          e.g. 24.11.5
# Env:   RAILGUARD_SLURM_TARBALLS  folder with slurm-VERSION.tar.xz + SHA256SUMS
#                                  (default <repo>/../shared/slurm)
#        RAILGUARD_SLURM_ROOT      where trees and prefixes go (default /opt/railguard)
#        RAILGUARD_JOBS            make -j (default 2)
# Result: prefix  $ROOT/slurm-VERSION        (bin/, sbin/, lib/, lib/slurm/, include/)
#         source  $ROOT/src/slurm-VERSION    (configured; what RAILGUARD_SLURM_SRC names)
# Exit 0 also when the tarball folder is absent (one line says so); 1 on any failure.
set -euo pipefail

version=${1:-}
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "usage: scripts/build_slurm.sh VERSION   (e.g. 24.11.5; got '${version}')" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
tarballs=${RAILGUARD_SLURM_TARBALLS:-$repo/../shared/slurm}
root=${RAILGUARD_SLURM_ROOT:-/opt/railguard}
jobs=${RAILGUARD_JOBS:-2}
prefix=$root/slurm-$version
src=$root/src/slurm-$version
tarball=$tarballs/slurm-$version.tar.xz
stamp=$prefix/.railguard-built
log() { echo "build_slurm $version: $*"; }

if [ ! -f "$tarball" ]; then
  log "skipped: no $tarball (the Slurm release tarballs are not in this checkout)"
  exit 0
fi
# What is configured and built: a change here means a rebuild (the stamp below).
# CFLAGS: autoconf's default is "-g -O2"; without -g the build takes about an eighth less time,
# and nothing here debugs Slurm itself (perf still finds its symbols). -O1: these builds serve
# the integration tests, and Slurm's sources compile a third faster than at -O2 (measured on
# the 2-core machine: 12 files of src/common, 4.65 s of CPU at -O1, 7.15 s at -O2; -O0 2.82 s,
# but its daemons would run the 32-node test clusters slower).
configure_opts=(--quiet CFLAGS=-O1 --enable-multiple-slurmd --disable-static --disable-debug --without-pmix
  --without-hdf5 --without-rdkafka --without-lua --without-ucx --without-nvml --without-rsmi
  --without-oneapi --without-freeipmi --without-jwt --without-libcurl --without-s2n --without-bpf)
# src/: libslurm, the daemons and the commands the harness and tests run. src/plugins/: only
# the plugins the harness's slurm.conf and the tests load, a folder per plugin (TYPE/NAME; a
# bare TYPE is all of that type's plugins), "common" folders first (their libraries serve the
# plugins beside them; a bare TYPE where its Makefile picks what configure found: cgroup/v2
# needs the D-Bus headers). Every "none" flavour (accounting_storage, jobacct_gather, task,
# switch, preempt, mcs, acct_gather_*, ...) is built into the daemons since 23.x. 25.x adds
# certgen and http_parser, which its commands and slurmctld load; serializer/json and
# serializer/yaml (libjson-c, libyaml: setup.sh installs them) and data_parser: 25.05+ reads
# topology.yaml through them (without them slurmctld stops: "serializer_required: could not
# find plugin for application/json"). 26.05's slurmd needs a compress plugin ("fatal: Unable
# to locate valid compression plugin"; compress/none). node_features/helpers: the feature
# keeper's test on a site with a NodeFeatures plugin (keeper_helpers_2511_itest.sh). 25.11
# measured on a fresh 2-core machine, beside another release's build: the plugin folders took
# 190 s of 624 with every plugin of those types.
# doc/, testsuite/, contribs/ and the accounting daemon are not built.
src_dirs="api bcast common conmgr interfaces plugins stepmgr slurmctld slurmd sbatch srun
  salloc sattach scancel scontrol sinfo squeue sprio sdiag sstat strigger sacct"
plugin_dirs="auth/munge cred/common cred/munge gpu/common gpu/generic gres/common gres/gpu
  hash/common_xkcp hash/k12 mpi/pmi2 prep/script priority/basic priority/multifactor
  proctrack/linuxproc proctrack/pgid sched/backfill sched/builtin select/cons_tres
  serializer/json serializer/yaml serializer/url-encoded tls/none topology
  cgroup certgen http_parser data_parser compress node_features/helpers"
# The stamp holds the tarball's checksum and that of the recipe above: a different tarball,
# or a change in what is configured and built, means a rebuild; a change elsewhere in this
# script (its messages) does not. The configured tree has a stamp of its own (the tarball and
# the configure options): a change in the folders only builds again in it, without unpacking
# and configuring (about 3 minutes of one core).
tar_sum=$(cd "$tarballs" && grep " slurm-$version.tar.xz\$" SHA256SUMS | cut -d' ' -f1 || true)
if [ -z "$tar_sum" ]; then
  echo "build_slurm $version: $tarballs/SHA256SUMS has no line for slurm-$version.tar.xz" >&2
  exit 1
fi
recipe_sum=$(printf '%s\n' "${configure_opts[*]}" $src_dirs $plugin_dirs |
  sha256sum | cut -d' ' -f1)
sum="$tar_sum $recipe_sum"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] && [ -f "$src/config.h" ]; then
  log "already built in $prefix (0 s)"
  exit 0
fi
( cd "$tarballs" && grep " slurm-$version.tar.xz\$" SHA256SUMS | sha256sum -c --quiet - ) || {
  echo "build_slurm $version: $tarball does not match $tarballs/SHA256SUMS" >&2
  exit 1
}

start=$SECONDS
configured_stamp=$src/.railguard-configured
configured_sum="$tar_sum $(printf '%s\n' "${configure_opts[*]}" | sha256sum | cut -d' ' -f1)"
rm -rf "$prefix"
if [ -f "$configured_stamp" ] && [ "$(cat "$configured_stamp")" = "$configured_sum" ] &&
  [ -f "$src/config.h" ]; then
  log "configured tree $src kept (same tarball and configure options); building in it"
else
  log "unpacking into $src"
  rm -rf "$src"
  mkdir -p "$root/src"
  tar -xJf "$tarball" -C "$root/src"
  [ -f "$src/configure" ] || { echo "build_slurm $version: $tarball has no slurm-$version/configure" >&2; exit 1; }

  # Multiple slurmd: the harness runs one `slurmd -N node` per node on one host. Optional
  # libraries the tests do not use are left out so that their plugins are not built.
  log "configure (prefix $prefix)"
  ( cd "$src" && ./configure --prefix="$prefix" --sysconfdir="$prefix/etc" "${configure_opts[@]}" \
      >"$src/railguard-configure.log" 2>&1 ) || {
    echo "build_slurm $version: configure failed; see $src/railguard-configure.log" >&2
    tail -n 15 "$src/railguard-configure.log" >&2
    exit 1
  }
  echo "$configured_sum" >"$configured_stamp"
fi

keep_dirs() {  # keep_dirs DIR WANTED...: the WANTED subfolders that exist in DIR (exit 0
  # also when the last one does not: 24.11 has no http_parser nor tls/none, and set -e would
  # stop here)
  local d=$1 w; shift
  for w in "$@"; do
    if [ -f "$d/$w/Makefile" ]; then printf '%s ' "$w"; fi
  done
}
# shellcheck disable=SC2086
src_subdirs=$(keep_dirs "$src/src" $src_dirs)
# shellcheck disable=SC2086
plugin_subdirs=$(keep_dirs "$src/src/plugins" $plugin_dirs)
build_log=$src/railguard-make.log
# One folder at a time in Slurm's own order (a SUBDIRS override would reach every sub-make).
make_dirs() {  # make_dirs TARGET FOLDER...: `make TARGET` in each FOLDER, in order, with one
  # progress line per folder on fd 3 (the make output itself goes to the log)
  local target=$1 d i=0; shift
  for d in "$@"; do
    i=$((i + 1))
    echo "build_slurm $version: make $target ${d#"$src"/} ($i/$#, $((SECONDS - start)) s)" >&3
    make -C "$d" -j"$jobs" "$target" || return 1
  done
}
src_paths=() plugin_paths=()
for d in $src_subdirs; do [ "$d" = plugins ] || src_paths+=("$src/src/$d"); done
for d in $plugin_subdirs; do
  if [ "$d" = data_parser ]; then
    # Only the newest data parser: the one the release's own code asks for (the older ones
    # serve slurmrestd clients of older API versions) and about half of the build otherwise.
    d=data_parser/$(cd "$src/src/plugins/data_parser" && ls -d v[0-9]* | sort -V | tail -n 1)
  fi
  plugin_paths+=("$src/src/plugins/$d")
done
log "make -j$jobs (log $build_log)"
exec 3>&1
{
  make -C "$src/src/common" -j"$jobs" \
    && make_dirs all "${src_paths[@]}" && make_dirs all "${plugin_paths[@]}" \
    && make_dirs install "${src_paths[@]}" "${plugin_paths[@]}" \
    && make -C "$src" install-pkgincludeHEADERS
} >"$build_log" 2>&1 </dev/null || {
  echo "build_slurm $version: make failed; see $build_log" >&2
  grep -E 'error|Error' "$build_log" | tail -n 15 >&2
  exit 1
}
echo "$sum" >"$stamp"
log "installed in $prefix ($((SECONDS - start)) s)"
