// A streaming JSON writer for large outputs (the report, snapshots): appends to a string
// without building a document tree; strings are escaped and made valid UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railguard::report {

// Appends `s` as a JSON string literal (quotes included) to `*out`: ", \ and control
// characters escaped, invalid UTF-8 written as U+FFFD, "<" ">" "&" as \u003c \u003e \u0026
// so that the text is also safe inside an HTML <script> block.
void AppendJsonString(std::string_view s, std::string* out);

// Compact JSON built by calls in document order. The caller keeps the structure valid
// (Key() only inside objects, matching Begin/End); the writer places the commas.
class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view s);
  JsonWriter& Int(long long v);
  JsonWriter& Uint(uint64_t v);
  // Finite numbers as the shortest text that reads back the same; NaN and inf as null.
  JsonWriter& Double(double v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();
  // Writes a value that is already JSON text.
  JsonWriter& Raw(std::string_view json);
  JsonWriter& StringArray(const std::vector<std::string>& v);
  JsonWriter& IntArray(const std::vector<int>& v);

 private:
  void Separate();

  std::string* out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace railguard::report
