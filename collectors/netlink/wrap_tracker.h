// Extends counters the kernel reports from 32-bit registers (and which
// therefore wrap at 2^32) into monotonic 64-bit values, per series.
// A decrease counts as one wrap only when the modular step is under half the
// range; a larger step back is a reset and is passed through. Series not
// seen in a scrape are forgotten at the end of it, so a device that vanishes
// or is renamed leaves no state behind.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace rnic::nl {

class WrapTracker {
 public:
  // Returns the extended value of series `key` given the raw reading.
  // Widths other than 32 pass through.
  std::uint64_t Update(const std::string& key, std::uint64_t raw, int width);
  // Drops every series not updated since the previous call.
  void Sweep();
  [[nodiscard]] std::size_t size() const { return series_.size(); }

 private:
  struct State {
    std::uint64_t last_raw = 0;
    std::uint64_t total = 0;
    bool seen = false;
  };
  std::unordered_map<std::string, State> series_;
};

}  // namespace rnic::nl
