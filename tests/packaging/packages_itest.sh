#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: PROCESSORS=2 COST=150 TIMEOUT=1200
# Integration test of the Debian packages, on this machine, for Debian's Slurm or (run by
# packages_<series>_itest.sh with rg_release=V) for Slurm V built from source into
# $RAILGUARD_SLURM_ROOT/slurm-V (scripts/build_slurm.sh):
#  - scripts/package.sh [--slurm-version V] builds railguard-tools and
#    slurm-railguard-plugins, lintian-clean;
#  - for V, `dpkg -i` of the plugins is refused while another Slurm release is in V's prefix
#    (Debian's daemons bound over it, in a mount namespace of its own);
#  - `dpkg -i` installs them: railctl in /usr/sbin, the plugins (stripped) in that Slurm's
#    PluginDir, the man pages, railguard.yaml created from the template beside that Slurm's
#    slurm.conf; the plugins depend on exactly Debian's Slurm, or V's preinst checks V;
#  - a local cluster (tests/harness) of that Slurm, with the INSTALLED files only (railctl,
#    railcheck, plugins, examples), places a 4-node job inside one scalable unit through
#    job_submit/rail and topology/rail, the SPANK plugin sets NCCL_IB_HCA, railcheck drains a
#    node whose rail 3 is down (fake sysfs) and `railctl report` lists it;
#  - `dpkg -r` keeps the config, `dpkg -P` removes it unless the admin changed it, a deleted
#    config is not brought back, and afterwards nothing of the packages is left.
# Whatever happens, the EXIT trap stops the cluster, purges the packages, removes what the
# test created and puts back what purging removed (/var/lib/railguard), so the machine is
# left as it was. A run killed before that trap (SIGKILL) is undone by the next run, from the
# marker the run keeps. Without that marker, it refuses to run if the packages are already
# installed (it would replace the admin's). For V, it skips with one line when V is not built.
# Env: RAILGUARD_SOURCE_DIR, RAILGUARD_BINARY_DIR (the packages of every release are built
#      in its pkg-itest/, incrementally: the code they share is compiled once),
#      RAILGUARD_SLURM_ROOT (default /opt/railguard), RAILGUARD_KEEP_CLUSTER=1 keeps the
#      cluster's run directory for its logs.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=$(basename "${0%.sh}")
release=${rg_release:-} # empty: Debian's Slurm
pkgs=(railguard-tools slurm-railguard-plugins)
template=/usr/share/railguard/railguard.yaml
examples=/usr/share/doc/railguard-tools/examples
checks=0

fail() {
  echo "$name: FAIL: $*" >&2
  local log=${RAILGUARD_CLUSTER_DIR:-}/ctld/slurmctld.log
  if [ -n "${RAILGUARD_CLUSTER_DIR:-}" ] && [ -s "$log" ]; then
    echo "---- last 15 lines of $log" >&2
    grep -v pmix "$log" | tail -n 15 >&2
  fi
  exit 1
}
ok() {
  checks=$((checks + 1))
  echo "$name: ok: $*"
}

# Where that Slurm is, written out here (build_slurm.sh's layout) rather than read with the
# code under test.
if [ -z "$release" ]; then
  prefix=""
  plugindir=$(dirname "$(dpkg -L slurm-wlm-basic-plugins | grep '/topology_tree\.so$')")
  conf=/etc/slurm/railguard.yaml
  release_args=()
  slurm_name="Debian's Slurm"
else
  prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$release
  if [ ! -x "$prefix/sbin/slurmctld" ]; then
    echo "$name: skipped: no Slurm $release in $prefix (scripts/build_slurm.sh $release)"
    exit 0
  fi
  plugindir=$prefix/lib/slurm
  conf=$prefix/etc/railguard.yaml
  release_args=(--slurm-version "$release")
  slurm_name="Slurm $release"
fi

[ "$(id -u)" -eq 0 ] || fail "must run as root (dpkg -i)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rg-$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT  # until the cleanup below takes over

# Two locks instead of CTest's RESOURCE_LOCK for the whole test, so that the packages tests of
# the releases overlap: one builds while another has the machine. Both are taken with a
# limit, never forever (a daemon left running by a killed run would hold the second: the
# harness's daemons inherit its descriptor).
lock() {  # lock FD FILE WHAT: flock FD (opened on FILE by the caller) within 1000 s
  local t=$SECONDS
  flock -w 1000 "$1" || fail "$3 ($2) was held by another run for 1000 s"
  [ $((SECONDS - t)) -lt 2 ] || echo "$name: waited $((SECONDS - t)) s for $3 ($2)"
}

