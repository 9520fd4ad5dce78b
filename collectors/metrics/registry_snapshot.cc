#include "collectors/metrics/registry_snapshot.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <tuple>

namespace rnic {
namespace {

// Position of a label in the family's declared label names (le last).
std::size_t Rank(std::string_view declared, const std::string& name) {
  std::size_t i = 0;
  while (!declared.empty()) {
    const auto comma = declared.find(',');
    if (declared.substr(0, comma) == name) return i;
    ++i;
    if (comma == std::string_view::npos) break;
    declared.remove_prefix(comma + 1);
  }
  return i + 1;
}

bool LabelsLess(const prometheus::ClientMetric& a,
                const prometheus::ClientMetric& b) {
  return std::lexicographical_compare(
      a.label.begin(), a.label.end(), b.label.begin(), b.label.end(),
      [](const auto& l, const auto& r) {
        return std::tie(l.name, l.value) < std::tie(r.name, r.value);
      });
}

}  // namespace

void AppendCollected(std::vector<prometheus::MetricFamily> collected,
                     MetricSet& out,
                     std::span<const FamilyDesc* const> declared) {
  for (auto& f : collected) {
    if (f.metric.empty()) continue;
    const FamilyDesc* desc = nullptr;
    for (const FamilyDesc* d : declared) {
      if (d->name == f.name) desc = d;
    }
    if (!desc) continue;
    // prometheus-cpp sorts labels by name: put them back in the declared
    // order, and the series in a stable one.
    for (auto& m : f.metric) {
      std::stable_sort(
          m.label.begin(), m.label.end(), [&](const auto& a, const auto& b) {
            return Rank(desc->labels, a.name) < Rank(desc->labels, b.name);
          });
    }
    std::sort(f.metric.begin(), f.metric.end(), LabelsLess);
    out.AddFamily(*desc, std::move(f));
  }
}

}  // namespace rnic
