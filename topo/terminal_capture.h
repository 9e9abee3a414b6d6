// SPDX-License-Identifier: GPL-2.0-or-later
// What a capture saved from a terminal wraps around a tool's output (ibnetdiscover,
// iblinkinfo): a UTF-8 byte-order mark, CR or CRLF line ends, a terminal logger's banner
// (PuTTY's session log, script(1)), the shell prompt and command line before the output and
// the prompts after it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railguard::topo {

// `text` as the capture parsers read it: without a leading UTF-8 byte-order mark, every line
// end a '\n' (CRLF, and a CR on its own, end a line too), and the lines a terminal capture
// adds blanked. Blanked, not removed, so that every line keeps its number; blank lines stay.
//
// Only the lines before the first line of output and after the last may be blanked, and
// only these:
//   before: a PuTTY log banner ("=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2024.03.01 10:22:33
//           =~=~=~=~=~=~=~=~=~=~=~="), script(1)'s "Script started on ..." line, and shell
//           prompts ("[root@gpu01 ~]# ", "admin@head:~/audit$ ", "head01# ", "bash-5.1$ ",
//           "$ ", each perhaps after a "(venv) " tag) alone or followed by a command;
//   after:  such prompts, "exit", "logout" and script(1)'s "Script done on ..." line;
//   both:   lines that hold nothing but terminal control sequences (ESC [ ... and ESC ] ...,
//           which bash and script(1) leave around a prompt); control sequences are dropped
//           from the prompt lines before they are judged.
// Any other line ends the search, so nothing in the middle of the output is touched: a prompt
// or a banner there stays for the parser to report, as does an unknown line before the
// output. `*notes` gets one line per thing blanked (for the user): "a UTF-8 byte-order mark",
// "a PuTTY log banner (line 1)", "a shell prompt and command (line 2)".
std::string StripTerminalCapture(std::string_view text, std::vector<std::string>* notes);

// What every capture parser's entry does: `parse` (a callable taking the cleaned text as a
// const std::string&, returning bool) runs on StripTerminalCapture(text), and what was blanked
// goes to out->capture_notes once it has run (a parser may reset `*out` first). Returns what
// `parse` returned.
template <typename Fabric, typename Parse>
bool ParseTerminalCapture(std::string_view text, Fabric* out, Parse parse) {
  std::vector<std::string> notes;
  const std::string output = StripTerminalCapture(text, &notes);
  const bool ok = parse(output);
  out->capture_notes = std::move(notes);
  return ok;
}

}  // namespace railguard::topo