# --- build -----------------------------------------------------------------------------------
# In the staging tree all releases share (the code they share is compiled once), one build at
# a time; the packages are copied out, so that the next release's build cannot replace them
# while this test installs them.
exec 8>"$bin/pkg-itest.lock"
lock 8 "$bin/pkg-itest.lock" "the package build tree"
export RAILGUARD_PKG_DIR=$bin/pkg-itest
# At low CPU priority: CTest runs other integration tests beside this one, and their daemons
# and health checks answer within deadlines; the package build only has to finish. And with
# line tables only (-g1 after Debian's -g: GCC takes the last): half the compile time for the
# same code and flags otherwise (a fresh machine's first package build did not finish within
# 600 s beside the other tests with full -g). And -O1 after Debian's -O2: what is tested here
# is the packaging, not the optimizer, and _FORTIFY_SOURCE (hardening=+all, lintian checks it)
# needs only -O1. scripts/package.sh alone keeps Debian's -g -O2.
export DEB_CFLAGS_MAINT_APPEND="-g1 -O1" DEB_CXXFLAGS_MAINT_APPEND="-g1 -O1"
debs=$(nice -n 10 bash "$src/scripts/package.sh" --incremental "${release_args[@]}" 2>"$tmp/package.err") || {
  cat "$tmp/package.err" >&2
  fail "scripts/package.sh failed"
}
grep -q '^package: lintian: no errors, no warnings$' "$tmp/package.err" ||
  fail "package.sh did not report a clean lintian run: $(cat "$tmp/package.err")"
grep -E '^[EWI]: ' "$tmp/package.err" | sed "s/^/$name: lintian: /" || true
ok "packages built, lintian: no errors, no warnings ($(grep -o 'built in [0-9]* s' "$tmp/package.err"))"
mapfile -t debs <<<"$debs"
[ "${#debs[@]}" = 2 ] || fail "package.sh printed ${#debs[@]} packages, expected 2: ${debs[*]}"
mkdir "$tmp/debs"
cp "${debs[@]}" "$tmp/debs/"
debs=("$tmp/debs/${debs[0]##*/}" "$tmp/debs/${debs[1]##*/}")
exec 8>&-

# --- the machine: dpkg, this Slurm's folders, /var/lib/railguard; one packages test at a time
exec 9>/run/lock/rg-packages-itest.lock
lock 9 /run/lock/rg-packages-itest.lock "the machine's packages"

# A run of this test (any release) killed before its EXIT trap ran (SIGKILL: CTest's timeout,
# CI's limit) leaves the packages and its changes behind. While it runs, it keeps a marker
# saying what it changed; a later run that finds the marker undoes that first. Without the
# marker, installed packages are the admin's and the test refuses to touch them.
marker=/var/lib/rg-packages-itest.marker
marker_get() { sed -n "s/^$1=//p" "$marker" | head -n 1; }
if [ -f "$marker" ]; then
  echo "$name: a packages test ($(marker_get name), pid $(marker_get pid)) was stopped before" \
    "its cleanup; undoing what it left ($marker)"
  for p in slurm-railguard-plugins railguard-tools; do
    dpkg -P "$p" >/dev/null 2>&1 || fail "dpkg -P $p, left by the stopped run, failed"
  done
  old_tmp=$(marker_get tmp)
  old_conf=$(marker_get conf)
  if [ "$(marker_get conf_existed)" = 1 ]; then
    [ ! -f "$old_tmp/conf.before" ] || cp -a "$old_tmp/conf.before" "$old_conf"
  else
    rm -f "$old_conf"
  fi
  [ "$(marker_get conf_dir_made)" = 0 ] || rmdir "${old_conf%/*}" 2>/dev/null || true
  if [ -d "$old_tmp/var-lib-railguard" ]; then
    rm -rf /var/lib/railguard
    cp -a "$old_tmp/var-lib-railguard" /var/lib/railguard
  elif [ "$(marker_get state_existed)" = 0 ]; then
    rm -rf /var/lib/railguard
  fi
  rm -rf /var/lib/slurm-railguard-plugins
  case $old_tmp in "${TMPDIR:-/tmp}"/rg-packages*) rm -rf "$old_tmp" ;; esac
  rm -f "$marker"
