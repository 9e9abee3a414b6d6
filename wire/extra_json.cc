// SPDX-License-Identifier: GPL-2.0-or-later
#include "wire/extra_json.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>

#include "base/json_document.h"
#include "base/json_reader.h"
#include "base/names.h"

namespace railguard::wire {
namespace {

using nlohmann::json;

const char kExpected[] =
    "expected {\"railcheck\":{\"time\":T,\"verdict\":\"drain|restrict|warn|ok\","
    "\"rails\":[\"ok|degraded|down\",...],\"failed\":[\"railN:check\",...]}}";

// How deep someone else's JSON in Extra may nest and still be kept or read leniently.
constexpr int kMaxForeignDepth = 2048;

std::string At(const JsonValue& v) { return "column " + std::to_string(v.column) + ": "; }

std::string Quoted(const std::string& s) { return "\"" + ValidUtf8(s).substr(0, 48) + "\""; }

// Why `v` is not an array of at most `max` items ("is missing", "is a string", "has 9
// entries"), or "" when it is one.
std::string NotAnArrayOfAtMost(const JsonValue* v, size_t max) {
  if (!v) return "is missing";
  if (!v->is_array()) return "is " + std::string(JsonTypeName(v->type));
  if (v->items.size() > max) return "has " + std::to_string(v->items.size()) + " entries";
  return "";
}

// "rail3:port.rate" or "node:gpu.count".
bool ParseFailed(const std::string& s, FailedCheck* out) {
  const size_t colon = s.find(':');
  if (colon == std::string::npos || colon + 1 >= s.size() || s.size() > 128) return false;
  const std::string where = s.substr(0, colon);
  out->check = s.substr(colon + 1);
  if (!IsCheckName(out->check)) return false;
  if (where == "node") {
    out->rail = -1;
    return true;
  }
  if (where.size() < 5 || where.size() > 7 || where.compare(0, 4, "rail") != 0) return false;
  int rail = 0;
  for (size_t i = 4; i < where.size(); ++i) {
    if (where[i] < '0' || where[i] > '9') return false;
    rail = rail * 10 + (where[i] - '0');
  }
  out->rail = rail;
  return true;
}

std::string FailedTag(const FailedCheck& f) {
  return (f.rail >= 0 ? "rail" + std::to_string(f.rail) + ":" : std::string("node:")) + f.check;
}

// "rails" as railcheck reads its own last report: anything but degraded or down is ok.
void ReadRailsLeniently(const JsonValue& rails, RailcheckExtra* out) {
  for (const JsonValue& r : rails.items) {
    const std::string s = r.is_string() ? r.text : "";
    out->rails.push_back(s == "down"       ? RailState::kDown
                         : s == "degraded" ? RailState::kDegraded
                                           : RailState::kOk);
  }
}

// The optional "fw" list: at most kMaxExtraRails strings of printable ASCII.
ExtraStatus ReadFw(const JsonValue& rc, RailcheckExtra* out, std::string* err) {
  const JsonValue* fw = rc.Find("fw");
  if (!fw) return ExtraStatus::kOk;
  if (const std::string why = NotAnArrayOfAtMost(fw, kMaxExtraRails); !why.empty()) {
    *err = At(*fw) + "\"fw\" " + why + "; expected an array of at most " +
           std::to_string(kMaxExtraRails) + " firmware versions such as \"28.39.1002\"";
    return ExtraStatus::kError;
  }
  for (const JsonValue& v : fw->items) {
    bool printable = v.is_string() && v.text.size() <= kMaxExtraFwChars;
    for (size_t i = 0; printable && i < v.text.size(); ++i)
      printable = v.text[i] >= 0x20 && v.text[i] <= 0x7e;
    if (!printable) {
      *err = At(v) + "fw entry " + std::to_string(out->fw.size()) + " is " +
             (v.is_string() ? Quoted(v.text) : std::string(JsonTypeName(v.type))) +
             "; expected a firmware version such as \"28.39.1002\" (at most " +
             std::to_string(kMaxExtraFwChars) + " printable ASCII characters) or \"\"";
      return ExtraStatus::kError;
    }
    out->fw.push_back(v.text);
  }
  return ExtraStatus::kOk;
}

ExtraStatus ReadStrictRailcheck(const JsonValue& rc, RailcheckExtra* out, std::string* err) {
  if (!rc.is_object()) {
    *err = At(rc) + "\"railcheck\" is " + JsonTypeName(rc.type) + "; " + kExpected;
    return ExtraStatus::kError;
  }
  const JsonValue* time = rc.Find("time");
  if (!time || !time->is_number() || time->number < 0 || time->number > 1e11) {
    *err = At(time ? *time : rc) + "\"time\" " +
           (time ? "is " + std::string(JsonTypeName(time->type)) +
                       (time->is_number() ? " out of range" : "")
                 : std::string("is missing")) +
           "; expected seconds since the epoch; " + kExpected;
    return ExtraStatus::kError;
  }
  out->time = time->number;
  const JsonValue* verdict = rc.Find("verdict");
  if (!verdict || !verdict->is_string() ||
      (verdict->text != "drain" && verdict->text != "restrict" && verdict->text != "warn" &&
       verdict->text != "ok")) {
    *err = At(verdict ? *verdict : rc) + "\"verdict\" " +
           (verdict ? "is " + (verdict->is_string() ? Quoted(verdict->text)
                                                    : std::string(JsonTypeName(verdict->type)))
                    : std::string("is missing")) +
           "; expected \"drain\", \"restrict\", \"warn\" or \"ok\"";
    return ExtraStatus::kError;
  }
  out->verdict = verdict->text;
  const JsonValue* rails = rc.Find("rails");
  if (const std::string why = NotAnArrayOfAtMost(rails, kMaxExtraRails); !why.empty()) {
    *err = At(rails ? *rails : rc) + "\"rails\" " + why + "; expected an array of at most " +
           std::to_string(kMaxExtraRails) + " rail states (\"ok\", \"degraded\" or \"down\")";
    return ExtraStatus::kError;
  }
  for (const JsonValue& r : rails->items) {
    RailState s;
    if (r.is_string() && r.text == "ok") {
      s = RailState::kOk;
    } else if (r.is_string() && r.text == "degraded") {
      s = RailState::kDegraded;
    } else if (r.is_string() && r.text == "down") {
      s = RailState::kDown;
    } else {
      *err = At(r) + "rail " + std::to_string(out->rails.size()) + " is " +
             (r.is_string() ? Quoted(r.text) : std::string(JsonTypeName(r.type))) +
             "; expected \"ok\", \"degraded\" or \"down\"";
      return ExtraStatus::kError;
    }
    out->rails.push_back(s);
  }
  if (ExtraStatus fw = ReadFw(rc, out, err); fw != ExtraStatus::kOk) return fw;
  if (const JsonValue* healthy = rc.Find("healthy")) {
    if (healthy->type != JsonValue::Type::kBool) {
      *err = At(*healthy) + "\"healthy\" is " + JsonTypeName(healthy->type) +
             "; expected true or false";
      return ExtraStatus::kError;
    }
    out->healthy = healthy->boolean;
  }
  if (const JsonValue* would = rc.Find("would")) {
    const std::string expected =
        "; expected an array of \"drain\", \"restrict\", \"requeue\", \"resume\"";
    if (const std::string why = NotAnArrayOfAtMost(would, std::size(kWouldActions));
        !why.empty()) {
      *err = At(*would) + "\"would\" " + why + expected;
      return ExtraStatus::kError;
    }
    out->would.emplace();
    for (const JsonValue& w : would->items) {
      const bool known = w.is_string() && std::any_of(std::begin(kWouldActions),
                                                      std::end(kWouldActions),
                                                      [&](const char* a) { return w.text == a; });
      if (!known) {
        *err = At(w) + "\"would\" entry " +
               (w.is_string() ? Quoted(w.text) : std::string(JsonTypeName(w.type))) + expected;
        return ExtraStatus::kError;
      }
      out->would->push_back(w.text);
    }
  }
  if (const JsonValue* budget = rc.Find("budget")) {
    if (!budget->is_string() || budget->text != "over") {
      *err = At(*budget) + "\"budget\" is " +
             (budget->is_string() ? Quoted(budget->text) : std::string(JsonTypeName(budget->type))) +
             "; expected \"over\"";
      return ExtraStatus::kError;
    }
    out->over_budget = true;
  }
  const JsonValue* failed = rc.Find("failed");
  if (!failed) return ExtraStatus::kOk;
  if (const std::string why = NotAnArrayOfAtMost(failed, kMaxExtraFailed); !why.empty()) {
    *err = At(*failed) + "\"failed\" " + why + "; expected an array of at most " +
           std::to_string(kMaxExtraFailed) + " entries such as \"rail3:port.rate\"";
    return ExtraStatus::kError;
  }
  for (const JsonValue& f : failed->items) {
    FailedCheck fc;
    if (!f.is_string() || !ParseFailed(f.text, &fc) ||
        (fc.rail >= 0 && static_cast<size_t>(fc.rail) >= out->rails.size())) {
      *err = At(f) + "failed entry " +
             (f.is_string() ? Quoted(f.text) : std::string(JsonTypeName(f.type))) +
             "; expected \"railN:check\" with N < " + std::to_string(out->rails.size()) +
             " (the rails listed) or \"node:check\", check names in a-z 0-9 . _";
      return ExtraStatus::kError;
    }
    out->failed.push_back(fc);
  }
  return ExtraStatus::kOk;
}

}  // namespace

const char* RailStateName(RailState s) {
  static const char* const kNames[] = {"ok", "degraded", "down", "unknown"};  // enum order
  const size_t i = static_cast<size_t>(s);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "?";
}

ExtraStatus ReadExtra(const std::string& extra, ExtraReadMode mode, RailcheckExtra* out,
                      std::string* err) {
  const bool strict = mode == ExtraReadMode::kStrict;
  *out = RailcheckExtra();
  if (extra.find_first_not_of(" \t\r\n") == std::string::npos) return ExtraStatus::kNone;
  if (strict && extra.size() > kMaxExtraBytes) {
    *err = "Extra is " + std::to_string(extra.size()) + " bytes; expected at most " +
           std::to_string(kMaxExtraBytes);
    return ExtraStatus::kError;
  }
  JsonValue doc;
  JsonError jerr;
  JsonLimits limits;
  limits.max_depth = strict ? 8 : kMaxForeignDepth;
  if (!ParseJson(extra, &doc, &jerr, limits)) {
    if (!strict) return ExtraStatus::kNone;
    *err = "column " + std::to_string(jerr.column) + ": " + jerr.message + "; " + kExpected;
    return ExtraStatus::kError;
  }
  if (!doc.is_object()) {
    if (!strict) return ExtraStatus::kNone;
    *err = At(doc) + "Extra is " + JsonTypeName(doc.type) + "; " + kExpected;
    return ExtraStatus::kError;
  }
  const JsonValue* rc = doc.Find("railcheck");
  if (!rc) return ExtraStatus::kNone;
  if (strict) return ReadStrictRailcheck(*rc, out, err);
  const JsonValue* rails = rc->is_object() ? rc->Find("rails") : nullptr;
  if (!rails || !rails->is_array()) return ExtraStatus::kNone;
  ReadRailsLeniently(*rails, out);
  return ExtraStatus::kOk;
}

std::optional<std::string> WriteExtra(const RailcheckExtra& mine, const std::string& current) {
  json doc = json::object();
  if (!current.empty()) {
    JsonValue parsed;
    JsonError jerr;
    JsonLimits limits;
    limits.max_depth = kMaxForeignDepth;
    if (!ParseJson(current, &parsed, &jerr, limits) || !parsed.is_object()) return std::nullopt;
    doc = ToJsonDocument(parsed);
  }
  json rc = json::object();
  rc["time"] = static_cast<long long>(std::floor(mine.time));
  rc["verdict"] = mine.verdict;
  json rails = json::array();
  for (RailState r : mine.rails) rails.push_back(RailStateName(r));
  rc["rails"] = rails;
  json failed = json::array();
  for (const FailedCheck& f : mine.failed) {
    const std::string tag = FailedTag(f);
    if (std::find(failed.begin(), failed.end(), tag) == failed.end()) failed.push_back(tag);
  }
  rc["failed"] = failed;
  if (std::any_of(mine.fw.begin(), mine.fw.end(), [](const std::string& v) { return !v.empty(); }))
    rc["fw"] = mine.fw;
  if (mine.healthy) rc["healthy"] = *mine.healthy;
  if (mine.would) rc["would"] = *mine.would;
  if (mine.over_budget) rc["budget"] = "over";
  doc["railcheck"] = rc;
  return doc.dump();
}

}  // namespace railguard::wire
