// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the node map reader (ParseNodeMap): the result agrees with the errors, each error
// names a line, and every name read is non-empty and trimmed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "topo/ibnet.h"
#include "topo/node_map.h"

namespace railguard::fuzz {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void FuzzNodeMap(std::string_view text) {
  topo::NodeMap map;
  Diags errors;
  const bool ok = topo::ParseNodeMap(text, "fuzz.map", &map, &errors);
  CheckAgreesWithErrors(ok, errors);
  for (const Diag& e : errors)
    RG_FUZZ_CHECK(e.line > 0 && !e.message.empty(), "error without a line: " + e.ToString());
  for (const auto& [guid, name] : map) {
    RG_FUZZ_CHECK(!name.empty() && !IsBlank(name.front()) && !IsBlank(name.back()),
                  "untrimmed name '" + name + "' for " + topo::GuidString(guid));
  }
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzNodeMap(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
