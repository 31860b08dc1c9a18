// tests/fuzz/replay-main.cc
// The main() of the replay drivers: runs a fuzz target's
// LLVMFuzzerTestOneInput over stored inputs without libFuzzer, so that the
// normal build (any compiler) re-checks every input that ever failed and
// every seed. Arguments are files or folders (searched recursively, files
// taken in name order). It prints how many inputs ran and exits 0; a
// failing input aborts (fuzz-common.h) or trips a sanitizer, and the name
// of the input being run was printed just before.
//   fuzz-table-replay tests/data/fuzz/table
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz-common.h"

namespace {

void CollectFiles(const std::string &path, std::vector<std::string> *files) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "replay: cannot open %s\n", path.c_str());
    std::exit(1);
  }
  if (!S_ISDIR(st.st_mode)) {
    files->push_back(path);
    return;
  }
  DIR *dir = opendir(path.c_str());
  if (dir == nullptr) {
    std::fprintf(stderr, "replay: cannot list %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<std::string> names;
  while (struct dirent *entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) CollectFiles(path + "/" + name, files);
}

}  // namespace

int main(int argc, char *argv[]) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <input-file-or-folder>...\n", argv[0]);
    return 1;
  }
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) CollectFiles(argv[i], &files);
  for (const std::string &file : files) {
    std::ifstream is(file, std::ios::binary);
    std::ostringstream contents;
    contents << is.rdbuf();
    if (!is) {
      std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
      return 1;
    }
    std::string data = contents.str();
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(),
                 data.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(data.data()),
                           data.size());
  }
  std::fprintf(stderr, "replay: %zu inputs ran without a failure\n",
               files.size());
  return 0;
}
