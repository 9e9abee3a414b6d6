// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for bench/trace: CSV and SWF traces read into jobs, every malformed-line message
// exactly, the node mapping, the time-compressed stream and its text form; plus the real
// Microsoft ITP trace of shared/data.
#include "bench/trace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/shared_data.h"

namespace railguard::bench {
namespace bench_trace_test {

constexpr char kHeader[] = "job_id,submission_time,duration,num_gpu\n";

// Parses `text` expecting an error; returns it.
std::string ErrorOf(const std::string& text, const std::string& name = "t.csv",
                    TraceFormat format = TraceFormat::kAuto) {
  Trace trace;
  std::string err;
  EXPECT_FALSE(ParseTrace(text, name, format, &trace, &err)) << text;
  return err;
}

Trace Parse(const std::string& text, const std::string& name = "t.csv",
            TraceFormat format = TraceFormat::kAuto) {
  Trace trace;
  std::string err;
  EXPECT_TRUE(ParseTrace(text, name, format, &trace, &err)) << err;
  return trace;
}

// One SWF line with the given submit time, run time, allocated and requested processors.
std::string SwfLine(const std::string& id, const std::string& submit, const std::string& run,
                    const std::string& alloc, const std::string& req) {
  return id + " " + submit + " 0 " + run + " " + alloc + " -1 -1 " + req +
         " 3600 -1 1 1 1 -1 1 -1 -1 -1\n";
}

TEST(TraceCsv, ReadsEveryJobWithItsLineTimesAndGpus) {
  Trace t = Parse(std::string(kHeader) + "a,5810,288476,16\nb,5813.5,600,1\n");
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.format, TraceFormat::kCsv);
  EXPECT_EQ(t.jobs[0].id, "a");
  EXPECT_EQ(t.jobs[0].line, 2);
  EXPECT_EQ(t.jobs[0].submit, 5810);
  EXPECT_EQ(t.jobs[0].duration, 288476);
  EXPECT_EQ(t.jobs[0].gpus, 16u);
  EXPECT_EQ(t.jobs[1].submit, 5813.5);
  EXPECT_EQ(t.jobs[1].line, 3);
}

TEST(TraceCsv, FindsColumnsByNameInAnyOrderAndIgnoresOthers) {
  Trace t = Parse("num_gpu,user,duration,job_id,submission_time\n8,alice,60,x,7\n");
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].id, "x");
  EXPECT_EQ(t.jobs[0].submit, 7);
  EXPECT_EQ(t.jobs[0].duration, 60);
  EXPECT_EQ(t.jobs[0].gpus, 8u);
}

TEST(TraceCsv, AcceptsCrlfBlankLinesSpacesAndNoFinalNewline) {
  Trace t = Parse("\r\njob_id, submission_time ,duration,num_gpu\r\n\r\na, 1 ,2,3\r\nb,4,5,6");
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].line, 4);
  EXPECT_EQ(t.jobs[1].id, "b");
  EXPECT_EQ(t.jobs[1].gpus, 6u);
}

TEST(TraceCsv, SortsBySubmissionKeepingFileOrderForTies) {
  Trace t = Parse(std::string(kHeader) + "late,9,1,1\nfirst,1,1,1\nsecond,1,1,1\n");
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_EQ(t.jobs[0].id, "first");
  EXPECT_EQ(t.jobs[1].id, "second");
  EXPECT_EQ(t.jobs[2].id, "late");
}

TEST(TraceCsv, AHeaderWithoutANeededColumnIsAnError) {
  EXPECT_EQ(ErrorOf("job_id,submission_time,duration\na,1,2\n"),
            "t.csv:1: header has no column 'num_gpu'; expected a header naming job_id, "
            "submission_time, duration and num_gpu");
  // A first line of data is a header without those names.
  EXPECT_EQ(ErrorOf("a,5810,288476,16\n"),
            "t.csv:1: header has no column 'job_id'; expected a header naming job_id, "
            "submission_time, duration and num_gpu");
}

TEST(TraceCsv, AColumnNamedTwiceIsAnError) {
  EXPECT_EQ(ErrorOf("job_id,duration,submission_time,duration,num_gpu\n"),
            "t.csv:1: column 'duration' appears twice in the header; expected each column once");
}

