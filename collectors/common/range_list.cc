#include "collectors/common/range_list.h"

#include <charconv>
#include <string>

namespace rnic {

Result<std::vector<std::pair<int, int>>> ParseRangeList(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
    text.remove_suffix(1);
  std::vector<std::pair<int, int>> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view r = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view()
                                           : text.substr(comma + 1);
    auto dash = r.find('-');
    std::string_view lo_text = r.substr(0, dash);
    int lo = 0;
    auto p =
        std::from_chars(lo_text.data(), lo_text.data() + lo_text.size(), lo);
    int hi = lo;
    bool ok = p.ec == std::errc() && p.ptr == lo_text.data() + lo_text.size();
    if (ok && dash != std::string_view::npos) {
      std::string_view hi_text = r.substr(dash + 1);
      p = std::from_chars(hi_text.data(), hi_text.data() + hi_text.size(), hi);
      ok = p.ec == std::errc() && p.ptr == hi_text.data() + hi_text.size();
    }
    if (!ok || r.empty() || lo < 0 || lo > hi) {
      return Error{"bad range '" + std::string(r) + "'"};
    }
    out.emplace_back(lo, hi);
  }
  return out;
}

Result<std::vector<int>> ParseCpuList(std::string_view text) {
  auto ranges = ParseRangeList(text);
  if (!ranges.ok()) return Error{"bad cpu list: " + ranges.error().message};
  std::vector<int> cpus;
  for (const auto& [lo, hi] : *ranges) {
    // Expanding "0-2147483647" took 8 GiB and overflowed `c` (found by
    // tests/fuzz/fuzz_range_list): no CPU number or count beyond the limit.
    if (hi >= kMaxCpus ||
        cpus.size() + static_cast<std::size_t>(hi - lo) >= kMaxCpus) {
      return Error{"bad cpu list: more than " + std::to_string(kMaxCpus) +
                   " CPUs"};
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace rnic
