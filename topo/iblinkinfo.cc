// SPDX-License-Identifier: GPL-2.0-or-later
// iblinkinfo output, read and written (topo/iblinkinfo.h).
#include "topo/iblinkinfo.h"

#include <cinttypes>
#include <cstdio>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topo/capture_line.h"
#include "topo/terminal_capture.h"

namespace railguard::topo {
namespace {

constexpr long kLinkinfoMaxPort = 65535;

const char kLinkinfoHeaderForm[] =
    "Switch: 0x<port guid> <description>:, CA: <description>: or Router: <description>:";
const char kLinkinfoPortForm[] =
    "[0x<port guid>] <lid> <port>[<ext>] ==(<width> <rate> Gbps <state>/ <physical state>)==> "
    "<peer lid> <peer port>[<ext>] \"<peer description>\" (<note>), the port GUID on a CA's "
    "lines, or [  ] \"\" ( ) for a port without a link";
const char kLinkinfoLineForm[] =
    "0x<port guid> \"<description>\" <lid> <port>[<ext>] ==(<width> <rate> Gbps <state>/ "
    "<physical state>)==> 0x<peer port guid> <peer lid> <peer port>[<ext>] \"<peer "
    "description>\" (<note>) (iblinkinfo -l)";
const char kLinkinfoRates[] =
    "2.5, 5.0, 10.0, 10.0 (FDR10), 14.0625, 25.78125, 53.125, 106.25 or 212.5 Gbps, or "
    "undefined (<n>)";

// Per-lane rate as iblinkinfo prints it -> IB speed name.
const std::pair<const char*, const char*> kLinkinfoSpeeds[] = {
    {"2.5 Gbps", "SDR"},     {"5.0 Gbps", "DDR"},
    {"10.0 Gbps", "QDR"},    {"10.0 Gbps (FDR10)", "FDR10"},
    {"14.0625 Gbps", "FDR"}, {"25.78125 Gbps", "EDR"},
    {"53.125 Gbps", "HDR"},  {"106.25 Gbps", "NDR"},
    {"212.5 Gbps", "XDR"}};

// A node's header (default layout) or, in -l, a node found from its lines.
struct LinkinfoNode {
  int line = 0;
  IbNodeType type = IbNodeType::kSwitch;
  uint64_t guid = 0;  // a switch's port GUID; a CA's or router's lowest port GUID
  std::string description;
};

// One port line.
struct LinkinfoPort {
  int line = 0;
  int node = -1;            // index into LinkinfoParser::nodes_
  uint64_t guid = 0;        // the port GUID the line prints (none on a switch's lines by default)
  std::string description;  // -l: the node's description
  int lid = 0;
  int port = 0;
  bool linked = false;
  std::string token;
  uint64_t peer_guid = 0;  // -l only
  int peer_lid = 0;
  int peer_port = 0;
  std::string peer_description;
};

bool LinkinfoStartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// Splits `s` at blanks.
std::vector<std::string_view> LinkinfoWords(std::string_view s) {
  std::vector<std::string_view> words;
  LineCursor c(s);
  for (c.SkipSpace(); !c.AtEnd(); c.SkipSpace()) words.push_back(c.ReadWord());
  return words;
}

// The text between "==(" and "==>": "<width> <rate> Gbps <state>/ <phys>)" and perhaps
// " (HOQ:.. VL_Stall:..)". `*up` is false for a Down port or one without width and rate.
// On failure `*what` says what is wrong and `*form` what was expected ("" for the line's form).
bool LinkinfoLink(std::string_view text, bool* up, std::string* token, std::string* what,
                  std::string* form) {
  const std::vector<std::string_view> words = LinkinfoWords(text);
  size_t state = 0;
  while (state < words.size() && words[state].find('/') == std::string_view::npos) ++state;
  if (state == words.size() || text.find(')') == std::string_view::npos) {
    *what = "missing the port state";
    return false;
  }
  *up = false;
  if (state == 0 || LinkinfoStartsWith(words[state], "Down/")) return true;
  size_t w = 0;
  std::string width;
  if (words[0] == "undefined" && state > 1) {
    width = "??";
    w = 2;
  } else {
    for (const char* known : {"1X", "2X", "4X", "8X", "12X"})
      if (words[0] == known) width = std::string(words[0].substr(0, words[0].size() - 1)) + "x";
    w = 1;
  }
  if (width.empty()) {
    *what = "bad link width \"" + std::string(words[0]) + "\"";
    *form = "1X, 2X, 4X, 8X, 12X or undefined (<n>)";
    return false;
  }
  std::string rate;
  for (size_t i = w; i < state; ++i) rate += (rate.empty() ? "" : " ") + std::string(words[i]);
  std::string speed;
  for (const auto& [text_rate, name] : kLinkinfoSpeeds)
    if (rate == text_rate) speed = name;
  if (speed.empty() && (LinkinfoStartsWith(rate, "undefined (") || rate == "Extended speed"))
    speed = "???";
  if (speed.empty()) {
    *what = "bad per-lane rate \"" + rate + "\"";
    *form = kLinkinfoRates;
    return false;
  }
  *up = true;
  *token = width + speed;
  return true;
}

class LinkinfoParser {
 public:
  LinkinfoParser(const std::string& file, IbFabric* out, Diags* errors)
      : errors_(file, errors), out_(out), build_(out) {}

