#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Simulated InfiniBand fabric for integration tests: ibsim (ibsim-utils) serving a fabric in
# the ibnetdiscover format, and opensm bringing it up, both under LD_PRELOAD=libumad2sim.so.
# Any libibumad program run through rg_fabric_run (ibnetdiscover, perfquery, railctl fabric
# sweep) then talks to the simulated fabric as to real hardware.
#
# From a bash test:
#   source tests/harness/fabric.sh
#   rg_fabric_start NETFILE            # exports RAILGUARD_FABRIC_DIR and IBSIM_SOCKNAME;
#                                      # EXIT, INT, TERM and HUP tear down
#   rg_fabric_run ibnetdiscover        # any command, against the simulated fabric
#   rg_fabric_console 'PerformanceSet "S-..."[3] PortCounters.SymbolErrorCounter=42'
#   rg_fabric_stop                     # also run by the trap
#
# Each run has its own directory (ibsim's console FIFO and output, opensm's log and cache)
# and its own ibsim socket name (IBSIM_SOCKNAME, an abstract unix socket), so runs never see
# each other and nothing outside the directory is touched. Stop ends only the two pids the
# start recorded. ibsim's size limits (-N/-S/-P) follow the netfile. Env:
# RAILGUARD_FABRIC_IBSIM_OPTS extra ibsim options, RAILGUARD_KEEP_FABRIC=1 keeps the directory,
# RAILGUARD_FABRIC_WAIT seconds ibsim may take to read the netfile (default 120),
# RAILGUARD_FABRIC_SM_TIMEOUT seconds the first opensm sweep may take (default 300).

_RG_FABRIC_SIM_SO=${RAILGUARD_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
_RG_FABRIC_MARKER=.railguard-fabric

_rg_fabric_log() { echo "fabric.sh: $*" >&2; }

# rg_fabric_start [--no-trap] [--no-sm] NETFILE: starts ibsim on NETFILE and (unless --no-sm)
# opensm, and waits until the subnet is configured (LIDs and forwarding tables everywhere) and
# opensm is master.
# Returns 1 with the reason and the tail of the logs on stderr if either fails to come up.
rg_fabric_start() {
  local trap=1 sm=1 net="" dir i
  while [ $# -gt 0 ]; do
    case $1 in
      --no-trap) trap=0 ;;
      --no-sm) sm=0 ;;
      *) net=$1 ;;
    esac
    shift
  done
  [ -r "$net" ] || { _rg_fabric_log "cannot read netfile '$net'"; return 1; }
  for tool in ibsim opensm; do
    command -v "$tool" >/dev/null ||
      { _rg_fabric_log "$tool not found; run scripts/setup.sh (ibsim-utils, opensm)"; return 1; }
  done
  [ -r "$_RG_FABRIC_SIM_SO" ] ||
    { _rg_fabric_log "$_RG_FABRIC_SIM_SO missing; run scripts/setup.sh (libumad2sim0)"; return 1; }
  if [ "$trap" = 1 ]; then
    trap 'rg_fabric_stop' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/railguard-fabric.XXXXXX") || return 1
  touch "$dir/$_RG_FABRIC_MARKER"
  export RAILGUARD_FABRIC_DIR=$dir
  export IBSIM_SOCKNAME="rgfab-$$-${dir##*.}"
  mkdir -p "$dir/osm"
  mkfifo "$dir/console"
  # ibsim reads its console from the FIFO; fd 9 holds the write end open so that it never
  # sees EOF between two commands (ibsim quits on EOF).
  # ibsim's tables are fixed in size (by default 2048 nodes, 256 switches, 13312 ports): size
  # them after the netfile, so that a large generated fabric fits.
  local limits
  limits=$(_rg_fabric_limits "$net")
  # shellcheck disable=SC2086  # both are lists of options
  setsid ibsim $limits ${RAILGUARD_FABRIC_IBSIM_OPTS:-} -s "$net" <"$dir/console" \
    >"$dir/ibsim.out" 2>&1 &
  echo $! >"$dir/ibsim.pid"
  exec 9>"$dir/console"
  # ibsim parses a 4096-node netfile (280,000 lines) for about half a minute.
  local wait_ticks=$((${RAILGUARD_FABRIC_WAIT:-120} * 10))
  for ((i = 0; i < wait_ticks; i++)); do
    grep -q 'Network simulator ready' "$dir/ibsim.out" && break
    kill -0 "$(cat "$dir/ibsim.pid")" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -q 'Network simulator ready' "$dir/ibsim.out"; then
    _rg_fabric_log "ibsim did not come up on $net:"
    tail -n 20 "$dir/ibsim.out" >&2
    return 1
  fi
  [ "$sm" = 1 ] || return 0
  # "Entering MASTER state" comes before opensm has programmed every switch's forwarding
  # table; until then LID-routed MADs (all PMA queries) to far switches are lost. So a first
  # `opensm --once` configures the whole subnet and exits; the opensm that stays then starts
  # on a configured fabric (same guid2lid cache: same LIDs) and handles traps and re-sweeps.
  # After its first sweep the opensm that stays sweeps no more (no periodic sweeps, no sweep on
  # traps 128/144): each heavy sweep writes PortInfo back to every port, and ibsim then
  # retrains the link from the LinkWidthEnabled it was sent, which would undo a width fault a
  # test injected (with ibportstate) at a random moment. It still answers SA queries (the GUID
  # to LID lookups of perfquery -G and ibportstate -G). A test that needs a re-sweep after a
  # console Unlink/ReLink restarts opensm.
  printf '%s\n' 'sweep_interval 0' 'sweep_on_trap FALSE' >"$dir/osm/opensm.conf"
  # Extra opensm.conf lines, one per line (a large fabric under ibsim needs e.g.
  # "transaction_timeout 2000" and "max_wire_smps 8": ibsim answers one MAD at a time).
  [ -z "${RAILGUARD_FABRIC_OPENSM_CONF:-}" ] ||
    printf '%s\n' "$RAILGUARD_FABRIC_OPENSM_CONF" >>"$dir/osm/opensm.conf"
  local t0=$SECONDS
  # Both opensm runs start in $dir: umad2sim gives each process a fake sysfs "./sys-PID" in its
  # working directory, and one that is killed leaves it there.
  if ! (cd "$dir" && OSM_TMP_DIR="$dir/osm" OSM_CACHE_DIR="$dir/osm" \
      LD_PRELOAD="$_RG_FABRIC_SIM_SO" timeout "${RAILGUARD_FABRIC_SM_TIMEOUT:-300}" \
      opensm -F "$dir/osm/opensm.conf" --once -f "$dir/osm/once.log") \
      >"$dir/opensm-once.out" 2>&1; then
    _rg_fabric_log "opensm --once did not configure the fabric:"
    tail -n 20 "$dir/opensm-once.out" "$dir/osm/once.log" >&2
    return 1
  fi
  # opensm --once exits 0 after "Errors during initialization" (MADs it gave up on): then the
  # fabric is not fully configured.
  if grep -q 'Errors during initialization' "$dir/opensm-once.out"; then
    _rg_fabric_log "opensm --once could not configure the whole fabric:"
    grep -m 5 'ERR' "$dir/osm/once.log" >&2
    return 1
  fi
  (cd "$dir" && OSM_TMP_DIR="$dir/osm" OSM_CACHE_DIR="$dir/osm" LD_PRELOAD="$_RG_FABRIC_SIM_SO" \
    exec setsid opensm -F "$dir/osm/opensm.conf" -f "$dir/osm/osm.log") >"$dir/opensm.out" 2>&1 &
  echo $! >"$dir/opensm.pid"
  for ((i = 0; i < 300; i++)); do
    if grep -q 'Entering MASTER state' "$dir/opensm.out"; then
      _rg_fabric_log "fabric up in $((SECONDS - t0)) s (opensm pid $(cat "$dir/opensm.pid"))"
      return 0
    fi
    kill -0 "$(cat "$dir/opensm.pid")" 2>/dev/null || break
    sleep 0.1
  done
  _rg_fabric_log "opensm did not become master within 30 s:"
  tail -n 20 "$dir/opensm.out" "$dir/osm/osm.log" >&2
  return 1
}

