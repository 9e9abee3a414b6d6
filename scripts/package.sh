#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Debian packages railguard-tools and slurm-railguard-plugins from this tree, for
# the Slurm installed on this machine, and checks them with lintian. packaging/README.md says
# what goes where and why.
#
# Usage: scripts/package.sh [--incremental]     (as root, it first runs scripts/setup.sh)
#   --incremental  keep the compiled objects of the last run in the staging tree and rebuild
#                  only what changed (the tests use it); the default builds from scratch
# Env:   RAILGUARD_PKG_DIR   output folder (default ./build-pkg): the .deb, .changes and
#                            .buildinfo files, and the staging tree railguard/ they are built in
#        RAILGUARD_JOBS      parallel build jobs (default: nproc)
#        RAILGUARD_SLURM_SRC configured Slurm source tree (default /opt/railguard/slurm-src/current)
# Prints the paths of the two packages on stdout, the last two lines; progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${RAILGUARD_PKG_DIR:-$here/build-pkg}
jobs=${RAILGUARD_JOBS:-$(nproc)}
incremental=0
case ${1:-} in
  --incremental) incremental=1 ;;
  "") ;;
  *)
    echo "usage: scripts/package.sh [--incremental]" >&2
    exit 2
    ;;
esac

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
slurm_version=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins 2>/dev/null) ||
  die "slurm-wlm-basic-plugins is not installed (run scripts/setup.sh)"
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
  printf '  * Built for Slurm %s (slurm-wlm-basic-plugins).\n\n' "$slurm_version"
  printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$here/packaging/debian/changelog" -S Maintainer)" \
    "$(date -R)"
  cat "$here/packaging/debian/changelog"
} >"$stage/debian/changelog"

log "building $version in $stage (-j$jobs$([ "$incremental" = 0 ] || echo ', incremental'))"
start=$SECONDS
(cd "$stage" && RAILGUARD_SLURM_SRC=${RAILGUARD_SLURM_SRC:-/opt/railguard/slurm-src/current} \
  dpkg-buildpackage "${buildpackage_opts[@]}" >"$out/build.log" 2>&1) || {
  tail -n 40 "$out/build.log" >&2
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
