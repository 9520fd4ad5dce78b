// Label sets of series whose label values come from what a scrape finds (a
// resource kind, a QP's type and state, a process's comm), kept across
// scrapes so that a steady host builds none: a set is built the first scrape
// its values appear and dropped after a scrape that did not ask for it.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "collectors/common/string_hash.h"
#include "collectors/metrics/label_set.h"

namespace rnic {

class LabelCache {
 public:
  // The set with these names and values, in this order.
  [[nodiscard]] const LabelSetPtr& Get(std::span<const LabelPair> labels);
  [[nodiscard]] const LabelSetPtr& Get(std::initializer_list<LabelPair> l) {
    return Get(std::span<const LabelPair>(l.begin(), l.size()));
  }
  // Ends a scrape: forgets the sets it did not ask for.
  void Sweep();
  [[nodiscard]] std::size_t size() const { return sets_.size(); }

 private:
  struct Entry {
    LabelSetPtr set;
    bool used = false;
  };
  std::string key_;  // reused: no allocation per lookup once warm
  std::unordered_map<std::string, Entry, StringHash, std::equal_to<>> sets_;
};

}  // namespace rnic
