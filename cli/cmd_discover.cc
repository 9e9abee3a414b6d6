// SPDX-License-Identifier: GPL-2.0-or-later
// railctl topology discover | simulate.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "base/args.h"
#include "base/names.h"
#include "base/numbers.h"
#include "base/text_file.h"
#include "base/words.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "cli/topology_json.h"
#include "fabric/ibmad_source.h"
#include "fabric/live_discover.h"
#include "topo/capture.h"
#include "topo/discover.h"
#include "topo/discover_audit.h"
#include "topo/fabric_sim.h"
#include "topo/hostlist.h"
#include "topo/plan_audit.h"
#include "topo/topology_yaml.h"

namespace railguard::cli {
namespace {

using ojson = nlohmann::ordered_json;  // keys in the order a reader expects

const char kDiscoverUsage[] =
    "usage: railctl topology discover DUMP [--format FORMAT] [-o OUT.yaml] [--json]\n"
    "         [--cluster NAME] [--node-type NAME] [--gpus N] [--rail-order a,b,...]\n"
    "         [--node-map FILE] [--exclude REGEX] [--all]\n"
    "       railctl topology discover --live [--ca NAME] [--ca-port N] [options as above]\n"
    "Infers rails, scalable units, leaves and spines from a fabric capture (DUMP, or - for\n"
    "stdin) and audits the cabling against them. DUMP is `ibnetdiscover` output (plain or\n"
    "grouped), its ports report, `iblinkinfo` output (by node or one line per port) or\n"
    "ibdiagnet's ibdiagnet2.lst, as saved from a terminal too (prompts, PuTTY or script(1)\n"
    "logs, CRLF, a byte-order mark).\n"
    "  --format FORMAT    ibnetdiscover, ports, iblinkinfo or ibdiagnet: read DUMP as that\n"
    "                     (default: auto, told by DUMP's first line of output)\n"
    "  --live             discover the fabric itself through libibnetdisc instead of a DUMP\n"
    "                     (same inference and findings as on ibnetdiscover's dump of it)\n"
    "  --ca NAME          with --live: local HCA to discover from (default: libibumad's first)\n"
    "  --ca-port N        with --live: its port, 1..254 (default: its first active one)\n"
    "  -o OUT.yaml        write the topology there (atomically); default: stdout\n"
    "  --json             print {cluster, sus, rails, spines, switches, findings, summary} on\n"
    "                     stdout instead of the YAML (which still goes to -o if given)\n"
    "  --cluster NAME     cluster name (default: discovered)\n"
    "  --node-type NAME   name of the node type all hosts get (default: gpu-node)\n"
    "  --gpus N           GPUs of that node type (default: 8)\n"
    "  --rail-order LIST  HCA names in rail order, a,b,... or the [a, b, ...] list that\n"
    "                     `railctl topology rails` prints; once per NIC naming when hosts of\n"
    "                     some SUs name their HCAs differently (HCA-1.. vs mlx5_0..)\n"
    "                     (default: natural order of the HCA names: mlx5_0 < mlx5_3 < mlx5_10)\n"
    "  --node-map FILE    GUID -> \"<host> [<device>]\" lines (\"H-<guid> <host>\" or\n"
    "                     \"0x<guid> \\\"<host>\\\"\") naming HCAs left with the default "
    "description\n"
    "  --exclude REGEX    CAs whose description matches are not compute nodes\n"
    "Findings go to stderr as <kind>: <message>, those that need action first; a kind\n"
    "with more than 3 findings is one line with the count and the first 3 (--all: every\n"
    "finding on a line of its own); then a summary line. Kinds:\n"
    "  ibnetdiscover-error not-rail-optimized not-rail-fabric rail-alignment su-grouping\n"
    "  spine-plane tier-name missing-leaf duplicate-leaf stray-leaf rail-mismatch\n"
    "  su-mismatch missing-link duplicate-hca host-name stray-hca nic-naming unnamed-hca\n"
    "  link-speed link-disagree uplink-deficit leaf-link loopback service-hosts non-compute\n"
    "  (see topo/discover.h)\n"
    "Exit: 0 no findings (or only non-compute, service-hosts and not-rail-fabric ones;\n"
    "they describe the fabric), 1 findings or invalid input, 2 usage error.\n";

const char kSimulateUsage[] =
    "usage: railctl topology simulate TOPO.yaml [-o OUT] [--uplinks N] [--rail-planes]\n"
    "         [--cores N] [FAULT...]\n"
    "Writes the `ibnetdiscover` output of the rail-optimized fabric TOPO.yaml describes.\n"
    "  -o OUT                      write there (atomically); default: stdout\n"
    "  --uplinks N                 cables from every leaf to every spine (default: 1)\n"
    "  --rail-planes               one spine plane per rail: spine i serves rail i % rails\n"
    "                              only (the spine count must be a multiple of the rails)\n"
    "  --cores N                   N core switches above the spines, each spine cabled once\n"
    "                              to each (a third tier: rail planes become one subnet); the\n"
    "                              YAML's own `cores:` are used when it lists some\n"
    "Faults (each may be repeated; RAIL is a rail index, a rail name or a NIC name):\n"
    "  --swap NODE:RAILa:RAILb     the node's cables of two rails are swapped at the leaves\n"
    "  --drop NODE:RAIL            the node's cable on RAIL is missing\n"
    "  --drop-leaf SU:RAIL         the SU's leaf of RAIL is missing, with all its cables\n"
    "  --unnamed NODE:RAIL         the HCA keeps its default description\n"
    "  --cross-su NODE:RAIL:SU     the HCA is cabled to SU's leaf of that rail\n"
    "  --slow NODE:RAIL:LINK       the HCA's link trains at LINK (e.g. 4xHDR)\n"
    "  --ufm HOST                  a UFM host \"HOST mlx5_0\" on the first spine\n"
    "  --sharp N                   N SHARP aggregation nodes, one on each of the first N leaves\n"
    "  --drop-uplinks SU:RAIL:N    N uplinks of the SU's leaf of RAIL are missing\n"
    "  --host-name NODE:NAME       the node's HCAs say NAME (localhost, ubuntu, (none), or a\n"
    "                              name another node has too)\n"
    "  --empty NODE                the node's slot is empty: none of its HCAs is cabled\n"
    "  --appliance HOST:SU:RAILS   a non-compute host (UFM, storage) with one HCA \"HOST mlx5_K\"\n"
    "                              on the SU's leaf of each RAIL (a,b,...), after its hosts\n"
    "  --move NODE:RAIL:PORT       the HCA is cabled to PORT of its own leaf (a free port\n"
    "                              above the leaf's hosts)\n"
    "  --service PREFIX:HOSTS:HCAS a management leaf group: HCAS leaves PREFIX-leafK cabled\n"
    "                              to every spine, hosts PREFIX01.. with HCAS HCAs each\n"
    "Exit: 0 ok, 1 invalid topology or write error, 2 usage error.\n";

const char* const kFaultFlags[] = {"swap",  "drop",      "drop-leaf", "unnamed",      "cross-su",
                                   "slow",  "ufm",       "sharp",     "drop-uplinks", "host-name",
                                   "empty", "appliance", "service",   "move"};

ojson FindingJson(const topo::Finding& f) {
  return {{"kind", f.kind}, {"node", f.node}, {"hca", f.hca},        {"switch", f.switch_name},
          {"guid", f.guid}, {"port", f.port}, {"message", f.message}};
}

ojson DiscoveryJson(const topo::Discovery& d) {
  const topo::Topology& t = d.topology;
  ojson rails = RailsJson(t);
  ojson sus = ScalableUnitsJson(t);
  ojson spines = SpinesJson(t);
  ojson switches = ojson::array();
  for (const topo::SwitchReport& r : d.switches)
    switches.push_back({{"name", r.name},
                        {"guid", r.guid},
                        {"description", r.description},
                        {"ports", r.ports},
                        {"role", r.tier},
                        {"su", r.su},
                        {"rail", r.rail},
                        {"hosts", CompressHostlistSorted(r.hosts)},
                        {"host_count", r.hosts.size()},
                        {"unnamed", r.unnamed},
                        {"non_compute", r.non_compute},
                        {"switch_links", r.switch_links}});
  ojson findings = ojson::array();
  for (const topo::Finding& f : d.findings) findings.push_back(FindingJson(f));
  const topo::DiscoveryCounts& c = d.counts;
  ojson summary = {{"switches", c.switches}, {"leaves", c.leaves},   {"spines", c.spines},
                   {"cores", c.cores},       {"cas", c.cas},         {"hcas", c.hcas},
                   {"hosts", c.hosts},       {"unnamed", c.unnamed}, {"non_compute", c.non_compute},
                   {"links", c.links}};
  return {{"cluster", t.cluster}, {"sus", sus},         {"rails", rails},
          {"findings", findings}, {"spines", spines},   {"cores", CoresJson(t)},
          {"switches", switches}, {"summary", summary}, {"domains", DomainsJson(t)}};
}

// Reads DUMP ("-" = stdin) in `format` and parses it into `*fabric`, `*read_as` the format it
// was read as; reports parse errors on stderr, saying which format the capture was read as.
bool ReadDump(const std::string& path, topo::CaptureFormat format, topo::IbFabric* fabric,
              topo::CaptureFormat* read_as_out) {
  Diags errors;
  bool ok;
  topo::CaptureFormat read_as = format;
  if (path == "-") {
    std::string text;
    ok = ReadTextFd(0, "<stdin>", kIbnetdiscoverInput, &text, &errors) &&
         topo::ParseCapture(text, "<stdin>", format, fabric, &errors, &read_as);
  } else {
    ok = topo::ParseCaptureFile(path, format, fabric, &errors, &read_as);
  }
  if (!ok) {
    // When the format was guessed, say which guess the errors come from.
    std::string suffix = "; nothing discovered";
    if (format == topo::CaptureFormat::kAuto && read_as != topo::CaptureFormat::kAuto)
      suffix += " (read as " + topo::CaptureFormatTitle(read_as) + "; --format to say otherwise)";
    ReportFileErrors(path, errors, suffix.c_str());
  }
  *read_as_out = read_as;
  return ok;
}

// "<dump>: read as iblinkinfo output; skipped a shell prompt and command (line 1)": what a
// user should know about how DUMP was read, or "" for plain ibnetdiscover output.
std::string HowRead(const std::string& dump, topo::CaptureFormat read_as,
                    const topo::IbFabric& fabric) {
  if (read_as == topo::CaptureFormat::kIbnetdiscover && fabric.capture_notes.empty()) return "";
  std::string line = dump + ": read as " + topo::CaptureFormatTitle(read_as);
  for (size_t i = 0; i < fabric.capture_notes.size(); ++i)
    line += (i == 0 ? "; skipped " : ", ") + fabric.capture_notes[i];
  return line + "\n";
}

// Where the fabric comes from: a capture file, or the live fabric (--live, --ca, --ca-port).
struct FabricInput {
  bool live = false;
  fabric::IbmadOptions mad;
  topo::CaptureFormat format = topo::CaptureFormat::kAuto;
  std::string path;   // the capture; "" with --live
  std::string label;  // the capture, or "live fabric (<ca>)"
};

// Reads --live, --ca, --ca-port and --format of `args` (CAPTURE: `path`) into `*in`; 0, or the
// usage error's exit code.
int ParseFabricInput(const Handler& h, const Args& args, const std::string& path,
                     FabricInput* in) {
  in->live = args.Has("live");
  in->path = path;
  for (const char* flag : {"ca", "ca-port"})
    if (!in->live && args.Has(flag))
      return h.UsageError(std::string("--") + flag + " needs --live; expected --live --" + flag +
                          " " + (std::string(flag) == "ca" ? "NAME" : "N"));
  if (args.Has("ca-port") && !ParseDigits(args.Get("ca-port"), 1, 254, &in->mad.ca_port, 9))
    return h.UsageError("invalid --ca-port '" + args.Get("ca-port") +
                        "'; expected an integer from 1 to 254");
  in->mad.ca = args.Get("ca");
  if (in->live && args.Has("format"))
    return h.UsageError("--format reads a capture, not --live; expected one of them");
  if (args.Has("format") && !topo::ParseCaptureFormatName(args.Get("format"), &in->format))
    return h.UsageError("invalid --format '" + args.Get("format") +
                        "'; expected ibnetdiscover, ports, iblinkinfo, ibdiagnet or auto");
  if (args.Has("ca") && !IsSafeName(in->mad.ca))
    return h.UsageError("invalid --ca '" + in->mad.ca +
                        "'; expected an HCA name such as mlx5_0 (letters, digits, '-', '_', '.')");
  in->label = in->live ? "live fabric (" +
                             (in->mad.ca.empty() ? std::string("default HCA") : in->mad.ca) + ")"
                       : path;
  return 0;
}

// Reads the fabric `in` names into `*fabric` (a capture: the line saying how it was read goes
// to stderr); 0, or the exit code of the failure, `what_not` ending its message.
int ReadFabricInput(const Handler& h, FabricInput* in, topo::IbFabric* fabric,
                    const char* what_not) {
  if (in->live) {
    std::unique_ptr<fabric::FabricSource> source = fabric::MakeIbmadSource(in->mad);
    int smps = 0;
    std::string err;
    if (!fabric::DiscoverLive(source.get(), fabric, &smps, &err))
      return h.Fail(err + "; " + what_not);
    return 0;
  }
  if (!ReadDump(in->path, in->format, fabric, &in->format)) return 1;
  std::fputs(HowRead(in->path, in->format, *fabric).c_str(), stderr);
  return 0;
}

}  // namespace

int TopologyDiscover(int argc, char** argv) {
  const Handler h("railctl topology discover", kDiscoverUsage, argc, argv,
                  {{"output", 'o', true}, {"json", 0, false}, {"all", 0, false}, {"cluster", 0, true},
                   {"node-type", 0, true}, {"gpus", 0, true}, {"rail-order", 0, true},
                   {"node-map", 0, true}, {"exclude", 0, true}, {"live", 0, false},
                   {"ca", 0, true}, {"ca-port", 0, true}, {"format", 0, true}});
  if (h.done()) return h.exit_code();
  const Args& args = h.args();
  const bool live = args.Has("live");
  if (int rc = live ? h.ExpectNone() : h.ExpectOne("DUMP")) return rc;
  FabricInput input;
  if (int rc = ParseFabricInput(h, args, live ? std::string() : args.positional()[0], &input))
    return rc;

  topo::DiscoverOptions opts;
  opts.cluster = args.Get("cluster", opts.cluster);
  opts.node_type = args.Get("node-type", opts.node_type);
  for (const auto& [flag, value] :
       {std::make_pair("--cluster", opts.cluster), std::make_pair("--node-type", opts.node_type)}) {
    if (!IsSafeName(value))
      return h.UsageError(std::string("invalid ") + flag + " '" + value +
                          "'; expected 1 to 64 letters, digits, '-', '_' or '.'");
  }
  if (args.Has("gpus") && !ParseDigits(args.Get("gpus"), 0, 64, &opts.gpus, 9))
    return h.UsageError("invalid --gpus '" + args.Get("gpus") +
                        "'; expected an integer from 0 to 64");
  // Each --rail-order is one NIC naming's order: "mlx5_0,mlx5_3", or the "[mlx5_0, mlx5_3]"
  // list `railctl topology rails` prints.
  std::set<std::string> seen;
  for (const std::string& value : args.GetAll("rail-order")) {
    std::string list = value;
    if (list.size() >= 2 && list.front() == '[' && list.back() == ']')
      list = list.substr(1, list.size() - 2);
    std::vector<std::string> names;
    size_t start = 0;
    while (true) {
      const size_t comma = list.find(',', start);
      std::string name = list.substr(start, comma - start);
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      if (!IsSafeName(name) || !seen.insert(name).second)
        return h.UsageError("invalid --rail-order '" + value +
                            "'; expected distinct HCA names separated by commas, e.g. "
                            "mlx5_0,mlx5_3,mlx5_4");
      names.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (opts.rail_order.empty()) {
      opts.rail_order = std::move(names);
    } else {
      opts.other_rail_orders.push_back(std::move(names));
    }
  }
  if (args.Has("exclude")) {
    std::string err;
    if (!topo::CompileExclude(args.Get("exclude"), &opts.exclude, &err))
      return h.UsageError("--exclude: " + err);
  }
  if (args.Has("node-map")) {
    Diags errors;
    if (!topo::LoadNodeMapFile(args.Get("node-map"), &opts.node_map, &errors)) {
      std::fputs(FormatDiags(errors).c_str(), stderr);
      return 1;
    }
  }

  const std::string& dump = input.label;
  topo::IbFabric fabric;
  if (int rc = ReadFabricInput(h, &input, &fabric, "nothing discovered")) return rc;
  const topo::Discovery d = topo::Discover(fabric, opts);
  std::fputs(topo::FindingsText(d.findings, args.Has("all")).c_str(), stderr);
  std::fprintf(stderr, "%s: %s\n", dump.c_str(), topo::DiscoverySummary(d).c_str());

  // Non-compute CAs (UFM, SHARP) are reported but are not faults: they alone exit 0.
  int rc = 0;
  for (const topo::Finding& f : d.findings)
    if (f.kind != "non-compute" && f.kind != "service-hosts" && f.kind != "not-rail-fabric") rc = 1;
  const std::string out_path = args.Get("output");
  if (d.topology.sus.empty()) {
    rc = h.Fail("no topology written: no scalable unit of rail-optimized hosts was found");
  } else {
    const std::string yaml = topo::EmitTopologyYaml(d.topology);
    // The result must load again; if the fabric's names defeat that, say so.
    topo::Topology check;
    Diags diags;
    if (!topo::LoadTopologyString(yaml, "<discovered>", &check, &diags)) {
      std::fputs(FormatDiags(diags).c_str(), stderr);
      rc = h.Fail("the discovered topology does not validate; edit it before use");
    }
    if ((!args.Has("json") || !out_path.empty()) && h.Write(out_path, yaml) != 0) return 1;
  }
  if (args.Has("json")) std::printf("%s\n", DiscoveryJson(d).dump(2).c_str());
  return rc;
}

namespace {

const char kAuditUsage[] =
    "usage: railctl topology audit PLAN.yaml CAPTURE [--format FORMAT] [--all] [--json]\n"
    "       railctl topology audit PLAN.yaml --live [--ca NAME] [--ca-port N] [--all] [--json]\n"
    "Checks the fabric's cabling against the plan it was cabled from: the rail topology YAML\n"
    "(leaves by name, or by guid: where it gives one) against a capture in any format\n"
    "`topology discover` reads, or the live fabric. Each difference is a line:\n"
    "  missing-switch  a planned leaf is not in the fabric\n"
    "  missing-hca     a node's NIC of a rail (\"<node> <nic>\") is not in the fabric\n"
    "  missing-link    it is there without a link to a switch\n"
    "  swapped         two NICs on each other's leaves (one line for the pair)\n"
    "  wrong-leaf      a NIC on another switch than its rail's leaf\n"
    "  wrong-speed     a NIC's link below its rail's width or speed\n"
    "  extra           a CA on a planned leaf that the plan does not put there\n"
    "A kind with more than 3 differences is one line with the count and the first 3; --all\n"
    "lists each. The YAML has no port numbers: a cable moved to another port of the right\n"
    "leaf is not a difference.\n"
    "  --format FORMAT    ibnetdiscover, ports, iblinkinfo or ibdiagnet (default: auto)\n"
    "  --live             the live fabric through libibnetdisc instead of a CAPTURE\n"
    "  --ca NAME, --ca-port N  with --live: the local HCA and port to discover from\n"
    "  --json             {\"plan\", \"capture\", \"differences\": [{kind, node, hca, switch,\n"
    "                     guid, port, message}]} on stdout\n"
    "Exit: 0 cabled as planned, 1 differences or unreadable input, 2 usage error.\n";

}  // namespace

int TopologyAudit(int argc, char** argv) {
  const Handler h("railctl topology audit", kAuditUsage, argc, argv,
                  {{"format", 0, true}, {"all", 0, false}, {"json", 0, false},
                   {"live", 0, false}, {"ca", 0, true}, {"ca-port", 0, true}});
  if (h.done()) return h.exit_code();
  const Args& args = h.args();
  const bool live = args.Has("live");
  const size_t want = live ? 1 : 2;
  if (args.positional().size() != want)
    return h.UsageError(live ? "expected PLAN.yaml with --live" : "expected PLAN.yaml CAPTURE");
  FabricInput input;
  if (int rc = ParseFabricInput(h, args, live ? std::string() : args.positional()[1], &input))
    return rc;
  const std::string& plan_path = args.positional()[0];
  topo::Topology plan;
  Diags diags;
  if (!topo::LoadTopologyFile(plan_path, &plan, &diags)) {
    std::fputs(FormatDiags(diags).c_str(), stderr);
    return h.Fail("the plan " + plan_path + " does not validate; nothing audited");
  }
  const std::string& capture = input.label;
  topo::IbFabric fabric;
  if (int rc = ReadFabricInput(h, &input, &fabric, "nothing audited")) return rc;
  const std::vector<topo::Finding> diffs = topo::AuditAgainstPlan(plan, fabric);
  if (args.Has("json")) {
    ojson list = ojson::array();
    for (const topo::Finding& f : diffs) list.push_back(FindingJson(f));
    std::printf("%s\n", ojson({{"plan", plan_path}, {"capture", capture}, {"differences", list}})
                            .dump(2)
                            .c_str());
  } else {
    std::fputs(topo::FindingsText(diffs, args.Has("all")).c_str(), stdout);
    size_t nics = 0;
    for (const topo::ScalableUnit& su : plan.sus)
      if (const topo::NodeType* t = plan.FindType(su.node_type)) nics += su.nodes.size() * t->nics.size();
    std::printf("%s against %s: %s\n", capture.c_str(), plan_path.c_str(),
                diffs.empty() ? ("cabled as planned (" + std::to_string(nics) + " NICs)").c_str()
                              : (Plural(static_cast<long>(diffs.size()), "difference")).c_str());
  }
  return diffs.empty() ? 0 : 1;
}

int TopologySimulate(int argc, char** argv) {
  std::vector<FlagSpec> specs = {
      {"output", 'o', true}, {"uplinks", 0, true}, {"rail-planes", 0, false}, {"cores", 0, true}};
  for (const char* f : kFaultFlags) specs.push_back({f, 0, true});
  const Handler h("railctl topology simulate", kSimulateUsage, argc, argv, specs);
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectOne("TOPO.yaml")) return rc;
  const Args& args = h.args();
  topo::SimOptions opts;
  if (args.Has("uplinks") && !ParseDigits(args.Get("uplinks"), 0, 4096, &opts.uplinks, 9))
    return h.UsageError("invalid --uplinks '" + args.Get("uplinks") +
                        "'; expected an integer from 0 to 4096");
  opts.rail_planes = args.Has("rail-planes");
  if (args.Has("cores") && !ParseDigits(args.Get("cores"), 0, 254, &opts.cores, 9))
    return h.UsageError("invalid --cores '" + args.Get("cores") +
                        "'; expected an integer from 0 to 254");

  const std::string path = args.positional()[0];
  topo::Topology t;
  if (!LoadTopologyOrReport(path, &t)) return 1;
  for (const char* flag : kFaultFlags) {
    for (const std::string& value : args.GetAll(flag)) {
      std::string err;
      if (!topo::AddSimFault(t, flag, value, &opts.faults, &err))
        return h.UsageError(err);
    }
  }
  // Counts that only the topology can bound are usage errors too.
  size_t leaves = 0;
  for (const topo::ScalableUnit& su : t.sus) leaves += su.leaves.size();
  if (opts.faults.sharp_nodes > static_cast<int>(leaves))
    return h.UsageError("--sharp " + std::to_string(opts.faults.sharp_nodes) + ": only " +
                        std::to_string(leaves) + " leaves; expected N from 1 to " +
                        std::to_string(leaves));
  const int spines = static_cast<int>(t.spines.size());
  const int rails = static_cast<int>(t.rails.size());
  const int uplinks =
      (opts.rail_planes && rails > 0 ? spines / rails : spines) * opts.uplinks;
  for (const topo::SimFaults::UplinkCut& c : opts.faults.uplink_cuts) {
    if (c.count > uplinks)
      return h.UsageError("--drop-uplinks " + c.su + ":" + std::to_string(c.rail) + ":" +
                          std::to_string(c.count) + ": a leaf has only " +
                          std::to_string(uplinks) + " uplinks; expected SU:RAIL:N with N " +
                          "from 1 to " + std::to_string(uplinks));
  }
  std::string text;
  std::string err;
  if (!topo::SimulateFabric(t, opts, &text, &err)) return h.Fail(path + ": " + err);
  return h.Write(args.Get("output"), text);
}

}  // namespace railguard::cli
