// tests/nnet3/analyze/checker-test.cc
// The ComputationChecker:
//  - accepts the computations the compiler produces for 300 random networks
//    and requests (forward only, with derivatives, with model update) and
//    for the Kaldi conformance models (those whose component types we
//    read), with check_rewrite off and on;
//  - rejects hand-built broken computations (read before write, use after
//    free, backprop before the marker, a matrix allocated twice, a
//    dimension mismatch in kMatrixCopy, an out-of-range kCopyRows index),
//    each with a message naming the command and the problem.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "nnet3/analyze/checker.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/testing/random-nnet.h"
#include "util/stream.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Cmd;

// Variant 0: forward only; 1: output derivatives (input derivatives as the
// generator chose); 2: everything, with model update.
void SetDerivatives(int32 variant, ComputationRequest *request) {
  if (variant == 0) {
    for (IoSpecification &io : request->inputs) io.has_deriv = false;
    for (IoSpecification &io : request->outputs) io.has_deriv = false;
    request->need_model_derivative = false;
  } else {
    for (IoSpecification &io : request->outputs) io.has_deriv = true;
    if (variant == 2) {
      for (IoSpecification &io : request->inputs) io.has_deriv = true;
      request->need_model_derivative = true;
    } else {
      request->need_model_derivative = false;
    }
  }
}

// Compiles and checks; returns an empty string or the failure. Adds the
// number of commands of each type to *type_counts (if given).
std::string CompileAndCheck(const Nnet &nnet,
                            const ComputationRequest &request,
                            std::map<CommandType, int32> *type_counts =
                                nullptr) {
  NnetComputation computation;
  CompileComputation(nnet, request, CompilerOptions(), &computation);
  if (type_counts)
    for (const Cmd &c : computation.commands) (*type_counts)[c.command_type]++;
  for (bool rewrite : {false, true}) {
    try {
      CheckComputation(nnet, computation, rewrite);
    } catch (const UserError &e) {
      std::ostringstream os;
      os << (rewrite ? "[check_rewrite] " : "") << e.what() << "\n";
      computation.Print(os, nnet);
      return os.str();
    }
  }
  return "";
}

TEST(ComputationChecker, AcceptsCompiledRandomComputations) {
  int32 num_checked[3] = {0, 0, 0};
  std::map<CommandType, int32> counts;
  for (int32 seed = 0; seed < 300; seed++) {
    RandomSource rng(7000 + seed);
    RandomNnetOptions opts;
    std::string description;
    std::string config = GenerateRandomNnetConfig(&rng, opts, &description);
    Nnet nnet = NnetFromConfigString(config);
    ComputationRequest request;
    std::vector<Matrix<BaseFloat> > inputs;
    GenerateRandomRequest(nnet, &rng, &request, &inputs);
    int32 variant = seed % 3;
    SetDerivatives(variant, &request);
    std::string failure = CompileAndCheck(nnet, request, &counts);
    ASSERT_EQ(failure, "") << "seed " << seed << " (" << description
                           << ")\n" << config;
    num_checked[variant]++;
  }
  EXPECT_EQ(num_checked[0] + num_checked[1] + num_checked[2], 300);
  // The three kinds of computation were all exercised.
  EXPECT_GT(counts[kBackprop], 100);
  EXPECT_GT(counts[kBackpropNoModelUpdate], 100);
  EXPECT_GT(counts[kAddRows] + counts[kAddRowRanges], 100);
}

std::vector<std::string> KaldiModels() {
  std::string dir = std::string(NNET3_TEST_DATA_DIR) + "/kaldi/models";
  std::vector<std::string> paths;
  DIR *d = opendir(dir.c_str());
  if (!d) return paths;
  while (dirent *e = readdir(d)) {
    std::string f = e->d_name;
    if (f.size() > 4 && f.substr(f.size() - 4) == ".raw")
      paths.push_back(dir + "/" + f);
  }
  closedir(d);
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Outputs on t in [0, 5), inputs on the window the context needs
// ("ivector" on t = 0 only). False if the context cannot be worked out.
bool ContextRequest(const Nnet &nnet, ComputationRequest *request) {
  int32 left = 0, right = 0;
  try {
    ComputeSimpleNnetContext(nnet, &left, &right);
  } catch (const UserError &) {
    return false;
  }
  *request = ComputationRequest();
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    const std::string &name = nnet.GetNodeName(n);
    if (nnet.IsInputNode(n)) {
      if (name == "ivector")
        request->inputs.push_back(IoSpecification(name, 0, 1));
      else
        request->inputs.push_back(IoSpecification(name, -left, 5 + right));
    } else if (nnet.IsOutputNode(n)) {
      request->outputs.push_back(IoSpecification(name, 0, 5));
    }
  }
  return true;
}

