// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of what a terminal capture wraps around a dump (topo/terminal_capture.h), and of
// ibnetdiscover dumps saved as admins save them, derived here from real dumps: the
// HPC_toolset X5 fabric (shared data ibnetdiscover/hpc-toolset-x5/X5.topofile), the grouped
// (-g) sample (tests/data/ibnet/grouped.topo) and a simulated rail fabric. The wrappers follow
// what the tools write: PuTTY's session log banner ("=~=~=~=~=~=~=~=~=~=~=~= PuTTY log <date>
// =~=~=~=~=~=~=~=~=~=~=~="; its printable-output log keeps no tabs), script(1)'s "Script
// started on ..." / "Script done on ..." lines (util-linux) with bash's bracketed-paste
// switches, a UTF-8 BOM and CRLF line ends from Windows editors, and bash's default prompts.
#include "topo/terminal_capture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/shared_data.h"
#include "tests/topo/capture_test_util.h"
#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/ibnet.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_terminal_capture_test {

using capture_testing::FabricText;
using capture_testing::kIbnetData;
using capture_testing::MustParse;
using capture_testing::ReadFixture;
using capture_testing::SavedAsAdminsSaveIt;

// Each way of saving `dump` parses to exactly the fabric of `dump` itself.
void ExpectSavedAsTheDump(const std::string& dump, const std::string& prompt) {
  const IbFabric clean = MustParse(dump, CaptureFormat::kIbnetdiscover);
  ASSERT_GT(clean.links.size(), 0u);
  EXPECT_TRUE(clean.capture_notes.empty());
  for (const auto& [how, text] : SavedAsAdminsSaveIt(dump, prompt, "ibnetdiscover")) {
    const IbFabric f = MustParse(text, CaptureFormat::kIbnetdiscover);
    EXPECT_EQ(FabricText(f, false), FabricText(clean, false)) << how;
    EXPECT_FALSE(f.capture_notes.empty()) << how;
    EXPECT_EQ(SniffCaptureFormat(text), CaptureFormat::kIbnetdiscover) << how;
  }
}

TEST(TerminalCapture, TheRealX5DumpAsAdminsSaveItReadsAsTheDump) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.topofile");
  ExpectSavedAsTheDump(ReadFixture(testing::SharedPath("ibnetdiscover/hpc-toolset-x5/X5.topofile")),
                       "[root@x5-admin ~]# ");
}

TEST(TerminalCapture, AGroupedDumpAsAdminsSaveItReadsAsTheDump) {
  ExpectSavedAsTheDump(ReadFixture(kIbnetData + "grouped.topo"), "admin@head01:~/audit$ ");
}

TEST(TerminalCapture, ASavedRailFabricDiscoversTheSameYamlAndFindings) {
  const std::string dump = discover_testing::Simulate(
      discover_testing::LoadFile(discover_testing::kDev4su), {{"swap", "n001:1:2"}});
  const Discovery clean =
      Discover(MustParse(dump, CaptureFormat::kIbnetdiscover), discover_testing::DevOptions());
  ASSERT_FALSE(clean.topology.sus.empty());
  for (const auto& [how, text] :
       SavedAsAdminsSaveIt(dump, "(base) ops@login1:~$ ", "ibnetdiscover")) {
    const Discovery d =
        Discover(MustParse(text, CaptureFormat::kAuto), discover_testing::DevOptions());
    EXPECT_EQ(EmitTopologyYaml(d.topology), EmitTopologyYaml(clean.topology)) << how;
    EXPECT_EQ(discover_testing::AllFindings(d), discover_testing::AllFindings(clean)) << how;
  }
}

TEST(TerminalCapture, SaysWhatItBlankedAndKeepsLineNumbers) {
  const std::string banner =
      "=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2024.03.01 10:22:33 =~=~=~=~=~=~=~=~=~=~=~=";
  const std::string command = "[root@gpu01 ~]# ibnetdiscover";
  const std::string exit = "[root@gpu01 ~]# exit";
  std::vector<std::string> notes;
  const std::string out =
      StripTerminalCapture("\xEF\xBB\xBF" + banner + "\r\n" + command +
                               "\r\n#\r\nvendid=0x2c9\r\n" + exit + "\r\nlogout\r\n",
                           &notes);
  EXPECT_EQ(out, std::string(banner.size(), ' ') + "\n" + std::string(command.size(), ' ') +
                     "\n#\nvendid=0x2c9\n" + std::string(exit.size(), ' ') + "\n      \n");
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "a UTF-8 byte-order mark", "a PuTTY log banner (line 1)",
                       "a shell prompt and command (line 2)", "a shell prompt and command (line 5)",
                       "a shell's logout (line 6)"}));
}

TEST(TerminalCapture, EndsALineAtACarriageReturnAloneAndMergesCrsBeforeALineFeed) {
  std::vector<std::string> notes;
  EXPECT_EQ(StripTerminalCapture("a\rb\r\r\nc\r\n\rd", &notes), "a\nb\nc\n\nd");
  EXPECT_EQ(notes, std::vector<std::string>{"lines ended by a carriage return alone"});
  notes.clear();
  EXPECT_EQ(StripTerminalCapture("a\r\nb\r\n", &notes), "a\nb\n");
  EXPECT_TRUE(notes.empty());
}

