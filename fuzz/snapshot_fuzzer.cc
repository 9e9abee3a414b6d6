// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes `railctl report` from a snapshot file: the input is a snapshot (report/snapshot.h),
// optionally followed by a line "--events--" and health event log lines
// (wire/event_log.h). A snapshot that reads must write out as text that reads back and
// writes out the same; every refusal names a line. A snapshot that reads goes through the
// whole report on the development layout (etc/dev-4su.yaml; its Extra values, drain
// reasons, job hostlists and the events are all outside input) and every format: text lines
// within 100 columns, JSON that parses, HTML and Prometheus text that are valid UTF-8, and
// Prometheus lines that are comments or railguard_ samples.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "wire/event_log.h"
#include "base/json_reader.h"
#include "report/render.h"
#include "report/report.h"
#include "report/snapshot.h"
#include "topo/topology_yaml.h"

namespace railguard::fuzz {
namespace {

const topo::Topology& DevTopology() {
  static const topo::Topology* t = [] {
    auto* out = new topo::Topology;
    Diags diags;
    RG_FUZZ_CHECK(topo::LoadTopologyFile(RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml", out, &diags),
                  "the fuzzer's own topology does not load:\n" + FormatDiags(diags));
    return out;
  }();
  return *t;
}

void CheckDiags(const Diags& diags, const char* what) {
  RG_FUZZ_CHECK(!diags.empty(), std::string(what) + " refused without a message");
  for (const Diag& d : diags)
    RG_FUZZ_CHECK(d.line > 0 && !d.message.empty(),
                  std::string(what) + ": a problem without a line or message: " + d.message);
}

void FuzzSnapshot(std::string_view input) {
  constexpr std::string_view kSeparator = "\n--events--\n";
  const size_t sep = input.find(kSeparator);
  const std::string text(input.substr(0, sep));
  const std::string_view log =
      sep == std::string_view::npos ? std::string_view() : input.substr(sep + kSeparator.size());

  report::Snapshot snapshot;
  Diags diags;
  if (!report::SnapshotFromJson(text, "fuzz.json", &snapshot, &diags)) {
    CheckDiags(diags, "the snapshot");
    return;
  }
  const std::string written = report::SnapshotToJson(snapshot);
  report::Snapshot again;
  Diags again_diags;
  RG_FUZZ_CHECK(report::SnapshotFromJson(written, "again.json", &again, &again_diags),
                "SnapshotToJson's text does not read back:\n" + FormatDiags(again_diags) +
                    "\n" + written);
  RG_FUZZ_CHECK(report::SnapshotToJson(again) == written,
                "the snapshot writes out otherwise once read back:\n" + written);

  std::vector<wire::HealthEvent> events;
  Diags history_problems;
  size_t start = 0;
  int line_no = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    ++line_no;
    wire::HealthEvent e;
    std::string err;
    if (wire::EventFromJsonLine(log.substr(start, end - start), &e, &err))
      events.push_back(e);
    else
      history_problems.push_back(Diag{"events.log", line_no, 1, err});
    start = end + 1;
  }

  report::ReportOptions options;
  options.history_read = !log.empty();
  if (options.history_read) options.history_files = {"events.log"};
  const report::Report r =
      report::BuildReport(snapshot, "fuzz.json", DevTopology(), events, history_problems, options);

  const std::string out_text = report::RenderText(r);
  size_t line_start = 0;
  while (line_start < out_text.size()) {
    size_t end = out_text.find('\n', line_start);
    if (end == std::string::npos) end = out_text.size();
    RG_FUZZ_CHECK(end - line_start <= 100,
                  "a text line of " + std::to_string(end - line_start) +
                      " bytes: " + out_text.substr(line_start, end - line_start));
    line_start = end + 1;
  }

  const std::string json = report::RenderJson(r);
  JsonValue value;
  JsonError jerr;
  RG_FUZZ_CHECK(ParseJson(json, &value, &jerr),
                "RenderJson wrote JSON that does not parse: " + std::to_string(jerr.line) + ":" +
                    std::to_string(jerr.column) + ": " + jerr.message);

  const std::string html = report::RenderHtml(r);
  RG_FUZZ_CHECK(IsValidUtf8(html), std::string("RenderHtml wrote invalid UTF-8"));

  const std::string prom = report::RenderPrometheus(r);
  RG_FUZZ_CHECK(IsValidUtf8(prom), std::string("RenderPrometheus wrote invalid UTF-8"));
  line_start = 0;
  while (line_start < prom.size()) {
    size_t end = prom.find('\n', line_start);
    if (end == std::string::npos) end = prom.size();
    const std::string_view l(prom.data() + line_start, end - line_start);
    RG_FUZZ_CHECK(l.rfind("# ", 0) == 0 || l.rfind("railguard_", 0) == 0,
                  "a Prometheus line that is neither a comment nor a sample: " + std::string(l));
    line_start = end + 1;
  }
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzSnapshot(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
