// SPDX-License-Identifier: GPL-2.0-or-later
// ibdiagnet's ibdiagnet2.lst, read and written (topo/ibdiagnet_lst.h).
#include "topo/ibdiagnet_lst.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "topo/capture_line.h"
#include "topo/terminal_capture.h"

namespace railguard::topo {
namespace {

constexpr long kLstMaxPort = 0xffff;

const char kLstLineForm[] =
    "{ <SW|CA|Rt|RTR> Ports:<hex> SystemGUID:<hex> NodeGUID:<hex> PortGUID:<hex> VenID:<hex> "
    "DevID:<hex> Rev:<hex> {<description>} LID:<hex> PN:<hex> } for each end, then PHY=<width> "
    "LOG=<state> SPD=<rate>";
const char kLstTypeForm[] = "SW, CA, Rt or RTR, with -SM at the subnet manager's port";
const char kLstWidthForm[] = "PHY=1x, 2x, 4x, 8x, 12x, ?? or UNKNOWN";
const char kLstStateForm[] = "LOG=ACT, ARM, INI, DWN, DOWN or UNKNOWN";
const char kLstRateForm[] =
    "SPD=2.5, 5, 10, FDR10, 14, 25, EDR20, 50, 100, 200, ?? or UNKNOWN (Gb/s per lane)";

// SPD= as ibdiagnet and opensm print it -> IB speed name.
const std::pair<const char*, const char*> kLstSpeeds[] = {
    {"2.5", "SDR"}, {"5", "DDR"},  {"10", "QDR"},  {"FDR10", "FDR10"}, {"14", "FDR"},
    {"25", "EDR"},  {"50", "HDR"}, {"100", "NDR"}, {"200", "XDR"}};
// Rates LST files print that name no IB speed.
const char* const kLstUnknownRates[] = {"??", "UNKNOWN", "EDR20"};
const char* const kLstWidths[] = {"1x", "2x", "4x", "8x", "12x"};

// One end of a line: "{ <type> Ports:.. ... {<description>} LID:.. PN:.. }".
struct LstEnd {
  IbNodeType type = IbNodeType::kCa;
  int ports = 0;
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  std::string description;
  int lid = 0;
  int port = 0;
};

bool LstStartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// `v` as 1 to 16 hex digits ("0x" first when `prefix` allows it) in [lo, hi].
bool LstHex(std::string_view v, bool prefix, uint64_t lo, uint64_t hi, uint64_t* out) {
  LineCursor c(v);
  if (prefix && !c.Consume("0x")) c.Consume("0X");
  uint64_t n = 0;
  if (!c.ReadHex(&n) || !c.AtEnd() || n < lo || n > hi) return false;
  *out = n;
  return true;
}

// The value after a "Key:": up to a blank or a brace.
std::string_view LstValue(LineCursor* c) {
  const std::string_view rest = c->Rest();
  size_t n = 0;
  while (n < rest.size() && !IsCaptureSpace(rest[n]) && rest[n] != '{' && rest[n] != '}') ++n;
  c->SetPos(c->Pos() + n);
  return rest.substr(0, n);
}

// A hex field of an end: its key, whether it is a GUID, its range and its form.
struct LstField {
  const char* key;  // "NodeGUID:"
  bool guid;
  uint64_t lo;
  uint64_t hi;
  const char* form;  // "NodeGUID:<16 hex digits>"
};

const LstField kLstPortsField = {"Ports:", false, 1, kLstMaxPort, "Ports:<port count in hex>"};
const LstField kLstHeadFields[] = {
    {"SystemGUID:", true, 0, UINT64_MAX, "SystemGUID:<16 hex digits>"},
    {"NodeGUID:", true, 0, UINT64_MAX, "NodeGUID:<16 hex digits>"},
    {"PortGUID:", true, 0, UINT64_MAX, "PortGUID:<16 hex digits>"},
    {"VenID:", false, 0, 0xffffffff, "VenID:<hex>"},
    {"DevID:", false, 0, 0xffffffff, "DevID:<hex>"},
    {"Rev:", false, 0, 0xffffffff, "Rev:<hex>"},
};
const LstField kLstLidField = {"LID:", false, 0, 0xffff, "LID:<hex, 0 to FFFF>"};
const LstField kLstPortField = {"PN:", false, 1, kLstMaxPort, "PN:<port in hex, 1 to FFFF>"};

class LstParser {
 public:
  LstParser(const std::string& file, IbFabric* out, Diags* errors)
      : errors_(file, errors), out_(out), build_(out) {}

