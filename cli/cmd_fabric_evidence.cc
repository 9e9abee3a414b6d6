// SPDX-License-Identifier: GPL-2.0-or-later
// railctl fabric evidence: the fabric evidence file railcheck reads (health.fabric_evidence),
// made from the JSON of `railctl fabric sweep --json`.
#include <cstdio>
#include <string>

#include "base/args.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "report/evidence_from_sweep.h"
#include "report/sweep_input.h"
#include "topo/topology_yaml.h"

namespace railguard::cli {
namespace {

const char kUsage[] =
    "usage: railctl fabric evidence TOPOLOGY.yaml SWEEP.json [-o OUT]\n"
    "Writes the fabric evidence railcheck reads (railguard.yaml health.fabric_evidence) from\n"
    "the JSON of `railctl fabric sweep --json`: per node and rail the problems of the switch\n"
    "end of its link (error counters, width or speed the leaf negotiated down), and the leaves\n"
    "with many ports erring (they restrict their one-hop domain). The evidence's time is the\n"
    "sweep's summary.time (its file's modification time for older sweeps); railcheck\n"
    "ignores evidence older than health.fabric_evidence_max_age_seconds. Write it\n"
    "atomically with -o.\n"
    "Exit: 0 written, 1 the topology or sweep could not be read or OUT not written, 2 usage.\n";

}  // namespace

int FabricEvidence(int argc, char** argv) {
  const Handler h("railctl fabric evidence", kUsage, argc, argv, {{"output", 'o', true}});
  if (h.done()) return h.exit_code();
  const std::vector<std::string>& pos = h.args().positional();
  if (pos.size() != 2) return h.UsageError("expected TOPOLOGY.yaml and SWEEP.json");
  topo::Topology topology;
  Diags diags;
  if (!topo::LoadTopologyFile(pos[0], &topology, &diags)) {
    std::fputs(FormatDiags(diags).c_str(), stderr);
    return h.Fail("cannot use the topology " + pos[0]);
  }
  report::SweepInput sweep;
  if (!report::LoadSweepJson(pos[1], &sweep, &diags)) {
    std::fputs(FormatDiags(diags).c_str(), stderr);
    return h.Fail("cannot use the sweep " + pos[1]);
  }
  return h.Write(h.args().Get("output"),
                 wire::FabricEvidenceToJson(report::EvidenceFromSweep(sweep, topology)));
}

}  // namespace railguard::cli
