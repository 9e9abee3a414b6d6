#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Debian packages railguard-tools and slurm-railguard-plugins from this tree, for
# one Slurm release, and checks them with lintian. packaging/README.md says what goes where,
# how the packages are pinned to their Slurm, and why.
#
# Usage: scripts/package.sh [--incremental] [--slurm-version V | --slurm-prefix DIR]
#                                               (as root, it first runs scripts/setup.sh)
#   --incremental      keep the compiled objects of the last run in the staging tree and
#                      rebuild only what changed (the tests use it); the default builds from
#                      scratch
#   --slurm-version V  the Slurm release to build for: the installed Debian package's (the
#                      default) or one built from source into $RAILGUARD_SLURM_ROOT/slurm-V
#                      (scripts/build_slurm.sh V)
#   --slurm-prefix DIR a Slurm built from source into DIR (its release is read there)
# Env:   RAILGUARD_PKG_DIR   output folder (default ./build-pkg for Debian's Slurm,
#                            ./build-pkg-<release> for a prefix's): the .deb, .changes and
#                            .buildinfo files, and the staging tree railguard/ they are built in
#        RAILGUARD_JOBS      parallel build jobs (default: nproc)
#        RAILGUARD_SLURM_SRC configured Slurm source tree of that release (default
#                            /opt/railguard/slurm-src/current for Debian's Slurm, else
#                            <prefix>/../src/slurm-<release>, where scripts/build_slurm.sh
#                            leaves it)
#        RAILGUARD_SLURM_ROOT where --slurm-version looks for prefixes (default /opt/railguard)
# Prints the paths of the two packages on stdout, the last two lines; progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=${RAILGUARD_JOBS:-$(nproc)}
incremental=0
want_version="" prefix=""
usage() {
  echo "usage: scripts/package.sh [--incremental] [--slurm-version V | --slurm-prefix DIR]" >&2
  exit 2
}
while [ "$#" -gt 0 ]; do
  case $1 in
    --incremental) incremental=1; shift ;;
    --slurm-version) [ "$#" -ge 2 ] || usage; want_version=$2; shift 2 ;;
    --slurm-prefix) [ "$#" -ge 2 ] || usage; prefix=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ -z "$want_version" ] || [ -z "$prefix" ] || usage

log() { echo "package: $*" >&2; }
die() {
  echo "package: error: $*" >&2
  exit 1
}

if [ "$(id -u)" -eq 0 ]; then
  bash "$here/scripts/setup.sh" >&2
fi
for tool in dpkg-buildpackage dh lintian; do
  command -v "$tool" >/dev/null || die "$tool is missing (run scripts/setup.sh as root)"
done

# The version: packaging/debian/changelog's, which must be the CMake project's, plus the
# Slurm the plugins are built for, so that a rebuild for a new Slurm is an upgrade.
project_version=$(sed -n 's/^project(railguard VERSION \([0-9.]*\).*/\1/p' "$here/CMakeLists.txt")
base_version=$(dpkg-parsechangelog -l "$here/packaging/debian/changelog" -S Version)
[ "$base_version" = "$project_version" ] ||
  die "packaging/debian/changelog is at $base_version but CMakeLists.txt at $project_version;" \
    "add a changelog entry for $project_version"
# The Slurm: Debian's (pinned with slurm-wlm-basic-plugins) unless another release is asked
# for, which is then one built from source into a prefix.
debian_slurm=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins 2>/dev/null) ||
  die "slurm-wlm-basic-plugins is not installed (run scripts/setup.sh)"
if [ -z "$prefix" ] && [ -n "$want_version" ] && [ "$want_version" != "${debian_slurm%%-*}" ]; then
  prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$want_version
  [ -d "$prefix" ] || die "Slurm $want_version is neither Debian's (${debian_slurm%%-*}) nor" \
    "built in $prefix (scripts/build_slurm.sh $want_version)"
