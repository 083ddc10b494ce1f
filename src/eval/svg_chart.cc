#include "eval/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/strings.h"
#include "eval/svg_text.h"
#include "eval/report.h"

namespace graphopt {
namespace {


constexpr double kMarginLeft = 84;
constexpr double kMarginRight = 24;
constexpr double kStripHeight = 40;  // the band under the axis where OOM and error stubs stand
constexpr double kFontSize = 12;
constexpr const char* kFont = "font-family=\"Helvetica, Arial, sans-serif\"";

std::string Num(double v) { return StrFormat("%.1f", v); }

// Rough width of text in the chart's font, in pixels (no font metrics in plain SVG).
double TextWidth(const std::string& text, double font_size) { return 0.55 * font_size * static_cast<double>(text.size()); }

// Log2 axis of speedups between 2^lo and 2^hi, mapped onto [top, bottom] pixels.
struct Axis {
  int lo = -1, hi = 1;
  double top = 0, bottom = 0;
  double Y(double value) const {
    const double t = (std::log2(value) - lo) / (hi - lo);
    return bottom - std::clamp(t, 0.0, 1.0) * (bottom - top);
  }
};

// How a method's bars look: a colour of its own, or for "NAME+fusion" the colour of
// NAME, lighter and outlined, so that the two read as a pair.
struct BarStyle {
  std::string color;
  bool fused = false;
  // Fill and outline attributes of a bar or a legend swatch.
  std::string Attributes() const {
    if (!fused) return "fill=\"" + color + "\"";
    return "fill=\"" + color + "\" fill-opacity=\"0.45\" stroke=\"" + color + "\" stroke-width=\"1.5\"";
  }
};

std::vector<BarStyle> BarStyles(const std::vector<std::string>& methods) {
  const std::string suffix = kFusionSuffix;
  std::vector<BarStyle> styles(methods.size());
  int next = 0;
  for (size_t i = 0; i < methods.size(); ++i) {
    const std::string& m = methods[i];
    if (m.size() > suffix.size() && m.compare(m.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const auto base = std::find(methods.begin(), methods.end(), m.substr(0, m.size() - suffix.size()));
      if (base != methods.end() && base < methods.begin() + static_cast<std::ptrdiff_t>(i)) {
        styles[i] = BarStyle{styles[static_cast<size_t>(base - methods.begin())].color, true};
        continue;
      }
    }
    styles[i] = BarStyle{SvgPaletteColor(next++), false};
  }
  return styles;
}

std::string TickLabel(int exponent) { return StrFormat("%gx", std::ldexp(1.0, exponent)); }

}  // namespace

std::string SpeedupChartSvg(const SuiteResults& results, const ChartOptions& options) {
  const std::vector<std::string> methods = MethodColumns(results);
  const size_t num_rows = std::max<size_t>(results.rows.size(), 1);
  const size_t num_methods = std::max<size_t>(methods.size(), 1);
  const double plot_width = std::max(options.plot_width, 200);
  const double width = kMarginLeft + plot_width + kMarginRight;

  // Legend: the methods, then the two markers; wrapped to the chart's width.
  struct LegendEntry {
    std::string text;
    std::string kind;  // "method", "oom", "bound"
    BarStyle style;
    double x = 0, y = 0;
  };
  std::vector<LegendEntry> legend;
  const std::vector<BarStyle> styles = BarStyles(methods);
  for (size_t i = 0; i < methods.size(); ++i) legend.push_back({methods[i], "method", styles[i]});
  legend.push_back({"OOM or error (no speedup)", "oom", BarStyle{"#888888", false}});
  legend.push_back({"lower bound (expert / bound: no plan reaches above)", "bound", BarStyle{"#000000", false}});
  double legend_x = kMarginLeft, legend_y = 54;
  for (LegendEntry& e : legend) {
    const double w = 22 + TextWidth(e.text, kFontSize) + 18;
    if (legend_x + w > width - kMarginRight && legend_x > kMarginLeft) {
      legend_x = kMarginLeft;
      legend_y += 20;
    }
    e.x = legend_x;
    e.y = legend_y;
    legend_x += w;
  }

  Axis axis;
  axis.top = legend_y + 30;
  axis.bottom = axis.top + std::max(options.plot_height, 120);
  const double plot_bottom = axis.bottom + kStripHeight;
  const double height = plot_bottom + 62;

  // Axis range: every speedup, every bound marker and 1, to whole powers of two.
  double lo = 1, hi = 1;
  for (const RowResult& row : results.rows) {
    for (const std::string& m : methods) {
      if (auto s = SpeedupOverExpert(row, m)) {
        lo = std::min(lo, *s);
        hi = std::max(hi, *s);
      }
    }
    auto expert = row.methods.find(kExpertMethod);
    if (expert != row.methods.end() && expert->second.fits() && row.lower_bound_us > 0) {
      hi = std::max(hi, expert->second.step_time_us / row.lower_bound_us);
    }
  }
  axis.lo = std::clamp(static_cast<int>(std::floor(std::log2(lo) - 1e-9)), -10, -1);
  axis.hi = std::clamp(static_cast<int>(std::ceil(std::log2(hi) + 1e-9)), 1, 10);

  std::string svg = StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" %s "
      "font-size=\"%.0f\">\n",
      width, height, width, height, kFont, kFontSize);
  svg +=
      "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999999\" stroke-width=\"2\"/></pattern></defs>\n";
  svg += StrFormat("<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width, height);
  svg += StrFormat("<text x=\"%.0f\" y=\"28\" font-size=\"17\" font-weight=\"bold\">%s</text>\n", kMarginLeft,
                   SvgEscape(options.title).c_str());

  for (const LegendEntry& e : legend) {
    if (e.kind == "bound") {
      svg += StrFormat("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#000000\" stroke-width=\"2\" "
                       "stroke-dasharray=\"4 3\"/>\n",
                       Num(e.x).c_str(), Num(e.y - 4).c_str(), Num(e.x + 16).c_str(), Num(e.y - 4).c_str());
    } else {
      svg += StrFormat("<rect class=\"swatch\" x=\"%s\" y=\"%s\" width=\"14\" height=\"12\" %s/>\n", Num(e.x).c_str(),
                       Num(e.y - 10).c_str(),
                       e.kind == "oom" ? "fill=\"url(#hatch)\" stroke=\"#888888\"" : e.style.Attributes().c_str());
    }
    svg += StrFormat("<text x=\"%s\" y=\"%s\">%s</text>\n", Num(e.x + 22).c_str(), Num(e.y).c_str(), SvgEscape(e.text).c_str());
  }

  // Groups: alternate shading, then the grid on top of it.
  const double group_width = plot_width / static_cast<double>(num_rows);
  const double bar_width = std::clamp((group_width - 18) / static_cast<double>(num_methods), 2.0, 24.0);
  for (size_t r = 0; r < results.rows.size(); r += 2) {
    svg += StrFormat("<rect class=\"band\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#f3f5f8\"/>\n",
                     Num(kMarginLeft + group_width * static_cast<double>(r)).c_str(), Num(axis.top).c_str(), Num(group_width).c_str(),
                     Num(plot_bottom - axis.top).c_str());
  }
  for (int e = axis.lo; e <= axis.hi; ++e) {
    const double y = axis.Y(std::ldexp(1.0, e));
    svg += StrFormat("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", Num(kMarginLeft).c_str(),
                     Num(y).c_str(), Num(kMarginLeft + plot_width).c_str(), Num(y).c_str(), e == 0 ? "#333333" : "#d0d0d0",
                     e == 0 ? "1.5" : "1");
    svg += StrFormat("<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", Num(kMarginLeft - 8).c_str(), Num(y + 4).c_str(),
                     TickLabel(e).c_str());
  }
  svg += StrFormat("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#bbbbbb\" stroke-dasharray=\"2 2\"/>\n",
                   Num(kMarginLeft).c_str(), Num(axis.bottom + 0.5).c_str(), Num(kMarginLeft + plot_width).c_str(),
                   Num(axis.bottom + 0.5).c_str());
  svg += StrFormat("<text x=\"%s\" y=\"%s\" text-anchor=\"end\" fill=\"#666666\">no fit</text>\n", Num(kMarginLeft - 8).c_str(),
                   Num(plot_bottom - 12).c_str());
  const double axis_mid = (axis.top + axis.bottom) / 2;
  svg += StrFormat("<text x=\"22\" y=\"%s\" text-anchor=\"middle\" transform=\"rotate(-90 22 %s)\">speedup over expert "
                   "(log scale; up = faster)</text>\n",
                   Num(axis_mid).c_str(), Num(axis_mid).c_str());

  for (size_t r = 0; r < results.rows.size(); ++r) {
    const RowResult& row = results.rows[r];
    const double group_x = kMarginLeft + group_width * static_cast<double>(r);
    const double bars_x = group_x + (group_width - bar_width * static_cast<double>(num_methods)) / 2;
    const auto expert = row.methods.find(kExpertMethod);
    const bool expert_fits = expert != row.methods.end() && expert->second.fits();
    for (size_t i = 0; i < methods.size(); ++i) {
      const auto it = row.methods.find(methods[i]);
      if (it == row.methods.end()) continue;
      const MethodResult& m = it->second;
      const double x = bars_x + bar_width * static_cast<double>(i) + 0.5;
      const double w = std::max(bar_width - 1.0, 1.0);
      const std::string& color = styles[i].color;
      std::string tip = row.DisplayName() + ", " + methods[i] + ": ";
      if (!m.fits()) {
        tip += m.failed() ? "error: " + m.error : StrFormat("out of memory (%.1f ms)", m.step_time_us / 1e3);
        const double stub = kStripHeight - 8;
        svg += StrFormat("<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"url(#hatch)\" stroke=\"%s\" "
                         "stroke-width=\"1.5\"><title>%s</title></rect>\n",
                         Num(x).c_str(), Num(plot_bottom - stub).c_str(), Num(w).c_str(), Num(stub).c_str(), color.c_str(),
                         SvgEscape(tip).c_str());
        if (bar_width < 11) continue;  // no room for a label: the hatching says it
        const double tx = x + w / 2 + 3.5, ty = plot_bottom - stub - 4;
        svg += StrFormat("<text x=\"%s\" y=\"%s\" font-size=\"10\" fill=\"%s\" transform=\"rotate(-90 %s %s)\">%s</text>\n",
                         Num(tx).c_str(), Num(ty).c_str(), color.c_str(), Num(tx).c_str(), Num(ty).c_str(),
                         m.failed() ? "error" : "OOM");
        continue;
      }
      const std::optional<double> speedup = SpeedupOverExpert(row, methods[i]);
      if (!speedup) continue;  // the expert does not fit: nothing to compare with
      tip += StrFormat("%.1f ms, %.2fx the expert", m.step_time_us / 1e3, *speedup);
      const double y1 = axis.Y(1.0), y2 = axis.Y(*speedup);
      double top = std::min(y1, y2), h = std::fabs(y2 - y1);
      if (h < 2) {
        top = (y1 + y2) / 2 - 1;
        h = 2;
      }
      svg += StrFormat("<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" %s><title>%s</title></rect>\n",
                       Num(x).c_str(), Num(top).c_str(), Num(w).c_str(), Num(h).c_str(), styles[i].Attributes().c_str(),
                       SvgEscape(tip).c_str());
    }
    if (expert_fits && row.lower_bound_us > 0) {
      const double bound = expert->second.step_time_us / row.lower_bound_us;
      const double y = axis.Y(bound);
      svg += StrFormat("<line class=\"bound\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#000000\" stroke-width=\"2\" "
                       "stroke-dasharray=\"4 3\"><title>%s: lower bound %.1f ms = %.2fx the expert</title></line>\n",
                       Num(bars_x - 3).c_str(), Num(y).c_str(), Num(bars_x + bar_width * static_cast<double>(num_methods) + 3).c_str(), Num(y).c_str(),
                       SvgEscape(row.DisplayName()).c_str(), row.lower_bound_us / 1e3, bound);
    } else {
      const double cx = group_x + group_width / 2;
      svg += StrFormat("<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" fill=\"#666666\">no expert</text>\n"
                       "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" fill=\"#666666\">plan fits</text>\n",
                       Num(cx).c_str(), Num(axis.Y(1.0) - 8).c_str(), Num(cx).c_str(), Num(axis.Y(1.0) + 8).c_str());
    }
    // Label under the group: the name's first word, the rest, and the cluster.
    const std::string name = row.DisplayName();
    const size_t space = name.find(' ');
    const std::string line1 = name.substr(0, space);
    const std::string line2 = space == std::string::npos ? "" : name.substr(space + 1);
    const double cx = group_x + group_width / 2;
    svg += StrFormat("<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"bold\">%s</text>\n", Num(cx).c_str(),
                     Num(plot_bottom + 17).c_str(), SvgEscape(line1).c_str());
    if (!line2.empty()) {
      svg += StrFormat("<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n", Num(cx).c_str(), Num(plot_bottom + 32).c_str(),
                       SvgEscape(line2).c_str());
    }
    svg += StrFormat("<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" font-size=\"11\" fill=\"#666666\">%s</text>\n", Num(cx).c_str(),
                     Num(plot_bottom + 47).c_str(), SvgEscape(row.cluster).c_str());
  }
  svg += StrFormat("<rect class=\"frame\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#888888\"/>\n",
                   Num(kMarginLeft).c_str(), Num(axis.top).c_str(), Num(plot_width).c_str(), Num(plot_bottom - axis.top).c_str());
  svg += "</svg>\n";
  return svg;
}

}  // namespace graphopt
