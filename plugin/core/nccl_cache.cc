// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/nccl_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/numbers.h"
#include "plugin/core/nccl.h"

namespace railguard::plugin {
namespace {

constexpr char kMagic[] = "railguard-nccl-cache 1";

bool Plain(std::string_view s) { return s.find_first_of("\t\r\n") == std::string_view::npos; }

std::string FileLine(const char* tag, const std::string& path, const FileIdentity& id) {
  return std::string(tag) + '\t' + path + '\t' + std::to_string(id.dev) + '\t' +
         std::to_string(id.ino) + '\t' + std::to_string(id.size) + '\t' +
         std::to_string(id.mtime_sec) + '\t' + std::to_string(id.mtime_nsec) + '\n';
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

// A "config" or "topology" line: its path and identity. False when malformed.
bool ParseFileLine(std::string_view line, const char* tag, std::string* path, FileIdentity* id) {
  const std::vector<std::string_view> f = Fields(line);
  long sec = 0;
  uint64_t nsec = 0;
  if (f.size() != 7 || f[0] != tag || f[1].empty() ||
      !ParseDigits(f[2], uint64_t{0}, UINT64_MAX, &id->dev, 20) ||
      !ParseDigits(f[3], uint64_t{0}, UINT64_MAX, &id->ino, 20) ||
      !ParseDigits(f[4], uint64_t{0}, UINT64_MAX, &id->size, 20) ||
      !ParseLong(f[5], -(1L << 62), 1L << 62, &sec) ||
      !ParseDigits(f[6], uint64_t{0}, uint64_t{999999999}, &nsec, 9)) {
    return false;
  }
  *path = std::string(f[1]);
  id->exists = true;
  id->mtime_sec = sec;
  id->mtime_nsec = static_cast<int64_t>(nsec);
  return true;
}

// The next line of `text` from `*pos` (without its '\n'); false at the end or when the last
// line has no '\n' (a cut file).
bool NextLine(std::string_view text, size_t* pos, std::string_view* line) {
  const size_t nl = text.find('\n', *pos);
  if (nl == std::string_view::npos) return false;
  *line = text.substr(*pos, nl - *pos);
  *pos = nl + 1;
  return true;
}

// The folder is a folder (not a link), owned by this process's user, writable by no other.
bool TrustedDir(const std::string& dir, std::string* why) {
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) {
    *why = errno == ENOENT ? "" : "cannot inspect " + dir + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *why = dir + " is not a folder";
    return false;
  }
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
    *why = dir + " is not owned by uid " + std::to_string(geteuid()) +
           " or is writable by others; not used as a cache";
    return false;
  }
  return true;
}

}  // namespace

std::string FormatNcclCache(const std::string& config_path, const FileIdentity& config,
                            const std::string& topology_path, const FileIdentity& topology,
                            const topo::Topology& topo) {
  if (!Plain(config_path) || !Plain(topology_path) || config_path.empty() ||
      topology_path.empty() || !config.exists || !topology.exists) {
    return "";
  }
  std::string text = std::string(kMagic) + '\n' + FileLine("config", config_path, config) +
                     FileLine("topology", topology_path, topology);
  size_t count = 0;
  for (const topo::ScalableUnit& su : topo.sus) {
    for (const std::string& node : su.nodes) {
      if (!Plain(node) || node.empty()) return "";
      const std::optional<std::string> hca = NcclIbHca(topo, node);
      text += "node\t" + node + '\t' + (hca ? *hca : "-") + '\n';
      ++count;
    }
  }
  return text + "end\t" + std::to_string(count) + '\n';
}

