// SPDX-License-Identifier: GPL-2.0-or-later
// The SPANK plugin's NCCL_IB_HCA cache: every node's value (nccl.h) of one railguard.yaml and
// the topology it names, in one small text file per railguard.yaml, so that a job step reads
// one file instead of parsing the whole topology (19 ms per step at 4,096 nodes, in every
// slurmstepd of every node). The file records which config and topology files it was made
// from (path, device, inode, size, modification time); a step takes it only while both are
// unchanged, and rebuilds it otherwise. This file owns the format:
//   railguard-nccl-cache 1
//   config<TAB>PATH<TAB>DEV<TAB>INO<TAB>SIZE<TAB>MTIME_SEC<TAB>MTIME_NSEC
//   topology<TAB>PATH<TAB>DEV<TAB>INO<TAB>SIZE<TAB>MTIME_SEC<TAB>MTIME_NSEC
//   node<TAB>NAME<TAB>VALUE          (one per node of the topology; VALUE "-": none)
//   end<TAB>COUNT                    (the count of node lines)
#pragma once

#include <string>

#include "base/file_util.h"
#include "topo/model.h"

namespace railguard::plugin {

// The folder of the cache files when the plugstack.conf line names none (tmpfs on systemd
// hosts: gone at a reboot, rebuilt by the first step).
inline constexpr char kDefaultNcclCacheDir[] = "/run/railguard";

// Cache files larger than this are not read (a 4,096-node topology makes ~300 KB).
inline constexpr size_t kMaxNcclCacheBytes = 16u << 20;

// The cache text for `topo`, loaded from `config_path` (identity `config`) and
// `topology_path` (identity `topology`). "" when a path or node name holds a tab or a line
// break (such files are not cached). REQUIRES: `topo` loaded and validated.
std::string FormatNcclCache(const std::string& config_path, const FileIdentity& config,
                            const std::string& topology_path, const FileIdentity& topology,
                            const topo::Topology& topo);

enum class NcclCacheAnswer {
  kStale,      // malformed, of other files, or of files changed since: rebuild it
  kListed,     // the node's value is in `*value`
  kNotListed,  // the topology does not list the node (or gives it no NICs)
};

// Identity of a path now; IdentityOf in production, a fake in tests.
using IdentityFn = FileIdentity (*)(const std::string& path);

// Looks `node` up in cache `text`, made from `config_path`; fresh only while `identity` of
// the recorded config and topology files equals what the text recorded, and every node line
// is whole. `identity` null: for a text found fresh by an earlier call in the same step;
// the files and the other node lines are not checked again, the node's line is found
// directly.
NcclCacheAnswer LookupNcclCache(const std::string& text, const std::string& config_path,
                                const std::string& node, IdentityFn identity, std::string* value);

// The cache file of `config_path` in folder `dir`: "<dir>/nccl-<16 hex digits of a hash of
// the path>", so that several railguard.yaml on one host keep separate files.
std::string NcclCachePath(const std::string& dir, const std::string& config_path);

// Reads the cache file at `path` into `*text` when folder `dir` is fit to trust: a folder
// (not a link) owned by this process's user and writable by no one else; the file a regular
// file (not a link) of at most kMaxNcclCacheBytes. False otherwise (`*why` says why, "" when
// the file does not exist yet).
bool ReadNcclCache(const std::string& dir, const std::string& path, std::string* text,
                   std::string* why);

// Creates `dir` (mode 0755) when missing, checks it as ReadNcclCache does, and replaces the
// file at `path` with `text` atomically. False with `*why`.
bool WriteNcclCache(const std::string& dir, const std::string& path, const std::string& text,
                    std::string* why);

}  // namespace railguard::plugin
