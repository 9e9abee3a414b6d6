// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/step_times.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/lines.h"
#include "base/numbers.h"

namespace railguard::report {
namespace {

// "STEP SECONDS" in `line`: true with both, or false with what is wrong and its column.
bool StepLine(std::string_view line, uint64_t* step, double* seconds, std::string* why,
              int* column) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> w;
  for (std::string x; in >> x && w.size() < 3;) w.push_back(x);
  *column = static_cast<int>(line.find_first_not_of(" \t")) + 1;
  if (w.size() != 2) {
    *why = std::to_string(w.size()) + (w.size() == 3 ? " or more" : "") + " words";
    return false;
  }
  if (!ParseDigits(w[0], uint64_t{0}, uint64_t{1} << 53, step, 16)) {
    *why = "step '" + w[0].substr(0, 32) + "' is not a whole number";
    return false;
  }
  double s = 0;
  if (!ParseStrtod(w[1], &s) || !(s > 0) || !std::isfinite(s) || s > 1e7) {
    *why = "time '" + w[1].substr(0, 32) + "' is not a number of seconds > 0";
    *column = static_cast<int>(line.find(w[1], line.find(w[0]) + w[0].size())) + 1;
    return false;
  }
  *seconds = s;
  return true;
}

// Calls `visit(line_no, line)` for each line that is neither blank nor a comment, until it
// returns false.
template <typename F>
void EachStepLine(std::string_view text, F visit) {
  ForEachLine(text, [&](int line_no, std::string_view line) {
    const size_t first = line.find_first_not_of(" \t");
    return first == std::string_view::npos || line[first] == '#' || visit(line_no, line);
  });
}

}  // namespace

double StepTimes::Median() const { return Percentile(0.5); }

double StepTimes::Percentile(double p) const {
  if (seconds.empty()) return -1;
  std::vector<double> v = seconds;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size()));
  return v[static_cast<size_t>(std::max(1.0, rank)) - 1];
}

size_t StepTimes::Slowest() const {
  return static_cast<size_t>(std::max_element(seconds.begin(), seconds.end()) - seconds.begin());
}

bool LooksLikeStepTimes(std::string_view text) {
  bool yes = false;
  EachStepLine(text, [&](int, std::string_view line) {
    uint64_t step = 0;
    double s = 0;
    std::string why;
    int column = 0;
    yes = StepLine(line, &step, &s, &why, &column);
    return false;
  });
  return yes;
}

bool ParseStepTimes(std::string_view text, const std::string& file, StepTimes* out,
                    Diags* errors) {
  *out = StepTimes();
  out->file = file;
  const size_t before = errors->size();
  EachStepLine(text, [&](int line_no, std::string_view line) {
    uint64_t step = 0;
    double s = 0;
    std::string why;
    int column = 0;
    if (StepLine(line, &step, &s, &why, &column)) {
      out->steps.push_back(step);
      out->seconds.push_back(s);
    } else if (errors->size() - before < 20) {
      errors->push_back({file, line_no, column,
                         why + "; expected \"STEP SECONDS\" such as \"120 1.284\" (a whole "
                               "step number, its wall time in seconds)"});
    }
    return true;
  });
  if (out->steps.empty() && errors->size() == before)
    errors->push_back({file, 0, 0, "no step; expected one \"STEP SECONDS\" line per step"});
  return errors->size() == before;
}

}  // namespace railguard::report
