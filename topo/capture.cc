// SPDX-License-Identifier: GPL-2.0-or-later
// Telling a fabric capture's format and reading it with its parser (topo/capture.h).
#include "topo/capture.h"

#include <vector>

#include "base/text_file.h"
#include "topo/capture_line.h"
#include "topo/ibdiagnet_lst.h"
#include "topo/iblinkinfo.h"
#include "topo/ibnet.h"
#include "topo/ibnet_ports.h"
#include "topo/terminal_capture.h"

namespace railguard::topo {
namespace {

// Enough of a capture to find its first line of output after any terminal wrapping.
constexpr size_t kSniffBytes = 64 << 10;

bool CaptureStartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// "SW|CA|RT <lid> <port> 0x<hex>".
bool PortsReportLine(std::string_view line) {
  LineCursor c(line);
  long n = 0;
  uint64_t guid = 0;
  if (!c.Consume("SW") && !c.Consume("CA") && !c.Consume("RT")) return false;
  return c.SkipSpace() && c.ReadInt(0, 0xffff, &n) && c.SkipSpace() && c.ReadInt(0, 65535, &n) &&
         c.SkipSpace() && c.ReadHexGuid(&guid);
}

// A line only ibnetdiscover's topology has: vendid= and the like, a Switch, Ca or Rt header
// (tabs lost too), a [port] line, grouped output's section headers.
bool IbnetdiscoverLine(std::string_view line) {
  for (std::string_view key : {"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=",
                               "rtguid=", "Chassis ", "Non-Chassis Nodes", "Hostname: "})
    if (CaptureStartsWith(line, key)) return true;
  for (std::string_view word : {"Switch", "Ca", "Rt"}) {
    if (CaptureStartsWith(line, word) && line.size() > word.size() &&
        (IsCaptureSpace(line[word.size()]) ||
         (line[word.size()] >= '0' && line[word.size()] <= '9')))
      return true;
  }
  return line.size() > 1 && line[0] == '[' && line[1] >= '0' && line[1] <= '9';
}

// "{ SW|CA|Rt|RTR[-SM] Ports:", how every line of an ibdiagnet2.lst starts.
bool IbdiagnetLstLine(std::string_view line) {
  LineCursor c(line);
  if (!c.Consume('{')) return false;
  c.SkipSpace();
  std::string_view type = c.ReadWord();
  if (type.size() > 3 && type.substr(type.size() - 3) == "-SM") type.remove_suffix(3);
  if (type != "SW" && type != "CA" && type != "Rt" && type != "RTR") return false;
  c.SkipSpace();
  return c.Consume("Ports:");
}

bool IblinkinfoLine(std::string_view line) {
  if (CaptureStartsWith(line, "Switch: 0x") || CaptureStartsWith(line, "CA: ") ||
      CaptureStartsWith(line, "Router: ") || line.find("==(") != std::string_view::npos)
    return true;
  LineCursor c(line);
  uint64_t guid = 0;
  return c.ReadHexGuid(&guid) && c.SkipSpace() && c.Peek('"');
}

}  // namespace

const char* CaptureFormatName(CaptureFormat format) {
  switch (format) {
    case CaptureFormat::kAuto:
      return "auto";
    case CaptureFormat::kIbnetdiscover:
      return "ibnetdiscover";
    case CaptureFormat::kPorts:
      return "ports";
    case CaptureFormat::kIblinkinfo:
      return "iblinkinfo";
    case CaptureFormat::kIbdiagnetLst:
      return "ibdiagnet";
  }
  return "auto";
}

bool ParseCaptureFormatName(std::string_view name, CaptureFormat* format) {
  for (CaptureFormat f :
       {CaptureFormat::kAuto, CaptureFormat::kIbnetdiscover, CaptureFormat::kPorts,
        CaptureFormat::kIblinkinfo, CaptureFormat::kIbdiagnetLst}) {
    if (name == CaptureFormatName(f)) {
      *format = f;
      return true;
    }
  }
  return false;
}

std::string CaptureFormatTitle(CaptureFormat format) {
  switch (format) {
    case CaptureFormat::kPorts:
      return "an ibnetdiscover -p ports report";
    case CaptureFormat::kIblinkinfo:
      return "iblinkinfo output";
    case CaptureFormat::kIbdiagnetLst:
      return "an ibdiagnet2.lst link list";
    default:
      return "ibnetdiscover output";
  }
}

CaptureFormat SniffCaptureFormat(std::string_view text) {
  std::vector<std::string> notes;
  const std::string head = StripTerminalCapture(text.substr(0, kSniffBytes), &notes);
  size_t pos = 0;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string::npos) end = head.size();
    const std::string_view line = TrimCapture(std::string_view(head).substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line[0] == '#' || IsIbToolDiagnostic(line)) continue;
    if (IbdiagnetLstLine(line)) return CaptureFormat::kIbdiagnetLst;
    if (PortsReportLine(line)) return CaptureFormat::kPorts;
    if (IblinkinfoLine(line)) return CaptureFormat::kIblinkinfo;
    if (IbnetdiscoverLine(line)) return CaptureFormat::kIbnetdiscover;
    // A line of no format: its parser will say so; the lines after it tell which one.
  }
  return CaptureFormat::kIbnetdiscover;
}

bool ParseCapture(std::string_view text, const std::string& filename, CaptureFormat format,
                  IbFabric* out, Diags* errors, CaptureFormat* read_as) {
  if (format == CaptureFormat::kAuto) format = SniffCaptureFormat(text);
  if (read_as) *read_as = format;
  switch (format) {
    case CaptureFormat::kPorts:
      return ParseIbnetPorts(text, filename, out, errors);
    case CaptureFormat::kIblinkinfo:
      return ParseIblinkinfo(text, filename, out, errors);
    case CaptureFormat::kIbdiagnetLst:
      return ParseIbdiagnetLst(text, filename, out, errors);
    default:
      return ParseIbnetdiscover(text, filename, out, errors);
  }
}

bool ParseCaptureFile(const std::string& path, CaptureFormat format, IbFabric* out, Diags* errors,
                      CaptureFormat* read_as) {
  std::string text;
  if (!ReadTextFile(path, kIbnetdiscoverInput, &text, errors)) {
    *out = IbFabric();
    return false;
  }
  return ParseCapture(text, path, format, out, errors, read_as);
}

}  // namespace railguard::topo
