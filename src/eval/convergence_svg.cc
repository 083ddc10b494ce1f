#include "eval/convergence_svg.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "eval/svg_text.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

constexpr const char* kFormat = "graphopt-convergence-suite";
constexpr int kVersion = 1;

// Fixed colours for the learned methods every chart compares (the same method, the
// same colour in every chart), then a palette.
std::string MethodColor(const std::string& method, int index) {
  static const std::pair<const char*, const char*> kFixed[] = {
      {"go", "#4e79a7"}, {"colocrl", "#f28e2b"}, {"hdp", "#e15759"}};
  for (const auto& [name, colour] : kFixed) {
    if (method == name) return colour;
  }
  static const char* const palette[] = {"#59a14f", "#b07aa1", "#9c755f", "#76b7b2", "#edc948"};
  return palette[index % 5];
}

}  // namespace

StatusOr<std::vector<ConvergenceSeries>> ConvergenceFromJson(const std::string& text, const std::string& source) {
  GO_ASSIGN_OR_RETURN(const Json j, ParseJsonText(text, source));
  GO_RETURN_IF_ERROR(CheckJsonHeader(j, source, kFormat, kVersion));
  const auto runs = j.find("runs");
  if (runs == j.end() || !runs->is_array()) return ParseError(source + ": \"runs\" must be an array");
  std::vector<ConvergenceSeries> out;
  for (size_t i = 0; i < runs->size(); ++i) {
    const Json& r = (*runs)[i];
    std::string where = source + ": runs[" + std::to_string(i) + "]";
    if (!r.is_object()) return ParseError(where + ": must be an object");
    auto field = [&](const char* key) -> StatusOr<const Json*> {
      const auto it = r.find(key);
      if (it == r.end()) return ParseError(where + ": missing \"" + key + "\"");
      return &*it;
    };
    ConvergenceSeries s;
    GO_ASSIGN_OR_RETURN(const Json* row, field("row"));
    GO_ASSIGN_OR_RETURN(s.row, JsonString(*row, where + ": \"row\""));
    GO_ASSIGN_OR_RETURN(const Json* method, field("method"));
    GO_ASSIGN_OR_RETURN(s.method, JsonString(*method, where + ": \"method\""));
    where += " (" + s.row + "/" + s.method + ")";
    s.label = s.row;
    if (const auto label = r.find("label"); label != r.end()) {
      GO_ASSIGN_OR_RETURN(s.label, JsonString(*label, where + ": \"label\""));
    }
    GO_ASSIGN_OR_RETURN(const Json* reference, field("reference_us"));
    GO_ASSIGN_OR_RETURN(s.reference_us, JsonNumber(*reference, where + ": \"reference_us\"", 0));
    GO_ASSIGN_OR_RETURN(const Json* end_seconds, field("end_seconds"));
    GO_ASSIGN_OR_RETURN(s.end_seconds, JsonNumber(*end_seconds, where + ": \"end_seconds\"", 0));
    GO_ASSIGN_OR_RETURN(const Json* end_plans, field("end_plans"));
    GO_ASSIGN_OR_RETURN(s.end_plans, JsonInt(*end_plans, where + ": \"end_plans\"", 0));
    GO_ASSIGN_OR_RETURN(const Json* points, field("points"));
    if (!points->is_array()) return ParseError(where + ": \"points\" must be an array");
    for (size_t k = 0; k < points->size(); ++k) {
      const Json& p = (*points)[k];
      const std::string at = where + ": points[" + std::to_string(k) + "]";
      if (!p.is_array() || p.size() != 3) return ParseError(at + " is not [seconds, plans, step_time_us]");
      GO_ASSIGN_OR_RETURN(const double seconds, JsonNumber(p[0], at + "[0] (seconds)", 0));
      GO_ASSIGN_OR_RETURN(const int64_t plans, JsonInt(p[1], at + "[1] (plans)", 0));
      GO_ASSIGN_OR_RETURN(const double best_us, JsonNumber(p[2], at + "[2] (step_time_us)", 0));
      s.seconds.push_back(seconds);
      s.plans.push_back(plans);
      s.best_us.push_back(best_us);
    }
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<std::vector<ConvergenceSeries>> ReadConvergenceFile(const std::string& path) {
  if (!FileExists(path)) return std::vector<ConvergenceSeries>();
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ConvergenceFromJson(text, path);
}

std::string ConvergenceToJson(const std::vector<ConvergenceSeries>& series) {
  Json runs = Json::array();
  for (const ConvergenceSeries& s : series) {
    Json points = Json::array();
    for (size_t i = 0; i < s.best_us.size(); ++i) points.push_back(Json::array({s.seconds[i], s.plans[i], s.best_us[i]}));
    runs.push_back(Json{{"row", s.row},
                        {"label", s.label},
                        {"method", s.method},
                        {"reference_us", s.reference_us},
                        {"end_seconds", s.end_seconds},
                        {"end_plans", s.end_plans},
                        {"points", points}});
  }
  const Json j{{"format", kFormat}, {"version", kVersion}, {"runs", runs}};
  return j.dump(1) + "\n";
}

Status WriteConvergenceFile(const std::vector<ConvergenceSeries>& series, const std::string& path) {
  return WriteFileAtomic(path, ConvergenceToJson(series));
}

void MergeConvergence(const ConvergenceSeries& series, std::vector<ConvergenceSeries>* all) {
  for (ConvergenceSeries& s : *all) {
    if (s.row == series.row && s.method == series.method) {
      s = series;
      return;
    }
  }
  all->push_back(series);
}

std::string ConvergenceChartSvg(const std::vector<ConvergenceSeries>& series, ConvergenceAxis axis) {
  // Rows in first-appearance order, methods in first-appearance order.
  std::vector<std::string> rows, methods;
  std::map<std::string, std::string> labels;
  for (const ConvergenceSeries& s : series) {
    if (std::find(rows.begin(), rows.end(), s.row) == rows.end()) rows.push_back(s.row);
    if (std::find(methods.begin(), methods.end(), s.method) == methods.end()) methods.push_back(s.method);
    labels[s.row] = s.label.empty() ? s.row : s.label;
  }
  const bool by_plans = axis == ConvergenceAxis::kPlans;
  const int cols = 4;
  const int panel_rows = std::max<int>(1, (static_cast<int>(rows.size()) + cols - 1) / cols);
  const double pw = 250, ph = 170, ml = 42, mt = 28, mb = 30, gap = 14;
  const double total_w = cols * (ml + pw + gap) + 10, head = 56;
  const double total_h = head + panel_rows * (mt + ph + mb) + 10;
  std::string svg = StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      total_w, total_h, total_w, total_h);
  svg += StrFormat("<text x=\"10\" y=\"20\" font-size=\"14\">Best step time / best baseline against %s (log scale); "
                   "lower is better, dashed: the best baseline</text>\n",
                   by_plans ? "plans simulated" : "wall-clock seconds");
  for (size_t m = 0; m < methods.size(); ++m) {
    const double x = 10 + 130 * static_cast<double>(m);
    svg += StrFormat("<rect x=\"%.0f\" y=\"34\" width=\"16\" height=\"4\" fill=\"%s\"/><text x=\"%.0f\" y=\"40\">%s</text>\n", x,
                     MethodColor(methods[m], static_cast<int>(m)).c_str(), x + 22, SvgEscape(methods[m]).c_str());
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    const double ox = 10 + static_cast<double>(r % cols) * (ml + pw + gap) + ml;
    const double oy = head + static_cast<double>(r / cols) * (mt + ph + mb) + mt;
    // Scales of this panel.
    double x_max = 1, y_lo = 1, y_hi = 1;
    for (const ConvergenceSeries& s : series) {
      if (s.row != rows[r] || s.reference_us <= 0) continue;
      x_max = std::max(x_max, by_plans ? static_cast<double>(s.end_plans) : s.end_seconds);
      for (size_t i = 0; i < s.best_us.size(); ++i) {
        const double ratio = s.best_us[i] / s.reference_us;
        y_lo = std::min(y_lo, ratio);
        y_hi = std::max(y_hi, std::min(ratio, 3.0));
      }
    }
    // The axes stay finite whatever the series hold (a 1e308 end time would make the
    // decade ticks run forever): x up to 1e15, ratios from 0.
    x_max = std::min(x_max, 1e15);
    y_lo = std::max(y_lo, 0.0);
    const double x_min = by_plans ? 1 : 0.1;
    const double lx0 = std::log10(x_min), lx1 = std::log10(std::max(x_max * 1.1, x_min * 10));
    y_lo = std::floor(y_lo * 10 - 0.5) / 10;
    y_hi = std::ceil(y_hi * 10 + 0.5) / 10;
    auto X = [&](double v) { return ox + (std::log10(std::max(x_min, v)) - lx0) / (lx1 - lx0) * pw; };
    auto Y = [&](double ratio) { return oy + (y_hi - std::clamp(ratio, y_lo, y_hi)) / (y_hi - y_lo) * ph; };
    svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", ox, oy - 8, SvgEscape(labels[rows[r]]).c_str());
    svg += StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#ccc\"/>\n", ox, oy, pw, ph);
    const double step = (y_hi - y_lo) > 1.2 ? 0.5 : 0.2;
    for (double v = std::ceil(y_lo / step) * step; v <= y_hi + 1e-9; v += step) {
      svg += StrFormat("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", ox, ox + pw, Y(v), Y(v));
      svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", ox - 4, Y(v) + 4, v);
    }
    svg += StrFormat("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-dasharray=\"4 3\"/>\n", ox,
                     ox + pw, Y(1), Y(1));
    for (double decade = x_min; decade <= x_max * 1.1; decade *= 10) {
      svg += StrFormat("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", X(decade), X(decade), oy, oy + ph);
      svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", X(decade), oy + ph + 14, decade);
    }
    for (size_t m = 0; m < methods.size(); ++m) {
      for (const ConvergenceSeries& s : series) {
        if (s.row != rows[r] || s.method != methods[m] || s.reference_us <= 0 || s.best_us.empty()) continue;
        const std::string color = MethodColor(s.method, static_cast<int>(m));
        std::string points;
        double prev_y = 0;
        for (size_t i = 0; i < s.best_us.size(); ++i) {
          const double x = X(by_plans ? static_cast<double>(s.plans[i]) : s.seconds[i]);
          const double y = Y(s.best_us[i] / s.reference_us);
          if (i > 0) points += StrFormat(" %.1f,%.1f", x, prev_y);  // a step: flat until the improvement
          points += StrFormat(" %.1f,%.1f", x, y);
          prev_y = y;
        }
        const double end = by_plans ? static_cast<double>(std::max(s.end_plans, s.plans.back())) : std::max(s.end_seconds, s.seconds.back());
        points += StrFormat(" %.1f,%.1f", X(end), prev_y);
        svg += StrFormat("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"><title>%s</title></polyline>\n",
                         color.c_str(), points.c_str(), SvgEscape(s.method).c_str());
        const double last_x = by_plans ? static_cast<double>(s.plans.back()) : s.seconds.back();
        svg += StrFormat("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s: final plan after %s, %.3fx the best "
                         "baseline</title></circle>\n",
                         X(last_x), prev_y, color.c_str(), SvgEscape(s.method).c_str(),
                         by_plans ? StrFormat("%lld plans", static_cast<long long>(s.plans.back())).c_str()
                                  : StrFormat("%.1f s", s.seconds.back()).c_str(),
                         s.best_us.back() / s.reference_us);
      }
    }
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace graphopt
