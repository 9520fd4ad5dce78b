#include "collectors/metrics/family.h"

#include <deque>
#include <map>
#include <mutex>

namespace rnic {

std::string_view TypeName(prometheus::MetricType type) {
  switch (type) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Summary:
      return "summary";
    default:
      return "untyped";
  }
}

namespace {

struct Interned {
  std::string name;
  std::string labels;
  std::string help;
  FamilyDesc desc;
};

struct InternTable {
  std::mutex mu;
  std::deque<Interned> store;  // stable addresses
  std::map<std::pair<std::string, prometheus::MetricType>, const FamilyDesc*,
           std::less<>>
      index;
};

InternTable& Table() {
  static auto* t = new InternTable();  // never destroyed: used until exit
  return *t;
}

}  // namespace

const FamilyDesc& InternFamily(std::string_view name,
                               prometheus::MetricType type,
                               std::string_view labels, std::string_view help) {
  InternTable& t = Table();
  std::lock_guard<std::mutex> g(t.mu);
  auto key = std::make_pair(std::string(name), type);
  if (auto it = t.index.find(key); it != t.index.end()) return *it->second;
  Interned& e = t.store.emplace_back();
  e.name.assign(name);
  e.labels.assign(labels);
  e.help.assign(help);
  e.desc = FamilyDesc{e.name, type, e.labels, e.help};
  t.index.emplace(std::move(key), &e.desc);
  return e.desc;
}

std::string MetricNamePart(std::string_view kernel_name) {
  auto is_upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  auto is_lower_or_digit = [&](char c) {
    return (c >= 'a' && c <= 'z') || is_digit(c);
  };
  std::string out;
  out.reserve(kernel_name.size() + 8);
  for (std::size_t i = 0; i < kernel_name.size(); ++i) {
    char c = kernel_name[i];
    if (!is_upper(c) && !is_lower_or_digit(c) && c != '_') c = '_';
    if (is_upper(c) && i > 0) {
      // A word starts at an upper-case letter after a lower-case one or a
      // digit (RcvPkts, ip4InReceives; not the "4I" of "DC4In" style
      // acronyms), or at the last capital of an acronym (TXFlits -> tx_flits).
      const char prev = kernel_name[i - 1];
      const bool next_lower = i + 1 < kernel_name.size() &&
                              kernel_name[i + 1] >= 'a' &&
                              kernel_name[i + 1] <= 'z';
      const bool after_word =
          is_lower_or_digit(prev) &&
          !(is_digit(prev) && i >= 2 && is_upper(kernel_name[i - 2]));
      if ((after_word || (is_upper(prev) && next_lower)) && !out.empty() &&
          out.back() != '_') {
        out.push_back('_');
      }
    }
    out.push_back(is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

bool FamilyNameMatches(std::string_view declared, std::string_view concrete) {
  const auto open = declared.find('<');
  if (open == std::string_view::npos) return declared == concrete;
  const auto close = declared.find('>', open);
  if (close == std::string_view::npos) return false;
  const std::string_view prefix = declared.substr(0, open);
  const std::string_view suffix = declared.substr(close + 1);
  return concrete.size() > prefix.size() + suffix.size() &&
         concrete.starts_with(prefix) && concrete.ends_with(suffix);
}

}  // namespace rnic
