// Reading a whole text file with diagnostics in the library's style.
#pragma once

#include <cstddef>
#include <string>

#include "base/diag.h"

namespace railguard {

// Reads `path` into `*out`. A file that cannot be opened or read, or that is larger than
// `max_bytes`, is one diagnostic naming the path and the cause; returns false then.
bool ReadTextFile(const std::string& path, std::string* out, Diags* diags,
                  size_t max_bytes = 256u << 20);

}  // namespace railguard
