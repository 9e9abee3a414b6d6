// SPDX-License-Identifier: GPL-2.0-or-later
#include "wire/job_log.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "wire/json_lines.h"

namespace railguard::wire {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kJobMaxNameBytes = 256;
constexpr size_t kJobMaxUnknownBytes = 512;
constexpr size_t kJobMaxRails = 64;
constexpr size_t kJobMaxErrors = 32;
constexpr size_t kJobMaxShared = 64;

const JsonLinesLog kJobLog{"job log", kDefaultJobLogPath, kMaxJobLogReadBytes};

std::string CutTo(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n) : s; }

Json JobRecordJson(const JobNodeRecord& r) {
  Json j;
  j["v"] = kJobLogVersion;
  j["job"] = r.job;
  j["node"] = CutTo(r.node, kJobMaxNameBytes);
  j["start"] = r.start;
  j["end"] = r.end;
  j["samples"] = r.samples;
  if (!r.shared_with.empty()) {
    Json s = Json::array();
    for (size_t i = 0; i < r.shared_with.size() && i < kJobMaxShared; ++i) s.push_back(r.shared_with[i]);
    j["shared_with"] = s;
  }
  Json rails = Json::array();
  for (size_t i = 0; i < r.rails.size() && i < kJobMaxRails; ++i) {
    const JobRail& x = r.rails[i];
    Json o;
    o["rail"] = x.rail;
    o["nic"] = CutTo(x.nic, kJobMaxNameBytes);
    if (!x.known()) {
      o["unknown"] = CutTo(x.unknown, kJobMaxUnknownBytes);
    } else {
      o["xmit_bytes"] = x.xmit_bytes;
      o["rcv_bytes"] = x.rcv_bytes;
      o["xmit_wait"] = x.xmit_wait;
      o["peak_xmit_bps"] = x.peak_xmit_bps;
      o["peak_rcv_bps"] = x.peak_rcv_bps;
      Json e = Json::object();
      for (size_t k = 0; k < x.errors.size() && k < kJobMaxErrors; ++k)
        e[CutTo(x.errors[k].first, kJobMaxNameBytes)] = x.errors[k].second;
      o["errors"] = e;
    }
    rails.push_back(o);
  }
  j["rails"] = rails;
  return j;
}

std::string JobAt(const JsonValue& v) { return "column " + std::to_string(v.column) + ": "; }

// A member that must be an integer 0..2^64-1.
bool JobUint(const JsonValue& o, const char* key, uint64_t* out, std::string* err) {
  const JsonValue* v = o.Find(key);
  if (v && v->AsUint64(out)) return true;
  *err = (v ? JobAt(*v) : JobAt(o)) + "\"" + key + "\" " + (v ? "is not" : "is missing; expected") +
         " an integer 0..2^64-1";
  return false;
}

// A member that must be a finite number >= 0 (at most `max`).
bool JobNonNegative(const JsonValue& o, const char* key, double max, double* out, std::string* err) {
  const JsonValue* v = o.Find(key);
  if (v && v->is_number() && v->number >= 0 && v->number <= max) {
    *out = v->number;
    return true;
  }
  *err = (v ? JobAt(*v) : JobAt(o)) + "\"" + key + "\" " + (v ? "is not" : "is missing; expected") +
         " a number 0.." + (max >= 1e15 ? std::string("1e300") : std::to_string((long long)max));
  return false;
}

bool JobString(const JsonValue& o, const char* key, size_t max, std::string* out, std::string* err) {
  const JsonValue* v = o.Find(key);
  if (v && v->is_string() && !v->text.empty() && v->text.size() <= max) {
    *out = v->text;
    return true;
  }
  *err = (v ? JobAt(*v) : JobAt(o)) + "\"" + key + "\" " + (v ? "is not" : "is missing; expected") +
         " a string of 1-" + std::to_string(max) + " bytes";
  return false;
}

bool ParseJobRail(const JsonValue& o, JobRail* x, std::string* err) {
  if (!o.is_object()) {
    *err = JobAt(o) + "a rail is " + JsonTypeName(o.type) +
           "; expected {\"rail\":N,\"nic\":\"mlx5_0\",\"xmit_bytes\":B,...}";
    return false;
  }
  uint64_t rail = 0;
  if (!JobUint(o, "rail", &rail, err)) return false;
  if (rail > 1023) {
    *err = JobAt(*o.Find("rail")) + "\"rail\" is " + std::to_string(rail) + "; expected 0-1023";
    return false;
  }
  x->rail = static_cast<int>(rail);
  if (!JobString(o, "nic", kJobMaxNameBytes, &x->nic, err)) return false;
  if (o.Find("unknown")) return JobString(o, "unknown", kJobMaxUnknownBytes, &x->unknown, err);
  if (!JobUint(o, "xmit_bytes", &x->xmit_bytes, err) || !JobUint(o, "rcv_bytes", &x->rcv_bytes, err) ||
      !JobUint(o, "xmit_wait", &x->xmit_wait, err) ||
      !JobNonNegative(o, "peak_xmit_bps", 1e300, &x->peak_xmit_bps, err) ||
      !JobNonNegative(o, "peak_rcv_bps", 1e300, &x->peak_rcv_bps, err))
    return false;
  const JsonValue* e = o.Find("errors");
  if (!e || !e->is_object() || e->members.size() > kJobMaxErrors) {
    *err = (e ? JobAt(*e) : JobAt(o)) + "\"errors\" is not an object of at most " +
           std::to_string(kJobMaxErrors) + " counters {\"symbol_error\":N}";
    return false;
  }
  for (const auto& m : e->members) {
    uint64_t n = 0;
    if (!m.second.AsUint64(&n)) {
      *err = JobAt(m.second) + "error counter \"" + ValidUtf8(m.first).substr(0, 64) +
             "\" is not an integer 0..2^64-1";
      return false;
    }
    x->errors.emplace_back(m.first, n);
  }
  return true;
}

}  // namespace