TEST(TraceCsv, ALineWithTooFewOrTooManyFieldsNamesTheHeader) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "a,1,2,3\nb,1,2\n"),
            "t.csv:3: expected 4 comma-separated fields as in the header (line 1), got 3");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "\"a,b\",1,2,3\n"),
            "t.csv:2: expected 4 comma-separated fields as in the header (line 1), got 5");
}

TEST(TraceCsv, BadTimesSayWhatANumberOfSecondsIs) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "a,-5,2,3\n"),
            "t.csv:2: submission_time '-5' is not a number of seconds; expected a non-negative "
            "number such as 5810 or 5810.5");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "a,1,1e5,3\n"),
            "t.csv:2: duration '1e5' is not a number of seconds; expected a non-negative number "
            "such as 5810 or 5810.5");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "a,1,,3\n"),
            "t.csv:2: duration '' is not a number of seconds; expected a non-negative number "
            "such as 5810 or 5810.5");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "a,.,2,3\n"),
            "t.csv:2: submission_time '.' is not a number of seconds; expected a non-negative "
            "number such as 5810 or 5810.5");
}

TEST(TraceCsv, BadGpuCountsSayTheRange) {
  for (const char* bad : {"0", "1.5", "-1", "x", "1000001", "99999999999999999999"}) {
    EXPECT_EQ(ErrorOf(std::string(kHeader) + "a,1,2," + bad + "\n"),
              std::string("t.csv:2: num_gpu '") + bad +
                  "' is not a GPU count; expected a whole number from 1 to 1000000");
  }
}

TEST(TraceCsv, AnEmptyJobIdIsAnError) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + " ,1,2,3\n"),
            "t.csv:2: job_id is empty; expected an identifier");
}

TEST(TraceCsv, AHeaderAloneOrNothingIsAnError) {
  EXPECT_EQ(ErrorOf(kHeader),
            "t.csv: no jobs; expected a header line naming job_id, submission_time, duration "
            "and num_gpu, then one line per job");
  EXPECT_EQ(ErrorOf("", "t.csv"),
            "t.csv: no jobs; expected a header line naming job_id, submission_time, duration "
            "and num_gpu, then one line per job");
}

TEST(TraceSwf, ReadsSubmitRunTimeAndRequestedElseAllocatedProcessors) {
  Trace t = Parse("; Version: 2.2\n;  Computer: test\n" + SwfLine("1", "0", "100", "16", "32") +
                      SwfLine("2", "10", "50", "4", "-1"),
                  "t.swf");
  EXPECT_EQ(t.format, TraceFormat::kSwf);
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].id, "1");
  EXPECT_EQ(t.jobs[0].line, 3);
  EXPECT_EQ(t.jobs[0].duration, 100);
  EXPECT_EQ(t.jobs[0].gpus, 32u);  // requested
  EXPECT_EQ(t.jobs[1].submit, 10);
  EXPECT_EQ(t.jobs[1].gpus, 4u);  // allocated, as nothing was requested
  EXPECT_EQ(t.skipped, 0);
}

TEST(TraceSwf, CountsJobsWithUnknownRunTimeOrProcessorsAsSkipped) {
  Trace t = Parse(SwfLine("1", "0", "-1", "8", "8") + SwfLine("2", "1", "5", "-1", "-1") +
                      SwfLine("3", "2", "5", "0", "-1") + SwfLine("4", "3", "5", "8", "8"),
                  "t.swf");
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].id, "4");
  EXPECT_EQ(t.skipped, 3);
  EXPECT_EQ(t.first_skipped_line, 1);
}

TEST(TraceSwf, IsDetectedFromACommentOrAFirstLineWithoutCommas) {
  EXPECT_EQ(Parse("; comment\n" + SwfLine("1", "0", "5", "8", "8"), "trace").format,
            TraceFormat::kSwf);
  EXPECT_EQ(Parse(SwfLine("1", "0", "5", "8", "8"), "trace").format, TraceFormat::kSwf);
  EXPECT_EQ(Parse(std::string(kHeader) + "a,1,2,3\n", "trace").format, TraceFormat::kCsv);
  // The name decides first; an explicit format beats both.
  EXPECT_EQ(ErrorOf(SwfLine("1", "0", "5", "8", "8"), "x.CSV"),
            "x.CSV:1: header has no column 'job_id'; expected a header naming job_id, "
            "submission_time, duration and num_gpu");
  EXPECT_EQ(ErrorOf(std::string(kHeader), "x.csv", TraceFormat::kSwf),
            "x.csv:1: expected 18 whitespace-separated fields (Standard Workload Format), got 1");
}