  bool Parse(std::string_view text);

 private:
  const char* PortForm() const { return line_mode_ ? kLinkinfoLineForm : kLinkinfoPortForm; }
  bool Error(int line, const std::string& what, const std::string& form = "") {
    return errors_.Add(line, what, form);
  }
  void ReadLine(std::string_view line, int line_no);
  bool ReadHeader(std::string_view line, int line_no);
  void ReadPort(std::string_view line, int line_no);
  // After the local part: "==(...)==>" and the peer.
  bool ReadLinkAndPeer(LineCursor* c, LinkinfoPort* p);
  void GroupLines();    // -l: nodes from the lines
  bool GroupHeaders();  // default: the CAs' GUIDs and every node's LIDs
  void Build();

  struct Owner {
    int node = -1;  // index into nodes_
    int port = 0;   // 0 for a switch
    int line = 0;
    uint64_t guid = 0;    // the port's GUID
    int second_line = 0;  // another node's line with the same key, if any
  };

  CaptureErrors errors_;
  IbFabric* out_;
  IbFabricBuilder build_;
  int mode_line_ = 0;  // the first port line, which decides the layout
  bool line_mode_ = false;
  std::vector<LinkinfoNode> nodes_;
  std::vector<LinkinfoPort> ports_;
  std::unordered_map<uint64_t, Owner> by_guid_;  // switch GUID / CA port GUID -> owner
  std::unordered_map<int, Owner> by_lid_;        // default layout: LID -> owner
};

bool LinkinfoParser::ReadHeader(std::string_view line, int line_no) {
  LinkinfoNode n;
  n.line = line_no;
  std::string_view rest;
  if (LinkinfoStartsWith(line, "Switch: ")) {
    LineCursor c(line.substr(8));
    if (!c.ReadHexGuid(&n.guid) || !c.Consume(' '))
      return Error(line_no, "bad switch GUID in header", kLinkinfoHeaderForm);
    rest = c.Rest();
  } else if (LinkinfoStartsWith(line, "CA: ")) {
    n.type = IbNodeType::kCa;
    rest = line.substr(4);
  } else {
    n.type = IbNodeType::kRouter;
    rest = line.substr(8);
  }
  if (rest.empty() || rest.back() != ':')
    return Error(line_no, "header does not end with ':'", kLinkinfoHeaderForm);
  n.description = std::string(rest.substr(0, rest.size() - 1));
  nodes_.push_back(std::move(n));
  return true;
}

bool LinkinfoParser::ReadLinkAndPeer(LineCursor* c, LinkinfoPort* p) {
  c->SkipSpace();
  const std::string_view rest = c->Rest();
  const size_t arrow = rest.find("==>");
  if (!LinkinfoStartsWith(rest, "==(") || arrow == std::string_view::npos)
    return Error(p->line, "missing the ==(<link>)==> part", PortForm());
  bool up = false;
  std::string what;
  std::string form;
  if (!LinkinfoLink(rest.substr(3, arrow - 3), &up, &p->token, &what, &form))
    return Error(p->line, what, form.empty() ? PortForm() : form);
  const std::string_view peer = TrimCapture(rest.substr(arrow + 3));
  if (!up || LinkinfoStartsWith(peer, "[") || peer == "\"Port not available\"") return true;
  LineCursor r(peer);
  long lid = 0;
  long port = 0;
  if (line_mode_ && (!r.ReadHexGuid(&p->peer_guid) || !r.SkipSpace()))
    return Error(p->line, "missing the peer's port GUID", PortForm());
  if (!r.ReadInt(0, 0xffff, &lid) || !r.SkipSpace() || !r.ReadInt(1, kLinkinfoMaxPort, &port) ||
      !r.Consume('['))
    return Error(p->line, "missing the peer's lid and port", PortForm());
  const size_t open = peer.find('"', r.Pos());
  const size_t close = peer.rfind('"');
  if (open == std::string_view::npos || close == open)
    return Error(p->line, "missing the peer's quoted description", PortForm());
  p->linked = true;
  p->peer_lid = static_cast<int>(lid);
  p->peer_port = static_cast<int>(port);
  p->peer_description = std::string(peer.substr(open + 1, close - open - 1));
  return true;
}

void LinkinfoParser::ReadPort(std::string_view line, int line_no) {
  LinkinfoPort p;
  p.line = line_no;
  LineCursor c(line);
  const bool has_guid = c.ReadHexGuid(&p.guid);
  c.SkipSpace();
  const bool quoted = has_guid && c.Peek('"');
  if (mode_line_ == 0) {
    mode_line_ = line_no;
    line_mode_ = quoted;
  } else if (quoted != line_mode_) {
    Error(line_no,
          std::string("a ") + (quoted ? "-l" : "by-node") + " line in " +
              (line_mode_ ? "-l" : "by-node") + " output (layout set by line " +
              std::to_string(mode_line_) + ")",
          PortForm());
    return;
  }
  if (line_mode_) {
    const size_t link = line.find("==(");
    const size_t close = line.rfind('"', link == std::string_view::npos ? line.size() : link);
    if (close == std::string_view::npos || close <= c.Pos()) {
      Error(line_no, "missing the node's quoted description", kLinkinfoLineForm);
      return;
    }
    std::string_view desc = line.substr(c.Pos() + 1, close - c.Pos() - 1);
    if (desc.size() <= 30)  // printed "%30s": padded on the left
      while (!desc.empty() && desc.front() == ' ') desc.remove_prefix(1);
    p.description = std::string(desc);
    c.SetPos(close + 1);
    c.SkipSpace();
  } else {
    if (nodes_.empty()) {
      Error(line_no, "port line before any header",
            "a Switch: 0x<port guid> <description>:, CA: <description>: or Router: "
            "<description>: header before it");
      return;
    }
    p.node = static_cast<int>(nodes_.size()) - 1;
    const bool is_switch = nodes_[p.node].type == IbNodeType::kSwitch;
    if (has_guid == is_switch) {
      Error(line_no, is_switch ? "a port GUID on a switch's port line" : "missing the port's GUID",
            PortForm());
      return;
    }
  }
  long lid = 0;
  long port = 0;
  if (!c.ReadInt(0, 0xffff, &lid) || !c.SkipSpace() || !c.ReadInt(1, kLinkinfoMaxPort, &port) ||
      !c.Consume('[')) {
    Error(line_no, "missing the port's lid and port", PortForm());
    return;
  }
  const size_t bracket = c.Rest().find(']');
  if (bracket == std::string_view::npos) {
    Error(line_no, "missing the ']' after the port", PortForm());
    return;
  }
  c.SetPos(c.Pos() + bracket + 1);
  p.lid = static_cast<int>(lid);
  p.port = static_cast<int>(port);
  if (ReadLinkAndPeer(&c, &p)) ports_.push_back(std::move(p));
}

void LinkinfoParser::ReadLine(std::string_view raw, int line_no) {
  const std::string_view line = TrimCapture(raw);
  if (line.empty()) return;
  if (IsIbToolDiagnostic(line)) {
    out_->warnings.push_back(Diag{errors_.file(), line_no, 0,
                                  "iblinkinfo reported an error: \"" + EscapeNonPrintable(line) +
                                      "\"; the output may be incomplete"});
    return;
  }
  const bool header = LinkinfoStartsWith(line, "Switch: ") || LinkinfoStartsWith(line, "CA: ") ||
                      LinkinfoStartsWith(line, "Router: ");
  if (header && line_mode_) {
    Error(line_no,
          "a node header in -l output (layout set by line " + std::to_string(mode_line_) + ")",
          kLinkinfoLineForm);
    return;
  }
  if (header) {
    ReadHeader(line, line_no);
    return;
  }
  ReadPort(line, line_no);
}

void LinkinfoParser::GroupLines() {
  std::unordered_map<uint64_t, int> count;
  for (const LinkinfoPort& p : ports_) ++count[p.guid];
  const LinkinfoPort* prev = nullptr;
  for (LinkinfoPort& p : ports_) {
    if (count[p.guid] > 1) {  // a switch: one GUID for all its ports
      auto [it, fresh] =
          by_guid_.emplace(p.guid, Owner{static_cast<int>(nodes_.size()), 0, p.line, p.guid, 0});
      if (fresh) nodes_.push_back(LinkinfoNode{p.line, IbNodeType::kSwitch, p.guid, p.description});
      p.node = it->second.node;
      prev = nullptr;
      continue;
    }
    const bool same_node = prev && prev->description == p.description && prev->port < p.port &&
                           p.guid - prev->guid == static_cast<uint64_t>(p.port - prev->port) &&
                           nodes_[prev->node].type == IbNodeType::kCa;
    if (same_node) {
      p.node = prev->node;
    } else {
      p.node = static_cast<int>(nodes_.size());
      nodes_.push_back(LinkinfoNode{p.line, IbNodeType::kCa, p.guid, p.description});
    }
    by_guid_.emplace(p.guid, Owner{p.node, p.port, p.line, p.guid, 0});
    prev = &p;
  }
}

bool LinkinfoParser::GroupHeaders() {
  std::vector<bool> has_ports(nodes_.size(), false);
  for (const LinkinfoPort& p : ports_) {
    LinkinfoNode& n = nodes_[p.node];
    if (n.type != IbNodeType::kSwitch && (!has_ports[p.node] || p.guid < n.guid)) n.guid = p.guid;
    has_ports[p.node] = true;
  }
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (!has_ports[i]) Error(nodes_[i].line, "a header without port lines", kLinkinfoPortForm);
  for (const LinkinfoPort& p : ports_) {
    const LinkinfoNode& n = nodes_[p.node];
    const bool is_switch = n.type == IbNodeType::kSwitch;
    const Owner mine{p.node, is_switch ? 0 : p.port, p.line, is_switch ? n.guid : p.guid, 0};
    auto [it, fresh] = by_guid_.emplace(is_switch ? n.guid : p.guid, mine);
    if (!fresh && it->second.node != p.node)
      Error(p.line,
            "second record for " + GuidString(is_switch ? n.guid : p.guid) + " (first at line " +
                std::to_string(nodes_[it->second.node].line) + ")",
            "one record per node");
    auto [at, new_lid] = by_lid_.emplace(p.lid, mine);
    if (!new_lid && (at->second.node != p.node || at->second.port != mine.port) &&
        at->second.second_line == 0)
      at->second.second_line = p.line;
  }
  return errors_.count() == 0;
}

void LinkinfoParser::Build() {
  for (const LinkinfoPort& p : ports_) {
    if (errors_.full()) return;
    const LinkinfoNode& n = nodes_[p.node];
    std::string err;
    const int node = build_.Node(n.type, n.guid, n.description, &err);
    if (node < 0) {
      Error(p.line, err);
      continue;
    }
    build_.Own(node, n.line, n.description, p.port);
    const bool is_switch = n.type == IbNodeType::kSwitch;
    build_.SetAddress(node, p.port, IbPortAddress{is_switch ? n.guid : p.guid, p.lid});
    if (!p.linked) continue;
    // The peer: its node in nodes_ (or -1 for a peer without lines of its own) and port GUID.
    int peer_at = -1;
    int owner_port = 0;
    uint64_t peer_port_guid = p.peer_guid;
    if (line_mode_) {
      auto it = by_guid_.find(p.peer_guid);
      if (it != by_guid_.end()) {
        peer_at = it->second.node;
        owner_port = it->second.port;
      }
    } else {
      auto it = by_lid_.find(p.peer_lid);
      if (it == by_lid_.end()) {
        Error(p.line,
              "no node listed has lid " + std::to_string(p.peer_lid) + " (the peer \"" +
                  p.peer_description + "\")",
              "every node's own lines (iblinkinfo without --switches-only, --cas-only or a "
              "partial scan), or iblinkinfo -l, which names peers by GUID");
        continue;
      }
      if (it->second.second_line != 0) {
        Error(p.line,
              "lid " + std::to_string(p.peer_lid) + " is on line " +
                  std::to_string(it->second.line) + " and on line " +
                  std::to_string(it->second.second_line),
              "one port per lid (iblinkinfo -l names peers by GUID)");
        continue;
      }
      peer_at = it->second.node;
      owner_port = it->second.port;
      peer_port_guid = it->second.guid;
    }
    IbNodeType peer_type = IbNodeType::kCa;
    uint64_t peer_guid = p.peer_guid;
    std::string_view peer_desc = p.peer_description;
    if (peer_at >= 0) {
      const LinkinfoNode& m = nodes_[peer_at];
      peer_type = m.type;
      peer_guid = m.guid;
      peer_desc = m.description;
      if (m.type == IbNodeType::kSwitch) {
        peer_port_guid = m.guid;
      } else if (owner_port != p.peer_port) {
        Error(p.line,
              std::string(line_mode_ ? "port GUID " + GuidString(p.peer_guid)
                                     : "lid " + std::to_string(p.peer_lid)) +
                  " is port " + std::to_string(owner_port) + " of \"" + m.description +
                  "\" (line " + std::to_string(m.line) + "), not port " +
                  std::to_string(p.peer_port),
              "both ends of a link to name each other");
        continue;
      }
    }
    const int peer = build_.Node(peer_type, peer_guid, peer_desc, &err);
    if (peer < 0) {
      Error(p.line, err);
      continue;
    }
    if (!build_.AddView(node, p.port, peer, p.peer_port, p.token, p.line, &err)) {
      Error(p.line, err);
      continue;
    }
    build_.SetAddress(peer, p.peer_port, IbPortAddress{peer_port_guid, p.peer_lid});
  }
}

bool LinkinfoParser::Parse(std::string_view text) {
  ForEachCaptureLine(text, errors_, [&](std::string_view line, int n) { ReadLine(line, n); });
  if (errors_.count() > 0) return false;
  if (line_mode_) {
    GroupLines();
  } else if (!GroupHeaders()) {
    return false;
  }
  out_->by_guid.reserve(nodes_.size() + 16);
  Build();
  if (!errors_.full())
    for (const auto& [line, what] : build_.CheckPortRanges()) Error(line, what);
  return errors_.count() == 0;
}

// iblinkinfo's "(%3s %18s %6s/%8s)" of a link with `token`, Active and LinkUp.
std::string LinkinfoLinkText(const std::string& token) {
  const size_t x = token.find('x');
  std::string width = "undefined (0)";
  std::string rate = "undefined (0)";
  if (x != std::string::npos && x > 0 && token.substr(0, x) != "??")
    width = token.substr(0, x) + "X";
  const std::string speed = x == std::string::npos ? token : token.substr(x + 1);
  for (const auto& [text_rate, name] : kLinkinfoSpeeds)
    if (speed == name) rate = text_rate;
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%3s %18s %6s/%8s)", width.c_str(), rate.c_str(), "Active",
                "LinkUp");
  return buf;
}

}  // namespace

