#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Local Slurm cluster for integration tests, the demo and benchmarks: a private munged, a real
# slurmctld and one `slurmd -N <node>` per node of a railguard topology YAML, all on 127.0.0.1.
#
#   eval "$(tests/harness/cluster.sh start --topo etc/dev-4su.yaml)"  # exports SLURM_CONF, ...
#   tests/harness/cluster.sh status
#   tests/harness/cluster.sh stop
#
# From a bash test:
#   source tests/harness/cluster.sh
#   rg_cluster_start --topo "$RAILGUARD_SOURCE_DIR/etc/dev-4su.yaml" --topology-plugin tree
#   # SLURM_CONF and RAILGUARD_CLUSTER_DIR are now exported; EXIT, INT, TERM and HUP tear down.
#
# Everything a run creates lives in one run directory; /etc/slurm, /etc/munge and the system
# munged are never touched. `cluster.sh help` lists every option; tests/harness/README.md
# explains the layout.

_RG_HARNESS_SELF=$(readlink -f "${BASH_SOURCE[0]}")
_RG_REPO=$(cd "$(dirname "$_RG_HARNESS_SELF")/../.." && pwd)
_RG_DEBIAN_PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
# A file with this name marks a directory as a run directory: stop refuses any other.
_RG_MARKER=.railguard-cluster
# What each slurmd reports (SlurmdParameters=config_overrides): a DGX H100, whatever the host.
_RG_NODE_HW="Sockets=2 CoresPerSocket=56 ThreadsPerCore=2 RealMemory=2000000"
# slurm.conf keys that may appear many times; --conf-extra adds to them instead of overriding.
_RG_MULTI_KEYS=" nodename partitionname nodeset downnodes frontendname include "

# ----------------------------------------------------------------------------- sourced API

