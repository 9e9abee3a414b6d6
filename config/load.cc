// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/load.h"

#include <sys/stat.h>

#include "base/names.h"
#include "base/text_file.h"
#include "base/yaml_reader.h"
#include "topo/topology_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace railguard {
namespace {

const char* const kTopKeys[] = {"topology", "placement", "health"};
const char* const kPlacementKeys[] = {"default_mode",      "healthy_feature",
                                      "wait_base_seconds", "wait_per_node_seconds",
                                      "wait_max_seconds",  "max_sus_default"};

const char* const kHealthKeys[] = {"mode",
                                   "sysfs_root",
                                   "state_dir",
                                   "events_log",
                                   "job_log",
                                   "job_app_dir",
                                   "link_layer",
                                   "resume_after_clean_runs",
                                   "flap_window_seconds",
                                   "min_rate_interval_seconds",
                                   "read_timeout_ms",
                                   "prolog_time_limit_seconds",
                                   "periodic_time_limit_seconds",
                                   "actions",
                                   "link_error_limits",
                                   "aer_limits",
                                   "eth_error_limits",
                                   "rate_windows_seconds",
                                   "boot_id_file",
                                   "extra_refresh_seconds",
                                   "confirm_reads",
                                   "confirm_delay_ms",
                                   "fabric_evidence",
                                   "fabric_evidence_max_age_seconds",
                                   "drain_budget"};
const char* const kAerLimitKeys[] = {"correctable_per_hour", "nonfatal_per_hour"};

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// An absolute path whose only placeholder is %n (%j for job_app_dir): what sysfs_root and
// state_dir take.
bool IsPathTemplate(const std::string& s, std::string* why, char placeholder = 'n') {
  if (s.empty() || s[0] != '/') {
    *why = "expected an absolute path";
    return false;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c < 0x20 || c == 0x7f) {
      *why = "expected a path without control characters";
      return false;
    }
    if (c == '%' && (i + 1 >= s.size() || s[i + 1] != placeholder)) {
      *why = placeholder == 'n' ? "expected '%' only in %n (the node name)"
                                : "expected '%' only in %j (the job id)";
      return false;
    }
  }
  return true;
}

// A driver counter name under ports/N/hw_counters: letters, digits and '_'.
bool IsCounterName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_')) return false;
  return true;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class Loader : public YamlReader {
 public:
  // `checks` may be nullptr: health.actions names are then not checked.
  Loader(std::string file, Diags* diags, const CheckCatalog* checks)
      : YamlReader(std::move(file), diags), checks_(checks) {}

  bool Load(const std::string& text, Config* out);

 private:
  bool ReadInt(const YAML::Node& v, const char* key, int lo, int hi, int* out) {
    long n = 0;
    if (!YamlReader::ReadInt(v, key, lo, hi, &n)) return false;
    *out = static_cast<int>(n);
    return true;
  }

  // False when the section `what` is to be skipped: empty ("placement:" with nothing under
  // it: all defaults) or not a mapping (an error). Else checks its keys against `keys`.
  template <size_t N>
  bool OpenSection(const YAML::Node& map, const char* const (&keys)[N], const char* what) {
    if (map.IsNull()) return false;
    if (!map.IsMap()) {
      Error(map, std::string(what) + " must be a mapping with keys: " + JoinKeys(keys));
      return false;
    }
    CheckMap(map, keys, what);
    return true;
  }

  void LoadPlacement(const YAML::Node& map, PlacementConfig* p);
  void LoadHealth(const YAML::Node& map, HealthConfig* h);
  void LoadHealthActions(const YAML::Node& map, HealthConfig* h);
  void LoadLinkErrorLimits(const YAML::Node& map, HealthConfig* h);
  void LoadAerLimits(const YAML::Node& map, HealthConfig* h);
  void LoadEthErrorLimits(const YAML::Node& map, HealthConfig* h);
  void LoadRateWindows(const YAML::Node& v, HealthConfig* h);
  bool ReadLimit(const YAML::Node& v, const std::string& what, long long* out) {
    long n = 0;
    if (!YamlReader::ReadInt(v, what, 0, kMaxErrorLimitPerHour, &n)) return false;
    *out = n;
    return true;
  }

  const CheckCatalog* checks_;
};

