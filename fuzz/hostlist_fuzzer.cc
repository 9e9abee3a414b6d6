// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes Slurm hostlist expansion (ExpandHostlist, with a small host limit) and checks that
// both compressed forms expand back: CompressHostlist to the same list in the same order,
// CompressHostlistSorted to the same hosts in HostLess order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "topo/hostlist.h"

namespace railguard::fuzz {
namespace {

// Small, so that one input cannot spend the time budget on building names.
constexpr size_t kMaxHosts = 4096;

std::string Join(const std::vector<std::string>& hosts) {
  std::string out;
  for (const std::string& h : hosts) out += (out.empty() ? "" : " ") + h;
  return out;
}

// Expands `compressed`, which came from `hosts`; aborts if that fails.
std::vector<std::string> ExpandAgain(const std::string& compressed,
                                     const std::vector<std::string>& hosts) {
  std::vector<std::string> out;
  std::string err;
  RG_FUZZ_CHECK(ExpandHostlist(compressed, &out, &err, kMaxHosts),
                "'" + compressed + "' (from " + Join(hosts) + ") does not expand: " + err);
  return out;
}

void FuzzHostlist(std::string_view expr) {
  std::vector<std::string> hosts;
  std::string err;
  if (!ExpandHostlist(expr, &hosts, &err, kMaxHosts)) {
    RG_FUZZ_CHECK(!err.empty(), std::string("expansion failed without a message"));
    return;
  }
  RG_FUZZ_CHECK(hosts.size() <= kMaxHosts, "more than kMaxHosts hosts");

  const std::string compressed = CompressHostlist(hosts);
  const std::vector<std::string> again = ExpandAgain(compressed, hosts);
  RG_FUZZ_CHECK(again == hosts,
                "'" + compressed + "' expands to " + Join(again) + "; expected " + Join(hosts));

  const std::string sorted = CompressHostlistSorted(hosts);
  std::vector<std::string> sorted_again = ExpandAgain(sorted, hosts);
  std::vector<std::string> want = hosts;
  std::sort(want.begin(), want.end());
  std::sort(sorted_again.begin(), sorted_again.end());
  RG_FUZZ_CHECK(sorted_again == want,
                "'" + sorted + "' expands to other hosts than " + Join(hosts));

  // HostLess must be a strict weak ordering, or std::sort may run off the vector.
  std::vector<std::string> by_host = hosts;
  std::sort(by_host.begin(), by_host.end(), HostLess);
  for (size_t i = 0; i + 1 < by_host.size(); ++i)
    RG_FUZZ_CHECK(!HostLess(by_host[i + 1], by_host[i]),
                  "HostLess order broken at " + by_host[i] + ", " + by_host[i + 1]);
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzHostlist(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