NcclCacheAnswer LookupNcclCache(const std::string& text, const std::string& config_path,
                                const std::string& node, IdentityFn identity, std::string* value) {
  const std::string_view all(text);
  size_t pos = 0;
  std::string_view line;
  std::string path, topo_path;
  FileIdentity config, topology;
  if (!NextLine(all, &pos, &line) || line != kMagic || !NextLine(all, &pos, &line) ||
      !ParseFileLine(line, "config", &path, &config) || path != config_path ||
      !NextLine(all, &pos, &line) || !ParseFileLine(line, "topology", &topo_path, &topology)) {
    return NcclCacheAnswer::kStale;
  }
  // The end line guards against a cut file; then both files must be as recorded.
  const size_t end = all.rfind("\nend\t", all.size() - 1);
  uint64_t count = 0;
  if (end == std::string_view::npos || end + 1 < pos ||
      !ParseDigits(all.substr(end + 5, all.size() - end - 6), uint64_t{0}, UINT64_MAX, &count,
                   20) ||
      all.back() != '\n' ||
      (identity && (identity(config_path) != config || identity(topo_path) != topology))) {
    return NcclCacheAnswer::kStale;
  }
  // The value of a node line: "" when the line is not "node<TAB>NAME<TAB>VALUE" with a
  // non-empty NAME and VALUE.
  constexpr std::string_view kNode = "node\t";
  auto value_of = [&](std::string_view l, std::string_view* name) -> std::string_view {
    if (l.substr(0, kNode.size()) != kNode) return {};
    const size_t tab = l.find('\t', kNode.size());
    if (tab == std::string_view::npos || tab == kNode.size()) return {};
    *name = l.substr(kNode.size(), tab - kNode.size());
    const std::string_view v = l.substr(tab + 1);
    return v.find('\t') == std::string_view::npos ? v : std::string_view();
  };
  auto answer_of = [&](std::string_view v) {
    if (v == "-") return NcclCacheAnswer::kNotListed;
    *value = std::string(v);
    return NcclCacheAnswer::kListed;
  };
  std::string_view name;
  if (!identity) {
    // Found fresh earlier in this step (every node line checked then): the node's own line,
    // found directly (the file holds every node of the topology; a step wants one).
    const std::string key = "\n" + std::string(kNode) + node + '\t';
    const size_t at = all.substr(0, end + 1).find(key);
    if (node.empty() || at == std::string_view::npos) return NcclCacheAnswer::kNotListed;
    size_t from = at + 1;
    if (!NextLine(all, &from, &line)) return NcclCacheAnswer::kStale;
    const std::string_view v = value_of(line, &name);
    return v.empty() ? NcclCacheAnswer::kStale : answer_of(v);
  }
  const std::string_view body = all.substr(pos, end + 1 - pos);
  uint64_t seen = 0;
  NcclCacheAnswer answer = NcclCacheAnswer::kNotListed;
  bool found = false;
  size_t at = 0;
  while (at < body.size()) {
    if (!NextLine(body, &at, &line)) return NcclCacheAnswer::kStale;
    const std::string_view v = value_of(line, &name);
    if (v.empty()) return NcclCacheAnswer::kStale;
    ++seen;
    if (!found && name == node) {
      found = true;
      answer = answer_of(v);
    }
  }
  return seen == count ? answer : NcclCacheAnswer::kStale;
}

std::string NcclCachePath(const std::string& dir, const std::string& config_path) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  for (unsigned char c : config_path) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return dir + "/nccl-" + hex;
}

bool ReadNcclCache(const std::string& dir, const std::string& path, std::string* text,
                   std::string* why) {
  if (!TrustedDir(dir, why)) return false;
  const ReadResult r = ReadRegularFile(path, kMaxNcclCacheBytes, text);
  if (r.status == ReadStatus::kOk) return true;
  if (r.status == ReadStatus::kMissing) {
    why->clear();
  } else {
    *why = ReadFailureMessage(path, r, kMaxNcclCacheBytes);
    if (why->empty()) *why = path + " is not a regular file of at most 16 MiB";
  }
  return false;
}

bool WriteNcclCache(const std::string& dir, const std::string& path, const std::string& text,
                    std::string* why) {
  struct stat st {};
  FileError err;
  if (!MakeFolder(dir, &st, &err)) {
    *why = err.Message();
    return false;
  }
  if (!TrustedDir(dir, why)) {
    if (why->empty()) *why = dir + " vanished";
    return false;
  }
  if (!ReplaceFile(path, text, &err)) {
    *why = err.Message();
    return false;
  }
  return true;
}

}  // namespace railguard::plugin
