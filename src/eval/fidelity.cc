#include "eval/fidelity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/strings.h"
#include "eval/svg_text.h"

namespace graphopt {
namespace {

// Ranks from 1, ties sharing their mean rank.
std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = mean;
    i = j + 1;
  }
  return rank;
}

double Error(const FidelityPoint& p) { return (p.simulated_us - p.measured_us) / p.measured_us; }

}  // namespace

double SpearmanCorrelation(const std::vector<double>& x, const std::vector<double>& y) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x.size() != y.size() || x.size() < 2) return nan;
  const std::vector<double> rx = Ranks(x), ry = Ranks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n + 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx == 0 || syy == 0) return nan;
  return sxy / std::sqrt(sxx * syy);
}

FidelityStats ComputeFidelity(const std::vector<FidelityPoint>& all) {
  std::vector<FidelityPoint> points;
  for (const FidelityPoint& p : all) {
    if (p.measured_us > 0 && p.simulated_us > 0) points.push_back(p);
  }
  FidelityStats stats;
  stats.points = static_cast<int>(points.size());
  if (points.empty()) return stats;
  std::vector<double> measured, simulated;
  double sum = 0;
  for (const FidelityPoint& p : points) {
    const double e = Error(p);
    sum += std::fabs(e);
    if (std::fabs(e) >= std::fabs(stats.worst_error)) {
      stats.worst_error = e;
      stats.worst = p.graph + " / " + p.plan;
    }
    measured.push_back(p.measured_us);
    simulated.push_back(p.simulated_us);
  }
  stats.mean_abs_error = sum / static_cast<double>(points.size());
  stats.spearman = SpearmanCorrelation(measured, simulated);

  std::vector<std::string> order;
  std::map<std::string, std::vector<const FidelityPoint*>> by_graph;
  for (const FidelityPoint& p : points) {
    if (by_graph.count(p.graph) == 0) order.push_back(p.graph);
    by_graph[p.graph].push_back(&p);
  }
  stats.min_spearman = std::numeric_limits<double>::quiet_NaN();
  double regret_sum = 0;
  for (const std::string& name : order) {
    const std::vector<const FidelityPoint*>& ps = by_graph[name];
    GraphFidelity g;
    g.graph = name;
    g.plans = static_cast<int>(ps.size());
    std::vector<double> m, s;
    const FidelityPoint* picked = ps.front();
    const FidelityPoint* best = ps.front();
    double err = 0;
    for (const FidelityPoint* p : ps) {
      m.push_back(p->measured_us);
      s.push_back(p->simulated_us);
      err += std::fabs(Error(*p));
      if (p->simulated_us < picked->simulated_us) picked = p;
      if (p->measured_us < best->measured_us) best = p;
    }
    g.mean_abs_error = err / static_cast<double>(ps.size());
    g.spearman = SpearmanCorrelation(m, s);
    g.picked = picked->plan;
    g.best = best->plan;
    g.regret = picked->measured_us / best->measured_us - 1;
    regret_sum += g.regret;
    stats.max_regret = std::max(stats.max_regret, g.regret);
    if (!std::isnan(g.spearman) && !(g.spearman >= stats.min_spearman)) stats.min_spearman = g.spearman;
    stats.graphs.push_back(g);
  }
  stats.mean_regret = regret_sum / static_cast<double>(stats.graphs.size());
  return stats;
}

namespace {

constexpr double kPanel = 360;  // plot square, pixels
constexpr double kLeft = 70, kTop = 56, kGap = 70, kBottom = 48;
constexpr const char* kFont = "font-family=\"Helvetica, Arial, sans-serif\"";

std::string Ms(double us) { return us >= 1e6 ? StrFormat("%.3g s", us / 1e6) : StrFormat("%.3g ms", us / 1e3); }

}  // namespace

