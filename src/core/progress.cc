#include "core/progress.h"

#include <unistd.h>

#include <cstdio>

namespace graphopt {

ProgressBar::ProgressBar(std::string label, int64_t total)
    : label_(std::move(label)), total_(total), tty_(isatty(fileno(stderr)) != 0) {
  start_ = std::chrono::steady_clock::now();
  last_draw_ = start_ - std::chrono::hours(1);
}

ProgressBar::~ProgressBar() {
  if (!finished_ && tty_) std::fputc('\n', stderr);
}

void ProgressBar::Update(int64_t done, const std::string& suffix) {
  done_ = done;
  suffix_ = suffix;
  Draw(false);
}

void ProgressBar::Finish(const std::string& suffix) {
  if (!suffix.empty()) suffix_ = suffix;
  if (total_ > 0) done_ = total_;
  Draw(true);
  if (tty_) std::fputc('\n', stderr);
  finished_ = true;
}

void ProgressBar::Draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_draw_).count();
  if (!force && since < (tty_ ? 0.2 : 5.0)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  char head[128];
  if (total_ > 0) {
    const int width = 24;
    const int filled = static_cast<int>(width * static_cast<double>(done_) / static_cast<double>(total_));
    std::string bar(static_cast<size_t>(width), ' ');
    for (int i = 0; i < filled && i < width; ++i) bar[static_cast<size_t>(i)] = '#';
    std::snprintf(head, sizeof head, "[%s] %lld/%lld %.0fs", bar.c_str(), static_cast<long long>(done_),
                  static_cast<long long>(total_), elapsed);
  } else {
    std::snprintf(head, sizeof head, "%lld %.0fs", static_cast<long long>(done_), elapsed);
  }
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s %s %s", label_.c_str(), head, suffix_.c_str());
  } else {
    std::fprintf(stderr, "%s %s %s\n", label_.c_str(), head, suffix_.c_str());
  }
  std::fflush(stderr);
}

}  // namespace graphopt
