#include "plugin/core/rail_setup.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "topo/topology_yaml.h"

namespace railguard::plugin {
namespace {

// False (with a diagnostic) when `path` is not a regular file of bounded size.
bool CheckFile(const std::string& path, Diags* diags) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    diags->push_back(Diag{path, 0, 0, std::string("cannot open: ") + std::strerror(errno)});
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    diags->push_back(Diag{path, 0, 0, "not a regular file; expected a YAML file"});
    return false;
  }
  if (st.st_size > kMaxSetupFileBytes) {
    diags->push_back(Diag{path, 0, 0,
                          "file is " + std::to_string(st.st_size) + " bytes; expected at most " +
                              std::to_string(kMaxSetupFileBytes) + " bytes"});
    return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<const RailSetup> LoadRailSetup(const std::string& config_path, Diags* diags) {
  auto setup = std::make_shared<RailSetup>();
  if (!CheckFile(config_path, diags) || !LoadConfigFile(config_path, &setup->config, diags))
    return nullptr;
  const std::string& topo_path = setup->config.topology_path;
  if (!CheckFile(topo_path, diags) || !topo::LoadTopologyFile(topo_path, &setup->topology, diags)) {
    return nullptr;
  }
  return setup;
}

bool RailState::Reload(const std::string& config_path, Diags* diags) {
  std::shared_ptr<const RailSetup> fresh = LoadRailSetup(config_path, diags);
  if (!fresh) return false;
  current_ = std::move(fresh);
  return true;
}

}  // namespace railguard::plugin