# rg_cluster_start [--no-trap] START-OPTIONS...
# Starts a cluster (see `cluster.sh help`), exports SLURM_CONF and RAILGUARD_CLUSTER_DIR (and
# PATH with --slurm-bin), and traps EXIT, INT, TERM and HUP to tear it down, replacing the
# caller's traps for those; --no-trap leaves traps to the caller. Returns 1 on failure, after
# the failed start has removed what it created.
rg_cluster_start() {
  local trap=1 dir
  local -a opts=()
  # A cluster inherited from the caller's shell must not be the one a failed start stops.
  unset RAILGUARD_CLUSTER_DIR SLURM_CONF
  while [ $# -gt 0 ]; do
    if [ "$1" = --no-trap ]; then trap=0; else opts+=("$1"); fi
    shift
  done
  if [ "$trap" = 1 ]; then
    # Installed first so that a Ctrl-C right after the start still tears down.
    trap 'rg_cluster_stop' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
  fi
  dir=$(bash "$_RG_HARNESS_SELF" start --print-dir "${opts[@]}") || return 1
  export RAILGUARD_CLUSTER_DIR="$dir"
  export SLURM_CONF="$dir/slurm.conf"
  if [ -s "$dir/slurm-bin" ]; then
    PATH="$(cat "$dir/slurm-bin"):$PATH"
    export PATH
  fi
}

# rg_cluster_stop: stops the cluster of $RAILGUARD_CLUSTER_DIR and removes its directory, or
# keeps it when RAILGUARD_KEEP_CLUSTER=1. Safe to call twice; preserves $?.
rg_cluster_stop() {
  local rc=$? dir=${RAILGUARD_CLUSTER_DIR:-}
  local -a stop_opts=()
  [ "${RAILGUARD_KEEP_CLUSTER:-0}" = 1 ] && stop_opts=(--keep)
  if [ -n "$dir" ]; then
    bash "$_RG_HARNESS_SELF" stop --dir "$dir" "${stop_opts[@]}"
    unset RAILGUARD_CLUSTER_DIR SLURM_CONF
  fi
  return "$rc"
}

# rg_cluster_status: sinfo and daemon liveness of $RAILGUARD_CLUSTER_DIR.
rg_cluster_status() {
  bash "$_RG_HARNESS_SELF" status "$@"
}

# rg_cluster_kill NAME [SIGNAL]: sends SIGNAL (default KILL) to daemon NAME (slurmctld or
# slurmd.<node>) of $RAILGUARD_CLUSTER_DIR and waits until it is gone. Returns 1 if it was not
# running or did not go.
rg_cluster_kill() {
  bash "$_RG_HARNESS_SELF" kill --dir "${RAILGUARD_CLUSTER_DIR:?no cluster}" "$@"
}

# rg_cluster_respawn NAME: starts daemon NAME of $RAILGUARD_CLUSTER_DIR again with the command
# line of the start (slurmctld recovers its StateSaveLocation, slurmd its spool). Returns once
# slurmctld answers a ping, or once slurmd listens on its port; 1 if it exits first.
rg_cluster_respawn() {
  bash "$_RG_HARNESS_SELF" respawn --dir "${RAILGUARD_CLUSTER_DIR:?no cluster}" "$@"
}

# rg_cluster_on NODE COMMAND [ARG...]: runs COMMAND as on NODE of $RAILGUARD_CLUSTER_DIR. On
# a --configless cluster that is inside the file system its slurmd sees (its own /etc and
# /run: no /etc/slurm, the --node-etc files, /run/slurm/conf linked to its conf-cache) and
# without SLURM_CONF, as an admin's shell on a configless node; elsewhere COMMAND just runs.
# Returns COMMAND's exit status.
rg_cluster_on() {
  local node=$1
  shift
  bash "$_RG_HARNESS_SELF" on --dir "${RAILGUARD_CLUSTER_DIR:?no cluster}" "$node" -- "$@"
}

# rg_release_tools VERSION: the folder of railctl and railcheck built for Slurm release
# VERSION (their libslurm must be that release's: slurmctld refuses older RPCs):
# $RAILGUARD_TOOLS_DIR when set (to try other builds), else slurm-tools-VERSION of
# $RAILGUARD_BINARY_DIR (default <repo>/build).
rg_release_tools() {
  echo "${RAILGUARD_TOOLS_DIR:-${RAILGUARD_BINARY_DIR:-$_RG_REPO/build}/slurm-tools-$1}"
}

# rg_skip_unbuilt NAME VERSION PATH...: for test NAME on Slurm release VERSION. When that
# release is not installed under $RAILGUARD_SLURM_ROOT (default /opt/railguard) or a PATH
# (what railguard builds for it) is missing, prints one line "NAME: skipped: ..." and exits 0.
rg_skip_unbuilt() {
  local name=$1 version=$2 path
  local prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$2
  local -a missing=()
  shift 2
  [ -x "$prefix/sbin/slurmctld" ] || missing+=("Slurm $version in $prefix")
  for path in "$@"; do
    [ -e "$path" ] || missing+=("$path")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  echo "$name: skipped: no ${missing[*]} (scripts/build_slurm.sh $version, then rebuild)"
  exit 0
}

# ----------------------------------------------------------------------------- helpers

_rg_log() { echo "cluster.sh: $*" >&2; }

_rg_die() {
  echo "cluster.sh: error: $*" >&2
  exit 1
}

_rg_usage() {
  cat <<'USAGE'
usage: cluster.sh start --topo FILE.yaml [options]    start; print lines to eval
       cluster.sh run --topo FILE.yaml [options] -- COMMAND [ARG...]
                                                     start, run COMMAND in it, stop
       cluster.sh stop [--dir DIR] [--keep]           stop a run (default $RAILGUARD_CLUSTER_DIR)
       cluster.sh status [--dir DIR]                  sinfo and daemon liveness
       cluster.sh kill [--dir DIR] NAME [SIGNAL]      signal a daemon (slurmctld, slurmd.<node>;
                                                     default KILL) and wait until it is gone
       cluster.sh respawn [--dir DIR] NAME            start that daemon again as start did
       cluster.sh on [--dir DIR] NODE -- COMMAND [ARG...]
                                                     run COMMAND as on NODE (--configless:
                                                     in its slurmd's file system, no SLURM_CONF)
       source cluster.sh; rg_cluster_start [--no-trap] --topo FILE.yaml [options]

start options:
  --topo FILE.yaml            rail topology; nodes come from `railctl topology show --format nodes`
  --dir DIR                   run directory (must be empty or absent; default mktemp under /tmp)
  --topology-plugin tree|block|none|rail
                              tree (default): topology.conf from `railctl topology export
                              --format tree`; block (Slurm 23.11+): topology/block with
                              `--format block`; none: topology/none; rail: topology/rail
  --plugin-dir DIR            put DIR first in PluginDir (before the Debian plugin dir)
  --conf-extra FILE           append FILE to slurm.conf; its keys replace the generated ones
  --railguard-conf FILE       copy FILE to <dir>/railguard.yaml (beside slurm.conf, where the
                              plugins look); with --topology-plugin rail and no FILE, a
                              one-line railguard.yaml naming <dir>/topology.yaml is written
                              (rail-topology.yaml on Slurm 25.05+, which reads topology.yaml)
  --slurm-bin DIR             Slurm commands and daemons from DIR (or DIR/bin + DIR/sbin)
  --slurm-prefix DIR          a Slurm installed under DIR (scripts/build_slurm.sh): commands
                              and daemons from DIR/bin + DIR/sbin, PluginDir DIR/lib/slurm
                              instead of the Debian plugin dir (see _rg_version_layout)
  --slurm-version VERSION     --slurm-prefix $RAILGUARD_SLURM_ROOT/slurm-VERSION (default
                              root /opt/railguard), e.g. 24.11.5
  --slurm-topology-yaml FILE  Slurm 25.05+: copy FILE to <dir>/topology.yaml, Slurm's own
                              topology file (it then ignores TopologyPlugin and topology.conf;
                              partitions pick one of its topologies with Topology=)
  --railctl PATH              railctl to use (default: with --slurm-prefix/--slurm-version,
                              that release's slurm-tools-VERSION/railctl when built; else
                              $RAILGUARD_BINARY_DIR/railctl, then <repo>/build/railctl)
  --configless                SlurmctldParameters=enable_configless; every slurmd starts with
                              --conf-server localhost:<port>, no -f and no SLURM_CONF, and
                              keeps its conf-cache in its SlurmdSpoolDir; each runs in a file
                              system of its own (node_root.sh: no /etc/slurm, a private /run)
  --node-etc DIR              with --configless: DIR's files appear in every node's /etc (e.g.
                              DIR/railguard/railguard.yaml is the node's
                              /etc/railguard/railguard.yaml)
  --cloud                     no slurmd: every node is State=CLOUD (powered down, idle~),
                              with a no-op ResumeProgram and SuspendProgram and a ResumeTimeout
                              of 18 h, so jobs given nodes stay CONFIGURING on them; for
                              slurmctld-only benchmarks of thousands of nodes (no port per
                              node, no fake GPU files: Gres comes from slurm.conf alone)
  --node-features LIST        more features for every node's Features= in slurm.conf, after
                              its SU's (comma list of names, e.g. rail_healthy: as a site
                              that lists railguard's healthy feature there)
  --timeout SECONDS           how long to wait for every node to be idle (default 90)
  --keep                      keep the run directory when the start fails (for its logs)
  --foreground                stay in the foreground after printing; Ctrl-C or TERM stops
  --print-dir                 print only the run directory instead of shell lines
USAGE
}

# _rg_elapsed: seconds since the start began, with 0.1 s precision.
_rg_elapsed() {
  local now=${EPOCHREALTIME/./}
  local ms=$(((now - _rg_t0) / 1000))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

_rg_usage_die() {
  echo "cluster.sh: $*" >&2
  _rg_usage >&2
  exit 2
}

# _rg_need_value OPTION ARGS...: fails unless OPTION is followed by a value.
_rg_need_value() {
  [ $# -ge 2 ] || _rg_usage_die "$1 needs a value"
}

_rg_abspath() {
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}

# _rg_tail FILE [LINES]: the last lines of a log, indented, for failure messages.
_rg_tail() {
  local file=$1 lines=${2:-20}
  if [ -s "$file" ]; then
    echo "---- last $lines lines of $file" >&2
    tail -n "$lines" "$file" | sed 's/^/    /' >&2
  fi
}

# _rg_tail_daemon LOG OUT [LINES]: the daemon's log file, or, when it never got to open it
# (bad slurm.conf, missing plugin), what it wrote to stderr.
_rg_tail_daemon() {
  if [ -s "$1" ]; then _rg_tail "$1" "${3:-20}"; else _rg_tail "$2" "${3:-20}"; fi
}

# _rg_running PID: true if PID exists and is not a zombie (a daemon that died while still our
# child stays a zombie, which `kill -0` would call alive). Builtins only: polled often.
_rg_running() {
  local stat
  [[ $1 =~ ^[0-9]+$ ]] || return 1
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# _rg_alive PID DIR: true if PID runs and belongs to the run in DIR (it carries the marker
# variable every daemon of the run is started with), so a recycled pid is never touched.
_rg_alive() {
  _rg_running "$1" && grep -qzxF "RAILGUARD_HARNESS_RUN=$2" "/proc/$1/environ" 2>/dev/null
}

# _rg_pidfile_alive FILE DIR: true if the pid in FILE is a live process of the run.
_rg_pidfile_alive() {
  local pid
  [ -s "$1" ] || return 1
  read -r pid <"$1" || true
  _rg_alive "$pid" "$2"
}

# _rg_child_running NAME: true if the daemon this start spawned as NAME still runs.
_rg_child_running() {
  local pid
  read -r pid <"$_rg_dir/pids/$1" || return 1
  _rg_running "$pid"
}

# _rg_load_tools DIR: fills _rg_tool from the tool paths a start recorded (sinfo=...).
_rg_load_tools() {
  local key value
  while IFS='=' read -r key value; do
    _rg_tool[$key]=$value
  done <"$1/tools"
}

# _rg_find_tool NAME: prints the path of a Slurm or munge program (--slurm-bin first).
_rg_find_tool() {
  local name=$1 d
  if [ -n "${_rg_slurm_bin:-}" ] && [[ $name != *munge* ]]; then
    for d in "$_rg_slurm_bin" "$_rg_slurm_bin/bin" "$_rg_slurm_bin/sbin" \
      "$_rg_slurm_bin/../bin" "$_rg_slurm_bin/../sbin"; do
      if [ -x "$d/$name" ]; then
        readlink -f "$d/$name"
        return 0
      fi
    done
    _rg_die "$name not found in --slurm-bin $_rg_slurm_bin (nor its bin/, sbin/, ../bin, ../sbin)"
  fi
  PATH="$PATH:/usr/sbin:/sbin" command -v "$name" ||
    _rg_die "$name not found in PATH or /usr/sbin (run scripts/setup.sh)"
}

# ----------------------------------------------------------------------------- ports

_rg_port_registry() { printf '%s\n' "${TMPDIR:-/tmp}/railguard-harness-ports"; }

# _rg_claim_ports COUNT DIR: sets _rg_ports to COUNT TCP ports that nothing listens on and no
# other live run has claimed, below the kernel's ephemeral range (outgoing connections never
# take them). The claim is a file in a shared registry, released by stop.
_rg_claim_ports() {
  local want=$1 dir=$2 reg lockfd lo hi eph p f owner span start i
  reg=$(_rg_port_registry)
  mkdir -p "$reg"
  exec {lockfd}>"$reg/lock"
  flock -w 60 "$lockfd" || _rg_die "could not lock $reg/lock within 60 s"
  local -A used=()
  while read -r p; do
    used[$p]=1
  done < <(ss -Htln | awk '{ n = split($4, a, ":"); print a[n] }')
  for f in "$reg"/*.claim; do
    # A run that stops releases its claim without this lock (stop must not wait on it): a
    # claim may vanish between the glob and the read, and its ports are then free. CI failed
    # a start on "head: cannot open ....claim" with four tests starting and stopping at once.
    owner=$(head -n 1 "$f" 2>/dev/null) || continue
    if [ -e "$owner/$_RG_MARKER" ]; then
      while read -r p; do used[$p]=1; done < <(tail -n +2 "$f" 2>/dev/null)
    else
      rm -f "$f"  # its run is gone
    fi
  done
  read -r eph _ </proc/sys/net/ipv4/ip_local_port_range
  lo=10000
  hi=$((eph - 1))
  [ "$hi" -gt $((lo + want)) ] || { lo=$((eph > 61000 ? 1024 : 61000)); hi=65535; }
  span=$((hi - lo + 1))
  start=$(((RANDOM * 32768 + RANDOM) % span))
  _rg_ports=()
  for ((i = 0; i < span && ${#_rg_ports[@]} < want; i++)); do
    p=$((lo + (start + i) % span))
    [ -n "${used[$p]:-}" ] || _rg_ports+=("$p")
  done
  [ "${#_rg_ports[@]}" -eq "$want" ] ||
    _rg_die "found only ${#_rg_ports[@]} free ports in $lo-$hi, need $want"
  f="$reg/$(printf '%s' "$dir" | md5sum | cut -c1-16).claim"
  printf '%s\n' "$dir" "${_rg_ports[@]}" >"$f"
  printf '%s\n' "$f" >"$dir/ports.claim"
  exec {lockfd}>&-
}

_rg_release_ports() {
  local dir=$1 f
  [ -s "$dir/ports.claim" ] || return 0
  read -r f <"$dir/ports.claim"
  [[ $f == "$(_rg_port_registry)"/*.claim ]] && rm -f "$f"
  rm -f "$dir/ports.claim"
}

# ----------------------------------------------------------------------------- stop

# _rg_descendants PID...: the given pids and all their descendants, one per line.
_rg_descendants() {
  ps -e -o pid=,ppid= | awk -v roots="$*" '
    { kids[$2] = kids[$2] " " $1 }
    END {
      n = split(roots, q, " ")
      for (i = 1; i <= n; i++) seen[q[i]] = 1
      for (i = 1; i <= n; i++) {
        m = split(kids[q[i]], k, " ")
        for (j = 1; j <= m; j++) if (!(k[j] in seen)) { seen[k[j]] = 1; q[++n] = k[j] }
      }
      for (p in seen) print p
    }'
}

# _rg_term_wait SECONDS NAME=PID...: sends TERM to each PID, waits up to SECONDS for all to
# exit, then KILLs the rest, naming them.
_rg_term_wait() {
  local secs=$1 arg i names
  shift
  local -a left=("$@")
  [ "$#" -gt 0 ] || return 0
  kill -TERM "${@#*=}" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    left=()
    for arg in "$@"; do
      if _rg_running "${arg#*=}"; then left+=("$arg"); fi
    done
    [ "${#left[@]}" -gt 0 ] || return 0
    sleep 0.1
  done
  names="${left[*]%%=*}"
  _rg_log "killing what ignored SIGTERM for $secs s: $names"
  kill -KILL "${left[@]#*=}" 2>/dev/null || true
}

# _rg_kill_run DIR: ends every process of the run, in an order that keeps each step quick:
# slurmctld first (once job steps die under it, its shutdown waits ~10 s on RPC agents),
# then job steps with KILL (slurmstepd ignores TERM): anything that inherited the run
# marker without being one of our daemons (slurmstepd gets it from slurmd) and everything
# below it; then the slurmds; munged last, as the others need it until they exit.
_rg_kill_run() {
  local dir=$1 f pid name
  local -a ctld=() slurmds=() munged=() steps=()
  local -A marked=() is_daemon=()
  while read -r f; do
    pid=${f#/proc/}
    marked[${pid%/environ}]=1
  done < <(grep -lzxF "RAILGUARD_HARNESS_RUN=$dir" /proc/[0-9]*/environ 2>/dev/null || true)
  for f in "$dir"/pids/*; do
    [ -s "$f" ] || continue
    read -r pid <"$f" || true
    # Only a pid that carries the marker: a recycled pid is never touched.
    if [ -z "${marked[$pid]:-}" ] || ! _rg_running "$pid"; then continue; fi
    name=${f##*/}
    is_daemon[$pid]=1
    case $name in
      slurmctld) ctld+=("$name=$pid") ;;
      munged) munged+=("$name=$pid") ;;
      *) slurmds+=("$name=$pid") ;;
    esac
  done
  _rg_term_wait "${RAILGUARD_CTLD_STOP_SECONDS:-5}" "${ctld[@]}"
  for pid in "${!marked[@]}"; do
    [ -n "${is_daemon[$pid]:-}" ] || steps+=("$pid")
  done
  if [ "${#steps[@]}" -gt 0 ]; then
    mapfile -t steps < <(_rg_descendants "${steps[@]}")
    kill -KILL "${steps[@]}" 2>/dev/null || true
  fi
  _rg_term_wait 10 "${slurmds[@]}"
  _rg_term_wait 5 "${munged[@]}"
}

