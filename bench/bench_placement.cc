// SPDX-License-Identifier: GPL-2.0-or-later
// bench_placement: the C++ half of bench/placement.sh. `stream` cuts the time-compressed job
// stream out of a trace; `switches` gives each multi-node job of it the --switches a short
// job_submit/lua would; `degraded-extra` prints the Extra railcheck writes for a restricted
// node; `report` reads each policy's jobcomp/filetxt file and prints the side-by-side table
// and the verdicts.
//
// usage: bench_placement stream TRACE [options] [-o FILE]
//        bench_placement switches --stream FILE --su-nodes N --wait SECONDS
//        bench_placement degraded-extra --topo YAML [--rail K] [--time T]
//        bench_placement report --topo YAML --stream FILE --run TITLE=JOBCOMP... [options]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "base/diag.h"
#include "base/numbers.h"
#include "base/text_file.h"
#include "bench/placement_report.h"
#include "bench/trace.h"
#include "topo/topology_yaml.h"

namespace {

namespace bench = railguard::bench;

constexpr char kStreamUsage[] =
    "usage: bench_placement stream TRACE [--format auto|csv|swf] [--skip K] [--jobs N]\n"
    "         [--compress F] [--load L] [--max-duration S] [--node-gpus G] [--max-nodes N]\n"
    "         [-o FILE]\n"
    "  Writes the job stream (one job per line) to FILE or stdout and a summary to stderr.\n"
    "  --skip K        leave out the first K jobs of the trace (sorted by submission)\n"
    "  --jobs N        take N jobs after those (default: all)\n"
    "  --compress F    trace seconds per benchmark second, for gaps and run times (default 1)\n"
    "  --load L        L times the trace's arrival rate: gaps shrink by L more, run times\n"
    "                  do not (default 1: the trace as it was)\n"
    "  --max-duration S  cap each run time at S benchmark seconds (default: no cap)\n"
    "  --node-gpus G   GPUs per node (default 8)\n"
    "  --max-nodes N   fail if a job needs more than N nodes (the layout's size)\n";

constexpr char kReportUsage[] =
    "usage: bench_placement report --topo YAML --stream FILE --run TITLE=JOBCOMP...\n"
    "         [--fault TITLE=FILE]... [--due-origin TITLE=TIME]... [--baseline TITLE]\n"
    "         [--verdict TITLE]... [--details]\n"
    "  Prints one column per --run (jobcomp/filetxt file of that policy's run).\n"
    "  --fault TITLE=FILE  the fault injected into that run ('<YYYY-MM-DDTHH:MM:SS> <hostlist>'):\n"
    "                  jobs started on those nodes from that second on are counted\n"
    "  --due-origin TITLE=YYYY-MM-DDTHH:MM:SS  that run was submitted ahead with --begin: its\n"
    "                  stream's second 0; waits count from each job's due second, not its\n"
    "                  SubmitTime\n"
    "  --baseline TITLE  the run the verdicts compare with (default: the first)\n"
    "  --verdict TITLE   a run that gets a verdict line (default: every run but the baseline)\n"
    "  --details       also list the multi-node jobs that fit one SU but spanned more, and\n"
    "                  the jobs started on degraded nodes\n";

constexpr char kSwitchesUsage[] =
    "usage: bench_placement switches --stream FILE --su-nodes N --wait SECONDS\n"
    "  Prints '<seq> --switches=<ceil(nodes/N)>@<min>:<ss>' for each multi-node job of the\n"
    "  stream: what a job_submit/lua of a few lines sets on stock topology/tree.\n";

constexpr char kExtraUsage[] =
    "usage: bench_placement degraded-extra --topo YAML [--rail K] [--time T]\n"
    "  Prints the Extra value railcheck publishes for a node it restricts because rail K\n"
    "  (default 0) of the layout's rails is degraded, judged at T (default now).\n";

// Reads an option value: `argv[*i]` is the option, the value follows.
bool Value(int argc, char** argv, int* i, std::string* out) {
  if (*i + 1 >= argc) {
    std::fprintf(stderr, "bench_placement: %s needs a value\n", argv[*i]);
    return false;
  }
  *out = argv[++*i];
  return true;
}

bool ToSize(const std::string& flag, const std::string& v, size_t* out) {
  long n = 0;
  if (v.empty() || v[0] == '-' || !railguard::ParseLong(v, 0, 1L << 40, &n)) {
    std::fprintf(stderr, "bench_placement: %s '%s'; expected a whole number, 0 or more\n",
                 flag.c_str(), v.c_str());
    return false;
  }
  *out = static_cast<size_t>(n);
  return true;
}

bool ToDouble(const std::string& flag, const std::string& v, double* out) {
  if (!railguard::ParseStrtod(v, out)) {
    std::fprintf(stderr, "bench_placement: %s '%s'; expected a number\n", flag.c_str(), v.c_str());
    return false;
  }
  return true;
}

int Stream(int argc, char** argv) {
  std::string trace_path, out_path, v;
  bench::TraceFormat format = bench::TraceFormat::kAuto;
  bench::StreamOptions opt;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    size_t n = 0;
    if (a == "--help" || a == "-h") {
      std::fputs(kStreamUsage, stdout);
      return 0;
    } else if (a == "--format") {
      if (!Value(argc, argv, &i, &v)) return 2;
      if (!bench::ParseTraceFormat(v, &format)) {
        std::fprintf(stderr, "bench_placement: --format '%s'; expected auto, csv or swf\n",
                     v.c_str());
        return 2;
      }
    } else if (a == "--skip") {
      if (!Value(argc, argv, &i, &v) || !ToSize(a, v, &opt.skip)) return 2;
    } else if (a == "--jobs") {
      if (!Value(argc, argv, &i, &v) || !ToSize(a, v, &opt.jobs)) return 2;
    } else if (a == "--compress") {
      if (!Value(argc, argv, &i, &v) || !ToDouble(a, v, &opt.compress)) return 2;
    } else if (a == "--load") {
      if (!Value(argc, argv, &i, &v) || !ToDouble(a, v, &opt.load)) return 2;
    } else if (a == "--max-duration") {
      if (!Value(argc, argv, &i, &v) || !ToDouble(a, v, &opt.max_duration)) return 2;
    } else if (a == "--node-gpus") {
      if (!Value(argc, argv, &i, &v) || !ToSize(a, v, &n)) return 2;
      opt.node_gpus = static_cast<uint32_t>(std::min<size_t>(n, 1u << 20));
    } else if (a == "--max-nodes") {
      if (!Value(argc, argv, &i, &v) || !ToSize(a, v, &n)) return 2;
      opt.max_nodes = static_cast<uint32_t>(std::min<size_t>(n, 1u << 30));
    } else if (a == "-o") {
      if (!Value(argc, argv, &i, &out_path)) return 2;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "bench_placement: stream: unknown option %s\n%s", a.c_str(),
                   kStreamUsage);
      return 2;
    } else if (trace_path.empty()) {
      trace_path = a;
    } else {
      std::fprintf(stderr, "bench_placement: stream: one TRACE only\n%s", kStreamUsage);
      return 2;
    }
  }
  if (trace_path.empty()) {
    std::fputs(kStreamUsage, stderr);
    return 2;
  }
  bench::Trace trace;
  std::string err;
  std::vector<bench::StreamJob> jobs;
  if (!bench::ReadTraceFile(trace_path, format, &trace, &err) ||
      !bench::BuildStream(trace, opt, &jobs, &err)) {
    std::fprintf(stderr, "bench_placement: %s\n", err.c_str());
    return 1;
  }
  const size_t first = opt.skip + 1, last = opt.skip + jobs.size();
  char comment[512];
  std::snprintf(comment, sizeof comment,
                "job stream of bench/placement.sh from %s (%s): trace jobs %zu-%zu of %zu "
                "(sorted by submission), compression %g, load %g, run time cap %g s, %u GPUs "
                "per node",
                trace_path.c_str(), trace.format == bench::TraceFormat::kCsv ? "CSV" : "SWF", first,
                last, trace.jobs.size(), opt.compress, opt.load, opt.max_duration, opt.node_gpus);
  const std::string text = bench::FormatStream(jobs, comment);
  if (out_path.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    FILE* f = std::fopen(out_path.c_str(), "w");
    if (!f || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0) {
      std::fprintf(stderr, "bench_placement: cannot write %s\n", out_path.c_str());
      return 1;
    }
  }
  int multi = 0;
  uint32_t max_nodes = 0;
  std::vector<uint32_t> durations;
  for (const bench::StreamJob& j : jobs) {
    if (j.nodes > 1) ++multi;
    max_nodes = std::max(max_nodes, j.nodes);
    durations.push_back(j.duration);
  }
  std::sort(durations.begin(), durations.end());
  std::fprintf(stderr,
               "stream: %zu jobs (trace jobs %zu-%zu), %d multi-node (largest %u nodes); "
               "submissions over %.1f s, run times %u-%u s (median %u s)",
               jobs.size(), first, last, multi, max_nodes, jobs.back().submit_at, durations.front(),
               durations.back(), durations[durations.size() / 2]);
  if (trace.skipped > 0) {
    std::fprintf(stderr,
                 "; %d trace jobs without run time or processors left out (first at "
                 "line %d)",
                 trace.skipped, trace.first_skipped_line);
  }
  std::fputs("\n", stderr);
  return 0;
}

