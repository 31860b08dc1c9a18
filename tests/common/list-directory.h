// tests/common/list-directory.h
// The sorted entry names of a directory, for tests that check which files a
// tool left behind. Header-only, in namespace nnet3 (not nnet3::testing, so
// that tests using GoogleTest's ::testing inside namespace nnet3 can
// include it).
#ifndef NNET3_TESTS_COMMON_LIST_DIRECTORY_H_
#define NNET3_TESTS_COMMON_LIST_DIRECTORY_H_

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

namespace nnet3 {

// Names of the entries of "dir" (without . and ..), sorted; empty if it
// cannot be read.
inline std::vector<std::string> ListDirectory(const std::string &dir) {
  std::vector<std::string> names;
  DIR *d = opendir(dir.c_str());
  if (!d) return names;
  while (struct dirent *e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace nnet3

#endif  // NNET3_TESTS_COMMON_LIST_DIRECTORY_H_
