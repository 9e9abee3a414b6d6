#include "healthcheck/state.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "healthcheck/state_file.h"

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

json AerJson(const AerTotals& a) {
  json j = json::object();
  if (a.correctable) j["correctable"] = *a.correctable;
  if (a.nonfatal) j["nonfatal"] = *a.nonfatal;
  if (a.fatal) j["fatal"] = *a.fatal;
  return j;
}

// Reads typed values out of a parsed document; the first problem is kept with its JSON
// pointer ("/ports/mlx5_3/counters/symbol_error").
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  bool ok() const { return err_.empty(); }
  const std::string& error() const { return err_; }

  void Fail(const std::string& where, const std::string& what) {
    if (err_.empty()) err_ = file_ + ": " + (where.empty() ? "/" : where) + ": " + what;
  }

  const json* Object(const json& j, const std::string& where) {
    if (!j.is_object()) {
      Fail(where, "got " + std::string(j.type_name()) + "; expected an object");
      return nullptr;
    }
    return &j;
  }

  // Member `key` of object `j`, or nullptr (with an error when `required`).
  const json* Member(const json& j, const std::string& where, const char* key, bool required) {
    auto it = j.find(key);
    if (it == j.end()) {
      if (required) Fail(where, std::string("missing key '") + key + "'");
      return nullptr;
    }
    return &*it;
  }

  void U64(const json& j, const std::string& where, uint64_t* out) {
    if (j.is_number_unsigned()) {
      *out = j.get<uint64_t>();
    } else if (j.is_number_integer() && j.get<long long>() >= 0) {
      *out = static_cast<uint64_t>(j.get<long long>());
    } else {
      Fail(where, "got " + j.dump() + "; expected a non-negative integer");
    }
  }

  void Int(const json& j, const std::string& where, long long lo, long long hi, long long* out) {
    if (j.is_number_integer() && j.get<long long>() >= lo && j.get<long long>() <= hi) {
      *out = j.get<long long>();
    } else {
      Fail(where, "got " + j.dump() + "; expected an integer from " + std::to_string(lo) + " to " +
                      std::to_string(hi));
    }
  }

  void Time(const json& j, const std::string& where, double* out) {
    if (j.is_number() && std::isfinite(j.get<double>()) && j.get<double>() >= 0) {
      *out = j.get<double>();
    } else {
      Fail(where, "got " + j.dump() + "; expected a time in seconds since the epoch");
    }
  }

  void String(const json& j, const std::string& where, std::string* out) {
    if (j.is_string()) {
      *out = j.get<std::string>();
    } else {
      Fail(where, "got " + j.dump() + "; expected a string");
    }
  }

  void Bool(const json& j, const std::string& where, bool* out) {
    if (j.is_boolean()) {
      *out = j.get<bool>();
    } else {
      Fail(where, "got " + j.dump() + "; expected true or false");
    }
  }

  void Counters(const json& j, const std::string& where, std::map<std::string, uint64_t>* out) {
    if (!Object(j, where)) return;
    for (auto it = j.begin(); it != j.end() && ok(); ++it)
      U64(it.value(), where + "/" + it.key(), &(*out)[it.key()]);
  }

  void Aer(const json& j, const std::string& where, AerTotals* out) {
    if (!Object(j, where)) return;
    for (auto it = j.begin(); it != j.end() && ok(); ++it) {
      uint64_t v = 0;
      U64(it.value(), where + "/" + it.key(), &v);
      if (it.key() == "correctable") {
        out->correctable = v;
      } else if (it.key() == "nonfatal") {
        out->nonfatal = v;
      } else if (it.key() == "fatal") {
        out->fatal = v;
      } else {
        Fail(where + "/" + it.key(), "unknown key; expected correctable, nonfatal or fatal");
      }
    }
  }

  // The common header: format, version, node, time.
  void Header(const json& j, const char* format, std::string* node, double* time) {
    if (!Object(j, "")) return;
    std::string f;
    if (const json* v = Member(j, "", "format", true)) String(*v, "/format", &f);
    if (ok() && f != format) Fail("/format", "got '" + f + "'; expected '" + format + "'");
    long long version = 0;
    if (const json* v = ok() ? Member(j, "", "version", true) : nullptr)
      Int(*v, "/version", kVersion, kVersion, &version);
    if (const json* v = ok() ? Member(j, "", "node", true) : nullptr) String(*v, "/node", node);
    if (const json* v = ok() ? Member(j, "", "time", true) : nullptr) Time(*v, "/time", time);
  }

 private:
  std::string file_;
  std::string err_;
};