TEST(TraceSwf, ALineWithoutEighteenFieldsIsAnError) {
  EXPECT_EQ(ErrorOf("1 0 0 5 8\n", "t.swf"),
            "t.swf:1: expected 18 whitespace-separated fields (Standard Workload Format), got 5");
}

TEST(TraceSwf, AFieldThatIsNotANumberIsNamed) {
  std::string line = SwfLine("1", "0", "5", "8", "8");
  line.replace(line.find(" 3600 "), 6, " 1h ");
  EXPECT_EQ(ErrorOf(line, "t.swf"),
            "t.swf:1: field 9 (requested time) '1h' is not a number; expected an integer or "
            "decimal, -1 when unknown");
}

TEST(TraceSwf, NegativeTimesOtherThanUnknownAreErrors) {
  EXPECT_EQ(ErrorOf(SwfLine("1", "-1", "5", "8", "8"), "t.swf"),
            "t.swf:1: field 2 (submit time) '-1' is negative; expected seconds from the start "
            "of the log, 0 or more");
  EXPECT_EQ(ErrorOf(SwfLine("1", "0", "-2", "8", "8"), "t.swf"),
            "t.swf:1: field 4 (run time) '-2' is negative; expected seconds, or -1 when unknown");
}

TEST(TraceSwf, ProcessorCountsMustBeWholeNumbers) {
  EXPECT_EQ(ErrorOf(SwfLine("1", "0", "5", "2.5", "8"), "t.swf"),
            "t.swf:1: field 5 (allocated processors) '2.5' is not a processor count; expected a "
            "whole number from 1 to 1000000, or -1 when unknown");
  EXPECT_EQ(ErrorOf(SwfLine("1", "0", "5", "8", "-3"), "t.swf"),
            "t.swf:1: field 8 (requested processors) '-3' is not a processor count; expected a "
            "whole number from 1 to 1000000, or -1 when unknown");
}

TEST(TraceSwf, OnlyCommentsOrOnlyUnknownJobsIsAnError) {
  EXPECT_EQ(ErrorOf("; just a header\n", "t.swf"),
            "t.swf: no jobs; expected lines of 18 whitespace-separated fields (Standard Workload "
            "Format)");
  EXPECT_EQ(ErrorOf("\n" + SwfLine("1", "0", "-1", "8", "8") + SwfLine("2", "0", "-1", "8", "8"),
                    "t.swf"),
            "t.swf: no job with a known run time and processor count (2 without, from line 2); "
            "expected run time (field 4) and requested or allocated processors (field 8 or 5)");
}

TEST(TraceFile, AMissingFileNamesThePathAndTheCause) {
  Trace t;
  std::string err;
  EXPECT_FALSE(ReadTraceFile("/nonexistent/trace.csv", TraceFormat::kAuto, &t, &err));
  EXPECT_NE(err.find("/nonexistent/trace.csv"), std::string::npos) << err;
}

TEST(TraceFormatName, ParsesTheThreeNamesOnly) {
  TraceFormat f = TraceFormat::kCsv;
  EXPECT_TRUE(ParseTraceFormat("swf", &f));
  EXPECT_EQ(f, TraceFormat::kSwf);
  EXPECT_TRUE(ParseTraceFormat("auto", &f));
  EXPECT_EQ(f, TraceFormat::kAuto);
  EXPECT_FALSE(ParseTraceFormat("CSV", &f));
  EXPECT_EQ(f, TraceFormat::kAuto);
}

