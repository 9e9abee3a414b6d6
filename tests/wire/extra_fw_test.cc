// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the "fw" list of railcheck's Extra JSON (wire/extra_json.h, issue 13 item 11): the
// rail NICs' fw_ver written, read back by the strict reader, left out when none is known, and
// malformed lists refused with the expected form.
#include <gtest/gtest.h>

#include <string>

#include "wire/extra_json.h"

namespace railguard::wire {
namespace wire_extra_fw_test {

std::string ErrorOf(const std::string& extra) {
  RailcheckExtra e;
  std::string err;
  return ReadExtra(extra, ExtraReadMode::kStrict, &e, &err) == ExtraStatus::kError ? err : "";
}

TEST(ExtraFw, WrittenAndReadBack) {
  RailcheckExtra mine;
  mine.time = 1714559700;
  mine.verdict = "warn";
  mine.rails = {RailState::kOk, RailState::kOk, RailState::kOk};
  mine.fw = {"28.39.1002", "", "28.37.1014"};
  const std::optional<std::string> text = WriteExtra(mine, "{\"site\":1}");
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text,
            "{\"railcheck\":{\"failed\":[],\"fw\":[\"28.39.1002\",\"\",\"28.37.1014\"],\"rails\":"
            "[\"ok\",\"ok\",\"ok\"],\"time\":1714559700,\"verdict\":\"warn\"},\"site\":1}");
  RailcheckExtra back;
  std::string err;
  ASSERT_EQ(ReadExtra(*text, ExtraReadMode::kStrict, &back, &err), ExtraStatus::kOk) << err;
  EXPECT_EQ(back.fw, mine.fw);
  EXPECT_EQ(back.rails, mine.rails);
}

TEST(ExtraFw, NoneKnownIsNotWrittenAndOlderExtraReadsWithout) {
  RailcheckExtra mine;
  mine.verdict = "ok";
  mine.rails = {RailState::kOk};
  mine.fw = {""};
  EXPECT_EQ(*WriteExtra(mine, ""),
            "{\"railcheck\":{\"failed\":[],\"rails\":[\"ok\"],\"time\":0,\"verdict\":\"ok\"}}");
  RailcheckExtra back;
  std::string err;
  ASSERT_EQ(ReadExtra("{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[\"ok\"]}}",
                      ExtraReadMode::kStrict, &back, &err),
            ExtraStatus::kOk);
  EXPECT_TRUE(back.fw.empty());
}

TEST(ExtraFw, MalformedListsNameTheEntryAndTheForm) {
  const std::string head = "{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[\"ok\"],";
  EXPECT_EQ(ErrorOf(head + "\"fw\":\"28.39.1002\"}}"),
            "column 59: \"fw\" is a string; expected an array of at most 64 firmware versions "
            "such as \"28.39.1002\"");
  EXPECT_EQ(ErrorOf(head + "\"fw\":[28]}}"),
            "column 60: fw entry 0 is a number; expected a firmware version such as "
            "\"28.39.1002\" (at most 64 printable ASCII characters) or \"\"");
  EXPECT_EQ(ErrorOf(head + "\"fw\":[\"a\\tb\"]}}"),
            "column 60: fw entry 0 is \"a\tb\"; expected a firmware version such as "
            "\"28.39.1002\" (at most 64 printable ASCII characters) or \"\"");
  EXPECT_NE(ErrorOf(head + "\"fw\":[\"" + std::string(65, '1') + "\"]}}"), "");
}

}  // namespace wire_extra_fw_test
}  // namespace railguard::wire
