// SPDX-License-Identifier: GPL-2.0-or-later
/* What the railguard SPANK plugin costs a job step in slurmstepd: each run is a fresh process
 * (as every step's slurmstepd is) that loads the plugin (dlopen), calls slurm_spank_init in
 * the remote context and slurm_spank_task_init for one node, with this program standing in
 * for slurmstepd's SPANK functions. Side by side: the plugin's NCCL_IB_HCA cache (a fresh
 * folder, filled by the first run) and cache=none (the topology parsed at every step, as
 * before the cache). Prints a table of p50 / p95 in milliseconds.
 *
 *   bench_spank_step --plugin spank_railguard.so --config railguard.yaml --node NAME
 *                    [--runs N] [--label TEXT]
 */
#include <dirent.h>
#include <dlfcn.h>
#include <slurm/spank.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *bench_node = "";
static int set_count;

/* slurmstepd's side of the SPANK API, as far as the plugin uses it in a step. */
spank_context_t spank_context(void) { return S_CTX_REMOTE; }
spank_err_t spank_option_register(spank_t sp, struct spank_option *opt) {
  (void)sp;
  (void)opt;
  return ESPANK_SUCCESS;
}
const char *spank_strerror(spank_err_t err) {
  (void)err;
  return "bench";
}
int spank_remote(spank_t sp) {
  (void)sp;
  return 1;
}
spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len) {
  (void)sp;
  if (strcmp(var, "SLURMD_NODENAME") != 0) return ESPANK_ENV_NOEXIST;
  snprintf(buf, (size_t)len, "%s", bench_node);
  return ESPANK_SUCCESS;
}
spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite) {
  (void)sp;
  (void)var;
  (void)val;
  (void)overwrite;
  set_count++;
  return ESPANK_SUCCESS;
}
spank_err_t spank_job_control_setenv(spank_t sp, const char *var, const char *val, int ow) {
  (void)sp;
  (void)var;
  (void)val;
  (void)ow;
  return ESPANK_SUCCESS;
}
void slurm_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_spank_step: plugin error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
void slurm_verbose(const char *fmt, ...) { (void)fmt; }

