// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the capture format tests (tests/topo/*capture*_test.cc, ibnet_ports_test.cc,
// iblinkinfo_test.cc): reading fixtures, the ways admins save a dump, and a fabric printed
// in one canonical text so that two parses of one fabric compare with EXPECT_EQ.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/text_file.h"
#include "topo/capture.h"
#include "topo/ib_fabric.h"

namespace railguard::topo::capture_testing {

inline const std::string kIbnetData = RAILGUARD_SOURCE_DIR "/tests/data/ibnet/";

inline std::string ReadFixture(const std::string& path) {
  std::string text;
  Diags d;
  EXPECT_TRUE(ReadTextFile(path, kIbnetdiscoverInput, &text, &d)) << FormatDiags(d);
  return text;
}

// Parses `text` as `format`, expecting success.
inline IbFabric MustParse(const std::string& text, CaptureFormat format,
                          const std::string& name = "capture.txt") {
  IbFabric f;
  Diags d;
  EXPECT_TRUE(ParseCapture(text, name, format, &f, &d)) << FormatDiags(d);
  return f;
}

// Parses `text` as `format` expecting failure; all errors as text.
inline std::string ErrorsAs(const std::string& text, CaptureFormat format) {
  IbFabric f;
  Diags d;
  EXPECT_FALSE(ParseCapture(text, "t.txt", format, &f, &d));
  return FormatDiags(d);
}

inline std::string Crlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

inline std::string WithoutTabs(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '\t'), text.end());
  return text;
}

// The ways admins save `dump` from a terminal, named, with `prompt` ("[root@x5 ~]# ") and
// `command` ("ibnetdiscover") around it: a byte-order mark, the command line and CRLF line
// ends (Windows editors); PuTTY's session log (its banner; its printable-output log keeps no
// tabs); script(1)'s typescript (its start and end lines, bash's bracketed-paste switches
// around the prompt, CRLF as the terminal sent it); a lone-CR file.
inline std::vector<std::pair<std::string, std::string>> SavedAsAdminsSaveIt(
    const std::string& dump, const std::string& prompt, const std::string& command) {
  return {
      {"BOM, prompt and command, CRLF",
       Crlf("\xEF\xBB\xBF" + prompt + command + "\n" + dump + prompt + "\n")},
      {"PuTTY log, tabs lost",
       "=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2024.03.01 10:22:33 =~=~=~=~=~=~=~=~=~=~=~=\r\n" +
           Crlf(prompt + "sudo " + command + "\n" + WithoutTabs(dump) + prompt + "exit\nlogout\n")},
      {"script(1)",
       "Script started on 2024-03-01 10:22:33+01:00 [TERM=\"xterm-256color\" TTY=\"/dev/pts/0\" "
       "COLUMNS=\"120\" LINES=\"40\"]\n\x1b[?2004h" +
           prompt + command + " | tee fabric.txt\r\n\x1b[?2004l\r" + Crlf(dump) + "\x1b[?2004h" +
           prompt +
           "exit\r\n\x1b[?2004l\rexit\r\n\nScript done on 2024-03-01 10:22:40+01:00 "
           "[COMMAND_EXIT_CODE=\"0\"]\n"},
      {"lone CR line ends, trailing blanks",
       [&] {
         std::string out = prompt + command + "   \r";
         for (char c : dump) {
           if (c == '\n') out += "  ";
           out += c == '\n' ? '\r' : c;
         }
         return out;
       }()},
  };
}

// The node of `f` with `guid`, failing the test (and returning an empty node) when none has it.
inline const IbNode& NodeWithGuid(const IbFabric& f, uint64_t guid) {
  static const IbNode kNone;
  const int i = f.FindNode(guid);
  EXPECT_GE(i, 0) << GuidString(guid);
  return i < 0 ? kNone : f.nodes[i];
}

// The highest port of node `i` with a link.
inline int TopLinkedPort(const IbFabric& f, int i) {
  int top = 0;
  for (int p = 1; p <= std::max(f.nodes[i].ports, static_cast<int>(f.nodes[i].links.size())); ++p)
    if (f.FindLink(i, p) >= 0) top = p;
  return top;
}

// `f` as sorted text without line numbers or the dump's order: one line per node (type,
// key GUID, description, port count, addresses) and per link (ends by key GUID, token). With
// `by_port_guid`, CAs and routers are keyed by their lowest port's GUID and their port count
// is their highest linked port, as the ports report and iblinkinfo know them.
inline std::string FabricText(const IbFabric& f, bool by_port_guid) {
  std::vector<uint64_t> key(f.nodes.size());
  std::vector<std::string> lines;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const IbNode& n = f.nodes[i];
    const bool by_port = by_port_guid && n.type != IbNodeType::kSwitch;
    key[i] = n.guid;
    int ports = n.ports;
    if (by_port) {
      ports = TopLinkedPort(f, static_cast<int>(i));
      for (int p = 1; p <= ports; ++p) {
        if (f.FindLink(static_cast<int>(i), p) < 0) continue;
        if (f.Address(static_cast<int>(i), p).guid) key[i] = f.Address(static_cast<int>(i), p).guid;
        break;
      }
    }
    std::string line = IbNodeId(n.type, key[i]) + " \"" + n.description + "\" ports " +
                       std::to_string(ports) + " addresses";
    for (int p = 0; p < static_cast<int>(n.addresses.size()); ++p) {
      const IbPortAddress a = n.addresses[p];
      if (a.guid || a.lid)
        line += " " + std::to_string(p) + "=" + GuidString(a.guid) + "/" + std::to_string(a.lid);
    }
    lines.push_back("node " + line);
  }
  for (const IbLink& l : f.links) {
    std::string a =
        IbNodeId(f.nodes[l.a.node].type, key[l.a.node]) + "[" + std::to_string(l.a.port) + "]";
    std::string b =
        IbNodeId(f.nodes[l.b.node].type, key[l.b.node]) + "[" + std::to_string(l.b.port) + "]";
    if (b < a) std::swap(a, b);
    lines.push_back("link " + a + " - " + b + " " + l.Token());
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace railguard::topo::capture_testing
