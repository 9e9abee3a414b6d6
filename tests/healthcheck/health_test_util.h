// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the railcheck tests: temporary folders, the sysfs fixture generator
// (tests/data/sysfs/make_sysfs.py), the shared node_exporter capture with its links restored,
// and a fake slurmctld.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "healthcheck/act.h"

namespace railguard::health::testing {

namespace fs = std::filesystem;

// A fresh folder under $TMPDIR (or /tmp), removed with everything in it at destruction.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/railcheck-test.XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data()) ? buf.data() : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// A node's active features as Slurm matches --constraint against them ("" = as available).
inline std::string ActiveFeatures(const SlurmNode& n) {
  return n.features_act.empty() ? n.features : n.features_act;
}

inline void WriteFile(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes a DGX H100-like sysfs tree into `dir` with make_sysfs.py; `args` are its options
// ("--fault rate-down:3"). Fails the test when the script fails.
inline std::string MakeFixture(const std::string& dir, const std::string& args = "") {
  const std::string cmd =
      "python3 " RAILGUARD_SOURCE_DIR "/tests/data/sysfs/make_sysfs.py '" + dir + "' " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dir;
}

// A fixture made with `args`, generated once per test process and shared: callers must not
// change it (make their own with MakeFixture when they do). Removed when the process ends.
inline std::string CachedFixture(const std::string& args = "") {
  static TempDir* dir = new TempDir();  // lives until exit; see the cleaner below
  static std::map<std::string, std::string> made;
  struct Cleaner {
    ~Cleaner() { delete dir; }
  };
  static Cleaner cleaner;
  auto it = made.find(args);
  if (it != made.end()) return it->second;
  const std::string path = *dir / ("fixture" + std::to_string(made.size()));
  MakeFixture(path, args);
  made[args] = path;
  return path;
}

// The shared node_exporter sysfs capture (tests needing it skip when it is absent).
constexpr const char* kCaptureRel = "sysfs/node-exporter/sys";
inline std::string SharedCapture() { return RAILGUARD_SHARED_DATA "/sysfs/node-exporter/sys"; }

// Copies the capture at `src` into `dir`. Its symbolic links may arrive as real symlinks (as
// git checks them out) or as text files holding the target ("../../../devices/pci0000:00/
// 0000:00:02.1", no newline; as the extraction stored them); either becomes a real symlink,
// or with `links_as_text` a text file holding the target. Returns `dir`.
inline std::string CopyCapture(const std::string& src, const std::string& dir,
                               bool links_as_text = false) {
  EXPECT_TRUE(fs::is_directory(src)) << src;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(src, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    // lexically: fs::relative would resolve a link and name its target instead
    const fs::path dst = fs::path(dir) / e.path().lexically_relative(src);
    std::string target;
    if (e.is_symlink()) {
      target = fs::read_symlink(e.path()).string();  // never followed: a folder link is a link
    } else if (e.is_directory()) {
      fs::create_directories(dst);
      continue;
    }
    const std::string text = target.empty() ? ReadFile(e.path()) : target;
    const bool link = !target.empty() ||
                      (text.rfind("../", 0) == 0 && text.find('\n') == std::string::npos);
    fs::create_directories(dst.parent_path());
    if (link && !links_as_text) {
      fs::create_symlink(text, dst);
    } else {
      WriteFile(dst, text);
      fs::permissions(dst, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                               fs::perms::others_read);
    }
  }
  return dir;
}

// The shared capture copied into `dir` with its symbolic links restored.
inline std::string MaterializeCapture(const std::string& dir) {
  return CopyCapture(SharedCapture(), dir);
}

// A slurmctld in memory: nodes and the updates it received, applied as slurmctld does.
class FakeSlurm : public SlurmApi {
 public:
  std::map<std::string, SlurmNode> nodes;
  std::vector<NodeUpdate> updates;
  bool reachable = true;

  bool GetNode(const std::string& name, SlurmNode* out, std::string* err) override {
    if (!reachable) {
      *err = "Unable to contact slurm controller (connect failure)";
      return false;
    }
    auto it = nodes.find(name);
    if (it == nodes.end()) {
      *err = "slurmctld has no node " + name;
      return false;
    }
    *out = it->second;
    return true;
  }

  bool ListNodes(std::vector<SlurmNode>* out, std::string* err) override {
    if (!reachable) {
      *err = "Unable to contact slurm controller (connect failure)";
      return false;
    }
    ++lists;
    out->clear();
    for (const auto& [name, n] : nodes) {
      out->push_back(n);
      out->back().name = name;
    }
    return true;
  }
  int lists = 0;  // ListNodes calls

  bool UpdateNode(const std::string& name, const NodeUpdate& u, std::string* err) override {
    if (!reachable) {
      *err = "Unable to contact slurm controller (connect failure)";
      return false;
    }
    updates.push_back(u);
    SlurmNode& n = nodes[name];
    if (u.drain_reason) {
      n.drain = true;
      n.reason = *u.drain_reason;
    }
    if (u.resume) {
      n.drain = false;
      n.reason.clear();
    }
    if (u.features) n.features = *u.features;
    if (u.features_act) n.features_act = *u.features_act;
    if (u.extra) n.extra = *u.extra;
    return true;
  }
};

// Hands railcheck a SlurmApi that forwards to a FakeSlurm the test keeps (railcheck owns the
// api it is given).
class Forward : public SlurmApi {
 public:
  explicit Forward(FakeSlurm* s) : s_(s) {}
  bool GetNode(const std::string& n, SlurmNode* out, std::string* err) override {
    return s_->GetNode(n, out, err);
  }
  bool UpdateNode(const std::string& n, const NodeUpdate& u, std::string* err) override {
    return s_->UpdateNode(n, u, err);
  }
  bool ListNodes(std::vector<SlurmNode>* out, std::string* err) override {
    return s_->ListNodes(out, err);
  }

 private:
  FakeSlurm* s_;
};

}  // namespace railguard::health::testing