fi
# Removed but not purged ("deinstall ok config-files"): the packages have no dpkg conffiles (the
# config is the postinst's), so all that is left of them is their purge step; it runs now, as
# `dpkg -P` by the admin would (it removes the config only where it is the unchanged template).
for p in slurm-railguard-plugins railguard-tools; do
  status=$(dpkg-query -W -f='${Status}|${Conffiles}' "$p" 2>/dev/null || true)
  if [ "$status" = "deinstall ok config-files|" ]; then
    echo "$name: $p was removed but not purged; purging it first (dpkg -P $p)"
    dpkg -P "$p" >/dev/null 2>&1 || fail "dpkg -P $p (removed, not purged) failed"
  fi
done
for p in "${pkgs[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv 'not-installed$'; then
    fail "$p is already on this machine ($(dpkg-query -W -f='${Status} ${Version}' "$p")); the" \
      "test would replace it. Remove it first (dpkg -P ${pkgs[*]})."
  fi
done

# What the packages could leave behind, listed before anything happens: in the system
# folders and in the prefix of the Slurm they are for (not all of /opt, where other Slurm
# builds come and go).
leftovers() {
  find /etc /usr /var/lib ${prefix:+"$prefix"} -xdev \( -name '*railguard*' -o -name '*_rail.so' \
    -o -name 'railctl*' -o -name 'railcheck*' -o -name rails.yaml \) -print 2>/dev/null | sort
}
before=$(leftovers)
# The folder of that Slurm's slurm.conf, where a configured site has it (the prefix has none).
conf_dir_made=0
if [ ! -d "${conf%/*}" ]; then
  mkdir "${conf%/*}"
  conf_dir_made=1
fi
conf_existed=0
if [ -e "$conf" ]; then
  conf_existed=1
  cp -a "$conf" "$tmp/conf.before"
fi
# railcheck's state folder: purging railguard-tools removes what railcheck wrote there, so a
# copy of what was there before (a railcheck run by hand) is put back.
state_existed=0
if [ -e /var/lib/railguard ]; then
  state_existed=1
  cp -a /var/lib/railguard "$tmp/var-lib-railguard"
fi
# restore_state: /var/lib/railguard as it was before the test.
restore_state() {
  rm -rf /var/lib/railguard
  [ "$state_existed" = 0 ] || cp -a "$tmp/var-lib-railguard" /var/lib/railguard
}
# shellcheck source-path=SCRIPTDIR source=../harness/cluster.sh
source "$src/tests/harness/cluster.sh"
cleanup() {
  local rc=$? purged=1
  rg_cluster_stop >/dev/null 2>&1 || true
  for p in slurm-railguard-plugins railguard-tools; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv 'not-installed$'; then
      echo "$name: cleanup: dpkg -P $p" >&2
      dpkg -P "$p" >/dev/null 2>&1 || { echo "$name: cleanup: dpkg -P $p failed" >&2; purged=0; }
    fi
  done
  # A config this test made the postinst create, then changed so that purge kept it.
  [ "$conf_existed" = 1 ] || rm -f "$conf"
  [ "$conf_dir_made" = 0 ] || rmdir "${conf%/*}" || true
  restore_state
  rm -rf /var/lib/slurm-railguard-plugins
  # The marker (and the copies it names) stay when the packages could not be purged: the next
  # run tries again.
  if [ "$purged" = 1 ]; then
    rm -rf "$tmp"
    rm -f "$marker"
  fi
  exit "$rc"
}
printf '%s\n' "name=$name" "pid=$$" "tmp=$tmp" "conf=$conf" "conf_existed=$conf_existed" \
  "conf_dir_made=$conf_dir_made" "state_existed=$state_existed" >"$marker"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP


