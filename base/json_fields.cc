// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/json_fields.h"

namespace railguard {

namespace {

// `parsed` (a ParseJson result) with its error, if any, as one Diag of `file`.
bool Reported(bool parsed, const JsonError& jerr, const std::string& file, Diags* errors) {
  if (!parsed) errors->push_back({file, jerr.line, jerr.column, jerr.message});
  return parsed;
}

}  // namespace

bool ParseJsonFile(std::string_view text, const std::string& file, JsonValue* root,
                   Diags* errors) {
  JsonError jerr;
  return Reported(ParseJson(text, root, &jerr), jerr, file, errors);
}

bool ParseJsonFile(std::string_view text, const std::string& file, JsonValue* root, Diags* errors,
                   const JsonItemStream& stream) {
  JsonError jerr;
  return Reported(ParseJson(text, root, &jerr, JsonLimits(), stream), jerr, file, errors);
}

bool JsonFieldReader::Error(const JsonValue& at, const std::string& what) {
  if (errors_->size() < max_errors_) errors_->push_back({file_, at.line, at.column, what});
  return false;
}

bool JsonFieldReader::AddError(const Diag& d) {
  if (errors_->size() < max_errors_) errors_->push_back(d);
  return false;
}

bool JsonFieldReader::String(const JsonValue& o, const char* key, std::string* out,
                             bool nullable) {
  const JsonValue* v = o.Find(key);
  if ((!v || v->type == JsonValue::Type::kNull) && nullable) {
    out->clear();
    return true;
  }
  if (!v || !v->is_string())
    return Error(v ? *v : o, std::string("bad or missing \"") + key + "\"; expected a string" +
                                 (nullable ? " or null" : ""));
  *out = v->text;
  return true;
}

bool JsonFieldReader::Int(const JsonValue& o, const char* key, long long lo, long long hi,
                          int* out) {
  const JsonValue* v = o.Find(key);
  long long x = 0;
  if (!v || !v->AsInt64(&x) || x < lo || x > hi)
    return Error(v ? *v : o, std::string("bad or missing \"") + key +
                                 "\"; expected an integer from " + std::to_string(lo) + " to " +
                                 std::to_string(hi));
  *out = static_cast<int>(x);
  return true;
}

bool JsonFieldReader::Object(const JsonValue* v, const JsonValue& parent, const char* what) {
  if (v && v->is_object()) return true;
  return Error(v ? *v : parent, std::string("bad or missing \"") + what + "\"; expected an object");
}

bool JsonFieldReader::IsObject(const JsonValue& v, const char* what) {
  if (v.is_object()) return true;
  return Error(v, std::string(what) + " is " + JsonTypeName(v.type) + "; expected an object");
}

}  // namespace railguard
