// tests/cli/compute-cli-fixture.h
// The fixture shared by the CLI tests of nnet3-compute and
// nnet3-compute-batch: a temporary directory to run tools in, files written
// into it, a deterministic text feature archive, and archives read back.
#ifndef NNET3_TESTS_CLI_COMPUTE_CLI_FIXTURE_H_
#define NNET3_TESTS_CLI_COMPUTE_CLI_FIXTURE_H_

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/testing.h"
#include "matrix/table-types.h"
#include "util/table.h"

namespace nnet3 {
namespace testing {

typedef std::vector<std::pair<std::string, Matrix<BaseFloat> > > Archive;

class ComputeToolCli : public ::testing::Test {
 protected:
  CommandResult Run(const std::string &cmd) {
    return RunCommand(cmd, dir_.path());
  }
  void Write(const std::string &name, const std::string &text) {
    WriteFile(dir_.File(name), text);
  }
  // A text archive of utterances "utt0", "utt1", ... with the given lengths
  // and dimension.
  std::string Features(const std::vector<int> &lengths, int dim) {
    std::ostringstream os;
    for (size_t u = 0; u < lengths.size(); u++) {
      os << "utt" << u << "  [";
      for (int t = 0; t < lengths[u]; t++) {
        os << "\n ";
        for (int d = 0; d < dim; d++)
          os << " " << std::sin(0.7 * t + 1.3 * d + u);
      }
      os << " ]\n";
    }
    return os.str();
  }
  // Every (key, matrix) of the archive file "name" (text or binary).
  Archive ReadArchive(const std::string &name) {
    Archive out;
    SequentialBaseFloatMatrixReader reader("ark:" + dir_.File(name));
    for (; !reader.Done(); reader.Next())
      out.push_back(std::make_pair(reader.Key(), reader.Value()));
    return out;
  }
  TempDir dir_;
};

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_CLI_COMPUTE_CLI_FIXTURE_H_
