// SPDX-License-Identifier: GPL-2.0-or-later
// A preload library for bench/fabric_sweep.sh: counts the MADs a libibumad program sends, so
// that railctl fabric sweep and ibqueryerrors are measured by the same rule. It wraps
// umad_send() (every SMP and PMA query of libibmad and libibnetdisc goes through it), passes
// each call on to the next definition (libibumad, under libumad2sim), and at exit writes the
// number of calls that returned 0 to the file named by $RAILGUARD_MAD_COUNT_FILE. Load it
// before libumad2sim.so: LD_PRELOAD="mad_count.so libumad2sim.so".
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*umad_send_fn)(int, int, void*, int, int, int);

static unsigned long long g_sent;

int umad_send(int portid, int agentid, void* umad, int length, int timeout_ms, int retries) {
  static umad_send_fn next;
  if (!next) next = (umad_send_fn)dlsym(RTLD_NEXT, "umad_send");
  if (!next) return -1;
  const int rc = next(portid, agentid, umad, length, timeout_ms, retries);
  if (rc == 0) __atomic_add_fetch(&g_sent, 1, __ATOMIC_RELAXED);
  return rc;
}

__attribute__((destructor)) static void mad_count_write(void) {
  const char* path = getenv("RAILGUARD_MAD_COUNT_FILE");
  if (!path || !*path) return;
  FILE* f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "%llu\n", __atomic_load_n(&g_sent, __ATOMIC_RELAXED));
  fclose(f);
}
