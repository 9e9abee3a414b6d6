// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for topo/hostlist: exact expansions, compressions and error texts, properties over
// seeded random host lists, speed at cluster scale, and a differential test against the
// installed `scontrol` (the reference the library promises to match).
#include "topo/hostlist.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

extern char** environ;

namespace railguard {
namespace topo_hostlist_test {

// Expansion joined by spaces, or "error: <message>".
std::string Expand(const std::string& expr) {
  std::vector<std::string> hosts;
  std::string err;
  if (!ExpandHostlist(expr, &hosts, &err)) return "error: " + err;
  std::string joined;
  for (const std::string& h : hosts) joined += (joined.empty() ? "" : " ") + h;
  return joined;
}

// The error text for `expr`, or "" if it expands.
std::string ExpandError(const std::string& expr, size_t max_hosts = 1u << 20) {
  std::vector<std::string> hosts;
  std::string err;
  if (ExpandHostlist(expr, &hosts, &err, max_hosts)) return "";
  return err;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::vector<std::string> MustExpand(const std::string& expr) {
  std::vector<std::string> hosts;
  std::string err;
  EXPECT_TRUE(ExpandHostlist(expr, &hosts, &err)) << expr << ": " << err;
  return hosts;
}

std::string Padded(uint64_t v, int width) {
  std::string digits = std::to_string(v);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// ---- seeded random inputs -----------------------------------------------------------------

// Deterministic across platforms: std::mt19937's output is fixed by the standard.
class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  uint32_t Below(size_t n) { return static_cast<uint32_t>(gen_() % n); }
  bool Percent(uint32_t p) { return Below(100) < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }

 private:
  std::mt19937 gen_;
};

struct ListOptions {
  bool mixed_padding = true;      // allow prefixes whose names have varying zero-padding
  bool mixed_duplicates = false;  // allow duplicates in such prefixes
  bool duplicates = true;         // allow duplicates at all
};

// A host list as a cluster might produce it: 1-3 prefixes (none ending in a digit, some
// with digits inside, one empty), each with runs of numbers in one padding style (none,
// a fixed width, or mixed), gaps, duplicates, names without digits, partly shuffled.
// Duplicates in a prefix with mixed padding are where Slurm's sorted form reads freed
// memory and loses hosts, so they are off unless asked for.
std::vector<std::string> RandomHostList(Rng& rng, const ListOptions& options) {
  std::vector<std::string> prefixes = {"n",     "gpu", "rack1-n", "a1b", "x",
                                       "node-", "sw.", "",        "db_", "r2s"};
  const std::vector<std::string> plain = {"login", "head", "n1a", "mgmt", "a1b2c"};
  std::vector<std::string> hosts;
  size_t nprefixes = 1 + rng.Below(3);
  for (size_t p = 0; p < nprefixes; ++p) {
    std::swap(prefixes[p], prefixes[p + rng.Below(prefixes.size() - p)]);
    const std::string& prefix = prefixes[p];
    int style = static_cast<int>(rng.Below(6)) - 1;  // -1 mixed, 0 unpadded, 1-4 width
    if (style == -1 && !options.mixed_padding) style = 0;
    uint64_t max_value = 1200;
    if (style > 0) {
      max_value = 1;
      for (int i = 0; i < style; ++i) max_value *= 10;
      --max_value;
    }
    std::vector<std::string> names;
    for (uint32_t run = 0, runs = 1 + rng.Below(4); run < runs; ++run) {
      const std::vector<uint64_t> starts = {
          0, 1, 5, 8, 9, 10, 95, 99, 100, 998, rng.Below(max_value + 1)};
      uint64_t lo = std::min(rng.Pick(starts), max_value);
      uint64_t hi = std::min(lo + rng.Below(12), max_value);
      for (uint64_t v = lo; v <= hi; ++v) {
        int digits = static_cast<int>(std::to_string(v).size());
        int width = style > 0 ? style : style == 0 ? 0 : digits + static_cast<int>(rng.Below(3));
        names.push_back(prefix + Padded(v, width));
      }
    }
    if (options.duplicates && (style != -1 || options.mixed_duplicates) && rng.Percent(40)) {
      for (uint32_t d = 0, n = 1 + rng.Below(6); d < n; ++d) names.push_back(rng.Pick(names));
    }
    hosts.insert(hosts.end(), names.begin(), names.end());
  }
  for (uint32_t i = 0, n = rng.Below(3); i < n; ++i) {
    hosts.insert(hosts.begin() + rng.Below(hosts.size() + 1), rng.Pick(plain));
  }
  if (rng.Percent(50)) {
    for (uint32_t i = 0, n = 1 + rng.Below(hosts.size()); i < n; ++i) {
      std::swap(hosts[rng.Below(hosts.size())], hosts[rng.Below(hosts.size())]);
    }
  }
  return hosts;
}

// A valid expression: 1-4 items separated by ',', ' ', ',,', '\t' or ", ", each a plain
// name or 1-3 bracket groups of 1-3 ranges with varied zero-padding, duplicates and runs
// across 9/10 and 99/100.
std::string RandomExpression(Rng& rng) {
  const std::vector<std::string> first = {"", "n", "gpu", "r", "-", "x", "a1b", ".", "_s"};
  const std::vector<std::string> between = {"", "x", "-n", "s", "0"};
  const std::vector<std::string> plain = {"login", "head", "n1a", "n7", "n007", "x1y2"};
  const std::vector<std::string> separators = {",", " ", ",,", "\t", ", "};
  std::string expr;
  for (uint32_t item = 0, items = 1 + rng.Below(4); item < items; ++item) {
    if (item > 0) expr += rng.Pick(separators);
    if (rng.Percent(15)) {
      expr += rng.Pick(plain);
      continue;
    }
    for (uint32_t g = 0, groups = 1 + rng.Below(3); g < groups; ++g) {
      expr += g == 0 ? rng.Pick(first) : rng.Pick(between);
      expr += '[';
      for (uint32_t r = 0, ranges = 1 + rng.Below(3); r < ranges; ++r) {
        const std::vector<uint64_t> starts = {0, 1, 8, 9, 10, 99, rng.Below(121)};
        uint64_t lo = rng.Pick(starts);
        const std::vector<uint64_t> lengths = {0, 0, 1, 2, 5, rng.Below(16)};
        uint64_t hi = lo + rng.Pick(lengths);
        const std::vector<int> extra_zeros = {0, 0, 1, 2};
        int lo_width = static_cast<int>(std::to_string(lo).size()) + rng.Pick(extra_zeros);
        int hi_width = rng.Percent(50) ? lo_width : 0;
        if (r > 0) expr += ',';
        expr += Padded(lo, lo_width);
        if (lo != hi || rng.Percent(30)) expr += "-" + Padded(hi, hi_width);
      }
      expr += ']';
    }
  }
  return expr;
}

// ---- expansion ----------------------------------------------------------------------------

TEST(HostlistExpand, ListsRangesThenMultipliesBracketGroupsAsScontrolDoes) {
  EXPECT_EQ("n001 n002 n003 n010 m1x3 m1x4 m2x3 m2x4", Expand("n[001-003,010],m[1-2]x[3-4]"));
  EXPECT_EQ("rack1-n01 rack1-n02 rack2-n01 rack2-n02", Expand("rack[1-2]-n[01-02]"));
}

TEST(HostlistExpand, NestsThreeGroupsWithTheLastFastestThenTheFirst) {
  EXPECT_EQ("a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 a1b4c6 a2b4c5 a2b4c6",
            Expand("a[1-2]b[3-4]c[5-6]"));
  EXPECT_EQ("a1-3 a1-4 a2-3 a2-4", Expand("a[1-2]-[3-4]"));
}

TEST(HostlistExpand, PadsEveryNumberToTheWidthOfItsRangesLowEnd) {
  EXPECT_EQ("n08 n09 n10", Expand("n[08-10]"));
  EXPECT_EQ("n8 n9 n10", Expand("n[8-010]"));
  EXPECT_EQ("k0 k1 k00", Expand("k[0-1,00]"));
  EXPECT_EQ("n0000000000000000000000001", Expand("n[0000000000000000000000001]"));
}

TEST(HostlistExpand, KeepsDuplicatesAndInputOrder) {
  EXPECT_EQ("n1 n2 n3 n2 n3 n4 n1", Expand("n[1-3,2-4],n1"));
  EXPECT_EQ("x x", Expand("x,x"));
}

TEST(HostlistExpand, TakesCommaSpaceAndTabAsSeparatorsAndIgnoresEmptyItems) {
  EXPECT_EQ("n1 n2 n3 n4", Expand(",n1,, n2\tn[3-4] ,"));
  EXPECT_EQ("", Expand(""));
  EXPECT_EQ("", Expand(" ,\t"));
}

TEST(HostlistExpand, TakesNamesWithoutBracketsLiterallyAndAllowsAnEmptyPrefix) {
  EXPECT_EQ("login n1a a1b2 n007 1 2 3 r1-1 r1-2", Expand("login,n1a,a1b2,n007,[1-3],r1-[1-2]"));
  EXPECT_EQ("n18446744073709551613 n18446744073709551614",
            Expand("n[18446744073709551613-18446744073709551614]"));
}

TEST(HostlistExpand, AcceptsSlurmsLargestRangeAndPrefixGroup) {
  EXPECT_EQ(65536u, MustExpand("n[1-65536]").size());
  std::vector<std::string> hosts = MustExpand("a[1-65536]b[1]");
  ASSERT_EQ(65536u, hosts.size());
  EXPECT_EQ("a65536b1", hosts.back());
}

TEST(HostlistExpand, RejectsMalformedInputSayingWhatIsWrongAndWhatWasExpected) {
  const std::string name_form = "; expected name[ranges] such as n[001-032,040]";
  const std::string range_form = "; expected a number or lo-hi such as 7 or 001-032";
  const struct {
    const char* expr;
    std::string err;
  } cases[] = {
      {"n[1-", "unbalanced '[' in 'n[1-'" + name_form},
      {"a,n[1-3]],b", "unbalanced ']' in 'n[1-3]]'" + name_form},
      {"a,n[1[2]],b", "nested '[' in 'n[1[2]]'" + name_form},
      {"n[1-2]x",
       "text 'x' after the last ']' in 'n[1-2]x'; expected the name to end with a bracket "
       "group, such as n[1-2] or n[1-2]x[3-4]"},
      {"n[]", "empty range in 'n[]'" + range_form},
      {"n[1,]", "empty range in 'n[1,]'" + range_form},
      {"n[a-b]", "bad range 'a-b' in 'n[a-b]'" + range_form},
      {"n[1-]", "bad range '1-' in 'n[1-]'" + range_form},
      {"n[+1]", "bad range '+1' in 'n[+1]'" + range_form},
      {"n[1, 2]", "bad range ' 2' in 'n[1, 2]'" + range_form},
      {"n[1x2]", "bad range '1x2' in 'n[1x2]'" + range_form},
      {"a[x]b[1]c[2]", "bad range 'x' in 'a[x]b[1]c[2]'" + range_form},
      {"n[010-008]", "descending range '010-008' in 'n[010-008]'; expected lo <= hi"},
      {"n[1-70000]",
       "range '1-70000' in 'n[1-70000]' has 70000 hosts; expected at most 65536 per range"},
      {"a[1-40000,1-30000]b[1]",
       "bracket group '[1-40000,1-30000]' in 'a[1-40000,1-30000]b[1]' has 70000 hosts; "
       "expected at most 65536 in a group followed by another group"},
      {"n[99999999999999999999]",
       "number '99999999999999999999' in 'n[99999999999999999999]' is too large; expected at "
       "most 18446744073709551614"},
      {"n[18446744073709551615]",
       "number '18446744073709551615' in 'n[18446744073709551615]' is too large; expected at "
       "most 18446744073709551614"},
      {"n99999999999999999999",
       "number '99999999999999999999' in 'n99999999999999999999' is too large; expected at "
       "most 18446744073709551614"},
      {"a\nb",
       "control character 0x0a at offset 1 of the host list; expected printable host "
       "names"},
  };
  for (const auto& c : cases) EXPECT_EQ(c.err, ExpandError(c.expr)) << c.expr;
}

TEST(HostlistExpand, StopsAtTheCallersHostLimitInsteadOfExpandingWithoutBound) {
  EXPECT_EQ("'n[1-10],m[1-10]' expands to more than 15 hosts; expected at most 15",
            ExpandError("n[1-10],m[1-10]", 15));
  EXPECT_EQ("", ExpandError("n[1-10],m[1-10]", 20));
  // 65536^3 names would take forever; the limit refuses before generating any.
  EXPECT_EQ(
      "'a[1-65536]b[1-65536]c[1-65536]' expands to more than 1048576 hosts; expected at most "
      "1048576",
      ExpandError("a[1-65536]b[1-65536]c[1-65536]"));
}

TEST(HostlistExpand, ShortensLongInputQuotedInErrors) {
  std::string expr = std::string(70, 'a') + "[1-";
  EXPECT_EQ("unbalanced '[' in '" + std::string(61, 'a') +
                "...'; expected name[ranges] such "
                "as n[001-032,040]",
            ExpandError(expr));
}

TEST(HostlistExpand, AllowsSlurmsMostRangesInOneGroupAndRejectsOneMore) {
  std::string ok = "n[1";
  for (int i = 1; i < 262144; ++i) ok += ",1";
  ok += "]";
  EXPECT_EQ(262144u, MustExpand(ok).size());
  std::string too_many = ok.substr(0, ok.size() - 1) + ",1]";
  EXPECT_EQ("bracket group in '" + too_many.substr(0, 61) +
                "...' has more than 262144 ranges; expected at most 262144",
            ExpandError(too_many));
}

// ---- compression --------------------------------------------------------------------------

TEST(HostlistCompress, KeepsInputOrderAsScontrolShowHostlistDoes) {
  EXPECT_EQ("n[003,001-002,1,01],foo,n[10,9],a1b[2-3]",
            CompressHostlist(Split("n003,n001,n002,n1,n01,foo,n10,n9,a1b2,a1b3", ',')));
  EXPECT_EQ("gpu1-rail[0-3],gpu2-rail[0-3]", CompressHostlist(MustExpand("gpu[1-2]-rail[0-3]")));
}

TEST(HostlistCompress, JoinsARunAcrossADigitBoundaryButNotAcrossPaddingWidths) {
  EXPECT_EQ("n[9-11]", CompressHostlist({"n9", "n10", "n11"}));
  EXPECT_EQ("n[08-11]", CompressHostlist({"n08", "n09", "n10", "n11"}));
  EXPECT_EQ("n[098-100]", CompressHostlist({"n098", "n099", "n100"}));
  EXPECT_EQ("n[0,00,000]", CompressHostlist({"n0", "n00", "n000"}));
  EXPECT_EQ("n[9,010]", CompressHostlist({"n9", "n010"}));
}

TEST(HostlistCompress, KeepsDuplicates) {
  EXPECT_EQ("x,x", CompressHostlist({"x", "x"}));
  EXPECT_EQ("n[1,1]", CompressHostlist({"n1", "n1"}));
}

TEST(HostlistCompress, SplitsOnlyTheTrailingDigitsOffAName) {
  EXPECT_EQ("n-[1-2]", CompressHostlist({"n-1", "n-2"}));
  EXPECT_EQ("n1a,n2a", CompressHostlist({"n1a", "n2a"}));
  EXPECT_EQ("a1b2c[3-4],n1.ib,n2.ib", CompressHostlist({"a1b2c3", "a1b2c4", "n1.ib", "n2.ib"}));
  EXPECT_EQ("[1-3]", CompressHostlist({"1", "2", "3"}));
  EXPECT_EQ("", CompressHostlist({}));
}

TEST(HostlistCompress, KeepsANumberTooLargeForSlurmAsPartOfTheName) {
  EXPECT_EQ("n[18446744073709551613-18446744073709551614]",
            CompressHostlist({"n18446744073709551613", "n18446744073709551614"}));
  EXPECT_EQ("n18446744073709551615,n99999999999999999999",
            CompressHostlist({"n18446744073709551615", "n99999999999999999999"}));
}

TEST(HostlistCompressSorted, SortsAsScontrolShowHostlistsortedDoes) {
  EXPECT_EQ("a1b[2-3],foo,n[1,9,01,10,001-003]",
            CompressHostlistSorted(Split("n003,n001,n002,n1,n01,foo,n10,n9,a1b2,a1b3", ',')));
  EXPECT_EQ("[1,01],a[1,01,001],a01b,a1b,a2b,n,n[0-1,00],x",
            CompressHostlistSorted(Split("x,n,n1,n0,n00,1,01,a1,a01,a001,a1b,a01b,a2b", ',')));
}

TEST(HostlistCompressSorted, SplitsOverlappingDuplicatesTheWaySlurmDoes) {
  EXPECT_EQ("n[1-2,2-3,3-4]", CompressHostlistSorted(MustExpand("n[1-3],n[2-4]")));
  EXPECT_EQ("n[1-2,2-3,3,3-4,4,4-5,5-6,6-7,7-8,8-10]",
            CompressHostlistSorted(MustExpand("n[1-10],n[2-8],n[3-4]")));
  EXPECT_EQ("n[1,1,1]", CompressHostlistSorted({"n1", "n1", "n1"}));
  EXPECT_EQ("n[1,1-2,2]", CompressHostlistSorted({"n1", "n1", "n2", "n2"}));
}

TEST(HostlistCompressSorted, FirstJoinsRunsThatAreConsecutiveInTheInput) {
  EXPECT_EQ("n[9-10,05]", CompressHostlistSorted({"n9", "n10", "n05"}));
  EXPECT_EQ("n[9,05,10]", CompressHostlistSorted({"n9", "n05", "n10"}));
}

TEST(HostlistCompressSorted, KeepsEveryHostWhereSlurmLosesSome) {
  // scontrol prints n[05-06,06-07,...,149-150,150] here: n[151-200] and n[001-005] vanish.
  std::vector<std::string> hosts = MustExpand("n[05-200],n[06-150],n[001-005]");
  std::string expected = "n[05-06";
  for (int v = 6; v < 150; ++v) expected += "," + Padded(v, 2) + "-" + Padded(v + 1, 2);
  expected += ",150-200,001-005]";
  std::string sorted = CompressHostlistSorted(hosts);
  EXPECT_EQ(expected, sorted);
  std::vector<std::string> back = MustExpand(sorted);
  std::sort(back.begin(), back.end());
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, back);
}

TEST(HostlistCompressSorted, OrdersNumbersFarApartNumericallyAndKeepsThemAll) {
  // scontrol's comparison overflows here and it prints just n[3000000000].
  EXPECT_EQ("n[0,3000000000]", CompressHostlistSorted({"n3000000000", "n0"}));
  EXPECT_EQ("n[5,4294967301]", CompressHostlistSorted({"n4294967301", "n5"}));
}

TEST(HostlistHostLess, OrdersNamesAsTheSortedFormListsThem) {
  std::vector<std::string> hosts = {"n10",  "n001", "n9", "n01",  "n1",  "foo",
                                    "n002", "a1b3", "n",  "a1b2", "a01b"};
  std::sort(hosts.begin(), hosts.end(), HostLess);
  EXPECT_EQ("a01b a1b2 a1b3 foo n n1 n9 n01 n10 n001 n002", Join(hosts, " "));
  EXPECT_FALSE(HostLess("n1", "n1"));
  EXPECT_TRUE(HostLess("n2", "n10"));
  EXPECT_FALSE(HostLess("n10", "n2"));
}

TEST(HostlistHostLess, SortingDistinctNamesThenCompressingGivesTheSortedForm) {
  Rng rng(7);
  for (int i = 0; i < 300; ++i) {
    ListOptions options;
    options.mixed_padding = false;
    options.duplicates = false;
    std::vector<std::string> hosts = RandomHostList(rng, options);
    std::vector<std::string> sorted = hosts;
    std::sort(sorted.begin(), sorted.end(), HostLess);
    EXPECT_EQ(CompressHostlistSorted(hosts), CompressHostlist(sorted)) << Join(hosts, ",");
  }
}

// ---- round trips ----------------------------------------------------------------------------

TEST(HostlistRoundTrip, ExpandingACompressedListGivesTheListBack) {
  Rng rng(11);
  for (int i = 0; i < 500; ++i) {
    std::vector<std::string> hosts = RandomHostList(rng, {true, true, true});
    std::string compressed = CompressHostlist(hosts);
    EXPECT_EQ(hosts, MustExpand(compressed)) << compressed;
  }
}

TEST(HostlistRoundTrip, TheSortedFormHoldsExactlyTheSameHosts) {
  Rng rng(13);
  for (int i = 0; i < 500; ++i) {
    std::vector<std::string> hosts = RandomHostList(rng, {true, true, true});
    std::vector<std::string> back = MustExpand(CompressHostlistSorted(hosts));
    std::sort(hosts.begin(), hosts.end());
    std::sort(back.begin(), back.end());
    EXPECT_EQ(hosts, back);
  }
}

// ---- speed ----------------------------------------------------------------------------------

// The times of these are measured by bench/bench_topo (a unit test asserts no time).
TEST(HostlistSpeed, Handles4096HostsFarInsideTheLayoutLoadBudget) {
  std::vector<std::string> hosts = MustExpand("gpu-[0001-2048],cpu[1-2048]");
  ASSERT_EQ(4096u, hosts.size());
  Rng rng(3);
  for (size_t k = hosts.size(); k > 1; --k) std::swap(hosts[k - 1], hosts[rng.Below(k)]);

  std::string unsorted = CompressHostlist(hosts);
  std::string sorted = CompressHostlistSorted(hosts);

  EXPECT_EQ("cpu[1-2048],gpu-[0001-2048]", sorted);
  EXPECT_EQ(4096u, MustExpand(unsorted).size());
}

// ---- differential test against scontrol -----------------------------------------------------

struct ProcessResult {
  bool started = false;
  int status = -1;  // exit status, or -1 if killed or not started
  std::string out;
  std::string err;
};

// Runs `argv` (looked up on PATH) with `env`, no shell involved, collecting stdout and
// stderr; kills it after `timeout_ms`.
ProcessResult RunProgram(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         int timeout_ms = 20000) {
  ProcessResult run;
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return run;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return run;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  for (const std::string& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    run.err = std::string("cannot start ") + argv[0] + ": " + std::strerror(rc);
    return run;
  }
  run.started = true;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&run.out, &run.err};
  int open_fds = 2;
  bool timed_out = false;
  while (open_fds > 0) {
    int ready = poll(fds, 2, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = true;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[65536];
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  if (timed_out) kill(pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!timed_out && WIFEXITED(wstatus)) run.status = WEXITSTATUS(wstatus);
  if (timed_out) run.err += "\n(killed after " + std::to_string(timeout_ms) + " ms)";
  return run;
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  for (const std::string& dir : Split(path, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Each test writes its own minimal slurm.conf; scontrol reads it through SLURM_CONF and
// needs no running daemon for the hostlist commands.
class HostlistVsScontrol : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!OnPath("scontrol")) {
      FAIL() << "scontrol is not on PATH; run scripts/setup.sh (as root) to install Slurm, "
                "which this differential test needs";
    }
    std::string tmpl = ::testing::TempDir() + "railguard_hostlist_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    ASSERT_NE(nullptr, mkdtemp(buf.data())) << std::strerror(errno);
    dir_ = buf.data();
    conf_ = dir_ + "/slurm.conf";
    FILE* f = std::fopen(conf_.c_str(), "w");
    ASSERT_NE(nullptr, f) << conf_ << ": " << std::strerror(errno);
    std::fputs(
        "ClusterName=railguard\nSlurmctldHost=localhost\nNodeName=n1\nPartitionName=p "
        "Nodes=n1\n",
        f);
    ASSERT_EQ(0, std::fclose(f));
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::strncmp(*e, "SLURM_CONF=", 11) != 0) env_.push_back(*e);
    }
    env_.push_back("SLURM_CONF=" + conf_);
  }

