// SPDX-License-Identifier: GPL-2.0-or-later
// Writing and reading the fabric sweep JSON.
#include "wire/sweep_json.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/json_fields.h"

namespace railguard::wire {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxCount = std::numeric_limits<int>::max();

// Stands for the links array in the JSON tree until the links are written out. Its control
// characters are escaped in JSON, so no name from the fabric can produce the same text.
const char kLinksMark[] = "\x01railguard-links\x01";

std::string SweepDump(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// "0x" and 16 lower-case hex digits, as topo::GuidString.
std::string GuidText(uint64_t guid) {
  char s[24];
  std::snprintf(s, sizeof(s), "0x%016" PRIx64, guid);
  return s;
}

Json Nullable(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json EndJson(const SweepEnd& e) {
  Json counters = nullptr;
  if (e.counters_read) {
    counters = Json::object();
    for (int c = 0; c < kSweepCounterCount; ++c) counters[kSweepCounterNames[c]] = e.counters[c];
  }
  Json end = {{"name", e.name},
              {"guid", GuidText(e.guid)},
              {"port", e.port},
              {"lid", e.lid},
              {"width",
               {{"active", e.width_active},
                {"enabled", e.width_enabled},
                {"supported", e.width_supported}}},
              {"speed",
               {{"active", e.speed_active},
                {"enabled", e.speed_enabled},
                {"supported", e.speed_supported}}},
              {"extended_counters", e.extended_counters},
              {"counters", counters}};
  if (e.node_known) {  // what a later sweep needs to reuse this discovery
    end["switch"] = e.is_switch;
    end["description"] = e.description;
  }
  return end;
}

Json FindingJson(const SweepFinding& f) {
  return {{"kind", f.kind}, {"side", f.side}, {"message", f.message}};
}

Json EndTrafficJson(const SweepEndTraffic& e) {
  if (!e.known) return nullptr;
  return {{"xmit_bytes_per_second", e.xmit_bps},
          {"rcv_bytes_per_second", e.rcv_bps},
          {"xmit_wait_per_second", e.xmit_wait},
          {"utilization", e.utilization},
          {"saturated", e.saturated}};
}

Json LinkJson(const SweepLink& l) {
  Json findings = Json::array();
  for (const SweepFinding& f : l.findings) findings.push_back(FindingJson(f));
  Json j = Json::object();  // ordered: members in the order they are set
  j["kind"] = l.kind;
  j["su"] = Nullable(l.su);
  j["rail"] = Nullable(l.rail);
  j["host"] = Nullable(l.host);
  j["hca"] = Nullable(l.hca);
  j["a"] = EndJson(l.a);
  j["b"] = EndJson(l.b);
  j["findings"] = std::move(findings);
  if (l.traffic)
    j["traffic"] = {{"capacity_bytes_per_second", l.traffic->capacity_bps},
                    {"utilization", l.traffic->utilization},
                    {"xmit_wait_per_second", l.traffic->xmit_wait},
                    {"a", EndTrafficJson(l.traffic->a)},
                    {"b", EndTrafficJson(l.traffic->b)}};
  return j;
}

Json TrafficJson(const SweepTraffic& t) {
  Json grid = Json::array();
  for (const SweepTrafficRow& row : t.grid) {
    Json rails = Json::array();
    for (const SweepTrafficCell& c : row.rails)
      rails.push_back({{"rail", c.rail},
                       {"host_max_utilization", c.host_max},
                       {"uplink_utilization", c.uplink},
                       {"uplink_xmit_wait_per_second", c.uplink_wait},
                       {"host_links", c.host_links},
                       {"uplinks", c.uplinks}});
    grid.push_back({{"su", row.su}, {"rails", rails}});
  }
  Json spines = Json::array();
  for (const SweepSpineTraffic& s : t.spines)
    spines.push_back({{"name", s.name},
                      {"utilization", s.utilization},
                      {"xmit_wait_per_second", s.xmit_wait},
                      {"links", s.links}});
  return {{"seconds", t.seconds},
          {"previous_time", t.previous_time},
          {"grid", grid},
          {"spines", spines}};
}

// Everything but the links, which stand as kLinksMark.
Json TopJson(const SweepDocument& d) {
  Json grid = Json::array();
  for (const SweepGridRow& row : d.grid) {
    Json rails = Json::array();
    for (const SweepGridCell& c : row.rails)
      rails.push_back({{"rail", c.rail}, {"links", c.links}, {"bad", c.bad}, {"unread", c.unread}});
    grid.push_back({{"su", row.su}, {"rails", rails}});
  }
  // Findings other than "unread" and missing HCAs are the summary's findings.
  size_t problems = d.missing.size(), unread = 0;
  Json findings = Json::array();
  for (size_t i = 0; i < d.links.size(); ++i) {
    for (const SweepFinding& f : d.links[i].findings) {
      (f.kind == "unread" ? unread : problems) += 1;
      Json j = FindingJson(f);
      j["link"] = i;
      findings.push_back(std::move(j));
    }
  }
  Json unanswered = Json::array();
  for (const SweepUnanswered& u : d.unanswered)
    unanswered.push_back({{"name", u.name},
                          {"guid", GuidText(u.guid)},
                          {"lid", u.lid},
                          {"status", u.status},
                          {"error", u.error}});
  Json missing = Json::array();
  for (const SweepMissing& m : d.missing)
    missing.push_back({{"su", m.su}, {"rail", m.rail}, {"host", m.host}, {"hca", m.hca}});
  Json summary = {{"switches", d.summary.switches},
                  {"hcas", d.summary.hcas},
                  {"links", d.links.size()},
                  {"findings", problems},
                  {"unread", unread},
                  {"unanswered", d.unanswered.size()},
                  {"smps", d.summary.smps},
                  {"mads", d.summary.mads},
                  {"seconds", d.summary.seconds}};
  if (d.summary.time >= 0) summary["time"] = d.summary.time;
  if (!d.summary.discovery_kind.empty())
    summary["discovery"] = {{"kind", d.summary.discovery_kind},
                            {"time", d.summary.discovery_time},
                            {"reason", d.summary.discovery_reason},
                            {"local_lid", d.summary.local_lid},
                            {"sm_lid", d.summary.sm_lid}};
  Json out = {{"complete", d.complete}, {"summary", summary},       {"grid", grid},
              {"findings", findings},   {"unanswered", unanswered}, {"missing", missing},
              {"links", kLinksMark}};
  if (d.traffic) out["traffic"] = TrafficJson(*d.traffic);
  return out;
}

constexpr char kTimeProblem[] =
    "bad \"summary\": {\"time\"}; expected the sweep's Unix time in seconds, a number >= 0";

class SweepReader : public JsonFieldReader {
 public:
  SweepReader(std::string file, Diags* errors, SweepParts parts)
      : JsonFieldReader(std::move(file), errors),
        all_(parts == SweepParts::kAll),
        state_(parts != SweepParts::kCounters) {}

  // `streamed_errors`: the problems of links read as the file was parsed.
  bool Document(const JsonValue& root, SweepDocument* d, const Diags& streamed_errors) {
    const JsonValue* links = root.is_object() ? root.Find("links") : nullptr;
    if (!links || !links->is_array())
      return Error(links ? *links : root,
                   "no \"links\" array; expected the JSON of railctl fabric sweep --json");
    const JsonValue* missing = root.Find("missing");
    if (all_) {
      if (!missing || !missing->is_array())
        return Error(missing ? *missing : root, "no \"missing\" array; expected an array");
      const JsonValue* complete = root.Find("complete");
      if (!complete || complete->type != JsonValue::Type::kBool)
        return Error(complete ? *complete : root, "no \"complete\"; expected true or false");
      d->complete = complete->boolean;
    }
    Summary(root, &d->summary);
    for (const Diag& e : streamed_errors) AddError(e);
    if (!all_) return true;
    Each(*missing, &d->missing, &SweepReader::Missing);
    if (const JsonValue* a = OptionalArray(root, "grid")) Each(*a, &d->grid, &SweepReader::GridRow);
    if (const JsonValue* a = OptionalArray(root, "unanswered"))
      Each(*a, &d->unanswered, &SweepReader::Unanswered);
    if (const JsonValue* t = root.Find("traffic")) {
      SweepTraffic traffic;
      if (Traffic(*t, &traffic)) d->traffic = std::move(traffic);
    }
    return true;
  }

  // One item of "links"; false (with the problem reported) when it is not a link.
  bool Link(const JsonValue& l, SweepLink* out) {
    if (!IsObject(l, "link")) return false;
    if (all_ && !LinkMembers(l, out)) return false;
    const bool a = End(l, "a", &out->a);
    const bool b = End(l, "b", &out->b);
    return a && b;
  }

 private:
  // Each item of `array` read by `read`; those read without a problem go to `*out`.
  template <class T>
  void Each(const JsonValue& array, std::vector<T>* out,
            bool (SweepReader::*read)(const JsonValue&, T*)) {
    for (const JsonValue& item : array.items) {
      T x;
      if ((this->*read)(item, &x)) out->push_back(std::move(x));
    }
  }

  // Member `key` of `o` when it is an array, else nullptr (with an error when it is there).
  const JsonValue* Array(const JsonValue& o, const char* key, bool required) {
    const JsonValue* v = o.Find(key);
    if (v && v->is_array()) return v;
    if (v || required)
      Error(v ? *v : o, std::string("bad or missing \"") + key + "\"; expected an array");
    return nullptr;
  }
  const JsonValue* OptionalArray(const JsonValue& o, const char* key) {
    return Array(o, key, false);
  }

  bool Number(const JsonValue& o, const char* key, double* out) {
    const JsonValue* v = o.Find(key);
    if (!v || !v->is_number())
      return Error(v ? *v : o, std::string("bad or missing \"") + key + "\"; expected a number");
    *out = v->number;
    return true;
  }

  bool Bool(const JsonValue& o, const char* key, bool* out) {
    const JsonValue* v = o.Find(key);
    if (!v || v->type != JsonValue::Type::kBool)
      return Error(v ? *v : o,
                   std::string("bad or missing \"") + key + "\"; expected true or false");
    *out = v->boolean;
    return true;
  }

  bool Guid(const JsonValue& o, uint64_t* out) {
    const JsonValue* g = o.Find("guid");
    if (!g || !g->is_string() || g->text.size() != 18 || g->text.rfind("0x", 0) != 0 ||
        g->text.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
      return Error(g ? *g : o, "bad or missing \"guid\"; expected \"0x\" and 16 hex digits");
    *out = std::strtoull(g->text.c_str() + 2, nullptr, 16);
    return true;
  }

  // "summary": optional, and so is each member (older sweeps lack "time").
  void Summary(const JsonValue& root, SweepSummary* s) {
    const JsonValue* v = root.Find("summary");
    if (!v || !IsObject(*v, "\"summary\"")) return;
    if (const JsonValue* time = v->Find("time")) {
      if (time->is_number() && time->number >= 0)
        s->time = time->number;
      else
        Error(*time, kTimeProblem);
    }
    if (const JsonValue* x = state_ ? v->Find("discovery") : nullptr) Discovery(*x, s);
    if (!all_) return;
    for (auto [key, out] : {std::pair{"switches", &s->switches}, std::pair{"hcas", &s->hcas},
                            std::pair{"smps", &s->smps}, std::pair{"mads", &s->mads}})
      if (v->Find(key)) Int(*v, key, 0, kMaxCount, out);
    if (v->Find("seconds")) Number(*v, "seconds", &s->seconds);
  }

  // "summary": {"discovery"}: all of its members, or (with the problem reported) none.
  void Discovery(const JsonValue& v, SweepSummary* s) {
    SweepSummary d;
    if (!IsObject(v, "\"discovery\"") || !String(v, "kind", &d.discovery_kind)) return;
    if (d.discovery_kind != "new" && d.discovery_kind != "kept") {
      Error(*v.Find("kind"),
            "bad \"kind\" '" + d.discovery_kind + "'; expected \"new\" or \"kept\"");
      return;
    }
    if (!Number(v, "time", &d.discovery_time) || !String(v, "reason", &d.discovery_reason) ||
        !Int(v, "local_lid", 0, 65535, &d.local_lid) || !Int(v, "sm_lid", 0, 65535, &d.sm_lid))
      return;
    if (!(d.discovery_time >= 0)) {
      Error(*v.Find("time"), "bad \"time\"; expected the discovery's Unix time, a number >= 0");
      return;
    }
    s->discovery_kind = d.discovery_kind;
    s->discovery_time = d.discovery_time;
    s->discovery_reason = d.discovery_reason;
    s->local_lid = d.local_lid;
    s->sm_lid = d.sm_lid;
  }

  bool LinkMembers(const JsonValue& l, SweepLink* out) {
    if (!String(l, "kind", &out->kind) || !String(l, "su", &out->su, true) ||
        !String(l, "rail", &out->rail, true) || !String(l, "host", &out->host, true) ||
        !String(l, "hca", &out->hca, true))
      return false;
    const JsonValue* findings = Array(l, "findings", true);
    if (!findings) return false;
    for (const JsonValue& x : findings->items) {
      SweepFinding f;
      if (!IsObject(x, "finding") || !String(x, "kind", &f.kind) || !String(x, "side", &f.side) ||
          !String(x, "message", &f.message))
        return false;
      out->findings.push_back(std::move(f));
    }
    const JsonValue* t = l.Find("traffic");
    if (!t) return true;
    SweepLinkTraffic traffic;
    if (!IsObject(*t, "\"traffic\"") ||
        !Number(*t, "capacity_bytes_per_second", &traffic.capacity_bps) ||
        !Number(*t, "utilization", &traffic.utilization) ||
        !Number(*t, "xmit_wait_per_second", &traffic.xmit_wait) ||
        !EndTraffic(*t, "a", &traffic.a) || !EndTraffic(*t, "b", &traffic.b))
      return false;
    out->traffic = traffic;
    return true;
  }

  bool EndTraffic(const JsonValue& t, const char* which, SweepEndTraffic* e) {
    const JsonValue* v = t.Find(which);
    if (v && v->type == JsonValue::Type::kNull) return true;  // not known
    if (!Object(v, t, which)) return false;
    e->known = true;
    return Number(*v, "xmit_bytes_per_second", &e->xmit_bps) &&
           Number(*v, "rcv_bytes_per_second", &e->rcv_bps) &&
           Number(*v, "xmit_wait_per_second", &e->xmit_wait) &&
           Number(*v, "utilization", &e->utilization) && Bool(*v, "saturated", &e->saturated);
  }

  bool End(const JsonValue& l, const char* which, SweepEnd* e) {
    const JsonValue* v = l.Find(which);
    if (!Object(v, l, which)) return false;
    if (all_ && !String(*v, "name", &e->name)) return false;
    if (!Guid(*v, &e->guid) || !Int(*v, "port", 1, 254, &e->port)) return false;
    if (state_ && !LinkState(*v, e)) return false;
    if (state_ && !Node(*v, e)) return false;
    return Counters(*v, e);
  }

  bool LinkState(const JsonValue& v, SweepEnd* e) {
    if (!Int(v, "lid", 0, 65535, &e->lid)) return false;
    const JsonValue* w = v.Find("width");
    const JsonValue* s = v.Find("speed");
    return Object(w, v, "width") && Int(*w, "active", 0, 32, &e->width_active) &&
           Int(*w, "enabled", 0, 32, &e->width_enabled) &&
           Int(*w, "supported", 0, 32, &e->width_supported) && Object(s, v, "speed") &&
           String(*s, "active", &e->speed_active) && String(*s, "enabled", &e->speed_enabled) &&
           String(*s, "supported", &e->speed_supported) &&
           Bool(v, "extended_counters", &e->extended_counters);
  }

  // "switch" and "description": both or neither (sweeps written before them).
  bool Node(const JsonValue& v, SweepEnd* e) {
    const JsonValue* sw = v.Find("switch");
    const JsonValue* desc = v.Find("description");
    if (!sw && !desc) return true;
    if (!Bool(v, "switch", &e->is_switch) || !String(v, "description", &e->description))
      return false;
    e->node_known = true;
    return true;
  }

  bool Counters(const JsonValue& v, SweepEnd* e) {
    const JsonValue* counters = v.Find("counters");
    if (!counters) return Error(v, "no \"counters\"; expected an object or null");
    if (counters->type == JsonValue::Type::kNull) return true;
    if (!counters->is_object())
      return Error(*counters, std::string("\"counters\" is ") + JsonTypeName(counters->type) +
                                  "; expected an object or null");
    for (int c = 0; c < kSweepCounterCount; ++c) {
      const JsonValue* x = counters->Find(kSweepCounterNames[c]);
      if (!x || !x->AsUint64(&e->counters[c]))
        return Error(x ? *x : *counters, std::string("bad or missing \"") + kSweepCounterNames[c] +
                                             "\"; expected a non-negative integer");
    }
    e->counters_read = true;
    return true;
  }

  bool Missing(const JsonValue& m, SweepMissing* out) {
    return IsObject(m, "missing HCA") && String(m, "su", &out->su) &&
           String(m, "rail", &out->rail) && String(m, "host", &out->host) &&
           String(m, "hca", &out->hca);
  }

  bool Unanswered(const JsonValue& u, SweepUnanswered* out) {
    return IsObject(u, "unanswered node") && String(u, "name", &out->name) && Guid(u, &out->guid) &&
           Int(u, "lid", 0, 65535, &out->lid) && String(u, "status", &out->status) &&
           String(u, "error", &out->error);
  }

  // {"su", "rails": [cells]} of the grid and of the traffic grid.
  template <class Row, class Cell>
  bool Rows(const JsonValue& row, const char* what, Row* out,
            bool (SweepReader::*cell)(const JsonValue&, Cell*)) {
    if (!IsObject(row, what) || !String(row, "su", &out->su)) return false;
    const JsonValue* rails = Array(row, "rails", true);
    if (!rails) return false;
    const size_t before = out->rails.size();
    Each(*rails, &out->rails, cell);
    return out->rails.size() - before == rails->items.size();
  }

  bool GridRow(const JsonValue& row, SweepGridRow* out) {
    return Rows(row, "grid row", out, &SweepReader::GridCell);
  }

  bool GridCell(const JsonValue& c, SweepGridCell* out) {
    return IsObject(c, "grid cell") && String(c, "rail", &out->rail) &&
           Int(c, "links", 0, kMaxCount, &out->links) && Int(c, "bad", 0, kMaxCount, &out->bad) &&
           Int(c, "unread", 0, kMaxCount, &out->unread);
  }

  bool Traffic(const JsonValue& t, SweepTraffic* out) {
    if (!IsObject(t, "\"traffic\"") || !Number(t, "seconds", &out->seconds) ||
        !Number(t, "previous_time", &out->previous_time))
      return false;
    const JsonValue* grid = Array(t, "grid", true);
    const JsonValue* spines = grid ? Array(t, "spines", true) : nullptr;
    if (!spines) return false;
    Each(*grid, &out->grid, &SweepReader::TrafficRow);
    Each(*spines, &out->spines, &SweepReader::Spine);
    return out->grid.size() == grid->items.size() && out->spines.size() == spines->items.size();
  }

  bool TrafficRow(const JsonValue& row, SweepTrafficRow* out) {
    return Rows(row, "traffic grid row", out, &SweepReader::TrafficCell);
  }

  bool TrafficCell(const JsonValue& c, SweepTrafficCell* out) {
    return IsObject(c, "traffic grid cell") && String(c, "rail", &out->rail) &&
           Number(c, "host_max_utilization", &out->host_max) &&
           Number(c, "uplink_utilization", &out->uplink) &&
           Number(c, "uplink_xmit_wait_per_second", &out->uplink_wait) &&
           Int(c, "host_links", 0, kMaxCount, &out->host_links) &&
           Int(c, "uplinks", 0, kMaxCount, &out->uplinks);
  }

  bool Spine(const JsonValue& s, SweepSpineTraffic* out) {
    return IsObject(s, "spine") && String(s, "name", &out->name) &&
           Number(s, "utilization", &out->utilization) &&
           Number(s, "xmit_wait_per_second", &out->xmit_wait) &&
           Int(s, "links", 0, kMaxCount, &out->links);
  }

  const bool all_;
  const bool state_;  // each end's link state and node (kAll, kDiscovery)
};

}  // namespace

std::string SweepDocumentToJson(const SweepDocument& d) {
  std::string text = SweepDump(TopJson(d), 2) + "\n";
  const std::string mark = Json(kLinksMark).dump();
  std::string links = d.links.empty() ? "[]" : "[\n";
  for (size_t i = 0; i < d.links.size(); ++i)
    links +=
        "    " + SweepDump(LinkJson(d.links[i]), -1) + (i + 1 < d.links.size() ? ",\n" : "\n  ]");
  text.replace(text.find(mark), mark.size(), links);
  return text;
}

bool ParseSweepDocument(std::string_view text, const std::string& filename, SweepParts parts,
                        SweepDocument* out, Diags* errors) {
  const size_t before = errors->size();
  // The links are read one at a time as the parser reaches them, never kept as a tree; their
  // problems are held until the document's shape is known to be right (a file that is not a
  // sweep gets that one message), then reported in the place they always had.
  Diags link_errors;
  SweepReader links_reader(filename, &link_errors, parts);
  JsonItemStream links{"links", [&](JsonValue&& item) {
                         SweepLink l;
                         if (links_reader.Link(item, &l)) out->links.push_back(std::move(l));
                       }};
  JsonValue root;
  if (!ParseJsonFile(text, filename, &root, errors, links)) return false;
  SweepReader r(filename, errors, parts);
  return r.Document(root, out, link_errors) && errors->size() == before;
}

bool LoadSweepDocument(const std::string& path, SweepParts parts, SweepDocument* out,
                       Diags* errors) {
  std::string text;
  if (!ReadTextFile(path, kSweepJsonInput, &text, errors)) return false;
  return ParseSweepDocument(text, path, parts, out, errors);
}

}  // namespace railguard::wire
