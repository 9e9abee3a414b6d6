#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs every Debian package railguard needs and prepares the Slurm source tree
# matching the installed Slurm (for plugins that need Slurm's internal headers).
# Idempotent: safe to run again; does only what is missing.
#
# Usage: scripts/setup.sh            (as root, on Debian 12)
# Env:   RAILGUARD_SLURM_SRC  where to unpack the Slurm source (default /opt/railguard/slurm-src)
set -euo pipefail
# A command that stops the script says so (set -e alone would exit without a word).
trap 'echo "setup: stopped: line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR

PKGS=(
  cmake g++ make pkg-config git python3
  googletest libgtest-dev libgmock-dev
  libyaml-cpp-dev nlohmann-json3-dev
  libhwloc-dev hwloc
  libibverbs-dev rdma-core ibverbs-utils infiniband-diags
  libibmad-dev libibnetdisc-dev libibumad-dev opensm ibsim-utils libumad2sim0
  slurmctld slurmd slurm-client libslurm-dev munge
  libmunge-dev libhttp-parser-dev libjson-c-dev libyaml-dev
  dpkg-dev
  clang-14 libclang-rt-14-dev llvm-14
  debhelper lintian man-db
  chromium
)

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=progress.sh
source "$here/scripts/progress.sh"
logs=${RAILGUARD_LOG_DIR:-$here/build-logs}
log() { rg_say setup "$*"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "setup: must run as root (it installs Debian packages)" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive

# --- deb-src entry so that `apt-get source slurm-wlm` works -------------------------------
srcfile=/etc/apt/sources.list.d/railguard-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && \
   ! grep -qs '^deb-src' /etc/apt/sources.list; then
  log "adding deb-src entry $srcfile"
  cat > "$srcfile" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  need_update=1
fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ] || [ "${need_update:-0}" = 1 ] || [ ! -d /var/lib/apt/lists ] || \
   [ -z "$(ls /var/lib/apt/lists/ 2>/dev/null | grep -i source || true)" ]; then
  rg_step "setup: apt-get update" "$logs/apt-update.log" '' -- apt-get update -qq
