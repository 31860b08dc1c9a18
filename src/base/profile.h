// base/profile.h
// Where a run's time goes, by category (a command type and component, GEMM,
// natural gradient, compilation, I/O...). A Profiler is made active on the
// calling thread with ProfilerActivation; code marks its work with
// ProfileScope objects. Nested scopes are charged exclusively: a category's
// time is what it spent outside the scopes opened inside it, so the
// categories add up to the time covered by the outermost scopes. Without an
// active profiler a ProfileScope costs one thread-local load and a branch.
//
// Invariants: one Profiler is active per thread at a time (activations
// nest and restore the previous one); a scope must close on the thread that
// opened it (it does, being an automatic object); category names passed as
// const char* must live as long as the profiler (string literals).
#ifndef NNET3_BASE_PROFILE_H_
#define NNET3_BASE_PROFILE_H_

#include <chrono>
#include <cstring>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace nnet3 {

class Profiler {
 public:
  struct Entry {
    double seconds = 0.0;  // exclusive time
    long long calls = 0;
  };
  // Exclusive seconds and calls per category.
  const std::map<std::string, Entry> &Entries() const { return entries_; }
  double TotalSeconds() const;
  // A table sorted by time: category, calls, seconds, share of the total.
  void PrintTable(std::ostream &os, const std::string &title) const;
  void Clear() { entries_.clear(); }
  // A function called at every scope boundary before the clock is read
  // (nullptr: none). A GPU run passes the device synchronisation here, so
  // that each category is charged the device work it queued rather than
  // only the time the host spent launching it.
  void SetBoundarySync(void (*sync)()) { sync_ = sync; }

  // Used by ProfileScope.
  void Open(const char *category);
  void Open(const std::string &category);
  void Close();
  // The category of the innermost open scope when it was opened with a
  // literal, else nullptr.
  const char *InnermostLiteral() const {
    return stack_.empty() ? nullptr : stack_.back().literal;
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Frame {
    Entry *entry;
    const char *literal;  // the category as opened, if a literal
    Clock::time_point start;
    double child_seconds;
  };
  Entry *Lookup(const std::string &category);
  std::map<std::string, Entry> entries_;
  std::map<const char *, Entry *> by_literal_;
  std::vector<Frame> stack_;
  void (*sync_)() = nullptr;
};

// The category of the natural-gradient preconditioner's work.
inline constexpr char kProfileNaturalGradient[] = "natural gradient";

// The profiler active on this thread, or nullptr.
Profiler *ActiveProfiler();

// Makes "p" the active profiler of this thread for this object's lifetime.
class ProfilerActivation {
 public:
  explicit ProfilerActivation(Profiler *p);
  ~ProfilerActivation();
  ProfilerActivation(const ProfilerActivation &) = delete;
  ProfilerActivation &operator=(const ProfilerActivation &) = delete;

 private:
  Profiler *previous_;
};

// Charges the time until it is destroyed to "category" (see the file
// comment). The std::string form is for names built at run time.
class ProfileScope {
 public:
  explicit ProfileScope(const char *category) : p_(ActiveProfiler()) {
    if (p_) p_->Open(category);
  }
  explicit ProfileScope(const std::string &category) : p_(ActiveProfiler()) {
    if (p_) p_->Open(category);
  }
  // Charged to "nested" instead of "category" when the innermost open
  // scope is "parent" (same text): e.g. the GEMMs that the natural
  // gradient does, counted apart from the model's own.
  ProfileScope(const char *category, const char *parent, const char *nested)
      : p_(ActiveProfiler()) {
    if (!p_) return;
    const char *innermost = p_->InnermostLiteral();
    const bool inside =
        innermost != nullptr && std::strcmp(innermost, parent) == 0;
    p_->Open(inside ? nested : category);
  }
  ~ProfileScope() {
    if (p_) p_->Close();
  }
  ProfileScope(const ProfileScope &) = delete;
  ProfileScope &operator=(const ProfileScope &) = delete;

 private:
  Profiler *p_;
};

}  // namespace nnet3

#endif  // NNET3_BASE_PROFILE_H_