if [ -n "$release" ]; then
  # Another Slurm release in the prefix (Debian's daemons bound over it, in this command's own
  # mount namespace): the plugins' preinst refuses them, before dpkg unpacks anything.
  mkdir -p "$tmp/other-slurm/sbin"
  ln -s /usr/sbin/slurmctld /usr/sbin/slurmd "$tmp/other-slurm/sbin/"
  other=$(/usr/sbin/slurmctld -V)
  rc=0
  # shellcheck disable=SC2016 # $1..$3: the arguments of that sh
  unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec dpkg -i "$3"' sh \
    "$tmp/other-slurm" "$prefix" "${debs[1]}" >"$tmp/refused.log" 2>&1 || rc=$?
  # A refused install leaves the package "install ok not-installed"; purging forgets it.
  dpkg -P slurm-railguard-plugins >/dev/null 2>&1 || true
  [ "$rc" != 0 ] ||
    fail "dpkg -i installed the $release plugins over Slurm '$other': $(cat "$tmp/refused.log")"
  refusal="slurm-railguard-plugins: refusing to install: $prefix/sbin/slurmctld -V says"
  refusal+=" '$other', not 'slurm $release'"
  grep -qxF "$refusal" "$tmp/refused.log" ||
    fail "dpkg -i failed otherwise: $(cat "$tmp/refused.log")"
  ok "dpkg -i of the plugins is refused where $prefix holds '$other': $refusal"
fi

# --- install ---------------------------------------------------------------------------------
dpkg -i "${debs[@]}" >"$tmp/dpkg-i.log" 2>&1 || fail "dpkg -i failed: $(cat "$tmp/dpkg-i.log")"
for p in "${pkgs[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p")" = "install ok installed" ] || fail "$p is not installed"
  dpkg -L "$p" >"$tmp/$p.list"
done
ok "dpkg -i ${debs[*]##*/}"

depends=$(dpkg-query -W -f='${Depends}' slurm-railguard-plugins)
if [ -z "$release" ]; then
  slurm_version=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins)
  [[ ", $depends," == *", slurm-wlm-basic-plugins (= $slurm_version),"* ]] ||
    fail "slurm-railguard-plugins Depends: $depends; expected slurm-wlm-basic-plugins (= $slurm_version)"
  ok "the plugins depend on exactly this Slurm: slurm-wlm-basic-plugins (= $slurm_version)"
else
  [[ $depends != *slurm-wlm* ]] || fail "the $release plugins depend on Debian's Slurm: $depends"
  for p in "${pkgs[@]}"; do
    version=$(dpkg-query -W -f='${Version}' "$p")
    [[ $version == *"+slurm$release" ]] ||
      fail "$p is at $version, expected <project>+slurm$release"
    grep -qx "release=$release" "/var/lib/dpkg/info/$p.preinst" ||
      fail "$p has no preinst that checks Slurm $release"
  done
  grep -q "libslurm\.so\.[0-9]* => $prefix/lib/" < <(ldd /usr/sbin/railcheck) ||
    fail "the installed railcheck does not use $prefix's libslurm: $(ldd /usr/sbin/railcheck)"
  ok "version $version, no Debian Slurm dependency, a preinst for $release;" \
    "railcheck uses $prefix/lib/libslurm"
fi

for so in topology_rail job_submit_rail spank_railguard; do
  f=$plugindir/$so.so
  grep -qx "$f" "$tmp/slurm-railguard-plugins.list" || fail "$f is not in slurm-railguard-plugins"
  if grep -q '\.debug_info' < <(readelf -S "$f"); then fail "$f is not stripped"; fi
  [ "$(stat -c %s "$f")" -lt 2000000 ] || fail "$f is $(stat -c %s "$f") bytes; expected stripped"
done
ok "plugins in $plugindir, stripped ($(du -ch "$plugindir"/*_rail*.so "$plugindir"/spank_railguard.so | tail -n1 | cut -f1) together)"

[ -x /usr/sbin/railctl ] || fail "/usr/sbin/railctl is missing"
/usr/sbin/railctl topology validate "$examples/superpod-h100.yaml" >/dev/null ||
  fail "the installed railctl does not validate the installed example superpod-h100.yaml"
for page in man8/railctl.8.gz man8/railcheck.8.gz man5/railguard.yaml.5.gz; do
  [ -f "/usr/share/man/$page" ] || fail "/usr/share/man/$page is missing"
  warn=$(MANWIDTH=80 man --warnings -l "/usr/share/man/$page" 2>&1 >/dev/null)
  [ -z "$warn" ] || fail "man --warnings /usr/share/man/$page: $warn"
