// What every SVG chart of eval/ shares: text escaped for SVG and the palette.
#pragma once

#include <string>

namespace graphopt {

// `text` with &, <, > and " escaped, for SVG text and attribute values.
std::string SvgEscape(const std::string& text);

// Tableau 10: distinct colours that stay apart for colour-blind readers too;
// SvgPaletteColor(i) cycles through them.
const char* SvgPaletteColor(int index);

}  // namespace graphopt
