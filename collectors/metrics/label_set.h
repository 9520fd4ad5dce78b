// A series' labels, rendered once into exposition text
// (`device="mlx5_0",port="1"`) and shared by every sample that carries them.
// Collectors build a port's label set when the port appears in the host model
// and reuse it on every scrape, so the scrape's hot path copies a pointer
// instead of building label vectors and strings per series.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rnic {

struct Label {
  std::string name;
  std::string value;
  bool operator==(const Label&) const = default;
};
using Labels = std::vector<Label>;
using LabelPair = std::pair<std::string_view, std::string_view>;

class LabelSet;
using LabelSetPtr = std::shared_ptr<const LabelSet>;

class LabelSet {
 public:
  [[nodiscard]] static LabelSetPtr Make(std::initializer_list<LabelPair> l);
  [[nodiscard]] static LabelSetPtr Make(Labels labels);
  // This set followed by `extra` (a per-series label such as priority).
  [[nodiscard]] LabelSetPtr With(std::initializer_list<LabelPair> extra) const;
  [[nodiscard]] static const LabelSetPtr& Empty();

  // Rendered pairs without braces; "" when there are no labels.
  [[nodiscard]] const std::string& text() const { return text_; }
  [[nodiscard]] const Labels& labels() const { return labels_; }
  [[nodiscard]] std::string_view Value(std::string_view name) const;

  explicit LabelSet(Labels labels);

 private:
  Labels labels_;
  std::string text_;
};

// Label values and HELP texts: backslash and newline escaped, and double
// quotes too when `escape_quote` (label values; OpenMetrics HELP).
void AppendEscaped(std::string_view s, bool escape_quote, std::string& out);

}  // namespace rnic
