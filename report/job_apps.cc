// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/job_apps.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/file_util.h"
#include "base/text_file.h"

namespace railguard::report {
namespace {

constexpr size_t kSniffBytes = 64 << 10;
constexpr int kMaxAppFiles = 4096;

// The hosts of `hosts` that are not among `f`'s nodes.
std::vector<std::string> HostsNotInJob(const std::vector<std::string>& hosts, const JobFabric& f) {
  std::vector<std::string> out;
  for (const std::string& h : hosts) {
    const std::string shortname = h.substr(0, h.find('.'));
    if (std::find(f.nodes.begin(), f.nodes.end(), shortname) == f.nodes.end()) out.push_back(h);
  }
  return out;
}

// The regular files under `dir` (two levels), sorted, at most kMaxAppFiles.
void ListFiles(const std::string& dir, int depth, std::vector<std::string>* out) {
  std::vector<std::string> names;
  if (!ListFolder(dir, kMaxAppFiles, &names)) return;
  for (const std::string& name : names) {
    if (out->size() >= static_cast<size_t>(kMaxAppFiles)) return;
    const std::string path = dir + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISREG(st.st_mode)) out->push_back(path);
    else if (S_ISDIR(st.st_mode) && depth < 2) ListFiles(path, depth + 1, out);
  }
}

bool StartsWithJsonObject(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

}  // namespace

AppFormat SniffAppFormat(std::string_view text) {
  if (LooksLikeNcclInspector(text)) return AppFormat::kNcclInspector;
  if (StartsWithJsonObject(text)) {
    // nccl-tests writes its whole document on one line; its first keys are "version",
    // "start_time", "args", "env" (which may be long) and "nccl_version".
    if (text.find("\"nccl_version\"") != std::string_view::npos ||
        text.find("\"results\"") != std::string_view::npos)
      return AppFormat::kNcclTestsJson;
    return AppFormat::kUnknown;
  }
  if (text.find("# nThread ") != std::string_view::npos ||
      text.find("#  Rank ") != std::string_view::npos ||
      (text.find(" size ") != std::string_view::npos &&
       text.find(" busbw ") != std::string_view::npos))
    return AppFormat::kNcclTestsText;
  if (LooksLikeStepTimes(text)) return AppFormat::kStepTimes;
  return AppFormat::kUnknown;
}

void AddNcclTests(const NcclTestsRun& run, bool json, JobFabric* f) {
  JobApp a;
  a.file = run.file;
  a.kind = json ? "nccl-tests-json" : "nccl-tests";
  a.ranks = run.ranks;
  a.hosts = run.hosts;
  a.others = HostsNotInJob(run.hosts, *f);
  a.avg_busbw = run.avg_busbw;
  a.peak_busbw = run.PeakBusbw();
  for (const NcclTestsRow& r : run.rows)
    if (std::max(r.oop_busbw, r.ip_busbw) == a.peak_busbw && a.peak_busbw >= 0) {
      a.peak_bytes = r.bytes;
      break;
    }
  f->apps.push_back(std::move(a));
}

void AddNcclInspector(const NcclInspectorRun& run, JobFabric* f) {
  JobApp a;
  a.file = run.file;
  a.kind = "nccl-inspector";
  a.ranks = run.max_ranks;
  a.hosts = run.hosts;
  a.others = HostsNotInJob(run.hosts, *f);
  a.avg_busbw = run.MedianBusbw();
  a.peak_busbw = run.peak_busbw;
  a.peak_bytes = run.peak_bytes;
  a.collectives = run.multi_node;
  f->apps.push_back(std::move(a));
}

void AddStepTimes(const StepTimes& steps, JobFabric* f) {
  JobApp a;
  a.file = steps.file;
  a.kind = "step-times";
  a.steps = steps.seconds.size();
  if (!steps.seconds.empty()) {
    a.step_median_s = steps.Median();
    a.step_p95_s = steps.Percentile(0.95);
    const size_t k = steps.Slowest();
    a.step_max_s = steps.seconds[k];
    a.step_max_at = steps.steps[k];
  }
  f->apps.push_back(std::move(a));
}

bool ReadJobApps(const std::string& path, JobFabric* f, JobAppsRead* read, Diags* errors) {
  const size_t before = errors->size();
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    errors->push_back({path, 0, 0, std::string("cannot read: ") + std::strerror(errno) +
                                       "; expected a file or folder the job wrote"});
    return false;
  }
  const bool folder = S_ISDIR(st.st_mode);
  std::vector<std::string> files;
  if (folder) ListFiles(path, 1, &files);
  else files.push_back(path);
  NcclInspectorRun inspector;
  inspector.file = path;
  for (const std::string& file : files) {
    std::string head, why;
    if (!ReadFileHead(file, kSniffBytes, &head, &why)) {
      errors->push_back({file, 0, 0, why});
      continue;
    }
    const AppFormat format = SniffAppFormat(head);
    if (format == AppFormat::kUnknown) {
      if (folder) {
        ++read->skipped;
      } else {
        errors->push_back(
            {file, 0, 0,
             "not a format railctl job reads; expected nccl-tests output (text or -J JSON), "
             "an NCCL Inspector log or a step-time file (\"STEP SECONDS\" per line)"});
      }
      continue;
    }
    const InputKind& kind = format == AppFormat::kNcclInspector ? kNcclInspectorInput
                            : format == AppFormat::kStepTimes   ? kStepTimesInput
                                                                : kNcclTestsInput;
    std::string text;
    if (!ReadTextFile(file, kind, &text, errors)) continue;
    ++read->files;
    switch (format) {
      case AppFormat::kNcclTestsText:
      case AppFormat::kNcclTestsJson: {
        NcclTestsRun run;
        const bool json = format == AppFormat::kNcclTestsJson;
        if (json ? ParseNcclTestsJson(text, file, &run, errors)
                 : ParseNcclTests(text, file, &run, errors))
          AddNcclTests(run, json, f);
        break;
      }
      case AppFormat::kNcclInspector:
        AddNcclInspectorLines(text, file, &inspector, errors);
        break;
      case AppFormat::kStepTimes: {
        StepTimes steps;
        if (ParseStepTimes(text, file, &steps, errors)) AddStepTimes(steps, f);
        break;
      }
      case AppFormat::kUnknown:
        break;
    }
  }
  if (inspector.records > 0) AddNcclInspector(inspector, f);
  return errors->size() == before;
}

}  // namespace railguard::report
