// SPDX-License-Identifier: GPL-2.0-or-later
// What every railctl subcommand handler does around its own work: parse the flags or print
// the usage error, report a failure, load a topology with its diagnostics, write the output.
#pragma once

#include <string>
#include <vector>

#include "base/args.h"
#include "base/diag.h"
#include "config/config.h"
#include "topo/model.h"

namespace railguard::cli {

// One handler's flags, parsed. `name` is the prefix of every message ("railctl topology
// rails"), `usage` the text printed by --help and after a usage error. A "help" flag (-h)
// is added to `specs`.
class Handler {
 public:
  Handler(const char* name, const char* usage, int argc, char** argv,
          std::vector<FlagSpec> specs);

  // True when the handler must return exit_code() at once: --help was given (usage printed
  // on stdout, 0) or a flag was wrong (usage error on stderr, 2).
  bool done() const { return done_; }
  int exit_code() const { return exit_code_; }
  const Args& args() const { return args_; }

  // Prints "<name>: <msg>\n<usage>" to stderr; returns 2.
  int UsageError(const std::string& msg) const;
  // Prints "<name>: <msg>\n" to stderr; returns 1.
  int Fail(const std::string& msg) const;
  // A usage error unless exactly one positional argument was given ("expected exactly one
  // <what>"); returns 0 when there is one.
  int ExpectOne(const char* what) const;
  // A usage error when any positional argument was given ("unexpected argument 'X'").
  int ExpectNone() const;
  // Writes `text` to `path` (WriteOutput: empty or "-" is stdout); on failure prints
  // "<name>: <error>" and returns 1, else 0.
  int Write(const std::string& path, const std::string& text) const;

 private:
  const char* name_;
  const char* usage_;
  Args args_;
  bool done_ = false;
  int exit_code_ = 0;
};

// `s` padded with spaces to `width` columns, or followed by one space when it is as wide or
// wider: a cell of railctl's text tables.
std::string Pad(const std::string& s, size_t width);

// Prints every diagnostic of `diags` to stderr, then "<path>: N error(s)<suffix>".
void ReportFileErrors(const std::string& path, const Diags& diags, const char* suffix = "");

// Loads the topology at `path`; on failure reports it with ReportFileErrors and returns false.
bool LoadTopologyOrReport(const std::string& path, topo::Topology* t);

// The site's railguard.yaml as `railctl report` and `railctl job` take it: --config FILE,
// else --topology FILE alone (`config` then keeps its defaults, which are railcheck's), else
// the railguard.yaml railcheck would find (config/locate.h), on a configless node too.
struct SiteConfig {
  std::string config_path;  // "" with --topology alone
  std::string topology_path;
  Config config;
};

// Fills `*out` from the handler's --config and --topology. False with `*err` (what to say;
// the config's diagnostics are on stderr already) when no config is found or it is invalid.
bool ResolveSiteConfig(const Args& args, SiteConfig* out, std::string* err);

// The topology of `site`, read as the other users of railguard.yaml read it (with a config)
// or as given (--topology alone). False with `*err`, its diagnostics on stderr.
bool LoadSiteTopology(const SiteConfig& site, topo::Topology* out, std::string* err);

// The files named by `given` (an event log or a job log per path), each with "%n" expanded for
// every node of the topology (a log per node on a shared folder); paths without it as given.
std::vector<std::string> PerNodePaths(const std::vector<std::string>& given,
                                      const topo::Topology& t);

}  // namespace railguard::cli
