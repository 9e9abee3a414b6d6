// SPDX-License-Identifier: GPL-2.0-or-later
// Reading typed fields of a parsed JSON file (base/json_reader.h) with errors that name
// file:line:column and the expected form: what every railguard JSON format reader shares.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "base/diag.h"
#include "base/json_reader.h"

namespace railguard {

// Parses `text` (the contents of `file`) as one JSON value into `*root`. On a syntax error,
// appends one Diag naming file, line and column to `*errors` and returns false.
bool ParseJsonFile(std::string_view text, const std::string& file, JsonValue* root, Diags* errors);
// As ParseJsonFile, streaming the items of one top-level array to `stream.sink`
// (base/json_reader.h's JsonItemStream).
bool ParseJsonFile(std::string_view text, const std::string& file, JsonValue* root, Diags* errors,
                   const JsonItemStream& stream);

// Reads members of JSON objects of one file. Each call that finds a member missing or of the
// wrong form appends a Diag (at most `max_errors` in all, so hostile input stays cheap) and
// returns false; the output is then unchanged. `errors` must outlive the reader.
class JsonFieldReader {
 public:
  JsonFieldReader(std::string file, Diags* errors, size_t max_errors = 20)
      : file_(std::move(file)), errors_(errors), max_errors_(max_errors) {}

  // Appends "file:line:column: what" at `at`. Always returns false.
  bool Error(const JsonValue& at, const std::string& what);
  // Appends `d` as it is (a problem found by another reader of the same file), within the
  // same limit. Always returns false.
  bool AddError(const Diag& d);

  // Member `key` of object `o` as a string; when `nullable`, null or absent gives "".
  bool String(const JsonValue& o, const char* key, std::string* out, bool nullable = false);

  // Member `key` of `o` as an integer written without fraction, lo <= x <= hi.
  bool Int(const JsonValue& o, const char* key, long long lo, long long hi, int* out);

  // True when `v` is an object; else an error at `v` (or at `parent` when `v` is absent)
  // saying that member `what` must be an object.
  bool Object(const JsonValue* v, const JsonValue& parent, const char* what);

  // True when `v` is an object; else "<what> is <type>; expected an object" at `v`.
  bool IsObject(const JsonValue& v, const char* what);

 private:
  std::string file_;
  Diags* errors_;
  size_t max_errors_;
};

}  // namespace railguard
