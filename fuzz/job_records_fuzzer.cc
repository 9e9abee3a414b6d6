// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the readers of what railguard keeps about jobs and what a job's application leaves:
// each line as a job log line (wire/job_log.h), the whole text as a node's job file
// (healthcheck/job_counters.h), as a job baseline (report/job_baseline.h), as nccl-tests
// output, text and JSON (report/nccl_tests.h), as NCCL Inspector lines
// (report/nccl_inspector.h) and as a step-time file (report/step_times.h); and the format
// sniffer (report/job_apps.h) on all of it. Whatever reads must write out as text that reads back and
// writes out the same again; a reader succeeds exactly when it reports no error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "healthcheck/job_counters.h"
#include "report/job_apps.h"
#include "report/job_baseline.h"
#include "report/nccl_inspector.h"
#include "report/nccl_tests.h"
#include "wire/job_log.h"

namespace railguard::fuzz {
namespace {

void CheckJobLine(std::string_view line) {
  wire::JobNodeRecord r;
  std::string err;
  if (!wire::JobRecordFromJsonLine(line, &r, &err)) {
    RG_FUZZ_CHECK(!err.empty(), std::string("a job line refused without a message"));
    return;
  }
  const std::string written = wire::JobRecordToJsonLine(r);
  RG_FUZZ_CHECK(!written.empty() && written.back() == '\n', "JobRecordToJsonLine: " + written);
  wire::JobNodeRecord again;
  RG_FUZZ_CHECK(wire::JobRecordFromJsonLine(
                    std::string_view(written).substr(0, written.size() - 1), &again, &err),
                "the written job line does not read back: " + err + "\n" + written);
  RG_FUZZ_CHECK(wire::JobRecordToJsonLine(again) == written,
                "the job line writes out otherwise once read back:\n" + written);
}

void FuzzJobRecords(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    CheckJobLine(text.substr(start, end - start));
    start = end + 1;
  }

  health::OpenJob job;
  std::string err;
  if (health::OpenJobFromJson(std::string(text), "job.json", &job, &err)) {
    const std::string written = health::OpenJobToJson(job);
    health::OpenJob again;
    RG_FUZZ_CHECK(health::OpenJobFromJson(written, "job.json", &again, &err),
                  "the written job file does not read back: " + err + "\n" + written);
    RG_FUZZ_CHECK(health::OpenJobToJson(again) == written,
                  "the job file writes out otherwise once read back:\n" + written);
  } else {
    RG_FUZZ_CHECK(!err.empty(), std::string("a job file refused without a message"));
  }

  report::JobBaseline b;
  Diags errors;
  const bool ok = report::JobBaselineFromJson(text, "b.json", &b, &errors);
  CheckAgreesWithErrors(ok, errors);
  if (ok) {
    const std::string written = report::JobBaselineToJson(b);
    report::JobBaseline again;
    Diags more;
    RG_FUZZ_CHECK(report::JobBaselineFromJson(written, "b.json", &again, &more),
                  "the written baseline does not read back:\n" + FormatDiags(more) + written);
    RG_FUZZ_CHECK(report::JobBaselineToJson(again) == written,
                  "the baseline writes out otherwise once read back:\n" + written);
  }

  report::NcclTestsRun run;
  Diags nccl_errors;
  CheckAgreesWithErrors(report::ParseNcclTests(text, "nccl.out", &run, &nccl_errors),
                        nccl_errors);
  RG_FUZZ_CHECK(nccl_errors.size() <= 20, "more than 20 errors for one file");

  report::NcclTestsRun json_run;
  Diags json_errors;
  CheckAgreesWithErrors(report::ParseNcclTestsJson(text, "nccl.json", &json_run, &json_errors),
                        json_errors);
  RG_FUZZ_CHECK(json_errors.size() <= 20, "more than 20 errors for one JSON file");

  report::NcclInspectorRun inspector;
  Diags inspector_errors;
  CheckAgreesWithErrors(
      report::AddNcclInspectorLines(text, "inspector.log", &inspector, &inspector_errors),
      inspector_errors);
  RG_FUZZ_CHECK(inspector_errors.size() <= 20, "more than 20 errors for one Inspector file");
  RG_FUZZ_CHECK(inspector.multi_node <= inspector.records, "more multi-node records than records");

  report::StepTimes steps;
  Diags step_errors;
  const bool steps_ok = report::ParseStepTimes(text, "steps.txt", &steps, &step_errors);
  CheckAgreesWithErrors(steps_ok, step_errors);
  if (steps_ok) {
    RG_FUZZ_CHECK(!steps.seconds.empty() && steps.Median() > 0 &&
                      steps.Percentile(0.95) >= steps.Median(),
                  "step times read without a positive median at or below p95");
  }
  (void)report::SniffAppFormat(text);
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzJobRecords(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
