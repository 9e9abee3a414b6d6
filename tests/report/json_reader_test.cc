// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the JSON reader with positions (report/json_reader.h).
#include "base/json_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railguard::report {
namespace report_json_reader_test {

std::string ErrorOf(const std::string& text, int max_depth = 32) {
  JsonValue v;
  JsonError e;
  JsonLimits limits;
  limits.max_depth = max_depth;
  if (ParseJson(text, &v, &e, limits)) return "ok";
  return std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message;
}

TEST(JsonReader, ReadsEveryKindOfValueWithItsPosition) {
  JsonValue v;
  JsonError e;
  ASSERT_TRUE(ParseJson("{\"a\": [1, -2.5e1, true, null],\n  \"b\": \"x\\u00e9\\n\"}", &v, &e))
      << e.message;
  ASSERT_TRUE(v.is_object());
  const JsonValue* a = v.Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 4u);
  EXPECT_EQ(a->items[0].number, 1);
  EXPECT_TRUE(a->items[0].integral);
  EXPECT_EQ(a->items[1].number, -25);
  EXPECT_FALSE(a->items[1].integral);
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[3].type, JsonValue::Type::kNull);
  const JsonValue* b = v.Find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->text, "x\xC3\xA9\n");
  EXPECT_EQ(b->line, 2);
  EXPECT_EQ(b->column, 8);
  EXPECT_EQ(v.Find("c"), nullptr);
}

TEST(JsonReader, JoinsSurrogatePairsAndRefusesLoneOnes) {
  JsonValue v;
  JsonError e;
  ASSERT_TRUE(ParseJson("\"\\ud83d\\ude00\"", &v, &e));
  EXPECT_EQ(v.text, "\xF0\x9F\x98\x80");
  EXPECT_EQ(ErrorOf("\"\\ud83d\""), "1:2: high surrogate \\u escape without its low surrogate");
  EXPECT_EQ(ErrorOf("\"\\ude00\""),
            "1:2: lone low surrogate \\u escape; expected a high surrogate first");
}

