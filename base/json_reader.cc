// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace railguard {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return len;
}

void AppendUtf8(unsigned cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// How a byte is shown in a message: 'x' when printable, else its hex value.
// The character a one-letter JSON escape stands for ('n' -> newline), or 0 when `e` is none.
char SimpleEscape(char e) {
  static const char kLetters[] = "\"\\/bfnrt";
  static const char kMeanings[] = "\"\\/\b\f\n\r\t";
  const char* p = e ? std::strchr(kLetters, e) : nullptr;
  return p ? kMeanings[p - kLetters] : 0;
}

std::string Shown(unsigned char c) {
  if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  static const char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
}

class Parser {
 public:
  Parser(std::string_view text, const JsonLimits& limits, JsonError* err,
         const JsonItemStream* stream = nullptr)
      : s_(text), limits_(limits), err_(err), stream_(stream) {}

  bool ParseDocument(JsonValue* out) {
    if (s_.size() > limits_.max_bytes)
      return Fail("text is " + std::to_string(s_.size()) + " bytes; expected at most " +
                  std::to_string(limits_.max_bytes));
    SkipSpace();
    if (pos_ >= s_.size()) return Fail("empty input; expected a JSON value");
    if (!ParseValue(out, 0)) return false;
    SkipSpace();
    if (pos_ < s_.size())
      return Fail("unexpected " + Shown(s_[pos_]) + " after the JSON value; expected the end");
    return true;
  }

 private:
  bool Fail(const std::string& message) {
    err_->line = line_;
    err_->column = static_cast<int>(pos_ - line_start_) + 1;
    err_->message = message;
    return false;
  }

  void SkipSpace() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        ++line_;
        line_start_ = ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else {
        break;
      }
    }
  }

  bool ParseValue(JsonValue* v, int depth) {
    v->line = line_;
    v->column = static_cast<int>(pos_ - line_start_) + 1;
    if (pos_ >= s_.size()) return Fail("unexpected end of input; expected a JSON value");
    const char c = s_[pos_];
    switch (c) {
      case '{':
        return ParseObject(v, depth + 1);
      case '[':
        return ParseArray(v, depth + 1);
      case '"':
        v->type = JsonValue::Type::kString;
        return ParseString(&v->text);
      case 't':
        v->type = JsonValue::Type::kBool;
        v->boolean = true;
        return Literal("true");
      case 'f':
        v->type = JsonValue::Type::kBool;
        v->boolean = false;
        return Literal("false");
      case 'n':
        v->type = JsonValue::Type::kNull;
        return Literal("null");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(v);
        return Fail("unexpected " + Shown(c) + "; expected a JSON value");
    }
  }

  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word)
      return Fail("unexpected " + Shown(s_[pos_]) + "; expected a JSON value");
    pos_ += word.size();
    return true;
  }

  // Enters the object or array whose opening bracket is at pos_, nested `depth` deep. False
  // when that is too deep; else *more is false when `close` follows at once (it is empty).
  bool Enter(JsonValue* v, JsonValue::Type type, int depth, char close, bool* more) {
    if (depth > limits_.max_depth)
      return Fail("nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    v->type = type;
    ++pos_;
    SkipSpace();
    *more = !(pos_ < s_.size() && s_[pos_] == close);
    if (!*more) ++pos_;
    return true;
  }

  // After a member or an item: steps over ',' (*more = true) or `close` (*more = false);
  // anything else is an error.
  bool Next(char close, bool* more) {
    SkipSpace();
    const std::string expected = std::string("expected ',' or '") + close + "'";
    if (pos_ >= s_.size()) return Fail("unexpected end of input; " + expected);
    if (s_[pos_] != ',' && s_[pos_] != close)
      return Fail("unexpected " + Shown(s_[pos_]) + "; " + expected);
    *more = s_[pos_] == ',';
    ++pos_;
    return true;
  }

  // True when the next character is `c` (not consumed); else fails saying what was found and
  // that `expected` was.
  bool At(char c, const std::string& expected) {
    if (pos_ >= s_.size()) return Fail("unexpected end of input; expected " + expected);
    if (s_[pos_] != c) return Fail("unexpected " + Shown(s_[pos_]) + "; expected " + expected);
    return true;
  }

  bool ParseObject(JsonValue* v, int depth) {
    bool more = false;
    if (!Enter(v, JsonValue::Type::kObject, depth, '}', &more)) return false;
    while (more) {
      SkipSpace();
      if (!At('"', "'\"' (a key)")) return false;
      const int key_line = line_;
      const size_t key_col = pos_ - line_start_;
      std::string key;
      if (!ParseString(&key)) return false;
      for (const auto& m : v->members) {
        if (m.first == key) {
          line_ = key_line;
          pos_ = line_start_ + key_col;
          return Fail("duplicate key \"" + ValidUtf8(key) + "\" (first at line " +
                      std::to_string(m.second.line) + "); expected each key once");
        }
      }
      SkipSpace();
      if (!At(':', "':'")) return false;
      ++pos_;
      SkipSpace();
      const bool streamed =
          stream_ && depth == 1 && key == stream_->member && pos_ < s_.size() && s_[pos_] == '[';
      v->members.emplace_back(std::move(key), JsonValue());
      if (!(streamed ? StreamArray(&v->members.back().second, depth + 1)
                     : ParseValue(&v->members.back().second, depth)))
        return false;
      if (!Next('}', &more)) return false;
    }
    return true;
  }

  bool ParseArray(JsonValue* v, int depth) {
    bool more = false;
    if (!Enter(v, JsonValue::Type::kArray, depth, ']', &more)) return false;
    while (more) {
      SkipSpace();
      v->items.emplace_back();
      if (!ParseValue(&v->items.back(), depth)) return false;
      if (!Next(']', &more)) return false;
    }
    return true;
  }

  // As ParseArray, handing each item to stream_->sink instead of keeping it.
  bool StreamArray(JsonValue* v, int depth) {
    v->line = line_;
    v->column = static_cast<int>(pos_ - line_start_) + 1;
    bool more = false;
    if (!Enter(v, JsonValue::Type::kArray, depth, ']', &more)) return false;
    while (more) {
      SkipSpace();
      JsonValue item;
      if (!ParseValue(&item, depth)) return false;
      stream_->sink(std::move(item));
      if (!Next(']', &more)) return false;
    }
    return true;
  }

  bool Hex4(unsigned* out) {
    if (pos_ + 4 > s_.size()) return Fail("unexpected end of input in a \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[pos_ + k];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        pos_ += k;
        return Fail("unexpected " + Shown(c) + " in a \\u escape; expected 4 hex digits");
      }
    }
    pos_ += 4;
    *out = v;
    return true;
  }

  // REQUIRES: s_[pos_] == '"'.
  bool ParseString(std::string* out) {
    ++pos_;
    while (true) {
      if (pos_ >= s_.size()) return Fail("unexpected end of input in a string; expected '\"'");
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20)
        return Fail("control character " + Shown(c) + " in a string; expected it escaped");
      if (c == '\\') {
        if (pos_ + 1 >= s_.size()) return Fail("unexpected end of input in an escape");
        const char e = s_[pos_ + 1];
        pos_ += 2;
        if (const char simple = SimpleEscape(e)) {
          out->push_back(simple);
          continue;
        }
        if (e != 'u') {
          pos_ -= 1;
          return Fail("unknown escape " + Shown(e) +
                      "; expected one of \\\" \\\\ \\/ \\b "
                      "\\f \\n \\r \\t \\uXXXX");
        }
        unsigned cp = 0;
        if (!Hex4(&cp)) return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
          pos_ -= 6;
          return Fail("lone low surrogate \\u escape; expected a high surrogate first");
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (s_.substr(pos_, 2) != "\\u") {
            pos_ -= 6;
            return Fail("high surrogate \\u escape without its low surrogate");
          }
          pos_ += 2;
          unsigned low = 0;
          if (!Hex4(&low)) return false;
          if (low < 0xDC00 || low > 0xDFFF) {
            pos_ -= 6;
            return Fail("\\u escape after a high surrogate is not a low surrogate");
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        AppendUtf8(cp, out);
        continue;
      }
      if (c < 0x80) {  // a run of plain ASCII goes in at once
        size_t end = pos_ + 1;
        while (end < s_.size()) {
          const unsigned char d = static_cast<unsigned char>(s_[end]);
          if (d < 0x20 || d >= 0x80 || d == '"' || d == '\\') break;
          ++end;
        }
        out->append(s_.data() + pos_, end - pos_);
        pos_ = end;
        continue;
      }
      const size_t len = Utf8SequenceLength(s_, pos_);
      if (len == 0) return Fail("invalid UTF-8 " + Shown(c) + " in a string");
      out->append(s_.data() + pos_, len);
      pos_ += len;
    }
  }

  bool ParseNumber(JsonValue* v) {
    const size_t start = pos_;
    bool integral = true;
    if (s_[pos_] == '-') ++pos_;
    const auto digit = [&]() { return pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; };
    if (!digit()) return Fail("'-' not followed by a digit; expected a number");
    if (s_[pos_] == '0') {
      ++pos_;
      if (digit()) return Fail("leading zero in a number; expected e.g. 7, 0.7 or 700");
    } else {
      while (digit()) ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (!digit()) return Fail("no digit after '.' in a number");
      while (digit()) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digit()) return Fail("no digit in the exponent of a number");
      while (digit()) ++pos_;
    }
    const std::string token(s_.substr(start, pos_ - start));
    const double d = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(d)) {
      pos_ = start;
      return Fail("number " + token.substr(0, 40) + " is out of range; expected a finite number");
    }
    v->type = JsonValue::Type::kNumber;
    v->number = d;
    v->integral = integral;
    v->text = token;
    return true;
  }

  std::string_view s_;
  JsonLimits limits_;
  JsonError* err_;
  const JsonItemStream* stream_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

