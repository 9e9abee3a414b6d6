// SPDX-License-Identifier: GPL-2.0-or-later
#include "bench/trace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/diag.h"
#include "base/numbers.h"
#include "base/text_file.h"

namespace railguard::bench {
namespace {

constexpr char kCsvColumns[] = "job_id, submission_time, duration and num_gpu";
constexpr int kSwfFields = 18;
constexpr char kStreamForm[] =
    "<seq> <submit_at> <duration> <nodes> <gpus_per_node> <gpus> <time_limit_min> <trace_id>";

// Field names of the Standard Workload Format, for messages (1-based field numbers).
constexpr std::array<const char*, kSwfFields> kSwfFieldNames = {"job number",
                                                                "submit time",
                                                                "wait time",
                                                                "run time",
                                                                "allocated processors",
                                                                "average CPU time",
                                                                "used memory",
                                                                "requested processors",
                                                                "requested time",
                                                                "requested memory",
                                                                "status",
                                                                "user id",
                                                                "group id",
                                                                "executable number",
                                                                "queue number",
                                                                "partition number",
                                                                "preceding job",
                                                                "think time"};

// Iterates over lines, without their "\n" or "\r\n", counting from 1.
class Lines {
 public:
  explicit Lines(std::string_view text) : rest_(text) {}

