// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/snapshot.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "base/json_reader.h"
#include "base/names.h"
#include "base/text_file.h"

namespace railguard::report {

namespace {

using Json = nlohmann::ordered_json;

const char* const kNodeStates[] = {"idle",  "allocated", "mixed",  "down",
                                   "error", "future",    "unknown"};

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// The saved fields of a node and of a job, in file order (extra_line and line are not saved).
Json NodeJson(const NodeSnapshot& n) {
  return {{"name", n.name},           {"state", n.state},
          {"flags", n.flags},         {"reason", n.reason},
          {"reason_time", n.reason_time}, {"reason_user", n.reason_user},
          {"features", n.features},   {"features_act", n.features_act},
          {"extra", n.extra}};
}
Json JobJson(const JobSnapshot& j) {
  return {{"id", j.id},       {"name", j.name},
          {"user", j.user},   {"state", j.state},
          {"nodes", j.nodes}, {"node_count", j.node_count},
          {"start_time", j.start_time}, {"partition", j.partition}};
}

// `items` as JSON objects, each on its own line indented by two, the last followed by a
// newline; "" for none.
template <typename Item>
std::string OnePerLine(const std::vector<Item>& items, Json (*to_json)(const Item&)) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ",\n  " : "\n  ") + Dump(to_json(items[i]));
  return items.empty() ? out : out + "\n";
}

// Typed reads from one JSON object, each problem a diagnostic at the value's position.
class ObjectReader {
 public:
  ObjectReader(const JsonValue& obj, const std::string& file, std::string what, Diags* diags)
      : obj_(obj), file_(file), what_(std::move(what)), diags_(diags) {}

  void Error(const JsonValue& at, const std::string& message) {
    diags_->push_back({file_, at.line, at.column, what_ + ": " + message});
  }

  // Every key must be one of `known`.
  void CheckKeys(std::initializer_list<const char*> known) {
    for (const auto& m : obj_.members) {
      bool ok = false;
      for (const char* k : known) ok = ok || m.first == k;
      if (ok) continue;
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      Error(m.second,
            "unknown key \"" + ValidUtf8(m.first).substr(0, 64) + "\"; expected one of " + list);
    }
  }

  const JsonValue* Get(const char* key, bool required) {
    const JsonValue* v = obj_.Find(key);
    if (!v && required) Error(obj_, "missing key \"" + std::string(key) + "\"");
    return v;
  }

  bool String(const char* key, bool required, std::string* out, int* line = nullptr) {
    const JsonValue* v = Get(key, required);
    if (!v) return !required;
    if (!v->is_string()) {
      Error(*v, "\"" + std::string(key) + "\" is " + JsonTypeName(v->type) + "; expected a string");
      return false;
    }
    *out = v->text;
    if (line) *line = v->line;
    return true;
  }

  // A finite number >= 0 (and integral when `integer`) at most `max`.
  bool Number(const char* key, bool required, double max, bool integer, double* out,
              const char* meaning) {
    const JsonValue* v = Get(key, required);
    if (!v) return !required;
    if (!v->is_number() || v->number < 0 || v->number > max || (integer && !v->integral)) {
      std::string found = v->is_number() ? "the number " + v->text.substr(0, 40)
                                         : std::string(JsonTypeName(v->type));
      Error(*v, "\"" + std::string(key) + "\" is " + found + "; expected " + meaning);
      return false;
    }
    *out = v->number;
    return true;
  }

 private:
  const JsonValue& obj_;
  const std::string& file_;
  std::string what_;
  Diags* diags_;
};

// A node or job name: printable, no spaces or commas, at most 256 bytes.
bool PlainName(const std::string& s) {
  if (s.empty() || s.size() > 256) return false;
  for (unsigned char c : s)
    if (c <= 0x20 || c == 0x7F || c == ',' || c == '[' || c == ']') return false;
  return true;
}

// False, with "<list>[<index>] is <type>; expected an object <shape>", when `v` (item
// `index` of the array `list`) is no object.
bool IsObjectItem(const JsonValue& v, const char* list, size_t index, const char* shape,
                  const std::string& file, Diags* diags) {
  if (v.is_object()) return true;
  diags->push_back({file, v.line, v.column,
                    std::string(list) + "[" + std::to_string(index) + "] is " +
                        JsonTypeName(v.type) + "; expected an object " + shape});
  return false;
}

