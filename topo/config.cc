#include "topo/config.h"

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

template <size_t N>
std::string JoinKeys(const char* const (&keys)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += (i ? ", " : "") + std::string(keys[i]);
  return out;
}

// A Slurm node feature goes into --constraint expressions, so it may not hold an operator.
bool IsFeatureName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

class Loader {
 public:
  Loader(std::string file, Diags* diags) : file_(std::move(file)), diags_(diags) {}

  bool Load(const std::string& text, Config* out);

 private:
  void Error(const YAML::Node& at, const std::string& msg) {
    Diag d;
    d.file = file_;
    if (at.IsDefined() && at.Mark().line >= 0) {
      d.line = at.Mark().line + 1;
      d.column = at.Mark().column + 1;
    }
    d.message = msg;
    diags_->push_back(std::move(d));
    ++errors_;
  }

  // Reports unknown and repeated keys of the mapping `node`.
  template <size_t N>
  void CheckKeys(const YAML::Node& node, const char* const (&keys)[N], const std::string& what) {
    std::set<std::string> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      if (std::find_if(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; }) ==
          std::end(keys)) {
        Error(kv.first,
              "unknown key '" + key + "' in " + what + "; expected one of: " + JoinKeys(keys));
      } else if (!seen.insert(key).second) {
        Error(kv.first, "key '" + key + "' appears twice in " + what);
      }
    }
  }

  bool ReadInt(const YAML::Node& v, const char* key, int lo, int hi, int* out) {
    const std::string s = v.IsScalar() ? v.Scalar() : std::string();
    char* end = nullptr;
    errno = 0;
    long n = s.empty() ? 0 : std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE || n < lo || n > hi) {
      Error(v, "invalid " + std::string(key) + " '" + s + "'; expected an integer from " +
                   std::to_string(lo) + " to " + std::to_string(hi));
      return false;
    }
    *out = static_cast<int>(n);
    return true;
  }

  void LoadPlacement(const YAML::Node& map, PlacementConfig* p);

  // The key node of `key` in `map` (for positions: yaml-cpp marks an empty value at the
  // token after it), or an undefined node.
  static YAML::Node KeyNode(const YAML::Node& map, const char* key) {
    for (const auto& kv : map)
      if (kv.first.Scalar() == key) return kv.first;
    return YAML::Node(YAML::NodeType::Undefined);
  }

  std::string file_;
  Diags* diags_;
  int errors_ = 0;
};

void Loader::LoadPlacement(const YAML::Node& map, PlacementConfig* p) {
  if (map.IsNull()) return;  // "placement:" with nothing under it: all defaults
  if (!map.IsMap()) {
    Error(map, "placement must be a mapping with keys: " + JoinKeys(kPlacementKeys));
    return;
  }
  CheckKeys(map, kPlacementKeys, "placement");
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
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    diags_->push_back(
        Diag{file_, e.mark.line + 1, e.mark.column + 1, "YAML syntax error: " + e.msg});
    return false;
  } catch (const std::exception& e) {
    diags_->push_back(Diag{file_, 0, 0, std::string("cannot read YAML: ") + e.what()});
    return false;
  }
  if (!root.IsMap()) {
    diags_->push_back(Diag{file_, 1, 1, "expected a mapping with keys: " + JoinKeys(kTopKeys)});
    return false;
  }
  *out = Config();
  out->path = file_;
  try {
    CheckKeys(root, kTopKeys, "the railguard config");
    YAML::Node topo = root["topology"];
    if (!topo.IsDefined()) {
      Error(root, "missing key 'topology' in the railguard config");
    } else if (!topo.IsScalar() || topo.Scalar().empty()) {
      Error(topo.IsNull() ? KeyNode(root, "topology") : topo,
            "expected a non-empty path for topology, such as /etc/slurm/rails.yaml");
    } else {
      const std::string& p = topo.Scalar();
      out->topology_path = p[0] == '/' ? p : DirName(file_) + p;
    }
    if (YAML::Node placement = root["placement"]; placement.IsDefined())
      LoadPlacement(placement, &out->placement);
  } catch (const std::exception& e) {
    // yaml-cpp throws on some malformed trees; never let it escape into a plugin.
    diags_->push_back(Diag{file_, 0, 0, std::string("cannot read YAML: ") + e.what()});
    ++errors_;
  }
  return errors_ == 0;
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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags->push_back(Diag{path, 0, 0, std::string("cannot open: ") + std::strerror(errno)});
    return false;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    diags->push_back(Diag{path, 0, 0, "read error"});
    return false;
  }
  return LoadConfigString(buf.str(), path, out, diags);
}

}  // namespace railguard