  bool Next(std::string_view* line) {
    if (done_) return false;
    size_t nl = rest_.find('\n');
    if (nl == std::string_view::npos) {
      *line = rest_;
      done_ = true;
      if (line->empty()) return false;  // text ended with a newline
    } else {
      *line = rest_.substr(0, nl);
      rest_.remove_prefix(nl + 1);
    }
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view rest_;
  bool done_ = false;
  int number_ = 0;
};

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsBlank(std::string_view s) { return Trim(s).empty(); }

std::vector<std::string_view> SplitComma(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      out.push_back(Trim(line.substr(start)));
      return out;
    }
    out.push_back(Trim(line.substr(start, comma - start)));
    start = comma + 1;
  }
}

std::vector<std::string_view> SplitSpace(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !IsSpace(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// Trace numbers: plain decimals (no exponent, no '+', no spaces), negative ones where a
// column allows them.
constexpr DecimalSyntax kUnsigned{};
constexpr DecimalSyntax kSigned{true, true, 40};

// `v` as printf's %g writes it: "6426", "1e+12".
std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string Where(const std::string& name, int line) {
  return name + ":" + std::to_string(line) + ": ";
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool EndsWith(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

TraceFormat Detect(std::string_view text, const std::string& name) {
  if (EndsWith(name, ".csv")) return TraceFormat::kCsv;
  if (EndsWith(name, ".swf")) return TraceFormat::kSwf;
  Lines lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    std::string_view t = Trim(line);
    if (t.empty()) continue;
    if (t.front() == ';') return TraceFormat::kSwf;
    return t.find(',') != std::string_view::npos ? TraceFormat::kCsv : TraceFormat::kSwf;
  }
  return TraceFormat::kCsv;
}

bool ParseCsv(std::string_view text, const std::string& name, Trace* out, std::string* err) {
  Lines lines(text);
  std::string_view line;
  int header_line = 0;
  size_t columns = 0;
  // Index of each needed column in the header.
  enum { kId, kSubmit, kDuration, kGpus, kNeeded };
  const std::array<const char*, kNeeded> needed = {"job_id", "submission_time", "duration",
                                                   "num_gpu"};
  std::array<size_t, kNeeded> col{};
  while (lines.Next(&line)) {
    if (IsBlank(line)) continue;
    std::vector<std::string_view> fields = SplitComma(line);
    if (header_line == 0) {
      header_line = lines.number();
      columns = fields.size();
      for (size_t k = 0; k < kNeeded; ++k) {
        size_t found = fields.size();
        for (size_t f = 0; f < fields.size(); ++f) {
          if (fields[f] != needed[k]) continue;
          if (found != fields.size()) {
            *err = Where(name, header_line) + "column '" + needed[k] +
                   "' appears twice in the header; expected each column once";
            return false;
          }
          found = f;
        }
        if (found == fields.size()) {
          *err = Where(name, header_line) + "header has no column '" + needed[k] +
                 "'; expected a header naming " + kCsvColumns;
          return false;
        }
        col[k] = found;
      }
      continue;
    }
    const std::string at = Where(name, lines.number());
    if (fields.size() != columns) {
      *err = at + "expected " + std::to_string(columns) +
             " comma-separated fields as in the header (line " + std::to_string(header_line) +
             "), got " + std::to_string(fields.size());
      return false;
    }
    TraceJob job;
    job.line = lines.number();
    job.id = std::string(fields[col[kId]]);
    if (job.id.empty()) {
      *err = at + "job_id is empty; expected an identifier";
      return false;
    }
    for (int k : {kSubmit, kDuration}) {
      double* dst = k == kSubmit ? &job.submit : &job.duration;
      if (!ParseDecimal(fields[col[k]], kUnsigned, dst)) {
        *err = at + needed[k] + " " + Quoted(fields[col[k]]) +
               " is not a number of seconds; expected a non-negative number such as 5810 or "
               "5810.5";
        return false;
      }
      if (*dst > kMaxTraceSeconds) {
        *err = at + needed[k] + " " + Quoted(fields[col[k]]) + " is too large; expected at most " +
               Number(kMaxTraceSeconds) + " seconds";
        return false;
      }
    }
    uint64_t gpus = 0;
    if (!ParseDigits(fields[col[kGpus]], 1, kMaxTraceGpus, &gpus, 12)) {
      *err = at + "num_gpu " + Quoted(fields[col[kGpus]]) +
             " is not a GPU count; expected a whole number from 1 to " +
             std::to_string(kMaxTraceGpus);
      return false;
    }
    job.gpus = static_cast<uint32_t>(gpus);
    out->jobs.push_back(std::move(job));
  }
  if (out->jobs.empty()) {
    *err = name + ": no jobs; expected a header line naming " + std::string(kCsvColumns) +
           ", then one line per job";
    return false;
  }
  return true;
}

// An SWF processor count: -1 or 0 (unknown) gives 0, else a whole number up to the limit.
bool SwfProcessors(std::string_view field, int number, const std::string& at, uint32_t* out,
                   std::string* err) {
  uint64_t v = 0;
  if (field == "-1") {
    *out = 0;
    return true;
  }
  if (!ParseDigits(field, 0, kMaxTraceGpus, &v, 12)) {
    *err = at + "field " + std::to_string(number) + " (" + kSwfFieldNames[number - 1] + ") " +
           Quoted(field) + " is not a processor count; expected a whole number from 1 to " +
           std::to_string(kMaxTraceGpus) + ", or -1 when unknown";
    return false;
  }
  *out = static_cast<uint32_t>(v);
  return true;
}

bool ParseSwf(std::string_view text, const std::string& name, Trace* out, std::string* err) {
  Lines lines(text);
  std::string_view line;
  int lines_with_jobs = 0;
  while (lines.Next(&line)) {
    std::string_view t = Trim(line);
    if (t.empty() || t.front() == ';') continue;
    const std::string at = Where(name, lines.number());
    std::vector<std::string_view> fields = SplitSpace(t);
    if (fields.size() != kSwfFields) {
      *err = at + "expected " + std::to_string(kSwfFields) +
             " whitespace-separated fields (Standard Workload Format), got " +
             std::to_string(fields.size());
      return false;
    }
    std::array<double, kSwfFields> v{};
    for (int f = 0; f < kSwfFields; ++f) {
      if (!ParseDecimal(fields[f], kSigned, &v[f])) {
        *err = at + "field " + std::to_string(f + 1) + " (" + kSwfFieldNames[f] + ") " +
               Quoted(fields[f]) +
               " is not a number; expected an integer or decimal, -1 when "
               "unknown";
        return false;
      }
    }
    ++lines_with_jobs;
    if (v[1] < 0) {
      *err = at + "field 2 (submit time) " + Quoted(fields[1]) +
             " is negative; expected seconds from the start of the log, 0 or more";
      return false;
    }
    for (int f : {1, 3}) {
      if (v[f] > kMaxTraceSeconds) {
        *err = at + "field " + std::to_string(f + 1) + " (" + kSwfFieldNames[f] + ") " +
               Quoted(fields[f]) + " is too large; expected at most " + Number(kMaxTraceSeconds) +
               " seconds";
        return false;
      }
    }
    if (v[3] < 0 && fields[3] != "-1") {
      *err = at + "field 4 (run time) " + Quoted(fields[3]) +
             " is negative; expected seconds, or -1 when unknown";
      return false;
    }
    uint32_t allocated = 0, requested = 0;
    if (!SwfProcessors(fields[4], 5, at, &allocated, err) ||
        !SwfProcessors(fields[7], 8, at, &requested, err)) {
      return false;
    }
    const uint32_t procs = requested > 0 ? requested : allocated;
    if (v[3] < 0 || procs == 0) {
      if (out->skipped++ == 0) out->first_skipped_line = lines.number();
      continue;
    }
    TraceJob job;
    job.id = std::string(fields[0]);
    job.line = lines.number();
    job.submit = v[1];
    job.duration = v[3];
    job.gpus = procs;
    out->jobs.push_back(std::move(job));
  }
  if (lines_with_jobs == 0) {
    *err = name + ": no jobs; expected lines of " + std::to_string(kSwfFields) +
           " whitespace-separated fields (Standard Workload Format)";
    return false;
  }
  if (out->jobs.empty()) {
    *err = name + ": no job with a known run time and processor count (" +
           std::to_string(out->skipped) + " without, from line " +
           std::to_string(out->first_skipped_line) +
           "); expected run time (field 4) and requested or allocated processors (field 8 or 5)";
    return false;
  }
  return true;
}

}  // namespace

bool ParseTraceFormat(std::string_view text, TraceFormat* out) {
  if (text == "auto") {
    *out = TraceFormat::kAuto;
  } else if (text == "csv") {
    *out = TraceFormat::kCsv;
  } else if (text == "swf") {
    *out = TraceFormat::kSwf;
  } else {
    return false;
  }
  return true;
}

bool ParseTrace(std::string_view text, const std::string& name, TraceFormat format, Trace* out,
                std::string* err) {
  *out = Trace();
  out->name = name;
  out->format = format == TraceFormat::kAuto ? Detect(text, name) : format;
  const bool ok = out->format == TraceFormat::kCsv ? ParseCsv(text, name, out, err)
                                                   : ParseSwf(text, name, out, err);
  if (!ok) return false;
  std::stable_sort(out->jobs.begin(), out->jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit < b.submit; });
  return true;
}

bool ReadTraceFile(const std::string& path, TraceFormat format, Trace* out, std::string* err) {
  std::string text;
  Diags diags;
  if (!ReadTextFile(path, kTraceInput, &text, &diags)) {
    *err = diags.empty() ? path + ": cannot be read" : diags.front().ToString();
    return false;
  }
  return ParseTrace(text, path, format, out, err);
}

NodeShape ShapeOf(uint32_t gpus, uint32_t node_gpus) {
  NodeShape s;
  s.nodes = (gpus + node_gpus - 1) / node_gpus;
  s.gpus_per_node = (gpus + s.nodes - 1) / s.nodes;
  return s;
}

bool BuildStream(const Trace& trace, const StreamOptions& options, std::vector<StreamJob>* out,
                 std::string* err) {
  out->clear();
  if (!std::isfinite(options.compress) || options.compress <= 0) {
    *err = "compression factor " + Number(options.compress) +
           " is not allowed; expected a "
           "number above 0 (trace seconds per benchmark second)";
    return false;
  }
  if (!std::isfinite(options.load) || options.load <= 0) {
    *err = "load factor " + Number(options.load) +
           " is not allowed; expected a number above 0 "
           "(1 = the trace's arrival rate)";
    return false;
  }
  if (!std::isfinite(options.max_duration) || options.max_duration < 0) {
    *err = "duration cap " + Number(options.max_duration) +
           " is not allowed; expected seconds, "
           "0 or more (0 = no cap)";
    return false;
  }
  if (options.node_gpus == 0) {
    *err = "GPUs per node is 0; expected 1 or more";
    return false;
  }
  if (options.skip >= trace.jobs.size()) {
    *err = "skipping " + std::to_string(options.skip) + " jobs leaves none: " + trace.name +
           " has " + std::to_string(trace.jobs.size()) + " jobs";
    return false;
  }
  size_t end = trace.jobs.size();
  if (options.jobs > 0) end = std::min(end, options.skip + options.jobs);
  const double origin = trace.jobs[options.skip].submit;
  for (size_t i = options.skip; i < end; ++i) {
    const TraceJob& t = trace.jobs[i];
    StreamJob j;
    j.seq = static_cast<int>(out->size()) + 1;
    j.trace_id = t.id;
    j.trace_line = t.line;
    j.submit_at = std::round((t.submit - origin) / (options.compress * options.load) * 1000) / 1000;
    double d = t.duration / options.compress;
    if (options.max_duration > 0) d = std::min(d, options.max_duration);
    j.duration = static_cast<uint32_t>(std::max(1.0, std::round(std::min(d, 1e9))));
    j.gpus = t.gpus;
    const NodeShape shape = ShapeOf(t.gpus, options.node_gpus);
    j.nodes = shape.nodes;
    j.gpus_per_node = shape.gpus_per_node;
    if (options.max_nodes > 0 && j.nodes > options.max_nodes) {
      *err = Where(trace.name, t.line) + "job " + t.id + " needs " + std::to_string(j.nodes) +
             " nodes (" + std::to_string(t.gpus) + " GPUs), more than the " +
             std::to_string(options.max_nodes) + " of the layout; expected at most " +
             std::to_string(uint64_t{options.max_nodes} * options.node_gpus) +
             " GPUs per job (choose another slice)";
      out->clear();
      return false;
    }
    j.time_limit_min = (j.duration + 59) / 60 + 1;
    out->push_back(std::move(j));
  }
  return true;
}

std::string FormatStream(const std::vector<StreamJob>& jobs, const std::string& comment) {
  std::string text;
  Lines lines(comment);
  std::string_view line;
  while (lines.Next(&line)) text += "# " + std::string(line) + "\n";
  text += "# " + std::string(kStreamForm) + "\n";
  char buf[160];
  for (const StreamJob& j : jobs) {
    std::string id = j.trace_id;
    for (char& c : id) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') c = '_';
    }
    std::snprintf(buf, sizeof buf, "%d %.3f %u %u %u %u %u ", j.seq, j.submit_at, j.duration,
                  j.nodes, j.gpus_per_node, j.gpus, j.time_limit_min);
    text += buf + id + "\n";
  }
  return text;
}

bool ParseStream(std::string_view text, const std::string& name, std::vector<StreamJob>* out,
                 std::string* err) {
  out->clear();
  Lines lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    std::string_view t = Trim(line);
    if (t.empty() || t.front() == '#') continue;
    const std::string at = Where(name, lines.number());
    std::vector<std::string_view> f = SplitSpace(t);
    if (f.size() != 8) {
      *err = at + "expected 8 fields (" + kStreamForm + "), got " + std::to_string(f.size());
      return false;
    }
    StreamJob j;
    uint64_t v[5] = {};
    const char* what[5] = {"duration", "nodes", "gpus_per_node", "gpus", "time_limit_min"};
    uint64_t want = out->size() + 1;
    uint64_t seq = 0;
    if (!ParseDigits(f[0], want, want, &seq, 12)) {
      *err = at + "sequence number " + Quoted(f[0]) + "; expected " + std::to_string(want);
      return false;
    }
    const double previous = out->empty() ? 0 : out->back().submit_at;
    if (!ParseDecimal(f[1], kUnsigned, &j.submit_at) || j.submit_at < previous ||
        j.submit_at > kMaxTraceSeconds) {
      *err = at + "submit_at " + Quoted(f[1]) + "; expected seconds, not before the previous " +
             "job's " + Number(previous) + " and at most " + Number(kMaxTraceSeconds);
      return false;
    }
    for (int k = 0; k < 5; ++k) {
      if (!ParseDigits(f[2 + k], 1, 0xffffffffu, &v[k], 12)) {
        *err = at + what[k] + " " + Quoted(f[2 + k]) + "; expected a whole number, 1 or more";
        return false;
      }
    }
    j.seq = static_cast<int>(seq);
    j.duration = static_cast<uint32_t>(v[0]);
    j.nodes = static_cast<uint32_t>(v[1]);
    j.gpus_per_node = static_cast<uint32_t>(v[2]);
    j.gpus = static_cast<uint32_t>(v[3]);
    j.time_limit_min = static_cast<uint32_t>(v[4]);
    j.trace_id = std::string(f[7]);
    out->push_back(std::move(j));
  }
  if (out->empty()) {
    *err = name + ": no jobs; expected one line per job (" + std::string(kStreamForm) + ")";
    return false;
  }
  return true;
}

}  // namespace railguard::bench
