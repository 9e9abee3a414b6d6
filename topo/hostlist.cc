// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm hostlist expressions: expansion, compression and Slurm's sorted order.
//
// Terms follow Slurm's hostlist.c: a host name splits into a prefix and an optional numeric
// suffix (its trailing digits); a "range" is a prefix with suffixes lo..hi printed with
// zero-padding to `width`. Two widths are compatible when printing either range's first
// number with the other width changes nothing (n9 and n10 are, n9 and n09 are not).
#include "topo/hostlist.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "base/names.h"
#include "base/numbers.h"

namespace railguard {
namespace {

// Slurm's limits (hostlist.c MAX_RANGE, hostlist.h MAX_PREFIX_CNT, hostlist.c MAX_RANGES).
constexpr uint64_t kMaxHostsPerRange = 64 * 1024;
constexpr uint64_t kMaxHostsPerInnerGroup = 64 * 1024;
constexpr size_t kMaxRangesPerGroup = 256 * 1024;
// Largest number we accept; one below the largest unsigned long, which Slurm treats as
// "empty range" and clamps overflowing numbers to.
constexpr uint64_t kMaxNumber = UINT64_MAX - 1;

constexpr char kNameForm[] = "expected name[ranges] such as n[001-032,040]";
constexpr char kRangeForm[] = "expected a number or lo-hi such as 7 or 001-032";

// ASCII digits only, as Slurm's isdigit() in the "C" locale.
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Item separators of Slurm's hostlist_create().
bool IsSeparator(char c) { return c == ',' || c == ' ' || c == '\t'; }

// Bytes that cannot be part of a host name; tab is a separator, not one of these.
bool IsControl(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}

// `s` in single quotes, shortened to keep error messages readable.
std::string Quote(std::string_view s) {
  constexpr size_t kMax = 64;
  if (s.size() <= kMax) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, kMax - 3)) + "...'";
}

// Number of decimal digits of `v` (1 for 0), as Slurm counts them for zero-padding.
int Digits(uint64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

// Appends `v` zero-padded to `width` digits.
void AppendPadded(uint64_t v, int width, std::string* out) {
  char buf[24];
  int n = std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(v));
  if (width > n) out->append(static_cast<size_t>(width - n), '0');
  out->append(buf, static_cast<size_t>(n));
}

// End of the item starting at `start`: the first separator outside brackets, counting
// nested brackets so that error messages quote the whole offending item.
size_t ItemEnd(std::string_view expr, size_t start) {
  int depth = 0;
  size_t pos = start;
  for (; pos < expr.size(); ++pos) {
    if (expr[pos] == '[') ++depth;
    if (expr[pos] == ']' && depth > 0) --depth;
    if (depth == 0 && IsSeparator(expr[pos])) break;
  }
  return pos;
}

// ---- expansion ----------------------------------------------------------------------------

// One "lo" or "lo-hi" between brackets.
struct NumRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  int width = 0;  // digits in the text of `lo`, leading zeros included
};

// One bracket group: the ranges between '[' and ']'.
struct Group {
  std::string_view text;  // with the brackets
  std::vector<NumRange> ranges;
  uint64_t hosts = 0;  // sum of the ranges' sizes
};

// One item of an expression: literals[0] groups[0] literals[1] ... groups[k-1] literals[k].
struct Item {
  std::vector<std::string_view> literals;
  std::vector<Group> groups;
};

