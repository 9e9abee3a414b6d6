# SPDX-License-Identifier: GPL-2.0-or-later
# The feature keeper's stats lines (job_submit/rail with RAILGUARD_KEEPER_STATS set; its
# `keeper pass` lines in slurmctld.log), one output line per pass, fields separated by spaces:
#
#   pass_ms lock_ms lock_cpu_ms changed holds most which slow_ms slow_node invol vol cpu_max_ms
#   all_holds holds_over pass_cpu_ms apply_cpu_ms queued_cpu_ms
#
# pass_ms      the pass's time outside lock queues
# lock_ms      its longest hold of a slurmctld lock (wall time)
# lock_cpu_ms  the keeper thread's CPU time in that hold ("-" in lines before it was logged)
# changed      nodes whose feature lists it changed
# holds        holds of the write locks that changed features ("-" before they were logged)
# most         the most nodes changed in one of them ("-" likewise)
# which        which hold was the longest, spaces as dashes: config-read, node-look,
#              feature-change, parked-job-look, parked-job-change ("-" before it was logged)
# slow_ms      the node look's slowest group of 8 nodes (wall time), and slow_node the name of
# slow_node    its first node ("-" when the pass did not look at nodes or the line is older)
# invol        the longest hold's involuntary context switches (the kernel ran another task on
#              its CPU: it waited for a CPU), and vol its voluntary ones (it blocked: a mutex,
# vol          a page in, I/O); "-" in lines before they were logged
# cpu_max_ms   the most CPU time one hold of the pass took, whichever ("-" likewise)
# all_holds    the pass's holds of any lock, and holds_over those that took over 1 ms of CPU
# holds_over   ("-" likewise)
# pass_cpu_ms  the keeper thread's CPU time in the pass, queues and naps not counted ("-"
#              likewise): pass_ms less the time it waited for a CPU or blocked. Lines before
#              queued_cpu_ms was logged counted the queues' CPU time in it too
# apply_cpu_ms the keeper thread's CPU time in its holds that changed features (Slurm's
#              bookkeeping of the changes and the keeper's own asking again; "-" likewise)
# queued_cpu_ms the keeper thread's CPU time while queued on slurmctld's locks (the kernel's
#              work of the waits and wake-ups; "-" likewise)
#
# Used by bench/sched_scale.sh (its keeper rows) and tests/bench/sched_scale_itest.sh.
/keeper pass / {
  pass = lock = ""
  cpu = holds = most = which = slow = slow_node = invol = vol = cpu_max = all_holds = over = pass_cpu = apply_cpu = queued_cpu = "-"
  changed = 0
  for (i = 1; i <= NF; i++) {
    if ($i == "pass" && pass == "") pass = $(i + 1) + 0
    if ($i == "lock" && lock == "") {
      lock = $(i + 1) + 0
      if ($(i + 3) ~ /^\(/) cpu = substr($(i + 3), 2) + 0
      # "(0.32 ms on CPU, node look)," names the hold after "CPU,"
      if ($(i + 6) == "CPU,") {
        which = ""
        for (j = i + 7; j <= NF; j++) {
          w = $j
          last = (w ~ /\),?$/)
          sub(/\),?$/, "", w)
          which = which (which == "" ? "" : "-") w
          if (last) break
        }
      }
    }
    if ($(i + 1) == "features" && $(i + 2) == "changed,") changed = $i + 0
    if ($i == "holds" && $(i + 1) == "changed") holds = $(i - 1) + 0
    if ($i == "most" && $(i + 2) == "nodes") most = $(i + 1) + 0
    # "slowest nodes from n0042, 0.012 ms"
    if ($i == "slowest" && $(i + 1) == "nodes" && $(i + 2) == "from") {
      slow_node = $(i + 3)
      sub(/,$/, "", slow_node)
      if (slow_node != "-") slow = $(i + 4) + 0
    }
    # "longest lock switched 3 involuntary 0 voluntary; most CPU in one hold 0.41 ms (...)"
    if ($i == "switched" && $(i + 2) == "involuntary") {
      invol = $(i + 1) + 0
      vol = $(i + 3) + 0
    }
    if ($i == "one" && $(i + 1) == "hold" && $(i - 1) == "in") cpu_max = $(i + 2) + 0
    # "; the pass on CPU 3.10 ms"
    if ($i == "pass" && $(i + 1) == "on" && $(i + 2) == "CPU") pass_cpu = $(i + 3) + 0
    # "; feature changes on CPU 0.31 ms"
    if ($i == "changes" && $(i + 1) == "on" && $(i + 2) == "CPU") apply_cpu = $(i + 3) + 0
    # "; queued on CPU 0.05 ms"
    if ($i == "queued" && $(i + 1) == "on" && $(i + 2) == "CPU") queued_cpu = $(i + 3) + 0
    # "; 256 holds, 1 over 1 ms on CPU"
    if ($i == "holds," && $(i + 2) == "over") {
      all_holds = $(i - 1) + 0
      over = $(i + 1) + 0
    }
  }
  if (pass == "" || lock == "") next
  print pass, lock, cpu, changed, holds, most, which, slow, slow_node, invol, vol, cpu_max, all_holds, over, pass_cpu, apply_cpu, queued_cpu
}
