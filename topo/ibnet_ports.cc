// SPDX-License-Identifier: GPL-2.0-or-later
// The `ibnetdiscover -p` ports report, read and written (topo/ibnet_ports.h).
#include "topo/ibnet_ports.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topo/capture_line.h"
#include "topo/terminal_capture.h"

namespace railguard::topo {
namespace {

constexpr long kPortsMaxPort = 65535;

const char kPortsLineForm[] =
    "<SW|CA|RT> <lid> <port> 0x<port guid> <width> <speed>, then - <SW|CA|RT> <lid> <port> "
    "0x<port guid> ( '<description>' - '<peer description>' ), or '<description>' for a port "
    "without a link";

// One line of the report.
struct PortsLine {
  int line = 0;
  IbNodeType type = IbNodeType::kSwitch;
  IbPortAddress address;
  int port = 0;
  std::string token;  // "4xQDR"
  std::string description;
  bool linked = false;
  IbNodeType peer_type = IbNodeType::kSwitch;
  IbPortAddress peer_address;
  int peer_port = 0;
  std::string peer_description;
};

const char* PortsTypeName(IbNodeType t) {
  return t == IbNodeType::kSwitch ? "SW" : t == IbNodeType::kCa ? "CA" : "RT";
}

bool ReadPortsType(LineCursor* c, IbNodeType* type) {
  for (IbNodeType t : {IbNodeType::kSwitch, IbNodeType::kCa, IbNodeType::kRouter}) {
    if (c->Consume(PortsTypeName(t))) {
      *type = t;
      return true;
    }
  }
  return false;
}

// "4x" and "QDR" (or "??" and "???") as one token, "4xQDR".
bool PortsToken(std::string_view width, std::string_view speed, std::string* token) {
  if (width.empty() || speed.empty() || width.size() > 4 || speed.size() > 8) return false;
  if (width != "??") {
    if (width.back() != 'x' || width.size() < 2) return false;
    for (char ch : width.substr(0, width.size() - 1))
      if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
  }
  for (char ch : speed)
    if (!(std::isupper(static_cast<unsigned char>(ch)) ||
          std::isdigit(static_cast<unsigned char>(ch)) || ch == '?'))
      return false;
  *token = std::string(width) + std::string(speed);
  return true;
}

class PortsParser {
 public:
  PortsParser(const std::string& file, IbFabric* out, Diags* errors)
      : errors_(file, errors), out_(out), build_(out) {}

  bool Parse(std::string_view text);

 private:
  // Reads "<type> <lid> <port> 0x<guid>" into `*l`'s own (peer false) or peer fields.
  bool ReadEnd(LineCursor* c, PortsLine* l, bool peer);
  void ReadLine(std::string_view line, int line_no);
  // Gives each own line its node GUID (see ParseIbnetPorts).
  void GroupNodes();
  void Build();

