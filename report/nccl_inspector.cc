// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/nccl_inspector.h"

#include <algorithm>

#include "base/json_reader.h"
#include "base/lines.h"

namespace railguard::report {
namespace {

// The first non-blank line of `text`.
std::string_view FirstLine(std::string_view text) {
  std::string_view first;
  ForEachLine(text, [&](int, std::string_view line) {
    if (IsBlankLine(line)) return true;
    first = line;
    return false;
  });
  return first;
}

// A number member >= 0 of `o`, or false.
bool NonNegative(const JsonValue& o, const char* key, double* out) {
  const JsonValue* v = o.Find(key);
  if (!v || !v->is_number() || !(v->number >= 0) || v->number > 1e18) return false;
  *out = v->number;
  return true;
}

}  // namespace

double NcclInspectorRun::MedianBusbw() const {
  if (busbw.empty()) return -1;
  std::vector<double> v = busbw;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

bool LooksLikeNcclInspector(std::string_view text) {
  std::string_view line = FirstLine(text);
  JsonValue v;
  JsonError err;
  return !line.empty() && line.front() == '{' && ParseJson(line, &v, &err) && v.is_object() &&
         v.Find("coll_perf") != nullptr;
}

bool AddNcclInspectorLines(std::string_view text, const std::string& file, NcclInspectorRun* run,
                           Diags* errors) {
  const size_t before = errors->size();
  ++run->files;
  auto error = [&](int line, int column, const std::string& what) {
    if (errors->size() - before < 20) errors->push_back({file, line, column, what});
  };
  const char* kForm =
      "expected one JSON object per line: {\"header\": {\"n_ranks\", \"nnodes\", ...}, "
      "\"metadata\": {\"hostname\", ...}, \"coll_perf\": {\"coll\", \"coll_msg_size_bytes\", "
      "\"coll_busbw_gbs\", ...}}";
  ForEachLine(text, [&](int line_no, std::string_view line) {
    if (IsBlankLine(line)) return true;
    JsonValue v;
    JsonError err;
    if (!ParseJson(line, &v, &err)) {
      error(line_no, err.column, err.message + "; " + kForm);
      return true;
    }
    const JsonValue* header = v.is_object() ? v.Find("header") : nullptr;
    const JsonValue* meta = v.is_object() ? v.Find("metadata") : nullptr;
    const JsonValue* perf = v.is_object() ? v.Find("coll_perf") : nullptr;
    if (!header || !meta || !perf || !header->is_object() || !meta->is_object() ||
        !perf->is_object()) {
      error(line_no, 1, std::string("a line without the objects \"header\", \"metadata\" and "
                                    "\"coll_perf\"; ") + kForm);
      return true;
    }
    long long ranks = 0, nodes = 0;
    const JsonValue* r = header->Find("n_ranks");
    const JsonValue* n = header->Find("nnodes");
    if (!r || !r->AsInt64(&ranks) || ranks < 1 || ranks > (1 << 24) || !n ||
        !n->AsInt64(&nodes) || nodes < 1 || nodes > ranks) {
      const JsonValue& at = (!r || !r->AsInt64(&ranks)) ? *header : *n;
      error(line_no, at.column, "\"header\" needs \"n_ranks\" (1 or more) and \"nnodes\" (1 to "
                                "n_ranks) as whole numbers; " + std::string(kForm));
      return true;
    }
    double busbw = 0, bytes = 0;
    if (!NonNegative(*perf, "coll_busbw_gbs", &busbw) ||
        !NonNegative(*perf, "coll_msg_size_bytes", &bytes)) {
      error(line_no, perf->column, "\"coll_perf\" needs \"coll_busbw_gbs\" (GB/s) and "
                                   "\"coll_msg_size_bytes\" as numbers >= 0; " +
                                       std::string(kForm));
      return true;
    }
    const JsonValue* host = meta->Find("hostname");
    if (host && host->is_string() && !host->text.empty() &&
        std::find(run->hosts.begin(), run->hosts.end(), host->text) == run->hosts.end() &&
        run->hosts.size() < 100000)
      run->hosts.push_back(host->text);
    ++run->records;
    run->max_ranks = std::max(run->max_ranks, static_cast<int>(ranks));
    run->max_nodes = std::max(run->max_nodes, static_cast<int>(nodes));
    if (nodes < 2) return true;
    ++run->multi_node;
    run->busbw.push_back(busbw);
    if (busbw > run->peak_busbw) {
      run->peak_busbw = busbw;
      run->peak_bytes = static_cast<uint64_t>(bytes);
    }
    return true;
  });
  return errors->size() == before;
}

}  // namespace railguard::report