# _rg_stop_dir DIR KEEP: stops the run in DIR and removes DIR unless KEEP is 1.
_rg_stop_dir() {
  local dir=$1 keep=$2
  if [ ! -d "$dir" ]; then
    _rg_log "nothing to stop: $dir does not exist"
    return 0
  fi
  [ -e "$dir/$_RG_MARKER" ] ||
    _rg_die "$dir is not a cluster.sh run directory (no $_RG_MARKER); not touching it"
  _rg_kill_run "$dir"
  _rg_release_ports "$dir"
  if [ "$keep" = 1 ]; then
    _rg_log "stopped; kept $dir"
  else
    rm -rf -- "$dir"
  fi
}

_rg_cmd_stop() {
  local dir=${RAILGUARD_CLUSTER_DIR:-} keep=0
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) _rg_need_value "$@"; dir=$2; shift 2 ;;
      --keep) keep=1; shift ;;
      *) _rg_usage_die "stop: unknown option $1" ;;
    esac
  done
  [ -n "$dir" ] || _rg_usage_die "stop needs --dir DIR or RAILGUARD_CLUSTER_DIR"
  _rg_stop_dir "$(_rg_abspath "$dir")" "$keep"
}

# ----------------------------------------------------------------------------- status

_rg_cmd_status() {
  local dir=${RAILGUARD_CLUSTER_DIR:-} f n=0 up=0
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) _rg_need_value "$@"; dir=$2; shift 2 ;;
      *) _rg_usage_die "status: unknown option $1" ;;
    esac
  done
  [ -n "$dir" ] || _rg_usage_die "status needs --dir DIR or RAILGUARD_CLUSTER_DIR"
  dir=$(_rg_abspath "$dir")
  [ -e "$dir/$_RG_MARKER" ] || _rg_die "$dir is not a cluster.sh run directory"
  _rg_load_tools "$dir"
  for f in "$dir"/pids/slurmd.*; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    if _rg_pidfile_alive "$f" "$dir"; then up=$((up + 1)); fi
  done
  echo "run dir:   $dir"
  echo "munged:    $(_rg_pidfile_alive "$dir/pids/munged" "$dir" && echo up || echo DOWN)"
  echo "slurmctld: $(_rg_pidfile_alive "$dir/pids/slurmctld" "$dir" && echo up || echo DOWN)"
  echo "slurmd:    $up of $n running"
  SLURM_CONF="$dir/slurm.conf" "${_rg_tool[sinfo]}"
}

# ----------------------------------------------------------------------------- kill, respawn

# _rg_daemon_cmd DIR NAME: sets _rg_cmd to the command line that starts daemon NAME
# (slurmctld, slurmd.<node>) of the run in DIR, _rg_out to the file for its stderr and
# _rg_logfile to its log. Neither daemon gets -c: one started again recovers what the killed
# one saved (StateSaveLocation; the spool with its running steps), as after a crash.
_rg_daemon_cmd() {
  local dir=$1 name=$2 node
  case $name in
    slurmctld)
      _rg_cmd=("${_rg_tool[slurmctld]}" -D -f "$dir/slurm.conf")
      _rg_out=$dir/ctld/slurmctld.out
      _rg_logfile=$dir/ctld/slurmctld.log
      ;;
    slurmd.?*)
      node=${name#slurmd.}
      _rg_cmd=("${_rg_tool[slurmd]}" -D -N "$node" -f "$dir/slurm.conf")
      if [ -s "$dir/configless" ]; then
        # As on a configless node: slurm.conf from slurmctld, in the node's own file system.
        _rg_cmd=(env -u SLURM_CONF unshare --mount --propagation private --
          bash "$(dirname "$_RG_HARNESS_SELF")/node_root.sh" "$dir/nodes/$node/root"
          "$dir/munge/munge.socket" -- "${_rg_tool[slurmd]}" -D -N "$node"
          --conf-server "localhost:$(cat "$dir/configless")")
      fi
      _rg_out=$dir/nodes/$node/slurmd.out
      _rg_logfile=$dir/nodes/$node/slurmd.log
      ;;
    *) _rg_usage_die "expected slurmctld or slurmd.<node>, got '$name'" ;;
  esac
}