// Parses "lo" or "lo-hi" (plain digits) at `text` inside `item`.
bool ParseRange(std::string_view text, std::string_view item, NumRange* range, std::string* err) {
  if (text.empty()) {
    *err = "empty range in " + Quote(item) + "; " + kRangeForm;
    return false;
  }
  size_t dash = text.find('-');
  std::string_view lo = text.substr(0, dash);
  std::string_view hi = dash == std::string_view::npos ? lo : text.substr(dash + 1);
  auto all_digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
  };
  if (!all_digits(lo) || !all_digits(hi)) {
    *err = "bad range " + Quote(text) + " in " + Quote(item) + "; " + kRangeForm;
    return false;
  }
  for (auto [number, value] : {std::pair(lo, &range->lo), std::pair(hi, &range->hi)}) {
    if (!ParseDigits(number, 0, kMaxNumber, value)) {
      *err = "number " + Quote(number) + " in " + Quote(item) + " is too large; expected at most " +
             std::to_string(kMaxNumber);
      return false;
    }
  }
  range->width = static_cast<int>(lo.size());
  if (range->lo > range->hi) {
    *err = "descending range " + Quote(text) + " in " + Quote(item) + "; expected lo <= hi";
    return false;
  }
  uint64_t hosts = range->hi - range->lo + 1;
  if (hosts > kMaxHostsPerRange) {
    *err = "range " + Quote(text) + " in " + Quote(item) + " has " + std::to_string(hosts) +
           " hosts; expected at most " + std::to_string(kMaxHostsPerRange) + " per range";
    return false;
  }
  return true;
}

