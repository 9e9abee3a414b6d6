// SPDX-License-Identifier: GPL-2.0-or-later
// The report's four forms: terminal text (sinfo style, within 100 columns), JSON (versioned
// schema, report/SCHEMA.md), one self-contained HTML page (heatmap and per-node drill-down)
// and the Prometheus text format for node_exporter's textfile collector.
#pragma once

#include <string>
#include <string_view>

#include "report/report.h"

namespace railguard::report {

// Text for a terminal: summary, suspects with evidence, the SU x rail matrix, capacity per
// SU, drained/restricted/down nodes, nodes with bad rails, jobs on degraded paths, history,
// repeat offenders, notes and input problems. No line is longer than 100 columns (counting
// bytes); node tables show at most kTextMaxRows rows and say how many more there are.
// Control characters from Slurm (reasons, job names) are shown as '?'.
std::string RenderText(const Report& r);
constexpr int kTextMaxRows = 40;

// The report as one JSON document (schema "railguard-report", version kReportSchemaVersion),
// ending in a newline. Invalid UTF-8 from Slurm becomes U+FFFD.
std::string RenderJson(const Report& r);

// One HTML page with inline CSS and JS only (no external resource). Every text from the
// input is HTML-escaped; the page works without JS (heatmap cells link to panels shown by
// CSS :target; nodes are <details>), and JS adds opening the node named in the URL
// fragment (#node-<id>), a node filter and cell highlighting.
std::string RenderHtml(const Report& r);

// node_exporter textfile format: # HELP and # TYPE for every metric, names railguard_*,
// label values escaped (\\, \", \n) and made valid UTF-8. Ends in a newline.
std::string RenderPrometheus(const Report& r);

// --- shared by the renderers; escaping exposed for tests -----------------------------------

// The node's Slurm state with its flags ("idle+drain"), or `absent` when Slurm lacks it.
std::string NodeStateText(const NodeRow& n, const char* absent);

// How observe mode's action kWouldActions[a] reads after "would ": "drain", "restrict",
// "requeue jobs on", "resume" ("" for `a` out of range).
const char* WouldPhrase(size_t a);

// & < > " ' as entities; invalid UTF-8 as U+FFFD; control characters other than \t \n
// dropped.
std::string HtmlEscape(std::string_view s);

// The HTML id of a node's drill-down: "node-" + the name with every byte outside
// [A-Za-z0-9.-] written as _XX (hex). Safe in id attributes and URL fragments.
std::string NodeAnchor(std::string_view node);

// A Prometheus label value (without the quotes): \ -> \\, " -> \", newline -> \n, invalid
// UTF-8 -> U+FFFD.
std::string PrometheusLabelValue(std::string_view s);

// For a terminal: control characters (and DEL) as '?', invalid UTF-8 as '?'.
std::string TerminalSafe(std::string_view s);

}  // namespace railguard::report