TEST(ComputationChecker, AcceptsCompiledKaldiModels) {
  int32 num_models = 0, num_checked = 0;
  for (const std::string &path : KaldiModels()) {
    Nnet nnet;
    try {
      ReadKaldiObject(path, &nnet);
    } catch (const UserError &) {
      continue;  // a component type we do not read
    }
    num_models++;
    RandomSource rng(17);
    ComputationRequest request;
    std::vector<Matrix<BaseFloat> > inputs;
    try {
      GenerateRandomRequest(nnet, &rng, &request, &inputs);
    } catch (const UserError &) {
      // The generator's naive evaluator refuses some models (batch-norm in
      // training mode, non-simple components); ask for a window from the
      // network's context instead.
      if (!ContextRequest(nnet, &request)) {
        std::cerr << "skipping " << path << " (no request)\n";
        continue;
      }
    }
    for (int32 variant = 0; variant < 3; variant++) {
      SetDerivatives(variant, &request);
      std::string failure = CompileAndCheck(nnet, request);
      ASSERT_EQ(failure, "") << path << " variant " << variant;
      num_checked++;
    }
  }
  // 11 of the models are readable at the time of writing.
  EXPECT_GE(num_models, 10);
  EXPECT_GE(num_checked, 3 * 10);
}

// ---------------------------------------------------------------------------
// Broken computations.

// input (10) -> affine (10 -> 20) -> tanh (20) -> output.
Nnet SmallNnet() {
  return NnetFromConfigString(
      "input-node name=input dim=10\n"
      "component name=affine type=AffineComponent input-dim=10 "
      "output-dim=20\n"
      "component-node name=affine component=affine input=input\n"
      "component name=tanh type=TanhComponent dim=20\n"
      "component-node name=tanh component=tanh input=affine\n"
      "output-node name=output input=tanh\n");
}

int32 NodeIndex(const Nnet &nnet, const std::string &name) {
  for (int32 n = 0; n < nnet.NumNodes(); n++)
    if (nnet.GetNodeName(n) == name) return n;
  return -1;
}