TEST(NodeShape, MapsGpusOntoEightGpuNodes) {
  EXPECT_EQ(ShapeOf(1, 8).nodes, 1u);
  EXPECT_EQ(ShapeOf(1, 8).gpus_per_node, 1u);
  EXPECT_EQ(ShapeOf(4, 8).gpus_per_node, 4u);
  EXPECT_EQ(ShapeOf(8, 8).nodes, 1u);
  EXPECT_EQ(ShapeOf(16, 8).nodes, 2u);
  EXPECT_EQ(ShapeOf(16, 8).gpus_per_node, 8u);
  EXPECT_EQ(ShapeOf(12, 8).nodes, 2u);
  EXPECT_EQ(ShapeOf(12, 8).gpus_per_node, 6u);
  EXPECT_EQ(ShapeOf(64, 8).nodes, 8u);
}

Trace Three() {
  return Parse(std::string(kHeader) + "a,1000,4000,8\nb,1500,100,16\nc,3000,999999,64\n");
}

TEST(Stream, CompressesGapsAndRunTimesFromTheSlicesFirstJob) {
  StreamOptions o;
  o.skip = 1;
  o.compress = 100;
  std::vector<StreamJob> s;
  std::string err;
  ASSERT_TRUE(BuildStream(Three(), o, &s, &err)) << err;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].seq, 1);
  EXPECT_EQ(s[0].trace_id, "b");
  EXPECT_EQ(s[0].submit_at, 0);
  EXPECT_EQ(s[0].duration, 1u);  // 100 / 100
  EXPECT_EQ(s[0].nodes, 2u);
  EXPECT_EQ(s[0].gpus_per_node, 8u);
  EXPECT_EQ(s[0].time_limit_min, 2u);
  EXPECT_EQ(s[1].seq, 2);
  EXPECT_EQ(s[1].submit_at, 15);  // (3000 - 1500) / 100
  EXPECT_EQ(s[1].duration, 10000u);
  EXPECT_EQ(s[1].time_limit_min, 168u);
}

TEST(Stream, CapsRunTimesTakesNJobsAndRunsEveryJobAtLeastASecond) {
  StreamOptions o;
  o.jobs = 2;
  o.compress = 10000;
  o.max_duration = 120;
  std::vector<StreamJob> s;
  std::string err;
  ASSERT_TRUE(BuildStream(Three(), o, &s, &err)) << err;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].duration, 1u);  // 0.4 s
  EXPECT_EQ(s[1].duration, 1u);
  EXPECT_EQ(s[1].submit_at, 0.05);
  o.jobs = 0;
  ASSERT_TRUE(BuildStream(Three(), o, &s, &err)) << err;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2].duration, 100u);  // 99.9999 s
  o.compress = 1000;
  ASSERT_TRUE(BuildStream(Three(), o, &s, &err)) << err;
  EXPECT_EQ(s[2].duration, 120u);  // capped
}

// Found by fuzz_trace: an SWF submit time written "-0" reads as -0.0, and the stream wrote
// that job's offset from a first job at 0 (-0.0 - 0.0) as "-0.000", which the stream reader
// then refused.
TEST(Stream, ASubmitTimeOfMinusZeroIsWrittenAsZeroAndReadsBack) {
  Trace t = Parse(SwfLine("1", "0", "5", "8", "8") + SwfLine("2", "-0", "5", "8", "8"),
                  "t.swf");
  StreamOptions o;
  o.compress = 10;
  std::vector<StreamJob> s;
  std::string err;
  ASSERT_TRUE(BuildStream(t, o, &s, &err)) << err;
  const std::string written = FormatStream(s, "t.swf");
  EXPECT_EQ(written.find("-0.000"), std::string::npos) << written;
  std::vector<StreamJob> again;
  EXPECT_TRUE(ParseStream(written, "written", &again, &err)) << err << "\n" << written;
  EXPECT_EQ(again.size(), 2u);
}