// Parses the comma-separated ranges of `group->text` (brackets included).
bool ParseGroup(std::string_view item, bool inner, Group* group, std::string* err) {
  std::string_view body = group->text.substr(1, group->text.size() - 2);
  size_t start = 0;
  while (true) {
    size_t comma = body.find(',', start);
    std::string_view text = body.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (group->ranges.size() == kMaxRangesPerGroup) {
      *err = "bracket group in " + Quote(item) + " has more than " +
             std::to_string(kMaxRangesPerGroup) + " ranges; expected at most " +
             std::to_string(kMaxRangesPerGroup);
      return false;
    }
    NumRange range;
    if (!ParseRange(text, item, &range, err)) return false;
    group->ranges.push_back(range);
    group->hosts += range.hi - range.lo + 1;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (inner && group->hosts > kMaxHostsPerInnerGroup) {
    *err = "bracket group " + Quote(group->text) + " in " + Quote(item) + " has " +
           std::to_string(group->hosts) + " hosts; expected at most " +
           std::to_string(kMaxHostsPerInnerGroup) + " in a group followed by another group";
    return false;
  }
  return true;
}

// Splits one item (brackets known to be balanced and not nested) into literals and groups.
bool ParseItem(std::string_view item, Item* parsed, std::string* err) {
  size_t literal_start = 0;
  for (size_t open = item.find('['); open != std::string_view::npos;
       open = item.find('[', literal_start)) {
    size_t close = item.find(']', open);
    parsed->literals.push_back(item.substr(literal_start, open - literal_start));
    Group group;
    group.text = item.substr(open, close - open + 1);
    parsed->groups.push_back(group);
    literal_start = close + 1;
  }
  parsed->literals.push_back(item.substr(literal_start));
  if (parsed->groups.empty()) {
    // A plain name; Slurm re-prints its numeric suffix, so that must be representable.
    size_t digits_start = item.size();
    while (digits_start > 0 && IsDigit(item[digits_start - 1])) --digits_start;
    uint64_t ignored;
    if (digits_start < item.size() && !ParseDigits(item.substr(digits_start), 0, kMaxNumber, &ignored)) {
      *err = "number " + Quote(item.substr(digits_start)) + " in " + Quote(item) +
             " is too large; expected at most " + std::to_string(kMaxNumber);
      return false;
    }
    return true;
  }
  if (!parsed->literals.back().empty()) {
    *err = "text " + Quote(parsed->literals.back()) + " after the last ']' in " + Quote(item) +
           "; expected the name to end with a bracket group, such as n[1-2] or n[1-2]x[3-4]";
    return false;
  }
  for (size_t g = 0; g < parsed->groups.size(); ++g) {
    bool inner = g + 1 < parsed->groups.size();
    if (!ParseGroup(item, inner, &parsed->groups[g], err)) return false;
  }
  return true;
}

// Appends the names of `item` to `out`, choosing one number per group in Slurm's nesting
// order: the second-to-last group outermost, down to the first, and the last group
// innermost. Iterative, so a name with thousands of groups cannot exhaust the stack.
void ExpandItem(const Item& item, std::vector<std::string>* out) {
  const size_t k = item.groups.size();
  std::vector<size_t> order;  // group indices, outermost first
  for (size_t g = k - 1; g-- > 0;) order.push_back(g);
  order.push_back(k - 1);

  struct Cursor {
    size_t range = 0;
    uint64_t value = 0;
    std::string text;  // `value` zero-padded to its range's width
  };
  std::vector<Cursor> cursors(k);
  auto format = [&](size_t g) {
    Cursor& c = cursors[g];
    c.text.clear();
    AppendPadded(c.value, item.groups[g].ranges[c.range].width, &c.text);
  };
  for (size_t g = 0; g < k; ++g) {
    cursors[g].value = item.groups[g].ranges[0].lo;
    format(g);
  }
  while (true) {
    std::string name(item.literals[0]);
    for (size_t g = 0; g < k; ++g) {
      name += cursors[g].text;
      name += item.literals[g + 1];
    }
    out->push_back(std::move(name));

    size_t level = k;
    for (; level > 0; --level) {
      size_t g = order[level - 1];
      Cursor& c = cursors[g];
      const std::vector<NumRange>& ranges = item.groups[g].ranges;
      if (c.value < ranges[c.range].hi) {
        ++c.value;
      } else if (c.range + 1 < ranges.size()) {
        c.value = ranges[++c.range].lo;
      } else {
        c.range = 0;
        c.value = ranges[0].lo;
        format(g);
        continue;
      }
      format(g);
      break;
    }
    if (level == 0) return;
  }
}

// ---- compression --------------------------------------------------------------------------

// Slurm's hostrange: a prefix and a run of numeric suffixes, or one name without a usable
// numeric suffix (`single`, where `prefix` is the whole name). Views point into the caller's
// host names.
struct HostRange {
  std::string_view prefix;
  bool single = false;
  uint64_t lo = 0;
  uint64_t hi = 0;
  int width = 0;

  // True if the first number prints with leading zeros ("n01", not "n1" or "n10").
  bool padded() const { return width > Digits(lo); }
};

// Splits `name` into prefix and numeric suffix as Slurm's hostname_create() does; a suffix
// above kMaxNumber stays part of the name.
HostRange ParseHost(std::string_view name) {
  size_t digits_start = name.size();
  while (digits_start > 0 && IsDigit(name[digits_start - 1])) --digits_start;
  HostRange r;
  if (digits_start == name.size() || !ParseDigits(name.substr(digits_start), 0, kMaxNumber, &r.lo)) {
    r.prefix = name;
    r.single = true;
    return r;
  }
  r.prefix = name.substr(0, digits_start);
  r.hi = r.lo;
  r.width = static_cast<int>(name.size() - digits_start);
  return r;
}

// Slurm's _width_equiv(): true if either width prints both first numbers the same way.
bool WidthsCompatible(const HostRange& a, const HostRange& b) {
  if (a.width == b.width) return true;
  int da = Digits(a.lo);
  int db = Digits(b.lo);
  return (a.width <= da && b.width <= da) || (a.width <= db && b.width <= db);
}

// True if `a` and `b` may share one bracket list (same prefix, both numbered).
bool SameBracket(const HostRange& a, const HostRange& b) {
  return !a.single && !b.single && a.prefix == b.prefix;
}

// True if `b` continues `a` directly and the two may become one range.
bool Adjacent(const HostRange& a, const HostRange& b) {
  return SameBracket(a, b) && b.lo > 0 && a.hi == b.lo - 1 && WidthsCompatible(a, b);
}

// Slurm's hostrange_cmp() as a strict weak ordering. Within one prefix a numbered range
// sorts by its padding class: unpadded ranges by the digit count of their first number,
// a padded range of width w just before the unpadded ranges with w digits; then by number.
// Ties Slurm leaves to qsort are broken by bytes, last number and width.
bool RangeLess(const HostRange& a, const HostRange& b) {
  if (a.prefix != b.prefix) {
    int c = SlurmNaturalCompare(a.prefix, b.prefix);
    if (c != 0) return c < 0;
    return a.prefix < b.prefix;
  }
  if (a.single != b.single) return a.single;
  if (a.single) return false;
  bool a_padded = a.padded();
  bool b_padded = b.padded();
  int a_class = a_padded ? a.width : Digits(a.lo);
  int b_class = b_padded ? b.width : Digits(b.lo);
  if (a_class != b_class) return a_class < b_class;
  if (a_padded != b_padded) return a_padded;
  if (a.lo != b.lo) return a.lo < b.lo;
  if (a.hi != b.hi) return a.hi < b.hi;
  return a.width < b.width;
}

// Appends `r` to `ranges`, extending the last range when `r` continues it
// (Slurm's hostlist_push_range()).
void PushRange(const HostRange& r, std::vector<HostRange>* ranges) {
  if (!ranges->empty() && Adjacent(ranges->back(), r)) {
    ranges->back().hi = r.hi;
  } else {
    ranges->push_back(r);
  }
}

// The ranges Slurm builds from `hosts` pushed one by one, before any sorting.
std::vector<HostRange> ParseHosts(const std::vector<std::string>& hosts) {
  std::vector<HostRange> ranges;
  ranges.reserve(hosts.size());
  for (const std::string& h : hosts) PushRange(ParseHost(h), &ranges);
  return ranges;
}

// True if sorted neighbours `a` and `b` share hosts and Slurm splits them
// (hostrange_intersect()). `a.lo <= b.lo` is where Slurm's split is well defined.
bool Overlap(const HostRange& a, const HostRange& b) {
  return SameBracket(a, b) && a.hi > b.lo && a.lo <= b.lo && WidthsCompatible(a, b);
}

// Slurm's hostlist_coalesce() on a sorted list. Slurm scans neighbours right to left and,
// for an overlap, replaces a=[lo1,hi1], b=[lo2,hi2] by [lo1,lo2], the shared numbers as
// single hosts (each twice except the ends), and [min(hi1,hi2), max(hi1,hi2)], then starts
// over from the right end. Only the new right part can overlap its right neighbour again,
// so a stack of the settled right part gives the same result without the rescans.
std::vector<HostRange> Coalesce(const std::vector<HostRange>& sorted) {
  std::vector<HostRange> settled;  // settled right part; back() is its leftmost range
  settled.reserve(sorted.size());
  std::vector<HostRange> pending;  // left-to-right pieces to put before `cur`
  for (size_t i = sorted.size(); i-- > 0;) {
    HostRange cur = sorted[i];
    pending.clear();
    while (!settled.empty() && Overlap(cur, settled.back())) {
      HostRange next = settled.back();
      settled.pop_back();
      uint64_t shared_lo = next.lo;
      uint64_t shared_hi = std::min(cur.hi, next.hi);
      HostRange left = cur;
      left.hi = shared_lo;
      pending.push_back(left);
      HostRange one = cur;
      for (uint64_t v = shared_lo;; ++v) {
        one.lo = one.hi = v;
        if (v > shared_lo) pending.push_back(one);
        if (v < shared_hi) pending.push_back(one);
        if (v == shared_hi) break;
      }
      next.hi = std::max(cur.hi, next.hi);
      next.lo = shared_hi;
      cur = next;
    }
    settled.push_back(cur);
    settled.insert(settled.end(), pending.rbegin(), pending.rend());
  }
  std::reverse(settled.begin(), settled.end());
  return settled;
}

// Slurm's hostlist_collapse(): joins neighbours where one continues the other.
std::vector<HostRange> Collapse(const std::vector<HostRange>& ranges) {
  std::vector<HostRange> out;  // built right to left, as Slurm joins
  if (ranges.empty()) return out;
  out.reserve(ranges.size());
  HostRange acc = ranges.back();
  for (size_t i = ranges.size() - 1; i-- > 0;) {
    if (Adjacent(ranges[i], acc)) {
      uint64_t hi = acc.hi;
      acc = ranges[i];
      acc.hi = hi;
    } else {
      out.push_back(acc);
      acc = ranges[i];
    }
  }
  out.push_back(acc);
  std::reverse(out.begin(), out.end());
  return out;
}

// Slurm's hostlist_ranged_string(): neighbouring numbered ranges with the same prefix share
// one bracket list; brackets appear when there is more than one number.
std::string Format(const std::vector<HostRange>& ranges) {
  std::string out;
  for (size_t i = 0; i < ranges.size();) {
    if (i > 0) out += ',';
    const HostRange& first = ranges[i];
    out += first.prefix;
    if (first.single) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < ranges.size() && SameBracket(ranges[end - 1], ranges[end])) ++end;
    bool brackets = end - i > 1 || first.hi > first.lo;
    if (brackets) out += '[';
    for (size_t k = i; k < end; ++k) {
      if (k > i) out += ',';
      AppendPadded(ranges[k].lo, ranges[k].width, &out);
      if (ranges[k].hi > ranges[k].lo) {
        out += '-';
        AppendPadded(ranges[k].hi, ranges[k].width, &out);
      }
    }
    if (brackets) out += ']';
    i = end;
  }
  return out;
}

}  // namespace

