// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a fabric sweep's JSON for the report.
#include "report/sweep_input.h"

#include <sys/stat.h>

#include "base/json_fields.h"
#include "base/text_file.h"

namespace railguard::report {
namespace {

constexpr InputKind kSweepInput{"a fabric sweep JSON (railctl fabric sweep --json)", 256u << 20};

class Reader : public JsonFieldReader {
 public:
  using JsonFieldReader::JsonFieldReader;

  bool End(const JsonValue& l, const char* which, SweepEnd* e) {
    const JsonValue* v = l.Find(which);
    if (!Object(v, l, which)) return false;
    if (!String(*v, "name", &e->name) || !Int(*v, "port", 1, 254, &e->port)) return false;
    const JsonValue* w = v->Find("width");
    const JsonValue* s = v->Find("speed");
    if (!Object(w, *v, "width") || !Object(s, *v, "speed")) return false;
    return Int(*w, "active", 0, 32, &e->width_active) &&
           Int(*w, "enabled", 0, 32, &e->width_enabled) &&
           String(*s, "active", &e->speed_active) &&
           String(*s, "enabled", &e->speed_enabled);
  }

  bool Link(const JsonValue& l, SweepLink* out) {
    if (!IsObject(l, "link")) return false;
    if (!String(l, "kind", &out->kind) || !String(l, "su", &out->su, true) ||
        !String(l, "rail", &out->rail, true) || !String(l, "host", &out->host, true) ||
        !String(l, "hca", &out->hca, true) || !End(l, "a", &out->a) || !End(l, "b", &out->b))
      return false;
    const JsonValue* f = l.Find("findings");
    if (!f || !f->is_array())
      return Error(f ? *f : l, "bad or missing \"findings\"; expected an array");
    for (const JsonValue& x : f->items) {
      SweepFinding sf;
      if (!IsObject(x, "finding")) return false;
      if (!String(x, "kind", &sf.kind) || !String(x, "side", &sf.side) ||
          !String(x, "message", &sf.message))
        return false;
      out->findings.push_back(std::move(sf));
    }
    return true;
  }

  bool Missing(const JsonValue& m, SweepMissing* out) {
    if (!IsObject(m, "missing HCA")) return false;
    return String(m, "su", &out->su) && String(m, "rail", &out->rail) &&
           String(m, "host", &out->host) && String(m, "hca", &out->hca);
  }
};

}  // namespace

bool ParseSweepJson(std::string_view text, const std::string& filename, SweepInput* out,
                    Diags* errors) {
  const size_t before = errors->size();
  out->file = filename;
  JsonValue root;
  if (!ParseJsonFile(text, filename, &root, errors)) return false;
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