// m1 = input (4 x 10, s1), m2 = affine output (4 x 20, s2), m3 = tanh
// output (4 x 20, s3).
struct Fixture {
  Nnet nnet = SmallNnet();
  NnetComputation c;
  int32 input, output, affine, tanh;
  Fixture() {
    input = NodeIndex(nnet, "input");
    output = NodeIndex(nnet, "output");
    affine = nnet.GetComponentIndex("affine");
    tanh = nnet.GetComponentIndex("tanh");
    c.NewMatrix(4, 10);
    c.NewMatrix(4, 20);
    c.NewMatrix(4, 20);
  }
  // A valid forward computation: c0..c9.
  void Forward() {
    c.commands = {Cmd(kAllocMatrix, 2),                    // c0
                  Cmd(0.0, kSetConst, 2),                  // c1
                  Cmd(kAllocMatrix, 3),                    // c2
                  Cmd(0.0, kSetConst, 3),                  // c3
                  Cmd(kAcceptInput, 1, input),             // c4
                  Cmd(kPropagate, affine, 0, 1, 2, 0, 0),  // c5
                  Cmd(kPropagate, tanh, 0, 2, 3, 0, 0),    // c6
                  Cmd(kProvideOutput, 3, output),          // c7
                  Cmd(kNoOperationMarker),                 // c8
                  Cmd(kDeallocMatrix, 2)};                 // c9
  }
  // Expects Check() to fail with a message containing every piece.
  void ExpectError(const std::vector<std::string> &pieces,
                   bool check_rewrite = false) {
    CheckComputationOptions opts;
    opts.check_rewrite = check_rewrite;
    ComputationChecker checker(opts, nnet, c);
    try {
      checker.Check();
      std::ostringstream os;
      c.Print(os, nnet);
      ADD_FAILURE() << "no error for\n" << os.str();
    } catch (const UserError &e) {
      std::string what = e.what();
      for (const std::string &p : pieces)
        EXPECT_NE(what.find(p), std::string::npos)
            << "'" << p << "' not in: " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
};

TEST(ComputationChecker, AcceptsTheValidFixture) {
  Fixture f;
  f.Forward();
  CheckComputation(f.nnet, f.c, false);
  CheckComputation(f.nnet, f.c, true);
}

TEST(ComputationChecker, RejectsReadBeforeWrite) {
  Fixture f;
  f.Forward();
  // m2 allocated, never written, then read by the tanh propagate.
  f.c.commands = {Cmd(kAllocMatrix, 2),                  // c0
                  Cmd(kAllocMatrix, 3),                  // c1
                  Cmd(0.0, kSetConst, 3),                // c2
                  Cmd(kAcceptInput, 1, f.input),         // c3
                  Cmd(kPropagate, f.tanh, 0, 2, 3, 0, 0),  // c4
                  Cmd(kProvideOutput, 3, f.output),      // c5
                  Cmd(kNoOperationMarker),               // c6
                  Cmd(kDeallocMatrix, 2)};               // c7
  // m1 is accepted but never read: it is still "used" (written), so the
  // first failure is the read of m2.
  f.ExpectError({"command c4 (kPropagate)", "variable m2",
                 "read before it is written"});
}

TEST(ComputationChecker, RejectsUseAfterFree) {
  Fixture f;
  f.Forward();
  // Free m2 (c9 moves to c6) before the tanh propagate reads it.
  f.c.commands.insert(f.c.commands.begin() + 6, Cmd(kDeallocMatrix, 2));
  f.c.commands.pop_back();
  f.ExpectError({"command c7 (kPropagate)", "matrix m2",
                 "accessed after it is deallocated",
                 "c6 (kDeallocMatrix)"});
}

TEST(ComputationChecker, RejectsBackpropBeforeMarker) {
  Fixture f;
  f.Forward();
  f.c.NewMatrix(4, 20);  // m2 derivative, s4
  f.c.NewMatrix(4, 20);  // m3 derivative, s5
  // Zeroed m4 / m5, then a tanh backprop before the marker.
  std::vector<Cmd> extra = {Cmd(kAllocMatrix, 4), Cmd(0.0, kSetConst, 4),
                            Cmd(kAllocMatrix, 5), Cmd(0.0, kSetConst, 5),
                            Cmd(kBackpropNoModelUpdate, f.tanh, 0, 0, 3, 5,
                                4, 0)};
  // After c7 (kProvideOutput): c8..c12, then the marker at c13.
  f.c.commands.insert(f.c.commands.begin() + 8, extra.begin(), extra.end());
  f.c.commands.push_back(Cmd(kDeallocMatrix, 4));
  f.c.commands.push_back(Cmd(kDeallocMatrix, 5));
  f.ExpectError({"command c12 (kBackpropNoModelUpdate)",
                 "backprop before the kNoOperationMarker"});
  // The same computation with the backprop after the marker is fine.
  std::swap(f.c.commands[12], f.c.commands[13]);
  ASSERT_EQ(f.c.commands[12].command_type, kNoOperationMarker);
  CheckComputation(f.nnet, f.c, true);
}

TEST(ComputationChecker, RejectsMatrixAllocatedTwice) {
  Fixture f;
  f.Forward();
  f.c.commands.insert(f.c.commands.begin() + 2, Cmd(kAllocMatrix, 2));
  f.ExpectError({"command c2 (kAllocMatrix)", "matrix m2",
                 "allocated twice", "c0 (kAllocMatrix)"});
}

TEST(ComputationChecker, RejectsDimensionMismatchInMatrixCopy) {
  Fixture f;
  f.Forward();
  // m2 (4 x 20) = m1 (4 x 10).
  f.c.commands.insert(f.c.commands.begin() + 5, Cmd(kMatrixCopy, 2, 1));
  f.ExpectError({"command c5 (kMatrixCopy)", "dimension mismatch",
                 "submatrix 2", "submatrix 1"});
}

TEST(ComputationChecker, RejectsOutOfRangeCopyRowsIndex) {
  Fixture f;
  f.Forward();
  f.c.indexes.push_back({0, 1, 2, 7});  // m3 has only 4 rows
  f.c.commands.insert(f.c.commands.begin() + 7, Cmd(kCopyRows, 2, 3, 0));
  f.ExpectError({"command c7 (kCopyRows)", "row index 7",
                 "out of range"});
}

TEST(ComputationChecker, RejectsRewriteOnlyWhenAsked) {
  Fixture f;
  f.Forward();
  // Overwrite m2 after the tanh propagate has read it.
  f.c.commands.insert(f.c.commands.begin() + 7, Cmd(0.0, kSetConst, 2));
  CheckComputation(f.nnet, f.c, false);
  f.ExpectError({"command c7 (kSetConst)", "variable m2",
                 "written after being read", "c6 (kPropagate)"},
                true);
}

TEST(ComputationChecker, RejectsOtherMisuse) {
  {
    Fixture f;  // an output that is freed
    f.Forward();
    f.c.commands.push_back(Cmd(kDeallocMatrix, 3));
    f.ExpectError({"command c10 (kDeallocMatrix)", "matrix m3",
                   "is an output"});
  }
  {
    Fixture f;  // an input allocated with kAllocMatrix
    f.Forward();
    f.c.commands.insert(f.c.commands.begin(), Cmd(kAllocMatrix, 1));
    f.ExpectError({"command c0 (kAllocMatrix)", "matrix m1", "is an input"});
  }
  {
    Fixture f;  // propagate with the wrong input dimension
    f.Forward();
    f.c.commands[6].arg3 = 1;
    f.ExpectError({"command c6 (kPropagate)", "input submatrix 1",
                   "expected 20"});
  }
  {
    Fixture f;  // a matrix that is never allocated
    f.Forward();
    f.c.commands.erase(f.c.commands.begin() + 2);  // kAllocMatrix of m3
    f.ExpectError({"command c2 (kSetConst)", "matrix m3",
                   "never allocated"});
  }
  {
    Fixture f;  // kProvideOutput on a component node
    f.Forward();
    f.c.commands[7].arg2 = NodeIndex(f.nnet, "tanh");
    f.ExpectError({"command c7 (kProvideOutput)",
                   "neither an input nor an output"});
  }
}

}  // namespace
}  // namespace nnet3
