// SPDX-License-Identifier: GPL-2.0-or-later
// The ibnetdiscover parser (topo/ibnet.h).
#include "topo/ibnet.h"

#include <cctype>
#include <optional>
#include <utility>
#include <vector>

#include "base/text_file.h"
#include "topo/capture_line.h"
#include "topo/terminal_capture.h"

namespace railguard::topo {
namespace {

constexpr long kMaxPort = 65535;

// The forms each kind of line must take, quoted in error messages.
const char kSwitchHeaderForm[] =
    "Switch <ports> \"S-<guid>\" # \"<description>\" enhanced port 0 lid <lid> lmc <lmc>";
const char kCaHeaderForm[] = "Ca <ports> \"H-<guid>\" # \"<description>\"";
const char kRtHeaderForm[] = "Rt <ports> \"R-<guid>\" # \"<description>\"";
const char kSwitchPortForm[] =
    "[<port>] \"<S|H|R>-<guid>\"[<port>] # \"<description>\" lid <lid> <width>x<speed>";
const char kCaPortForm[] =
    "[<port>](<port guid>) \"<S|H|R>-<guid>\"[<port>] # lid <lid> lmc <lmc> \"<description>\" "
    "lid <lid> <width>x<speed>";
const char kAnyLineForm[] =
    "a vendid=, devid=, sysimgguid=, switchguid=, caguid= or rtguid= line, a Switch, Ca or Rt "
    "header, a [port] line, a comment or a blank line";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// "[ext <n>]", which grouped (-g) output appends to chassis ports.
bool SkipExtPort(LineCursor* c) {
  const size_t save = c->Pos();
  long ignored = 0;
  if (c->Consume("[ext ") && c->ReadInt(0, kMaxPort, &ignored) && c->Consume(']')) return true;
  c->SetPos(save);
  return false;
}

// "(<hex>)", a port GUID; `*guid` is left alone when there is none.
bool ReadPortGuid(LineCursor* c, uint64_t* guid) {
  const size_t save = c->Pos();
  uint64_t value = 0;
  if (c->Consume('(') && c->ReadHex(&value) && c->Consume(')')) {
    *guid = value;
    return true;
  }
  c->SetPos(save);
  return false;
}

// "\"S-<hex>\"" and the like.
bool ReadNodeId(LineCursor* c, IbNodeType* type, uint64_t* guid) {
  const size_t save = c->Pos();
  const std::string_view rest = c->Rest();
  if (rest.size() > 2 && rest[0] == '"' && rest[2] == '-') {
    const char letter = rest[1];
    c->SetPos(save + 3);
    if ((letter == 'S' || letter == 'H' || letter == 'R') && c->ReadHex(guid) && c->Consume('"')) {
      *type = letter == 'S'   ? IbNodeType::kSwitch
              : letter == 'H' ? IbNodeType::kCa
                              : IbNodeType::kRouter;
      return true;
    }
  }
  c->SetPos(save);
  return false;
}

// A quoted description that runs to the last '"' on the line (descriptions may themselves
// hold '#' or '"', which ibnetdiscover prints as they are).
bool ReadDescription(LineCursor* c, std::string_view* out) {
  if (!c->Peek('"')) return false;
  const size_t open = c->Pos();
  const size_t close = c->Line().rfind('"');
  if (close == open) return false;
  *out = c->Line().substr(open + 1, close - open - 1);
  c->SetPos(close + 1);
  return true;
}

// A link token is the width and speed ibnetdiscover prints: "4xNDR", or "??"/"???" parts when
// it could not tell.
bool IsLinkToken(std::string_view w) {
  if (w.empty() || w.size() > 16) return false;
  for (char c : w)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '?')) return false;
  return true;
}

const char* HeaderForm(IbNodeType t) {
  return t == IbNodeType::kSwitch ? kSwitchHeaderForm
         : t == IbNodeType::kCa   ? kCaHeaderForm
                                  : kRtHeaderForm;
}

const char* GuidKey(IbNodeType t) {
  return t == IbNodeType::kSwitch ? "switchguid" : t == IbNodeType::kCa ? "caguid" : "rtguid";
}