// Reads the stream file at `path` into `out`; false after printing the error.
bool LoadStream(const std::string& path, std::vector<bench::StreamJob>* out) {
  std::string text, err;
  railguard::Diags diags;
  if (!railguard::ReadTextFile(path, railguard::kTraceInput, &text, &diags) ||
      !bench::ParseStream(text, path, out, &err)) {
    std::fprintf(stderr, "bench_placement: %s\n",
                 err.empty() ? railguard::FormatDiags(diags).c_str() : err.c_str());
    return false;
  }
  return true;
}

// Reads the layout at `path`; false after printing the problems.
bool LoadTopo(const std::string& path, railguard::topo::Topology* topo) {
  railguard::Diags diags;
  if (railguard::topo::LoadTopologyFile(path, topo, &diags)) return true;
  std::fputs(railguard::FormatDiags(diags).c_str(), stderr);
  return false;
}

// One option with a value, of a subcommand: its flag and what to do with the value (false
// after printing the error).
struct Opt {
  const char* flag;
  std::function<bool(const std::string& flag, const std::string& value)> set;
};

// Parses the arguments of subcommand `cmd` against `opts`; --help prints `usage`. Returns -1
// when the command goes on, else its exit code (0 after --help, 2 after an error).
int ParseOpts(int argc, char** argv, const char* cmd, const char* usage,
              const std::vector<Opt>& opts) {
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    auto o = std::find_if(opts.begin(), opts.end(), [&](const Opt& x) { return a == x.flag; });
    if (o == opts.end()) {
      std::fprintf(stderr, "bench_placement: %s: unknown argument %s\n%s", cmd, a.c_str(), usage);
      return 2;
    }
    std::string v;
    if (!Value(argc, argv, &i, &v) || !o->set(a, v)) return 2;
  }
  return -1;
}

