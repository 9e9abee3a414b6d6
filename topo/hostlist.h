// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm hostlist expressions ("n[001-032,040],gpu[1-2]x[3-4]"): expansion and compression
// that give exactly what the installed Slurm 22.05 gives (`scontrol show hostnames`,
// `scontrol show hostlist`, `scontrol show hostlistsorted`) for valid input.
//
// Where Slurm itself misbehaves we are deliberately different, and only there:
//  - Expansion rejects input that Slurm silently mangles: unbalanced or nested brackets
//    ("n[1-" gives "n]" in Slurm), ranges that are not plain digits ("n[+1]", "n[1-]",
//    "n[ 2]"), numbers above 18446744073709551614, control characters, and errors in a
//    bracket group before the last two (Slurm drops those hosts: "a[x]b[1]c[2],z" gives z).
//  - Compression takes every name literally. A trailing digit run above 18446744073709551614
//    stays part of the name (Slurm would print a different number). Two prefixes are the
//    same only if their bytes are equal (Slurm's natural compare also equates "a b" and "ab").
//  - The sorted form orders numbers numerically even when they differ by 2^31 or more
//    (Slurm's comparison overflows there, and "n0,n3000000000" comes out as
//    "n[3000000000]") and keeps every host where Slurm's duplicate splitting reads freed memory
//    (duplicates plus mixed zero-padding under one prefix, e.g. "n[05-200],n[06-150],n[001-005]",
//    which Slurm prints without n[151-200] and n[001-005]).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace railguard {

// Expands `expr` into host names in the order Slurm lists them (duplicates kept).
// Items are separated by ',', ' ' or '\t' (runs of them count as one; an empty expression
// gives no hosts). Several bracket groups in one item multiply out ("a[1-2]b[3-4]" ->
// a1b3 a1b4 a2b3 a2b4); as in Slurm, the last group varies fastest, then the first, second,
// ... ("a[1-2]b[3-4]c[5-6]" -> a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 ...). A range's numbers
// are zero-padded to the width of its low end ("n[08-10]" -> n08 n09 n10, "n[8-010]" ->
// n8 n9 n10). Limits are Slurm's: at most 65536 hosts per range, 65536 hosts in a group that
// is followed by another group, 262144 ranges per group; plus `max_hosts` in total.
// Returns false on malformed input with `*err` saying what is wrong and what was expected,
// e.g. "unbalanced '[' in 'n[1-'; expected name[ranges] such as n[001-032,040]";
// `*out` is then unspecified. REQUIRES: out and err are not null.
bool ExpandHostlist(std::string_view expr, std::vector<std::string>* out, std::string* err,
                    size_t max_hosts = 1u << 20);

// Compresses `hosts` keeping their order, as `scontrol show hostlist` does: consecutive
// names that continue a numeric run with compatible zero-padding join one range, and
// neighbouring ranges with the same prefix share brackets ("n3,n1,n2,m" -> "n[3,1-2],m").
// Duplicates are kept ("n1,n1" -> "n[1,1]"). Names should not contain ',', '[', ']' or
// whitespace, or the result will not expand back to them. Linear in the number of hosts.
// Note that `scontrol show hostlist` given an expression rather than names can differ when
// an earlier bracket group leaves digits at the end of a prefix: it prints "r[1-2][5-6]" as
// "r1[5-6],r2[5-6]", while the names r15 r16 r25 r26 compress to "r[15-16,25-26]".
std::string CompressHostlist(const std::vector<std::string>& hosts);

// Sorts, then compresses, as `scontrol show hostlistsorted` does. Duplicates are kept and
// split the way Slurm splits them ("n[1-3],n[2-4]" -> "n[1-2,2-3,3-4]"). Like Slurm, it
// first joins runs that are consecutive in `hosts`, so "n9,n10,n05" gives "n[9-10,05]" but
// "n9,n05,n10" gives "n[9,05,10]". O(n log n) for distinct hosts; each duplicated host
// costs extra time proportional to the ranges it overlaps.
std::string CompressHostlistSorted(const std::vector<std::string>& hosts);

// Compares host names the way Slurm's sorted hostlist orders them: prefixes (the name
// without its trailing digits) in natural order, a name without digits before numbered
// names with the same prefix, then by zero-padding class and number
// ("n1 < n9 < n01 < n10 < n001 < n002"). A strict weak ordering, usable with std::sort;
// equivalent names are equal. For distinct names where each prefix keeps one padding style
// (no leading zeros, or all suffixes the same width), CompressHostlistSorted(names) equals
// CompressHostlist of the names sorted with HostLess.
bool HostLess(const std::string& a, const std::string& b);

}  // namespace railguard
