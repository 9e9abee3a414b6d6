// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a whole text file with diagnostics in the library's style, each kind of input
// with its own size limit (all limits are here), reading no more than that limit.
#pragma once

#include <cstddef>
#include <string>

#include "base/diag.h"

namespace railguard {

// A kind of input railguard reads, as messages name it, and the most bytes it may hold.
struct InputKind {
  const char* name;  // "a rail topology YAML file": completes "expected ..."
  size_t max_bytes;
};

constexpr InputKind kTopologyYamlInput{"a rail topology YAML file", 16u << 20};
constexpr InputKind kConfigYamlInput{"a railguard.yaml", 1u << 20};
constexpr InputKind kIbnetdiscoverInput{"an ibnetdiscover dump", 256u << 20};
constexpr InputKind kNodeMapInput{"a node map", 16u << 20};
constexpr InputKind kHwlocXmlInput{"an hwloc XML export", 64u << 20};
constexpr InputKind kTraceInput{"a job trace", 256u << 20};
constexpr InputKind kSnapshotInput{"a report snapshot", 256u << 20};
constexpr InputKind kSlurmConfInput{"a slurm.conf", 16u << 20};

// Reads `path` (symlinks followed) into `*out`, reading at most kind.max_bytes + 1 bytes.
// Regular files and pipes are read; a folder, a device (/dev/zero would never end) or a
// socket is refused. One diagnostic naming the path and the cause otherwise:
//   "cannot open: <strerror>",
//   "is a folder; expected <kind> (a regular file or a pipe)" (also "is a character device",
//   "is a block device", "is a socket"),
//   "file is <n> bytes; expected at most <max>" (a regular file, from its size),
//   "more than <max> bytes; expected <kind> of at most <max> bytes" (an endless input such
//   as /dev/zero or a pipe, cut there), "read error".
bool ReadTextFile(const std::string& path, const InputKind& kind, std::string* out,
                  Diags* diags);

// The same for an open descriptor (standard input: fd 0; a terminal is read too),
// diagnostics naming `name`.
bool ReadTextFd(int fd, const std::string& name, const InputKind& kind, std::string* out,
                Diags* diags);


}  // namespace railguard