# _rg_run_dir_arg ARGS...: the run directory of a kill/respawn command line (--dir DIR, else
# $RAILGUARD_CLUSTER_DIR) into _rg_dir and the rest into _rg_args; fails unless it is one.
_rg_run_dir_arg() {
  _rg_dir=${RAILGUARD_CLUSTER_DIR:-}
  _rg_args=()
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) _rg_need_value "$@"; _rg_dir=$2; shift 2 ;;
      *) _rg_args+=("$1"); shift ;;
    esac
  done
  [ -n "$_rg_dir" ] || _rg_usage_die "needs --dir DIR or RAILGUARD_CLUSTER_DIR"
  _rg_dir=$(_rg_abspath "$_rg_dir")
  [ -e "$_rg_dir/$_RG_MARKER" ] || _rg_die "$_rg_dir is not a cluster.sh run directory"
  [ "${#_rg_args[@]}" -eq 0 ] || [[ ${_rg_args[0]} != slurmd.* ]] ||
    grep -qxF -- "${_rg_args[0]#slurmd.}" "$_rg_dir/nodes.txt" ||
    _rg_die "no node '${_rg_args[0]#slurmd.}' in $_rg_dir/nodes.txt"
}

# cluster.sh kill [--dir DIR] NAME [SIGNAL]
_rg_cmd_kill() {
  local name sig pid i
  _rg_run_dir_arg "$@"
  case ${#_rg_args[@]} in
    1 | 2) ;;
    *) _rg_usage_die "kill needs NAME [SIGNAL]" ;;
  esac
  name=${_rg_args[0]}
  sig=${_rg_args[1]:-KILL}
  _rg_load_tools "$_rg_dir"
  _rg_daemon_cmd "$_rg_dir" "$name"
  _rg_pidfile_alive "$_rg_dir/pids/$name" "$_rg_dir" || _rg_die "$name is not running"
  read -r pid <"$_rg_dir/pids/$name"
  kill -s "$sig" "$pid" || _rg_die "kill -s $sig $pid ($name) failed"
  for ((i = 0; i < 300; i++)); do
    _rg_running "$pid" || return 0
    sleep 0.1
  done
  _rg_die "$name (pid $pid) still runs 30 s after SIG$sig"
}

# cluster.sh respawn [--dir DIR] NAME
_rg_cmd_respawn() {
  local name pid port i
  _rg_run_dir_arg "$@"
  [ "${#_rg_args[@]}" -eq 1 ] || _rg_usage_die "respawn needs NAME"
  name=${_rg_args[0]}
  _rg_load_tools "$_rg_dir"
  _rg_daemon_cmd "$_rg_dir" "$name"
  ! _rg_pidfile_alive "$_rg_dir/pids/$name" "$_rg_dir" || _rg_die "$name is still running"
  _rg_spawn "$name" "$_rg_out" "${_rg_cmd[@]}"
  if [ "$name" = slurmctld ]; then
    port=$(sed -n 's/^SlurmctldPort=//p' "$_rg_dir/slurm.conf")
  else
    port=$(sed -n "s/^NodeName=${name#slurmd.} .* Port=\([0-9]*\).*/\1/p" "$_rg_dir/slurm.conf")
  fi
  for ((i = 0; i < 300; i++)); do
    if ! _rg_child_running "$name"; then
      _rg_tail_daemon "$_rg_logfile" "$_rg_out"
      _rg_die "$name exited right after it was started again"
    fi
    if [ "$name" = slurmctld ]; then
      SLURM_CONF="$_rg_dir/slurm.conf" "${_rg_tool[scontrol]}" ping 2>/dev/null |
        grep -q 'is UP' && break
    elif [ -n "$(ss -Htln "sport = :$port" 2>/dev/null)" ]; then
      break
    fi
    sleep 0.1
  done
  [ "$i" -lt 300 ] || _rg_die "$name did not answer within 30 s of its start"
  read -r pid <"$_rg_dir/pids/$name"
  _rg_log "$name started again (pid $pid)"
}

