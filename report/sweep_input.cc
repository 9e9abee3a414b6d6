// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a fabric sweep's JSON for the report.
#include "report/sweep_input.h"

#include <sys/stat.h>

#include "base/json_reader.h"
#include "base/text_file.h"

namespace railguard::report {
namespace {

constexpr size_t kMaxErrors = 20;
constexpr InputKind kSweepInput{"a fabric sweep JSON (railctl fabric sweep --json)", 256u << 20};

class Reader {
 public:
  Reader(const std::string& file, Diags* errors) : file_(file), errors_(errors) {}

  bool Error(const JsonValue& at, const std::string& what) {
    if (errors_->size() < kMaxErrors) errors_->push_back({file_, at.line, at.column, what});
    return false;
  }

  // Member `key` of `o` as a string; null or absent gives "" when `nullable`.
  bool String(const JsonValue& o, const char* key, bool nullable, std::string* out) {
    const JsonValue* v = o.Find(key);
    if ((!v || v->type == JsonValue::Type::kNull) && nullable) return true;
    if (!v || !v->is_string())
      return Error(v ? *v : o, std::string("bad or missing \"") + key + "\"; expected a string" +
                                   (nullable ? " or null" : ""));
    *out = v->text;
    return true;
  }

  // Member `key` of `o` as an integer lo..hi.
  bool Int(const JsonValue& o, const char* key, long long lo, long long hi, int* out) {
    const JsonValue* v = o.Find(key);
    long long x = 0;
    if (!v || !v->AsInt64(&x) || x < lo || x > hi)
      return Error(v ? *v : o, std::string("bad or missing \"") + key +
                                   "\"; expected an integer from " + std::to_string(lo) + " to " +
                                   std::to_string(hi));
    *out = static_cast<int>(x);
    return true;
  }

  bool Object(const JsonValue* v, const JsonValue& parent, const char* what) {
    if (v && v->is_object()) return true;
    return Error(v ? *v : parent,
                 std::string("bad or missing \"") + what + "\"; expected an object");
  }

  bool End(const JsonValue& l, const char* which, SweepEnd* e) {
    const JsonValue* v = l.Find(which);
    if (!Object(v, l, which)) return false;
    if (!String(*v, "name", false, &e->name) || !Int(*v, "port", 1, 254, &e->port)) return false;
    const JsonValue* w = v->Find("width");
    const JsonValue* s = v->Find("speed");
    if (!Object(w, *v, "width") || !Object(s, *v, "speed")) return false;
    return Int(*w, "active", 0, 32, &e->width_active) &&
           Int(*w, "enabled", 0, 32, &e->width_enabled) &&
           String(*s, "active", false, &e->speed_active) &&
           String(*s, "enabled", false, &e->speed_enabled);
  }

  bool Link(const JsonValue& l, SweepLink* out) {
    if (!l.is_object())
      return Error(l, std::string("link is ") + JsonTypeName(l.type) + "; expected an object");
    if (!String(l, "kind", false, &out->kind) || !String(l, "su", true, &out->su) ||
        !String(l, "rail", true, &out->rail) || !String(l, "host", true, &out->host) ||
        !String(l, "hca", true, &out->hca) || !End(l, "a", &out->a) || !End(l, "b", &out->b))
      return false;
    const JsonValue* f = l.Find("findings");
    if (!f || !f->is_array())
      return Error(f ? *f : l, "bad or missing \"findings\"; expected an array");
    for (const JsonValue& x : f->items) {
      SweepFinding sf;
      if (!x.is_object())
        return Error(x, std::string("finding is ") + JsonTypeName(x.type) + "; expected an object");
      if (!String(x, "kind", false, &sf.kind) || !String(x, "side", false, &sf.side) ||
          !String(x, "message", false, &sf.message))
        return false;
      out->findings.push_back(std::move(sf));
    }
    return true;
  }

  bool Missing(const JsonValue& m, SweepMissing* out) {
    if (!m.is_object())
      return Error(m,
                   std::string("missing HCA is ") + JsonTypeName(m.type) + "; expected an object");
    return String(m, "su", false, &out->su) && String(m, "rail", false, &out->rail) &&
           String(m, "host", false, &out->host) && String(m, "hca", false, &out->hca);
  }

 private:
  const std::string& file_;
  Diags* errors_;
};

}  // namespace

bool ParseSweepJson(std::string_view text, const std::string& filename, SweepInput* out,
                    Diags* errors) {
  const size_t before = errors->size();
  out->file = filename;
  JsonValue root;
  JsonError jerr;
  if (!ParseJson(text, &root, &jerr)) {
    errors->push_back({filename, jerr.line, jerr.column, jerr.message});
    return false;
  }
  Reader r(filename, errors);
  const JsonValue* links = root.is_object() ? root.Find("links") : nullptr;
  const JsonValue* missing = root.is_object() ? root.Find("missing") : nullptr;
  const JsonValue* complete = root.is_object() ? root.Find("complete") : nullptr;
  if (!links || !links->is_array())
    return r.Error(links ? *links : root,
                   "no \"links\" array; expected the JSON of railctl fabric sweep --json");
  if (!missing || !missing->is_array())
    return r.Error(missing ? *missing : root, "no \"missing\" array; expected an array");
  if (!complete || complete->type != JsonValue::Type::kBool)
    return r.Error(complete ? *complete : root, "no \"complete\"; expected true or false");
  out->complete = complete->boolean;
  // summary.time (seconds since the epoch) when the sweep wrote one; else the caller's time.
  const JsonValue* summary = root.Find("summary");
  const JsonValue* time = summary && summary->is_object() ? summary->Find("time") : nullptr;
  if (time && !time->is_number())
    return r.Error(*time, "\"time\" is not a number; expected seconds since the epoch");
  if (time && time->number > 0) out->time = time->number;
  for (const JsonValue& l : links->items) {
    SweepLink link;
    if (r.Link(l, &link)) out->links.push_back(std::move(link));
  }
  for (const JsonValue& m : missing->items) {
    SweepMissing x;
    if (r.Missing(m, &x)) out->missing.push_back(std::move(x));
  }
  return errors->size() == before;
}

bool LoadSweepJson(const std::string& path, SweepInput* out, Diags* errors) {
  std::string text;
  if (!ReadTextFile(path, kSweepInput, &text, errors)) return false;
  struct stat st;
  if (stat(path.c_str(), &st) == 0) out->time = static_cast<double>(st.st_mtime);
  return ParseSweepJson(text, path, out, errors);
}

}  // namespace railguard::report