namespace {

// The whole of `text` as an integer of type T (std::from_chars: no sign but '-', no spaces).
template <typename T>
bool WholeInteger(const std::string& text, T* out) {
  T v{};
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end) return false;
  *out = v;
  return true;
}

}  // namespace

bool JsonValue::AsUint64(uint64_t* out) const {
  if (type != Type::kNumber || !integral || text.empty() || text[0] == '-') return false;
  return WholeInteger(text, out);
}

bool JsonValue::AsInt64(long long* out) const {
  return type == Type::kNumber && integral && WholeInteger(text, out);
}

const char* JsonTypeName(JsonValue::Type type) {
  switch (type) {
    case JsonValue::Type::kNull:
      return "null";
    case JsonValue::Type::kBool:
      return "a boolean";
    case JsonValue::Type::kNumber:
      return "a number";
    case JsonValue::Type::kString:
      return "a string";
    case JsonValue::Type::kArray:
      return "an array";
    case JsonValue::Type::kObject:
      return "an object";
  }
  return "?";
}

bool ParseJson(std::string_view text, JsonValue* out, JsonError* err, const JsonLimits& limits) {
  *out = JsonValue();
  return Parser(text, limits, err).ParseDocument(out);
}

bool ParseJson(std::string_view text, JsonValue* out, JsonError* err, const JsonLimits& limits,
               const JsonItemStream& stream) {
  *out = JsonValue();
  return Parser(text, limits, err, &stream).ParseDocument(out);
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = Utf8SequenceLength(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t len = Utf8SequenceLength(s, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
  return out;
}

}  // namespace railguard
