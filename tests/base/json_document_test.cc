// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of base/json_document.h: read values as nlohmann documents, numbers as nlohmann
// would hold them.
#include "base/json_document.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace railguard {
namespace base_json_document_test {

nlohmann::json Doc(const std::string& text) {
  JsonValue v;
  JsonError err;
  EXPECT_TRUE(ParseJson(text, &v, &err)) << err.message;
  return ToJsonDocument(v);
}

TEST(ToJsonDocument, KeepsValuesAndNumbersAsNlohmannReadsThem) {
  const std::string text =
      R"({"b":[true,null,"x"],"a":{"u":18446744073709551615,"i":-9223372036854775808,)"
      R"("big":-9223372036854775809,"f":1.5,"e":1e3}})";
  const nlohmann::json d = Doc(text);
  EXPECT_EQ(d, nlohmann::json::parse(text));
  EXPECT_TRUE(d["a"]["u"].is_number_unsigned());
  EXPECT_TRUE(d["a"]["i"].is_number_integer());
  EXPECT_FALSE(d["a"]["i"].is_number_unsigned());
  EXPECT_TRUE(d["a"]["big"].is_number_float());
  EXPECT_TRUE(d["a"]["e"].is_number_float());
  EXPECT_EQ(d.dump(), nlohmann::json::parse(text).dump());
}

}  // namespace base_json_document_test
}  // namespace railguard