void Loader::LoadPlacement(const YAML::Node& map, PlacementConfig* p) {
  if (!OpenSection(map, kPlacementKeys, "placement")) return;
  if (YAML::Node v = map["default_mode"]; v.IsDefined()) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    if (!ParsePlacementMode(s, &p->default_mode))
      Error(v, "invalid default_mode '" + s + "'; expected strict, prefer or off");
  }
  if (YAML::Node v = map["healthy_feature"]; v.IsDefined()) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    if (IsSafeName(s)) {
      p->healthy_feature = s;
    } else {
      Error(v, "invalid healthy_feature '" + s +
                   "'; expected a node feature name of 1 to 64 letters, digits, '-', '_' "
                   "or '.'");
    }
  }
  bool base_ok = true;
  bool max_ok = true;
  if (YAML::Node v = map["wait_base_seconds"]; v.IsDefined())
    base_ok = ReadInt(v, "wait_base_seconds", 0, kMaxWaitBaseSeconds, &p->wait_base_seconds);
  if (YAML::Node v = map["wait_per_node_seconds"]; v.IsDefined()) {
    ReadInt(v, "wait_per_node_seconds", 0, kMaxWaitPerNodeSeconds, &p->wait_per_node_seconds);
  }
  YAML::Node max = map["wait_max_seconds"];
  if (max.IsDefined())
    max_ok = ReadInt(max, "wait_max_seconds", 0, kMaxWaitMaxSeconds, &p->wait_max_seconds);
  if (base_ok && max_ok && p->wait_max_seconds < p->wait_base_seconds) {
    // A cap below the base would make the per-node part meaningless: surely a typo.
    Error(max.IsDefined() ? max : map,
          "wait_max_seconds " + std::to_string(p->wait_max_seconds) +
              " is less than wait_base_seconds " + std::to_string(p->wait_base_seconds) +
              "; expected at least " + std::to_string(p->wait_base_seconds));
  }
  if (YAML::Node v = map["max_sus_default"]; v.IsDefined())
    ReadInt(v, "max_sus_default", 0, kMaxSusLimit, &p->max_sus_default);
}

