// SPDX-License-Identifier: GPL-2.0-or-later
// railctl: the admin's command line. A table of subcommands, each a thin handler over the
// railguard library.
#include <cstdio>
#include <cstring>
#include <exception>

#include "cli/commands.h"

namespace {

struct Command {
  const char* group;
  const char* name;
  const char* help;
  int (*run)(int argc, char** argv);
};

const Command kCommands[] = {
    {"topology", "validate", "check a rail topology YAML; list every problem with file:line:col",
     railguard::cli::TopologyValidate},
    {"topology", "show", "summarize a rail topology, or list its nodes / one node's rails",
     railguard::cli::TopologyShow},
    {"topology", "export", "write topology.conf for Slurm's topology/tree or topology/block",
     railguard::cli::TopologyExport},
    {"topology", "discover", "infer the rail topology from ibnetdiscover output; audit cabling",
     railguard::cli::TopologyDiscover},
    {"topology", "audit", "check the fabric's cabling (a capture, or --live) against the rail YAML",
     railguard::cli::TopologyAudit},
    {"topology", "rails", "rail order (GPU -> nearest NIC) from hwloc, live or from XML",
     railguard::cli::TopologyRails},
    {"topology", "simulate", "generate ibnetdiscover output for a topology, with injected faults",
     railguard::cli::TopologySimulate},
    {"fabric", "sweep", "every switch and HCA port's counters, width and speed, in SU x rail terms",
     railguard::cli::FabricSweep},
    {"fabric", "evidence", "fabric evidence for railcheck from a sweep's JSON", railguard::cli::FabricEvidence},
    // A command of one word (railctl report [options]) has an empty name.
    {"report", "", "fleet fabric health: suspects, free capacity; text, JSON, HTML, Prometheus",
     railguard::cli::Report},
    {"job", "", "what one job got from the fabric, rail by rail: slow, waiting and erring rails",
     railguard::cli::Job},
};

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: railctl <group> <command> [options]\n"
               "       railctl <group> <command> --help\n\ncommands:\n");
  for (const Command& c : kCommands)
    std::fprintf(out, "  %-9s %-9s %s\n", c.group, c.name, c.help);
  std::fprintf(out, "\nexit codes: 0 ok, 1 invalid input or findings, 2 usage error\n");
}

// Runs `c` on its own arguments (`argv[0]` is its name); an exception is an internal error.
int Run(const Command& c, int argc, char** argv) {
  try {
    return c.run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "railctl: %s%s%s: internal error: %s\n", c.group,
                 c.name[0] ? " " : "", c.name, e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
                    !std::strcmp(argv[1], "help"))) {
    Usage(stdout);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (argc >= 2 && c.name[0] == '\0' && std::strcmp(argv[1], c.group) == 0)
      return Run(c, argc - 1, argv + 1);
  }
  if (argc < 3) {
    Usage(stderr);
    return 2;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.group) == 0 && std::strcmp(argv[2], c.name) == 0)
      return Run(c, argc - 2, argv + 2);
  }
  std::fprintf(stderr, "railctl: unknown command '%s %s'\n\n", argv[1], argv[2]);
  Usage(stderr);
  return 2;
}