// Found by fuzz_trace: a CSV submit time of 40 digits was read, and its stream line then did
// not fit the stream reader's 40 characters. Times beyond kMaxTraceSeconds are refused.
TEST(Trace, TimesBeyondTheLimitAreRefusedInEveryFormat) {
  const std::string big = "4000000000000000000000000000000000000000";
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "a," + big + ",10,8\n"),
            "t.csv:2: submission_time '" + big + "' is too large; expected at most 1e+12 seconds");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "a,10,1000000000001,8\n"),
            "t.csv:2: duration '1000000000001' is too large; expected at most 1e+12 seconds");
  EXPECT_EQ(ErrorOf(SwfLine("1", big, "5", "8", "8"), "t.swf"),
            "t.swf:1: field 2 (submit time) '" + big +
                "' is too large; expected at most 1e+12 seconds");
  std::vector<StreamJob> s;
  std::string err;
  EXPECT_FALSE(ParseStream("1 2000000000000.000 10 1 8 8 2 a\n", "s", &s, &err));
  EXPECT_EQ(err, "s:1: submit_at '2000000000000.000'; expected seconds, not before the previous "
                 "job's 0 and at most 1e+12");
  Trace t = Parse(std::string(kHeader) + "a,0,10,8\nb,1000000000000,10,8\n");
  StreamOptions o;
  o.compress = 1;
  ASSERT_TRUE(BuildStream(t, o, &s, &err)) << err;
  std::vector<StreamJob> again;
  EXPECT_TRUE(ParseStream(FormatStream(s, "t.csv"), "written", &again, &err)) << err;
}

TEST(Stream, LoadShrinksSubmissionGapsButNotRunTimes) {
  StreamOptions o;
  o.compress = 100;
  o.load = 2;
  std::vector<StreamJob> s;
  std::string err;
  ASSERT_TRUE(BuildStream(Three(), o, &s, &err)) << err;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].submit_at, 2.5);  // (1500 - 1000) / 100 / 2
  EXPECT_EQ(s[2].submit_at, 10);
  EXPECT_EQ(s[0].duration, 40u);  // 4000 / 100
}

TEST(Stream, RefusesBadOptionsWithWhatIsAllowed) {
  std::vector<StreamJob> s;
  std::string err;
  StreamOptions o;
  o.compress = 0;
  EXPECT_FALSE(BuildStream(Three(), o, &s, &err));
  EXPECT_EQ(err,
            "compression factor 0 is not allowed; expected a number above 0 (trace seconds "
            "per benchmark second)");
  o = StreamOptions();
  o.load = -2;
  EXPECT_FALSE(BuildStream(Three(), o, &s, &err));
  EXPECT_EQ(err,
            "load factor -2 is not allowed; expected a number above 0 (1 = the trace's "
            "arrival rate)");
  o = StreamOptions();
  o.max_duration = -1;
  EXPECT_FALSE(BuildStream(Three(), o, &s, &err));
  EXPECT_EQ(err, "duration cap -1 is not allowed; expected seconds, 0 or more (0 = no cap)");
  o = StreamOptions();
  o.skip = 3;
  EXPECT_FALSE(BuildStream(Three(), o, &s, &err));
  EXPECT_EQ(err, "skipping 3 jobs leaves none: t.csv has 3 jobs");
  o = StreamOptions();
  o.node_gpus = 0;
  EXPECT_FALSE(BuildStream(Three(), o, &s, &err));
  EXPECT_EQ(err, "GPUs per node is 0; expected 1 or more");
}

TEST(Stream, AJobLargerThanTheLayoutNamesItsTraceLine) {
  StreamOptions o;
  o.max_nodes = 4;
  std::vector<StreamJob> s;
  std::string err;
  EXPECT_FALSE(BuildStream(Three(), o, &s, &err));
  EXPECT_EQ(err,
            "t.csv:4: job c needs 8 nodes (64 GPUs), more than the 4 of the layout; "
            "expected at most 32 GPUs per job (choose another slice)");
  EXPECT_TRUE(s.empty());
}

TEST(StreamText, RoundTripsThroughFormatAndParse) {
  StreamOptions o;
  o.compress = 7;
  std::vector<StreamJob> s, back;
  std::string err;
  ASSERT_TRUE(BuildStream(Three(), o, &s, &err)) << err;
  const std::string text = FormatStream(s, "first line\nsecond line");
  EXPECT_EQ(text.substr(0, 29), "# first line\n# second line\n# ");
  EXPECT_NE(text.find("\n2 71.429 14 2 8 16 2 b\n"), std::string::npos) << text;
  ASSERT_TRUE(ParseStream(text, "s.txt", &back, &err)) << err;
  ASSERT_EQ(back.size(), s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(back[i].seq, s[i].seq);
    EXPECT_EQ(back[i].submit_at, s[i].submit_at);
    EXPECT_EQ(back[i].duration, s[i].duration);
    EXPECT_EQ(back[i].nodes, s[i].nodes);
    EXPECT_EQ(back[i].gpus_per_node, s[i].gpus_per_node);
    EXPECT_EQ(back[i].gpus, s[i].gpus);
    EXPECT_EQ(back[i].time_limit_min, s[i].time_limit_min);
    EXPECT_EQ(back[i].trace_id, s[i].trace_id);
  }
}