void Loader::LoadHealth(const YAML::Node& map, HealthConfig* h) {
  if (!OpenSection(map, kHealthKeys, "health")) return;
  struct PathKey {
    const char* key;
    const char* example;
    bool file;  // a file, so not ending in '/'
    std::string* out;
    char placeholder = 'n';
  };
  const PathKey paths[] = {
      {"sysfs_root", "/ or /srv/fixtures/%n", false, &h->sysfs_root},
      {"state_dir", "/var/lib/railguard/health", false, &h->state_dir},
      {"events_log", "/var/lib/railguard/events.log", true, &h->events_log},
      {"job_log", "/var/lib/railguard/jobs.log", true, &h->job_log},
      {"boot_id_file", "/proc/sys/kernel/random/boot_id", true, &h->boot_id_file},
      {"fabric_evidence", "/var/lib/railguard/fabric-evidence.json", true, &h->fabric_evidence},
      {"job_app_dir", "/shared/railguard/apps/%j", false, &h->job_app_dir, 'j'},
  };
  for (const PathKey& k : paths) {
    YAML::Node v = map[k.key];
    if (!v.IsDefined()) continue;
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    std::string why;
    bool ok = IsPathTemplate(s, &why, k.placeholder);
    if (ok && k.file && s.back() == '/') {
      why = "expected a file, not a folder";
      ok = false;
    }
    if (!ok) {
      Error(v.IsNull() ? KeyNode(map, k.key) : v,
            std::string("invalid ") + k.key + " '" + s + "'; " + why + ", such as " + k.example);
    } else {
      *k.out = s;
    }
  }
  if (YAML::Node v = map["mode"]; v.IsDefined()) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    if (s == "enforce") {
      h->mode = HealthMode::kEnforce;
    } else if (s == "observe") {
      h->mode = HealthMode::kObserve;
    } else {
      Error(v, "invalid mode '" + s + "'; expected enforce or observe");
    }
  }
  if (YAML::Node v = map["drain_budget"]; v.IsDefined()) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    const bool percent = !s.empty() && s.back() == '%';
    const std::string digits = percent ? s.substr(0, s.size() - 1) : s;
    const long max = percent ? 100 : kMaxDrainBudgetNodes;
    long n = 0;
    bool ok = !digits.empty() && digits.size() <= 7 &&
              digits.find_first_not_of("0123456789") == std::string::npos;
    if (ok) n = std::stol(digits);
    if (ok && n >= 1 && n <= max) {
      h->drain_budget_nodes = percent ? 0 : static_cast<int>(n);
      h->drain_budget_percent = percent ? static_cast<int>(n) : 0;
    } else {
      Error(v, "invalid drain_budget '" + s + "'; expected a node count from 1 to " +
                   std::to_string(kMaxDrainBudgetNodes) +
                   " such as 16, or a percentage of the rail topology's nodes from 1% to 100% "
                   "such as 5%");
    }
  }
  if (YAML::Node v = map["link_layer"]; v.IsDefined()) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    if (s == "InfiniBand" || s == "Ethernet") {
      h->link_layer = s;
    } else {
      Error(v, "invalid link_layer '" + s + "'; expected InfiniBand or Ethernet");
    }
  }
  struct IntKey {
    const char* key;
    int lo, hi;
    int* out;
  };
  const IntKey ints[] = {
      {"resume_after_clean_runs", 1, kMaxResumeAfterCleanRuns, &h->resume_after_clean_runs},
      {"flap_window_seconds", 0, kMaxFlapWindowSeconds, &h->flap_window_seconds},
      {"min_rate_interval_seconds", 1, kMaxMinRateIntervalSeconds, &h->min_rate_interval_seconds},
      {"read_timeout_ms", 10, kMaxReadTimeoutMs, &h->read_timeout_ms},
      {"prolog_time_limit_seconds", 1, kMaxPrologTimeLimitSeconds, &h->prolog_time_limit_seconds},
      {"periodic_time_limit_seconds", 1, kMaxPeriodicTimeLimitSeconds,
       &h->periodic_time_limit_seconds},
      {"extra_refresh_seconds", 0, kMaxExtraRefreshSeconds, &h->extra_refresh_seconds},
      {"confirm_reads", 0, kMaxConfirmReads, &h->confirm_reads},
      {"confirm_delay_ms", 0, kMaxConfirmDelayMs, &h->confirm_delay_ms},
      {"fabric_evidence_max_age_seconds", 60, kMaxFabricEvidenceMaxAgeSeconds,
       &h->fabric_evidence_max_age_seconds},
  };
  bool limits_ok = true;
  for (const IntKey& k : ints) {
    if (YAML::Node v = map[k.key]; v.IsDefined() && !ReadInt(v, k.key, k.lo, k.hi, k.out))
      limits_ok = false;
  }
  if (limits_ok) {
    // A read deadline past a run's own limit could never fire: surely a mistake.
    const int shortest_ms =
        1000 * std::min(h->prolog_time_limit_seconds, h->periodic_time_limit_seconds);
    if (h->read_timeout_ms >= shortest_ms) {
      YAML::Node v = map["read_timeout_ms"];
      Error(v.IsDefined() ? v : map, "read_timeout_ms " + std::to_string(h->read_timeout_ms) +
                                         " is not below the shortest run time limit (" +
                                         std::to_string(shortest_ms) + " ms); expected less than " +
                                         std::to_string(shortest_ms));
    }
  }
  if (YAML::Node v = map["actions"]; v.IsDefined()) LoadHealthActions(v, h);
  if (YAML::Node v = map["link_error_limits"]; v.IsDefined()) LoadLinkErrorLimits(v, h);
  if (YAML::Node v = map["aer_limits"]; v.IsDefined()) LoadAerLimits(v, h);
  if (YAML::Node v = map["eth_error_limits"]; v.IsDefined()) LoadEthErrorLimits(v, h);
  if (YAML::Node v = map["rate_windows_seconds"]; v.IsDefined()) LoadRateWindows(v, h);
}

