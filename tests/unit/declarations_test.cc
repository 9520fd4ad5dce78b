// Every metric family is declared once (collectors/metrics/family.h): over all
// collectors' specs and the exporter's own families, a name declared twice
// must be the same family (same type, labels and HELP), and every
// declaration must be a valid Prometheus family. The checker takes a plain
// list so the negative cases below can feed it bad declarations.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/metrics/family.h"
#include "exporter/self_metrics.h"

namespace rnic {
namespace {

using prometheus::MetricType;

struct Declared {
  std::string owner;  // collector name, or "exporter"
  const FamilyDesc* desc;
};

std::vector<Declared> EveryDeclaration() {
  std::vector<Declared> out;
  for (const CollectorSpec& spec : AllCollectors()) {
    for (const FamilyDesc* d : spec.families) out.push_back({spec.name, d});
  }
  for (const FamilyDesc* d : ExporterFamilies()) {
    out.push_back({"exporter", d});
  }
  return out;
}

std::vector<std::string> SplitLabels(std::string_view labels) {
  std::vector<std::string> out;
  while (!labels.empty()) {
    const auto comma = labels.find(',');
    out.emplace_back(labels.substr(0, comma));
    if (comma == std::string_view::npos) break;
    labels.remove_prefix(comma + 1);
  }
  return out;
}

// The name with its <placeholder> (if any) replaced by a valid part; counts
// the placeholders in `placeholders`.
std::string Concrete(std::string_view name, int& placeholders) {
  static const std::regex kPlaceholder("<[a-z_]+>");
  const std::string s(name);
  placeholders = static_cast<int>(
      std::distance(std::sregex_iterator(s.begin(), s.end(), kPlaceholder),
                    std::sregex_iterator()));
  return std::regex_replace(s, kPlaceholder, "x");
}

// Problems of a list of declarations, one line each; empty when sound.
std::vector<std::string> CheckDeclarations(const std::vector<Declared>& all) {
  static const std::regex kMetricName("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex kLabelName("[a-zA-Z_][a-zA-Z0-9_]*");
  std::vector<std::string> problems;
  std::map<std::string_view, const Declared*> first;
  for (const Declared& d : all) {
    const FamilyDesc& f = *d.desc;
    const std::string who = d.owner + ": " + std::string(f.name);
    auto [it, inserted] = first.emplace(f.name, &d);
    if (!inserted) {
      const FamilyDesc& g = *it->second->desc;
      if (g.type != f.type || g.labels != f.labels || g.help != f.help) {
        problems.push_back(who + " declared again by " + it->second->owner +
                           " with another type, labels or HELP");
      }
      continue;  // the same family shared by two collectors
    }
    int placeholders = 0;
    const std::string concrete = Concrete(f.name, placeholders);
    if (placeholders > 1)
      problems.push_back(who + ": more than one <placeholder>");
    if (!std::regex_match(concrete, kMetricName) ||
        concrete.find_first_of("<>") != std::string::npos) {
      problems.push_back(who + ": not a valid metric name");
    }
    const bool total = concrete.ends_with("_total");
    if (f.type == MetricType::Counter && !total) {
      problems.push_back(who + ": counter without _total");
    }
    if (f.type != MetricType::Counter && total) {
      problems.push_back(who + ": " + std::string(TypeName(f.type)) +
                         " ending in _total");
    }
    if (f.help.empty()) problems.push_back(who + ": empty HELP");
    std::set<std::string> seen;
    for (const std::string& l : SplitLabels(f.labels)) {
      if (!std::regex_match(l, kLabelName) || l.starts_with("__")) {
        problems.push_back(who + ": invalid label name \"" + l + "\"");
      }
      if (l == "le" && f.type == MetricType::Histogram) {
        problems.push_back(who + ": histogram declares the reserved label le");
      }
      if (!seen.insert(l).second) {
        problems.push_back(who + ": label " + l + " declared twice");
      }
    }
  }
  return problems;
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(DeclarationsTest, EveryFamilyIsDeclaredOnceAndValid) {
  const auto all = EveryDeclaration();
  ASSERT_GT(all.size(), 50u);  // every collector lists its families
  EXPECT_EQ(Joined(CheckDeclarations(all)), "");
}

TEST(DeclarationsTest, EveryCollectorDeclaresFamilies) {
  for (const CollectorSpec& spec : AllCollectors()) {
    EXPECT_FALSE(spec.families.empty()) << spec.name;
  }
  EXPECT_FALSE(ExporterFamilies().empty());
}

// rnic_port_state is emitted by sysfs or netlink_stat: one declaration in
// both specs, which is not a conflict.
TEST(DeclarationsTest, SharedFamilyIsOneDeclaration) {
  std::map<std::string_view, std::set<const FamilyDesc*>> by_name;
  for (const Declared& d : EveryDeclaration()) {
    by_name[d.desc->name].insert(d.desc);
  }
  ASSERT_TRUE(by_name.contains("rnic_port_state"));
  EXPECT_EQ(by_name["rnic_port_state"].size(), 1u);
}

constexpr FamilyDesc kState{"rnic_test_state", MetricType::Gauge, "device,port",
                            "State of a test port."};
constexpr FamilyDesc kStateOtherHelp{"rnic_test_state", MetricType::Gauge,
                                     "device,port", "Another HELP."};
constexpr FamilyDesc kStateCounter{"rnic_test_state", MetricType::Counter,
                                   "device,port", "State of a test port."};
constexpr FamilyDesc kStateOtherLabels{"rnic_test_state", MetricType::Gauge,
                                       "device", "State of a test port."};
constexpr FamilyDesc kStateCopy{"rnic_test_state", MetricType::Gauge,
                                "device,port", "State of a test port."};

TEST(DeclarationsTest, ConflictingDuplicatesFail) {
  for (const FamilyDesc* bad :
       {&kStateOtherHelp, &kStateCounter, &kStateOtherLabels}) {
    const auto problems = CheckDeclarations({{"a", &kState}, {"b", bad}});
    ASSERT_EQ(problems.size(), 1u) << Joined(problems);
    EXPECT_NE(problems[0].find("declared again by a"), std::string::npos)
        << problems[0];
  }
  // The same family listed by two collectors, or an identical copy, is fine.
  EXPECT_TRUE(CheckDeclarations({{"a", &kState}, {"b", &kState}}).empty());
  EXPECT_TRUE(CheckDeclarations({{"a", &kState}, {"b", &kStateCopy}}).empty());
}

TEST(DeclarationsTest, InvalidDeclarationsFail) {
  constexpr FamilyDesc kBad[] = {
      {"rnic_events", MetricType::Counter, "", "Counter without _total."},
      {"rnic_level_total", MetricType::Gauge, "", "Gauge with _total."},
      {"rnic-bad-name", MetricType::Gauge, "", "Dashes."},
      {"rnic_no_help", MetricType::Gauge, "", ""},
      {"rnic_bad_label", MetricType::Gauge, "device,1port", "Digit first."},
      {"rnic_reserved", MetricType::Gauge, "__name", "Reserved label."},
      {"rnic_twice", MetricType::Gauge, "device,device", "Label twice."},
      {"rnic_<a>_<b>_total", MetricType::Counter, "", "Two placeholders."},
      {"rnic_hist_seconds", MetricType::Histogram, "le", "Declares le."},
  };
  for (const FamilyDesc& d : kBad) {
    EXPECT_EQ(CheckDeclarations({{"t", &d}}).size(), 1u) << d.name;
  }
  constexpr FamilyDesc kTemplate{"rnic_hw_<counter>_total", MetricType::Counter,
                                 "device,port", "A driver counter."};
  EXPECT_TRUE(CheckDeclarations({{"t", &kTemplate}}).empty());
}

}  // namespace
}  // namespace rnic