TEST(StreamText, WhitespaceInATraceIdBecomesUnderscores) {
  StreamJob j;
  j.seq = 1;
  j.trace_id = "a b\tc";
  j.duration = j.nodes = j.gpus_per_node = j.gpus = j.time_limit_min = 1;
  EXPECT_NE(FormatStream({j}, "").find(" a_b_c\n"), std::string::npos);
}

TEST(StreamText, MalformedLinesAreErrorsWithTheExpectedForm) {
  std::vector<StreamJob> s;
  std::string err;
  EXPECT_FALSE(ParseStream("1 0.000 5 1 8 8 2\n", "s.txt", &s, &err));
  EXPECT_EQ(err,
            "s.txt:1: expected 8 fields (<seq> <submit_at> <duration> <nodes> "
            "<gpus_per_node> <gpus> <time_limit_min> <trace_id>), got 7");
  EXPECT_FALSE(ParseStream("# c\n2 0.000 5 1 8 8 2 x\n", "s.txt", &s, &err));
  EXPECT_EQ(err, "s.txt:2: sequence number '2'; expected 1");
  EXPECT_FALSE(ParseStream("1 5 5 1 8 8 2 x\n2 4.9 5 1 8 8 2 y\n", "s.txt", &s, &err));
  EXPECT_EQ(err,
            "s.txt:2: submit_at '4.9'; expected seconds, not before the previous job's 5 and at "
            "most 1e+12");
  EXPECT_FALSE(ParseStream("1 0 0 1 8 8 2 x\n", "s.txt", &s, &err));
  EXPECT_EQ(err, "s.txt:1: duration '0'; expected a whole number, 1 or more");
  EXPECT_FALSE(ParseStream("# nothing\n", "s.txt", &s, &err));
  EXPECT_EQ(err,
            "s.txt: no jobs; expected one line per job (<seq> <submit_at> <duration> "
            "<nodes> <gpus_per_node> <gpus> <time_limit_min> <trace_id>)");
}

TEST(RealTrace, MicrosoftItpCluster04ReadsWholeAndMapsOntoEightGpuNodes) {
  RAILGUARD_NEEDS_SHARED("traces/microsoft-itp/cluster04.csv");
  const std::string path =
      std::string(RAILGUARD_SHARED_DATA) + "/traces/microsoft-itp/cluster04.csv";
  Trace t;
  std::string err;
  ASSERT_TRUE(ReadTraceFile(path, TraceFormat::kAuto, &t, &err)) << err;
  EXPECT_EQ(t.format, TraceFormat::kCsv);
  // 15,803 lines: the header and 15,802 jobs (the data README rounds to 15,801).
  ASSERT_EQ(t.jobs.size(), 15802u);
  EXPECT_EQ(t.jobs.front().id, "c9c620ea-4336-c1a9-8abe-e26bd13076b8");
  EXPECT_EQ(t.jobs.front().submit, 5810);
  uint32_t most = 0;
  for (const TraceJob& j : t.jobs) most = std::max(most, j.gpus);
  EXPECT_EQ(most, 64u);
  StreamOptions o;
  o.skip = 15300;
  o.jobs = 300;
  o.compress = 2000;
  o.max_duration = 120;
  o.max_nodes = 127;
  std::vector<StreamJob> s;
  ASSERT_TRUE(BuildStream(t, o, &s, &err)) << err;
  EXPECT_EQ(s.size(), 300u);
  int multi = 0;
  for (const StreamJob& j : s) multi += j.nodes > 1;
  EXPECT_EQ(multi, 41);
}

}  // namespace bench_trace_test
}  // namespace railguard::bench
