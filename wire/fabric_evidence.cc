// SPDX-License-Identifier: GPL-2.0-or-later
// Writing and reading the fabric evidence file.
#include "wire/fabric_evidence.h"

#include <nlohmann/json.hpp>

#include "base/json_fields.h"

namespace railguard::wire {
namespace {

using Json = nlohmann::ordered_json;

class Reader : public JsonFieldReader {
 public:
  using JsonFieldReader::JsonFieldReader;

  bool Link(const JsonValue& l, SwitchSideProblem* p) {
    if (!IsObject(l, "link")) return false;
    if (!String(l, "node", &p->node) || !Int(l, "rail", 0, 1023, &p->rail) ||
        !String(l, "leaf", &p->leaf) || !Int(l, "port", 0, 254, &p->port) ||
        !String(l, "problem", &p->problem) || !String(l, "detail", &p->detail))
      return false;
    if (p->problem != "errors" && p->problem != "width" && p->problem != "speed")
      return Error(*l.Find("problem"),
                   "problem \"" + p->problem + "\"; expected \"errors\", \"width\" or \"speed\"");
    return true;
  }
  bool Leaf(const JsonValue& l, LeafFault* f) {
    if (!IsObject(l, "leaf")) return false;
    return String(l, "su", &f->su) && Int(l, "rail", 0, 1023, &f->rail) &&
           String(l, "leaf", &f->leaf) && Int(l, "bad_ports", 1, 1 << 20, &f->bad_ports) &&
           Int(l, "ports", 1, 1 << 20, &f->ports);
  }
};

}  // namespace

std::string FabricEvidenceToJson(const FabricEvidence& e) {
  Json links = Json::array();
  for (const SwitchSideProblem& p : e.links)
    links.push_back({{"node", p.node},
                     {"rail", p.rail},
                     {"leaf", p.leaf},
                     {"port", p.port},
                     {"problem", p.problem},
                     {"detail", p.detail}});
  Json leaves = Json::array();
  for (const LeafFault& f : e.leaves)
    leaves.push_back({{"su", f.su},
                      {"rail", f.rail},
                      {"leaf", f.leaf},
                      {"bad_ports", f.bad_ports},
                      {"ports", f.ports}});
  const Json j = {{"railguard_fabric_evidence", kFabricEvidenceVersion},
                  {"time", e.time},
                  {"sweep", e.sweep},
                  {"complete", e.complete},
                  {"links", links},
                  {"leaves", leaves}};
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool ParseFabricEvidence(std::string_view text, const std::string& filename, FabricEvidence* out,
                         Diags* errors) {
  const size_t before = errors->size();
  JsonValue root;
  if (!ParseJsonFile(text, filename, &root, errors)) return false;
  Reader r(filename, errors);
  if (!root.is_object()) return r.Error(root, "not an object; expected fabric evidence JSON");
  const JsonValue* version = root.Find("railguard_fabric_evidence");
  long long v = 0;
  if (!version || !version->AsInt64(&v) || v != kFabricEvidenceVersion)
    return r.Error(version ? *version : root,
                   "bad or missing \"railguard_fabric_evidence\"; expected 1");
  const JsonValue* time = root.Find("time");
  if (!time || !time->is_number() || time->number < 0)
    return r.Error(time ? *time : root,
                   "bad or missing \"time\"; expected seconds since the epoch");
  out->time = time->number;
  const JsonValue* complete = root.Find("complete");
  if (!complete || complete->type != JsonValue::Type::kBool)
    return r.Error(complete ? *complete : root,
                   "bad or missing \"complete\"; expected true or false");
  out->complete = complete->boolean;
  if (!r.String(root, "sweep", &out->sweep)) return false;
  const JsonValue* links = root.Find("links");
  const JsonValue* leaves = root.Find("leaves");
  if (!links || !links->is_array())
    return r.Error(links ? *links : root, "bad or missing \"links\"; expected an array");
  if (!leaves || !leaves->is_array())
    return r.Error(leaves ? *leaves : root, "bad or missing \"leaves\"; expected an array");
  for (const JsonValue& l : links->items) {
    SwitchSideProblem p;
    if (r.Link(l, &p)) out->links.push_back(std::move(p));
  }
  for (const JsonValue& l : leaves->items) {
    LeafFault f;
    if (r.Leaf(l, &f)) out->leaves.push_back(std::move(f));
  }
  return errors->size() == before;
}

bool LoadFabricEvidence(const std::string& path, FabricEvidence* out, Diags* errors) {
  std::string text;
  if (!ReadTextFile(path, kFabricEvidenceInput, &text, errors)) return false;
  return ParseFabricEvidence(text, path, out, errors);
}

}  // namespace railguard::wire