  CaptureErrors errors_;
  IbFabric* out_;
  IbFabricBuilder build_;
  std::vector<PortsLine> lines_;
  std::vector<uint64_t> node_guid_;  // per line in lines_
  // A CA's or router's port GUID -> its node GUID and port, for the ports with lines.
  std::unordered_map<uint64_t, std::pair<uint64_t, int>> port_owner_;
};

bool PortsParser::ReadEnd(LineCursor* c, PortsLine* l, bool peer) {
  const std::string whose = peer ? "peer " : "";
  IbNodeType type;
  if (!ReadPortsType(c, &type)) {
    const std::string word(c->ReadWord());
    return errors_.Add(l->line, "bad " + whose + "node type \"" + word + "\"", kPortsLineForm);
  }
  long lid = 0;
  long port = 0;
  uint64_t guid = 0;
  if (!c->SkipSpace() || !c->ReadInt(0, 0xffff, &lid))
    return errors_.Add(l->line, "bad " + whose + "lid", kPortsLineForm);
  if (!c->SkipSpace() || !c->ReadInt(1, kPortsMaxPort, &port))
    return errors_.Add(l->line, "bad " + whose + "port number", kPortsLineForm);
  if (!c->SkipSpace() || !c->ReadHexGuid(&guid))
    return errors_.Add(l->line, "bad " + whose + "port GUID", kPortsLineForm);
  (peer ? l->peer_type : l->type) = type;
  (peer ? l->peer_address : l->address) = IbPortAddress{guid, static_cast<int>(lid)};
  (peer ? l->peer_port : l->port) = static_cast<int>(port);
  return true;
}

void PortsParser::ReadLine(std::string_view raw, int line_no) {
  const std::string_view line = TrimCapture(raw);
  if (line.empty()) return;
  if (IsIbToolDiagnostic(line)) {
    out_->warnings.push_back(Diag{errors_.file(), line_no, 0,
                                  "ibnetdiscover reported an error: \"" + EscapeNonPrintable(line) +
                                      "\"; the report may be "
                                      "incomplete"});
    return;
  }
  PortsLine l;
  l.line = line_no;
  LineCursor c(line);
  if (!ReadEnd(&c, &l, false)) return;
  c.SkipSpace();
  const std::string_view width = c.ReadWord();
  c.SkipSpace();
  const std::string_view speed = c.ReadWord();
  if (!PortsToken(width, speed, &l.token)) {
    errors_.Add(
        line_no,
        "bad link width and speed \"" + std::string(width) + " " + std::string(speed) + "\"",
        kPortsLineForm);
    return;
  }
  c.SkipSpace();
  if (c.Consume('\'')) {  // a port without a link: its node's description closes the line
    if (line.back() != '\'' || c.Pos() > line.size() - 1) {
      errors_.Add(line_no, "unterminated description", kPortsLineForm);
      return;
    }
    l.description = std::string(line.substr(c.Pos(), line.size() - 1 - c.Pos()));
    lines_.push_back(std::move(l));
    return;
  }
  if (!c.Consume('-') || !c.SkipSpace()) {
    errors_.Add(line_no, "expected '-' and the peer, or a quoted description, after the speed",
                kPortsLineForm);
    return;
  }
  if (!ReadEnd(&c, &l, true)) return;
  c.SkipSpace();
  // "( '<description>' - '<peer description>' )": the separator is the first "' - '".
  const std::string_view rest = c.Rest();
  const size_t sep = rest.find("' - '");
  if (rest.substr(0, 3) != "( '" || rest.size() < 4 || rest.substr(rest.size() - 3) != "' )" ||
      sep == std::string_view::npos || sep < 2 || sep + 5 > rest.size() - 3) {
    errors_.Add(line_no, "missing the ( '<description>' - '<peer description>' ) pair",
                kPortsLineForm);
    return;
  }
  l.description = std::string(rest.substr(3, sep - 3));
  l.peer_description = std::string(rest.substr(sep + 5, rest.size() - 3 - (sep + 5)));
  l.linked = true;
  lines_.push_back(std::move(l));
}

void PortsParser::GroupNodes() {
  node_guid_.assign(lines_.size(), 0);
  size_t start = 0;  // first line of the current CA's or router's group
  for (size_t i = 0; i < lines_.size(); ++i) {
    const PortsLine& l = lines_[i];
    if (l.type == IbNodeType::kSwitch) {
      node_guid_[i] = l.address.guid;
      start = i + 1;
      continue;
    }
    const PortsLine* prev = i > start ? &lines_[i - 1] : nullptr;
    const bool same_node =
        prev && prev->type == l.type && prev->description == l.description && prev->port > l.port &&
        prev->address.guid - l.address.guid == static_cast<uint64_t>(prev->port - l.port);
    if (!same_node) start = i;
    // Ports come from the highest down: this one is the group's lowest so far.
    for (size_t j = start; j <= i; ++j) node_guid_[j] = l.address.guid;
  }
  for (size_t i = 0; i < lines_.size(); ++i) {
    const PortsLine& l = lines_[i];
    if (l.type != IbNodeType::kSwitch)
      port_owner_.emplace(l.address.guid, std::make_pair(node_guid_[i], l.port));
  }
}

void PortsParser::Build() {
  for (size_t i = 0; i < lines_.size() && !errors_.full(); ++i) {
    const PortsLine& l = lines_[i];
    std::string err;
    const int node = build_.Node(l.type, node_guid_[i], l.description, &err);
    if (node < 0) {
      errors_.Add(l.line, err);
      continue;
    }
    build_.Own(node, l.line, l.description, l.port);
    if (out_->nodes[node].type != IbNodeType::kSwitch) {
      auto owner = port_owner_.find(l.address.guid);
      if (owner != port_owner_.end() && owner->second.second != l.port) {
        errors_.Add(l.line, "port GUID " + GuidString(l.address.guid) + " is port " +
                                std::to_string(owner->second.second) + " of " +
                                build_.Quoted(node) + " and port " + std::to_string(l.port) +
                                "; expected one port per port GUID");
        continue;
      }
    }
    build_.SetAddress(node, l.port, l.address);
    if (!l.linked) continue;
    uint64_t peer_guid = l.peer_address.guid;
    if (l.peer_type != IbNodeType::kSwitch) {
      auto owner = port_owner_.find(peer_guid);
      if (owner != port_owner_.end()) {
        if (owner->second.second != l.peer_port) {
          errors_.Add(l.line, "the peer's port GUID " + GuidString(peer_guid) + " is port " +
                                  std::to_string(owner->second.second) + " in its own lines, not " +
                                  std::to_string(l.peer_port) +
                                  "; expected both ends of a link to name each other");
          continue;
        }
        peer_guid = owner->second.first;
      }
    }
    const int peer = build_.Node(l.peer_type, peer_guid, l.peer_description, &err);
    if (peer < 0) {
      errors_.Add(l.line, err);
      continue;
    }
    if (!build_.AddView(node, l.port, peer, l.peer_port, l.token, l.line, &err)) {
      errors_.Add(l.line, err);
      continue;
    }
    build_.SetAddress(peer, l.peer_port, l.peer_address);
  }
}

bool PortsParser::Parse(std::string_view text) {
  ForEachCaptureLine(text, errors_, [&](std::string_view line, int n) { ReadLine(line, n); });
  if (errors_.count() > 0) return false;
  out_->by_guid.reserve(lines_.size() / 8 + 16);
  GroupNodes();
  Build();
  if (!errors_.full())
    for (const auto& [line, what] : build_.CheckPortRanges()) errors_.Add(line, what);
  return errors_.count() == 0;
}

// `token` ("4xQDR") as the report's two words "4x" and "QDR".
std::pair<std::string, std::string> PortsSplitToken(const std::string& token) {
  const size_t x = token.find('x');
  if (x == std::string::npos || x + 1 >= token.size()) return {"??", "???"};
  return {token.substr(0, x + 1), token.substr(x + 1)};
}

std::string PortsEnd(const IbFabric& f, int node, int port) {
  const IbNode& n = f.nodes[node];
  const IbPortAddress a = f.Address(node, port);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%2s %5d %2d 0x%016" PRIx64, PortsTypeName(n.type), a.lid, port,
                a.guid ? a.guid : n.guid);
  return buf;
}

}  // namespace

