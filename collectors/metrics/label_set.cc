#include "collectors/metrics/label_set.h"

namespace rnic {

void AppendEscaped(std::string_view s, bool escape_quote, std::string& out) {
  // Nearly every label value and HELP text needs no escaping: copy the
  // runs between special characters in one append each.
  const char* specials = escape_quote ? "\\\n\"" : "\\\n";
  while (!s.empty()) {
    const auto pos = s.find_first_of(specials);
    if (pos == std::string_view::npos) {
      out.append(s);
      return;
    }
    out.append(s.substr(0, pos));
    out += s[pos] == '\n' ? "\\n" : s[pos] == '"' ? "\\\"" : "\\\\";
    s.remove_prefix(pos + 1);
  }
}

LabelSet::LabelSet(Labels labels) : labels_(std::move(labels)) {
  std::size_t n = 0;
  for (const auto& l : labels_) n += l.name.size() + l.value.size() + 4;
  text_.reserve(n);
  for (const auto& l : labels_) {
    if (!text_.empty()) text_ += ',';
    text_ += l.name;
    text_ += "=\"";
    AppendEscaped(l.value, true, text_);
    text_ += '"';
  }
}

LabelSetPtr LabelSet::Make(std::initializer_list<LabelPair> l) {
  Labels v;
  v.reserve(l.size());
  for (const auto& [k, val] : l)
    v.push_back(Label{std::string(k), std::string(val)});
  return std::make_shared<const LabelSet>(std::move(v));
}

LabelSetPtr LabelSet::Make(Labels labels) {
  return std::make_shared<const LabelSet>(std::move(labels));
}

LabelSetPtr LabelSet::With(std::initializer_list<LabelPair> extra) const {
  Labels v = labels_;
  for (const auto& [k, val] : extra) {
    v.push_back(Label{std::string(k), std::string(val)});
  }
  return std::make_shared<const LabelSet>(std::move(v));
}

const LabelSetPtr& LabelSet::Empty() {
  static const LabelSetPtr kEmpty = std::make_shared<const LabelSet>(Labels{});
  return kEmpty;
}

std::string_view LabelSet::Value(std::string_view name) const {
  for (const auto& l : labels_) {
    if (l.name == name) return l.value;
  }
  return {};
}

}  // namespace rnic