class Parser {
 public:
  Parser(const std::string& file, IbFabric* out, Diags* errors)
      : errors_(file, errors), out_(out), build_(out) {}

  bool Parse(std::string_view text);

 private:
  struct PendingGuid {
    IbNodeType type = IbNodeType::kSwitch;
    uint64_t guid = 0;
    uint64_t port_guid = 0;  // switchguid='s "(<port guid>)"
    int line = 0;
  };

  // Records "file:line: what; expected form". Returns false so callers can `return Error(..)`.
  bool Error(int line, const std::string& what, const std::string& form = "") {
    return errors_.Add(line, what, form);
  }

  void ParseLine(std::string_view line);
  void ParseIdLine(std::string_view line);
  void ParseHeader(std::string_view line, IbNodeType type);
  void ParsePortLine(std::string_view line);

  // The node with `guid`, created on first mention. -1 (reported) if it was mentioned with
  // another type.
  int NodeFor(IbNodeType type, uint64_t guid, std::string_view desc) {
    std::string err;
    const int node = build_.Node(type, guid, desc, &err);
    if (node < 0) Error(line_no_, err);
    return node;
  }

  CaptureErrors errors_;
  IbFabric* out_;
  IbFabricBuilder build_;
  int line_no_ = 0;
  int current_ = -1;     // node whose record the port lines belong to
  bool broken_ = false;  // the current record's header was bad: skip its port lines quietly
  std::optional<PendingGuid> pending_;
};

void Parser::ParseIdLine(std::string_view line) {
  current_ = -1;  // a new record starts
  broken_ = false;
  size_t eq = line.find('=');
  std::string_view key = line.substr(0, eq);
  LineCursor c(line.substr(eq + 1));
  uint64_t value = 0;
  if (!c.ReadHexGuid(&value)) {
    Error(line_no_, "bad value for " + std::string(key) + "=",
          std::string(key) + "=0x<hex digits>");
    return;
  }
  uint64_t port_guid = 0;
  if (key == "switchguid") {
    // The port GUID of port 0 follows in parentheses.
    if (!ReadPortGuid(&c, &port_guid)) {
      Error(line_no_, "switchguid= lacks its port GUID", "switchguid=0x<guid>(<port guid>)");
      return;
    }
  }
  c.SkipSpace();
  if (!c.AtEnd() && !c.Peek('#')) {
    Error(line_no_, "unexpected text after " + std::string(key) + "=",
          std::string(key) + "=0x<hex digits>, optionally followed by a # comment");
    return;
  }
  if (key == "switchguid" || key == "caguid" || key == "rtguid") {
    PendingGuid p;
    p.type = key == "switchguid" ? IbNodeType::kSwitch
             : key == "caguid"   ? IbNodeType::kCa
                                 : IbNodeType::kRouter;
    p.guid = value;
    p.port_guid = port_guid;
    p.line = line_no_;
    pending_ = p;
  }
}