bool ParseIbnetPorts(std::string_view text, const std::string& filename, IbFabric* out,
                     Diags* errors) {
  return ParseTerminalCapture(text, out, [&](const std::string& report) {
    return PortsParser(filename, out, errors).Parse(report);
  });
}

std::string WriteIbnetPorts(const IbFabric& f) {
  std::string out;
  for (int i = 0; i < static_cast<int>(f.nodes.size()); ++i) {
    const IbNode& n = f.nodes[i];
    int top = n.ports;
    for (int p = static_cast<int>(n.links.size()) - 1; p > top; --p)
      if (n.links[p] >= 0) top = p;
    for (int p = top; p >= 1; --p) {
      const int li = f.FindLink(i, p);
      if (li < 0 && n.type != IbNodeType::kSwitch) continue;
      if (li < 0) {
        out += PortsEnd(f, i, p) + " 4x SDR" + std::string(36, ' ') + "'" + n.description + "'\n";
        continue;
      }
      const IbLink& l = f.links[li];
      const auto [width, speed] = PortsSplitToken(l.TokenSeenFrom(i, p));
      const IbPort peer = f.Peer(l, i, p);
      out += PortsEnd(f, i, p) + " " + width + " " + speed + " - " +
             PortsEnd(f, peer.node, peer.port) + " ( '" + n.description + "' - '" +
             f.nodes[peer.node].description + "' )\n";
    }
  }
  return out;
}

}  // namespace railguard::topo