void ReadNode(const JsonValue& v, size_t index, const std::string& file, NodeSnapshot* n,
              Diags* diags) {
  if (!IsObjectItem(v, "nodes", index, "{\"name\": ..., \"state\": ...}", file, diags)) return;
  const JsonValue* name = v.Find("name");
  std::string what = "nodes[" + std::to_string(index) + "]";
  if (name && name->is_string() && PlainName(name->text)) what = "node '" + name->text + "'";
  ObjectReader r(v, file, what, diags);
  r.CheckKeys({"name", "state", "flags", "reason", "reason_time", "reason_user", "features",
               "features_act", "extra"});
  if (r.String("name", true, &n->name) && name && !PlainName(n->name))
    r.Error(*name, "name \"" + ValidUtf8(n->name).substr(0, 64) +
                       "\" is not a node name; expected 1-256 printable characters without "
                       "spaces, commas or brackets");
  const JsonValue* state = v.Find("state");
  if (r.String("state", true, &n->state) && state) {
    bool known = false;
    for (const char* s : kNodeStates) known = known || n->state == s;
    if (!known)
      r.Error(*state, "unknown state \"" + ValidUtf8(n->state).substr(0, 64) +
                          "\"; expected idle, allocated, mixed, down, error, future or "
                          "unknown");
  }
  if (const JsonValue* flags = v.Find("flags")) {
    if (!flags->is_array()) {
      r.Error(*flags, "\"flags\" is " + std::string(JsonTypeName(flags->type)) +
                          "; expected an array of flag names such as [\"drain\"]");
    } else {
      for (const JsonValue& f : flags->items) {
        if (!f.is_string() || !IsStateWord(f.text)) {
          r.Error(f, "flag is " +
                         (f.is_string() ? "\"" + ValidUtf8(f.text).substr(0, 64) + "\""
                                        : std::string(JsonTypeName(f.type))) +
                         "; expected a lower-case flag name such as \"drain\"");
        } else {
          n->flags.push_back(f.text);
        }
      }
    }
  }
  r.String("reason", false, &n->reason);
  r.Number("reason_time", false, 1e11, false, &n->reason_time,
           "seconds since the epoch (a number >= 0)");
  r.String("reason_user", false, &n->reason_user);
  r.String("features", false, &n->features);
  r.String("features_act", false, &n->features_act);
  r.String("extra", false, &n->extra, &n->extra_line);
}

void ReadJob(const JsonValue& v, size_t index, const std::string& file, JobSnapshot* j,
             Diags* diags) {
  if (!IsObjectItem(v, "jobs", index, "{\"id\": ..., \"nodes\": ...}", file, diags)) return;
  j->line = v.line;
  std::string what = "jobs[" + std::to_string(index) + "]";
  const JsonValue* idv = v.Find("id");
  if (idv && idv->is_number() && idv->integral && idv->number >= 0 && idv->number < 4294967296.0)
    what = "job " + std::to_string(static_cast<uint32_t>(idv->number));
  ObjectReader r(v, file, what, diags);
  r.CheckKeys({"id", "name", "user", "state", "nodes", "node_count", "start_time", "partition"});
  double d = 0;
  if (r.Number("id", true, 4294967295.0, true, &d, "a job id (an integer 1 to 4294967295)")) {
    j->id = static_cast<uint32_t>(d);
    if (j->id == 0) r.Error(*idv, "\"id\" is 0; expected a job id (an integer 1 to 4294967295)");
  }
  r.String("name", false, &j->name);
  r.String("user", false, &j->user);
  const JsonValue* state = v.Find("state");
  if (r.String("state", true, &j->state) && state && !IsStateWord(j->state))
    r.Error(*state, "state \"" + ValidUtf8(j->state).substr(0, 64) +
                        "\" is not a job state; expected a lower-case name such as "
                        "\"running\"");
  r.String("nodes", true, &j->nodes);
  if (r.Number("node_count", false, 4294967295.0, true, &d, "an integer >= 0"))
    j->node_count = static_cast<uint32_t>(d);
  r.Number("start_time", false, 1e11, false, &j->start_time,
           "seconds since the epoch (a number >= 0)");
  r.String("partition", false, &j->partition);
}

}  // namespace

