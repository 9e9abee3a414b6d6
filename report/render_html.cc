// SPDX-License-Identifier: GPL-2.0-or-later
// RenderHtml: the report as one self-contained page.
#include <algorithm>
#include <cstdio>

#include "report/render.h"
#include "report/text_util.h"
#include "topo/hostlist.h"

namespace railguard::report {
namespace {

std::string H(const std::string& s) { return HtmlEscape(s); }

const char kStyle[] = R"CSS(
:root{--ok:#cfe8d1;--okt:#1b5e20;--deg:#ffd08a;--degt:#6d3b00;--down:#e53935;--downt:#fff;
--unk:#e4e6eb;--unkt:#555;--line:#d5d8de;--ink:#1f2328;--mute:#5f6670;--bg:#f6f7f9}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);
background:var(--bg);margin:0;padding:0 24px 40px}
header{padding:18px 0 6px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:26px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:6px 0}
.meta{color:var(--mute);margin:0}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:8px 14px;
min-width:108px}
.card b{display:block;font-size:22px}
.card span{color:var(--mute);font-size:12px}
.card.c-bad b{color:#b26a00}.card.c-down b{color:#c62828}.card.c-good b{color:var(--okt)}
.card.c-would b{color:#6a1b9a}
.observe{background:#f3e5f5;border:1px solid #ce93d8;border-radius:6px;padding:6px 12px;
margin:12px 0 0;max-width:900px}
.would{font-size:11px;border-radius:10px;padding:1px 7px;margin-left:6px;background:#e1bee7;
color:#4a148c;white-space:nowrap}
ol.suspects{padding-left:0;list-style:none;margin:0}
li.suspect{background:#fff;border:1px solid var(--line);border-left:5px solid #b26a00;
border-radius:6px;padding:8px 12px;margin-bottom:8px}
li.suspect.k-cable,li.suspect.k-nic{border-left-color:#8d6e63}
li.suspect.k-fabric,li.suspect.k-rail-plane,li.suspect.k-su{border-left-color:#c62828}
.stitle{font-weight:600}
.rank{display:inline-block;min-width:22px;color:var(--mute)}
.conf{font-size:11px;border-radius:10px;padding:1px 7px;margin-right:4px;background:var(--unk)}
.conf.c-high{background:#ffcdd2}.conf.c-medium{background:#ffe0b2}
.kind{font-size:11px;color:var(--mute);text-transform:uppercase;margin-right:6px}
ul.evidence{margin:4px 0 0 18px;padding:0;color:#333}
table{border-collapse:collapse;background:#fff}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef0f3;font-weight:600}
td.num{text-align:right}
table.heatmap td.cell{text-align:center;width:104px;padding:0}
table.heatmap td.cell a{display:block;padding:6px 4px;color:inherit;text-decoration:none}
table.heatmap th small{display:block;font-weight:400;color:var(--mute)}
td.cell .n{font-weight:700;font-size:15px;display:block}
td.cell .l{font-size:11px}
.ok{background:var(--ok);color:var(--okt)}
.degraded{background:#ffe3b8;color:var(--degt)}
td.cell.degraded.most{background:var(--deg)}
td.cell.down.some{background:#f8a5a3;color:#7f0000}
.down{background:var(--down);color:var(--downt)}
.unknown{background:var(--unk);color:var(--unkt)}
.legend span{display:inline-block;padding:1px 8px;border-radius:4px;margin-right:6px}
.panel{display:none;background:#fff;border:1px solid var(--line);border-radius:6px;
padding:8px 12px;margin-top:10px;max-width:900px}
.panel:target,.panel.show{display:block}
details.su{background:#fff;border:1px solid var(--line);border-radius:6px;margin:8px 0;
padding:4px 10px}
details.su>summary{cursor:pointer;font-weight:600}
details.node{border-top:1px solid #eceef1;padding:3px 0}
details.node>summary{cursor:pointer;list-style-position:outside}
details.node.focus{background:#fff8e1;outline:2px solid #ffb300;border-radius:4px}
.nname{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600;display:inline-block;
min-width:90px}
.rails{display:inline-flex;gap:2px;vertical-align:middle;margin:0 8px}
.rails i{display:inline-block;width:12px;height:12px;border-radius:2px;border:1px solid #0002}
.state{color:var(--mute);margin-right:8px}
.why{color:#6d3b00}
.drill{padding:6px 0 8px 22px}
.drill dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:4px 0 8px}
.drill dt{color:var(--mute)}.drill dd{margin:0}
.okline{color:var(--mute);margin:4px 0}
#filter{padding:5px 8px;border:1px solid var(--line);border-radius:6px;width:260px}
.problems li{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
footer{margin-top:30px;color:var(--mute);font-size:12px}
)CSS";

const char kScript[] = R"JS(
(function () {
  'use strict';
  function byHash() {
    var id = '';
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) return;
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === 'DETAILS') p.open = true;
    }
    var old = document.querySelectorAll('.focus');
    for (var i = 0; i < old.length; i++) old[i].classList.remove('focus');
    if (el.tagName === 'DETAILS') el.classList.add('focus');
    if (el.scrollIntoView) el.scrollIntoView();
  }
  window.addEventListener('hashchange', byHash);
  var filter = document.getElementById('filter');
  if (filter) {
    filter.addEventListener('input', function () {
      var q = filter.value.trim().toLowerCase();
      var nodes = document.querySelectorAll('details.node');
      for (var i = 0; i < nodes.length; i++) {
        var hit = !q || nodes[i].getAttribute('data-node').toLowerCase().indexOf(q) >= 0;
        nodes[i].style.display = hit ? '' : 'none';
        if (hit && q) nodes[i].parentElement.open = true;
      }
    });
  }
  document.body.setAttribute('data-js', 'ready');
  byHash();
})();
)JS";

// The text under a heatmap cell's number. Built from numbers and fixed words only, so it is
// markup (&middot;) and is not escaped again.
std::string CellLabel(const Cell& c, std::string* number) {
  const std::string oks = c.ok > 0 ? " &middot; " + std::to_string(c.ok) + " ok" : "";
  if (c.down > 0 && c.degraded > 0) {
    *number = std::to_string(c.down + c.degraded);
    return std::to_string(c.down) + " down, " + std::to_string(c.degraded) + " deg" + oks;
  }
  if (c.down > 0) {
    *number = std::to_string(c.down);
    return "down" + oks;
  }
  if (c.degraded > 0) {
    *number = std::to_string(c.degraded);
    return "degraded" + oks;
  }
  if (c.ok > 0) {
    *number = std::to_string(c.ok);
    return "ok";
  }
  *number = "-";
  return "no report";
}

std::string RailSquares(const Report& r, const NodeRow& n) {
  std::string s = "<span class=\"rails\">";
  for (size_t k = 0; k < n.rails.size(); ++k) {
    const char* st = RailStateName(n.rails[k]);
    s +=
        std::string("<i class=\"") + st + "\" title=\"" + H(r.rail_names[k]) + " " + st + "\"></i>";
  }
  return s + "</span>";
}

std::string HtmlStateText(const NodeRow& n) { return NodeStateText(n, "not in Slurm"); }

// The summary cards of observe mode, in kWouldActions order.
constexpr const char* kWouldCardLabels[kWouldActionCount] = {
    "would drain (observe)", "would restrict (observe)", "would requeue jobs on (observe)",
    "would resume (observe)"};

// Links to the drill-downs of nodes `idx` (indices into Report::nodes).
std::string NodeLinks(const Report& r, const std::vector<int>& idx) {
  std::string s;
  for (int i : idx) {
    const NodeRow& n = r.nodes[static_cast<size_t>(i)];
    s += (s.empty() ? "" : ", ") + std::string("<a href=\"#") + NodeAnchor(n.name) + "\">" +
         H(n.name) + "</a>";
  }
  return s;
}

// Observe mode (only when some node runs railcheck in it): what railcheck would have done,
// per action with links to the nodes.
void HtmlObserve(const Report& r, std::string* o) {
  if (r.observe == 0) return;
  *o += "<section id=\"observe\"><p class=\"observe\"><b>Observe mode</b> on " +
        std::to_string(r.observe) + " of " + std::to_string(r.nodes.size()) +
        " nodes: railcheck judged and published their health, and changed nothing in Slurm.";
  bool any = false;
  for (size_t a = 0; a < kWouldActionCount; ++a) {
    if (r.would_nodes[a].empty()) continue;
    any = true;
    *o += std::string(" Would ") + WouldPhrase(a) + " " + std::to_string(r.would_nodes[a].size()) +
          (r.would_nodes[a].size() == 1 ? " node: " : " nodes: ") + NodeLinks(r, r.would_nodes[a]) +
          ".";
  }
  if (!any) *o += " It would change nothing.";
  *o += "</p></section>\n";
}

// A badge per action railcheck would take on the node in observe mode.
std::string WouldBadges(const NodeRow& n) {
  std::string s;
  for (const std::string& a : n.would) s += "<span class=\"would\">would " + H(a) + "</span>";
  if (n.over_budget) s += "<span class=\"would\">over the drain budget</span>";
  return s;
}

void Header(const Report& r, std::string* o) {
  *o += "<header><h1>railguard fabric report: " + H(r.cluster) + "</h1><p class=\"meta\">" +
        H(FormatTime(r.time)) + " UTC &middot; from " + H(r.source) + " &middot; " +
        std::to_string(r.nodes.size()) + " nodes in " + std::to_string(r.sus.size()) +
        " SUs &times; " + std::to_string(r.rail_names.size()) + " rails";
  if (!r.slurm_cluster.empty()) *o += " &middot; Slurm cluster " + H(r.slurm_cluster);
  *o += r.sweep_file.empty()
            ? std::string(" &middot; no fabric sweep (leaf ports are guesses)")
            : " &middot; fabric sweep " + H(r.sweep_file) + " (" + H(FormatTime(r.sweep_time)) +
                  " UTC" + (r.sweep_complete ? ")" : ", PARTIAL)");
  *o += "</p></header>\n<section class=\"cards\" id=\"summary\">";
  const auto card = [&](int v, const char* label, const char* cls) {
    *o += std::string("<div class=\"card ") + cls + "\"><b>" + std::to_string(v) + "</b><span>" +
          label + "</span></div>";
  };
  card(r.healthy, "healthy nodes", "c-good");
  card(r.degraded, "degraded", r.degraded ? "c-bad" : "");
  card(r.down_rails_nodes, "with a rail down", r.down_rails_nodes ? "c-down" : "");
  card(r.no_report, "no report", "");
  card(r.drained, "drained", r.drained ? "c-bad" : "");
  card(r.restricted, "restricted", r.restricted ? "c-bad" : "");
  card(r.free, "free (idle, healthy)", "c-good");
  *o += "<div class=\"card\"><b>" + std::to_string(r.largest_job) + "</b><span>largest job now" +
        (r.largest_job_su >= 0 ? " (" + H(r.sus[static_cast<size_t>(r.largest_job_su)].name) + ")"
                               : std::string()) +
        "</span></div>";
  if (!r.over_budget.empty())
    card(static_cast<int>(r.over_budget.size()), "over the drain budget, in service", "c-bad");
  if (r.observe > 0) {
    for (size_t a = 0; a < kWouldActionCount; ++a) {
      const int count = static_cast<int>(r.would_nodes[a].size());
      card(count, kWouldCardLabels[a], count ? "c-would" : "");
    }
  }
  *o += "</section>\n";
  HtmlObserve(r, o);
}

void HtmlSuspects(const Report& r, std::string* o) {
  *o += "<section id=\"suspects\"><h2>Suspects</h2>";
  if (r.suspects.empty()) {
    *o += "<p>None: no node reports a degraded or down rail.</p></section>\n";
    return;
  }
  *o += "<ol class=\"suspects\">";
  for (const Suspect& s : r.suspects) {
    *o += "<li class=\"suspect k-" + H(s.kind) + "\" data-rank=\"" + std::to_string(s.rank) +
          "\" data-kind=\"" + H(s.kind) + "\" data-component=\"" + H(s.component) +
          "\" data-end=\"" + H(s.end) + "\"><div class=\"stitle\"><span class=\"rank\">" + std::to_string(s.rank) +
          ".</span><span class=\"conf c-" + H(s.confidence) + "\">" + H(s.confidence) +
          "</span><span class=\"kind\">" + H(s.kind) + "</span>" +
          (s.end.empty() ? "" : "<span class=\"kind\">end: " + H(s.end) + "</span>") +
          H(s.title) +
          "</div><ul class=\"evidence\">";
    for (const std::string& e : s.evidence) *o += "<li>" + H(e) + "</li>";
    *o += "</ul></li>";
  }
  *o += "</ol></section>\n";
}

void Heatmap(const Report& r, std::string* o) {
  *o +=
      "<section id=\"heatmap\"><h2>SU &times; rail</h2><p class=\"legend\">"
      "<span class=\"ok\">ok</span><span class=\"degraded\">degraded</span>"
      "<span class=\"down\">down</span><span class=\"unknown\">no report</span>"
      " Each cell counts the nodes of that SU on that rail's leaf; click a cell for its "
      "nodes.</p><table class=\"heatmap\"><thead><tr><th>SU</th><th>nodes</th>";
  for (size_t k = 0; k < r.rail_names.size(); ++k)
    *o += "<th>" + H(r.rail_names[k]) + "<small>" + H(r.rail_nics[k]) + "</small></th>";
  *o += "</tr></thead><tbody>";
  std::string panels;
  for (size_t s = 0; s < r.sus.size(); ++s) {
    const SuRow& su = r.sus[s];
    *o += "<tr><th>" + H(su.name) + "</th><td class=\"num\">" + std::to_string(su.nodes.size()) +
          "</td>";
    for (size_t k = 0; k < su.cells.size(); ++k) {
      const Cell& c = su.cells[k];
      std::string number;
      const std::string label = CellLabel(c, &number);
      const std::string id = "cell-" + std::to_string(s) + "-" + std::to_string(k);
      const std::string title = su.leaves[k] + ": " + std::to_string(c.ok) + " ok, " +
                                std::to_string(c.degraded) + " degraded, " +
                                std::to_string(c.down) + " down, " + std::to_string(c.unknown) +
                                " no report";
      // Half or more of the cell bad: a stronger colour, so a leaf fault stands out.
      const int bad = c.degraded + c.down, reporting = c.ok + bad;
      const char* weight = bad == 0               ? ""
                           : bad * 2 >= reporting ? (c.down > 0 ? "" : " most")
                                                  : (c.down > 0 ? " some" : "");
      *o += std::string("<td class=\"cell ") + RailStateName(c.Worst()) + weight + "\" data-su=\"" +
            H(su.name) + "\" data-rail=\"" + std::to_string(k) + "\" data-leaf=\"" +
            H(su.leaves[k]) + "\" data-ok=\"" + std::to_string(c.ok) + "\" data-degraded=\"" +
            std::to_string(c.degraded) + "\" data-down=\"" + std::to_string(c.down) +
            "\" title=\"" + H(title) + "\"><a href=\"#" + id + "\"><span class=\"n\">" + number +
            "</span><span class=\"l\">" + label + "</span></a></td>";
      panels += "<div class=\"panel\" id=\"" + id + "\"><h3>" + H(su.name) + " &middot; " +
                H(r.rail_names[k]) + " &middot; leaf " + H(su.leaves[k]) + "</h3><p>" + H(title) +
                "</p>";
      if (!c.bad.empty()) {
        panels += "<ul>";
        for (int idx : c.bad) {
          const NodeRow& n = r.nodes[static_cast<size_t>(idx)];
          panels +=
              "<li><a href=\"#" + NodeAnchor(n.name) + "\">" + H(n.name) + "</a> " +
              RailStateName(n.rails[k]) +
              (n.rail_checks[k].empty() ? "" : ": " + H(JoinStrings(n.rail_checks[k], ", "))) +
              (n.leaf_ports[k] > 0 ? " (leaf port " + std::to_string(n.leaf_ports[k]) + ")" : "") +
              WouldBadges(n) + "</li>";
        }
        panels += "</ul>";
      }
      panels += "</div>";
    }
    *o += "</tr>";
  }
  *o += "</tbody></table>" + panels + "</section>\n";
}

void HtmlCapacity(const Report& r, std::string* o) {
  *o +=
      "<section id=\"capacity\"><h2>Capacity</h2><table><thead><tr><th>SU</th><th>nodes</th>"
      "<th>idle</th><th>free</th><th>drained</th><th>restricted</th><th>down</th>"
      "<th>bad rail</th><th>largest job now</th></tr></thead><tbody>";
  for (const SuRow& su : r.sus)
    *o += "<tr><th>" + H(su.name) + "</th><td class=\"num\">" + std::to_string(su.nodes.size()) +
          "</td><td class=\"num\">" + std::to_string(su.idle) + "</td><td class=\"num\">" +
          std::to_string(su.free) + "</td><td class=\"num\">" + std::to_string(su.drained) +
          "</td><td class=\"num\">" + std::to_string(su.restricted) + "</td><td class=\"num\">" +
          std::to_string(su.down) + "</td><td class=\"num\">" + std::to_string(su.unhealthy) +
          "</td><td class=\"num\">" +
          (su.largest_job > 0 ? std::to_string(su.largest_job) : std::string("-")) + "</td></tr>";
  *o +=
      "</tbody></table><p>Free: idle, schedulable, not restricted, no degraded or down rail. "
      "Largest job: free nodes of one SU, when at least 2.</p></section>\n";
}

void HtmlJobs(const Report& r, std::string* o) {
  *o += "<section id=\"jobs\"><h2>Running jobs on degraded paths</h2>";
  if (r.degraded_jobs.empty()) {
    *o += "<p>None.</p></section>\n";
    return;
  }
  *o +=
      "<table><thead><tr><th>job</th><th>user</th><th>name</th><th>nodes</th><th>SUs</th>"
      "<th>nodes with bad rails</th></tr></thead><tbody>";
  for (const JobRow& j : r.degraded_jobs) {
    std::string bad;
    for (int i : j.bad_nodes) {
      const NodeRow& n = r.nodes[static_cast<size_t>(i)];
      bad += (bad.empty() ? "" : ", ") + std::string("<a href=\"#") + NodeAnchor(n.name) + "\">" +
             H(n.name) + "</a>";
    }
    *o += "<tr><td>" + std::to_string(j.id) + "</td><td>" + H(j.user) + "</td><td>" + H(j.name) +
          "</td><td>" + std::to_string(j.node_count) + " (" + H(j.nodes) + ")</td><td>" +
          H(JoinStrings(j.sus, ", ")) + "</td><td>" + bad + "</td></tr>";
  }
  *o += "</tbody></table></section>\n";
}

void HtmlJobPaths(const Report& r, std::string* o) {
  if (!r.jobs_read) return;
  *o += "<section id=\"job-paths\"><h2>Jobs that ran on a slow or erring path (ended in the "
        "last 24h)</h2><p>" +
        std::to_string(r.jobs_with_findings.size()) + " of " + std::to_string(r.jobs_recorded) +
        " recorded jobs (<code>railctl job JOBID</code> gives each rail by rail).</p>";
  if (r.jobs_with_findings.empty()) {
    *o += "</section>\n";
    return;
  }
  *o += "<table><thead><tr><th>job</th><th>nodes</th><th>ended</th><th>finding</th><th>node</th>"
        "<th>rail</th><th>NIC</th><th>leaf</th><th>what</th></tr></thead><tbody>";
  for (const JobFabric& j : r.jobs_with_findings) {
    for (const JobFabricFinding& f : j.findings) {
      *o += "<tr><td>" + std::to_string(j.job) + "</td><td>" +
            H(CompressHostlistSorted(j.nodes)) + "</td><td>" + H(FormatTime(j.end)) +
            "</td><td>" + H(f.kind) + "</td><td><a href=\"#" + NodeAnchor(f.node) + "\">" +
            H(f.node) + "</a></td><td>" + std::to_string(f.rail) + "</td><td>" + H(f.nic) +
            "</td><td>" + H(f.leaf) + "</td><td>" + H(f.message) + "</td></tr>";
    }
  }
  *o += "</tbody></table></section>\n";
}

void History(const Report& r, std::string* o) {
  *o += "<section id=\"history\"><h2>History</h2>";
  if (!r.history_read) {
    *o += "<p>No health event history was read.</p></section>\n";
    return;
  }
  *o += "<p>" + std::to_string(r.history_events) + " events in the last 7 days from " +
        H(JoinStrings(r.history_files, ", ")) + ".</p><h3>Repeat offenders (at least " +
        std::to_string(kRepeatOffenderIncidents) + " incidents in 7 days; events less than " +
        FormatAge(kIncidentGapSeconds) + " apart are one incident)</h3>";
  if (r.offenders.empty()) {
    *o += "<p>None.</p>";
  } else {
    *o +=
        "<table><thead><tr><th>node</th><th>incidents</th><th>events</th><th>flaps</th>"
        "<th>degradations</th>"
        "<th>drains</th><th>rails</th></tr></thead><tbody>";
    for (const Offender& off : r.offenders) {
      const NodeRow& n = r.nodes[static_cast<size_t>(off.node)];
      std::string rails;
      for (int k : off.rails) rails += (rails.empty() ? "" : ", ") + std::to_string(k);
      *o += "<tr><td><a href=\"#" + NodeAnchor(n.name) + "\">" + H(n.name) +
            "</a></td><td class=\"num\">" + std::to_string(off.incidents) +
            "</td><td class=\"num\">" + std::to_string(off.events) + "</td><td class=\"num\">" +
            std::to_string(off.flaps) + "</td><td class=\"num\">" +
            std::to_string(off.degradations) + "</td><td class=\"num\">" +
            std::to_string(off.drains) + "</td><td>" + rails + "</td></tr>";
    }
    *o += "</tbody></table>";
  }
  *o += "</section>\n";
}

void NodeDrill(const Report& r, const NodeRow& n, std::string* o) {
  const SuRow& su = r.sus[static_cast<size_t>(n.su)];
  std::string why = n.reason;
  if (why.empty() && n.restricted) why = "restricted: no " + r.healthy_feature;
  *o += "<details class=\"node\" id=\"" + NodeAnchor(n.name) + "\" data-node=\"" + H(n.name) +
        "\"><summary><span class=\"nname\">" + H(n.name) + "</span>" + RailSquares(r, n) +
        "<span class=\"state\">" + H(HtmlStateText(n)) + "</span><span class=\"why\">" + H(why) +
        "</span>" + WouldBadges(n) + "</summary><div class=\"drill\"><dl>";
  const auto item = [&](const std::string& k, const std::string& v) {
    *o += "<dt>" + H(k) + "</dt><dd>" + H(v) + "</dd>";
  };
  item("scalable unit", su.name + " (node " + std::to_string(n.position + 1) + " of " +
                            std::to_string(su.nodes.size()) + ")");
  item("Slurm state", HtmlStateText(n));
  if (n.drained)
    item("drained by",
         n.drained_by + (n.reason_user.empty() ? "" : " (user " + n.reason_user + ")"));
  if (!n.reason.empty()) item("reason", n.reason);
  if (n.reason_time > 0)
    item("since",
         FormatTime(n.reason_time) + " UTC (" + FormatAge(r.time - n.reason_time) + " ago)");
  item("restricted", n.restricted ? "yes: single-node jobs only (no " + r.healthy_feature + ")" +
                                        (n.restricted_since > 0
                                             ? ", since " + FormatTime(n.restricted_since) + " UTC"
                                             : std::string())
                                  : std::string("no"));
  item("railcheck report", n.source == HealthSource::kExtra
                               ? "verdict " + n.verdict + " at " + FormatTime(n.health_time) +
                                     " UTC" + (n.stale ? " (stale)" : "")
                           : n.source == HealthSource::kReason
                               ? "none in Extra; rails taken from the drain reason"
                               : "none");
  if (n.observe)
    item("observe mode", n.would.empty() ? "railcheck would change nothing"
                                         : "railcheck would " + JoinStrings(n.would, ", ") +
                                               "; nothing was changed in Slurm");
  if (!n.node_checks.empty()) item("node checks failed", JoinStrings(n.node_checks, ", "));
  std::string jobs;
  for (uint32_t id : n.jobs) jobs += (jobs.empty() ? "" : ", ") + std::to_string(id);
  item("jobs", jobs.empty() ? "none" : jobs);
  *o +=
      "</dl><table class=\"railtab\"><thead><tr><th>rail</th><th>NIC</th><th>leaf</th>"
      "<th>port</th><th>state</th><th>failed checks</th><th>counter rates</th>"
      "<th>flaps 24h/7d</th><th>degradations 24h/7d</th></tr></thead><tbody>";
  for (size_t k = 0; k < n.rails.size(); ++k) {
    const RailHistory& h = n.history[k];
    std::string rates;
    for (const CounterRate& c : h.rates)
      rates += (rates.empty() ? "" : ", ") + c.name + " " + RatePerHour(c.per_hour);
    const char* st = RailStateName(n.rails[k]);
    *o += "<tr data-rail=\"" + std::to_string(k) + "\"><td>" + H(r.rail_names[k]) + "</td><td>" +
          H(su.nics[k]) + "</td><td>" + H(su.leaves[k]) + "</td><td>" +
          (n.leaf_ports[k] > 0 ? "port " + std::to_string(n.leaf_ports[k]) : std::string("?")) +
          "</td><td class=\"" + st + "\">" + st + "</td><td>" +
          H(JoinStrings(n.rail_checks[k], ", ")) + "</td><td>" + H(rates) + "</td><td>" +
          std::to_string(h.flaps[k24h]) + "/" +
          std::to_string(h.flaps[k7d]) + "</td><td>" + std::to_string(h.degradations[k24h]) + "/" +
          std::to_string(h.degradations[k7d]) + "</td></tr>";
  }
  *o += "</tbody></table>";
  if (!n.events.empty()) {
    *o +=
        "<h3>Events, last 7 days</h3><table><thead><tr><th>time (UTC)</th><th>event</th>"
        "<th>rail</th><th>checks</th><th>detail</th></tr></thead><tbody>";
    for (const NodeEvent& e : n.events)
      *o += "<tr><td>" + H(FormatTime(e.time)) + "</td><td>" + H(e.kind) + "</td><td>" +
            (e.rail >= 0 ? std::to_string(e.rail) : std::string("node")) + "</td><td>" +
            H(e.checks) + "</td><td>" + H(e.detail) + "</td></tr>";
    *o += "</tbody></table>";
  }
  *o += "</div></details>";
}

void Nodes(const Report& r, std::string* o) {
  *o +=
      "<section id=\"nodes\"><h2>Nodes</h2><p><input id=\"filter\" type=\"search\" "
      "placeholder=\"filter nodes by name\" aria-label=\"filter nodes\"></p>";
  for (const SuRow& su : r.sus) {
    std::vector<const NodeRow*> shown;
    std::vector<std::string> fine, unknown;
    int would = 0;
    for (int idx : su.nodes) {
      const NodeRow& n = r.nodes[static_cast<size_t>(idx)];
      would += !n.would.empty();
      if (n.attention) {
        shown.push_back(&n);
      } else if (n.source == HealthSource::kNone) {
        unknown.push_back(n.name);
      } else {
        fine.push_back(n.name);
      }
    }
    *o += std::string("<details class=\"su\" data-su=\"") + H(su.name) + "\"" +
          (shown.empty() ? "" : " open") + "><summary>" + H(su.name) + ": " +
          std::to_string(su.nodes.size()) + " nodes, " + std::to_string(su.unhealthy) +
          " with bad rails, " + std::to_string(su.drained) + " drained, " +
          std::to_string(su.restricted) + " restricted, " + std::to_string(su.free) + " free" +
          (would ? ", " + std::to_string(would) + " railcheck would act on (observe mode)" : "") +
          "</summary>";
    if (!fine.empty())
      *o +=
          "<p class=\"okline\">every rail ok, nothing to show: " + H(CompressHostlistSorted(fine)) +
          "</p>";
    if (!unknown.empty())
      *o +=
          "<p class=\"okline\">no railcheck report: " + H(CompressHostlistSorted(unknown)) + "</p>";
    for (const NodeRow* n : shown) NodeDrill(r, *n, o);
    *o += "</details>";
  }
  *o += "</section>\n";
}

void HtmlNotes(const Report& r, std::string* o) {
  if (r.notes.empty() && r.problems.empty()) return;
  *o += "<section id=\"notes\"><h2>Notes</h2><ul>";
  for (const std::string& n : r.notes) *o += "<li>" + H(n) + "</li>";
  *o += "</ul>";
  if (!r.problems.empty()) {
    *o += "<h3>Input problems (" + std::to_string(r.problems.size()) +
          ")</h3><ul class=\"problems\">";
    for (const Diag& d : r.problems) *o += "<li>" + H(d.ToString()) + "</li>";
    *o += "</ul>";
  }
  *o += "</section>\n";
}

}  // namespace

std::string RenderHtml(const Report& r) {
  std::string o;
  o.reserve(64 * 1024 + r.nodes.size() * 256);
  o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
       "<title>railguard report: " +
       H(r.cluster) + "</title><style>" + kStyle + "</style></head>\n<body>\n";
  using Section = void (*)(const Report&, std::string*);
  const Section sections[] = {Header,   HtmlSuspects, Heatmap, HtmlCapacity,
                              HtmlJobs, HtmlJobPaths, History, Nodes,   HtmlNotes};
  for (Section section : sections) section(r, &o);
  o += "<footer>railctl report &middot; schema railguard-report version " +
       std::to_string(kReportSchemaVersion) + "</footer>\n<script>" + kScript +
       "</script>\n</body></html>\n";
  return o;
}

}  // namespace railguard::report
