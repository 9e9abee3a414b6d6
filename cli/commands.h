// SPDX-License-Identifier: GPL-2.0-or-later
// railctl subcommand handlers. Each parses its own flags and returns the exit code:
// 0 = ok, 1 = invalid input or findings, 2 = usage error.
#pragma once

namespace railguard::cli {

// argv[0] is the subcommand name ("validate", "discover", ...); flags follow.
int TopologyValidate(int argc, char** argv);
int TopologyShow(int argc, char** argv);
int TopologyExport(int argc, char** argv);
int TopologyDiscover(int argc, char** argv);   // cli/cmd_discover.cc
int TopologyRails(int argc, char** argv);      // cli/cmd_rails.cc
int TopologySimulate(int argc, char** argv);
int TopologyAudit(int argc, char** argv);      // cli/cmd_discover.cc: the fabric against the plan   // cli/cmd_discover.cc: generated fabric dumps
int Report(int argc, char** argv);             // cli/cmd_report.cc: railctl report (one word)
int FabricSweep(int argc, char** argv);        // cli/cmd_fabric.cc: PMA counters of every port
int FabricEvidence(int argc, char** argv);     // cli/cmd_fabric_evidence.cc: for railcheck
int Job(int argc, char** argv);                // cli/cmd_job.cc: one job's fabric record

}  // namespace railguard::cli
