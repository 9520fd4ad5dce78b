// Checks a collector's output against the families its spec declares: every
// emitted family matches one declaration (exactly, or around its one
// <placeholder>), with the declared type, the declared HELP for exactly named
// families, and only declared labels. Shared by the collectors' tests.
#pragma once

#include <gtest/gtest.h>
#include <prometheus/metric_family.h>

#include <set>
#include <string>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/metrics/family.h"

namespace rnic::testing {

inline std::set<std::string> SplitLabels(std::string_view labels) {
  std::set<std::string> out;
  while (!labels.empty()) {
    const auto comma = labels.find(',');
    out.emplace(labels.substr(0, comma));
    if (comma == std::string_view::npos) break;
    labels.remove_prefix(comma + 1);
  }
  return out;
}

inline const FamilyDesc* DeclarationOf(const CollectorSpec& spec,
                                       const prometheus::MetricFamily& f) {
  const FamilyDesc* templ = nullptr;
  for (const FamilyDesc* d : spec.families) {
    if (d->name == f.name) return d;
    if (!templ && d->type == f.type && FamilyNameMatches(d->name, f.name)) {
      templ = d;
    }
  }
  return templ;
}

inline void ExpectDeclared(const CollectorSpec& spec,
                           const std::vector<prometheus::MetricFamily>& fams) {
  for (const auto& f : fams) {
    const FamilyDesc* d = DeclarationOf(spec, f);
    ASSERT_NE(d, nullptr) << spec.name << ": " << f.name
                          << " is not declared in its spec";
    EXPECT_EQ(d->type, f.type) << f.name;
    if (d->name == f.name) {
      EXPECT_EQ(d->help, f.help) << f.name;
    }
    EXPECT_FALSE(f.help.empty()) << f.name;
    if (f.type == prometheus::MetricType::Counter) {
      EXPECT_TRUE(f.name.ends_with("_total")) << f.name;
    } else {
      EXPECT_FALSE(f.name.ends_with("_total")) << f.name;
    }
    const std::set<std::string> allowed = SplitLabels(d->labels);
    for (const auto& m : f.metric) {
      for (const auto& l : m.label) {
        if (l.name == "le") continue;  // histogram buckets
        EXPECT_TRUE(allowed.contains(l.name))
            << f.name << ": label " << l.name << " not declared";
      }
    }
  }
}

}  // namespace rnic::testing
