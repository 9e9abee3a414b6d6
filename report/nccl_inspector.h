// SPDX-License-Identifier: GPL-2.0-or-later
// What NCCL's Inspector profiler plugin (NVIDIA/nccl ext-profiler/inspector, NCCL 2.28 and
// later) writes while a job runs: one JSON object per line and per collective and process,
// in files under NCCL_INSPECTOR_DUMP_DIR (by default nccl-inspector-<SLURM_JOB_ID>), as its
// README's "Output Example" shows and its exporter reads them (json.loads per line):
//   {"header": {"id": "0x7f8c496ae9f661", "rank": 2, "n_ranks": 8, "nnodes": 1},
//    "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "", "rec_mechanism":
//      "profiler_plugin", "dump_timestamp_us": 1748030377748202, "hostname": "...", "pid": 1},
//    "coll_perf": {"coll": "AllReduce", "coll_sn": 1407, "coll_msg_size_bytes": 17179869184,
//      "coll_exec_time_us": 61974, "coll_algobw_gbs": 277.21, "coll_busbw_gbs": 485.12, ...}}
// (on one line each; NCCL_INSPECTOR_DUMP_VERBOSE adds event traces, which are not read).
// Collectives of communicators that span more than one node (header nnodes > 1) are the ones
// that cross the rails; their bus bandwidth is set beside the job's per-rail record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"
#include "base/text_file.h"

namespace railguard::report {

// Inspector logs grow with every collective (its README: 200-500 bytes each).
constexpr InputKind kNcclInspectorInput{"an NCCL Inspector log (one JSON object per line)",
                                        256u << 20};

// What the lines of one or more Inspector files of one job say.
struct NcclInspectorRun {
  std::string file;                // the file or folder read
  int files = 0;
  uint64_t records = 0;            // collective lines read
  uint64_t multi_node = 0;         // of them, on communicators of more than one node
  int max_ranks = 0, max_nodes = 0;
  std::vector<std::string> hosts;  // metadata.hostname, each once, in order of appearance
  std::vector<double> busbw;       // coll_busbw_gbs of the multi-node records
  double peak_busbw = -1;          // the best multi-node record (GB/s)
  uint64_t peak_bytes = 0;         // its message size

  // The median of `busbw`; -1 when there is none.
  double MedianBusbw() const;
};

// Adds the lines of `text` (one Inspector file, `file` naming it) to `*run`. Blank lines are
// skipped; a line that is not a JSON object with "header", "metadata" and "coll_perf" as
// above is an error "file:line:column: ...; expected ..." (at most 20 per file) and skipped.
// True when the file had no error.
bool AddNcclInspectorLines(std::string_view text, const std::string& file, NcclInspectorRun* run,
                           Diags* errors);

// True when the first non-blank line of `text` looks like an Inspector record (a JSON object
// with a "coll_perf" member), so that a folder's files can be told apart.
bool LooksLikeNcclInspector(std::string_view text);

}  // namespace railguard::report