TEST(JsonReader, SaysWhereAndWhatWasExpected) {
  EXPECT_EQ(ErrorOf("{\"a\": 1,\n \"b\" 2}"), "2:6: unexpected '2'; expected ':'");
  EXPECT_EQ(ErrorOf("[1, 2"), "1:6: unexpected end of input; expected ',' or ']'");
  EXPECT_EQ(ErrorOf("{\"a\":1} x"), "1:9: unexpected 'x' after the JSON value; expected the end");
  EXPECT_EQ(ErrorOf(""), "1:1: empty input; expected a JSON value");
  EXPECT_EQ(ErrorOf("[01]"), "1:3: leading zero in a number; expected e.g. 7, 0.7 or 700");
  EXPECT_EQ(ErrorOf("\"a\tb\""),
            "1:3: control character byte 0x09 in a string; expected it escaped");
  EXPECT_EQ(ErrorOf("\"\\q\""),
            "1:3: unknown escape 'q'; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
  EXPECT_EQ(ErrorOf("1e999"), "1:1: number 1e999 is out of range; expected a finite number");
}

TEST(JsonReader, RefusesDuplicateKeysNamingTheFirst) {
  EXPECT_EQ(ErrorOf("{\"a\": 1,\n \"a\": 2}"),
            "2:2: duplicate key \"a\" (first at line 1); expected each key once");
}

TEST(JsonReader, RefusesInvalidUtf8) {
  EXPECT_EQ(ErrorOf("\"a\xFF\""), "1:3: invalid UTF-8 byte 0xff in a string");
  EXPECT_EQ(ErrorOf("\"\xC0\xAF\""), "1:2: invalid UTF-8 byte 0xc0 in a string");  // overlong
  EXPECT_EQ(ErrorOf("\"\xED\xA0\x80\""), "1:2: invalid UTF-8 byte 0xed in a string");
}

TEST(JsonReader, StopsHostileNestingAtTheDepthLimit) {
  EXPECT_EQ(ErrorOf(std::string(100000, '[')), "1:33: nested deeper than 32 levels");
  EXPECT_EQ(ErrorOf("[[[1]]]", 2), "1:3: nested deeper than 2 levels");
  EXPECT_EQ(ErrorOf("[[1]]", 2), "ok");
}

TEST(JsonReader, RefusesTextOverTheSizeLimit) {
  JsonValue v;
  JsonError e;
  JsonLimits limits;
  limits.max_bytes = 4;
  EXPECT_FALSE(ParseJson("[1,2]", &v, &e, limits));
  EXPECT_EQ(e.message, "text is 5 bytes; expected at most 4");
}

TEST(JsonReader, ReadsLargeIntegersExactly) {
  JsonValue v;
  JsonError e;
  ASSERT_TRUE(ParseJson("[18446744073709551615, 18446744073709551616, -1, 1.0]", &v, &e));
  uint64_t u = 0;
  EXPECT_TRUE(v.items[0].AsUint64(&u));
  EXPECT_EQ(u, 18446744073709551615ull);
  EXPECT_FALSE(v.items[1].AsUint64(&u));
  EXPECT_FALSE(v.items[2].AsUint64(&u));
  EXPECT_FALSE(v.items[3].AsUint64(&u));
}

TEST(JsonReader, Utf8HelpersReplaceOnlyInvalidBytes) {
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9"));
  EXPECT_FALSE(IsValidUtf8("caf\xC3"));
  EXPECT_EQ(ValidUtf8("a\xFF"
                      "b\xC3\xA9"),
            "a\xEF\xBF\xBD"
            "b\xC3\xA9");
}

TEST(JsonReader, StringsMixingAsciiRunsEscapesAndUtf8DecodeWhole) {
  JsonValue v;
  JsonError e;
  ASSERT_TRUE(ParseJson("\"MF0;su1-rail3:MQM8700/U1 t\xC3\xBCr \\\"x\\\" \\u00e9 end\"", &v, &e))
      << e.message;
  EXPECT_EQ(v.text, "MF0;su1-rail3:MQM8700/U1 t\xC3\xBCr \"x\" \xC3\xA9 end");
  // A control character or invalid byte after a run is still found where it is.
  EXPECT_FALSE(ParseJson("\"abcdef\x01\"", &v, &e));
  EXPECT_EQ(e.column, 8);
  EXPECT_FALSE(ParseJson("\"abcdef\xFF\"", &v, &e));
  EXPECT_EQ(e.column, 8);
}

TEST(JsonReader, StreamsTheItemsOfOneTopLevelArrayWithoutKeepingThem) {
  std::vector<std::string> seen;
  JsonItemStream stream{"links", [&](JsonValue&& item) {
                          seen.push_back(std::to_string(item.line) + ":" +
                                         std::to_string(item.column) + " " +
                                         (item.is_object() ? item.Find("n")->text : "?"));
                        }};
  JsonValue v;
  JsonError e;
  // A nested "links" and one in a deeper object are ordinary arrays.
  ASSERT_TRUE(
      ParseJson("{\"x\": {\"links\": [1]},\n \"links\": [{\"n\": \"a\"},\n"
                "  {\"n\": \"b\", \"links\": [2]}], \"y\": 3}",
                &v, &e, JsonLimits(), stream))
      << e.message;
  EXPECT_EQ(seen, (std::vector<std::string>{"2:12 a", "3:3 b"}));
  ASSERT_TRUE(v.Find("links") && v.Find("links")->is_array());
  EXPECT_TRUE(v.Find("links")->items.empty());
  EXPECT_EQ(v.Find("x")->Find("links")->items.size(), 1u);
  EXPECT_EQ(v.Find("y")->number, 3);
  // A syntax error after the first item: the parse fails where it is, the item before it was
  // handed on.
  seen.clear();
  EXPECT_FALSE(ParseJson("{\"links\": [{\"n\": \"a\"}, {\"n\": }]}", &v, &e, JsonLimits(), stream));
  EXPECT_EQ(std::to_string(e.line) + ":" + std::to_string(e.column), "1:30");
  EXPECT_EQ(seen, (std::vector<std::string>{"1:12 a"}));
  // Not an array: kept as it is.
  seen.clear();
  ASSERT_TRUE(ParseJson("{\"links\": 5}", &v, &e, JsonLimits(), stream));
  EXPECT_TRUE(seen.empty());
  EXPECT_EQ(v.Find("links")->number, 5);
}

}  // namespace report_json_reader_test
}  // namespace railguard::report
