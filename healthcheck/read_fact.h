// SPDX-License-Identifier: GPL-2.0-or-later
// Reading one sysfs attribute into a Fact: the gather's one way to read a value and say, on
// failure, which file held what and the form that was expected.
#pragma once

#include <string>
#include <utility>

#include "healthcheck/facts.h"
#include "healthcheck/sysfs.h"

namespace railguard::health {

// Reads the file `path` and parses it with `parse` (bool(text, T*, std::string* expected),
// the parsers of parse.h). The error names the path and says what was found and what was
// expected: "PATH: got 'x'; expected FORM"; an unreadable file keeps the reader's error.
template <typename T, typename Parse>
Fact<T> ReadFact(const Sysfs& fs, const std::string& path, Parse parse) {
  Fact<T> f;
  std::string text;
  std::string err;
  if (!fs.ReadFile(path, &text, &err)) {
    f.error = err;
    return f;
  }
  f.raw = Printable(Trimmed(text));
  T v{};
  std::string expected;
  if (parse(text, &v, &expected)) {
    f.value = std::move(v);
  } else {
    f.error = path + ": got '" + f.raw + "'; expected " + expected;
  }
  return f;
}

}  // namespace railguard::health
