# SPDX-License-Identifier: GPL-2.0-or-later
# bench/sched_scale.sh's side-by-side phases (sourced by it; they use its variables and
# functions: start_cluster, queue_sbatch, log, die, out, queue, cycles, domains):
#  --paired         paired_submit: the sbatch round trip in pairs;
#  --paired-cycles  paired_cycles and paired_cycles_table: backfill cycles in pairs.
# Two clusters that run at once share whatever else loads the machine, which moves a
# benchmark's figures by ±15-20% between runs on this 2-core VM (bench/README.md).

# pair_start PHASE A B: the PHASE (submit, cycles) clusters of policies A and B, each filled
# and published as in run_policy, both left running (their folders in pair_dirs, which
# cleanup and pair_stop stop); pair_slot[0] is A's slurm.conf and pair_slot[1] B's (A and B
# may be one policy: --sbatch-opts-b).
pair_slot=()
pair_start() {
  local phase=$1 p
  shift
  pair_slot=()
  for p in "$@"; do
    start_cluster "$p" "$phase"
    pair_dirs+=("$RAILGUARD_CLUSTER_DIR")
    pair_slot+=("$SLURM_CONF")
    # The next start must not stop this one.
    unset RAILGUARD_CLUSTER_DIR SLURM_CONF
  done
}

# pair_stop: stops the clusters pair_start started.
pair_stop() {
  local d
  for d in "${pair_dirs[@]}"; do
    RAILGUARD_CLUSTER_DIR=$d rg_cluster_stop >/dev/null 2>&1 || true
  done
  pair_dirs=()
}

# paired_submit: --paired's phase. The submission clusters of the plain policy and of the
# one with job_submit/rail, both running, each filled and published as in run_policy; the
# queue's jobs are submitted to both, one sbatch to each in turn, the plain one first in even
# pairs and the other first in odd ones. Per pair "MS_PLAIN MS_JS" in paired.ms.
paired_submit() {
  local k i first second ms_plain ms_js
  pair_start submit "$pair_plain" "$pair_js"
  log "paired: $queue jobs to both $pair_plain and $pair_js, one sbatch to each in turn, timed"
  : >"$out/paired.ms"
  : >"$out/paired.err"
  for ((i = 0; i < queue; i++)); do
    # Slot 0 is the plain policy, slot 1 the one with job_submit/rail (pair_start's order).
    if ((i % 2)); then first=1 second=0; else first=0 second=1; fi
    for k in "$first" "$second"; do
      SLURM_CONF=${pair_slot[$k]} queue_sbatch "$i" "$out/paired.err" ||
        die "--paired: $( ((k)) && echo "$pair_js" || echo "$pair_plain"): $refused"
      if ((k)); then ms_js=$sbatch_ms; else ms_plain=$sbatch_ms; fi
    done
    echo "$ms_plain $ms_js" >>"$out/paired.ms"
  done
  pair_stop
}

# bf_thread PID: the thread id of slurmctld PID's backfill thread, which every release names
# "bckfl"; empty when there is none.
bf_thread() {
  local t
  for t in /proc/"$1"/task/*; do
    [ "$(cat "$t/comm" 2>/dev/null)" != bckfl ] || {
      echo "${t##*/}"
      return 0
    }
  done
}

# bf_cpu PID TID: the CPU time (clock ticks, user + system) of thread TID of PID; empty when
# it is gone. Fields 14 and 15 of stat; the name (field 2) holds no space here.
bf_cpu() {
  awk '{ print $14 + $15 }' "/proc/$1/task/$2/stat" 2>/dev/null
}