// Parses JSON text; a syntax error becomes "FILE:LINE:COLUMN: what; expected ...", the
// position computed from the parser's byte offset.
bool ParseJson(const std::string& text, const std::string& file, json* out, std::string* err) {
  try {
    *out = json::parse(text);
    return true;
  } catch (const json::parse_error& e) {
    const size_t off = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + off, '\n'));
    const size_t nl = off == 0 ? std::string::npos : text.rfind('\n', off - 1);
    const size_t column = off - (nl == std::string::npos ? 0 : nl + 1) + 1;
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
    std::string what = e.what();
    size_t at = what.find(": ", what.find("parse error"));
    what = at == std::string::npos ? what : what.substr(at + 2);
    *err = file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what +
           "; expected the JSON railcheck writes";
    return false;
  } catch (const json::exception& e) {
    // Valid syntax that nlohmann cannot hold: "[json.exception.out_of_range.406] number
    // overflow parsing '1e400'".
    std::string what = e.what();
    size_t at = what.find("] ");
    what = at == std::string::npos ? what : what.substr(at + 2);
    *err = file + ": " + what + "; expected the JSON railcheck writes";
    return false;
  }
}

std::string Recovery(const std::string& path, bool baseline) {
  if (baseline)
    return " (recover: record a new baseline with `railcheck baseline`, or delete " + path +
           " to judge error rates since the last run only)";
  return " (recover: delete " + path + "; railcheck starts a new record at its next run: " +
         "rates count from then, and a node it drained needs its clean runs again)";
}

}  // namespace

std::string BaselineToJson(const Baseline& b) {
  json j = json::object();
  j["format"] = kBaselineFormat;
  j["version"] = kVersion;
  j["node"] = b.node;
  j["time"] = b.time;
  json ports = json::object();
  for (const auto& kv : b.ports) {
    ports[kv.first] = {{"counters", CountersJson(kv.second.counters)},
                       {"hw_counters", CountersJson(kv.second.hw_counters)}};
  }
  j["ports"] = ports;
  json pcie = json::object();
  for (const auto& kv : b.pcie) pcie[kv.first] = AerJson(kv.second);
  j["pcie"] = pcie;
  return j.dump(1) + "\n";
}

std::string RunStateToJson(const RunState& s) {
  json j = json::object();
  j["format"] = kStateFormat;
  j["version"] = kVersion;
  j["node"] = s.node;
  j["time"] = s.time;
  j["runs"] = s.runs;
  j["drains"] = s.drains;
  j["resumes"] = s.resumes;
  j["clean_streak"] = s.clean_streak;
  j["drain_free_streak"] = s.drain_free_streak;
  j["feature_held"] = s.feature_held;
  j["baseline_time"] = s.baseline_time;
  json ports = json::object();
  for (const auto& kv : s.ports) {
    const PortRecord& p = kv.second;
    ports[kv.first] = {{"state", p.state},
                       {"counters", CountersJson(p.last.counters)},
                       {"hw_counters", CountersJson(p.last.hw_counters)},
                       {"since_baseline", CountersJson(p.since_baseline)},
                       {"flaps", p.flaps}};
  }
  j["ports"] = ports;
  json pcie = json::object();
  for (const auto& kv : s.pcie)
    pcie[kv.first] = {{"last", AerJson(kv.second.last)},
                      {"since_baseline", AerJson(kv.second.since_baseline)}};
  j["pcie"] = pcie;
  return j.dump(1) + "\n";
}

bool BaselineFromJson(const std::string& text, const std::string& file, Baseline* out,
                      std::string* err) {
  json j;
  if (!ParseJson(text, file, &j, err)) return false;
  Reader r(file);
  Baseline b;
  r.Header(j, kBaselineFormat, &b.node, &b.time);
  if (const json* ports = r.ok() ? r.Member(j, "", "ports", true) : nullptr) {
    if (r.Object(*ports, "/ports")) {
      for (auto it = ports->begin(); it != ports->end() && r.ok(); ++it) {
        const std::string at = "/ports/" + it.key();
        if (!r.Object(it.value(), at)) break;
        PortCounters& pc = b.ports[it.key()];
        if (const json* c = r.Member(it.value(), at, "counters", true))
          r.Counters(*c, at + "/counters", &pc.counters);
        if (const json* c = r.ok() ? r.Member(it.value(), at, "hw_counters", false) : nullptr)
          r.Counters(*c, at + "/hw_counters", &pc.hw_counters);
      }
    }
  }
  if (const json* pcie = r.ok() ? r.Member(j, "", "pcie", true) : nullptr) {
    if (r.Object(*pcie, "/pcie")) {
      for (auto it = pcie->begin(); it != pcie->end() && r.ok(); ++it)
        r.Aer(it.value(), "/pcie/" + it.key(), &b.pcie[it.key()]);
    }
  }
  if (!r.ok()) {
    *err = r.error();
    return false;
  }
  *out = std::move(b);
  return true;
}