bool NodeSnapshot::HasFlag(const std::string& flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::string SnapshotToJson(const Snapshot& s) {
  Json head = Json::object();
  head["railguard_snapshot"] = kSnapshotVersion;
  head["time"] = s.time;
  head["source"] = s.source;
  head["slurm_cluster"] = s.slurm_cluster;
  std::string text = Dump(head);
  text.pop_back();  // the closing '}': nodes and jobs follow
  text += ",\n\"nodes\": [" + OnePerLine(s.nodes, NodeJson) + "],\n\"jobs\": [";
  return text + OnePerLine(s.jobs, JobJson) + "]}\n";
}

bool SnapshotFromJson(const std::string& text, const std::string& file, Snapshot* out,
                      Diags* diags) {
  const size_t before = diags->size();
  *out = Snapshot();
  JsonValue doc;
  JsonError jerr;
  JsonLimits limits;
  limits.max_depth = 8;
  if (!ParseJson(text, &doc, &jerr, limits)) {
    diags->push_back({file, jerr.line, jerr.column,
                      jerr.message + " (expected a railguard snapshot: JSON written by "
                                     "`railctl report --save-snapshot`)"});
    return false;
  }
  if (!doc.is_object()) {
    diags->push_back({file, doc.line, doc.column,
                      std::string("the snapshot is ") + JsonTypeName(doc.type) +
                          "; expected an object {\"railguard_snapshot\": 1, ...}"});
    return false;
  }
  ObjectReader top(doc, file, "snapshot", diags);
  const JsonValue* version = doc.Find("railguard_snapshot");
  if (!version) {
    diags->push_back({file, doc.line, doc.column,
                      "no \"railguard_snapshot\" key; expected a railguard snapshot "
                      "({\"railguard_snapshot\": 1, \"time\": ..., \"nodes\": [...]})"});
    return false;
  }
  if (!version->is_number() || !version->integral || version->number != kSnapshotVersion) {
    diags->push_back({file, version->line, version->column,
                      "snapshot version " +
                          (version->is_number() ? version->text.substr(0, 40)
                                                : std::string(JsonTypeName(version->type))) +
                          " is not supported; expected " + std::to_string(kSnapshotVersion)});
    return false;
  }
  top.CheckKeys({"railguard_snapshot", "time", "source", "slurm_cluster", "nodes", "jobs"});
  top.Number("time", true, 1e11, false, &out->time, "seconds since the epoch (a number >= 0)");
  top.String("source", false, &out->source);
  top.String("slurm_cluster", false, &out->slurm_cluster);
  const JsonValue* nodes = top.Get("nodes", true);
  if (nodes && !nodes->is_array()) {
    top.Error(*nodes, std::string("\"nodes\" is ") + JsonTypeName(nodes->type) +
                          "; expected an array of node objects");
  } else if (nodes) {
    std::unordered_map<std::string, int> seen;
    out->nodes.reserve(nodes->items.size());
    for (size_t i = 0; i < nodes->items.size(); ++i) {
      NodeSnapshot n;
      ReadNode(nodes->items[i], i, file, &n, diags);
      if (n.name.empty()) continue;
      auto ins = seen.emplace(n.name, nodes->items[i].line);
      if (!ins.second) {
        diags->push_back({file, nodes->items[i].line, nodes->items[i].column,
                          "node '" + n.name + "' is listed twice (first at line " +
                              std::to_string(ins.first->second) + "); expected each once"});
        continue;
      }
      out->nodes.push_back(std::move(n));
    }
  }
  if (const JsonValue* jobs = top.Get("jobs", false)) {
    if (!jobs->is_array()) {
      top.Error(*jobs, std::string("\"jobs\" is ") + JsonTypeName(jobs->type) +
                           "; expected an array of job objects");
    } else {
      out->jobs.reserve(jobs->items.size());
      for (size_t i = 0; i < jobs->items.size(); ++i) {
        JobSnapshot j;
        ReadJob(jobs->items[i], i, file, &j, diags);
        out->jobs.push_back(std::move(j));
      }
    }
  }
  return diags->size() == before;
}

bool LoadSnapshotFile(const std::string& path, Snapshot* out, Diags* diags) {
  std::string text;
  if (!ReadTextFile(path, kSnapshotInput, &text, diags)) return false;
  return SnapshotFromJson(text, path, out, diags);
}

bool TakeSnapshot(ClusterSource* source, Snapshot* out, std::string* err) {
  Snapshot s;
  s.source = "slurm";
  s.time = source->Now();
  s.slurm_cluster = source->ClusterName();
  if (!source->ReadNodes(&s.nodes, err)) return false;
  std::vector<JobSnapshot> jobs;
  if (!source->ReadJobs(&jobs, err)) return false;
  for (JobSnapshot& j : jobs)
    if (!j.nodes.empty()) s.jobs.push_back(std::move(j));
  std::sort(s.nodes.begin(), s.nodes.end(),
            [](const NodeSnapshot& a, const NodeSnapshot& b) { return a.name < b.name; });
  std::sort(s.jobs.begin(), s.jobs.end(),
            [](const JobSnapshot& a, const JobSnapshot& b) { return a.id < b.id; });
  *out = std::move(s);
  return true;
}

}  // namespace railguard::report
