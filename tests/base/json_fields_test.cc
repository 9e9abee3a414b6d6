// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of base/json_fields.h: typed members with errors that name file:line:column and the
// expected form, and the cap on how many errors hostile input can add.
#include "base/json_fields.h"

#include <gtest/gtest.h>

#include <string>

namespace railguard {
namespace base_json_fields_test {

JsonValue Parse(const std::string& text) {
  JsonValue v;
  Diags errors;
  EXPECT_TRUE(ParseJsonFile(text, "t.json", &v, &errors));
  return v;
}

TEST(ParseJsonFile, SyntaxErrorNamesFileLineAndColumn) {
  JsonValue v;
  Diags errors;
  EXPECT_FALSE(ParseJsonFile("{\n  \"a\": tru\n}", "in.json", &v, &errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, "in.json");
  EXPECT_EQ(errors[0].line, 2);
  EXPECT_GT(errors[0].column, 1);
}

TEST(JsonFieldReader, StringIntAndObjectWithTheirErrors) {
  const JsonValue o = Parse("{\"s\": \"x\",\n \"n\": null,\n \"i\": 7,\n \"big\": 300, \"o\": {}}");
  Diags errors;
  JsonFieldReader r("t.json", &errors);
  std::string s = "old";
  EXPECT_TRUE(r.String(o, "s", &s));
  EXPECT_EQ(s, "x");
  EXPECT_TRUE(r.String(o, "n", &s, /*nullable=*/true));
  EXPECT_EQ(s, "");
  EXPECT_TRUE(r.String(o, "absent", &s, true));
  s = "kept";
  EXPECT_FALSE(r.String(o, "n", &s));
  EXPECT_EQ(s, "kept");
  int i = -1;
  EXPECT_TRUE(r.Int(o, "i", 0, 10, &i));
  EXPECT_EQ(i, 7);
  EXPECT_FALSE(r.Int(o, "big", 0, 254, &i));
  EXPECT_EQ(i, 7);
  EXPECT_FALSE(r.Int(o, "s", 0, 254, &i));
  EXPECT_TRUE(r.Object(o.Find("o"), o, "o"));
  EXPECT_FALSE(r.Object(o.Find("missing"), o, "missing"));
  EXPECT_FALSE(r.IsObject(*o.Find("i"), "link"));
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_EQ(errors[0].line, 2);
  EXPECT_EQ(errors[0].message, "bad or missing \"n\"; expected a string");
  EXPECT_EQ(errors[1].line, 4);
  EXPECT_EQ(errors[1].message, "bad or missing \"big\"; expected an integer from 0 to 254");
  EXPECT_EQ(errors[2].message, "bad or missing \"s\"; expected an integer from 0 to 254");
  EXPECT_EQ(errors[3].message, "bad or missing \"missing\"; expected an object");
  EXPECT_EQ(errors[3].line, 1);  // at the parent, where the member should be
  EXPECT_EQ(errors[4].message, "link is a number; expected an object");
  EXPECT_EQ(errors[4].line, 3);
  EXPECT_EQ(errors[4].file, "t.json");
}

TEST(JsonFieldReader, StopsAddingErrorsAtTheCap) {
  const JsonValue o = Parse("{}");
  Diags errors;
  JsonFieldReader r("t.json", &errors, 3);
  std::string s;
  for (int k = 0; k < 100; ++k) EXPECT_FALSE(r.String(o, "x", &s));
  EXPECT_EQ(errors.size(), 3u);
}

}  // namespace base_json_fields_test
}  // namespace railguard
