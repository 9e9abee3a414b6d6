// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/handler_util.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "config/load.h"
#include "config/locate.h"
#include "healthcheck/check_table.h"
#include "healthcheck/slurm_api.h"
#include "topo/topology_yaml.h"

namespace railguard::cli {
namespace {

std::vector<FlagSpec> WithHelp(std::vector<FlagSpec> specs) {
  specs.push_back({"help", 'h', false});
  return specs;
}

}  // namespace

Handler::Handler(const char* name, const char* usage, int argc, char** argv,
                 std::vector<FlagSpec> specs)
    : name_(name), usage_(usage), args_(argc, argv, WithHelp(std::move(specs))) {
  if (args_.Has("help")) {
    std::fputs(usage_, stdout);
    done_ = true;
    exit_code_ = 0;
  } else if (!args_.ok()) {
    done_ = true;
    exit_code_ = UsageError(args_.error());
  }
}

int Handler::UsageError(const std::string& msg) const {
  std::fprintf(stderr, "%s: %s\n%s", name_, msg.c_str(), usage_);
  return 2;
}

int Handler::Fail(const std::string& msg) const {
  std::fprintf(stderr, "%s: %s\n", name_, msg.c_str());
  return 1;
}

int Handler::ExpectOne(const char* what) const {
  if (args_.positional().size() == 1) return 0;
  return UsageError(std::string("expected exactly one ") + what);
}

int Handler::ExpectNone() const {
  if (args_.positional().empty()) return 0;
  return UsageError("unexpected argument '" + args_.positional()[0] + "'");
}

int Handler::Write(const std::string& path, const std::string& text) const {
  std::string err;
  return WriteOutput(path, text, &err) ? 0 : Fail(err);
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

void ReportFileErrors(const std::string& path, const Diags& diags, const char* suffix) {
  std::fputs(FormatDiags(diags).c_str(), stderr);
  std::fprintf(stderr, "%s: %zu error%s%s\n", path.c_str(), diags.size(),
               diags.size() == 1 ? "" : "s", suffix);
}

bool LoadTopologyOrReport(const std::string& path, topo::Topology* t) {
  Diags diags;
  if (topo::LoadTopologyFile(path, t, &diags)) return true;
  ReportFileErrors(path, diags);
  return false;
}

bool ResolveSiteConfig(const Args& args, SiteConfig* out, std::string* err) {
  out->topology_path = args.Get("topology");
  out->config_path = args.Get("config");
  if (!args.Has("topology") && !args.Has("config")) {
    const ConfigSearch found =
        FindConfig("", std::getenv("SLURM_CONF"), health::LibslurmDefaultConf());
    if (!found.found) {
      *err = ConfigNotFound(found) + "; or give --topology FILE.yaml";
      return false;
    }
    out->config_path = found.path;
  }
  if (out->config_path.empty()) return true;
  Diags diags;
  if (!LoadSetupConfig(out->config_path, &out->config, &diags, &health::CheckCatalogOfTable())) {
    std::fputs(FormatDiags(diags).c_str(), stderr);
    *err = "cannot use the config " + out->config_path;
    return false;
  }
  if (out->topology_path.empty()) out->topology_path = out->config.topology_path;
  return true;
}

bool LoadSiteTopology(const SiteConfig& site, topo::Topology* out, std::string* err) {
  Diags diags;
  if (site.config_path.empty() ? topo::LoadTopologyFile(site.topology_path, out, &diags)
                               : LoadSetupTopology(site.topology_path, out, &diags))
    return true;
  std::fputs(FormatDiags(diags).c_str(), stderr);
  *err = "cannot use the topology " + site.topology_path;
  return false;
}

std::vector<std::string> PerNodePaths(const std::vector<std::string>& given,
                                      const topo::Topology& t) {
  std::vector<std::string> out;
  for (const std::string& g : given) {
    if (g.find("%n") == std::string::npos) {
      out.push_back(g);
      continue;
    }
    for (const topo::ScalableUnit& su : t.sus) {
      for (const std::string& node : su.nodes) {
        std::string p;
        for (size_t i = 0; i < g.size(); ++i) {
          if (g.compare(i, 2, "%n") == 0) {
            p += node;
            ++i;
          } else {
            p.push_back(g[i]);
          }
        }
        out.push_back(p);
      }
    }
  }
  return out;
}

}  // namespace railguard::cli
