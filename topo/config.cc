#include "topo/config.h"

#include "topo/text_file.h"
#include "topo/yaml_reader.h"

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

const char* const kTopKeys[] = {"topology", "placement"};
const char* const kPlacementKeys[] = {"default_mode",      "healthy_feature",
                                      "wait_base_seconds", "wait_per_node_seconds",
                                      "wait_max_seconds",  "max_sus_default"};

// A Slurm node feature goes into --constraint expressions, so it may not hold an operator.
bool IsFeatureName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

class Loader : public YamlReader {
 public:
  using YamlReader::YamlReader;

  bool Load(const std::string& text, Config* out);

 private:
  bool ReadInt(const YAML::Node& v, const char* key, int lo, int hi, int* out) {
    long n = 0;
    if (!YamlReader::ReadInt(v, key, lo, hi, &n)) return false;
    *out = static_cast<int>(n);
    return true;
  }

  void LoadPlacement(const YAML::Node& map, PlacementConfig* p);

};

void Loader::LoadPlacement(const YAML::Node& map, PlacementConfig* p) {
  if (map.IsNull()) return;  // "placement:" with nothing under it: all defaults
  if (!map.IsMap()) {
    Error(map, "placement must be a mapping with keys: " + JoinKeys(kPlacementKeys));
    return;
  }
  CheckMap(map, kPlacementKeys, "placement");
  if (YAML::Node v = map["default_mode"]; v.IsDefined()) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    if (!ParsePlacementMode(s, &p->default_mode))
      Error(v, "invalid default_mode '" + s + "'; expected strict, prefer or off");
  }
  if (YAML::Node v = map["healthy_feature"]; v.IsDefined()) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    if (IsFeatureName(s)) {
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

bool Loader::Load(const std::string& text, Config* out) {
  YAML::Node root;
  if (!ParseYaml(text, file(), &root, diags())) return false;
  if (!root.IsMap()) {
    ErrorAtLine(1, "expected a mapping with keys: " + JoinKeys(kTopKeys), 1);
    return false;
  }
  *out = Config();
  out->path = file();
  try {
    CheckMap(root, kTopKeys, "the railguard config");
    YAML::Node topo = root["topology"];
    if (!topo.IsDefined()) {
      Error(root, "missing key 'topology' in the railguard config");
    } else if (!topo.IsScalar() || topo.Scalar().empty()) {
      Error(topo.IsNull() ? KeyNode(root, "topology") : topo,
            "expected a non-empty path for topology, such as /etc/slurm/rails.yaml");
    } else {
      const std::string& p = topo.Scalar();
      out->topology_path = p[0] == '/' ? p : DirName(file()) + p;
    }
    if (YAML::Node placement = root["placement"]; placement.IsDefined())
      LoadPlacement(placement, &out->placement);
  } catch (const std::exception& e) {
    // yaml-cpp throws on some malformed trees; never let it escape into a plugin.
    ErrorAtLine(0, std::string("cannot read YAML: ") + e.what());
  }
  return errors() == 0;
}

}  // namespace

const char* PlacementModeName(PlacementMode mode) {
  switch (mode) {
    case PlacementMode::kStrict:
      return "strict";
    case PlacementMode::kPrefer:
      return "prefer";
    case PlacementMode::kOff:
      return "off";
  }
  return "?";
}

bool ParsePlacementMode(std::string_view text, PlacementMode* out) {
  for (PlacementMode m : {PlacementMode::kStrict, PlacementMode::kPrefer, PlacementMode::kOff}) {
    if (text == PlacementModeName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

bool LoadConfigString(const std::string& text, const std::string& filename, Config* out,
                      Diags* diags) {
  Loader loader(filename, diags);
  return loader.Load(text, out);
}

bool LoadConfigFile(const std::string& path, Config* out, Diags* diags) {
  std::string text;
  return ReadTextFile(path, &text, diags) && LoadConfigString(text, path, out, diags);
}

}  // namespace railguard