# cluster.sh on [--dir DIR] NODE -- COMMAND [ARG...]: only a --dir before NODE is ours.
_rg_cmd_on() {
  local node pid
  local -a pre=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    pre+=("$1")
    shift
  done
  _rg_run_dir_arg "${pre[@]}"
  [ "${#_rg_args[@]}" -eq 1 ] && [ $# -ge 2 ] || _rg_usage_die "on needs NODE -- COMMAND [ARG...]"
  node=${_rg_args[0]}
  shift
  grep -qxF -- "$node" "$_rg_dir/nodes.txt" || _rg_die "no node '$node' in $_rg_dir/nodes.txt"
  [ -s "$_rg_dir/configless" ] || exec "$@"
  _rg_pidfile_alive "$_rg_dir/pids/slurmd.$node" "$_rg_dir" || _rg_die "slurmd.$node is not running"
  read -r pid <"$_rg_dir/pids/slurmd.$node"
  # setns(2) into a mount namespace also moves the working directory to its root.
  exec env -u SLURM_CONF nsenter --mount="/proc/$pid/ns/mnt" -- "$@"
}

# ----------------------------------------------------------------------------- start

# _rg_read_nodes RAILCTL TOPO: fills _rg_nodes, _rg_node_su and _rg_node_gpus from
# `railctl topology show TOPO --format nodes` (`<node> <su> <node_type> <gpus>` per line).
_rg_read_nodes() {
  local railctl=$1 topo=$2 out node su type gpus extra lineno=0
  local -A seen=()
  out=$("$railctl" topology show "$topo" --format nodes) ||
    _rg_die "'$railctl topology show $topo --format nodes' failed (exit $?)"
  _rg_nodes=()
  _rg_node_su=()
  _rg_node_gpus=()
  while read -r node su type gpus extra; do
    lineno=$((lineno + 1))
    if [ -z "$node" ] || [[ $node == '#'* ]]; then continue; fi
    local where="railctl topology show --format nodes, line $lineno"
    if [ -z "$gpus" ] || [ -n "$extra" ]; then
      _rg_die "$where: expected '<node> <su> <node_type> <gpus>', got '$node $su $type $gpus $extra'"
    fi
    [[ $node =~ ^[A-Za-z0-9][A-Za-z0-9_-]*$ ]] || _rg_die "$where: bad node name '$node'"
    [[ $su =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || _rg_die "$where: bad SU name '$su'"
    [[ $gpus =~ ^[0-9]+$ ]] || _rg_die "$where: gpus must be a number, got '$gpus'"
    [ -z "${seen[$node]:-}" ] || _rg_die "$where: node $node listed twice"
    seen[$node]=1
    _rg_nodes+=("$node")
    _rg_node_su+=("$su")
    _rg_node_gpus+=("$gpus")
  done <<<"$out"
  [ "${#_rg_nodes[@]}" -gt 0 ] || _rg_die "railctl listed no nodes for $topo"
}

# _rg_fake_gpus: creates nodes/<node>/dev/nvidia0..N-1 for every node, the fake GPU device
# files. Slurm's gres plugins drop a File= that is not a character or block device (and then
# set no CUDA_VISIBLE_DEVICES), so they are device nodes with the numbers of /dev/null:
# opening one is as harmless as opening /dev/null. Per node so that a test can take one GPU
# away from one node. The nodes are made once in dev-template/ and hard-linked by a single
# perl (perl-base is Essential in Debian): one process per file costs seconds on 2 cores.
# Without CAP_MKNOD they are plain files, with a warning.
_rg_fake_gpus() {
  local max=0 g gpus
  for gpus in "${_rg_node_gpus[@]}"; do [ "$gpus" -le "$max" ] || max=$gpus; done
  mkdir -p "$_rg_dir/dev-template"
  for ((g = 0; g < max; g++)); do
    if ! mknod -m 0666 "$_rg_dir/dev-template/nvidia$g" c 1 3 2>/dev/null; then
      [ "$g" -gt 0 ] ||
        _rg_log "warning: mknod failed; fake GPUs are plain files, jobs get no CUDA_VISIBLE_DEVICES"
      : >"$_rg_dir/dev-template/nvidia$g"
    fi
  done
  local -a args=()
  for g in "${!_rg_nodes[@]}"; do
    args+=("$_rg_dir/nodes/${_rg_nodes[$g]}/dev" "${_rg_node_gpus[$g]}")
  done
  # shellcheck disable=SC2016  # perl code, not shell
  perl -e 'my $t = shift;
    while (my ($dir, $n) = splice(@ARGV, 0, 2)) {
      mkdir $dir or die "mkdir $dir: $!\n";
      for my $g (0 .. $n - 1) { link "$t/nvidia$g", "$dir/nvidia$g" or die "link $dir/nvidia$g: $!\n" }
    }' "$_rg_dir/dev-template" "${args[@]}" || _rg_die "could not create the fake GPU device files"
}

# _rg_version_layout: what differs between Slurm releases in the run directory, all in one
# place. Sets _rg_topo_copy, the name of the rail topology's copy beside slurm.conf:
# topology.yaml, except on 25.05 and later, which read a topology.yaml there as their own
# topology config (so the copy is rail-topology.yaml, and a railguard.yaml naming
# topology.yaml is pointed at it). slurm.conf itself is the same for 22.05, 24.11 and 25.11.
# Refuses topology/block before 23.11, which has none.
_rg_version_layout() {
  local major=${_rg_slurm_version%%.*} minor=${_rg_slurm_version#*.}
  minor=${minor%%.*}
  _rg_topo_copy=topology.yaml
  if [ "$major" -gt 25 ] || { [ "$major" -eq 25 ] && [ "$((10#$minor))" -ge 5 ]; }; then
    _rg_topo_copy=rail-topology.yaml
  fi
  if [ "$_rg_topology_plugin" = block ] &&
    { [ "$major" -lt 23 ] || { [ "$major" -eq 23 ] && [ "$((10#$minor))" -lt 11 ]; }; }; then
    _rg_die "--topology-plugin block needs Slurm 23.11 or later (topology/block); this is $_rg_slurm_version"
  fi
}

# _rg_write_conf: writes slurm.conf, gres.conf, topology.conf and the fake GPU devices.
_rg_write_conf() {
  local dir=$_rg_dir
  local conf="$dir/slurm.conf.base" plugin_path=$_RG_DEBIAN_PLUGIN_DIR topo_plugin
  [ -z "$_rg_slurm_prefix" ] || plugin_path=$_rg_slurm_prefix/lib/slurm
  [ -z "$_rg_plugin_dir" ] || plugin_path="$_rg_plugin_dir:$plugin_path"
  case $_rg_topology_plugin in
    tree) topo_plugin=topology/tree ;;
    block) topo_plugin=topology/block ;;
    none) topo_plugin=topology/none ;;
    rail) topo_plugin=topology/rail ;;
  esac
  cat >"$conf" <<EOF
# Generated by tests/harness/cluster.sh from $_rg_topo
# Run directory: $dir
ClusterName=railguard
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=${_rg_ports[0]}
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
PluginDir=$plugin_path
StateSaveLocation=$dir/ctld/state
SlurmctldPidFile=$dir/ctld/slurmctld.pid
SlurmctldLogFile=$dir/ctld/slurmctld.log
SlurmctldDebug=info
SlurmdSpoolDir=$dir/nodes/%n/spool
SlurmdPidFile=$dir/nodes/%n/slurmd.pid
SlurmdLogFile=$dir/nodes/%n/slurmd.log
SlurmdDebug=info
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2
TopologyPlugin=$topo_plugin
GresTypes=gpu
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
# Short timeouts: daemons are local and tests should fail fast.
SlurmctldTimeout=10
SlurmdTimeout=30
MessageTimeout=10
BatchStartTimeout=10
KillWait=2
InactiveLimit=0
Waittime=0
# Finished jobs stay visible to 'scontrol show job' for 10 minutes (no accounting here).
MinJobAge=600
EOF
  [ -z "$_rg_configless" ] || echo "SlurmctldParameters=enable_configless" >>"$conf"
  : >"$dir/gres.conf"
  echo "AutoDetect=off" >>"$dir/gres.conf"
  if [ -n "$_rg_cloud" ]; then
    _rg_write_cloud_nodes "$conf"
  else
    _rg_write_slurmd_nodes "$conf"
  fi
  echo "PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$conf"
  _rg_write_conf_rest "$conf"
}

# _rg_write_slurmd_nodes CONF: a node line per node (its slurmd's port), gres.conf and the
# fake GPU devices.
_rg_write_slurmd_nodes() {
  local conf=$1 dir=$_rg_dir i node gpus last line
  local -a spools=()
  for node in "${_rg_nodes[@]}"; do spools+=("$dir/nodes/$node/spool"); done
  mkdir -p "${spools[@]}"
  _rg_fake_gpus
  for i in "${!_rg_nodes[@]}"; do
    node=${_rg_nodes[$i]}
    gpus=${_rg_node_gpus[$i]}
    line="NodeName=$node NodeHostname=localhost NodeAddr=127.0.0.1 Port=${_rg_ports[$((i + 1))]}"
    line+=" $_RG_NODE_HW Features=${_rg_node_su[$i]}${_rg_node_features:+,$_rg_node_features}"
    if [ "$gpus" -gt 0 ]; then
      line+=" Gres=gpu:$gpus"
      last=$((gpus - 1))
      if [ "$last" -eq 0 ]; then
        echo "NodeName=$node Name=gpu File=$dir/nodes/$node/dev/nvidia0" >>"$dir/gres.conf"
      else
        echo "NodeName=$node Name=gpu File=$dir/nodes/$node/dev/nvidia[0-$last]" >>"$dir/gres.conf"
      fi
    fi
    echo "$line State=UNKNOWN" >>"$conf"
  done
}

# _rg_write_cloud_nodes CONF (--cloud): power saving with no-op programs, and every node
# State=CLOUD with its GPUs in Gres= only (slurmctld never asks a cloud node for gres.conf),
# at 127.0.0.1 so that nothing resolves 4,096 host names.
# SuspendTime must be positive for Slurm to run its power-save thread, which resumes cloud
# nodes; a day keeps the idle ones from being suspended during a run. ResumeTimeout is a
# uint16 in some releases: 65000 s (18 h) fits all. PrivateData=cloud: sinfo and scontrol show
# powered-down cloud nodes (hidden by default).
_rg_write_cloud_nodes() {
  local conf=$1 i line
  cat >>"$conf" <<'EOF'
ResumeProgram=/bin/true
SuspendProgram=/bin/true
ResumeTimeout=65000
ResumeRate=0
SuspendTime=86400
SuspendRate=0
PrivateData=cloud
EOF
  # One line per run of nodes with the same SU and GPUs whose names count up (n0001..n0032
  # as n[0001-0032]), as sites write them: every Slurm client parses slurm.conf, and 4,096
  # node lines cost each sbatch 160 ms of parsing.
  local i name su gpus prefix num run_prefix="" run_first="" run_last="" run_su="" run_gpus=""
  {
    for i in "${!_rg_nodes[@]}"; do
      name=${_rg_nodes[$i]} su=${_rg_node_su[$i]} gpus=${_rg_node_gpus[$i]}
      prefix=$name num=""
      if [[ $name =~ ^(.*[^0-9])([0-9]+)$ ]]; then
        prefix=${BASH_REMATCH[1]} num=${BASH_REMATCH[2]}
      fi
      if [ -n "$num" ] && [ -n "$run_last" ] &&
        [ "$prefix|$su|$gpus|${#num}" = "$run_prefix|$run_su|$run_gpus|${#run_last}" ] &&
        [ "$((10#$num))" -eq "$((10#$run_last + 1))" ]; then
        run_last=$num
        continue
      fi
      _rg_cloud_line "$run_prefix" "$run_first" "$run_last" "$run_su" "$run_gpus"
      run_prefix=$prefix run_first=$num run_last=$num run_su=$su run_gpus=$gpus
    done
    _rg_cloud_line "$run_prefix" "$run_first" "$run_last" "$run_su" "$run_gpus"
  } >>"$conf"
}