done
[ "$(readlink -f "$(man -w railcheck-prolog)")" = /usr/share/man/man8/railcheck.8.gz ] ||
  fail "man railcheck-prolog does not lead to railcheck(8): $(man -w railcheck-prolog 2>&1)"
ok "railctl in /usr/sbin; railctl(8), railcheck(8), railguard.yaml(5) gzipped, warning-free"

if [ "$conf_existed" = 0 ]; then
  [ -f "$conf" ] || fail "the postinst did not create $conf"
  cmp -s "$conf" "$template" || fail "$conf differs from $template"
  grep -qx 'topology: rails.yaml' "$conf" || fail "$conf does not name rails.yaml"
  ! grep -qx "$conf" "$tmp/slurm-railguard-plugins.list" || fail "$conf is a file of the package"
  ok "$conf created from $template (topology: rails.yaml), not a dpkg conffile"
else
  cmp -s "$conf" "$tmp/conf.before" || fail "the postinst changed the existing $conf"
  ok "$conf existed before the test; the postinst left it alone (seed checks skipped)"
fi

# --- a cluster from the installed files --------------------------------------------------------
# railguard.yaml: the installed template with the topology set to the installed example.
sed "s|^topology:.*|topology: $examples/dev-4su.yaml|" "$template" >"$tmp/railguard.yaml"
# plugstack.conf: the installed example's line, with the config above.
grep -v '^#' "$examples/plugstack.conf.railguard" | grep . |
  sed "s|config=[^ ]*|config=$tmp/railguard.yaml|" >"$tmp/plugstack.conf"
grep -q "^optional $plugindir/spank_railguard.so config=" "$tmp/plugstack.conf" ||
  fail "unexpected plugstack.conf line from the example: $(cat "$tmp/plugstack.conf")"
cat >"$tmp/extra.conf" <<EOF
JobSubmitPlugins=rail
SchedulerParameters=bf_interval=2,max_switch_wait=31536000
PlugStackConfig=$tmp/plugstack.conf
EOF
rg_cluster_start --no-trap --topo "$examples/dev-4su.yaml" --topology-plugin rail \
  "${release_args[@]}" --plugin-dir "$plugindir" --railctl /usr/sbin/railctl \
  --conf-extra "$tmp/extra.conf" --railguard-conf "$tmp/railguard.yaml" ||
  fail "the cluster did not start (see above)"
plugin_path=$(scontrol show config | sed -n 's/^PluginDir *= *//p')
[[ $plugin_path != *"$src"* && $plugin_path != *build* ]] ||
  fail "PluginDir=$plugin_path includes the build tree"
topology=$(scontrol show topology)
grep -q '^SwitchName=raildev-spine .*Switches=su\[1-4\]' <<<"$topology" ||
  fail "scontrol show topology has no raildev-spine over su[1-4]: $topology"
ok "$slurm_name cluster up with PluginDir=$plugin_path, topology/rail: one switch per SU" \
  "under raildev-spine"

# Every node healthy, as railcheck publishes it (Extra + the healthy feature): job_submit/rail
# requires rail_healthy of every multi-node job, and its keeper takes it from a node whose
# Extra is not healthy.
extra_ok='{"railcheck":{"failed":[],"rails":["ok","ok","ok","ok","ok","ok","ok","ok"],"time":1,"verdict":"ok"}}'
for n in $(scontrol show hostnames 'n[001-032]'); do
  su="su$(((10#${n#n} - 1) / 8 + 1))"
  scontrol update NodeName="$n" Extra="$extra_ok" AvailableFeatures="$su,rail_healthy" \
    ActiveFeatures="$su,rail_healthy" || fail "scontrol update of $n failed"
done
job=$(sbatch --parsable -N4 --exclusive -t 5 -o /dev/null --wrap 'sleep 30' 2>"$tmp/sbatch.err") ||
  fail "sbatch -N4 refused: $(cat "$tmp/sbatch.err")"
job=${job%%;*}
told=$(sed -n 's/^sbatch: railguard: //p' "$tmp/sbatch.err")
# Debian's 22.05 places by --switches; from 24.11 topology/rail places the job itself, and
# job_submit/rail asks Slurm for no switch bound (plugin/core/placement.h, topology_places).
if [ -z "$release" ]; then
  want_told="strict placement: 4 nodes in 1 scalable unit; Slurm holds the job for it however long it queues;"
  want_switches=1@365-00:00:00