int Switches(int argc, char** argv) {
  std::string stream_path;
  size_t su_nodes = 0, wait = 0;
  bool have_su = false, have_wait = false;
  const int rc = ParseOpts(
      argc, argv, "switches", kSwitchesUsage,
      {{"--stream",
        [&](const std::string&, const std::string& v) {
          stream_path = v;
          return true;
        }},
       {"--su-nodes", [&](const std::string& f,
                          const std::string& v) { return (have_su = ToSize(f, v, &su_nodes)); }},
       {"--wait", [&](const std::string& f, const std::string& v) {
          return (have_wait = ToSize(f, v, &wait));
        }}});
  if (rc >= 0) return rc;
  if (stream_path.empty() || !have_su || !have_wait) {
    std::fputs(kSwitchesUsage, stderr);
    return 2;
  }
  if (su_nodes < 1 || su_nodes > (1u << 30) || wait > (1u << 30)) {
    std::fprintf(stderr,
                 "bench_placement: switches: --su-nodes from 1 to 2^30 and --wait up to "
                 "2^30 s expected\n");
    return 2;
  }
  std::vector<bench::StreamJob> stream;
  if (!LoadStream(stream_path, &stream)) return 1;
  for (const bench::StreamJob& j : stream) {
    const std::string opt = bench::SwitchesOption(j.nodes, static_cast<uint32_t>(su_nodes),
                                                  static_cast<uint32_t>(wait));
    if (!opt.empty()) std::printf("%d %s\n", j.seq, opt.c_str());
  }
  return 0;
}