fi
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${#missing[@]} Debian packages (and what they depend on): ${missing[*]}"
  # Debian's slurmctld/slurmd postinst start services; that is harmless, the harness
  # runs its own daemons with its own config.
  rg_step "setup: apt-get install" "$logs/apt-install.log" '^(Unpacking|Setting up) ' -- \
    apt-get install -y --no-install-recommends "${missing[@]}"
else
  log "all ${#PKGS[@]} Debian packages are installed"
fi

# --- Slurm source matching the installed Slurm ---------------------------------------------
# prepare_debian_source: apt-get source of the installed Slurm, configured as Debian builds it
# (the plugins include its config.h). A stamp makes a second run cost nothing.
slurm_ver=$(dpkg-query -W -f='${Version}' slurmctld)   # e.g. 22.05.8-4+deb12u3
upstream=${slurm_ver%%-*}                              # 22.05.8
SRC_ROOT=${RAILGUARD_SLURM_SRC:-/opt/railguard/slurm-src}
stamp="$SRC_ROOT/.railguard-configured-$slurm_ver"
prepare_debian_source() {
  rm -rf "$SRC_ROOT"
  mkdir -p "$SRC_ROOT"
  ( cd "$SRC_ROOT" && apt-get source -qq "slurm-wlm=$slurm_ver" )
  dir=$(find "$SRC_ROOT" -maxdepth 1 -type d -name "slurm-wlm-$upstream*" | head -n1)
  [ -n "$dir" ] || { echo "setup: apt-get source produced no slurm-wlm-$upstream directory" >&2; return 1; }
  ln -sfn "$dir" "$SRC_ROOT/current"
  ( cd "$dir" && ./configure --quiet --prefix=/usr --sysconfdir=/etc/slurm \
      --libdir=/usr/lib/x86_64-linux-gnu --enable-multiple-slurmd )
  touch "$stamp"
}

# --- yaml-cpp, static and position-independent, for the Slurm plugins -----------------------
# Debian's libyaml-cpp.a is built without -fPIC, so no shared object can take it in. From
# Debian's own source of the installed version, built static with -fPIC: the plugins link it
# and libstdc++ statically (CMakeLists.txt, RAILGUARD_YAML_CPP_PIC) and slurmctld then maps only
# what they call. VERSION (the upstream version) lets CMake check it matches the headers.
yaml_src_ver=$(dpkg-query -W -f='${source:Version}' libyaml-cpp-dev)   # e.g. 0.7.0+dfsg-8
YAML_ROOT=${RAILGUARD_YAML_CPP_PIC_DIR:-/opt/railguard/yaml-cpp-pic}
yaml_stamp="$YAML_ROOT/.railguard-built-$yaml_src_ver"
build_yaml_cpp_pic() {
  rm -rf "$YAML_ROOT"
  mkdir -p "$YAML_ROOT/src"
  ( cd "$YAML_ROOT/src" && apt-get source -qq "yaml-cpp=$yaml_src_ver" )
  local dir
  dir=$(find "$YAML_ROOT/src" -maxdepth 1 -type d -name 'yaml-cpp-*' | head -n1)
  [ -n "$dir" ] || { echo "setup: apt-get source produced no yaml-cpp-* directory" >&2; return 1; }
  cmake -S "$dir" -B "$YAML_ROOT/build" -DCMAKE_BUILD_TYPE=Release \
    -DYAML_BUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF -DYAML_CPP_BUILD_CONTRIB=OFF \
    -DCMAKE_CXX_FLAGS="-ffunction-sections -fdata-sections"
  cmake --build "$YAML_ROOT/build" -j "$(nproc)"
  cp "$YAML_ROOT/build/libyaml-cpp.a" "$YAML_ROOT/libyaml-cpp.a"
  local upstream_yaml=${yaml_src_ver#*:}
  upstream_yaml=${upstream_yaml%%+*}
  echo "${upstream_yaml%%-*}" > "$YAML_ROOT/VERSION"
  rm -rf "$YAML_ROOT/build"
  touch "$yaml_stamp"
}

# --- Slurm releases besides the system one, each in a prefix of its own ---------------------
# scripts/build_slurm.sh: from ../shared/slurm when present (else one line says it is
# skipped), cached by a stamp. libmunge-dev above is for their auth/munge, libhttp-parser-dev
# for 25.11's http_parser plugin. They build side by side, and beside the Debian source's
# configure: configure runs on one core, and each release's make has single-core stretches
# (links, small folders), so together they keep both cores busy. By default 25.11 and 26.05,
# the two series upstream supports (24.11's support ended in May 2026): three releases built
# and tested on a fresh 2-core machine do not fit CI's 45 minutes. Debian 13 sites add 24.11.5:
# RAILGUARD_SLURM_RELEASES="24.11.5 25.11.7 26.05.3" scripts/setup.sh (its tests then run too).
releases=${RAILGUARD_SLURM_RELEASES:-25.11.7 26.05.3}
steps=()
if [ ! -f "$stamp" ]; then
  log "preparing Slurm $slurm_ver source in $SRC_ROOT (apt-get source, configure)"
  rg_step_bg "setup: Slurm $upstream source" "$logs/slurm-$upstream-source.log" '' -- \
    prepare_debian_source
  steps+=("setup: Slurm $upstream source")
fi
if [ ! -f "$yaml_stamp" ]; then
  log "building yaml-cpp $yaml_src_ver static and position-independent in $YAML_ROOT"
  rg_step_bg "setup: yaml-cpp (PIC)" "$logs/yaml-cpp-pic.log" '' -- build_yaml_cpp_pic
  steps+=("setup: yaml-cpp (PIC)")
fi
for v in $releases; do
  rg_step_bg "setup: Slurm $v" "$logs/slurm-$v.log" '^build_slurm' -- \
    bash "$here/scripts/build_slurm.sh" "$v"
  steps+=("setup: Slurm $v")
done
failed=()
for step in "${steps[@]}"; do
  rg_step_wait "$step" || failed+=("$step")
done
for v in $releases; do  # "already built", "skipped: no tarball": one line each
  # (no such line after a real build: grep finds nothing, which is no failure here)
  { grep -h -E '^build_slurm [^:]*: (already built|skipped)' "$logs/slurm-$v.log" 2>/dev/null ||
    true; } | tail -n 1 | sed 's/^/  /'
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "setup: failed: ${failed[*]} (their logs are in $logs)" >&2
  exit 1
fi
log "Slurm $slurm_ver source ready at $SRC_ROOT/current"
log "done"