# _rg_cloud_line PREFIX FIRST LAST SU GPUS: the CLOUD node line of PREFIX[FIRST-LAST] (PREFIX
# alone when FIRST is empty); nothing for an empty PREFIX.
_rg_cloud_line() {
  local name=$1 line
  [ -n "$1" ] || return 0
  if [ -n "$2" ] && [ "$2" != "$3" ]; then
    name="$1[$2-$3]"
  elif [ -n "$2" ]; then
    name=$1$2
  fi
  line="NodeName=$name NodeHostname=localhost NodeAddr=127.0.0.1 $_RG_NODE_HW Features=$4${_rg_node_features:+,$_rg_node_features}"
  [ "$5" -eq 0 ] || line+=" Gres=gpu:$5"
  echo "$line State=CLOUD"
}

# _rg_write_conf_rest CONF: topology.conf for tree and block, then --conf-extra into
# slurm.conf.
_rg_write_conf_rest() {
  local conf=$1 dir=$_rg_dir line key

  if [ "$_rg_topology_plugin" = tree ] || [ "$_rg_topology_plugin" = block ]; then
    "$_rg_railctl" topology export "$_rg_topo" --format "$_rg_topology_plugin" >"$dir/topology.conf" ||
      _rg_die "'$_rg_railctl topology export $_rg_topo --format $_rg_topology_plugin' failed (exit $?)"
    grep -q '^[[:space:]]*\(SwitchName\|BlockName\)=' "$dir/topology.conf" ||
      _rg_die "railctl topology export --format $_rg_topology_plugin wrote no SwitchName= or BlockName= line"
  fi

  # --conf-extra: appended; generated single-valued keys it sets are commented out so that
  # Slurm does not log "specified more than once" for each of them.
  if [ -z "$_rg_conf_extra" ]; then
    mv "$conf" "$dir/slurm.conf"
    return 0
  fi
  local -A extra_keys=()
  while IFS= read -r line || [ -n "$line" ]; do
    [[ $line =~ ^[[:space:]]*([A-Za-z]+)[[:space:]]*= ]] || continue
    key=${BASH_REMATCH[1],,}
    [[ $_RG_MULTI_KEYS == *" $key "* ]] || extra_keys[$key]=1
  done <"$_rg_conf_extra"
  while IFS= read -r line; do
    if [[ $line =~ ^([A-Za-z]+)= ]] && [ -n "${extra_keys[${BASH_REMATCH[1],,}]:-}" ]; then
      echo "# replaced by --conf-extra: $line"
    else
      echo "$line"
    fi
  done <"$conf" >"$dir/slurm.conf"
  {
    echo "# ---- from --conf-extra $_rg_conf_extra"
    cat "$_rg_conf_extra"
  } >>"$dir/slurm.conf"
  rm -f "$conf"
  [ -z "$_rg_configless" ] || grep -q '^SlurmctldParameters=.*enable_configless' "$dir/slurm.conf" ||
    _rg_die "--configless: the SlurmctldParameters of --conf-extra must include enable_configless"
}

# _rg_node_roots: with --configless, each node's layers over /etc and /run (node_root.sh):
# /etc/slurm whited out (a 0/0 character device) and the --node-etc files in etc/; run/ is
# filled by slurmd (/run/slurm/conf). Needs CAP_MKNOD and overlayfs, as unshare needs
# CAP_SYS_ADMIN: a start as root on a VM or a privileged container.
_rg_node_roots() {
  local node root
  for node in "${_rg_nodes[@]}"; do
    root=$_rg_dir/nodes/$node/root
    mkdir -p "$root/etc" "$root/run"
    mknod "$root/etc/slurm" c 0 0 || _rg_die "--configless: mknod (a whiteout for /etc/slurm) failed"
    [ -z "$_rg_node_etc" ] || cp -a "$_rg_node_etc/." "$root/etc/" ||
      _rg_die "--configless: could not copy --node-etc $_rg_node_etc"
  done
}

