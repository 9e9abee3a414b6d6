// SPDX-License-Identifier: GPL-2.0-or-later
// The output of NVIDIA's nccl-tests (all_reduce_perf and its siblings) as a job leaves it: the
// application's own view of the fabric (bus bandwidth per message size) to put beside what the
// job got from each rail (report/job_fabric.h). The text form is what the tools print and what
// admins keep (tests/data/nccl/ holds a real capture): '#' comment lines (the "nThread ..."
// line, one "Rank N Group G Pid P on HOST device D [BUS] NAME" line per rank, the column
// header "size count type redop root time algbw busbw #wrong time ...", its units line),
// one data row per message size with the out-of-place columns then the in-place ones, then
// "# Out of bounds values : N OK" and "# Avg bus bandwidth : X". Columns are found by the
// header's names, so versions without redop and root, or with "error" for "#wrong", read too;
// "N/A" is a value the tool did not measure. Anything else (a prompt, the mpirun command, a
// markdown heading, CRLF line ends, a UTF-8 BOM) is skipped.
// nccl-tests 2.17 and later also write the same run as JSON with -J FILE (format version 3 in
// 2.19.6's src/util.cu): {"version", "start_time", "args", "env", "nccl_version", "config":
// {..., "devices": [{"rank", "group", "pid", "hostname", "device", ...}]}, "results": [{"size",
// "count", "type", "redop", "root", "out_of_place": {"time" or "cpu_time", "alg_bw", "bus_bw",
// "nwrong"} or null, "in_place": {...}, ...}], "out_of_bounds": {"count", "okay"},
// "average_bus_bandwidth": {"bandwidth", "okay"}, "errors", "end_time"}; the tool writes NaN
// as the string "nan", read here as not measured.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"
#include "base/text_file.h"

namespace railguard::report {

constexpr InputKind kNcclTestsInput{"nccl-tests output (all_reduce_perf and the like)", 16u << 20};

// One message size. -1: not measured (N/A, or no such column).
struct NcclTestsRow {
  uint64_t bytes = 0;
  double oop_time_us = -1, oop_algbw = -1, oop_busbw = -1;  // GB/s
  double ip_time_us = -1, ip_algbw = -1, ip_busbw = -1;
  long long wrong = 0;  // #wrong (or error) of both halves together; -1 unknown
};

struct NcclTestsRun {
  std::string file;
  int ranks = 0;                    // "Rank" lines
  std::vector<std::string> hosts;   // their hosts, in rank order, each once
  std::vector<NcclTestsRow> rows;   // in file order
  double avg_busbw = -1;            // "# Avg bus bandwidth : X" (GB/s); -1 when absent
  long long out_of_bounds = -1;     // "# Out of bounds values : N"; -1 when absent

  // The highest bus bandwidth of any row, either half (GB/s); -1 when none.
  double PeakBusbw() const;
  // The row of the largest message, or nullptr.
  const NcclTestsRow* Largest() const;
};

// Parses `text` (`file` names it). Errors go to `*errors` as file:line:column with the form
// expected: a data row whose column count differs from the header's, a number that is not
// one, data rows before any header, no data row at all. True when there was none.
bool ParseNcclTests(std::string_view text, const std::string& file, NcclTestsRun* out,
                    Diags* errors);

// The same from nccl-tests' JSON (-J FILE). Errors name file:line:column and the form
// expected: not JSON, not an object, a "results" entry without a size or with a bandwidth
// that is not a number >= 0, an unknown "version" (1-3 are read). True when there was none.
bool ParseNcclTestsJson(std::string_view text, const std::string& file, NcclTestsRun* out,
                        Diags* errors);

}  // namespace railguard::report