# _rg_fabric_limits NETFILE: "-N nodes -S switches -P ports [-L 49152]" for ibsim, each at least
# its default.
_rg_fabric_limits() {
  awk '/^Switch/ { sw++; ports += $2 + 1 } /^(Ca|Hca)/ { ca++; ports += $2 + 1 }
    END { n = sw + ca; if (n < 2048) n = 2048; s = sw; if (s < 256) s = 256
          p = ports; if (p < 13312) p = 13312
          printf "-N %d -S %d -P %d", n, s, p
          # Every switch and HCA port gets a LID; ibsim forwards only LIDs below its linear
          # forwarding cap (default 30720): raise it to the unicast maximum when needed.
          if (n + 64 > 30720) printf " -L 49152" }' "$1"
}

# rg_fabric_run CMD...: runs CMD against the simulated fabric of $RAILGUARD_FABRIC_DIR.
rg_fabric_run() {
  : "${RAILGUARD_FABRIC_DIR:?no fabric started}"
  LD_PRELOAD="$_RG_FABRIC_SIM_SO" "$@"
}

# rg_fabric_console LINE: sends one console command to ibsim and waits until ibsim printed
# its next prompt (the command is done). Prints what the command printed. 1 after 10 s.
rg_fabric_console() {
  local dir=${RAILGUARD_FABRIC_DIR:?no fabric started} before i
  before=$(grep -o 'sim> ' "$dir/ibsim.out" | wc -l)
  printf '%s\n' "$1" >&9
  for ((i = 0; i < 100; i++)); do
    if [ "$(grep -o 'sim> ' "$dir/ibsim.out" | wc -l)" -gt "$before" ]; then
      return 0
    fi
    sleep 0.1
  done
  _rg_fabric_log "ibsim did not finish console command '$1' within 10 s"
  return 1
}

# rg_fabric_stop: ends opensm and ibsim of $RAILGUARD_FABRIC_DIR (only the recorded pids, and
# only while they still run the expected program) and removes the directory unless
# RAILGUARD_KEEP_FABRIC=1. Safe to call twice; preserves $?.
rg_fabric_stop() {
  local rc=$? dir=${RAILGUARD_FABRIC_DIR:-} name pid i
  [ -n "$dir" ] && [ -f "$dir/$_RG_FABRIC_MARKER" ] || return "$rc"
  exec 9>&- 2>/dev/null || true
  for name in opensm ibsim; do
    [ -s "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid")
    # A recycled pid runs another program: leave it alone.
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || break
      sleep 0.1
    done
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] && kill -KILL "$pid" 2>/dev/null
  done
  if [ "${RAILGUARD_KEEP_FABRIC:-0}" = 1 ]; then
    _rg_fabric_log "kept $dir"
  else
    rm -rf "$dir"
  fi
  unset RAILGUARD_FABRIC_DIR IBSIM_SOCKNAME
  return "$rc"
}
