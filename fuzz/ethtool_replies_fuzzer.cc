// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the reading of ethtool statistics (healthcheck/ethtool.h) with any replies the
// kernel's ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS and ETHTOOL_GSTATS could give: the input is
// the three counts (count, len, n_stats, 4 bytes each, little-endian), a byte splitting the
// rest into the name records and the values. A read either fails with a message or gives one
// printable, non-empty name per statistic, never more than the replies held.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "healthcheck/ethtool.h"

namespace railguard::fuzz {
namespace {

uint32_t U32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The replies of one interface, as the input gives them.
class Replies : public health::EthtoolIoctl {
 public:
  uint32_t count = 0, len = 0, n_stats = 0;
  std::string names;
  std::vector<uint64_t> values;

  bool StatsCount(const std::string&, uint32_t* out, std::string*) override {
    *out = count;
    return true;
  }
  bool StatNames(const std::string&, uint32_t, uint32_t* l, std::string* n,
                 std::string*) override {
    *l = len;
    *n = names;
    return true;
  }
  bool StatValues(const std::string&, uint32_t, uint32_t* n, std::vector<uint64_t>* v,
                  std::string*) override {
    *n = n_stats;
    *v = values;
    return true;
  }
};

void FuzzEthtoolReplies(const uint8_t* data, size_t size) {
  if (size < 13) return;
  Replies r;
  r.count = U32(data);
  r.len = U32(data + 4);
  r.n_stats = U32(data + 8);
  const size_t rest = size - 13;
  const size_t split = rest == 0 ? 0 : data[12] % (rest + 1);
  r.names.assign(reinterpret_cast<const char*>(data + 13), split);
  for (size_t i = 13 + split; i + 8 <= size; i += 8) {
    uint64_t v = 0;
    std::memcpy(&v, data + i, 8);
    r.values.push_back(v);
  }
  health::EthtoolStats stats;
  std::string err;
  const bool ok = health::ReadEthtoolStats(r, "eth0", &stats, &err);
  RG_FUZZ_CHECK(ok || err.rfind("ethtool statistics of eth0: ", 0) == 0, "error " + err);
  if (!ok) return;
  RG_FUZZ_CHECK(stats.size() <= r.count && r.count == r.len && r.count == r.n_stats,
                "read " + std::to_string(stats.size()) + " of " + std::to_string(r.count));
  for (const auto& kv : stats) {
    RG_FUZZ_CHECK(!kv.first.empty() && kv.first.size() < health::kEthGstringLen, "name size");
    for (unsigned char c : kv.first) RG_FUZZ_CHECK(c > 0x20 && c < 0x7f, "name byte");
  }
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzEthtoolReplies(data, size);
  return 0;
}