  bool Parse(std::string_view text);

 private:
  bool Error(int line, const std::string& what, const std::string& form = kLstLineForm) {
    return errors_.Add(line, what, form);
  }
  // Reads "<key><value>" after blanks into `*out`; false after reporting what is wrong, `where`
  // (" in the first end") saying where.
  bool ReadField(LineCursor* c, const LstField& field, const std::string& where, int line,
                 uint64_t* out);
  // Reads one end; `name` is "first end" or "second end".
  bool ReadEnd(LineCursor* c, const std::string& name, int line, LstEnd* end);
  // After the two ends: "PHY=.. LOG=.. [SPD=..]". `*linked` is false for a port not up.
  bool ReadState(LineCursor* c, int line, bool* linked, std::string* token);
  void ReadLine(std::string_view line, int line_no);

  CaptureErrors errors_;
  IbFabric* out_;
  IbFabricBuilder build_;
};

bool LstParser::ReadField(LineCursor* c, const LstField& field, const std::string& where, int line,
                          uint64_t* out) {
  c->SkipSpace();
  if (!c->Consume(field.key)) return Error(line, std::string("missing ") + field.key + where);
  const std::string_view value = LstValue(c);
  if (!LstHex(value, field.guid, field.lo, field.hi, out)) {
    const std::string_view name(field.key, std::char_traits<char>::length(field.key) - 1);
    return Error(line, "bad " + std::string(name) + " \"" + ShownLine(value) + "\"" + where,
                 field.form);
  }
  return true;
}

bool LstParser::ReadEnd(LineCursor* c, const std::string& name, int line, LstEnd* end) {
  const std::string whose = " in the " + name;
  c->SkipSpace();
  if (!c->Consume('{')) return Error(line, "missing the '{' that opens the " + name);
  c->SkipSpace();
  std::string_view type = c->ReadWord();
  const std::string_view shown = type;
  if (type.size() > 3 && type.substr(type.size() - 3) == "-SM") type.remove_suffix(3);
  if (type == "SW") {
    end->type = IbNodeType::kSwitch;
  } else if (type == "CA") {
    end->type = IbNodeType::kCa;
  } else if (type == "Rt" || type == "RTR") {
    end->type = IbNodeType::kRouter;
  } else {
    return Error(line, "bad node type \"" + ShownLine(shown) + "\"" + whose, kLstTypeForm);
  }
  uint64_t v = 0;
  if (!ReadField(c, kLstPortsField, whose, line, &v)) return false;
  end->ports = static_cast<int>(v);
  for (size_t k = 0; k < sizeof kLstHeadFields / sizeof kLstHeadFields[0]; ++k) {
    if (!ReadField(c, kLstHeadFields[k], whose, line, &v)) return false;
    if (k == 1) end->node_guid = v;
    if (k == 2) end->port_guid = v;
  }
  // "{<description>} LID:": the description ends at the first '}' that LID: follows.
  c->SkipSpace();
  if (!c->Consume('{')) return Error(line, "missing the {<description>} after Rev:" + whose);
  const std::string_view rest = c->Rest();
  size_t close = rest.find('}');
  while (close != std::string_view::npos) {
    LineCursor after(rest.substr(close + 1));
    after.SkipSpace();
    if (after.Consume("LID:")) break;
    close = rest.find('}', close + 1);
  }
  if (close == std::string_view::npos)
    return Error(line, "missing the '}' and LID: after the description" + whose);
  end->description = std::string(rest.substr(0, close));
  c->SetPos(c->Pos() + close + 1);
  if (!ReadField(c, kLstLidField, whose, line, &v)) return false;
  end->lid = static_cast<int>(v);
  if (!ReadField(c, kLstPortField, whose, line, &v)) return false;
  end->port = static_cast<int>(v);
  c->SkipSpace();
  if (!c->Consume('}')) return Error(line, "missing the '}' that closes the " + name);
  return true;
}

bool LstParser::ReadState(LineCursor* c, int line, bool* linked, std::string* token) {
  c->SkipSpace();
  const std::string_view phy = c->ReadWord();
  if (!LstStartsWith(phy, "PHY="))
    return Error(line, phy.empty() ? "missing PHY=<width> after the second end"
                                   : "expected PHY=<width> after the second end, not \"" +
                                         ShownLine(phy) + "\"");
  const std::string_view width = phy.substr(4);
  std::string lanes;
  for (const char* known : kLstWidths)
    if (width == known) lanes = known;
  if (lanes.empty() && (width == "??" || width == "UNKNOWN")) lanes = "??";
  if (lanes.empty())
    return Error(line, "bad link width \"" + ShownLine(width) + "\"", kLstWidthForm);
  c->SkipSpace();
  const std::string_view log = c->ReadWord();
  if (!LstStartsWith(log, "LOG="))
    return Error(line, log.empty()
                           ? "missing LOG=<state> after PHY="
                           : "expected LOG=<state> after PHY=, not \"" + ShownLine(log) + "\"");
  const std::string_view state = log.substr(4);
  if (state == "ACT" || state == "ARM" || state == "INI") {
    *linked = true;
  } else if (state == "DWN" || state == "DOWN" || state == "UNKNOWN") {
    *linked = false;
  } else {
    return Error(line, "bad port state \"" + ShownLine(state) + "\"", kLstStateForm);
  }
  c->SkipSpace();
  std::string speed = "SDR";  // ibdm's reading of a line without SPD=
  if (LstStartsWith(c->Rest(), "SPD=")) {
    const std::string_view rate = c->ReadWord().substr(4);
    speed.clear();
    for (const auto& [text, name] : kLstSpeeds)
      if (rate == text) speed = name;
    for (const char* unknown : kLstUnknownRates)
      if (rate == unknown) speed = "???";
    if (speed.empty())
      return Error(line, "bad per-lane rate \"" + ShownLine(rate) + "\"", kLstRateForm);
  }
  for (c->SkipSpace(); !c->AtEnd(); c->SkipSpace()) {
    const std::string_view word = c->ReadWord();
    if (word.find('=') == std::string_view::npos || word.front() == '=')
      return Error(line, "unexpected \"" + ShownLine(word) + "\" after the link's state");
  }
  *token = lanes + speed;
  return true;
}

void LstParser::ReadLine(std::string_view raw, int line_no) {
  const std::string_view line = TrimCapture(raw);
  if (line.empty() || line.front() == '#') return;
  if (IsIbToolDiagnostic(line)) {
    out_->warnings.push_back(Diag{errors_.file(), line_no, 0,
                                  "ibdiagnet reported an error: \"" + EscapeNonPrintable(line) +
                                      "\"; the list may be incomplete"});
    return;
  }
  if (line.front() != '{') {
    Error(line_no, "not a link line: \"" + ShownLine(line) + "\"");
    return;
  }
  LineCursor c(line);
  LstEnd mine;
  LstEnd theirs;
  bool linked = false;
  std::string token;
  if (!ReadEnd(&c, "first end", line_no, &mine) || !ReadEnd(&c, "second end", line_no, &theirs) ||
      !ReadState(&c, line_no, &linked, &token))
    return;
  std::string err;
  const int node = build_.Node(mine.type, mine.node_guid, mine.description, &err);
  const int peer =
      node < 0 ? -1 : build_.Node(theirs.type, theirs.node_guid, theirs.description, &err);
  if (node < 0 || peer < 0) {
    Error(line_no, err, "");
    return;
  }
  build_.Own(node, line_no, mine.description, mine.ports);
  build_.Own(peer, line_no, theirs.description, theirs.ports);
  build_.SetAddress(node, mine.port, IbPortAddress{mine.port_guid, mine.lid});
  build_.SetAddress(peer, theirs.port, IbPortAddress{theirs.port_guid, theirs.lid});
  if (linked && !build_.AddView(node, mine.port, peer, theirs.port, token, line_no, &err))
    Error(line_no, err, "");
}

bool LstParser::Parse(std::string_view text) {
  ForEachCaptureLine(text, errors_, [&](std::string_view line, int n) { ReadLine(line, n); });
  if (!errors_.full())
    for (const auto& [line, what] : build_.CheckPortRanges()) errors_.Add(line, what);
  return errors_.count() == 0;
}

// `token` ("4xNDR", "??QDR", "4x???") as PHY= and SPD= values.
std::pair<std::string, std::string> LstWidthAndRate(const std::string& token) {
  std::string width = "??";
  std::string speed = token;
  const size_t x = token.find('x');
  if (LstStartsWith(token, "??")) {
    speed = token.substr(2);
  } else if (x != std::string::npos) {
    for (const char* known : kLstWidths)
      if (token.compare(0, x + 1, known) == 0) width = known;
    speed = token.substr(x + 1);
  }
  std::string rate = "??";
  for (const auto& [text, name] : kLstSpeeds)
    if (speed == name) rate = text;
  return {width, rate};
}

const char* LstTypeName(IbNodeType t) {
  return t == IbNodeType::kSwitch ? "SW" : t == IbNodeType::kCa ? "CA" : "RTR";
}

}  // namespace

bool ParseIbdiagnetLst(std::string_view text, const std::string& filename, IbFabric* out,
                       Diags* errors) {
  return ParseTerminalCapture(text, out, [&](const std::string& list) {
    return LstParser(filename, out, errors).Parse(list);
  });
}

std::string WriteIbdiagnetLst(const IbFabric& f) {
  const int nodes = static_cast<int>(f.nodes.size());
  std::vector<int> ports(nodes, 0);
  for (int i = 0; i < nodes; ++i) ports[i] = f.nodes[i].ports;
  for (const IbLink& l : f.links)
    for (const IbPort& end : {l.a, l.b}) ports[end.node] = std::max(ports[end.node], end.port);
  auto end_text = [&](int node, int port) {
    const IbNode& n = f.nodes[node];
    const IbPortAddress a = f.Address(node, port);
    char buf[224];
    std::snprintf(buf, sizeof buf,
                  "{ %s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64
                  " PortGUID:%016" PRIx64 " VenID:00000000 DevID:0000 Rev:00000000 {",
                  LstTypeName(n.type), static_cast<unsigned>(ports[node]), n.guid, n.guid,
                  a.guid ? a.guid : n.guid);
    std::string out = buf + n.description;
    std::snprintf(buf, sizeof buf, "} LID:%04X PN:%02X } ", static_cast<unsigned>(a.lid),
                  static_cast<unsigned>(port));
    return out + buf;
  };
  // Each node's linked ports, lowest first, as (port, link).
  std::vector<std::vector<std::pair<int, int>>> linked(nodes);
  for (int li = 0; li < static_cast<int>(f.links.size()); ++li)
    for (const IbPort& end : {f.links[li].a, f.links[li].b})
      linked[end.node].emplace_back(end.port, li);
  std::string out;
  for (int i = 0; i < nodes; ++i) {
    std::sort(linked[i].begin(), linked[i].end());
    for (const auto& [port, li] : linked[i]) {
      const IbLink& l = f.links[li];
      const IbPort peer = f.Peer(l, i, port);
      const auto [width, rate] = LstWidthAndRate(l.TokenSeenFrom(i, port));
      out += end_text(i, port) + end_text(peer.node, peer.port) + "PHY=" + width +
             " LOG=ACT SPD=" + rate + "\n";
    }
  }
  return out;
}

}  // namespace railguard::topo
