#include "report/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/json_reader.h"

namespace railguard::report {

void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  const bool valid = IsValidUtf8(s);
  const std::string fixed = valid ? std::string() : ValidUtf8(s);
  const std::string_view v = valid ? s : std::string_view(fixed);
  for (char ch : v) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '<':
        *out += "\\u003c";
        break;
      case '>':
        *out += "\\u003e";
        break;
      case '&':
        *out += "\\u0026";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          *out += "\\u00";
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_->push_back(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  Separate();
  out_->push_back('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_->push_back('}');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  Separate();
  out_->push_back('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_->push_back(']');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  Separate();
  AppendJsonString(key, out_);
  out_->push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view s) {
  Separate();
  AppendJsonString(s, out_);
  return *this;
}

JsonWriter& JsonWriter::Int(long long v) {
  Separate();
  *out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t v) {
  Separate();
  *out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::Double(double v) {
  Separate();
  if (!std::isfinite(v)) {
    *out_ += "null";
    return *this;
  }
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    *out_ += std::to_string(static_cast<long long>(v));
    return *this;
  }
  char buf[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  *out_ += buf;
  return *this;
}

JsonWriter& JsonWriter::Bool(bool v) {
  Separate();
  *out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  Separate();
  *out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  Separate();
  out_->append(json.data(), json.size());
  return *this;
}

JsonWriter& JsonWriter::StringArray(const std::vector<std::string>& v) {
  BeginArray();
  for (const std::string& s : v) String(s);
  return EndArray();
}

JsonWriter& JsonWriter::IntArray(const std::vector<int>& v) {
  BeginArray();
  for (int x : v) Int(x);
  return EndArray();
}

}  // namespace railguard::report
