# SPDX-License-Identifier: GPL-2.0-or-later
# Progress lines for the long steps of setup, build, test and the demo (sourced, not run).
#
# Every line starts with the time since the outermost command started ("[ 3:07]"): the first
# script that sources this file sets RAILGUARD_T0 (epoch seconds) and exports it, so the
# scripts it runs count from the same start. A step's full output goes to a log file that its
# first line names; while it runs, a line every RAILGUARD_HEARTBEAT seconds (default 30) says
# it still runs and what it is at (the last line of its log that matches the step's pattern);
# when it fails, the tail of its log is printed.
#
#   source scripts/progress.sh
#   rg_say "setup" "installing 12 packages"
#   rg_step "build" "$logdir/build.log" '^\[ *[0-9]+%\]' -- cmake --build build -j2
#   rg_step_bg NAME LOG PATTERN -- CMD...    # the same, in the background: rg_step_wait NAME
#
# Env: RAILGUARD_HEARTBEAT  seconds between "still running" lines (default 30)
#      RAILGUARD_LOG_TAIL   lines of a failed step's log to print (default 40)

if [ -z "${RAILGUARD_T0:-}" ]; then
  RAILGUARD_T0=$(date +%s)
  export RAILGUARD_T0
fi

# rg_clock: the time since RAILGUARD_T0 as m:ss (h:mm:ss past an hour).
rg_clock() {
  local s=$(($(date +%s) - RAILGUARD_T0))
  if [ "$s" -ge 3600 ]; then
    printf '%d:%02d:%02d' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
  else
    printf '%2d:%02d' $((s / 60)) $((s % 60))
  fi
}

# rg_say WHO TEXT...: one progress line, "[ m:ss] WHO: TEXT".
rg_say() {
  local who=$1
  shift
  printf '[%s] %s: %s\n' "$(rg_clock)" "$who" "$*"
}

# _rg_progress_of LOG PATTERN: the last line of LOG matching the extended regex PATTERN (or the
# last non-empty line when PATTERN is empty), without carriage returns, cut to 110 characters.
_rg_progress_of() {
  local line
  if [ -n "$2" ]; then
    line=$(grep -aE -- "$2" "$1" 2>/dev/null | tail -n 1)
  else
    line=$(grep -a -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1)
  fi
  line=${line//$'\r'/}
  [ "${#line}" -le 110 ] || line="${line:0:107}..."
  printf '%s' "$line"
}

# _rg_heartbeat WHO LOG PATTERN START PID SHOW: while PID lives, a "still running" line every
# RAILGUARD_HEARTBEAT seconds (with SHOW=1, every such period in which LOG did not grow).
# Sleeps in 1 s steps so that it ends soon after PID does.
_rg_heartbeat() {
  local who=$1 log=$2 pattern=$3 start=$4 pid=$5 show=$6 every=${RAILGUARD_HEARTBEAT:-30} n=0 at
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    n=$((n + 1))
    # A log written within the last period: the step is saying things itself (--show).
    if [ "$show" = 1 ] && [ $(($(date +%s) - $(stat -c %Y "$log" 2>/dev/null || echo 0))) -lt "$every" ]; then
      n=0
    fi
    if [ "$n" -ge "$every" ] && kill -0 "$pid" 2>/dev/null; then
      n=0
      at=$(_rg_progress_of "$log" "$pattern")
      rg_say "$who" "still running ($(($(date +%s) - start)) s)${at:+; at: $at}"
    fi
  done
}

# rg_step [--show] WHO LOG PATTERN -- CMD...: runs CMD with its output in LOG (made anew),
# between a start line that names LOG and an end line with the time it took; heartbeat lines
# while it runs. --show also prints CMD's output as it comes (then a heartbeat line appears only
# after RAILGUARD_HEARTBEAT seconds without output). On failure prints the last
# RAILGUARD_LOG_TAIL lines of LOG (not with --show: they were shown). Returns CMD's exit code.
rg_step() {
  local show=0 who log pattern start rc pid hb
  [ "$1" = --show ] && { show=1; shift; }
  who=$1 log=$2 pattern=$3
  shift 3
  [ "${1:-}" = -- ] && shift
  mkdir -p "$(dirname "$log")"
  : >"$log"
  start=$(date +%s)
  rg_say "$who" "started (log: $log)"
  if [ "$show" = 1 ]; then
    # The exit code of CMD, not of tee: CMD runs in a subshell that saves it.
    ( set +e; "$@" </dev/null 2>&1; echo "$?" >"$log.rc" ) | tee -a "$log" &
  else
    "$@" >>"$log" 2>&1 </dev/null &
  fi
  pid=$!
  _rg_heartbeat "$who" "$log" "$pattern" "$start" "$pid" "$show" &
  hb=$!
  rc=0
  wait "$pid" || rc=$?
  kill "$hb" 2>/dev/null || true
  wait "$hb" 2>/dev/null || true
  if [ "$show" = 1 ]; then
    rc=$(cat "$log.rc" 2>/dev/null || echo 1)
    rm -f "$log.rc"
  fi
  if [ "$rc" -eq 0 ]; then
    rg_say "$who" "done in $(($(date +%s) - start)) s"
  elif [ "$show" = 1 ]; then
    rg_say "$who" "FAILED (exit $rc) after $(($(date +%s) - start)) s (log: $log)"
  else
    rg_say "$who" "FAILED (exit $rc) after $(($(date +%s) - start)) s; the last" \
      "${RAILGUARD_LOG_TAIL:-40} lines of $log:"
    tail -n "${RAILGUARD_LOG_TAIL:-40}" "$log" | sed 's/^/    /'
  fi
  return "$rc"
}

# rg_step_bg WHO LOG PATTERN -- CMD...: rg_step in the background; its lines still appear as
# they happen. rg_step_wait WHO waits for it and returns its exit code.
declare -gA _RG_BG_PIDS=()
rg_step_bg() {
  rg_step "$@" &
  _RG_BG_PIDS[$1]=$!
}
rg_step_wait() {
  local pid=${_RG_BG_PIDS[$1]:-}
  [ -n "$pid" ] || { echo "rg_step_wait: no background step '$1'" >&2; return 2; }
  unset "_RG_BG_PIDS[$1]"
  wait "$pid"
}