uint64_t JobRail::ErrorCount() const {
  uint64_t n = 0;
  for (const auto& e : errors) n += e.second;
  return n;
}

std::string JobRecordToJsonLine(const JobNodeRecord& r) {
  return JobRecordJson(r).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool JobRecordFromJsonLine(std::string_view line, JobNodeRecord* out, std::string* err) {
  const char kForm[] =
      "expected a job record {\"v\":1,\"job\":N,\"node\":\"n001\",\"start\":T,\"end\":T,"
      "\"samples\":N,\"rails\":[...]}";
  *out = JobNodeRecord();
  if (line.size() > kMaxJobLineBytes) {
    *err = "line is " + std::to_string(line.size()) + " bytes; expected at most " +
           std::to_string(kMaxJobLineBytes);
    return false;
  }
  JsonValue j;
  JsonError jerr;
  JsonLimits limits;
  limits.max_depth = 5;
  if (!ParseJson(line, &j, &jerr, limits)) {
    *err = "column " + std::to_string(jerr.column) + ": " + jerr.message + "; " + kForm;
    return false;
  }
  if (!j.is_object()) {
    *err = JobAt(j) + JsonTypeName(j.type) + ", not an object; " + kForm;
    return false;
  }
  uint64_t version = 0;
  if (!JobUint(j, "v", &version, err)) return false;
  if (version != static_cast<uint64_t>(kJobLogVersion)) {
    *err = JobAt(*j.Find("v")) + "format version " + std::to_string(version) +
           " is not supported; expected " + std::to_string(kJobLogVersion);
    return false;
  }
  uint64_t samples = 0;
  if (!JobUint(j, "job", &out->job, err) || !JobString(j, "node", kJobMaxNameBytes, &out->node, err) ||
      !JobNonNegative(j, "start", 1e11, &out->start, err) ||
      !JobNonNegative(j, "end", 1e11, &out->end, err) || !JobUint(j, "samples", &samples, err))
    return false;
  if (out->job == 0) {
    *err = JobAt(*j.Find("job")) + "\"job\" is 0; expected a Slurm job id";
    return false;
  }
  if (out->end < out->start) {
    *err = JobAt(*j.Find("end")) + "\"end\" is before \"start\"; expected the Epilog's time";
    return false;
  }
  out->samples = static_cast<int>(std::min<uint64_t>(samples, 1000000000));
  if (const JsonValue* s = j.Find("shared_with")) {
    if (!s->is_array() || s->items.size() > kJobMaxShared) {
      *err = JobAt(*s) + "\"shared_with\" is not an array of at most " + std::to_string(kJobMaxShared) +
             " job ids";
      return false;
    }
    for (const JsonValue& v : s->items) {
      uint64_t id = 0;
      if (!v.AsUint64(&id)) {
        *err = JobAt(v) + "\"shared_with\" holds " + JsonTypeName(v.type) + "; expected job ids";
        return false;
      }
      out->shared_with.push_back(id);
    }
  }
  const JsonValue* rails = j.Find("rails");
  if (!rails || !rails->is_array() || rails->items.size() > kJobMaxRails) {
    *err = (rails ? JobAt(*rails) : JobAt(j)) + "\"rails\" is not an array of at most " +
           std::to_string(kJobMaxRails) + " rails";
    return false;
  }
  for (const JsonValue& r : rails->items) {
    JobRail x;
    if (!ParseJobRail(r, &x, err)) return false;
    out->rails.push_back(std::move(x));
  }
  return true;
}

bool AppendJobRecord(const std::string& path, const JobNodeRecord& r, std::string* err,
                     const JobLogOptions& options) {
  return AppendLines(kJobLog, path, JobRecordToJsonLine(r), {options.max_bytes, options.lock_wait_ms},
                     err);
}

JobLogStatus ReadJobRecords(const std::string& path, uint64_t job, std::vector<JobNodeRecord>* out,
                            Diags* problems, std::string* err) {
  const LinesStatus st = ReadLines(
      kJobLog, path,
      [&](const std::string&, int, std::string_view line) {
        JobNodeRecord r;
        std::string why;
        if (!JobRecordFromJsonLine(line, &r, &why)) return why;
        if (job == 0 || r.job == job) out->push_back(std::move(r));
        return std::string();
      },
      problems, err);
  return st == LinesStatus::kOk        ? JobLogStatus::kOk
         : st == LinesStatus::kMissing ? JobLogStatus::kMissing
                                       : JobLogStatus::kError;
}

}  // namespace railguard::wire