int DegradedExtraCmd(int argc, char** argv) {
  std::string topo_path;
  size_t rail = 0;
  double now = static_cast<double>(std::time(nullptr));
  const int rc = ParseOpts(
      argc, argv, "degraded-extra", kExtraUsage,
      {{"--topo",
        [&](const std::string&, const std::string& v) {
          topo_path = v;
          return true;
        }},
       {"--rail", [&](const std::string& f, const std::string& v) { return ToSize(f, v, &rail); }},
       {"--time",
        [&](const std::string& f, const std::string& v) { return ToDouble(f, v, &now); }}});
  if (rc >= 0) return rc;
  if (topo_path.empty()) {
    std::fputs(kExtraUsage, stderr);
    return 2;
  }
  railguard::topo::Topology topo;
  if (!LoadTopo(topo_path, &topo)) return 1;
  if (rail >= topo.rails.size()) {
    std::fprintf(
        stderr,
        "bench_placement: degraded-extra: --rail %zu; expected 0 to %zu (%s has %zu rails)\n", rail,
        topo.rails.size() - 1, topo_path.c_str(), topo.rails.size());
    return 2;
  }
  std::printf("%s\n",
              bench::DegradedExtra(static_cast<int>(topo.rails.size()), static_cast<int>(rail), now)
                  .c_str());
  return 0;
}

// Splits "TITLE=VALUE" of `flag`; false after printing the error.
bool TitleValue(const std::string& flag, const std::string& v, const char* what,
                std::pair<std::string, std::string>* out) {
  const size_t eq = v.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
    std::fprintf(stderr, "bench_placement: %s '%s'; expected TITLE=%s\n", flag.c_str(), v.c_str(),
                 what);
    return false;
  }
  *out = {v.substr(0, eq), v.substr(eq + 1)};
  return true;
}