TEST(TerminalCapture, ReadsScriptLinesAndControlSequencesAroundTheOutput) {
  std::vector<std::string> notes;
  const std::string out = StripTerminalCapture(
      "Script started on 2024-03-01 10:22:33+01:00 [TERM=\"xterm\"]\n"
      "\x1b]0;root@gpu01: ~\a\x1b[01;32mroot@gpu01\x1b[00m:\x1b[01;34m~\x1b[00m# iblinkinfo\n"
      "\x1b[?2004l\rCA: n1 mlx5_0:\n"
      "\x1b[?2004h$ \n"
      "Script done on 2024-03-01 10:22:40+01:00 [COMMAND_EXIT_CODE=\"0\"]\n",
      &notes);
  EXPECT_EQ(out.substr(out.find("CA:"), 15), "CA: n1 mlx5_0:\n");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 6);
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "lines ended by a carriage return alone", "script(1)'s start line (line 1)",
                       "a shell prompt and command (line 2)", "terminal control codes (line 3)",
                       "a shell prompt (line 5)", "script(1)'s end line (line 6)"}));
}

TEST(TerminalCapture, KnowsTheCommonPrompts) {
  for (const std::string prompt :
       {"[root@gpu01 ~]# ", "admin@head01:~/audit$ ", "head01# ", "bash-5.1$ ", "$ ",
        "(venv) admin@head01:/tmp$ ", "root@login-2:~# "}) {
    std::vector<std::string> notes;
    StripTerminalCapture(prompt + "cat fabric.txt\nvendid=0x2c9\n", &notes);
    EXPECT_EQ(notes, std::vector<std::string>{"a shell prompt and command (line 1)"}) << prompt;
  }
}

TEST(TerminalCapture, OutputLinesAreNeverTakenForWrappers) {
  // The first and last lines of each format's output, tabs lost too.
  const std::string dump =
      "# Topology file: generated on Tue Mar  3 10:22:33 2020\n"
      "vendid=0x2c9\n"
      "Switch\t36 \"S-0002c90200403e60\"\t\t# \"MF0;sw1:IS5030/U1\" enhanced port 0 lid 2 lmc 0\n"
      "Switch36 \"S-0002c90200403e60\"# \"MF0;sw1:IS5030/U1\" enhanced port 0 lid 2 lmc 0\n"
      "[36]\t\"H-0002c90300e6e5a0\"[1](2c90300e6e5a1) \t\t# \"n001 mlx4_0\" lid 3 4xQDR\n"
      "[1](2c90300e6e5a1) \"S-0002c90200403e60\"[36]# lid 3 lmc 0 \"sw1\" lid 2 4xQDR\n"
      "SW     2 19 0x0008f10500200b50 4x QDR                                    'sw1'\n"
      "Switch: 0x0002c902004b2678 Infiniscale-IV Mellanox Technologies:\n"
      "CA: teaker-10 HCA-1:\n"
      "0xf452140300e6e5a1 \"                   n001 mlx4_0\"      3    1[  ] ==( 4X 10.0 Gbps "
      "Active/  LinkUp)==>  0x0002c90200403e60      2   36[  ] \"sw1\" ( )\n"
      "           2   18[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
      "ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\n";
  size_t start = 0;
  while (start < dump.size()) {
    const size_t end = dump.find('\n', start);
    const std::string line = dump.substr(start, end - start + 1);
    std::vector<std::string> notes;
    EXPECT_EQ(StripTerminalCapture(line + line, &notes), line + line);
    EXPECT_TRUE(notes.empty()) << line;
    start = end + 1;
  }
}

TEST(TerminalCapture, APromptOrGarbageInsideTheDumpIsStillAnErrorAtItsLine) {
  const std::string dump = ReadFixture(kIbnetData + "grouped.topo");
  const size_t third = dump.find('\n', dump.find('\n', dump.find('\n') + 1) + 1);
  const std::string any_line =
      "; expected a vendid=, devid=, sysimgguid=, switchguid=, caguid= or rtguid= line, a "
      "Switch, Ca or Rt header, a [port] line, a comment or a blank line\n";
  for (const auto& [bad, error] : std::vector<std::pair<std::string, std::string>>{
           {"[root@gpu01 ~]# oops",
            "port line outside a node record; expected a Switch, Ca or Rt header before it\n"},
           {"Last login: Fri Mar  1 10:22:33 2024",
            "unrecognized line \"Last login: Fri Mar  1 10:22:33 2024\"" + any_line},
           {"=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2024.03.01 10:22:33",
            "unrecognized line \"=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2024.03.01 10:22:33\"" +
                any_line}}) {
    const std::string text = "[root@gpu01 ~]# ibnetdiscover\n" + dump.substr(0, third + 1) + bad +
                             "\n" + dump.substr(third + 1);
    IbFabric f;
    Diags d;
    EXPECT_FALSE(ParseIbnetdiscover(text, "capture.txt", &f, &d));
    // Its line in the file, the prompt above counted.
    EXPECT_EQ(FormatDiags(d), "capture.txt:5: " + error);
  }
}

TEST(TerminalCapture, AnUnknownLineBeforeTheDumpIsAnErrorNotSkipped) {
  IbFabric f;
  Diags d;
  EXPECT_FALSE(
      ParseIbnetdiscover("Last login: Fri Mar  1 10:22:33 2024 from 10.0.0.1\n"
                         "[root@gpu01 ~]# ibnetdiscover\nvendid=0x2c9\n",
                         "capture.txt", &f, &d));
  // Skipping stops at the first line that is no wrapper: the prompt after it is read too.
  EXPECT_EQ(FormatDiags(d),
            "capture.txt:1: unrecognized line \"Last login: Fri Mar  1 10:22:33 2024 from "
            "10.0.0.1\"; expected a vendid=, devid=, sysimgguid=, switchguid=, caguid= or rtguid= "
            "line, a Switch, Ca or Rt header, a [port] line, a comment or a blank line\n"
            "capture.txt:2: port line outside a node record; expected a Switch, Ca or Rt header "
            "before it\n");
}

}  // namespace topo_terminal_capture_test
}  // namespace railguard::topo
