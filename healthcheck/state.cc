// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/state.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/json_document.h"
#include "base/json_reader.h"
#include "healthcheck/state_file.h"
#include "healthcheck/state_syntax.h"

namespace railguard::health {
namespace {

using nlohmann::json;

constexpr int kVersion = 1;
const char kBaselineFormat[] = "railcheck-baseline";
const char kStateFormat[] = "railcheck-state";

json CountersJson(const std::map<std::string, uint64_t>& m) {
  json j = json::object();
  for (const auto& kv : m) j[kv.first] = kv.second;
  return j;
}

// The header both files start with: format, version, node, time.
json HeaderJson(const char* format, const std::string& node, double time) {
  return {{"format", format}, {"version", kVersion}, {"node", node}, {"time", time}};
}

// {"symbol_error": [[from, to, count], ...]}: each sample as a 3-element array.
json HistoryJson(const std::map<std::string, RateHistory>& m) {
  json j = json::object();
  for (const auto& kv : m) {
    json samples = json::array();
    for (const RateSample& r : kv.second) samples.push_back({r.from, r.to, r.count});
    j[kv.first] = samples;
  }
  return j;
}

json AerJson(const AerTotals& a) {
  json j = json::object();
  if (a.correctable) j["correctable"] = *a.correctable;
  if (a.nonfatal) j["nonfatal"] = *a.nonfatal;
  if (a.fatal) j["fatal"] = *a.fatal;
  return j;
}

// nlohmann's name of a value's type, as the messages have always said it.
const char* TypeName(const JsonValue& v) {
  // In the order of JsonValue::Type.
  static const char* const kNames[] = {"null", "boolean", "number", "string", "array", "object"};
  return kNames[static_cast<size_t>(v.type)];
}

// `v` as a message shows a wrong value (compact, keys sorted, numbers in nlohmann's form).
std::string Dump(const JsonValue& v) { return ToJsonDocument(v).dump(); }

// Reads typed values out of a parsed document; the first problem is kept with its JSON
// pointer ("/ports/mlx5_3/counters/symbol_error").
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  bool ok() const { return err_.empty(); }

  // True with `*out` = the record; false with `*err` = the first problem.
  template <typename Record>
  bool Done(Record* record, Record* out, std::string* err) {
    if (!ok()) {
      *err = err_;
      return false;
    }
    *out = std::move(*record);
    return true;
  }

  void Fail(const std::string& where, const std::string& what) {
    if (err_.empty()) err_ = file_ + ": " + (where.empty() ? "/" : where) + ": " + what;
  }

  const JsonValue* Object(const JsonValue& j, const std::string& where) {
    if (!j.is_object()) {
      Fail(where, "got " + std::string(TypeName(j)) + "; expected an object");
      return nullptr;
    }
    return &j;
  }

  // Member `key` of object `j`, or nullptr (with an error when `required`). Nothing once a
  // problem was found.
  const JsonValue* Member(const JsonValue& j, const std::string& where, const char* key,
                          bool required) {
    if (!ok()) return nullptr;
    const JsonValue* v = j.Find(key);
    if (!v && required) Fail(where, std::string("missing key '") + key + "'");
    return v;
  }

