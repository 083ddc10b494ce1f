#include "eval/svg_text.h"

namespace graphopt {

std::string SvgEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* SvgPaletteColor(int index) {
  static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  constexpr int kSize = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((index % kSize) + kSize) % kSize];
}

}  // namespace graphopt
