// Slurm hostlist expressions ("n[001-032,040],gpu[1-2]x[3-4]"): expansion and compression
// that give exactly what the installed Slurm gives (`scontrol show hostnames`,
// `scontrol show hostlist`, `scontrol show hostlistsorted`) for valid input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railguard {

// Expands `expr` into host names in the order Slurm lists them (duplicates kept).
// Several bracket groups in one name multiply out ("a[1-2]b[3-4]" -> a1b3 a1b4 a2b3 a2b4).
// Returns false on malformed input (unbalanced brackets, bad or descending ranges, empty
// brackets, more than `max_hosts` names) with `*err` saying what is wrong and what was
// expected; `*out` is then unspecified.
bool ExpandHostlist(std::string_view expr, std::vector<std::string>* out, std::string* err,
                    size_t max_hosts = 1u << 20);

// Compresses `hosts` keeping their order, as `scontrol show hostlist` does.
std::string CompressHostlist(const std::vector<std::string>& hosts);

// Sorts, then compresses, as `scontrol show hostlistsorted` does. Duplicates are kept.
std::string CompressHostlistSorted(const std::vector<std::string>& hosts);

// Compares host names the way Slurm's sorted hostlist orders them; usable with std::sort.
bool HostLess(const std::string& a, const std::string& b);

}  // namespace railguard
