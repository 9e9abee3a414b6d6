// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/job_baseline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/json_reader.h"

namespace railguard::report {
namespace {

using BaselineJson = nlohmann::ordered_json;

std::string Rate(double bytes_per_s) { return FormatBytes(bytes_per_s) + "/s"; }

std::string SignedPercent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f%%", (ratio - 1) * 100);
  return buf;
}

// A member that must be a finite number >= lo.
bool BaselineNumber(JsonFieldReader& r, const JsonValue& o, const char* key, double lo,
                    double* out) {
  const JsonValue* v = o.Find(key);
  if (v && v->is_number() && v->number >= lo) {
    *out = v->number;
    return true;
  }
  return r.Error(v ? *v : o, std::string("bad or missing \"") + key + "\"; expected a number >= " +
                                 (lo < 0 ? "-1" : "0"));
}

}  // namespace

bool IsBaselineName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return false;
  return true;
}

JobBaseline BaselineOf(const JobFabric& f, const std::string& name) {
  JobBaseline b;
  b.name = name;
  b.job = f.job;
  b.nodes = static_cast<int>(f.nodes.size());
  b.seconds = std::max(1.0, f.end - f.start);
  for (const JobFabricRail& r : f.rails) {
    if (r.nodes_known == 0) continue;
    JobBaselineRail x;
    x.rail = r.rail;
    const double per = 1.0 / (r.nodes_known * b.seconds);
    x.bytes_per_node_s = static_cast<double>(r.xmit_bytes + r.rcv_bytes) * per;
    x.xmit_wait_per_node_s = static_cast<double>(r.xmit_wait) * per;
    x.errors_per_node_h = static_cast<double>(r.errors) * per * 3600;
    for (const JobFabricRow& row : f.rows)
      if (row.rail == r.rail && row.share >= 0 && (x.min_share < 0 || row.share < x.min_share))
        x.min_share = row.share;
    b.rails.push_back(x);
  }
  for (const JobApp& a : f.apps)
    if (a.kind == "step-times" && a.step_median_s > 0) {
      b.step_median_s = a.step_median_s;
      break;
    }
  return b;
}

std::string JobBaselineToJson(const JobBaseline& b) {
  BaselineJson j;
  j["railguard_job_baseline"] = kJobBaselineVersion;
  j["name"] = b.name;
  j["job"] = b.job;
  j["nodes"] = b.nodes;
  j["seconds"] = b.seconds;
  BaselineJson rails = BaselineJson::array();
  for (const JobBaselineRail& r : b.rails)
    rails.push_back({{"rail", r.rail},
                     {"bytes_per_node_s", r.bytes_per_node_s},
                     {"xmit_wait_per_node_s", r.xmit_wait_per_node_s},
                     {"errors_per_node_h", r.errors_per_node_h},
                     {"min_share", r.min_share}});
  j["rails"] = rails;
  j["step_median_s"] = b.step_median_s > 0 ? BaselineJson(b.step_median_s) : BaselineJson();
  return j.dump(1, ' ', false, BaselineJson::error_handler_t::replace) + "\n";
}

bool JobBaselineFromJson(std::string_view text, const std::string& file, JobBaseline* out,
                         Diags* errors) {
  *out = JobBaseline();
  const size_t before = errors->size();
  JsonValue root;
  if (!ParseJsonFile(text, file, &root, errors)) return false;
  JsonFieldReader r(file, errors);
  if (!r.IsObject(root, "a job baseline")) return false;
  int version = 0;
  if (!r.Int(root, "railguard_job_baseline", kJobBaselineVersion, kJobBaselineVersion, &version))
    return false;
  long long job = 0;
  if (!r.String(root, "name", &out->name)) return false;
  if (!IsBaselineName(out->name))
    return r.Error(*root.Find("name"), "baseline name '" + out->name.substr(0, 64) +
                                           "'; expected 1-64 of A-Z a-z 0-9 . _ -");
  const JsonValue* jv = root.Find("job");
  if (!jv || !jv->AsInt64(&job) || job < 1 || job > 4294967295LL)
    return r.Error(jv ? *jv : root, "bad or missing \"job\"; expected a job id 1-4294967295");
  out->job = static_cast<uint64_t>(job);
  if (!r.Int(root, "nodes", 1, 1000000, &out->nodes) ||
      !BaselineNumber(r, root, "seconds", 0, &out->seconds))
    return false;
  const JsonValue* rails = root.Find("rails");
  if (!rails || !rails->is_array() || rails->items.size() > 64)
    return r.Error(rails ? *rails : root,
                   "bad or missing \"rails\"; expected an array of at most 64 rails");
  for (const JsonValue& v : rails->items) {
    JobBaselineRail x;
    if (!r.IsObject(v, "a rail") || !r.Int(v, "rail", 0, 1023, &x.rail) ||
        !BaselineNumber(r, v, "bytes_per_node_s", 0, &x.bytes_per_node_s) ||
        !BaselineNumber(r, v, "xmit_wait_per_node_s", 0, &x.xmit_wait_per_node_s) ||
        !BaselineNumber(r, v, "errors_per_node_h", 0, &x.errors_per_node_h) ||
        !BaselineNumber(r, v, "min_share", -1, &x.min_share))
      return false;
    out->rails.push_back(x);
  }
  if (const JsonValue* v = root.Find("step_median_s"); v && v->type != JsonValue::Type::kNull) {
    if (!v->is_number() || !(v->number > 0) || v->number > 1e7)
      return r.Error(*v, "bad \"step_median_s\"; expected seconds > 0, or null");
    out->step_median_s = v->number;
  }
  return errors->size() == before;
}

