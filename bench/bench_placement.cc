// SPDX-License-Identifier: GPL-2.0-or-later
// bench_placement: the C++ half of bench/placement.sh. `stream` cuts the time-compressed job
// stream out of a trace; `report` reads each policy's jobcomp/filetxt file and prints the
// side-by-side table and the verdicts.
//
// usage: bench_placement stream TRACE [options] [-o FILE]
//        bench_placement report --topo YAML --stream FILE --run TITLE=JOBCOMP... [--details]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "bench/placement_report.h"
#include "bench/trace.h"
#include "base/diag.h"
#include "base/text_file.h"
#include "topo/topology_yaml.h"
#include "base/numbers.h"

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
    "         [--details]\n"
    "  Prints one column per --run (jobcomp/filetxt file of that policy's run). The first\n"
    "  run is the baseline: a verdict line follows for each other run (railguard).\n"
    "  --details       also list the multi-node jobs that fit one SU but spanned more\n";

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

int Report(int argc, char** argv) {
  std::string topo_path, stream_path, v;
  std::vector<std::pair<std::string, std::string>> runs;
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
      if (!Value(argc, argv, &i, &v)) return 2;
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
        std::fprintf(stderr, "bench_placement: --run '%s'; expected TITLE=JOBCOMP-FILE\n",
                     v.c_str());
        return 2;
      }
      runs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
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
  if (!railguard::topo::LoadTopologyFile(topo_path, &topo, &diags)) {
    std::fputs(railguard::FormatDiags(diags).c_str(), stderr);
    return 1;
  }
  std::string text, err;
  std::vector<bench::StreamJob> stream;
  if (!railguard::ReadTextFile(stream_path, railguard::kTraceInput, &text, &diags) ||
      !bench::ParseStream(text, stream_path, &stream, &err)) {
    std::fprintf(stderr, "bench_placement: %s\n",
                 err.empty() ? railguard::FormatDiags(diags).c_str() : err.c_str());
    return 1;
  }
  std::vector<bench::PolicyResult> results;
  for (const auto& [title, path] : runs) {
    std::vector<bench::JobRecord> records;
    bench::PolicyResult r;
    if (!railguard::ReadTextFile(path, railguard::kTraceInput, &text, &diags) ||
        !bench::ParseJobComp(text, path, &records, &err) ||
        !bench::Evaluate(stream, records, path, topo, title, &r, &err)) {
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
    }
  }
  for (size_t i = 1; i < results.size(); ++i) {
    bool pass = false;
    std::printf("%s\n", bench::Verdict(results[0], results[i], &pass).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kStreamUsage, argc < 2 ? stderr : stdout);
    std::fputs(kReportUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  try {
    if (!std::strcmp(argv[1], "stream")) return Stream(argc - 2, argv + 2);
    if (!std::strcmp(argv[1], "report")) return Report(argc - 2, argv + 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_placement: internal error: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "bench_placement: unknown command '%s'; expected stream or report\n",
               argv[1]);
  return 2;
}
