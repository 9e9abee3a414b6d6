// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/job_counters.h"

#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "base/numbers.h"
#include "healthcheck/parse.h"
#include "healthcheck/state_file.h"

namespace railguard::health {
namespace {

using JobJson = nlohmann::ordered_json;

constexpr char kXmitData[] = "port_xmit_data";
constexpr char kRcvData[] = "port_rcv_data";
constexpr char kXmitWait[] = "port_xmit_wait";
// A 32-bit PortCounters data counter stops here (IBA vol. 1, PortCounters: the counters do not
// wrap); the kernel shows the 64-bit extended ones when the device has them.
constexpr uint64_t kStopped32 = 0xFFFFFFFFu;
constexpr size_t kMaxJobRails = 64;

const uint64_t* CounterIn(const RailReading& r, const char* name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? nullptr : &it->second;
}

// The rate in bytes per second of a 4-octet data counter from `a` at `ta` to `b` at `tb`;
// -1 when it cannot be said.
double DataRate(const RailReading& a, double ta, const RailReading& b, double tb,
                const char* name) {
  const uint64_t* x = CounterIn(a, name);
  const uint64_t* y = CounterIn(b, name);
  if (!x || !y || *y < *x || *x == kStopped32 || *y == kStopped32 || tb - ta < 1) return -1;
  return static_cast<double>(*y - *x) * 4.0 / (tb - ta);
}

bool SameBoot(const std::string& a, const NodeFacts& f) {
  return a.empty() || !f.boot_id.ok() || *f.boot_id.value == a;
}

std::string JobFileAt(const std::string& file, const JsonValue& v) {
  return file + ":" + std::to_string(v.line) + ":" + std::to_string(v.column) + ": ";
}

JobJson ReadingJson(const RailReading& r) {
  JobJson o;
  o["nic"] = r.nic;
  if (!r.unread.empty()) {
    o["unread"] = r.unread;
  } else {
    JobJson c = JobJson::object();
    for (const auto& kv : r.counters) c[kv.first] = kv.second;
    o["counters"] = c;
  }
  return o;
}

bool ParseReading(const JsonValue& v, const std::string& file, RailReading* out,
                  std::string* err) {
  const JsonValue* nic = v.is_object() ? v.Find("nic") : nullptr;
  const JsonValue* unread = v.is_object() ? v.Find("unread") : nullptr;
  const JsonValue* counters = v.is_object() ? v.Find("counters") : nullptr;
  if (!nic || !nic->is_string() || (unread && !unread->is_string()) ||
      (!unread && (!counters || !counters->is_object()))) {
    *err = JobFileAt(file, v) +
           "expected a rail reading {\"nic\":\"mlx5_0\",\"counters\":{\"port_xmit_data\":N,...}} "
           "or {\"nic\":\"mlx5_0\",\"unread\":\"why\"}";
    return false;
  }
  out->nic = nic->text;
  if (unread) {
    out->unread = unread->text.empty() ? "not read" : unread->text;
    return true;
  }
  for (const auto& m : counters->members) {
    uint64_t n = 0;
    if (!m.second.AsUint64(&n)) {
      *err = JobFileAt(file, m.second) + "counter \"" + ValidUtf8(m.first).substr(0, 64) +
             "\" is not an integer 0..2^64-1";
      return false;
    }
    out->counters[m.first] = n;
  }
  return true;
}

bool ParseReadings(const JsonValue& root, const char* key, const std::string& file,
                   std::vector<RailReading>* out, std::string* err) {
  const JsonValue* a = root.Find(key);
  if (!a || !a->is_array() || a->items.size() > kMaxJobRails) {
    *err = (a ? JobFileAt(file, *a) : file + ": ") + "\"" + key +
           "\" missing or not an array of at most 64 rail readings";
    return false;
  }
  for (const JsonValue& v : a->items) {
    RailReading r;
    if (!ParseReading(v, file, &r, err)) return false;
    out->push_back(std::move(r));
  }
  return true;
}

bool ParseRates(const JsonValue& root, const char* key, size_t n, const std::string& file,
                std::vector<double>* out, std::string* err) {
  const JsonValue* a = root.Find(key);
  bool ok = a && a->is_array() && a->items.size() == n;
  for (size_t i = 0; ok && i < n; ++i) {
    const JsonValue& v = a->items[i];
    ok = v.is_number() && v.number >= 0;
    if (ok) out->push_back(v.number);
  }
  if (!ok)
    *err = (a ? JobFileAt(file, *a) : file + ": ") + "\"" + key + "\" missing or not " +
           std::to_string(n) + " numbers >= 0 (one per rail)";
  return ok;
}

}  // namespace

std::vector<RailReading> ReadingsOf(const NodeFacts& facts) {
  std::vector<RailReading> out;
  for (const NicFacts& n : facts.nics) {
    RailReading r;
    r.nic = n.name;
    if (!n.complete) {
      r.unread = "its gather did not finish in time";
    } else if (!n.present) {
      r.unread = "the NIC is missing";
    } else if (!n.port.counters_error.empty()) {
      r.unread = n.port.counters_error;
    } else {
      for (const auto& kv : n.port.counters)
        if (kv.second.error.empty() && !kv.second.no_pma) r.counters[kv.first] = kv.second.value;
      if (!r.counters.count(kXmitData) || !r.counters.count(kRcvData))
        r.unread = "no port_xmit_data and port_rcv_data in " + n.port.dir + "/counters";
    }
    if (!r.unread.empty()) r.counters.clear();
    out.push_back(std::move(r));
  }
  return out;
}

OpenJob OpenJobAt(uint64_t job, const std::string& node, const NodeFacts& facts, double now) {
  OpenJob j;
  j.job = job;
  j.node = node;
  if (facts.boot_id.ok()) j.boot_id = *facts.boot_id.value;
  j.start = now;
  j.last_time = now;
  j.first = ReadingsOf(facts);
  j.last = j.first;
  j.peak_xmit_bps.assign(j.first.size(), 0);
  j.peak_rcv_bps.assign(j.first.size(), 0);
  return j;
}

void AddReading(const NodeFacts& facts, double now, OpenJob* j) {
  std::vector<RailReading> now_r = ReadingsOf(facts);
  const bool same_boot = SameBoot(j->boot_id, facts);
  for (size_t k = 0; k < now_r.size() && k < j->last.size(); ++k) {
    if (!same_boot || !now_r[k].unread.empty() || !j->last[k].unread.empty()) continue;
    const double tx = DataRate(j->last[k], j->last_time, now_r[k], now, kXmitData);
    const double rx = DataRate(j->last[k], j->last_time, now_r[k], now, kRcvData);
    j->peak_xmit_bps[k] = std::max(j->peak_xmit_bps[k], tx);
    j->peak_rcv_bps[k] = std::max(j->peak_rcv_bps[k], rx);
  }
  // A rail read now keeps its reading; one not read now keeps the one before.
  for (size_t k = 0; k < now_r.size() && k < j->last.size(); ++k)
    if (now_r[k].unread.empty()) j->last[k] = std::move(now_r[k]);
  j->last_time = now;
  ++j->samples;
}

wire::JobNodeRecord CloseJob(const OpenJob& j, const NodeFacts& facts, double now) {
  wire::JobNodeRecord rec;
  rec.job = j.job;
  rec.node = j.node;
  rec.start = j.start;
  rec.end = std::max(now, j.start);
  rec.samples = j.samples + 1;
  rec.shared_with = j.shared_with;
  const std::vector<RailReading> end = ReadingsOf(facts);
  const bool same_boot = SameBoot(j.boot_id, facts);
  for (size_t k = 0; k < j.first.size(); ++k) {
    wire::JobRail r;
    r.rail = static_cast<int>(k);
    r.nic = j.first[k].nic;
    const RailReading& a = j.first[k];
    const RailReading* b = k < end.size() ? &end[k] : nullptr;
    if (!a.unread.empty()) {
      r.unknown = "not read at the Prolog: " + a.unread;
    } else if (!b) {
      r.unknown = "not among the node's NICs at the Epilog";
    } else if (!b->unread.empty()) {
      r.unknown = "not read at the Epilog: " + b->unread;
    } else if (!same_boot) {
      r.unknown = "the node rebooted during the job (another boot id): its counters restarted";
    }
    if (r.known()) {
      for (const auto& kv : a.counters) {
        const uint64_t* y = CounterIn(*b, kv.first.c_str());
        const bool data = kv.first == kXmitData || kv.first == kRcvData;
        if (!y || (kv.first != kXmitWait && !data && CounterBits(kv.first) == 0)) continue;
        if (*y < kv.second) {
          r.unknown = kv.first + " went back from " + std::to_string(kv.second) + " to " +
                      std::to_string(*y) + " (counters reset during the job)";
          break;
        }
        if (data && *y == kStopped32) {
          r.unknown = kv.first + " stopped at 2^32-1 (a 32-bit counter; the device has no "
                      "extended counters)";
          break;
        }
        const uint64_t d = *y - kv.second;
        if (kv.first == kXmitData) {
          r.xmit_bytes = d * 4;
        } else if (kv.first == kRcvData) {
          r.rcv_bytes = d * 4;
        } else if (kv.first == kXmitWait) {
          r.xmit_wait = d;
        } else if (d > 0) {
          r.errors.emplace_back(kv.first, d);
        }
      }
    }
    if (r.known() && j.samples > 1) {
      // The last interval counts too; with only the Prolog's reading there is no interval
      // shorter than the job, and the peak stays 0 (the mean is all there is).
      const RailReading& l = k < j.last.size() ? j.last[k] : a;
      r.peak_xmit_bps = std::max(j.peak_xmit_bps[k], DataRate(l, j.last_time, *b, now, kXmitData));
      r.peak_rcv_bps = std::max(j.peak_rcv_bps[k], DataRate(l, j.last_time, *b, now, kRcvData));
    }
    if (!r.known()) r.errors.clear();
    rec.rails.push_back(std::move(r));
  }
  return rec;
}

std::string OpenJobToJson(const OpenJob& j) {
  JobJson o;
  o["job"] = j.job;
  o["node"] = j.node;
  o["boot_id"] = j.boot_id;
  o["start"] = j.start;
  o["samples"] = j.samples;
  o["shared_with"] = j.shared_with;
  o["last_time"] = j.last_time;
  JobJson first = JobJson::array(), last = JobJson::array();
  for (const RailReading& r : j.first) first.push_back(ReadingJson(r));
  for (const RailReading& r : j.last) last.push_back(ReadingJson(r));
  o["first"] = first;
  o["last"] = last;
  o["peak_xmit_bps"] = j.peak_xmit_bps;
  o["peak_rcv_bps"] = j.peak_rcv_bps;
  return o.dump(-1, ' ', false, JobJson::error_handler_t::replace) + "\n";
}

bool OpenJobFromJson(const std::string& text, const std::string& file, OpenJob* out,
                     std::string* err) {
  *out = OpenJob();
  JsonValue root;
  JsonError jerr;
  if (!ParseJson(text, &root, &jerr)) {
    *err = file + ":" + std::to_string(jerr.line) + ":" + std::to_string(jerr.column) + ": " +
           jerr.message + "; expected a railcheck job file";
    return false;
  }
  if (!root.is_object()) {
    *err = JobFileAt(file, root) + "expected a railcheck job file (an object)";
    return false;
  }
  const JsonValue* job = root.Find("job");
  const JsonValue* node = root.Find("node");
  const JsonValue* boot = root.Find("boot_id");
  const JsonValue* start = root.Find("start");
  const JsonValue* samples = root.Find("samples");
  const JsonValue* last_time = root.Find("last_time");
  const JsonValue* shared = root.Find("shared_with");
  long long n_samples = 0;
  if (!job || !job->AsUint64(&out->job) || out->job == 0 || !node || !node->is_string() ||
      !boot || !boot->is_string() || !start || !start->is_number() || start->number < 0 ||
      !samples || !samples->AsInt64(&n_samples) || n_samples < 1 || n_samples > 1000000000 ||
      !last_time || !last_time->is_number() || last_time->number < start->number || !shared ||
      !shared->is_array()) {
    *err = file +
           ": expected a railcheck job file {\"job\":N>0,\"node\":S,\"boot_id\":S,\"start\":T,"
           "\"samples\":N>=1,\"shared_with\":[...],\"last_time\":T>=start,\"first\":[...],"
           "\"last\":[...],\"peak_xmit_bps\":[...],\"peak_rcv_bps\":[...]}";
    return false;
  }
  out->node = node->text;
  out->boot_id = boot->text;
  out->start = start->number;
  out->samples = static_cast<int>(n_samples);
  out->last_time = last_time->number;
  for (const JsonValue& v : shared->items) {
    uint64_t id = 0;
    if (!v.AsUint64(&id)) {
      *err = JobFileAt(file, v) + "\"shared_with\" holds " + JsonTypeName(v.type) +
             "; expected job ids";
      return false;
    }
    out->shared_with.push_back(id);
  }
  if (!ParseReadings(root, "first", file, &out->first, err) ||
      !ParseReadings(root, "last", file, &out->last, err))
    return false;
  if (out->last.size() != out->first.size()) {
    *err = file + ": \"last\" has " + std::to_string(out->last.size()) + " rails and \"first\" " +
           std::to_string(out->first.size()) + "; expected the same rails";
    return false;
  }
  return ParseRates(root, "peak_xmit_bps", out->first.size(), file, &out->peak_xmit_bps, err) &&
         ParseRates(root, "peak_rcv_bps", out->first.size(), file, &out->peak_rcv_bps, err);
}

std::string JobsDir(const std::string& state_dir) { return state_dir + "/jobs"; }

std::string OpenJobPath(const std::string& state_dir, uint64_t job) {
  return JobsDir(state_dir) + "/" + std::to_string(job) + ".json";
}

bool ParseJobId(const std::string& text, uint64_t* out) {
  return ParseDigits(text, uint64_t{1}, uint64_t{0xFFFFFFFFu}, out, 10);
}

std::vector<uint64_t> ListOpenJobs(const std::string& state_dir) {
  std::vector<uint64_t> out;
  DIR* d = opendir(JobsDir(state_dir).c_str());
  if (!d) return out;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    uint64_t id = 0;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 &&
        ParseJobId(name.substr(0, name.size() - 5), &id))
      out.push_back(id);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool LoadOpenJob(const std::string& state_dir, uint64_t job, OpenJob* out, std::string* err) {
  const std::string path = OpenJobPath(state_dir, job);
  std::string text;
  const ReadStatus st = ReadStateFile(path, &text, err);
  if (st == ReadStatus::kMissing) {
    *err = path + ": missing (no Prolog reading for this job)";
    return false;
  }
  if (st != ReadStatus::kOk) return false;
  if (!OpenJobFromJson(text, path, out, err)) return false;
  if (out->job != job) {
    *err = path + ": holds job " + std::to_string(out->job) + "; expected job " +
           std::to_string(job);
    return false;
  }
  return true;
}

bool SaveOpenJob(const std::string& state_dir, const OpenJob& j, std::string* err) {
  if (!PrepareStateDir(JobsDir(state_dir), err)) return false;
  return WriteStateFileAtomic(OpenJobPath(state_dir, j.job), OpenJobToJson(j), err);
}

bool RemoveOpenJob(const std::string& state_dir, uint64_t job, std::string* err) {
  const std::string path = OpenJobPath(state_dir, job);
  if (unlink(path.c_str()) == 0 || errno == ENOENT) return true;
  *err = "cannot remove " + path + ": " + std::strerror(errno);
  return false;
}

}  // namespace railguard::health