void Parser::ParseHeader(std::string_view line, IbNodeType type) {
  const char* form = HeaderForm(type);
  current_ = -1;
  broken_ = true;
  LineCursor c(line.substr(type == IbNodeType::kSwitch ? 6 : 2));  // after the keyword
  c.SkipSpace();
  long ports = 0;
  if (!c.ReadInt(1, kMaxPort, &ports)) {
    Error(line_no_, "bad port count in header", form);
    return;
  }
  c.SkipSpace();
  IbNodeType id_type;
  uint64_t guid = 0;
  if (!ReadNodeId(&c, &id_type, &guid)) {
    Error(line_no_, "bad node id in header", form);
    return;
  }
  if (id_type != type) {
    Error(line_no_,
          "node id \"" + IbNodeId(id_type, guid) + "\" does not match the " +
              std::string(line.substr(0, type == IbNodeType::kSwitch ? 6 : 2)) + " header",
          form);
    return;
  }
  c.SkipSpace();
  std::string_view desc;
  if (!c.Consume('#')) {
    Error(line_no_, "header lacks the # \"<description>\" comment", form);
    return;
  }
  c.SkipSpace();
  if (!ReadDescription(&c, &desc)) {
    Error(line_no_, "header lacks a quoted description after '#'", form);
    return;
  }
  // A switch's header goes on with "<base|enhanced> port 0 lid <lid> lmc <lmc>": its LID.
  long lid = 0;
  const size_t at = c.Rest().find("lid ");
  if (type == IbNodeType::kSwitch && at != std::string_view::npos) {
    LineCursor l(c.Rest().substr(at + 4));
    if (!l.ReadInt(0, 0xffff, &lid)) lid = 0;
  }
  if (pending_ && (pending_->type != type || pending_->guid != guid)) {
    Error(line_no_,
          "header for \"" + IbNodeId(type, guid) + "\" follows " + GuidKey(pending_->type) + "=" +
              GuidString(pending_->guid) + " on line " + std::to_string(pending_->line),
          std::string(GuidKey(type)) + "=" + GuidString(guid) + " before this header");
    pending_.reset();
    return;
  }
  const uint64_t port_guid = pending_ ? pending_->port_guid : 0;
  pending_.reset();
  int node = NodeFor(type, guid, desc);
  if (node < 0) return;
  IbNode& n = out_->nodes[node];
  if (n.line != 0) {
    Error(line_no_,
          "second record for " + build_.Quoted(node) + " (first at line " + std::to_string(n.line) +
              ")",
          "one record per node");
    return;
  }
  build_.Own(node, line_no_, desc, static_cast<int>(ports));
  if (type == IbNodeType::kSwitch)
    build_.SetAddress(node, 0, IbPortAddress{port_guid, static_cast<int>(lid)});
  current_ = node;
  broken_ = false;
}

void Parser::ParsePortLine(std::string_view line) {
  if (current_ < 0) {
    // A broken header was already reported; its port lines would only repeat that.
    if (!broken_)
      Error(line_no_, "port line outside a node record", "a Switch, Ca or Rt header before it");
    return;
  }
  const IbNode& self = out_->nodes[current_];
  const bool is_switch = self.type == IbNodeType::kSwitch;
  const char* form = is_switch ? kSwitchPortForm : kCaPortForm;
  LineCursor c(line);
  long port = 0;
  if (!c.ReadBracketInt(1, kMaxPort, &port)) {
    Error(line_no_, "bad local port number", form);
    return;
  }
  if (port > self.ports) {
    Error(line_no_,
          "port " + std::to_string(port) + " of " + build_.Quoted(current_) + " exceeds its " +
              std::to_string(self.ports) + " ports (line " + std::to_string(self.line) + ")",
          "a port from 1 to " + std::to_string(self.ports));
    return;
  }
  IbPortAddress own;
  SkipExtPort(&c);
  ReadPortGuid(&c, &own.guid);
  c.SkipSpace();
  IbNodeType peer_type;
  uint64_t peer_guid = 0;
  long peer_port = 0;
  if (!ReadNodeId(&c, &peer_type, &peer_guid)) {
    Error(line_no_, "missing the peer's node id", form);
    return;
  }
  if (!c.ReadBracketInt(1, kMaxPort, &peer_port)) {
    Error(line_no_, "missing the peer's port number", form);
    return;
  }
  IbPortAddress theirs;
  SkipExtPort(&c);
  c.SkipSpace();
  ReadPortGuid(&c, &theirs.guid);
  c.SkipSpace();
  if (!c.Consume('#')) {
    Error(line_no_, "missing '#' before the peer's description", form);
    return;
  }
  c.SkipSpace();
  long number = 0;
  if (!is_switch) {
    // A CA's view starts with its own port's LID and LMC.
    if (!c.Consume("lid") || (c.SkipSpace(), !c.ReadInt(0, 0xffff, &number)) ||
        (c.SkipSpace(), !c.Consume("lmc")) ||
        (own.lid = static_cast<int>(number), c.SkipSpace(), !c.ReadInt(0, 7, &number))) {
      Error(line_no_, "missing the local lid and lmc after '#'", form);
      return;
    }
    c.SkipSpace();
  }
  std::string_view peer_desc;
  if (!ReadDescription(&c, &peer_desc)) {
    Error(line_no_, "missing the peer's quoted description", form);
    return;
  }
  c.SkipSpace();
  if (!c.Consume("lid") || (c.SkipSpace(), !c.ReadInt(0, 0xffff, &number))) {
    Error(line_no_, "missing the peer's lid after its description", form);
    return;
  }
  theirs.lid = static_cast<int>(number);
  c.SkipSpace();
  std::string_view token = c.ReadWord();
  if (!IsLinkToken(token)) {
    Error(line_no_,
          token.empty() ? "missing the link width and speed"
                        : "bad link width and speed \"" + std::string(token) + "\"",
          form);
    return;
  }

  int peer = NodeFor(peer_type, peer_guid, peer_desc);
  if (peer < 0) return;
  std::string err;
  if (!build_.AddView(current_, static_cast<int>(port), peer, static_cast<int>(peer_port), token,
                      line_no_, &err)) {
    Error(line_no_, err);
    return;
  }
  if (!is_switch) build_.SetAddress(current_, static_cast<int>(port), own);
  build_.SetAddress(peer, static_cast<int>(peer_port), theirs);
}

