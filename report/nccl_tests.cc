// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/nccl_tests.h"

#include <algorithm>
#include <sstream>

#include "base/json_fields.h"
#include "base/lines.h"
#include "base/numbers.h"

namespace railguard::report {
namespace {

std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Where each column of a data row is, from the header's names.
struct NcclColumns {
  int count = 0;  // columns in a data row
  int size = -1;
  int time[2] = {-1, -1}, algbw[2] = {-1, -1}, busbw[2] = {-1, -1}, wrong[2] = {-1, -1};
};

// The header "# size count type redop root time algbw busbw #wrong time ...": false when
// `words` (without the leading '#') is not one.
bool HeaderColumns(const std::vector<std::string>& words, NcclColumns* c) {
  if (words.empty() || words[0] != "size") return false;
  NcclColumns x;
  x.count = static_cast<int>(words.size());
  x.size = 0;
  int half[4] = {0, 0, 0, 0};
  for (int i = 1; i < x.count; ++i) {
    const std::string& w = words[i];
    int* slot = w == "time"                      ? x.time
                : w == "algbw"                   ? x.algbw
                : w == "busbw"                   ? x.busbw
                : w == "#wrong" || w == "error"  ? x.wrong
                                                 : nullptr;
    if (!slot) continue;
    const int k = slot == x.time ? 0 : slot == x.algbw ? 1 : slot == x.busbw ? 2 : 3;
    if (half[k] < 2) slot[half[k]++] = i;
  }
  if (x.time[0] < 0 || x.busbw[0] < 0) return false;
  *c = x;
  return true;
}

// "N/A" is -1; else a finite number >= 0 (or the "error" column's float form).
bool NcclValue(const std::string& w, double* out) {
  if (w == "N/A") {
    *out = -1;
    return true;
  }
  double v = 0;
  if (!ParseStrtod(w, &v) || !(v >= 0) || v > 1e18) return false;
  *out = v;
  return true;
}

// A bandwidth or time of the JSON: a number >= 0, or "nan" or null (not measured: -1).
bool JsonMeasure(JsonFieldReader& r, const JsonValue& o, const char* key, double* out) {
  const JsonValue* v = o.Find(key);
  if (!v || v->type == JsonValue::Type::kNull || (v->is_string() && v->text == "nan")) {
    *out = -1;
    return true;
  }
  if (v->is_number() && v->number >= 0 && v->number <= 1e18) {
    *out = v->number;
    return true;
  }
  return r.Error(*v, std::string("\"") + key + "\" is " + JsonTypeName(v->type) +
                         "; expected a number >= 0, \"nan\" or null");
}

}  // namespace

bool ParseNcclTestsJson(std::string_view text, const std::string& file, NcclTestsRun* out,
                        Diags* errors) {
  *out = NcclTestsRun();
  out->file = file;
  const size_t before = errors->size();
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  JsonValue root;
  if (!ParseJsonFile(text, file, &root, errors)) return false;
  JsonFieldReader r(file, errors);
  if (!r.IsObject(root, "the nccl-tests JSON")) return false;
  int version = 0;
  if (!r.Int(root, "version", 1, 3, &version)) return false;
  if (const JsonValue* config = root.Find("config"); config && config->is_object()) {
    if (const JsonValue* devices = config->Find("devices"); devices && devices->is_array()) {
      for (const JsonValue& d : devices->items) {
        std::string host;
        if (!r.IsObject(d, "a \"devices\" entry") || !r.String(d, "hostname", &host)) continue;
        ++out->ranks;
        if (std::find(out->hosts.begin(), out->hosts.end(), host) == out->hosts.end())
          out->hosts.push_back(host);
      }
    }
  }
  const JsonValue* results = root.Find("results");
  if (!results || !results->is_array())
    return r.Error(results ? *results : root,
                   "no \"results\" list; expected the JSON nccl-tests -J writes, with one "
                   "\"results\" entry per message size");
  for (const JsonValue& e : results->items) {
    if (!r.IsObject(e, "a \"results\" entry")) continue;
    NcclTestsRow row;
    const JsonValue* size = e.Find("size");
    if (!size || !size->AsUint64(&row.bytes)) {
      r.Error(size ? *size : e, "a \"results\" entry without \"size\" as a whole number of "
                                "bytes; expected {\"size\": 1048576, ...}");
      continue;
    }
    bool ok = true;
    for (int h = 0; h < 2; ++h) {
      const char* half = h ? "in_place" : "out_of_place";
      const JsonValue* x = e.Find(half);
      if (!x || x->type == JsonValue::Type::kNull) continue;
      if (!r.IsObject(*x, half)) {
        ok = false;
        continue;
      }
      double wrong = -1;
      ok = JsonMeasure(r, *x, x->Find("cpu_time") ? "cpu_time" : "time",
                       h ? &row.ip_time_us : &row.oop_time_us) &&
           JsonMeasure(r, *x, "alg_bw", h ? &row.ip_algbw : &row.oop_algbw) &&
           JsonMeasure(r, *x, "bus_bw", h ? &row.ip_busbw : &row.oop_busbw) &&
           JsonMeasure(r, *x, "nwrong", &wrong) && ok;
      if (wrong > 0) row.wrong += static_cast<long long>(wrong);
    }
    if (ok) out->rows.push_back(row);
  }
  if (const JsonValue* avg = root.Find("average_bus_bandwidth"); avg && avg->is_object())
    JsonMeasure(r, *avg, "bandwidth", &out->avg_busbw);
  if (const JsonValue* oob = root.Find("out_of_bounds"); oob && oob->is_object()) {
    long long n = 0;
    if (const JsonValue* c = oob->Find("count"); c && c->AsInt64(&n) && n >= 0)
      out->out_of_bounds = n;
  }
  if (out->rows.empty() && errors->size() == before)
    r.Error(*results, "an empty \"results\" list; expected one entry per message size");
  return errors->size() == before;
}

double NcclTestsRun::PeakBusbw() const {
  double best = -1;
  for (const NcclTestsRow& r : rows) best = std::max({best, r.oop_busbw, r.ip_busbw});
  return best;
}

const NcclTestsRow* NcclTestsRun::Largest() const {
  const NcclTestsRow* best = nullptr;
  for (const NcclTestsRow& r : rows)
    if (!best || r.bytes > best->bytes) best = &r;
  return best;
}

bool ParseNcclTests(std::string_view text, const std::string& file, NcclTestsRun* out,
                    Diags* errors) {
  *out = NcclTestsRun();
  out->file = file;
  const size_t before = errors->size();
  auto error = [&](int line, int column, const std::string& what) {
    if (errors->size() - before < 20) errors->push_back({file, line, column, what});
  };
  NcclColumns cols;
  bool have_header = false;
  ForEachLine(text, [&](int line_no, std::string_view line) {
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) return true;
    if (line[first] == '#') {
      std::vector<std::string> w = Words(line.substr(first + 1));
      if (HeaderColumns(w, &cols)) {
        have_header = true;
      } else if (w.size() >= 4 && w[0] == "Rank") {
        // "Rank 0 Group 0 Pid 6899 on HOST device 0 ..." (older: no Group).
        auto on = std::find(w.begin(), w.end(), "on");
        if (on == w.end() || on + 1 == w.end()) return true;
        ++out->ranks;
        if (std::find(out->hosts.begin(), out->hosts.end(), *(on + 1)) == out->hosts.end())
          out->hosts.push_back(*(on + 1));
      } else if (w.size() >= 5 && w[0] == "Avg" && w[1] == "bus" && w[2] == "bandwidth" &&
                 w[3] == ":") {
        if (!NcclValue(w[4], &out->avg_busbw))
          error(line_no, 0, "\"" + w[4].substr(0, 40) + "\" after \"Avg bus bandwidth :\"; "
                            "expected GB/s as a number");
      } else if (w.size() >= 6 && w[0] == "Out" && w[1] == "of" && w[2] == "bounds" &&
                 w[3] == "values" && w[4] == ":") {
        long v = 0;
        if (ParseLong(w[5], 0, 1L << 40, &v)) out->out_of_bounds = v;
      }
      return true;
    }
    // A data row starts with the message size; other lines (prompts, commands) are skipped.
    std::vector<std::string> w = Words(line);  // "\f" or "\v" alone: no word at all
    uint64_t bytes = 0;
    if (w.empty() || !ParseDigits(w[0], uint64_t{0}, ~uint64_t{0}, &bytes, 20)) return true;
    if (!have_header) {
      error(line_no, static_cast<int>(first) + 1,
            "a data row before the column header; expected \"#  size  count  type ...  "
            "busbw ...\" first");
      return true;
    }
    if (static_cast<int>(w.size()) != cols.count) {
      error(line_no, static_cast<int>(first) + 1,
            std::to_string(w.size()) + " columns; expected " + std::to_string(cols.count) +
                " as the header names (size ... busbw ...)");
      return true;
    }
    NcclTestsRow r;
    r.bytes = bytes;
    bool ok = true;
    auto take = [&](int col, double* dst) {
      if (col < 0 || !ok) return;
      if (!NcclValue(w[col], dst)) {
        error(line_no, 0, "column " + std::to_string(col + 1) + " holds \"" +
                              w[col].substr(0, 40) + "\"; expected a number >= 0 or N/A");
        ok = false;
      }
    };
    for (int h = 0; h < 2; ++h) {
      take(cols.time[h], h ? &r.ip_time_us : &r.oop_time_us);
      take(cols.algbw[h], h ? &r.ip_algbw : &r.oop_algbw);
      take(cols.busbw[h], h ? &r.ip_busbw : &r.oop_busbw);
      double wrong = 0;
      take(cols.wrong[h], &wrong);
      if (cols.wrong[h] >= 0 && wrong > 0) r.wrong += static_cast<long long>(wrong);
    }
    if (ok) out->rows.push_back(r);
    return true;
  });
  if (out->rows.empty() && errors->size() == before)
    error(0, 0, "no data row; expected nccl-tests output with a \"#  size  count ...\" "
                "header and one row per message size");
  return errors->size() == before;
}

}  // namespace railguard::report
