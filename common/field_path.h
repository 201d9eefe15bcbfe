// Dotted field paths ("a.b.0.c"): splitting into components. Shared by projection and update
// (the matcher walks paths in place, without splitting).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cairn {

// "a.b.c" → {"a", "b", "c"}; empty components are kept ("a..b" → {"a", "", "b"}) so callers can
// refuse them with their own MongoDB error.
inline std::vector<std::string> SplitDottedPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    if (dot == std::string_view::npos) {
      parts.emplace_back(path.substr(start));
      return parts;
    }
    parts.emplace_back(path.substr(start, dot - start));
    start = dot + 1;
  }
}

}  // namespace cairn
