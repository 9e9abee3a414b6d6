// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the rail topology YAML loader (LoadTopologyString). A load that fails must say why;
// a load that succeeds must survive EmitTopologyYaml (see CheckTopologyRoundTrip).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "fuzz/topology_roundtrip.h"
#include "topo/topology_yaml.h"

namespace railguard::fuzz {
namespace {

void FuzzTopologyYaml(const std::string& text) {
  topo::Topology t;
  Diags diags;
  if (!topo::LoadTopologyString(text, "fuzz.yaml", &t, &diags)) {
    RG_FUZZ_CHECK(!diags.empty(), std::string("the load failed without a diagnostic"));
    return;
  }
  RG_FUZZ_CHECK(diags.empty(), "the load succeeded with diagnostics:\n" + FormatDiags(diags));
  CheckTopologyRoundTrip(t);
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzTopologyYaml(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