else
  want_told="strict placement: 4 nodes in 1 scalable unit: topology/rail keeps a job that fits one in one, however long it queues;"
  want_switches=""
fi
[[ $told == "$want_told"* ]] ||
  fail "sbatch said '$(cat "$tmp/sbatch.err")'; expected a railguard line for 4 nodes in 1 SU: $want_told"
state="" deadline=$((SECONDS + 30))
while [ "$state" != RUNNING ]; do
  [ "$SECONDS" -le "$deadline" ] || fail "job $job is $state after 30 s"
  record=$(scontrol show job -o "$job")
  state=$(grep -o 'JobState=[A-Z]*' <<<"$record" | cut -d= -f2)
  sleep 0.5
done
switches=$(grep -o ' Switches=[^ ]*' <<<"$record" | cut -d= -f2 || true)
nodes=$(grep -o ' NodeList=[^ ]*' <<<"$record" | cut -d= -f2)
sus=$(scontrol show hostnames "$nodes" | while read -r n; do echo "su$(((10#${n#n} - 1) / 8 + 1))"; done |
  sort -u | paste -sd' ')
[ "$(wc -w <<<"$sus")" = 1 ] || fail "job $job runs on $nodes: SUs $sus, expected one"
[ "$switches" = "$want_switches" ] || fail "job $job has Switches=$switches, expected '$want_switches'"
ok "4-node job $job on $nodes, inside $sus, Switches=$switches; sbatch said: railguard: $told"

scancel "$job"
hca=$(srun -N1 -w n010 -t 1 printenv NCCL_IB_HCA 2>"$tmp/srun.err") ||
  fail "srun printenv NCCL_IB_HCA failed: $(cat "$tmp/srun.err")"
[ "$hca" = "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11" ] ||
  fail "NCCL_IB_HCA on n010 is '$hca'"
ok "the installed SPANK plugin sets NCCL_IB_HCA=$hca"

# --- railcheck: a degraded rail drains its node through the Slurm API ----------------------------
for f in railcheck railcheck-prolog railcheck-epilog railcheck-periodic; do
  grep -qx "/usr/sbin/$f" "$tmp/railguard-tools.list" || fail "/usr/sbin/$f is not in railguard-tools"
done
# Fake sysfs trees of a DGX H100-like node: n010 healthy, n011 with rail 3's port down.
python3 "$src/tests/data/sysfs/make_sysfs.py" "$tmp/sysfs/n010" >/dev/null
python3 "$src/tests/data/sysfs/make_sysfs.py" "$tmp/sysfs/n011" --fault port-down:3 >/dev/null
printf '%s\n' "topology: $examples/dev-4su.yaml" "health:" "  sysfs_root: $tmp/sysfs/%n" \
  "  state_dir: $tmp/state/%n" "  events_log: $tmp/state/events.log" >"$tmp/railcheck.yaml"
/usr/sbin/railcheck baseline --node n010 --config "$tmp/railcheck.yaml" >"$tmp/railcheck.out" 2>&1 ||
  fail "railcheck baseline on n010 failed: $(cat "$tmp/railcheck.out")"
[ -s "$tmp/state/n010/baseline.json" ] || fail "railcheck baseline wrote no baseline.json"
rc=0
/usr/sbin/railcheck-periodic --node n011 --config "$tmp/railcheck.yaml" >"$tmp/railcheck.out" 2>&1 ||
  rc=$?
[ "$rc" = 1 ] || fail "railcheck-periodic on n011 exited $rc, expected 1 (drain): $(cat "$tmp/railcheck.out")"
node=$(scontrol show node -o n011)
[[ $node == *" State="*DRAIN* ]] || fail "n011 is not drained after railcheck: $node"
reason=$(grep -o 'Reason=railcheck:.*' <<<"$node" | sed 's/^Reason=//; s/ \[.*//')
[[ $reason == "railcheck: rail3 mlx5_5"* ]] || fail "n011's reason is not railcheck's: $node"
rc=0
/usr/sbin/railcheck-periodic --node n010 --config "$tmp/railcheck.yaml" >"$tmp/railcheck.out" 2>&1 ||
  rc=$?
