// base/profile.cc
#include "base/profile.h"

#include <algorithm>
#include <cstdio>

namespace nnet3 {

namespace {
thread_local Profiler *active_profiler = nullptr;
}  // namespace

Profiler *ActiveProfiler() { return active_profiler; }

ProfilerActivation::ProfilerActivation(Profiler *p)
    : previous_(active_profiler) {
  active_profiler = p;
}

ProfilerActivation::~ProfilerActivation() { active_profiler = previous_; }

Profiler::Entry *Profiler::Lookup(const std::string &category) {
  return &entries_[category];  // std::map: stable addresses
}

void Profiler::Open(const char *category) {
  auto it = by_literal_.find(category);
  Entry *e;
  if (it == by_literal_.end()) {
    e = Lookup(category);
    by_literal_.emplace(category, e);
  } else {
    e = it->second;
  }
  if (sync_) sync_();
  stack_.push_back(Frame{e, category, Clock::now(), 0.0});
}

void Profiler::Open(const std::string &category) {
  if (sync_) sync_();
  stack_.push_back(Frame{Lookup(category), nullptr, Clock::now(), 0.0});
}

void Profiler::Close() {
  if (stack_.empty()) return;
  if (sync_) sync_();
  Frame f = stack_.back();
  stack_.pop_back();
  double elapsed =
      std::chrono::duration<double>(Clock::now() - f.start).count();
  f.entry->seconds += elapsed - f.child_seconds;
  f.entry->calls++;
  if (!stack_.empty()) stack_.back().child_seconds += elapsed;
}

double Profiler::TotalSeconds() const {
  double total = 0.0;
  for (const auto &e : entries_) total += e.second.seconds;
  return total;
}

void Profiler::PrintTable(std::ostream &os, const std::string &title) const {
  std::vector<std::pair<std::string, Entry>> rows(entries_.begin(),
                                                  entries_.end());
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.seconds > b.second.seconds;
  });
  const double total = TotalSeconds();
  size_t width = 8;
  for (const auto &r : rows) width = std::max(width, r.first.size());
  char line[512];
  os << title << "\n";
  std::snprintf(line, sizeof(line), "  %-*s %10s %10s %7s\n",
                static_cast<int>(width), "category", "calls", "seconds", "share");
  os << line;
  for (const auto &r : rows) {
    std::snprintf(line, sizeof(line), "  %-*s %10lld %10.4f %6.1f%%\n",
                  static_cast<int>(width), r.first.c_str(), r.second.calls,
                  r.second.seconds,
                  total > 0 ? 100.0 * r.second.seconds / total : 0.0);
    os << line;
  }
  std::snprintf(line, sizeof(line), "  %-*s %10s %10.4f %6.1f%%\n",
                static_cast<int>(width), "total", "", total, 100.0);
  os << line;
}

}  // namespace nnet3