static double ms_between(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

typedef int (*spank_fn)(spank_t, int, char **);

/* One step in a child process; writes "load init task set" (ms, ms, ms, count) to `fd`. */
static int one_step(const char *plugin, char **args, int nargs, int fd) {
  struct timespec t0, t1, t2, t3;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  void *h = dlopen(plugin, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    fprintf(stderr, "bench_spank_step: cannot load %s: %s\n", plugin, dlerror());
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  spank_fn init = (spank_fn)dlsym(h, "slurm_spank_init");
  spank_fn task = (spank_fn)dlsym(h, "slurm_spank_task_init");
  if (!init || !task) {
    fprintf(stderr, "bench_spank_step: %s lacks slurm_spank_init or slurm_spank_task_init\n",
            plugin);
    return 1;
  }
  if (init(NULL, nargs, args) != 0) return 1;
  clock_gettime(CLOCK_MONOTONIC, &t2);
  if (task(NULL, nargs, args) != 0) return 1;
  clock_gettime(CLOCK_MONOTONIC, &t3);
  dprintf(fd, "%f %f %f %d\n", ms_between(&t0, &t1), ms_between(&t1, &t2), ms_between(&t2, &t3),
          set_count);
  return 0;
}

/* Removes the bench's folder: <dir>/cache/<files>, <dir>/cache, <dir>. */
static void remove_tree(const char *dir) {
  char path[4200];
  snprintf(path, sizeof(path), "%s/cache", dir);
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
        continue;
      char file[4500];
      snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
      unlink(file);
    }
    closedir(d);
    rmdir(path);
  }
  if (rmdir(dir) != 0) fprintf(stderr, "bench_spank_step: could not remove %s\n", dir);
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double pct(double *v, int n, double p) {
  int i = (int)(p * n + 0.999999) - 1;
  qsort(v, (size_t)n, sizeof(*v), cmp_double);
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return v[i];
}

/* `runs` steps with plugstack arguments `args`; the first `warm` are not counted. */
static int measure(const char *plugin, char **args, int nargs, int runs, int warm, double *load,
                   double *init, double *task, int *unset) {
  *unset = 0;
  for (int r = 0; r < runs + warm; r++) {
    int p[2];
    if (pipe(p) != 0) return 1;
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      close(p[0]);
      _exit(one_step(plugin, args, nargs, p[1]));
    }
    close(p[1]);
    char buf[256] = {0};
    ssize_t got = read(p[0], buf, sizeof(buf) - 1);
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    double a, b, c;
    int set;
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        sscanf(buf, "%lf %lf %lf %d", &a, &b, &c, &set) != 4) {
      fprintf(stderr, "bench_spank_step: step %d failed\n", r + 1);
      return 1;
    }
    if (r < warm) continue;
    load[r - warm] = a;
    init[r - warm] = b;
    task[r - warm] = c;
    if (set == 0) (*unset)++;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *plugin = NULL, *config = NULL, *label = "";
  int runs = 50;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--plugin") && v)
      plugin = argv[++i];
    else if (!strcmp(argv[i], "--config") && v)
      config = argv[++i];
    else if (!strcmp(argv[i], "--node") && v)
      bench_node = argv[++i];
    else if (!strcmp(argv[i], "--label") && v)
      label = argv[++i];
    else if (!strcmp(argv[i], "--runs") && v) {
      runs = atoi(argv[++i]);
      if (runs < 1 || runs > 100000) {
        fprintf(stderr, "bench_spank_step: --runs needs 1 to 100000, got '%s'\n", argv[i]);
        return 2;
      }
    } else {
      fprintf(stderr,
              "usage: bench_spank_step --plugin SO --config RAILGUARD_YAML --node NAME "
              "[--runs N] [--label TEXT]\n");
      return 2;
    }
  }
  if (!plugin || !config || !bench_node[0]) {
    fprintf(stderr, "bench_spank_step: --plugin, --config and --node are required\n");
    return 2;
  }
  char dir[] = "/tmp/rg-spank-step.XXXXXX";
  if (!mkdtemp(dir)) {
    perror("bench_spank_step: mkdtemp");
    return 1;
  }
  char conf_arg[4096], cache_arg[4096], none_arg[] = "cache=none";
  snprintf(conf_arg, sizeof(conf_arg), "config=%s", config);
  snprintf(cache_arg, sizeof(cache_arg), "cache=%s/cache", dir);
  char *with_cache[] = {conf_arg, cache_arg};
  char *without[] = {conf_arg, none_arg};
  double *v = calloc((size_t)runs * 6, sizeof(double));
  if (!v) return 1;
  int unset_a = 0, unset_b = 0;
  /* The cache's first step builds the file: one warm-up run, not counted. */
  int rc =
      measure(plugin, without, 2, runs, 0, v, v + runs, v + 2 * runs, &unset_a) ||
      measure(plugin, with_cache, 2, runs, 1, v + 3 * runs, v + 4 * runs, v + 5 * runs, &unset_b);
  remove_tree(dir);
  if (rc) return 1;
  if (unset_a || unset_b) {
    fprintf(stderr, "bench_spank_step: NCCL_IB_HCA was not set for node %s in %d steps\n",
            bench_node, unset_a + unset_b);
    return 1;
  }
  const char *names[] = {"cache=none (the topology at every step)", "cache (one file per step)"};
  printf("%-44s %8s %8s %8s %8s %8s %8s\n", label[0] ? label : "per step, ms (p50 / p95)", "load50",
         "load95", "init50", "init95", "task50", "task95");
  for (int m = 0; m < 2; m++) {
    double *base = v + (size_t)m * 3 * runs;
    printf("%-44s %8.2f %8.2f %8.2f %8.2f %8.3f %8.3f\n", names[m], pct(base, runs, 0.5),
           pct(base, runs, 0.95), pct(base + runs, runs, 0.5), pct(base + runs, runs, 0.95),
           pct(base + 2 * runs, runs, 0.5), pct(base + 2 * runs, runs, 0.95));
  }
  free(v);
  return 0;
}
