// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/held_jobs.h"

#include "plugin/core/placement.h"

namespace railguard::plugin {

namespace {

constexpr char kHoldHead[] = "railguard: held until ";
constexpr char kHoldTail[] = " nodes are healthy (feature ";
constexpr char kWaitHead[] = "railguard: waits for ";

// The count between `head` and `tail` at the start of `text`, 0 when the form differs.
uint32_t ReadCount(const std::string& text, const std::string& head, const std::string& tail) {
  if (text.compare(0, head.size(), head) != 0) return 0;
  const size_t end = text.find(tail, head.size());
  if (end == std::string::npos || end == head.size()) return 0;
  uint64_t n = 0;
  for (size_t i = head.size(); i < end; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
    if (n > UINT32_MAX) return 0;
  }
  return static_cast<uint32_t>(n);
}

// Whether the constraint expression `expr` names `feature` as a term of its own (between
// Slurm's operators & | , [ ] ( ) and a *count): railguard put it there at submission.
bool NamesFeature(const std::string& expr, const std::string& feature) {
  const std::string ops = "&|,[]()*";
  size_t at = 0;
  while ((at = expr.find(feature, at)) != std::string::npos) {
    const size_t end = at + feature.size();
    const bool starts = at == 0 || ops.find(expr[at - 1]) != std::string::npos;
    const bool ends = end == expr.size() || ops.find(expr[end]) != std::string::npos;
    if (starts && ends) return true;
    at = end;
  }
  return false;
}

}  // namespace

std::string HoldMark(uint32_t nodes, const std::string& feature) {
  return kHoldHead + std::to_string(nodes) + kHoldTail + feature + ")";
}

std::string WaitReason(uint32_t nodes, uint32_t healthy, const std::string& feature) {
  return kWaitHead + std::to_string(nodes) + " healthy nodes (feature " + feature + "), " +
         std::to_string(healthy) + " now";
}

std::string WithHoldMark(const std::string& admin_comment, const std::string& mark) {
  return admin_comment.empty() ? mark : admin_comment + "; " + mark;
}

std::string WithoutHoldMark(const std::string& admin_comment) {
  const size_t at = admin_comment.find(kHoldHead);
  if (at == std::string::npos) return admin_comment;
  size_t end = admin_comment.find(')', at);
  end = end == std::string::npos ? admin_comment.size() : end + 1;
  size_t begin = at;
  if (begin >= 2 && admin_comment.compare(begin - 2, 2, "; ") == 0) begin -= 2;
  return admin_comment.substr(0, begin) + admin_comment.substr(end);
}

uint32_t ReadHoldMark(const std::string& admin_comment) {
  const size_t at = admin_comment.find(kHoldHead);
  return at == std::string::npos ? 0 : ReadCount(admin_comment.substr(at), kHoldHead, kHoldTail);
}

ParkedStep JudgeParkedJob(const ParkedJob& job, const std::string& feature, bool restore) {
  ParkedStep step;
  if (!job.held && !job.bad_constraints) return step;
  uint32_t needs = ReadHoldMark(job.admin_comment);
  if (needs > 0) {
    if (job.healthy >= needs) {
      step.kind = ParkedStep::kRelease;
      // Held while no node had the feature: it gets the constraint it was accepted without.
      if (!NamesFeature(job.features, feature)) {
        const Constraint c = RequireFeature(job.features, feature);
        if (c.kind == Constraint::kAdded) step.features = c.features;
      }
      return step;
    }
    step.reason = WaitReason(needs, job.healthy, feature);
    if (step.reason != job.state_desc) step.kind = ParkedStep::kNote;
    return step;
  }
  if (!job.bad_constraints || job.min_nodes <= 1) return step;
  if (!NamesFeature(job.features, feature)) return step;
  if (job.healthy >= job.min_nodes) {
    if (restore) step.kind = ParkedStep::kRelease;
    return step;
  }
  step.kind = ParkedStep::kMark;
  step.reason = WaitReason(job.min_nodes, job.healthy, feature);
  step.mark = WithHoldMark(job.admin_comment, HoldMark(job.min_nodes, feature));
  return step;
}

}  // namespace railguard::plugin