fi
if [ -n "$prefix" ]; then
  [ -d "$prefix" ] || die "--slurm-prefix $prefix is not a directory"
  prefix=$(cd "$prefix" && pwd)
  # The release as its daemons tell it, as the packages' preinst reads it.
  daemon=$prefix/sbin/slurmctld
  [ -x "$daemon" ] || daemon=$prefix/sbin/slurmd
  slurm_version=$("$daemon" -V 2>/dev/null | sed -n 's/^slurm //p') || true
  [ -n "$slurm_version" ] || die "no Slurm in $prefix ($daemon -V tells no release)"
  [ -z "$want_version" ] || [ "$want_version" = "$slurm_version" ] ||
    die "$prefix holds Slurm $slurm_version, not $want_version"
  slurm_src=${RAILGUARD_SLURM_SRC:-$(dirname "$prefix")/src/slurm-$slurm_version}
  built_for="Slurm $slurm_version in $prefix"
  out=${RAILGUARD_PKG_DIR:-$here/build-pkg-$slurm_version}
else
  slurm_version=$debian_slurm
  slurm_src=${RAILGUARD_SLURM_SRC:-/opt/railguard/slurm-src/current}
  built_for="Slurm $slurm_version (slurm-wlm-basic-plugins)"
  out=${RAILGUARD_PKG_DIR:-$here/build-pkg}
fi
version="$base_version+slurm${slurm_version//-/.}"

# A staging copy of the tree with packaging/debian as debian/: dpkg-buildpackage needs debian/
# at the top, and a copy is a consistent snapshot while the tree is being edited.
[[ $out == /* ]] || die "RAILGUARD_PKG_DIR must be an absolute path, got '$out'"
stage=$out/railguard
rm -f -- "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out"/build.log "$out"/lintian.log
buildpackage_opts=(-b -us -uc -j"$jobs")
if [ "$incremental" = 1 ] && [ -d "$stage" ]; then
  # Everything but CMake's build folder goes; the copied sources keep their times, so make
  # rebuilds only what changed. -nc: no `debian/rules clean`, which would remove the folder.
  find "$stage" -mindepth 1 -maxdepth 1 ! -name 'obj-*' -exec rm -rf -- {} +
  # CMake takes CFLAGS/LDFLAGS from the environment only into a new cache: start a new one,
  # so that the build flags are those of a clean build (unchanged ones rebuild nothing).
  rm -f -- "$stage"/obj-*/CMakeCache.txt
  buildpackage_opts+=(-nc)
else
  rm -rf -- "$stage"
fi
mkdir -p "$stage"
tar -C "$here" --exclude='./build*' --exclude=./.git --exclude=./debian -cf - . |
  tar -C "$stage" -xf -
cp -r "$here/packaging/debian" "$stage/debian"
{
  printf 'railguard (%s) unstable; urgency=medium\n\n' "$version"
  printf '  * Built for %s.\n\n' "$built_for"
  printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$here/packaging/debian/changelog" -S Maintainer)" \
    "$(date -R)"
  cat "$here/packaging/debian/changelog"
} >"$stage/debian/changelog"

log "building $version for $built_for in $stage" \
  "(-j$jobs$([ "$incremental" = 0 ] || echo ', incremental'))"
start=$SECONDS
(cd "$stage" && RAILGUARD_SLURM_SRC=$slurm_src RAILGUARD_SLURM_PREFIX=$prefix \
  dpkg-buildpackage "${buildpackage_opts[@]}" >"$out/build.log" 2>&1) || {
  tail -n 40 "$out/build.log" >&2
  # A CMake or debian/rules error may be far above the tail.
  grep -E -A3 '^CMake Error|^debian/rules: ' "$out/build.log" | head -n 20 >&2 || true
  die "dpkg-buildpackage failed after $((SECONDS - start)) s; the whole log is $out/build.log"
}
log "built in $((SECONDS - start)) s (log: $out/build.log)"

changes=$(ls "$out"/railguard_*.changes)
log "lintian $changes"
# Errors and warnings fail; info tags (hardening-no-bindnow, see debian/rules) are printed.
lint_rc=0
lintian --display-info --fail-on error,warning "$changes" >"$out/lintian.log" 2>&1 || lint_rc=$?
grep -v 'running with root privileges' "$out/lintian.log" >&2 || true
[ "$lint_rc" = 0 ] || die "lintian reports errors or warnings (above; $out/lintian.log)"
log "lintian: no errors, no warnings"

arch=$(dpkg --print-architecture)
for pkg in railguard-tools slurm-railguard-plugins; do
  deb="$out/${pkg}_${version}_$arch.deb"
  [ -f "$deb" ] || die "$deb was not built"
  echo "$deb"
done
