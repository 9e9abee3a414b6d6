// SPDX-License-Identifier: GPL-2.0-or-later
// The checks of the node's GPUs and of the gather itself: gpu.count, rail.affinity (GPU k
// beside the NIC of rail k) and gather.timeout.
#include <string>
#include <vector>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"
#include "healthcheck/sysfs.h"

namespace railguard::health {
namespace {

using check_util::Make;
using check_util::RailNic;

int GpusPresent(const NodeFacts& f) {
  int present = 0;
  for (const GpuFacts& g : f.gpus) present += g.present ? 1 : 0;
  return present;
}

// The rail NICs whose PCIe switch holds no present GPU.
std::vector<const NicFacts*> NicsWithoutGpu(const NodeFacts& f) {
  std::vector<const NicFacts*> alone;
  for (const NicFacts& n : f.nics) {
    if (!check_util::HasPciPath(n)) continue;
    bool beside = false;
    for (const GpuFacts& g : f.gpus)
      if (g.present && !g.pci_path.empty() && check_util::SwitchMiss(n, g).empty()) beside = true;
    if (!beside) alone.push_back(&n);
  }
  return alone;
}

}  // namespace

// gpu.count. Reads: the node type's gpus and gpu_pci (JudgeInput::gpus_expected, the
// facts' gpu_source); health.sysfs_root (in the message); no other health.*.
void CheckGpuCount(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  const NodeFacts& f = *in.facts;
  if (!f.gpus_complete) return;
  const std::string expected = std::to_string(in.gpus_expected);
  if (!f.gpu_error.empty()) {
    out->push_back(Make("gpu.count", -1, Severity::kDown,
                        "cannot look for GPUs: " + f.gpu_error + "; expected " + expected,
                        "GPU scan failed"));
    return;
  }
  const int present = GpusPresent(f);
  if (f.gpu_source == "gpu_pci") {
    for (const GpuFacts& g : f.gpus) {
      if (g.present) continue;
      int rail = -1;
      const std::string who = check_util::GpuName(f, g, &rail);
      out->push_back(Make("gpu.count", rail, Severity::kDown,
                          who + " " + g.bdf + " missing (" + g.missing + "); " +
                              std::to_string(present) + " of " + expected + " GPUs present",
                          who + " missing"));
    }
    return;
  }
  if (present == in.gpus_expected) return;
  const std::string count = std::to_string(present) + " NVIDIA GPUs in " +
                            JoinPath(f.sysfs_root, "bus/pci/devices") + ", expected " + expected;
  // Rails whose PCIe switch holds no GPU name the slot to look at.
  std::vector<const NicFacts*> alone;
  if (present < in.gpus_expected) alone = NicsWithoutGpu(f);
  if (alone.empty()) {
    out->push_back(Make("gpu.count", -1, Severity::kDown, count,
                        std::to_string(present) + " of " + expected + " GPUs"));
  }
  for (const NicFacts* n : alone) {
    out->push_back(
        Make("gpu.count", n->rail, Severity::kDown,
             RailNic(*n) + " has no GPU under its PCIe switch (" + count + ")",
             RailNic(*n) + " GPU missing (" + std::to_string(present) + " of " + expected + ")"));
  }
}

// rail.affinity. Reads: the node type's gpus (JudgeInput::gpus_expected); no health.*.
void CheckRailAffinity(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  const NodeFacts& f = *in.facts;
  if (!f.gpus_complete || !f.gpu_error.empty()) return;
  // With a GPU missing from a scan, GPU k is no longer the k-th function on the bus: the
  // pairing would be wrong everywhere after it, and gpu.count already says why.
  if (f.gpu_source == "scan" && GpusPresent(f) != in.gpus_expected) return;
  for (const GpuFacts& g : f.gpus) {
    if (!g.present || g.pci_path.empty()) continue;
    const NicFacts* n = check_util::NicOfRail(f, g.index);
    if (!n || !check_util::HasPciPath(*n)) continue;
    const std::string meet = check_util::SwitchMiss(*n, g);
    if (meet.empty()) continue;
    const std::string gpu = "gpu" + std::to_string(g.index);
    out->push_back(Make("rail.affinity", n->rail, Severity::kDegraded,
                        RailNic(*n) + " (" + n->pci + ") and " + gpu + " (" + g.bdf +
                            ") are not under one PCIe switch: " + meet + "; expected GPU " +
                            std::to_string(g.index) + " beside the NIC of rail " +
                            std::to_string(n->rail),
                        RailNic(*n) + " not beside " + gpu));
  }
}

// gather.timeout. Reads: health.read_timeout_ms (through the facts' timeouts).
void CheckGatherTimeout(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  for (const GatherTimeout& t : in.facts->timeouts) {
    const std::string what = t.path.empty() ? "starting" : "reading " + t.path;
    out->push_back(
        Make("gather.timeout", t.rail, Severity::kDown,
             t.task + ": " + what + " did not finish within " + std::to_string(t.limit_ms) + " ms",
             t.rail >= 0 ? t.task + " sysfs read timed out" : "GPU scan timed out"));
  }
}

}  // namespace railguard::health