# _rg_check_dir_path DIR: fails unless DIR can be a run directory. Paths go unquoted into
# slurm.conf, hence the character set; the longest UNIX socket path is slurmstepd's
# <spool>/<node>_<jobid>.<stepid> and sun_path holds 107 characters (job ids up to 8 digits,
# step ids up to 10), hence the length limit.
_rg_check_dir_path() {
  local dir=$1 longest=0 node
  [[ $dir =~ ^[A-Za-z0-9._/+-]+$ ]] ||
    _rg_die "run directory $dir: only letters, digits and ._/+- can go into slurm.conf"
  for node in "${_rg_nodes[@]}"; do [ "${#node}" -le "$longest" ] || longest=${#node}; done
  [ $((${#dir} + 14 + 2 * longest + 20)) -le 107 ] ||
    _rg_die "run directory path too long for slurmstepd's socket paths (keep it under" \
      "$((107 - 34 - 2 * longest)) characters): $dir"
}

# _rg_spawn NAME LOG COMMAND...: starts a daemon of the run in its own session (so a Ctrl-C
# at the caller's terminal does not reach it) with the run marker in its environment, and
# records its pid in pids/NAME. setsid execs in place: the pid is the daemon's.
_rg_spawn() {
  local name=$1 out=$2
  shift 2
  RAILGUARD_HARNESS_RUN="$_rg_dir" SLURM_CONF="$_rg_dir/slurm.conf" \
    setsid "$@" </dev/null >>"$out" 2>&1 &
  echo "$!" >"$_rg_dir/pids/$name"
}

_rg_start_munged() {
  local dir=$_rg_dir sock="$_rg_dir/munge/munge.socket" i
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge/munge.key"
  _rg_spawn munged "$dir/munge/munged.out" "${_rg_tool[munged]}" --foreground --force \
    --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" --num-threads=4
  for ((i = 0; i < 100; i++)); do
    if [ -S "$sock" ] &&
      "${_rg_tool[munge]}" -n -S "$sock" 2>/dev/null | "${_rg_tool[unmunge]}" -S "$sock" >/dev/null 2>&1; then
      return 0
    fi
    if ! _rg_child_running munged; then
      _rg_tail_daemon "$dir/munge/munged.log" "$dir/munge/munged.out"
      _rg_die "munged exited during startup"
    fi
    sleep 0.1
  done
  _rg_tail "$dir/munge/munged.log"
  _rg_die "munged did not answer on $sock within 10 s"
}

_rg_start_slurmctld() {
  local dir=$_rg_dir i
  _rg_daemon_cmd "$dir" slurmctld
  _rg_spawn slurmctld "$_rg_out" "${_rg_cmd[@]}"
  for ((i = 0; i < 300; i++)); do
    if grep -q 'is UP' < <(SLURM_CONF="$dir/slurm.conf" "${_rg_tool[scontrol]}" ping 2>/dev/null); then
      return 0
    fi
    if ! _rg_child_running slurmctld; then
      _rg_tail_daemon "$dir/ctld/slurmctld.log" "$dir/ctld/slurmctld.out"
      _rg_die "slurmctld exited during startup"
    fi
    sleep 0.1
  done
  _rg_tail "$dir/ctld/slurmctld.log"
  _rg_die "slurmctld did not answer 'scontrol ping' within 30 s"
}

# _rg_fail_node NODE WHAT: reports a node that did not come up, with its logs, and exits.
_rg_fail_node() {
  local node=$1 what=$2
  _rg_tail_daemon "$_rg_dir/nodes/$node/slurmd.log" "$_rg_dir/nodes/$node/slurmd.out"
  _rg_die "$what"
}

# _rg_wait_idle [STATE]: waits until sinfo shows every node in STATE (default idle; --cloud:
# idle~); on failure names the first node that is not, with its slurmd log.
_rg_wait_idle() {
  local want=${1:-idle}
  local dir=$_rg_dir deadline=$((SECONDS + _rg_timeout)) states idle node i n=${#_rg_nodes[@]}
  local -a bad=()
  while :; do
    states=$(SLURM_CONF="$dir/slurm.conf" timeout 20 "${_rg_tool[sinfo]}" -h -N -o '%N %t' 2>/dev/null) ||
      states=""
    idle=$(awk -v want="$want" '$2 == want { print $1 }' <<<"$states" | sort -u | wc -l)
    [ "$idle" -lt "$n" ] || return 0
    _rg_child_running slurmctld || {
      _rg_tail_daemon "$dir/ctld/slurmctld.log" "$dir/ctld/slurmctld.out"
      _rg_die "slurmctld exited while the nodes were starting"
    }
    [ -n "$_rg_cloud" ] || for node in "${_rg_nodes[@]}"; do
      _rg_child_running "slurmd.$node" ||
        _rg_fail_node "$node" "slurmd for $node exited during startup"
    done
    if [ "$SECONDS" -ge "$deadline" ]; then
      mapfile -t bad < <(awk -v want="$want" '$2 != want' <<<"$states" | sort -u)
      _rg_tail "$dir/ctld/slurmctld.log" 10
      [ "${#bad[@]}" -eq 0 ] || _rg_fail_node "${bad[0]%% *}" \
        "after ${_rg_timeout} s, $idle of $n nodes are idle; not idle: ${bad[*]:0:8}"
      _rg_die "after ${_rg_timeout} s, $idle of $n nodes are idle (sinfo answered: ${states:-nothing})"
    fi
    sleep 0.5
  done
}

# Runs in the start process on every exit until the cluster is up: removes what was started.
_rg_start_cleanup() {
  local rc=$?
  [ "${_rg_started:-0}" = 1 ] && return 0
  [ -n "${_rg_dir:-}" ] || return 0
  _rg_log "start failed; stopping what it started"
  _rg_stop_dir "$_rg_dir" "$_rg_keep" || true
  exit "$((rc == 0 ? 1 : rc))"
}

_rg_cmd_start() {
  local print=env foreground=0 i
  _rg_t0=${EPOCHREALTIME/./}
  _rg_topo="" _rg_dir="" _rg_topology_plugin=tree _rg_plugin_dir="" _rg_conf_extra=""
  _rg_railguard_conf="" _rg_slurm_topology_yaml=""
  _rg_slurm_bin="" _rg_railctl="" _rg_timeout=90 _rg_keep=0 _rg_started=0
  _rg_slurm_prefix="" _rg_slurm_version="" _rg_configless="" _rg_node_etc="" _rg_cloud=""
  _rg_node_features=""
  while [ $# -gt 0 ]; do
    case $1 in
      --topo) _rg_need_value "$@"; _rg_topo=$2; shift 2 ;;
      --dir) _rg_need_value "$@"; _rg_dir=$2; shift 2 ;;
      --topology-plugin) _rg_need_value "$@"; _rg_topology_plugin=$2; shift 2 ;;
      --plugin-dir) _rg_need_value "$@"; _rg_plugin_dir=$2; shift 2 ;;
      --conf-extra) _rg_need_value "$@"; _rg_conf_extra=$2; shift 2 ;;
      --railguard-conf) _rg_need_value "$@"; _rg_railguard_conf=$2; shift 2 ;;
      --slurm-topology-yaml) _rg_need_value "$@"; _rg_slurm_topology_yaml=$2; shift 2 ;;
      --slurm-bin) _rg_need_value "$@"; _rg_slurm_bin=$2; shift 2 ;;
      --slurm-prefix) _rg_need_value "$@"; _rg_slurm_prefix=$2; shift 2 ;;
      --slurm-version)
        _rg_need_value "$@"
        [[ $2 =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
          _rg_usage_die "--slurm-version needs a release like 24.11.5, got '$2'"
        _rg_slurm_prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$2
        shift 2
        ;;
      --railctl) _rg_need_value "$@"; _rg_railctl=$2; shift 2 ;;
      --configless) _rg_configless=1; shift ;;
      --cloud) _rg_cloud=1; shift ;;
      --node-etc) _rg_need_value "$@"; _rg_node_etc=$2; shift 2 ;;
      --node-features) _rg_need_value "$@"; _rg_node_features=$2; shift 2 ;;
      --timeout) _rg_need_value "$@"; _rg_timeout=$2; shift 2 ;;
      --keep) _rg_keep=1; shift ;;
      --foreground) foreground=1; shift ;;
      --print-dir) print=dir; shift ;;
      *) _rg_usage_die "start: unknown option $1" ;;
    esac
  done
  [ -n "$_rg_topo" ] || _rg_usage_die "start needs --topo FILE.yaml"
  [ -f "$_rg_topo" ] || _rg_die "topology file $_rg_topo not found"
  _rg_topo=$(_rg_abspath "$_rg_topo")
  case $_rg_topology_plugin in
    tree | block | none | rail) ;;
    *) _rg_usage_die "--topology-plugin must be tree, block, none or rail, got '$_rg_topology_plugin'" ;;
  esac
  [[ $_rg_timeout =~ ^[0-9]+$ ]] || _rg_usage_die "--timeout needs whole seconds, got '$_rg_timeout'"
  [[ -z $_rg_node_features || $_rg_node_features =~ ^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$ ]] ||
    _rg_usage_die "--node-features needs a comma list of feature names, got '$_rg_node_features'"
  if [ -n "$_rg_plugin_dir" ]; then
    [ -d "$_rg_plugin_dir" ] || _rg_die "--plugin-dir $_rg_plugin_dir is not a directory"
    _rg_plugin_dir=$(cd "$_rg_plugin_dir" && pwd)
  fi
  if [ -n "$_rg_conf_extra" ]; then
    [ -f "$_rg_conf_extra" ] || _rg_die "--conf-extra $_rg_conf_extra not found"
  fi
  if [ -n "$_rg_railguard_conf" ]; then
    [ -f "$_rg_railguard_conf" ] || _rg_die "--railguard-conf $_rg_railguard_conf not found"
  fi
  if [ -n "$_rg_slurm_topology_yaml" ]; then
    [ -f "$_rg_slurm_topology_yaml" ] || _rg_die "--slurm-topology-yaml $_rg_slurm_topology_yaml not found"
  fi
  if [ -n "$_rg_node_etc" ]; then
    [ -n "$_rg_configless" ] || _rg_usage_die "--node-etc needs --configless"
    [ -d "$_rg_node_etc" ] || _rg_die "--node-etc $_rg_node_etc is not a directory"
  fi
  [ -z "$_rg_cloud" ] || [ -z "$_rg_configless" ] ||
    _rg_usage_die "--cloud and --configless exclude each other (cloud nodes run no slurmd)"
  if [ -n "$_rg_configless" ]; then
    command -v unshare >/dev/null && command -v nsenter >/dev/null ||
      _rg_die "--configless needs unshare and nsenter (util-linux)"
  fi
  if [ -n "$_rg_slurm_prefix" ]; then
    [ -z "$_rg_slurm_bin" ] || _rg_usage_die "--slurm-bin and --slurm-prefix/--slurm-version exclude each other"
    [ -x "$_rg_slurm_prefix/sbin/slurmctld" ] && [ -d "$_rg_slurm_prefix/lib/slurm" ] ||
      _rg_die "$_rg_slurm_prefix has no sbin/slurmctld and lib/slurm (scripts/build_slurm.sh VERSION installs one)"
    _rg_slurm_prefix=$(cd "$_rg_slurm_prefix" && pwd)
    _rg_slurm_bin=$_rg_slurm_prefix
  fi
  if [ -n "$_rg_slurm_bin" ]; then
    [ -d "$_rg_slurm_bin" ] || _rg_die "--slurm-bin $_rg_slurm_bin is not a directory"
    _rg_slurm_bin=$(cd "$_rg_slurm_bin" && pwd)
  fi
  local tool path
  for tool in slurmctld slurmd scontrol sinfo squeue munged munge unmunge; do
    path=$(_rg_find_tool "$tool")
    _rg_tool[$tool]=$path
  done
  _rg_slurm_version=$("${_rg_tool[slurmctld]}" -V 2>/dev/null | awk '{ print $2 }')
  [[ $_rg_slurm_version =~ ^[0-9]+\.[0-9]+ ]] ||
    _rg_die "'${_rg_tool[slurmctld]} -V' printed no version (got '$_rg_slurm_version')"
  # A release's own railctl when it is built (it is the one that can read this cluster).
  if [ -z "$_rg_railctl" ] && [ -n "$_rg_slurm_prefix" ] &&
    [ -x "$(rg_release_tools "$_rg_slurm_version")/railctl" ]; then
    _rg_railctl=$(rg_release_tools "$_rg_slurm_version")/railctl
  fi
  _rg_railctl=${_rg_railctl:-${RAILGUARD_BINARY_DIR:-$_RG_REPO/build}/railctl}
  [ -x "$_rg_railctl" ] ||
    _rg_die "railctl not found at $_rg_railctl (build it, set RAILGUARD_BINARY_DIR or pass --railctl)"
  _rg_read_nodes "$_rg_railctl" "$_rg_topo"

  # The run directory.
  if [ -n "$_rg_dir" ]; then
    _rg_dir=$(_rg_abspath "$_rg_dir")
    if [ -e "$_rg_dir" ]; then
      if [ ! -d "$_rg_dir" ] || [ -n "$(ls -A "$_rg_dir")" ]; then
        _rg_die "--dir $_rg_dir exists and is not an empty directory"
      fi
    fi
    _rg_check_dir_path "$_rg_dir"
    mkdir -p "$_rg_dir"
    chmod 0700 "$_rg_dir"
  else
    _rg_dir=$(mktemp -d "${TMPDIR:-/tmp}/railguard-cluster.XXXXXX")
    trap 'rmdir -- "$_rg_dir"' EXIT  # until the marker makes it a run directory
    _rg_check_dir_path "$_rg_dir"
  fi
  touch "$_rg_dir/$_RG_MARKER"
  trap _rg_start_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  mkdir -p "$_rg_dir/pids" "$_rg_dir/munge" "$_rg_dir/ctld/state" "$_rg_dir/nodes"
  chmod 0700 "$_rg_dir/munge"
  for tool in "${!_rg_tool[@]}"; do
    echo "$tool=${_rg_tool[$tool]}"
  done >"$_rg_dir/tools"
  [ -z "$_rg_slurm_bin" ] || dirname "${_rg_tool[sinfo]}" >"$_rg_dir/slurm-bin"
  _rg_version_layout
  cp "$_rg_topo" "$_rg_dir/$_rg_topo_copy"
  # railguard.yaml sits beside slurm.conf: the plugins find it through get_extra_conf_path().
  if [ -n "$_rg_railguard_conf" ]; then
    cp "$_rg_railguard_conf" "$_rg_dir/railguard.yaml"
    [ "$_rg_topo_copy" = topology.yaml ] ||
      sed -i "s|^topology: topology.yaml\$|topology: $_rg_topo_copy|" "$_rg_dir/railguard.yaml"
  elif [ "$_rg_topology_plugin" = rail ]; then
    echo "topology: $_rg_topo_copy" >"$_rg_dir/railguard.yaml"
  fi
  if [ -n "$_rg_slurm_topology_yaml" ]; then
    [ "$_rg_topo_copy" != topology.yaml ] ||
      _rg_die "--slurm-topology-yaml needs Slurm 25.05 or later (this is $_rg_slurm_version)"
    cp "$_rg_slurm_topology_yaml" "$_rg_dir/topology.yaml"
  fi
  printf '%s\n' "${_rg_nodes[@]}" >"$_rg_dir/nodes.txt"

  if [ -n "$_rg_cloud" ]; then
    _rg_claim_ports 1 "$_rg_dir"
  else
    _rg_claim_ports $((${#_rg_nodes[@]} + 1)) "$_rg_dir"
  fi
  _rg_write_conf
  if [ -n "$_rg_configless" ]; then
    _rg_node_roots
    echo "${_rg_ports[0]}" >"$_rg_dir/configless"  # the --conf-server port; marks the run
  fi
  _rg_log "run dir $_rg_dir: ${#_rg_nodes[@]} nodes, slurmctld port ${_rg_ports[0]}," \
    "TopologyPlugin=topology/$_rg_topology_plugin, Slurm $_rg_slurm_version${_rg_configless:+, configless}"
  _rg_start_munged
  _rg_start_slurmctld
  if [ -n "$_rg_cloud" ]; then
    _rg_log "slurmctld up after $(_rg_elapsed) s; ${#_rg_nodes[@]} cloud nodes, no slurmd"
    _rg_wait_idle "idle~"
    _rg_log "${#_rg_nodes[@]} cloud nodes idle (powered down) after $(_rg_elapsed) s"
  else
    _rg_log "slurmctld up after $(_rg_elapsed) s; starting ${#_rg_nodes[@]} slurmd"
    for i in "${!_rg_nodes[@]}"; do
      _rg_daemon_cmd "$_rg_dir" "slurmd.${_rg_nodes[$i]}"
      _rg_spawn "slurmd.${_rg_nodes[$i]}" "$_rg_out" "${_rg_cmd[@]}"
    done
    _rg_wait_idle
    _rg_log "${#_rg_nodes[@]} nodes idle after $(_rg_elapsed) s"
  fi

  local env_lines
  env_lines="export SLURM_CONF=$(printf '%q' "$_rg_dir/slurm.conf"); export RAILGUARD_CLUSTER_DIR=$(printf '%q' "$_rg_dir")"
  if [ -s "$_rg_dir/slurm-bin" ]; then
    env_lines+="; export PATH=$(printf '%q' "$(cat "$_rg_dir/slurm-bin")"):\"\$PATH\""
  fi
  echo "$env_lines" >"$_rg_dir/env"
  _rg_started=1
  trap - EXIT INT TERM HUP
  if [ "$print" = dir ]; then
    printf '%s\n' "$_rg_dir"
  else
    echo "$env_lines"
  fi
  [ "$foreground" = 1 ] || return 0

  # --foreground: hold the cluster until a signal, then tear it down.
  local sleeper
  trap '_rg_stop_dir "$_rg_dir" 0' EXIT
  trap 'kill "$sleeper" 2>/dev/null; exit 130' INT
  trap 'kill "$sleeper" 2>/dev/null; exit 143' TERM
  trap 'kill "$sleeper" 2>/dev/null; exit 129' HUP
  _rg_log "running in the foreground; Ctrl-C stops the cluster"
  sleep infinity &
  sleeper=$!
  wait "$sleeper"
}

# cluster.sh run START-OPTIONS... -- COMMAND [ARG...]
_rg_cmd_run() {
  local -a opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    opts+=("$1")
    shift
  done
  [ $# -ge 2 ] || _rg_usage_die "run needs '-- COMMAND'"
  shift
  rg_cluster_start "${opts[@]}" || exit 1
  local rc=0
  "$@" || rc=$?
  exit "$rc"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  declare -A _rg_tool=()  # program name -> path, filled by start or from <run dir>/tools
  case ${1:-} in
    start) shift; _rg_cmd_start "$@" ;;
    run) shift; _rg_cmd_run "$@" ;;
    stop) shift; _rg_cmd_stop "$@" ;;
    status) shift; _rg_cmd_status "$@" ;;
    kill) shift; _rg_cmd_kill "$@" ;;
    respawn) shift; _rg_cmd_respawn "$@" ;;
    on) shift; _rg_cmd_on "$@" ;;
    help | -h | --help) _rg_usage ;;
    *) _rg_usage_die "unknown command '${1:-}'" ;;
  esac
fi
