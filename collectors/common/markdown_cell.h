#pragma once

#include <string>
#include <string_view>

namespace rnic {

// Text for a markdown table cell (the generated docs/metrics.md and config
// reference): '|' would end the cell (inside a code span too), and '<x>'
// outside a code span would be read as an HTML tag and vanish.
[[nodiscard]] std::string MarkdownCell(std::string_view text);

}  // namespace rnic