# --count-tries: Slurm's tries per cycle, counted where they happen. A uprobe on cons_tres's
# select_p_job_test (the call backfill makes for each job at each start time it tests; the
# plugin API, so every release has it) and one `perf stat` per backfill thread counting its
# hits each second into tries-K.csv; a cycle's tries are the hits since the cycle before
# ended (none come between two cycles: backfill sleeps bf_interval). Steady where the times are
# not: every cycle of a run alike (the first now and then a few percent lower), and within 3%
# between runs of one queue and policy (bench/README.md, session 35).
tries_probe=""
tries_pids=()
tries_start() {
  local addr k
  addr=$(nm -D --defined-only "$cons_tres_so" 2>/dev/null | awk '$3 == "select_p_job_test" { print $1; exit }')
  [ -n "$addr" ] || die "--count-tries: no select_p_job_test in $cons_tres_so"
  tries_group=probe_$(basename "$cons_tres_so" .so)
  perf probe -q -d "$tries_group:rg_tries" >/dev/null 2>&1 || true
  perf probe -q -x "$cons_tres_so" -a "rg_tries=0x$addr" >"$out/tries-probe.out" 2>&1 ||
    die "--count-tries: perf probe failed ($out/tries-probe.out)"
  tries_probe=$tries_group:rg_tries
  for k in 0 1; do
    perf stat -e "$tries_probe" -t "${bf_tids[$k]}" -I 1000 -x, -o "$out/tries-$k.csv" >/dev/null 2>&1 &
    tries_pids+=($!)
  done
}
# tries_read K: the hits counted so far for cluster K (after the count's next second is out).
tries_read() {
  awk -F, '$4 ~ /rg_tries/ && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' "$out/tries-$1.csv" 2>/dev/null || echo 0
}
tries_stop() {
  local p
  for p in "${tries_pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  for p in "${tries_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  tries_pids=()
  [ -z "$tries_probe" ] || perf probe -q -d "$tries_probe" >/dev/null 2>&1 || true
  tries_probe=""
}

# --swap-cpus: this VM's virtual CPUs differ in speed for minutes at a time (a cache-bound
# loop ran 4.5x slower on one than on the other for over a minute, then alike; the guest
# reports no steal time), and a busy backfill thread mostly stays on the CPU it began on.
# Swapping did not make two clusters of one policy agree (10-15% apart either way, the
# controls of bench/README.md, session 36): what differs is each slurmctld process.
# swap_start PID_A PID_B pins every thread of A's slurmctld to the first half
# of the CPUs this script may use and B's to the second half, and swaps the halves every
# swap_cpus seconds, one line per swap in swaps.txt, until swap_stop. Threads slurmctld makes
# later inherit the pinning of the thread that makes them.
swap_pid=""
swap_start() {
  local cpus half procs=("$1" "$2")
  [ "${swap_cpus:-0}" != 0 ] || return 0
  # This script's CPUs ("0,1" or "0-3,6"), one per line.
  cpus=$(taskset -c -p $$ | sed 's/.*: *//' | tr , '\n' |
    awk -F- '{ for (c = $1; c <= (NF > 1 ? $2 : $1); c++) print c }')
  half=$(($(wc -l <<<"$cpus") / 2)) # at least 1: sched_scale.sh checked nproc
  swap_sets=("$(head -n "$half" <<<"$cpus" | paste -sd,)" "$(tail -n +$((half + 1)) <<<"$cpus" | head -n "$half" | paste -sd,)")
  : >"$out/swaps.txt"
  (
    trap 'exit 0' TERM
    k=0
    while :; do
      for c in 0 1; do
        taskset -a -c -p "${swap_sets[$(((c + k) % 2))]}" "${procs[$c]}" >/dev/null 2>&1 || true
      done
      echo "$EPOCHSECONDS $((k % 2))" >>"$out/swaps.txt"
      k=$((k + 1))
      sleep "$swap_cpus" &
      wait $!
    done
  ) &
  swap_pid=$!
}
swap_stop() { bg_stop swap_pid; }

# pc_tag K: the file tag of --paired-cycles's cluster K (0: A, 1: B): the policy's name, and
# for B "_b" after it when A is the same policy (--sbatch-opts-b).
pc_tag() {
  local t=${policy_list[$1]//+/_}
  [ "$1" = 0 ] || [ "${policy_list[0]}" != "${policy_list[1]}" ] || t=${t}_b
  echo "$t"
}

# paired_cycles: --paired-cycles's run, in place of each policy's two clusters. The cycles
# clusters of the first two policies (A and B) both running, each filled and published as in
# run_policy; the queue's jobs go to both, one sbatch to each in turn (A first in even pairs),
# all with one start time (--begin) after the submissions, so that backfill, which leaves
# jobs before their start time out of its queue, sleeps through them (two backfill cycles
# over growing queues made 5,000 pairs take over 40 minutes) and both clusters begin their
# cycles over the whole queue at once. Each cycle that ends after that, up to CYCLES per
# cluster, is one line "CYCLE_US TRY_DEPTH QUEUE_LENGTH CPU_TICKS TRIES" in pcycles-TAG.txt, from
# sdiag read every second (CPU_TICKS: the backfill thread's CPU time since the end of the cycle
# before, or since the start time: what the cycle cost on its CPU, without the time it waited
# for one, which two clusters on two cores share unevenly; TRIES: with --count-tries the
# cycle's calls of select_p_job_test, else -). A cycle takes seconds to minutes; backfill
# sleeps bf_interval, 5 s, between two. A cycle that began over part of the queue (the submissions overran the start time) is
# not counted. Both clusters keep cycling until both have CYCLES, so that neither runs alone.
paired_cycles() {
  local a=${policy_list[0]} b=${policy_list[1]} k i first second t0 f n begin opts tag when cpu used tries
  local -a seen=() counted=() tags=() pids=() cpu_at=() tries_at=()
  bf_tids=() restarts=()
  tags=("$(pc_tag 0)" "$(pc_tag 1)")
  probe_start "$out/stall-pcycles.txt"
  pair_start cycles "$a" "$b"
  # 10,000 sbatch took 31 ms each with backfill idle here (4,096 nodes); 40 ms allowed, and
  # 30 s. Should they overrun it, the cycle they overran is not counted (below).
  begin=$((EPOCHSECONDS + 2 * queue * 40 / 1000 + 30))
  log "paired cycles: $queue jobs to both $a and $b, one sbatch to each in turn, all to start" \
    "at $(date -d "@$begin" +%T)"
  : >"$out/pcycles.err"
  opts=$sbatch_opts
  when=$(date -d "@$begin" +%Y-%m-%dT%H:%M:%S)
  for ((i = 0; i < queue; i++)); do
    if ((i % 2)); then first=1 second=0; else first=0 second=1; fi
    for k in "$first" "$second"; do
      sbatch_opts="$opts --begin=$when"
      [ "$k" = 0 ] || sbatch_opts="$sbatch_opts $sbatch_opts_b"
      SLURM_CONF=${pair_slot[$k]} queue_sbatch "$i" "$out/pcycles.err" || die "--paired-cycles: ${tags[$k]}: $refused"
    done
  done
  sbatch_opts=$opts
  for k in 0 1; do
    f=$out/sdiag-pc-${tags[$k]}.txt
    : >"$out/pcycles-${tags[$k]}.txt"
    SLURM_CONF=${pair_slot[$k]} sdiag >"$f" || die "--paired-cycles: ${tags[$k]}: sdiag failed"
    seen[k]=$(sdiag_field "$f" Backfilling "Total cycles")
    [[ ${seen[$k]} =~ ^[0-9]+$ ]] || die "--paired-cycles: ${tags[$k]}: no backfill 'Total cycles' in sdiag ($f)"
    counted[k]=0
  done
  for k in 0 1; do
    pids[k]=$(cat "${pair_dirs[$k]}/pids/slurmctld")
    bf_tids[k]=$(bf_thread "${pids[$k]}")
    cpu_at[k]=$(bf_cpu "${pids[$k]}" "${bf_tids[$k]}")
    [[ ${cpu_at[$k]} =~ ^[0-9]+$ ]] || die "--paired-cycles: ${tags[$k]}: no backfill thread (bckfl) in slurmctld ${pids[$k]}"
    tries_at[k]=0
  done
  [ "$count_tries" = 0 ] || tries_start
  swap_start "${pids[0]}" "${pids[1]}"
  if [ "$EPOCHSECONDS" -le "$begin" ]; then
    log "paired cycles: submitted $((begin - EPOCHSECONDS)) s before the start time; waiting for it"
    sleep $((begin - EPOCHSECONDS + 1))
  fi
  log "paired cycles: $( ((restart_cycles)) && echo "a reservation holds" || echo "$domains fill jobs hold")" \
    "every node of each, $queue jobs wait in each; waiting for $cycles backfill cycles of both"
  t0=$SECONDS
  while [ "${counted[0]}" -lt "$cycles" ] || [ "${counted[1]}" -lt "$cycles" ]; do
    [ $((SECONDS - t0)) -lt $(((cycles + 2) * 900)) ] ||
      die "--paired-cycles: ${counted[0]} and ${counted[1]} of $cycles cycles in $(((cycles + 2) * 900)) s"
    sleep 1
    for k in 0 1; do
      tag=${tags[$k]}
      f=$out/sdiag-pc-$tag.txt
      SLURM_CONF=${pair_slot[$k]} sdiag >"$f" || die "--paired-cycles: $tag: sdiag failed"
      n=$(sdiag_field "$f" Backfilling "Total cycles")
      [ "${n:-0}" -gt "${seen[$k]}" ] || continue
      cpu=$(bf_cpu "${pids[$k]}" "${bf_tids[$k]}")
      [[ $cpu =~ ^[0-9]+$ ]] || die "--paired-cycles: $tag: slurmctld ${pids[$k]} has no backfill thread now"
      used=$((cpu - cpu_at[k]))
      cpu_at[k]=$cpu
      tries=-
      if [ "$count_tries" = 1 ]; then
        sleep 1.2 # the count of the second the cycle ended in
        tries=$(tries_read "$k")
        tries=$((tries - tries_at[k])) tries_at[k]=$((tries_at[k] + tries))
      fi
      # Two cycles ended within one read (never seen: a cycle here takes minutes): the last
      # one's figures are all sdiag keeps, so it counts as one.
      [ "$n" -eq $((seen[k] + 1)) ] ||
        log "paired cycles: $tag: $((n - seen[k])) cycles ended within one read of sdiag; the last one counted"
      seen[k]=$n
      [ "${counted[$k]}" -lt "$cycles" ] || continue
      # A cycle that began before the last submission (they overran the start time) or before
      # the start time tried part of the queue or none of it: not counted.
      if [ "$(sdiag_field "$f" Backfilling "Last queue length")" != "$queue" ]; then
        log "paired cycles: $tag: a cycle over $(sdiag_field "$f" Backfilling "Last queue length") of $queue jobs, not counted"
        continue
      fi
      echo "$(sdiag_field "$f" Backfilling "Last cycle") $(sdiag_field "$f" Backfilling "Last depth cycle (try sched)")" \
        "$(sdiag_field "$f" Backfilling "Last queue length") $used $tries" >>"$out/pcycles-$tag.txt"
      counted[k]=$((counted[k] + 1))
      log "paired cycles: $tag: cycle ${counted[$k]} of $cycles: $(tail -n 1 "$out/pcycles-$tag.txt")"
      if [ "$restart_cycles" = 1 ] && [ "${counted[$k]}" -lt "$cycles" ]; then
        pc_restart "$k"
        seen[k]=0 # sdiag's counters start again with the process
      fi
    done
  done
  for k in 0 1; do
    [ "$(SLURM_CONF=${pair_slot[$k]} squeue -h -t PD | wc -l)" = "$queue" ] ||
      die "--paired-cycles: ${tags[$k]}: a queue job started (the cluster should be full)"
    grep 'railguard: job_submit/rail: keeper pass' "${pair_dirs[$k]}/ctld/slurmctld.log" \
      >"$out/keeper-pc-${tags[$k]}.log" || true
    cp "${pair_dirs[$k]}/ctld/slurmctld.log" "$out/slurmctld-pc-${tags[$k]}.log"
  done
  swap_stop
  tries_stop
  pair_stop
  probe_stop
}

# pc_restart K: --restart-cycles: slurmctld of cluster K stopped (SIGTERM: it saves its state)
# and started again from that state; pids[K], bf_tids[K] and cpu_at[K] (paired_cycles's) follow
# the new process, whose backfill thread appears a moment after it answers. The other cluster
# runs alone meanwhile (seconds), each in turn.
pc_restart() {
  local k=$1 d=${pair_dirs[$1]} i
  RAILGUARD_CLUSTER_DIR=$d rg_cluster_kill slurmctld TERM >/dev/null 2>&1 ||
    die "--restart-cycles: ${tags[$k]}: slurmctld did not stop ($d)"
  RAILGUARD_CLUSTER_DIR=$d rg_cluster_respawn slurmctld >/dev/null 2>&1 ||
    die "--restart-cycles: ${tags[$k]}: slurmctld did not start again ($d/ctld/slurmctld.log)"
  pids[k]=$(cat "$d/pids/slurmctld")
  for ((i = 0; i < 300; i++)); do
    bf_tids[k]=$(bf_thread "${pids[$k]}")
    [ -z "${bf_tids[$k]}" ] || break
    sleep 0.1
  done
  cpu_at[k]=$(bf_cpu "${pids[$k]}" "${bf_tids[$k]}")
  [[ ${cpu_at[$k]} =~ ^[0-9]+$ ]] || die "--restart-cycles: ${tags[$k]}: no backfill thread 30 s after the restart"
  restarts[k]=$((${restarts[$k]:-0} + 1))
}

# paired_cycles_table: --paired-cycles's table. Per pair of cycles (A's k-th and B's k-th,
# which ran at about the same time) each one's time per job tested (its time over sdiag's try
# depth) and B's against A's; then the median of those ratios and the ratio of the sums.
paired_cycles_table() {
  local a=${policy_list[0]} b=${policy_list[1]}
  echo "Slurm $release, $nodes CLOUD nodes in $domains one-hop domains of $size, full;" \
    "$queue waiting jobs of 1-$((2 * size)) nodes in each of two clusters running at once;" \
    "$cycles backfill cycles each (sdiag)"
  echo "A: ${label[$a]}   B: ${label[$b]}${sbatch_opts_b:+, its queue jobs also with $sbatch_opts_b}"
  paste -d ' ' "$out/pcycles-$(pc_tag 0).txt" "$out/pcycles-$(pc_tag 1).txt" |
    awk -v q="$queue" -v tick_ms="$((1000 / $(getconf CLK_TCK)))" '
    function pct(r) { return sprintf("%+.1f%%", (r - 1) * 100) }
    function secs(ms) { return (ms < 10000) ? sprintf("%.1f ms", ms) : sprintf("%.1f s", ms / 1000) }
    function sort(a, n,   i, j, v) { for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v } }
    function median(a, n) { return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    BEGIN { printf "%-6s %26s %26s %8s %17s %17s %8s\n", "cycle", "A: per job tested (ms)", "B: per job tested (ms)",
              "B vs A", "A: on CPU (ms)", "B: on CPU (ms)", "B vs A" }
    { ta = $1 / 1000; da = $2; ca = $4 * tick_ms; tb = $6 / 1000; db = $7; cb = $9 * tick_ms
      if (da <= 0 || db <= 0) { printf "%-6d %26s %26s %8s\n", NR, "no job tried", "", "-"; next }
      ja = ta / da; jb = tb / db; n++; r[n] = jb / ja; sa += ta; sda += da; sb += tb; sdb += db
      if ($5 ~ /^[0-9]+$/ && $10 ~ /^[0-9]+$/) { tra += $5; trb += $10 }
      ka = ca / da; kb = cb / db; sca += ca; scb += cb
      # A cycle shorter than a clock tick reads 0 s of CPU: no ratio, and none in the median.
      if (ka > 0 && kb > 0) { m++; rc[m] = kb / ka; cpct = pct(kb / ka) } else cpct = "-"
      note = ($3 != q || $8 != q || da != q || db != q) ? "  (not the whole queue: tried " da " / " db ", queue " $3 " / " $8 ")" : ""
      printf "%-6d %26s %26s %8s %17s %17s %8s%s\n", NR, sprintf("%.2f (cycle %s)", ja, secs(ta)),
        sprintf("%.2f (cycle %s)", jb, secs(tb)), pct(r[n]), sprintf("%.2f (%.1f s)", ka, ca / 1000),
        sprintf("%.2f (%.1f s)", kb, cb / 1000), cpct, note }
    END { if (n == 0) { print "no cycle to compare"; exit }
          sort(r, n); sort(rc, m)
          printf "B vs A per job tested: median of the %d pairs %s (from %s to %s); all cycles together %s\n",
            n, pct(median(r, n)), pct(r[1]), pct(r[n]), pct((sb / sdb) / (sa / sda))
          # Under a second of CPU on either side (tiny runs) the clock ticks say nothing.
          if (m > 0 && sca >= 1000 && scb >= 1000)
            printf "the same on the backfill thread'"'"'s CPU: median %s (from %s to %s); all cycles together %s\n",
              pct(median(rc, m)), pct(rc[1]), pct(rc[m]), pct((scb / sdb) / (sca / sda))
          if (tra != "")
            printf "Slurm'"'"'s tries (select_p_job_test calls of the backfill thread) per job tested: A %.2f, B %.2f (B vs A %s)\n",
              tra / sda, trb / sdb, pct((trb / sdb) / (tra / sda)) }'
  if [ "$restart_cycles" = 1 ]; then
    echo "processes: each slurmctld restarted after each of its cycles (A ${restarts[0]:-0}, B ${restarts[1]:-0} times);" \
      "every node reserved instead of fill jobs"
  fi
  if [ -s "$out/swaps.txt" ]; then
    echo "CPUs: A's and B's slurmctld pinned to CPUs ${swap_sets[0]} and ${swap_sets[1]}, the two swapped every" \
      "$swap_cpus s ($(($(wc -l <"$out/swaps.txt") - 1)) swaps)"
  else
    echo "CPUs: neither slurmctld pinned (--swap-cpus 0)"
  fi
  cat "$out/stall-pcycles.txt" 2>/dev/null |
    awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
           printf "machine: CPU stalls >1 ms / longest (ms): %d / %.1f\n", v["stalls"], v["longest_ms"] }'
}