void CompareWithBaseline(const JobBaseline& b, const BaselineMargins& m, JobFabric* f) {
  const JobBaseline now = BaselineOf(*f, b.name);
  std::map<int, const JobBaselineRail*> run;
  for (const JobBaselineRail& r : now.rails) run[r.rail] = &r;
  int differing = 0;
  for (const JobBaselineRail& base : b.rails) {
    auto it = run.find(base.rail);
    if (it == run.end()) continue;
    const JobBaselineRail& x = *it->second;
    // Where on this rail the run is weakest: the node with the lowest share.
    const JobFabricRow* weakest = nullptr;
    for (const JobFabricRow& row : f->rows)
      if (row.rail == base.rail && row.share >= 0 && (!weakest || row.share < weakest->share))
        weakest = &row;
    std::vector<std::string> why;
    if (base.bytes_per_node_s > 0) {
      const double ratio = x.bytes_per_node_s / base.bytes_per_node_s;
      if (std::fabs(ratio - 1) > m.throughput)
        why.push_back("carried " + Rate(x.bytes_per_node_s) + " per node against " +
                      Rate(base.bytes_per_node_s) + " (" + SignedPercent(ratio) + ")");
    }
    if (x.xmit_wait_per_node_s > m.wait_factor * std::max(base.xmit_wait_per_node_s, 1.0))
      why.push_back("port_xmit_wait " + std::to_string(std::llround(x.xmit_wait_per_node_s)) +
                    " ticks per node and second against " +
                    std::to_string(std::llround(base.xmit_wait_per_node_s)));
    if (weakest && weakest->share < m.min_share && (base.min_share < 0 || base.min_share >= m.min_share))
      why.push_back("its weakest node carried " +
                    std::to_string(std::lround(weakest->share * 100)) +
                    "% of that node's median rail (baseline: " +
                    (base.min_share < 0 ? std::string("not judged")
                                        : std::to_string(std::lround(base.min_share * 100)) + "%") +
                    ")");
    if (why.empty()) continue;
    ++differing;
    std::string msg = "rail" + std::to_string(base.rail) + " differs from baseline " + b.name +
                      " (job " + std::to_string(b.job) + "): ";
    for (size_t i = 0; i < why.size(); ++i) msg += (i ? "; " : "") + why[i];
    JobFabricFinding fd;
    fd.kind = "baseline";
    fd.rail = base.rail;
    if (weakest) {
      fd.node = weakest->node;
      fd.nic = weakest->data.nic;
      fd.leaf = weakest->leaf;
      msg += "; weakest: " + weakest->node + " " + weakest->data.nic +
             (weakest->leaf.empty() ? "" : " (leaf " + weakest->leaf + ")");
    }
    fd.message = msg;
    f->findings.push_back(std::move(fd));
  }
  bool slower = false;
  if (b.step_median_s > 0 && now.step_median_s > 0) {
    const double ratio = now.step_median_s / b.step_median_s;
    if (ratio > 1 + m.step_time) {
      slower = true;
      char buf[160];
      std::snprintf(buf, sizeof buf, "median step time %.3g s against %.3g s (%s)",
                    now.step_median_s, b.step_median_s, SignedPercent(ratio).c_str());
      JobFabricFinding fd;
      fd.kind = "baseline";
      fd.rail = -1;
      fd.message = std::string(buf) + " in baseline " + b.name + " (job " +
                   std::to_string(b.job) + "): the job ran slower than its baseline";
      f->findings.push_back(std::move(fd));
    }
  }
  f->notes.push_back("compared with baseline " + b.name + " (job " + std::to_string(b.job) + ", " +
                     std::to_string(b.nodes) + " nodes, " +
                     std::to_string(std::llround(b.seconds)) + " s): " +
                     (differing ? std::to_string(differing) + " rail(s) differ" : "no rail differs") +
                     (slower ? "; the step time differs" : ""));
}

}  // namespace railguard::report