void Loader::LoadRateWindows(const YAML::Node& v, HealthConfig* h) {
  const std::string expected = "expected a list of 1 to " + std::to_string(kMaxRateWindows) +
                               " window lengths in seconds, shortest first, each " +
                               std::to_string(kMinRateWindowSeconds) + " to " +
                               std::to_string(kMaxRateWindowSeconds) + ", such as [3600, 86400]";
  if (!v.IsSequence() || v.size() == 0 || v.size() > kMaxRateWindows) {
    Error(v, "invalid health.rate_windows_seconds; " + expected);
    return;
  }
  std::vector<int> windows;
  for (const YAML::Node& w : v) {
    int n = 0;
    if (!ReadInt(w, "rate_windows_seconds", kMinRateWindowSeconds, kMaxRateWindowSeconds, &n))
      return;
    if (!windows.empty() && n <= windows.back()) {
      Error(w, "rate_windows_seconds " + std::to_string(n) + " is not longer than the window " +
                   "before it (" + std::to_string(windows.back()) + "); " + expected);
      return;
    }
    windows.push_back(n);
  }
  h->rate_windows_seconds = windows;
}

void Loader::LoadHealthActions(const YAML::Node& map, HealthConfig* h) {
  if (map.IsNull()) return;
  const std::vector<std::string> known = checks_ ? CheckNames(*checks_) : std::vector<std::string>();
  const std::string names = JoinList(known);
  if (!map.IsMap()) {
    Error(map,
          "health.actions must be a mapping of check name to drain, restrict, warn or "
          "off" +
              (checks_ ? "; checks: " + names : std::string()));
    return;
  }
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (checks_ && !Contains(known, key)) {
      Error(kv.first, "unknown check '" + key + "' in health.actions; expected one of: " + names);
    } else if (!checks_ && (!kv.first.IsScalar() || key.empty())) {
      Error(kv.first, "expected a check name as each key of health.actions");
    } else if (!seen.insert(key).second) {
      Error(kv.first, "check '" + key + "' appears twice in health.actions");
    } else {
      const std::string s = kv.second.IsScalar() ? kv.second.Scalar() : std::string();
      if (!ParseHealthAction(s, &h->actions[key]))
        Error(kv.second,
              "invalid action '" + s + "' for " + key + "; expected drain, restrict, warn or off");
    }
  }
}

void Loader::LoadLinkErrorLimits(const YAML::Node& map, HealthConfig* h) {
  if (map.IsNull()) return;
  const std::string names = JoinList(LinkErrorCounterNames());
  if (!map.IsMap()) {
    Error(map,
          "health.link_error_limits must be a mapping of counter name to errors per "
          "hour or off; counters: " +
              names + ", hw_counters/<name>");
    return;
  }
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    const bool hw = key.rfind("hw_counters/", 0) == 0 && IsCounterName(key.substr(12));
    if (!hw && !Contains(LinkErrorCounterNames(), key)) {
      Error(kv.first, "unknown counter '" + key + "' in health.link_error_limits; expected " +
                          "one of: " + names + ", or hw_counters/<name>" +
                          (key == "link_downed" ? " (link_downed is judged by link.flap)" : ""));
    } else if (!seen.insert(key).second) {
      Error(kv.first, "counter '" + key + "' appears twice in health.link_error_limits");
    } else if (kv.second.IsScalar() && kv.second.Scalar() == "off") {
      h->link_error_limits.erase(key);
    } else {
      long long n = 0;
      if (ReadLimit(kv.second, key + " (errors per hour, or off)", &n))
        h->link_error_limits[key] = n;
    }
  }
}

void Loader::LoadAerLimits(const YAML::Node& map, HealthConfig* h) {
  if (!OpenSection(map, kAerLimitKeys, "health.aer_limits")) return;
  if (YAML::Node v = map["correctable_per_hour"]; v.IsDefined())
    ReadLimit(v, "correctable_per_hour", &h->aer_correctable_per_hour);
  if (YAML::Node v = map["nonfatal_per_hour"]; v.IsDefined())
    ReadLimit(v, "nonfatal_per_hour", &h->aer_nonfatal_per_hour);
}