bool ParseIblinkinfo(std::string_view text, const std::string& filename, IbFabric* out,
                     Diags* errors) {
  return ParseTerminalCapture(text, out, [&](const std::string& output) {
    return LinkinfoParser(filename, out, errors).Parse(output);
  });
}

std::string WriteIblinkinfo(const IbFabric& f, IblinkinfoLayout layout) {
  std::string out;
  char buf[160];
  for (int i = 0; i < static_cast<int>(f.nodes.size()); ++i) {
    const IbNode& n = f.nodes[i];
    const bool is_switch = n.type == IbNodeType::kSwitch;
    auto guid_of = [&](int node, int port) {
      const IbPortAddress a = f.Address(node, port);
      return a.guid ? a.guid : f.nodes[node].guid;
    };
    int top = n.ports;
    for (int p = static_cast<int>(n.links.size()) - 1; p > top; --p)
      if (n.links[p] >= 0) top = p;
    bool header = layout == IblinkinfoLayout::kLines;
    for (int p = 1; p <= top; ++p) {
      const int li = f.FindLink(i, p);
      if (li < 0 && !is_switch) continue;
      if (!header) {
        if (is_switch) {
          std::snprintf(buf, sizeof buf, "Switch: 0x%016" PRIx64 " ", guid_of(i, 0));
          out += buf + n.description + ":\n";
        } else {
          out += (n.type == IbNodeType::kCa ? "CA: " : "Router: ") + n.description + ":\n";
        }
        header = true;
      }
      if (layout == IblinkinfoLayout::kLines) {
        std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " \"%30s\" ", guid_of(i, p),
                      n.description.c_str());
        out += buf;
      } else {
        out += "      ";
        if (!is_switch) {
          std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " ", guid_of(i, p));
          out += buf;
        }
      }
      std::snprintf(buf, sizeof buf, "%6d %4d[%2s] ==", f.Address(i, p).lid, p, "");
      out += buf;
      if (li < 0) {
        std::snprintf(buf, sizeof buf, "(              %6s/%8s)", "Down", "Polling");
        out += std::string(buf) + "==>             [  ] \"\" ( )\n";
        continue;
      }
      const IbLink& l = f.links[li];
      const IbPort peer = f.Peer(l, i, p);
      out += LinkinfoLinkText(l.TokenSeenFrom(i, p)) + "==>  ";
      if (layout == IblinkinfoLayout::kLines) {
        std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " ", guid_of(peer.node, peer.port));
        out += buf;
      }
      std::snprintf(buf, sizeof buf, "%6d %4d[%2s] \"", f.Address(peer.node, peer.port).lid,
                    peer.port, "");
      out += buf + f.nodes[peer.node].description + "\" ( )\n";
    }
  }
  return out;
}

}  // namespace railguard::topo
