// SPDX-License-Identifier: GPL-2.0-or-later
#include "wire/event_log.h"

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/file_util.h"
#include "base/json_reader.h"
#include "wire/json_lines.h"

namespace railguard::wire {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kMaxDetailBytes = 1024;
constexpr size_t kMaxChecks = 32;
constexpr size_t kMaxCounters = 64;
constexpr size_t kMaxNameBytes = 256;

const JsonLinesLog kEventLog{"event log", kDefaultEventLogPath, kMaxEventLogReadBytes};

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

struct KindName {
  EventKind kind;
  const char* name;
};
const KindName kKinds[] = {
    {EventKind::kDegraded, "degraded"},     {EventKind::kDown, "down"},
    {EventKind::kRecovered, "recovered"},   {EventKind::kFlap, "flap"},
    {EventKind::kDrained, "drained"},       {EventKind::kResumed, "resumed"},
    {EventKind::kRestricted, "restricted"}, {EventKind::kRestored, "restored"},
};

bool ShortPrintable(const std::string& s) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return false;
  return true;
}

}  // namespace

const char* EventKindName(EventKind kind) {
  for (const KindName& k : kKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

bool ParseEventKind(std::string_view text, EventKind* out) {
  for (const KindName& k : kKinds) {
    if (text == k.name) {
      *out = k.kind;
      return true;
    }
  }
  return false;
}

double EventCounter::PerHour() const {
  return seconds > 0 ? static_cast<double>(delta) * 3600.0 / seconds : 0;
}

std::string RotatedEventLogPath(const std::string& path) { return RotatedPath(path); }

namespace {

// The event as JSON, with every text cut to its limit.
Json EventJson(const HealthEvent& e) {
  Json j = Json::object();
  j["v"] = kEventLogVersion;
  j["time"] = e.time;
  j["node"] = e.node.substr(0, kMaxNameBytes);
  j["event"] = EventKindName(e.kind);
  j["rail"] = e.rail;
  if (!e.nic.empty()) j["nic"] = e.nic.substr(0, kMaxNameBytes);
  if (!e.checks.empty()) {
    Json checks = Json::array();
    for (size_t i = 0; i < e.checks.size() && i < kMaxChecks; ++i)
      checks.push_back(e.checks[i].substr(0, kMaxNameBytes));
    j["checks"] = checks;
  }
  if (!e.detail.empty()) j["detail"] = e.detail.substr(0, kMaxDetailBytes);
  if (!e.counters.empty()) {
    Json counters = Json::object();
    for (size_t i = 0; i < e.counters.size() && i < kMaxCounters; ++i) {
      const EventCounter& c = e.counters[i];
      counters[c.name.substr(0, kMaxNameBytes)] = {
          {"value", c.value}, {"delta", c.delta}, {"seconds", c.seconds}};
    }
    j["counters"] = counters;
  }
  return j;
}

}  // namespace

std::string EventToJsonLine(const HealthEvent& e) {
  std::string line = Dump(EventJson(e));
  if (line.size() < kMaxEventLineBytes) return line + "\n";
  // Too long once escaped (many long names full of control characters): give up the detail
  // first, then counters, then checks, until the line fits; node and nic always fit.
  HealthEvent cut = e;
  cut.detail = cut.detail.substr(0, kMaxDetailBytes);
  if (cut.checks.size() > kMaxChecks) cut.checks.resize(kMaxChecks);
  if (cut.counters.size() > kMaxCounters) cut.counters.resize(kMaxCounters);
  while (line.size() >= kMaxEventLineBytes) {
    const size_t excess = line.size() + 1 - kMaxEventLineBytes;
    if (!cut.detail.empty()) {
      cut.detail.resize(cut.detail.size() > excess + 8 ? cut.detail.size() - excess - 8 : 0);
    } else if (!cut.counters.empty()) {
      cut.counters.pop_back();
    } else if (!cut.checks.empty()) {
      cut.checks.pop_back();
    } else {
      cut.nic.clear();
    }
    line = Dump(EventJson(cut));
  }
  return line + "\n";
}

bool EventFromJsonLine(std::string_view line, HealthEvent* out, std::string* err) {
  const char kForm[] =
      "expected an event {\"v\":1,\"time\":T,\"node\":\"n001\",\"event\":\"degraded\",...}";
  *out = HealthEvent();
  if (line.size() > kMaxEventLineBytes) {
    *err = "line is " + std::to_string(line.size()) + " bytes; expected at most " +
           std::to_string(kMaxEventLineBytes);
    return false;
  }
  JsonValue j;
  JsonError jerr;
  JsonLimits limits;
  limits.max_depth = 4;
  if (!ParseJson(line, &j, &jerr, limits)) {
    *err = "column " + std::to_string(jerr.column) + ": " + jerr.message + "; " + kForm;
    return false;
  }
  const auto at = [](const JsonValue& v) { return "column " + std::to_string(v.column) + ": "; };
  if (!j.is_object()) {
    *err = at(j) + JsonTypeName(j.type) + ", not an object; " + kForm;
    return false;
  }
  const JsonValue* v = j.Find("v");
  uint64_t version = 0;
  if (!v || !v->AsUint64(&version)) {
    *err = std::string("no integer \"v\" (format version); ") + kForm;
    return false;
  }
  if (version != static_cast<uint64_t>(kEventLogVersion)) {
    *err = at(*v) + "format version " + v->text + " is not supported; expected " +
           std::to_string(kEventLogVersion);
    return false;
  }
  const JsonValue* time = j.Find("time");
  if (!time || !time->is_number() || time->number < 0 || time->number > 1e11) {
    *err = (time ? at(*time) : std::string()) +
           "\"time\" missing or not seconds since the epoch; " + kForm;
    return false;
  }
  out->time = time->number;
  const JsonValue* node = j.Find("node");
  if (!node || !node->is_string() || !ShortPrintable(node->text)) {
    *err = (node ? at(*node) : std::string()) + "\"node\" missing or not a printable node name; " +
           kForm;
    return false;
  }
  out->node = node->text;
  const JsonValue* kind = j.Find("event");
  if (!kind || !kind->is_string() || !ParseEventKind(kind->text, &out->kind)) {
    *err = (kind ? at(*kind) + "\"event\" is " +
                       (kind->is_string() ? "\"" + ValidUtf8(kind->text).substr(0, 40) + "\""
                                          : std::string(JsonTypeName(kind->type)))
                 : std::string("\"event\" is missing")) +
           "; expected degraded, down, recovered, flap, drained, resumed, restricted or "
           "restored";
    return false;
  }
  if (const JsonValue* rail = j.Find("rail")) {
    if (!rail->is_number() || !rail->integral || rail->number < -1 || rail->number > 1023) {
      *err = at(*rail) + "\"rail\" is not a rail number 0-1023, or -1 for the node";
      return false;
    }
    out->rail = static_cast<int>(rail->number);
  }
  const bool rail_event = out->kind == EventKind::kDegraded || out->kind == EventKind::kDown ||
                          out->kind == EventKind::kRecovered || out->kind == EventKind::kFlap;
  if (rail_event && out->rail < 0) {
    *err = std::string("a ") + EventKindName(out->kind) +
           " event without \"rail\"; expected the rail it concerns";
    return false;
  }
  // An optional string member: absent leaves `*dst` as it is.
  const auto optional_string = [&](const char* key, std::string* dst) {
    const JsonValue* v = j.Find(key);
    if (!v) return true;
    if (!v->is_string()) {
      *err = at(*v) + "\"" + key + "\" is " + JsonTypeName(v->type) + "; expected a string";
      return false;
    }
    *dst = v->text;
    return true;
  };
  if (!optional_string("nic", &out->nic)) return false;
  if (const JsonValue* checks = j.Find("checks")) {
    if (!checks->is_array() || checks->items.size() > kMaxChecks) {
      *err = at(*checks) + "\"checks\" is not an array of at most " + std::to_string(kMaxChecks) +
             " check names";
      return false;
    }
    for (const JsonValue& c : checks->items) {
      if (!c.is_string()) {
        *err = at(c) + "\"checks\" holds " + JsonTypeName(c.type) + "; expected check names";
        return false;
      }
      out->checks.push_back(c.text);
    }
  }
  if (!optional_string("detail", &out->detail)) return false;
  if (const JsonValue* counters = j.Find("counters")) {
    if (!counters->is_object() || counters->members.size() > kMaxCounters) {
      *err = at(*counters) + "\"counters\" is not an object of at most " +
             std::to_string(kMaxCounters) +
             " counters {\"name\":{\"value\":V,\"delta\":D,\"seconds\":S}}";
      return false;
    }
    for (const auto& m : counters->members) {
      const JsonValue& c = m.second;
      EventCounter ec;
      ec.name = m.first;
      const JsonValue* value = c.Find("value");
      const JsonValue* delta = c.Find("delta");
      const JsonValue* seconds = c.Find("seconds");
      if (!c.is_object() || !value || !value->AsUint64(&ec.value) || !delta ||
          !delta->AsUint64(&ec.delta) || !seconds || !seconds->is_number() || seconds->number < 0) {
        *err = at(c) + "counter \"" + ValidUtf8(m.first).substr(0, 64) +
               "\" is not {\"value\":V,\"delta\":D,\"seconds\":S} with integers V, D in "
               "0..2^64-1 and a number S >= 0";
        return false;
      }
      ec.seconds = seconds->number;
      out->counters.push_back(std::move(ec));
    }
  }
  return true;
}

bool AppendEvents(const std::string& path, const std::vector<HealthEvent>& events, std::string* err,
                  const EventLogOptions& options) {
  std::string batch;
  for (const HealthEvent& e : events) batch += EventToJsonLine(e);
  return AppendLines(kEventLog, path, batch, {options.max_bytes, options.lock_wait_ms}, err);
}

EventLogStatus ReadEvents(const std::string& path, double since, double until,
                          std::vector<HealthEvent>* out, Diags* problems, std::string* err) {
  const LinesStatus st = ReadLines(
      kEventLog, path,
      [&](const std::string&, int, std::string_view line) {
        HealthEvent e;
        std::string why;
        if (!EventFromJsonLine(line, &e, &why)) return why;
        if (e.time >= since && e.time <= until) out->push_back(std::move(e));
        return std::string();
      },
      problems, err);
  return st == LinesStatus::kOk        ? EventLogStatus::kOk
         : st == LinesStatus::kMissing ? EventLogStatus::kMissing
                                       : EventLogStatus::kError;
}

}  // namespace railguard::wire
