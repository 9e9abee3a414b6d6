// SPDX-License-Identifier: GPL-2.0-or-later
// A strict JSON reader that remembers the line and column of every value, for input whose
// errors must name file:line: report snapshots, the railcheck JSON in Slurm's Extra field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railguard {

// One parsed JSON value with where it starts in the text.
struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type = Type::kNull;
  int line = 0;    // 1-based line of the value's first character
  int column = 0;  // 1-based byte column of that character
  bool boolean = false;
  double number = 0;
  bool integral = false;  // a number written without fraction or exponent
  std::string text;       // kString: the decoded value (UTF-8); kNumber: the literal as written
  std::vector<JsonValue> items;                            // kArray
  std::vector<std::pair<std::string, JsonValue>> members;  // kObject, in file order

  bool is_object() const { return type == Type::kObject; }
  bool is_array() const { return type == Type::kArray; }
  bool is_string() const { return type == Type::kString; }
  bool is_number() const { return type == Type::kNumber; }
  // The member named `key`, or nullptr. REQUIRES: is_object() (else nullptr).
  const JsonValue* Find(std::string_view key) const;
  // True with `*out` when this is a number written as an integer 0 .. 2^64-1 (exactly, not
  // through a double).
  bool AsUint64(uint64_t* out) const;
  // True with `*out` when this is a number written as an integer that fits a long long.
  bool AsInt64(long long* out) const;
};

// "null", "a boolean", "a number", "a string", "an array", "an object": for messages.
const char* JsonTypeName(JsonValue::Type type);

// Where and why parsing stopped.
struct JsonError {
  int line = 0;
  int column = 0;
  std::string message;  // says what was found and what was expected
};

// Limits that keep hostile input from costing more than it should.
struct JsonLimits {
  int max_depth = 32;                    // nested arrays/objects
  size_t max_bytes = size_t{256} << 20;  // whole text
};

// Parses `text` as exactly one JSON value (RFC 8259; whitespace around it allowed). Strings
// must be valid UTF-8; \u escapes are decoded (surrogate pairs joined, lone surrogates are
// errors). Duplicate keys in an object are errors. Numbers must be finite doubles. Returns
// false with `*err` on the first problem; `*out` is then unspecified. Never throws except
// std::bad_alloc.
bool ParseJson(std::string_view text, JsonValue* out, JsonError* err,
               const JsonLimits& limits = JsonLimits());

// One array of a large document read item by item: the array that is the value of member
// `member` of the top-level object. Each item goes to `sink` as soon as it is parsed and is not
// kept, so a file of many items never becomes one tree (a sweep of 42,000 links took 830 MB and
// 3.7 s as a tree). That member's value in the tree is an empty array.
struct JsonItemStream {
  std::string member;
  std::function<void(JsonValue&& item)> sink;
};

// As ParseJson, handing the items of `stream.member` to `stream.sink` in order. A syntax error
// after some items stops the parse as usual (false); the items before it have been handed on.
bool ParseJson(std::string_view text, JsonValue* out, JsonError* err, const JsonLimits& limits,
               const JsonItemStream& stream);

// True when `s` is valid UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool IsValidUtf8(std::string_view s);

// `s` with every invalid UTF-8 sequence replaced by U+FFFD, so that JSON writers and the
// Prometheus text format accept it.
std::string ValidUtf8(std::string_view s);

}  // namespace railguard
