// SPDX-License-Identifier: GPL-2.0-or-later
// Fabric captures in any format railguard reads: which format a capture is in, and the one
// call that reads it with that format's parser (ibnetdiscover, ibnetdiscover -p, iblinkinfo,
// ibdiagnet2.lst).
#pragma once

#include <string>
#include <string_view>

#include "base/diag.h"
#include "topo/ib_fabric.h"

namespace railguard::topo {

// The formats of a fabric capture.
enum class CaptureFormat {
  kAuto,           // tell from the text (SniffCaptureFormat)
  kIbnetdiscover,  // ibnetdiscover's topology, default or grouped (topo/ibnet.h)
  kPorts,          // ibnetdiscover -p's ports report (topo/ibnet_ports.h)
  kIblinkinfo,     // iblinkinfo, by node or -l (topo/iblinkinfo.h)
  kIbdiagnetLst,   // ibdiagnet's ibdiagnet2.lst link list (topo/ibdiagnet_lst.h)
};

// "auto", "ibnetdiscover", "ports", "iblinkinfo" or "ibdiagnet": the --format words.
const char* CaptureFormatName(CaptureFormat format);

// The format `name` names (a --format word); false for any other word.
bool ParseCaptureFormatName(std::string_view name, CaptureFormat* format);

// What reading a capture as `format` is called in messages: "ibnetdiscover output",
// "an ibnetdiscover -p ports report", "iblinkinfo output", "an ibdiagnet2.lst link list".
std::string CaptureFormatTitle(CaptureFormat format);

// The format of `text`, told by its first line (in its first 64 KiB, after what a terminal
// capture wraps around the output: topo/terminal_capture.h) that only one format has:
// "{ SW|CA|Rt|RTR[-SM] Ports:..." is an ibdiagnet2.lst; "SW|CA|RT <lid> <port> 0x<guid> ..."
// is a ports report; "Switch: 0x...", "CA: ...", "Router: ...", "0x<guid> \"...", or a line
// holding "==(" is iblinkinfo; "vendid=" and the other id lines, a "Switch", "Ca" or "Rt"
// header, a "[<port>]" line or grouped output's section headers are ibnetdiscover. Blank
// lines, '#' comments, the tools' own error lines and lines of no format are passed over (the
// parser reports the last). Without any such line: ibnetdiscover, whose parser then says what
// it expected. Never kAuto.
CaptureFormat SniffCaptureFormat(std::string_view text);

// Parses the capture in `text` as `format` (kAuto: as SniffCaptureFormat says), `filename`
// naming it in diagnostics; see ParseIbnetdiscover, ParseIbnetPorts, ParseIblinkinfo and
// ParseIbdiagnetLst. `*read_as`, when given, gets the format used. Returns true when there
// was no error.
bool ParseCapture(std::string_view text, const std::string& filename, CaptureFormat format,
                  IbFabric* out, Diags* errors, CaptureFormat* read_as = nullptr);

// As ParseCapture, reading `path`. A file that cannot be read is one error.
bool ParseCaptureFile(const std::string& path, CaptureFormat format, IbFabric* out, Diags* errors,
                      CaptureFormat* read_as = nullptr);

}  // namespace railguard::topo