  void TearDown() override {
    if (!conf_.empty()) std::remove(conf_.c_str());
    if (!dir_.empty()) rmdir(dir_.c_str());
  }

  // `scontrol show <what> <arg>`; "--" keeps an argument starting with '-' from being
  // read as an option.
  ProcessResult Show(const std::string& what, const std::string& arg) {
    ProcessResult run = RunProgram({"scontrol", "--", "show", what, arg}, env_);
    EXPECT_TRUE(run.started) << run.err;
    return run;
  }

  // One line of output from a hostlist/hostlistsorted call, without its newline.
  std::string ShowOne(const std::string& what, const std::string& arg) {
    ProcessResult run = Show(what, arg);
    EXPECT_EQ(0, run.status) << what << " " << arg << ": " << run.err;
    std::string out = run.out;
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

  // Expands many valid expressions with one scontrol call, using a marker host between
  // them, and compares each with ExpandHostlist.
  void ExpectExpansionsMatch(const std::vector<std::string>& exprs) {
    const std::string marker = "HOSTLIST-TEST-MARKER";
    size_t next = 0;
    while (next < exprs.size()) {
      std::string batch;
      size_t first = next;
      while (next < exprs.size() && batch.size() < 60000)
        batch += exprs[next++] + "," + marker + ",";
      ProcessResult run = Show("hostnames", batch);
      ASSERT_EQ(0, run.status) << run.err;
      std::vector<std::string> lines = Split(run.out, '\n');
      if (!lines.empty() && lines.back().empty()) lines.pop_back();
      std::vector<std::string> current;
      size_t expr = first;
      for (const std::string& line : lines) {
        if (line != marker) {
          current.push_back(line);
          continue;
        }
        ASSERT_LT(expr, next) << "more markers than expressions";
        EXPECT_EQ(Join(current, " "), Expand(exprs[expr])) << "expression: " << exprs[expr];
        current.clear();
        ++expr;
      }
      EXPECT_EQ(next, expr) << "scontrol listed fewer expressions than it was given";
    }
  }

  std::string dir_;
  std::string conf_;
  std::vector<std::string> env_;
};

TEST_F(HostlistVsScontrol, TrickyExpressionsGiveScontrolsExactOutput) {
  const std::vector<std::string> exprs = {
      "n[001-003,010],m[1-2]x[3-4]",
      "n003,n001,n002,n1,n01,foo,n10,n9,a1b2,a1b3",
      "n9,n10,n11",
      "n0,n00,n000",
      "x,x",
      "n1,n1",
      "n1,n1,n1",
      "n1,n1,n2,n2",
      "n1,n1,n01",
      "n-1,n-2",
      "n1a,n2a",
      "n1.ib,n2.ib,a1b2c3,a1b2c4",
      "a[1-2]b[3-4]c[5-6]",
      "a[1-2]-[3-4]",
      "rack[1-2]-n[01-02]",
      "gpu[1-2]-rail[0-3]",
      "[1-3]",
      "[1,01],a[1,01,001]",
      "x,n,n1,n0,n00,1,01,a1,a01,a001,a1b,a01b,a2b",
      "n[1-3],n[2-4]",
      "n[1-10],n[2-8],n[3-4]",
      "n[1-3,1-3]",
      "n9,n10,n05",
      "n9,n05,n10",
      "n[8-010]",
      "n[08-10]",
      "n[098-101],n[8-010]",
      "n[9-11],n[05-12]",
      "n9,n10,n11,n05,n06,n07,n08,n09,n10,n11,n12",
      " ,n1,,\tn2 ,",
      "-[1-3],-x",
      "n[18446744073709551610-18446744073709551614]",
      "n[00001-03000],m[1-3000]",
      "k[0-1,00],k[0000000000000000000001]",
  };
  ExpectExpansionsMatch(exprs);
  // Compression takes names, so scontrol gets the expanded names too.
  for (const std::string& e : exprs) {
    std::vector<std::string> hosts = MustExpand(e);
    std::string names = Join(hosts, ",");
    EXPECT_EQ(ShowOne("hostlist", names), CompressHostlist(hosts)) << e;
    EXPECT_EQ(ShowOne("hostlistsorted", names), CompressHostlistSorted(hosts)) << e;
  }
}

TEST_F(HostlistVsScontrol, InputScontrolRejectsIsRejectedHereToo) {
  for (const char* e : {"n[1-3]]", "n[010-008]", "n[a-b]", "n[1-2]x", "n[]", "n[1,]", "n[1-70000]",
                        "n[1x2]", "a[1-40000,1-30000]b[1]"}) {
    ProcessResult run = Show("hostnames", e);
    EXPECT_EQ("", run.out) << e;
    EXPECT_NE(std::string::npos, run.err.find("Invalid hostlist")) << e << ": " << run.err;
    EXPECT_NE("", ExpandError(e)) << e;
  }
}

TEST_F(HostlistVsScontrol, SeededRandomHostListsCompressExactlyAsScontrolDoes) {
  Rng rng(2024);
  for (int i = 0; i < 250; ++i) {
    std::vector<std::string> hosts = RandomHostList(rng, ListOptions());
    std::string list = Join(hosts, ",");
    EXPECT_EQ(ShowOne("hostlist", list), CompressHostlist(hosts)) << list;
    EXPECT_EQ(ShowOne("hostlistsorted", list), CompressHostlistSorted(hosts)) << list;
  }
}

TEST_F(HostlistVsScontrol, SeededRandomExpressionsExpandAndCompressExactlyAsScontrolDoes) {
  Rng rng(99);
  std::vector<std::string> exprs;
  for (int i = 0; i < 200; ++i) exprs.push_back(RandomExpression(rng));
  ExpectExpansionsMatch(exprs);
  // Compression takes names: given "r[1-2][5-6]" itself, Slurm keeps the digits of the first
  // group in the prefix ("r1[5-6],r2[5-6]"), which names alone ("r15,r16,r25,r26") cannot
  // carry. The sorted form is left out because these lists mix duplicates and padding.
  for (size_t i = 0; i < exprs.size(); ++i) {
    std::vector<std::string> hosts = MustExpand(exprs[i]);
    EXPECT_EQ(ShowOne("hostlist", Join(hosts, ",")), CompressHostlist(hosts)) << exprs[i];
  }
}

}  // namespace topo_hostlist_test
}  // namespace railguard