  // Calls `f(key, value, where)` for each member of object `j` in key order (the order the
  // writer uses), while no problem is found.
  template <typename F>
  void Each(const JsonValue& j, const std::string& where, F f) {
    if (!Object(j, where)) return;
    std::vector<const std::pair<std::string, JsonValue>*> members;
    for (const auto& m : j.members) members.push_back(&m);
    std::sort(members.begin(), members.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    for (const auto* m : members) {
      if (!ok()) return;
      f(m->first, m->second, where + "/" + m->first);
    }
  }

  // Each() over the members of j's required member `key` (an object).
  template <typename F>
  void EachOf(const JsonValue& j, const char* key, F f) {
    if (const JsonValue* v = Member(j, "", key, true)) Each(*v, std::string("/") + key, f);
  }

  void U64(const JsonValue& j, const std::string& where, uint64_t* out) {
    if (j.AsUint64(out)) return;
    if (j.is_number() && j.integral && j.text == "-0") {
      *out = 0;
    } else {
      Fail(where, "got " + Dump(j) + "; expected a non-negative integer");
    }
  }

  void Int(const JsonValue& j, const std::string& where, long long lo, long long hi,
           long long* out) {
    long long v = 0;
    if (j.AsInt64(&v) && v >= lo && v <= hi) {
      *out = v;
    } else {
      Fail(where, "got " + Dump(j) + "; expected an integer from " + std::to_string(lo) + " to " +
                      std::to_string(hi));
    }
  }

  void Time(const JsonValue& j, const std::string& where, double* out) {
    if (j.is_number() && std::isfinite(j.number) && j.number >= 0) {
      *out = j.number == 0 ? 0.0 : j.number;  // -0 reads as 0, as it always did
    } else {
      Fail(where, "got " + Dump(j) + "; expected a time in seconds since the epoch");
    }
  }

  void String(const JsonValue& j, const std::string& where, std::string* out) {
    if (j.is_string()) {
      *out = j.text;
    } else {
      Fail(where, "got " + Dump(j) + "; expected a string");
    }
  }

  void Bool(const JsonValue& j, const std::string& where, bool* out) {
    if (j.type == JsonValue::Type::kBool) {
      *out = j.boolean;
    } else {
      Fail(where, "got " + Dump(j) + "; expected true or false");
    }
  }

  void Counters(const JsonValue& j, const std::string& where,
                std::map<std::string, uint64_t>* out) {
    Each(j, where, [&](const std::string& key, const JsonValue& v, const std::string& at) {
      U64(v, at, &(*out)[key]);
    });
  }

  void Aer(const JsonValue& j, const std::string& where, AerTotals* out) {
    Each(j, where, [&](const std::string& key, const JsonValue& v, const std::string& at) {
      uint64_t n = 0;
      U64(v, at, &n);
      if (key == "correctable") {
        out->correctable = n;
      } else if (key == "nonfatal") {
        out->nonfatal = n;
      } else if (key == "fatal") {
        out->fatal = n;
      } else {
        Fail(at, "unknown key; expected correctable, nonfatal or fatal");
      }
    });
  }

  // A history object: counter -> array of [from, to, count] with from <= to.
  void History(const JsonValue& j, const std::string& where,
               std::map<std::string, RateHistory>* out) {
    Each(j, where, [&](const std::string& key, const JsonValue& v, const std::string& at) {
      if (!v.is_array()) {
        Fail(at, "got " + std::string(TypeName(v)) + "; expected an array of [from, to, count]");
        return;
      }
      RateHistory& h = (*out)[key];
      for (size_t i = 0; i < v.items.size() && ok(); ++i) {
        const JsonValue& e = v.items[i];
        const std::string ei = at + "/" + std::to_string(i);
        if (!e.is_array() || e.items.size() != 3) {
          Fail(ei, "got " + Dump(e) + "; expected [from, to, count]: two times and a count");
          return;
        }
        RateSample r;
        Time(e.items[0], ei + "/0", &r.from);
        Time(e.items[1], ei + "/1", &r.to);
        U64(e.items[2], ei + "/2", &r.count);
        if (ok() && r.from > r.to)
          Fail(ei, "got " + Dump(e) + "; expected from <= to");
        h.push_back(r);
      }
    });
  }

  void Flaps(const JsonValue& j, const std::string& where, std::vector<double>* out) {
    if (!j.is_array()) {
      Fail(where, "got " + std::string(TypeName(j)) + "; expected an array of times");
      return;
    }
    for (size_t i = 0; i < j.items.size() && ok(); ++i) {
      double t = 0;
      Time(j.items[i], where + "/" + std::to_string(i), &t);
      out->push_back(t);
    }
  }

  // The common header: format, version, node, time.
  void Header(const JsonValue& j, const char* format, std::string* node, double* time) {
    if (!Object(j, "")) return;
    std::string f;
    if (const JsonValue* v = Member(j, "", "format", true)) String(*v, "/format", &f);
    if (ok() && f != format) Fail("/format", "got '" + f + "'; expected '" + format + "'");
    long long version = 0;
    if (const JsonValue* v = Member(j, "", "version", true))
      Int(*v, "/version", kVersion, kVersion, &version);
    if (const JsonValue* v = Member(j, "", "node", true)) String(*v, "/node", node);
    if (const JsonValue* v = Member(j, "", "time", true)) Time(*v, "/time", time);
  }

 private:
  std::string file_;
  std::string err_;
};

// Parses `text` of `file` with the strict reader, reads the header of `format` into a record
// and then the rest with `body(reader, document, record)`. A syntax error becomes
// "FILE:LINE:COLUMN: what; expected the JSON railcheck writes" (state_syntax.h).
template <typename Record, typename Body>
bool ReadRecord(const std::string& text, const std::string& file, const char* format, Body body,
                Record* out, std::string* err) {
  JsonValue j;
  JsonError e;
  if (!ParseJson(text, &j, &e)) {
    *err = StateSyntaxError(text, e, file) + "; expected the JSON railcheck writes";
    return false;
  }
  Reader r(file);
  Record rec;
  r.Header(j, format, &rec.node, &rec.time);
  body(r, j, &rec);
  return r.Done(&rec, out, err);
}

std::string Recovery(const std::string& path, bool baseline) {
  if (baseline)
    return " (recover: record a new baseline with `railcheck baseline`, or delete " + path +
           " to judge error rates since the last run only)";
  return " (recover: delete " + path + "; railcheck starts a new record at its next run: " +
         "rates count from then, and a node it drained needs its clean runs again)";
}

}  // namespace

std::string BaselineToJson(const NodeBaseline& b) {
  json j = HeaderJson(kBaselineFormat, b.node, b.time);
  json ports = json::object();
  for (const auto& kv : b.ports) {
    ports[kv.first] = {{"counters", CountersJson(kv.second.counters)},
                       {"hw_counters", CountersJson(kv.second.hw_counters)}};
  }
  j["ports"] = ports;
  json pcie = json::object();
  for (const auto& kv : b.pcie) pcie[kv.first] = AerJson(kv.second);
  j["pcie"] = pcie;
  j["boot_id"] = b.boot_id;
  return j.dump(1) + "\n";
}

std::string RunStateToJson(const RunState& s) {
  json j = HeaderJson(kStateFormat, s.node, s.time);
  // The counts, as ReadCounts reads them back.
  using Count = std::pair<const char*, long long>;
  for (const Count& c :
       {Count{"runs", s.runs}, Count{"drains", s.drains}, Count{"resumes", s.resumes},
        Count{"clean_streak", s.clean_streak}, Count{"drain_free_streak", s.drain_free_streak}})
    j[c.first] = c.second;
  j["feature_held"] = s.feature_held;
  j["baseline_time"] = s.baseline_time;
  j["boot_id"] = s.boot_id;
  j["published_health"] = s.published_health;
  j["published_time"] = s.published_time;
  json ports = json::object();
  for (const auto& kv : s.ports) {
    const PortRecord& p = kv.second;
    ports[kv.first] = {{"state", p.state},
                       {"counters", CountersJson(p.last.counters)},
                       {"hw_counters", CountersJson(p.last.hw_counters)},
                       {"since_baseline", CountersJson(p.since_baseline)},
                       {"flaps", p.flaps},
                       {"recent", HistoryJson(p.recent)}};
  }
  j["ports"] = ports;
  json pcie = json::object();
  for (const auto& kv : s.pcie)
    pcie[kv.first] = {{"last", AerJson(kv.second.last)},
                      {"since_baseline", AerJson(kv.second.since_baseline)},
                      {"recent", HistoryJson(kv.second.recent)}};
  j["pcie"] = pcie;
  return j.dump(1) + "\n";
}

bool BaselineFromJson(const std::string& text, const std::string& file, NodeBaseline* out,
                      std::string* err) {
  auto body = [](Reader& r, const JsonValue& j, NodeBaseline* b) {
    r.EachOf(j, "ports", [&](const std::string& nic, const JsonValue& v, const std::string& at) {
      if (!r.Object(v, at)) return;
      PortCounters& pc = b->ports[nic];
      if (const JsonValue* c = r.Member(v, at, "counters", true))
        r.Counters(*c, at + "/counters", &pc.counters);
      if (const JsonValue* c = r.Member(v, at, "hw_counters", false))
        r.Counters(*c, at + "/hw_counters", &pc.hw_counters);
    });
    r.EachOf(j, "pcie", [&](const std::string& bdf, const JsonValue& v, const std::string& at) {
      r.Aer(v, at, &b->pcie[bdf]);
    });
    if (const JsonValue* v = r.Member(j, "", "boot_id", false))
      r.String(*v, "/boot_id", &b->boot_id);
  };
  return ReadRecord(text, file, kBaselineFormat, body, out, err);
}

namespace {

// The run state's counts and flags after its header.
void ReadCounts(Reader& r, const JsonValue& j, RunState* s) {
  struct Num {
    const char* key;
    long long* out;
  };
  long long clean = 0, drain_free = 0;
  for (const Num& n :
       {Num{"runs", &s->runs}, Num{"drains", &s->drains}, Num{"resumes", &s->resumes},
        Num{"clean_streak", &clean}, Num{"drain_free_streak", &drain_free}}) {
    if (const JsonValue* v = r.Member(j, "", n.key, true))
      r.Int(*v, std::string("/") + n.key, 0, 1LL << 53, n.out);
  }
  // Streaks only matter up to resume_after_clean_runs; keep them in int range.
  s->clean_streak = static_cast<int>(std::min<long long>(clean, 1 << 30));
  s->drain_free_streak = static_cast<int>(std::min<long long>(drain_free, 1 << 30));
  if (const JsonValue* v = r.Member(j, "", "feature_held", true))
    r.Bool(*v, "/feature_held", &s->feature_held);
  if (const JsonValue* v = r.Member(j, "", "baseline_time", true))
    r.Time(*v, "/baseline_time", &s->baseline_time);
  // Files written before railcheck kept the boot id have none: not known.
  if (const JsonValue* v = r.Member(j, "", "boot_id", false)) r.String(*v, "/boot_id", &s->boot_id);
  // Files written before railcheck kept them: not known (the next run asks slurmctld).
  if (const JsonValue* v = r.Member(j, "", "published_health", false))
    r.String(*v, "/published_health", &s->published_health);
  if (const JsonValue* v = r.Member(j, "", "published_time", false))
    r.Time(*v, "/published_time", &s->published_time);
}

// One port's record of the run state.
void ReadPortRecord(Reader& r, const JsonValue& v, const std::string& at, PortRecord* p) {
  if (!r.Object(v, at)) return;
  if (const JsonValue* m = r.Member(v, at, "state", true)) r.String(*m, at + "/state", &p->state);
  if (const JsonValue* m = r.Member(v, at, "counters", true))
    r.Counters(*m, at + "/counters", &p->last.counters);
  if (const JsonValue* m = r.Member(v, at, "hw_counters", false))
    r.Counters(*m, at + "/hw_counters", &p->last.hw_counters);
  if (const JsonValue* m = r.Member(v, at, "since_baseline", true))
    r.Counters(*m, at + "/since_baseline", &p->since_baseline);
  if (const JsonValue* m = r.Member(v, at, "flaps", true)) r.Flaps(*m, at + "/flaps", &p->flaps);
  // Optional: files written before railcheck kept rate windows have no history.
  if (const JsonValue* m = r.Member(v, at, "recent", false))
    r.History(*m, at + "/recent", &p->recent);
}

}  // namespace

bool RunStateFromJson(const std::string& text, const std::string& file, RunState* out,
                      std::string* err) {
  auto body = [](Reader& r, const JsonValue& j, RunState* s) {
    ReadCounts(r, j, s);
    r.EachOf(j, "ports", [&](const std::string& nic, const JsonValue& v, const std::string& at) {
      ReadPortRecord(r, v, at, &s->ports[nic]);
    });
    r.EachOf(j, "pcie", [&](const std::string& bdf, const JsonValue& v, const std::string& at) {
      if (!r.Object(v, at)) return;
      PcieRecord& p = s->pcie[bdf];
      if (const JsonValue* m = r.Member(v, at, "last", true)) r.Aer(*m, at + "/last", &p.last);
      if (const JsonValue* m = r.Member(v, at, "since_baseline", true))
        r.Aer(*m, at + "/since_baseline", &p.since_baseline);
      if (const JsonValue* m = r.Member(v, at, "recent", false))
        r.History(*m, at + "/recent", &p.recent);
    });
  };
  return ReadRecord(text, file, kStateFormat, body, out, err);
}

std::string BaselinePath(const std::string& state_dir) { return state_dir + "/baseline.json"; }

std::string RunStatePath(const std::string& state_dir) { return state_dir + "/state.json"; }

namespace {

// Reads the record at `path` with `parse` (BaselineFromJson or RunStateFromJson) into `*out`,
// which must be `node`'s; `what` names the record in messages ("baseline", "run state").
template <typename Record, typename Parse>
LoadStatus LoadRecord(const std::string& path, const std::string& node, const char* what,
                      bool baseline, Parse parse, Record* out, std::string* err) {
  std::string text;
  switch (ReadStateFile(path, &text, err)) {
    case ReadStatus::kMissing:
      return LoadStatus::kMissing;
    case ReadStatus::kError:
      *err += Recovery(path, baseline);
      return LoadStatus::kError;
    case ReadStatus::kOk:
      break;
  }
  if (!parse(text, path, out, err)) {
    *err = std::string("corrupt ") + what + ": " + *err + Recovery(path, baseline);
    return LoadStatus::kCorrupt;
  }
  if (out->node != node) {
    *err = path + " is the " + what + " of node '" + out->node + "', not '" + node +
           "'; expected every node its own state_dir (put %n in health.state_dir)";
    return LoadStatus::kError;
  }
  return LoadStatus::kOk;
}

}  // namespace

LoadStatus LoadBaseline(const std::string& state_dir, const std::string& node, NodeBaseline* out,
                        std::string* err) {
  return LoadRecord(BaselinePath(state_dir), node, "baseline", true, BaselineFromJson, out, err);
}

LoadStatus LoadRunState(const std::string& state_dir, const std::string& node, RunState* out,
                        std::string* err) {
  return LoadRecord(RunStatePath(state_dir), node, "run state", false, RunStateFromJson, out, err);
}

bool SaveBaseline(const std::string& state_dir, const NodeBaseline& b, std::string* err) {
  return WriteStateFileAtomic(BaselinePath(state_dir), BaselineToJson(b), err);
}

bool SaveRunState(const std::string& state_dir, const RunState& s, std::string* err) {
  return WriteStateFileAtomic(RunStatePath(state_dir), RunStateToJson(s), err);
}

}  // namespace railguard::health