bool RunStateFromJson(const std::string& text, const std::string& file, RunState* out,
                      std::string* err) {
  json j;
  if (!ParseJson(text, file, &j, err)) return false;
  Reader r(file);
  RunState s;
  r.Header(j, kStateFormat, &s.node, &s.time);
  struct Num {
    const char* key;
    long long* out;
  };
  long long clean = 0, drain_free = 0;
  for (const Num& n : {Num{"runs", &s.runs}, Num{"drains", &s.drains}, Num{"resumes", &s.resumes},
                       Num{"clean_streak", &clean}, Num{"drain_free_streak", &drain_free}}) {
    if (const json* v = r.ok() ? r.Member(j, "", n.key, true) : nullptr)
      r.Int(*v, std::string("/") + n.key, 0, 1LL << 53, n.out);
  }
  // Streaks only matter up to resume_after_clean_runs; keep them in int range.
  s.clean_streak = static_cast<int>(std::min<long long>(clean, 1 << 30));
  s.drain_free_streak = static_cast<int>(std::min<long long>(drain_free, 1 << 30));
  if (const json* v = r.ok() ? r.Member(j, "", "feature_held", true) : nullptr)
    r.Bool(*v, "/feature_held", &s.feature_held);
  if (const json* v = r.ok() ? r.Member(j, "", "baseline_time", true) : nullptr)
    r.Time(*v, "/baseline_time", &s.baseline_time);
  if (const json* ports = r.ok() ? r.Member(j, "", "ports", true) : nullptr) {
    if (r.Object(*ports, "/ports")) {
      for (auto it = ports->begin(); it != ports->end() && r.ok(); ++it) {
        const std::string at = "/ports/" + it.key();
        if (!r.Object(it.value(), at)) break;
        PortRecord& p = s.ports[it.key()];
        if (const json* v = r.Member(it.value(), at, "state", true))
          r.String(*v, at + "/state", &p.state);
        if (const json* v = r.ok() ? r.Member(it.value(), at, "counters", true) : nullptr)
          r.Counters(*v, at + "/counters", &p.last.counters);
        if (const json* v = r.ok() ? r.Member(it.value(), at, "hw_counters", false) : nullptr)
          r.Counters(*v, at + "/hw_counters", &p.last.hw_counters);
        if (const json* v = r.ok() ? r.Member(it.value(), at, "since_baseline", true) : nullptr)
          r.Counters(*v, at + "/since_baseline", &p.since_baseline);
        if (const json* v = r.ok() ? r.Member(it.value(), at, "flaps", true) : nullptr) {
          if (!v->is_array()) {
            r.Fail(at + "/flaps",
                   "got " + std::string(v->type_name()) + "; expected an array of times");
          } else {
            for (size_t i = 0; i < v->size() && r.ok(); ++i) {
              double t = 0;
              r.Time((*v)[i], at + "/flaps/" + std::to_string(i), &t);
              p.flaps.push_back(t);
            }
          }
        }
      }
    }
  }
  if (const json* pcie = r.ok() ? r.Member(j, "", "pcie", true) : nullptr) {
    if (r.Object(*pcie, "/pcie")) {
      for (auto it = pcie->begin(); it != pcie->end() && r.ok(); ++it) {
        const std::string at = "/pcie/" + it.key();
        if (!r.Object(it.value(), at)) break;
        PcieRecord& p = s.pcie[it.key()];
        if (const json* v = r.Member(it.value(), at, "last", true))
          r.Aer(*v, at + "/last", &p.last);
        if (const json* v = r.ok() ? r.Member(it.value(), at, "since_baseline", true) : nullptr)
          r.Aer(*v, at + "/since_baseline", &p.since_baseline);
      }
    }
  }
  if (!r.ok()) {
    *err = r.error();
    return false;
  }
  *out = std::move(s);
  return true;
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

LoadStatus LoadBaseline(const std::string& state_dir, const std::string& node, Baseline* out,
                        std::string* err) {
  return LoadRecord(BaselinePath(state_dir), node, "baseline", true, BaselineFromJson, out, err);
}

LoadStatus LoadRunState(const std::string& state_dir, const std::string& node, RunState* out,
                        std::string* err) {
  return LoadRecord(RunStatePath(state_dir), node, "run state", false, RunStateFromJson, out,
                    err);
}

bool SaveBaseline(const std::string& state_dir, const Baseline& b, std::string* err) {
  return WriteStateFileAtomic(BaselinePath(state_dir), BaselineToJson(b), err);
}

bool SaveRunState(const std::string& state_dir, const RunState& s, std::string* err) {
  return WriteStateFileAtomic(RunStatePath(state_dir), RunStateToJson(s), err);
}

}  // namespace railguard::health
