// tests/fuzz/fuzz-common.cc
#include "fuzz/fuzz-common.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <stdexcept>
#include <typeinfo>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {
namespace fuzz {
namespace {

std::string *scratch_dir = nullptr;

void RemoveScratchDir() {
  if (scratch_dir == nullptr) return;
  if (DIR *dir = opendir(scratch_dir->c_str())) {
    while (struct dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        unlink((*scratch_dir + "/" + name).c_str());
    }
    closedir(dir);
  }
  rmdir(scratch_dir->c_str());
}

}  // namespace

void Init() {
  if (scratch_dir != nullptr) return;
  SetLogHandler([](int, const std::string &) {});
  if (std::getenv("NNET3_MAX_DECLARED_BYTES") == nullptr)
    SetMaxDeclaredBytes(int64(256) << 20);
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    if (null_fd != 0) close(null_fd);
  }
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") +
                        "/nnet3-fuzz-XXXXXX";
  if (mkdtemp(&pattern[0]) == nullptr) {
    std::perror("fuzz: cannot create a scratch folder");
    std::abort();
  }
  scratch_dir = new std::string(pattern);
  std::atexit(RemoveScratchDir);
}

const std::string &ScratchDir() {
  Init();
  return *scratch_dir;
}

std::string WriteScratchFile(const std::string &name,
                             const std::string &contents) {
  std::string path = ScratchDir() + "/" + name;
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  os.close();
  if (!os) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

void Guarded(const char *target, const std::function<void()> &body,
             bool sizes_from_input) {
  Init();
  static const bool verbose = std::getenv("NNET3_FUZZ_VERBOSE") != nullptr;
  try {
    body();
    if (verbose) std::fprintf(stderr, "%s: accepted\n", target);
  } catch (const UserError &e) {
    if (verbose) std::fprintf(stderr, "%s: %s\n", target, e.what());
  } catch (const std::bad_alloc &) {
    if (!sizes_from_input)
      Fail(target, "std::bad_alloc: a size read from the input was not "
                   "checked before allocating");
    if (verbose) std::fprintf(stderr, "%s: std::bad_alloc\n", target);
  } catch (const std::length_error &e) {
    if (!sizes_from_input)
      Fail(target, std::string("std::length_error: ") + e.what());
    if (verbose) std::fprintf(stderr, "%s: %s\n", target, e.what());
  } catch (const InternalError &e) {
    Fail(target, std::string("internal error on fuzzed input: ") + e.what());
  } catch (const std::exception &e) {
    Fail(target, std::string("unexpected ") + typeid(e).name() + ": " +
                     e.what());
  } catch (...) {
    Fail(target, "unknown exception");
  }
  SetVerboseLevel(0);
}

void Fail(const char *target, const std::string &what) {
  std::fprintf(stderr, "FUZZ FAILURE (%s): %s\n", target, what.c_str());
  std::fflush(stderr);
  std::abort();
}

ScopedQuiet::ScopedQuiet() {
  Init();
  old_cwd_fd_ = open(".", O_RDONLY | O_DIRECTORY);
  if (old_cwd_fd_ < 0 || chdir(scratch_dir->c_str()) != 0) {
    std::perror("fuzz: cannot enter the scratch folder");
    std::abort();
  }
  old_cerr_ = std::cerr.rdbuf(nullptr);
}

ScopedQuiet::~ScopedQuiet() {
  std::cerr.rdbuf(old_cerr_);
  std::cerr.clear();
  if (fchdir(old_cwd_fd_) != 0) {
    std::perror("fuzz: cannot return to the working folder");
    std::abort();
  }
  close(old_cwd_fd_);
}

}  // namespace fuzz
}  // namespace nnet3
