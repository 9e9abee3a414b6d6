// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a fabric baseline back from sweep JSON.
#include "fabric/baseline.h"

#include <cstdlib>

#include "base/json_fields.h"

namespace railguard::fabric {

const std::array<uint64_t, kCounterCount>* SweepBaseline::Find(uint64_t guid, int port) const {
  auto it = ports.find({guid, port});
  return it == ports.end() ? nullptr : &it->second;
}

namespace {

// One end of a link: guid, port and counters.
void ReadEnd(JsonFieldReader& r, const JsonValue& e, const char* which, SweepBaseline* out) {
  if (!e.is_object()) {
    r.Error(e, std::string("link end \"") + which + "\" is " + JsonTypeName(e.type) +
                   "; expected an object");
    return;
  }
  const JsonValue* guid = e.Find("guid");
  const JsonValue* counters = e.Find("counters");
  if (!guid || !guid->is_string() || guid->text.size() != 18 || guid->text.rfind("0x", 0) != 0 ||
      guid->text.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos) {
    r.Error(guid ? *guid : e, "bad or missing \"guid\"; expected \"0x\" and 16 hex digits");
    return;
  }
  const uint64_t g = std::strtoull(guid->text.c_str() + 2, nullptr, 16);
  int port = 0;
  if (!r.Int(e, "port", 1, 254, &port)) return;
  if (!counters) {
    r.Error(e, "no \"counters\"; expected an object or null");
    return;
  }
  if (counters->type == JsonValue::Type::kNull) return;
  if (!counters->is_object()) {
    r.Error(*counters, std::string("\"counters\" is ") + JsonTypeName(counters->type) +
                           "; expected an object or null");
    return;
  }
  std::array<uint64_t, kCounterCount> values{};
  for (int c = 0; c < kCounterCount; ++c) {
    const JsonValue* v = counters->Find(kCounterNames[c]);
    if (!v || !v->AsUint64(&values[c])) {
      r.Error(v ? *v : *counters, std::string("bad or missing \"") + kCounterNames[c] +
                                      "\"; expected a non-negative integer");
      return;
    }
  }
  out->ports[{g, port}] = values;
}

}  // namespace

bool ParseSweepBaseline(std::string_view text, const std::string& filename, SweepBaseline* out,
                        Diags* errors) {
  const size_t before = errors->size();
  JsonValue root;
  if (!ParseJsonFile(text, filename, &root, errors)) return false;
  JsonFieldReader r(filename, errors);
  const JsonValue* links = root.is_object() ? root.Find("links") : nullptr;
  if (!links || !links->is_array()) {
    r.Error(links ? *links : root,
            "no \"links\" array; expected the JSON of railctl fabric sweep --json");
    return false;
  }
  if (const JsonValue* summary = root.Find("summary")) {
    const JsonValue* time = summary->is_object() ? summary->Find("time") : nullptr;
    if (time && (time->type != JsonValue::Type::kNumber || !(time->number >= 0)))
      r.Error(*time, "bad \"summary\": {\"time\"}; expected the sweep's Unix time in seconds, a "
                     "number >= 0");
    else if (time)
      out->time = time->number;
  }
  for (const JsonValue& l : links->items) {
    if (!r.IsObject(l, "link")) continue;
    for (const char* which : {"a", "b"}) {
      const JsonValue* e = l.Find(which);
      if (!e) {
        r.Error(l, std::string("link has no \"") + which + "\"; expected both ends a and b");
        continue;
      }
      ReadEnd(r, *e, which, out);
    }
  }
  return errors->size() == before;
}

bool LoadSweepBaseline(const std::string& path, SweepBaseline* out, Diags* errors) {
  std::string text;
  if (!ReadTextFile(path, kSweepJsonInput, &text, errors)) return false;
  return ParseSweepBaseline(text, path, out, errors);
}

}  // namespace railguard::fabric