[ "$rc" = 0 ] || fail "railcheck-periodic on n010 exited $rc, expected 0: $(cat "$tmp/railcheck.out")"
[[ $(scontrol show node -o n010) == *"ActiveFeatures="*rail_healthy* ]] ||
  fail "n010 did not get rail_healthy: $(scontrol show node -o n010)"
ok "installed railcheck: baseline recorded; n011 drained ($reason); n010 got rail_healthy"
/usr/sbin/railctl report --config "$tmp/railcheck.yaml" >"$tmp/report.out" 2>&1 ||
  fail "railctl report failed: $(cat "$tmp/report.out")"
grep -qE '^n011 .*railcheck: rail3' "$tmp/report.out" ||
  fail "railctl report does not list n011 as drained by railcheck: $(cat "$tmp/report.out")"
ok "installed railctl report lists n011 drained by railcheck"
rg_cluster_stop >/dev/null 2>&1

# --- remove and purge ----------------------------------------------------------------------------
# gone_except_shared LIST: every path of a dpkg -L list is gone, or a folder another package
# owns, or one with other files in it (a prefix's PluginDir and the folders above it).
gone_except_shared() {
  local path
  while read -r path; do
    [ "$path" != /. ] || continue
    if [ -d "$path" ] && [ ! -L "$path" ]; then
      dpkg -S "$path" >/dev/null 2>&1 || [ -n "$(ls -A "$path")" ] ||
        fail "empty folder $path is left and no package owns it"
    elif [ -e "$path" ] || [ -L "$path" ]; then
      fail "$path is left after removal"
    fi
  done <"$1"
}
dpkg -r slurm-railguard-plugins railguard-tools >"$tmp/dpkg-r.log" 2>&1 ||
  fail "dpkg -r failed: $(cat "$tmp/dpkg-r.log")"
for p in "${pkgs[@]}"; do gone_except_shared "$tmp/$p.list"; done
if [ "$conf_existed" = 0 ]; then
  [ -f "$conf" ] || fail "dpkg -r removed $conf; expected it kept until purge"
fi
dpkg -P slurm-railguard-plugins railguard-tools >"$tmp/dpkg-p.log" 2>&1 ||
  fail "dpkg -P failed: $(cat "$tmp/dpkg-p.log")"
[ "$state_existed" = 0 ] || restore_state
after=$(leftovers)
[ "$after" = "$before" ] ||
  fail "left behind after dpkg -P: $(diff <(echo "$before") <(echo "$after") | grep '^>' | tr '\n' ' ')"
ok "dpkg -r kept $conf, dpkg -P removed it; no file of the packages is left"

if [ "$conf_existed" = 0 ]; then
  # A config the admin changed survives the purge; one the admin deleted is not brought back.
  dpkg -i "${debs[@]}" >"$tmp/dpkg-i.log" 2>&1 || fail "second dpkg -i failed: $(cat "$tmp/dpkg-i.log")"
  rm "$conf"
  dpkg -i "${debs[@]}" >"$tmp/dpkg-i.log" 2>&1 || fail "third dpkg -i failed: $(cat "$tmp/dpkg-i.log")"
  [ ! -e "$conf" ] || fail "reinstalling brought back $conf, which the admin had deleted"
  dpkg -P slurm-railguard-plugins >/dev/null 2>&1 || fail "dpkg -P slurm-railguard-plugins failed"
  dpkg -i "${debs[1]}" >"$tmp/dpkg-i.log" 2>&1 || fail "fourth dpkg -i failed: $(cat "$tmp/dpkg-i.log")"
  echo "# changed by the admin" >>"$conf"
  dpkg -P slurm-railguard-plugins railguard-tools >"$tmp/dpkg-p.log" 2>&1 ||
    fail "dpkg -P failed: $(cat "$tmp/dpkg-p.log")"
  [ -f "$conf" ] || fail "dpkg -P removed $conf although the admin had changed it"
  grep -q "keeping $conf" "$tmp/dpkg-p.log" || fail "dpkg -P did not say it keeps $conf"
  rm "$conf"
  [ "$state_existed" = 0 ] || restore_state
  [ "$(leftovers)" = "$before" ] || fail "left behind: $(leftovers)"
  ok "a deleted $conf stays deleted on reinstall; a changed one survives dpkg -P"
fi

echo "$name: PASS ($checks checks, $SECONDS s)"