std::string FidelityScatterSvg(const std::vector<FidelityPanel>& panels, const std::string& title) {
  // One log axis for every panel, over whole powers of ten that hold every time.
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  std::vector<std::string> graphs;
  for (const FidelityPanel& panel : panels) {
    for (const FidelityPoint& p : panel.points) {
      if (p.measured_us <= 0 || p.simulated_us <= 0) continue;
      lo = std::min({lo, p.measured_us, p.simulated_us});
      hi = std::max({hi, p.measured_us, p.simulated_us});
      if (std::find(graphs.begin(), graphs.end(), p.graph) == graphs.end()) graphs.push_back(p.graph);
    }
  }
  if (hi <= 0) lo = 1e3, hi = 1e6;
  const double a = std::floor(std::log10(lo)), b = std::max(a + 1, std::ceil(std::log10(hi)));
  auto pos = [&](double us) { return (std::log10(us) - a) / (b - a) * kPanel; };
  const double width = kLeft + static_cast<double>(panels.size()) * (kPanel + kGap) + 150;
  const double height = kTop + kPanel + kBottom;
  std::string svg = StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" %s "
      "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
      width, height, width, height, kFont, kLeft, SvgEscape(title).c_str());
  for (size_t k = 0; k < panels.size(); ++k) {
    const FidelityPanel& panel = panels[k];
    const double x0 = kLeft + static_cast<double>(k) * (kPanel + kGap), y0 = kTop + kPanel;
    const FidelityStats stats = ComputeFidelity(panel.points);
    svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", x0, kTop - 20,
                     SvgEscape(panel.title).c_str());
    svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\">mean |error| %.1f%%, Spearman %.3f</text>\n", x0, kTop - 6,
                     100 * stats.mean_abs_error, stats.spearman);
    // The +-10% band and the line of equality.
    svg += StrFormat("<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"#eeeeee\"/>\n", x0,
                     y0 - std::clamp(pos(std::pow(10, a) * 1.1), 0.0, kPanel), x0 + kPanel,
                     y0 - std::clamp(pos(std::pow(10, b) * 1.1), 0.0, kPanel), x0 + kPanel,
                     y0 - std::clamp(pos(std::pow(10, b) / 1.1), 0.0, kPanel), x0,
                     y0 - std::clamp(pos(std::pow(10, a) / 1.1), 0.0, kPanel));
    svg += StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n",
                     x0, y0, x0 + kPanel, y0 - kPanel);
    svg += StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", x0,
                     kTop, kPanel, kPanel);
    for (double e = a; e <= b; e += 1) {
      const double p = pos(std::pow(10, e));
      const std::string label = Ms(std::pow(10, e));
      svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x0 + p, y0 + 16, label.c_str());
      svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x0 - 4, y0 - p + 4, label.c_str());
    }
    svg += StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">executed step time</text>\n", x0 + kPanel / 2,
                     y0 + 34);
    svg += StrFormat("<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">simulated</text>\n",
                     x0 - 54, kTop + kPanel / 2);
    for (const FidelityPoint& p : panel.points) {
      if (p.measured_us <= 0 || p.simulated_us <= 0) continue;
      const int g = static_cast<int>(std::find(graphs.begin(), graphs.end(), p.graph) - graphs.begin());
      svg += StrFormat(
          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" fill-opacity=\"0.8\"><title>%s / %s: executed %s, "
          "simulated %s (%+.1f%%)</title></circle>\n",
          x0 + pos(p.measured_us), y0 - pos(p.simulated_us), SvgPaletteColor(g), SvgEscape(p.graph).c_str(),
          SvgEscape(p.plan).c_str(), Ms(p.measured_us).c_str(), Ms(p.simulated_us).c_str(),
          100 * (p.simulated_us - p.measured_us) / p.measured_us);
    }
  }
  const double lx = kLeft + static_cast<double>(panels.size()) * (kPanel + kGap) - kGap + 16;
  // The legend names a graph by its model's name before its parameters ("gnmt" for
  // "gnmt:layers=2,..."), unless two graphs share it; the tooltips give the whole name.
  std::vector<std::string> names;
  for (const std::string& g : graphs) names.push_back(g.substr(0, g.find(':')));
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::count(names.begin(), names.end(), names[i]) > 1) names = graphs;
  }
  for (size_t g = 0; g < graphs.size(); ++g) {
    const double y = kTop + 10 + 18 * static_cast<double>(g);
    svg += StrFormat("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n", lx,
                     y, SvgPaletteColor(static_cast<int>(g)), lx + 10, y + 4, SvgEscape(names[g]).c_str());
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace graphopt