int Report(int argc, char** argv) {
  std::string topo_path, stream_path, v, baseline;
  std::vector<std::pair<std::string, std::string>> runs, faults, origins;
  std::vector<std::string> verdict_for;
  std::pair<std::string, std::string> tv;
  bool details = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kReportUsage, stdout);
      return 0;
    } else if (a == "--topo") {
      if (!Value(argc, argv, &i, &topo_path)) return 2;
    } else if (a == "--stream") {
      if (!Value(argc, argv, &i, &stream_path)) return 2;
    } else if (a == "--run") {
      if (!Value(argc, argv, &i, &v) || !TitleValue(a, v, "JOBCOMP-FILE", &tv)) return 2;
      runs.push_back(tv);
    } else if (a == "--fault") {
      if (!Value(argc, argv, &i, &v) || !TitleValue(a, v, "FAULT-FILE", &tv)) return 2;
      faults.push_back(tv);
    } else if (a == "--due-origin") {
      if (!Value(argc, argv, &i, &v) || !TitleValue(a, v, "YYYY-MM-DDTHH:MM:SS", &tv)) return 2;
      origins.push_back(tv);
    } else if (a == "--baseline") {
      if (!Value(argc, argv, &i, &baseline)) return 2;
    } else if (a == "--verdict") {
      if (!Value(argc, argv, &i, &v)) return 2;
      verdict_for.push_back(v);
    } else if (a == "--details") {
      details = true;
    } else {
      std::fprintf(stderr, "bench_placement: report: unknown argument %s\n%s", a.c_str(),
                   kReportUsage);
      return 2;
    }
  }
  if (topo_path.empty() || stream_path.empty() || runs.empty()) {
    std::fputs(kReportUsage, stderr);
    return 2;
  }
  railguard::topo::Topology topo;
  railguard::Diags diags;
  if (!LoadTopo(topo_path, &topo)) return 1;
  std::string text, err;
  std::vector<bench::StreamJob> stream;
  if (!LoadStream(stream_path, &stream)) return 1;
  auto known = [&](const std::string& title) {
    return std::any_of(runs.begin(), runs.end(), [&](const auto& r) { return r.first == title; });
  };
  std::vector<std::string> named = verdict_for;
  if (!baseline.empty()) named.push_back(baseline);
  for (const auto& f : faults) named.push_back(f.first);
  for (const auto& o : origins) named.push_back(o.first);
  for (const std::string& title : named) {
    if (!known(title)) {
      std::fprintf(stderr, "bench_placement: '%s' names no --run; expected one of its titles\n",
                   title.c_str());
      return 2;
    }
  }
  std::vector<bench::PolicyResult> results;
  for (const auto& [title, path] : runs) {
    std::vector<bench::JobRecord> records;
    bench::PolicyResult r;
    bench::Fault fault;
    bool has_fault = false;
    int64_t origin = 0;
    bool has_origin = false;
    for (const auto& [ot, when] : origins) {
      if (ot != title) continue;
      if (!bench::ParseRecordTime(when, &origin)) {
        std::fprintf(stderr,
                     "bench_placement: --due-origin %s=%s; expected a time YYYY-MM-DDTHH:MM:SS\n",
                     ot.c_str(), when.c_str());
        return 2;
      }
      has_origin = true;
    }
    for (const auto& [ft, fpath] : faults) {
      if (ft != title) continue;
      if (!railguard::ReadTextFile(fpath, railguard::kTraceInput, &text, &diags) ||
          !bench::ParseFault(text, fpath, topo, &fault, &err)) {
        std::fprintf(stderr, "bench_placement: %s\n",
                     err.empty() ? railguard::FormatDiags(diags).c_str() : err.c_str());
        return 1;
      }
      has_fault = true;
    }
    if (!railguard::ReadTextFile(path, railguard::kTraceInput, &text, &diags) ||
        !bench::ParseJobComp(text, path, &records, &err) ||
        !bench::Evaluate(stream, records, path, topo, title, &r, &err, has_fault ? &fault : nullptr,
                         has_origin ? &origin : nullptr)) {
      std::fprintf(stderr, "bench_placement: %s\n",
                   err.empty() ? railguard::FormatDiags(diags).c_str() : err.c_str());
      return 1;
    }
    results.push_back(std::move(r));
  }
  std::fputs(bench::FormatTable(results).c_str(), stdout);
  if (details) {
    for (const bench::PolicyResult& r : results) {
      for (const std::string& s : r.split) {
        std::printf("%s: spanned SUs although it fits one: %s\n", r.policy.c_str(), s.c_str());
      }
      for (const std::string& s : r.on_degraded) {
        std::printf("%s: started on a degraded node after the fault: %s\n", r.policy.c_str(),
                    s.c_str());
      }
    }
  }
  size_t base = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].policy == baseline) base = i;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const bool wanted = verdict_for.empty() ? i != base
                                            : std::find(verdict_for.begin(), verdict_for.end(),
                                                        results[i].policy) != verdict_for.end();
    if (!wanted) continue;
    bool pass = false;
    std::printf("%s\n", bench::Verdict(results[base], results[i], &pass).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kStreamUsage, argc < 2 ? stderr : stdout);
    std::fputs(kReportUsage, argc < 2 ? stderr : stdout);
    std::fputs(kSwitchesUsage, argc < 2 ? stderr : stdout);
    std::fputs(kExtraUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  try {
    if (!std::strcmp(argv[1], "stream")) return Stream(argc - 2, argv + 2);
    if (!std::strcmp(argv[1], "report")) return Report(argc - 2, argv + 2);
    if (!std::strcmp(argv[1], "switches")) return Switches(argc - 2, argv + 2);
    if (!std::strcmp(argv[1], "degraded-extra")) return DegradedExtraCmd(argc - 2, argv + 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_placement: internal error: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "bench_placement: unknown command '%s'; expected stream, switches, "
               "degraded-extra or report\n",
               argv[1]);
  return 2;
}
