// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the placement benchmark's trace reader (ParseTrace as CSV, SWF and auto-detected) and
// its job-stream text (ParseStream). A trace that parses holds only jobs inside the documented
// ranges, in submission order, and the stream cut from it reads back from FormatStream as the
// same jobs; a stream that parses formats to text that parses to the same stream again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/trace.h"
#include "fuzz/fuzz_check.h"

namespace railguard::fuzz {
namespace {

// "" when the streams agree in every field FormatStream writes, else the first difference.
// Whitespace in trace ids is written as '_' (see FormatStream).
std::string StreamDifference(const std::vector<bench::StreamJob>& a,
                             const std::vector<bench::StreamJob>& b) {
  if (a.size() != b.size()) return std::to_string(a.size()) + " vs " + std::to_string(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const bench::StreamJob& x = a[i];
    const bench::StreamJob& y = b[i];
    std::string id = x.trace_id;
    for (char& c : id)
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') c = '_';
    if (x.seq != y.seq || x.submit_at != y.submit_at || x.duration != y.duration ||
        x.nodes != y.nodes || x.gpus_per_node != y.gpus_per_node || x.gpus != y.gpus ||
        x.time_limit_min != y.time_limit_min || id != y.trace_id)
      return "job " + std::to_string(i + 1);
  }
  return "";
}

void CheckTrace(const bench::Trace& trace) {
  RG_FUZZ_CHECK(trace.format != bench::TraceFormat::kAuto && !trace.jobs.empty(),
                std::string("a parsed trace without format or jobs"));
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const bench::TraceJob& j = trace.jobs[i];
    RG_FUZZ_CHECK(j.submit >= 0 && j.duration >= 0 && j.gpus >= 1 &&
                      j.gpus <= bench::kMaxTraceGpus && j.line >= 1,
                  "job " + j.id + " at line " + std::to_string(j.line) + " is out of range");
    if (i > 0)
      RG_FUZZ_CHECK(trace.jobs[i - 1].submit <= j.submit, "job " + j.id + " is out of order");
  }
}

// Formats `stream` (FormatStream with `comment`), checks that the text parses, and returns it
// with what it parsed into `*again`.
std::string WriteAndReadBack(const std::vector<bench::StreamJob>& stream, const char* comment,
                             std::vector<bench::StreamJob>* again) {
  const std::string written = bench::FormatStream(stream, comment);
  std::string err;
  RG_FUZZ_CHECK(bench::ParseStream(written, "written", again, &err),
                "FormatStream's text does not parse: " + err + "\n" + written);
  return written;
}

void FuzzTrace(std::string_view text) {
  for (bench::TraceFormat format :
       {bench::TraceFormat::kAuto, bench::TraceFormat::kCsv, bench::TraceFormat::kSwf}) {
    bench::Trace trace;
    std::string err;
    if (!bench::ParseTrace(text, "fuzz.trace", format, &trace, &err)) {
      RG_FUZZ_CHECK(!err.empty(), std::string("a trace refused without a message"));
      continue;
    }
    CheckTrace(trace);
    bench::StreamOptions options;
    options.jobs = 64;  // enough to cover the stream code, few enough to stay fast
    options.compress = 10;
    options.max_duration = 3600;
    std::vector<bench::StreamJob> stream;
    if (!bench::BuildStream(trace, options, &stream, &err)) {
      RG_FUZZ_CHECK(!err.empty(), std::string("a stream refused without a message"));
      continue;
    }
    std::vector<bench::StreamJob> again;
    const std::string written = WriteAndReadBack(stream, "fuzz", &again);
    const std::string difference = StreamDifference(stream, again);
    RG_FUZZ_CHECK(difference.empty(),
                  "the stream reads back otherwise (" + difference + "):\n" + written);
  }

  std::vector<bench::StreamJob> stream;
  std::string err;
  if (!bench::ParseStream(text, "fuzz.stream", &stream, &err)) {
    RG_FUZZ_CHECK(!err.empty(), std::string("a stream refused without a message"));
    return;
  }
  std::vector<bench::StreamJob> again;
  const std::string written = WriteAndReadBack(stream, "", &again);
  RG_FUZZ_CHECK(bench::FormatStream(again, "") == written,
                "the stream formats otherwise once read back:\n" + written);
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzTrace(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