bool ExpandHostlist(std::string_view expr, std::vector<std::string>* out, std::string* err,
                    size_t max_hosts) {
  out->clear();
  size_t pos = 0;
  while (pos < expr.size()) {
    if (IsSeparator(expr[pos])) {
      ++pos;
      continue;
    }
    size_t start = pos;
    bool in_brackets = false;
    for (; pos < expr.size(); ++pos) {
      char c = expr[pos];
      if (IsControl(c)) {
        char code[8];
        std::snprintf(code, sizeof(code), "0x%02x", static_cast<unsigned char>(c));
        *err = std::string("control character ") + code + " at offset " + std::to_string(pos) +
               " of the host list; expected printable host names";
        return false;
      }
      if (!in_brackets && IsSeparator(c)) break;
      if (c == '[') {
        if (in_brackets) {
          *err = "nested '[' in " + Quote(expr.substr(start, ItemEnd(expr, start) - start)) + "; " +
                 kNameForm;
          return false;
        }
        in_brackets = true;
      } else if (c == ']') {
        if (!in_brackets) {
          *err = "unbalanced ']' in " + Quote(expr.substr(start, ItemEnd(expr, start) - start)) +
                 "; " + kNameForm;
          return false;
        }
        in_brackets = false;
      }
    }
    std::string_view text = expr.substr(start, pos - start);
    if (in_brackets) {
      *err = "unbalanced '[' in " + Quote(text) + "; " + kNameForm;
      return false;
    }
    Item item;
    if (!ParseItem(text, &item, err)) return false;
    uint64_t hosts = 1;
    for (const Group& g : item.groups) {
      hosts = g.hosts != 0 && hosts > UINT64_MAX / g.hosts ? UINT64_MAX : hosts * g.hosts;
    }
    if (hosts > max_hosts - out->size()) {  // out->size() <= max_hosts holds here
      *err = Quote(expr) + " expands to more than " + std::to_string(max_hosts) +
             " hosts; expected at most " + std::to_string(max_hosts);
      return false;
    }
    if (item.groups.empty()) {
      out->emplace_back(text);
    } else {
      const size_t first = out->size();
      ExpandItem(item, out);
      // As for plain names, every name's numeric suffix must be representable: digits before
      // the brackets join the number ("184467440737095516151[1-2]" ends in ...1511).
      for (size_t i = first; i < out->size(); ++i) {
        const std::string& name = (*out)[i];
        size_t digits_start = name.size();
        while (digits_start > 0 && IsDigit(name[digits_start - 1])) --digits_start;
        uint64_t ignored;
        if (digits_start < name.size() &&
            !ParseDigits(std::string_view(name).substr(digits_start), 0, kMaxNumber, &ignored)) {
          *err = "number " + Quote(std::string_view(name).substr(digits_start)) + " in host " +
                 Quote(name) + " of " + Quote(text) + " is too large; expected at most " +
                 std::to_string(kMaxNumber);
          return false;
        }
      }
    }
  }
  return true;
}

std::string CompressHostlist(const std::vector<std::string>& hosts) {
  return Format(ParseHosts(hosts));
}

std::string CompressHostlistSorted(const std::vector<std::string>& hosts) {
  std::vector<HostRange> ranges = ParseHosts(hosts);
  std::sort(ranges.begin(), ranges.end(), RangeLess);
  return Format(Collapse(Coalesce(ranges)));
}

bool HostLess(const std::string& a, const std::string& b) {
  return RangeLess(ParseHost(a), ParseHost(b));
}

}  // namespace railguard
