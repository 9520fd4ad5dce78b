#include "collectors/common/markdown_cell.h"

namespace rnic {

std::string MarkdownCell(std::string_view text) {
  std::string out;
  bool code = false;
  for (char c : text) {
    if (c == '`') code = !code;
    if (c == '|') {
      out += "\\|";
    } else if (c == '<' && !code) {
      out += "&lt;";
    } else if (c == '>' && !code) {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace rnic