void Loader::LoadEthErrorLimits(const YAML::Node& map, HealthConfig* h) {
  if (map.IsNull()) return;
  if (!map.IsMap()) {
    Error(map,
          "health.eth_error_limits must be a mapping of ethtool statistic (such as "
          "rx_crc_errors_phy) to errors per hour or off");
    return;
  }
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    if (!IsCounterName(key)) {
      Error(kv.first, "invalid statistic '" + key +
                          "' in health.eth_error_limits; expected an ethtool -S name of letters, "
                          "digits and '_' such as rx_crc_errors_phy");
    } else if (!seen.insert(key).second) {
      Error(kv.first, "statistic '" + key + "' appears twice in health.eth_error_limits");
    } else if (kv.second.IsScalar() && kv.second.Scalar() == "off") {
      h->eth_error_limits.erase(key);
    } else {
      long long n = 0;
      if (ReadLimit(kv.second, key + " (errors per hour, or off)", &n))
        h->eth_error_limits[key] = n;
    }
  }
}

bool Loader::Load(const std::string& text, Config* out) {
  YAML::Node root;
  if (!ParseRootMap(text, kTopKeys, &root)) return false;
  *out = Config();
  out->path = file();
  // With a catalog every check has an action; without one only those the file names.
  out->health.actions =
      checks_ ? DefaultActions(*checks_) : std::map<std::string, HealthAction>();
  try {
    CheckMap(root, kTopKeys, "the railguard config");
    YAML::Node topo = root["topology"];
    if (!topo.IsDefined()) {
      Error(root, "missing key 'topology' in the railguard config");
    } else if (!topo.IsScalar() || topo.Scalar().empty()) {
      Error(topo.IsNull() ? KeyNode(root, "topology") : topo,
            "expected a non-empty path for topology, such as /etc/slurm/rails.yaml");
    } else if (topo.Scalar().back() == '/') {
      Error(topo, "invalid topology '" + topo.Scalar() +
                      "'; expected a file, not a folder, such as /etc/slurm/rails.yaml");
    } else {
      const std::string& p = topo.Scalar();
      out->topology_path = p[0] == '/' ? p : DirName(file()) + p;
    }
    if (YAML::Node placement = root["placement"]; placement.IsDefined())
      LoadPlacement(placement, &out->placement);
    if (YAML::Node health = root["health"]; health.IsDefined())
      LoadHealth(health, &out->health);
  } catch (const std::exception& e) {
    // yaml-cpp throws on some malformed trees; never let it escape into a plugin.
    ErrorAtLine(0, std::string("cannot read YAML: ") + e.what());
  }
  return errors() == 0;
}


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

bool LoadConfigString(const std::string& text, const std::string& filename, Config* out,
                      Diags* diags, const CheckCatalog* checks) {
  Loader loader(filename, diags, checks);
  return loader.Load(text, out);
}

bool LoadConfigFile(const std::string& path, Config* out, Diags* diags,
                    const CheckCatalog* checks) {
  std::string text;
  return ReadTextFile(path, kConfigYamlInput, &text, diags) &&
         LoadConfigString(text, path, out, diags, checks);
}

bool LoadSetupConfig(const std::string& path, Config* out, Diags* diags,
                     const CheckCatalog* checks) {
  return CheckFile(path, diags) && LoadConfigFile(path, out, diags, checks);
}

bool LoadSetupTopology(const std::string& path, topo::Topology* out, Diags* diags) {
  return CheckFile(path, diags) && topo::LoadTopologyFile(path, out, diags);
}

std::shared_ptr<const RailSetup> LoadRailSetup(const std::string& config_path, Diags* diags,
                                               const CheckCatalog* checks) {
  auto setup = std::make_shared<RailSetup>();
  if (!LoadSetupConfig(config_path, &setup->config, diags, checks) ||
      !LoadSetupTopology(setup->config.topology_path, &setup->topology, diags)) {
    return nullptr;
  }
  return setup;
}

bool SetupHolder::Reload(const std::string& config_path, Diags* diags) {
  std::shared_ptr<const RailSetup> fresh = LoadRailSetup(config_path, diags);
  if (!fresh) return false;
  current_ = std::move(fresh);
  return true;
}

}  // namespace railguard