void Parser::ParseLine(std::string_view raw) {
  std::string_view line = TrimCapture(raw);
  if (line.empty() || line[0] == '#') return;
  if (line[0] == '[') return ParsePortLine(line);
  for (std::string_view key :
       {"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "rtguid="}) {
    if (StartsWith(line, key)) return ParseIdLine(line);
  }
  // The port count follows the keyword after blanks, or at once where a terminal logger
  // dropped the tab ("Switch36 ...", PuTTY).
  auto keyword = [&](std::string_view word) {
    return StartsWith(line, word) && line.size() > word.size() &&
           (IsCaptureSpace(line[word.size()]) || IsDigit(line[word.size()]));
  };
  if (keyword("Switch")) return ParseHeader(line, IbNodeType::kSwitch);
  if (keyword("Ca")) return ParseHeader(line, IbNodeType::kCa);
  if (keyword("Rt")) return ParseHeader(line, IbNodeType::kRouter);
  // Grouped (-g) output: section headers between records.
  if (line == "Non-Chassis Nodes" || StartsWith(line, "Hostname: ")) return;
  if (StartsWith(line, "Chassis ")) {
    LineCursor c(line.substr(8));
    long n = 0;
    c.ReadInt(0, 0xffff, &n);
    c.SkipSpace();
    if (c.AtEnd() || c.Peek('(')) return;
  }
  if (IsIbToolDiagnostic(line)) {
    out_->warnings.push_back(Diag{errors_.file(), line_no_, 0,
                                  "ibnetdiscover reported an error: \"" + EscapeNonPrintable(line) +
                                      "\"; the dump may be incomplete"});
    return;
  }
  Error(line_no_, "unrecognized line \"" + ShownLine(line) + "\"", kAnyLineForm);
}

bool Parser::Parse(std::string_view text) {
  // About one node per 300 bytes of a typical dump; saves rehashing on big fabrics.
  out_->by_guid.reserve(text.size() / 300 + 16);
  ForEachCaptureLine(text, errors_, [&](std::string_view line, int n) {
    line_no_ = n;
    ParseLine(line);
  });
  if (!errors_.full())
    for (const auto& [line, what] : build_.CheckPortRanges()) Error(line, what);
  return errors_.count() == 0;
}

}  // namespace

bool ParseIbnetdiscover(std::string_view text, const std::string& filename, IbFabric* out,
                        Diags* errors) {
  return ParseTerminalCapture(text, out, [&](const std::string& dump) {
    return Parser(filename, out, errors).Parse(dump);
  });
}

bool ParseIbnetdiscoverFile(const std::string& path, IbFabric* out, Diags* errors) {
  std::string text;
  if (!ReadTextFile(path, kIbnetdiscoverInput, &text, errors)) {
    *out = IbFabric();
    return false;
  }
  return ParseIbnetdiscover(text, path, out, errors);
}

}  // namespace railguard::topo
