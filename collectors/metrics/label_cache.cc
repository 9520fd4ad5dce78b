#include "collectors/metrics/label_cache.h"

namespace rnic {

const LabelSetPtr& LabelCache::Get(std::span<const LabelPair> labels) {
  // Names and values joined by NUL, which neither contains in practice and
  // which keeps ("a", "bc") apart from ("ab", "c").
  key_.clear();
  for (const auto& [name, value] : labels) {
    key_.append(name);
    key_ += '\0';
    key_.append(value);
    key_ += '\0';
  }
  auto it = sets_.find(std::string_view(key_));
  if (it == sets_.end()) {
    Labels v;
    v.reserve(labels.size());
    for (const auto& [name, value] : labels) {
      v.push_back(Label{std::string(name), std::string(value)});
    }
    it = sets_.emplace(key_, Entry{LabelSet::Make(std::move(v))}).first;
  }
  it->second.used = true;
  return it->second.set;
}

void LabelCache::Sweep() {
  std::erase_if(sets_, [](const auto& kv) { return !kv.second.used; });
  for (auto& [key, e] : sets_) e.used = false;
}

}  // namespace rnic
