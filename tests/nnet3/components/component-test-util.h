// tests/nnet3/components/component-test-util.h
// Checks shared by the component family tests, each against an oracle that
// does not use the code under test: derivatives against central finite
// differences of a random linear objective sum(out .* R); the declared
// property flags (in-place, adds) against what Propagate/Backprop do; I/O
// round trips compared byte for byte; and the component spans of Kaldi's
// reference text files (tests/data/kaldi/models/*.txt) read and written
// back byte-identically.
#ifndef NNET3_TESTS_NNET3_COMPONENTS_COMPONENT_TEST_UTIL_H_
#define NNET3_TESTS_NNET3_COMPONENTS_COMPONENT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cudamatrix/cu-matrix.h"
#include "nnet3/components/component.h"

namespace nnet3 {
namespace testing {

// A component of a registered type initialized from a config line (the
// line must parse).
inline std::unique_ptr<Component> FromConfig(const std::string &type,
                                             const std::string &line) {
  std::unique_ptr<Component> ans(Component::NewComponentOfType(type));
  EXPECT_TRUE(ans != nullptr) << type;
  ConfigLine cfl;
  std::string error;
  EXPECT_TRUE(cfl.ParseLine(line, &error)) << error;
  if (ans) ans->InitFromConfig(&cfl);
  return ans;
}

// The error message of initializing a component from a bad config line
// ("" if it was accepted).
inline std::string ConfigError(const std::string &type,
                               const std::string &line) {
  std::unique_ptr<Component> c(Component::NewComponentOfType(type));
  ConfigLine cfl;
  EXPECT_TRUE(cfl.ParseLine(line));
  try {
    c->InitFromConfig(&cfl);
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

// Matrices for components are made contiguous (stride == num-cols), as
// components with kInputContiguous/kOutputContiguous require. The working
// matrices are Cu matrices (what components take); the oracles read them
// through their host views.
inline CuMatrix<BaseFloat> NewMat(int32 rows, int32 cols) {
  return CuMatrix<BaseFloat>(rows, cols, kSetZero, kStrideEqualNumCols);
}
inline CuMatrix<BaseFloat> Contig(const CuMatrixBase<BaseFloat> &m) {
  CuMatrix<BaseFloat> ans = NewMat(m.NumRows(), m.NumCols());
  ans.CopyFromMat(m);
  return ans;
}
inline CuMatrix<BaseFloat> Contig(const MatrixBase<BaseFloat> &m) {
  CuMatrix<BaseFloat> ans = NewMat(m.NumRows(), m.NumCols());
  ans.CopyFromMat(m);
  return ans;
}
inline CuMatrix<BaseFloat> RandMat(int32 rows, int32 cols, RandomSource *rs) {
  CuMatrix<BaseFloat> m = NewMat(rows, cols);
  m.SetRandn(rs);
  return m;
}

// sum_ij a_ij b_ij, in double.
inline double MatDot(const MatrixBase<BaseFloat> &a,
                     const MatrixBase<BaseFloat> &b) {
  EXPECT_TRUE(SameDim(a, b));
  double s = 0.0;
  for (int32 i = 0; i < a.NumRows(); i++)
    for (int32 j = 0; j < a.NumCols(); j++) s += double(a(i, j)) * b(i, j);
  return s;
}
inline double MatDot(const CuMatrixBase<BaseFloat> &a,
                     const CuMatrixBase<BaseFloat> &b) {
  return MatDot(a.Mat(), b.Mat());
}

// Output of c on input 'in' (out starts at zero, so kPropagateAdds
// components give their plain output).
inline CuMatrix<BaseFloat> Forward(const Component &c,
                                   const CuMatrixBase<BaseFloat> &in) {
  CuMatrix<BaseFloat> out = NewMat(in.NumRows(), c.OutputDim());
  void *memo = c.Propagate(nullptr, in, &out);
  c.DeleteMemo(memo);
  return out;
}
inline CuMatrix<BaseFloat> Forward(const Component &c,
                                   const MatrixBase<BaseFloat> &in) {
  return Forward(c, Contig(in));
}

// Checks Backprop's input derivative and parameter gradient against
// central differences of f = sum(out .* R).
inline void CheckDerivatives(const Component &c, int32 num_rows,
                             RandomSource *rs, double tol = 2e-3) {
  CuMatrix<BaseFloat> in = RandMat(num_rows, c.InputDim(), rs);
  CuMatrix<BaseFloat> out = NewMat(num_rows, c.OutputDim());
  // Keep the memo (kUsesMemo components pass state to Backprop).
  void *memo = c.Propagate(nullptr, in, &out);
  CuMatrix<BaseFloat> out_deriv = RandMat(num_rows, c.OutputDim(), rs);
  int32 props = c.Properties();
  CuMatrix<BaseFloat> in_deriv = NewMat(num_rows, c.InputDim());
  CuMatrix<BaseFloat> empty;
  std::unique_ptr<Component> grad;
  if (props & kUpdatableComponent) {
    grad.reset(c.Copy());
    UpdatableComponent *u = dynamic_cast<UpdatableComponent *>(grad.get());
    ASSERT_TRUE(u != nullptr);
    u->Scale(0.0);
    u->SetAsGradient();
  }
  c.Backprop("test", nullptr,
             (props & kBackpropNeedsInput) ? in : empty,
             (props & kBackpropNeedsOutput) ? out : empty, out_deriv,
             memo, grad.get(), &in_deriv);
  c.DeleteMemo(memo);

  auto objf = [&](const Component &comp, const CuMatrixBase<BaseFloat> &x) {
    CuMatrix<BaseFloat> y = Forward(comp, x);
    return MatDot(y, out_deriv);
  };
  // Input derivative along a few random directions.
  const BaseFloat eps = 1e-2;
  for (int32 t = 0; t < 3; t++) {
    CuMatrix<BaseFloat> dir = RandMat(num_rows, c.InputDim(), rs);
    CuMatrix<BaseFloat> plus = Contig(in), minus = Contig(in);
    plus.AddMat(eps, dir);
    minus.AddMat(-eps, dir);
    double numeric = (objf(c, plus) - objf(c, minus)) / (2 * eps);
    double analytic = MatDot(in_deriv, dir);
    EXPECT_NEAR(numeric, analytic, tol * (1.0 + std::fabs(numeric)))
        << c.Type() << " input derivative";
  }
  if (!grad) return;
  // Parameter gradient along random directions in parameter space.
  const UpdatableComponent &uc = dynamic_cast<const UpdatableComponent &>(c);
  const UpdatableComponent &ug =
      dynamic_cast<const UpdatableComponent &>(*grad);
  int32 n = uc.NumParameters();
  Vector<BaseFloat> params(n), grad_params(n);
  uc.Vectorize(&params);
  ug.Vectorize(&grad_params);
  for (int32 t = 0; t < 3; t++) {
    Vector<BaseFloat> dir(n);
    dir.SetRandn(rs);
    std::unique_ptr<Component> cp(c.Copy()), cm(c.Copy());
    Vector<BaseFloat> p(params), m(params);
    p.AddVec(eps, dir);
    m.AddVec(-eps, dir);
    dynamic_cast<UpdatableComponent *>(cp.get())->UnVectorize(p);
    dynamic_cast<UpdatableComponent *>(cm.get())->UnVectorize(m);
    double numeric = (objf(*cp, in) - objf(*cm, in)) / (2 * eps);
    double analytic = 0.0;
    for (int32 i = 0; i < n; i++) analytic += double(grad_params(i)) * dir(i);
    EXPECT_NEAR(numeric, analytic, tol * (1.0 + std::fabs(numeric)))
        << c.Type() << " parameter gradient";
  }
}

// Checks kPropagateInPlace, kPropagateAdds, kBackpropInPlace and
// kBackpropAdds against what the component does.
inline void CheckPropertyFlags(const Component &c, int32 num_rows,
                               RandomSource *rs) {
  int32 props = c.Properties();
  CuMatrix<BaseFloat> in = RandMat(num_rows, c.InputDim(), rs);
  CuMatrix<BaseFloat> ref = Forward(c, in);
  // Propagate onto a non-zero output.
  CuMatrix<BaseFloat> init = RandMat(num_rows, c.OutputDim(), rs);
  CuMatrix<BaseFloat> out = Contig(init);
  c.DeleteMemo(c.Propagate(nullptr, in, &out));
  CuMatrix<BaseFloat> expected(ref);
  if (props & kPropagateAdds) expected.AddMat(1.0, init);
  EXPECT_TRUE(out.ApproxEqual(expected, 1e-5)) << c.Type() << " adds flag";
  if ((props & kPropagateInPlace) && !(props & kPropagateAdds)) {
    CuMatrix<BaseFloat> inplace = Contig(in);
    c.DeleteMemo(c.Propagate(nullptr, inplace, &inplace));
    EXPECT_TRUE(inplace.ApproxEqual(ref, 1e-5)) << c.Type() << " in place";
  }
  // Backprop onto a non-zero in_deriv.
  CuMatrix<BaseFloat> out_deriv = RandMat(num_rows, c.OutputDim(), rs);
  CuMatrix<BaseFloat> empty;
  const CuMatrixBase<BaseFloat> &iv = (props & kBackpropNeedsInput) ? in : empty;
  const CuMatrixBase<BaseFloat> &ov = (props & kBackpropNeedsOutput) ? ref : empty;
  // A fresh memo for each Backprop (kUsesMemo components).
  auto new_memo = [&]() {
    CuMatrix<BaseFloat> tmp = NewMat(num_rows, c.OutputDim());
    return c.Propagate(nullptr, in, &tmp);
  };
  CuMatrix<BaseFloat> zero_start = NewMat(num_rows, c.InputDim());
  void *memo = new_memo();
  c.Backprop("test", nullptr, iv, ov, out_deriv, memo, nullptr, &zero_start);
  c.DeleteMemo(memo);
  CuMatrix<BaseFloat> deriv_init = RandMat(num_rows, c.InputDim(), rs);
  CuMatrix<BaseFloat> deriv = Contig(deriv_init);
  memo = new_memo();
  c.Backprop("test", nullptr, iv, ov, out_deriv, memo, nullptr, &deriv);
  c.DeleteMemo(memo);
  CuMatrix<BaseFloat> expected_deriv(zero_start);
  if (props & kBackpropAdds) expected_deriv.AddMat(1.0, deriv_init);
  EXPECT_TRUE(deriv.ApproxEqual(expected_deriv, 1e-5))
      << c.Type() << " backprop adds flag";
  if (props & kBackpropInPlace) {
    ASSERT_EQ(c.InputDim(), c.OutputDim());
    CuMatrix<BaseFloat> d = Contig(out_deriv);
    memo = new_memo();
    c.Backprop("test", nullptr, iv, ov, d, memo, nullptr, &d);
    c.DeleteMemo(memo);
    EXPECT_TRUE(d.ApproxEqual(zero_start, 1e-5)) << c.Type() << " in place";
  }
}

// Empty if equal, else where the strings first differ, with context.
inline std::string FirstDifference(const std::string &a, const std::string &b) {
  if (a == b) return "";
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) i++;
  size_t from = i < 40 ? 0 : i - 40;
  return "differ at byte " + std::to_string(i) + ": got \"" +
         a.substr(from, 80) + "\" expected \"" + b.substr(from, 80) + "\"";
}

// Written as Kaldi's Output streams write (text precision 7).
inline std::string WriteToString(const Component &c, bool binary) {
  std::ostringstream os;
  os.precision(7);
  c.Write(os, binary);
  return os.str();
}

// Write, read into a fresh component (made by 'factory'), write again:
// the bytes must be the same, in text and binary, and reading must work
// with and without the opening tag already consumed.
inline void CheckIoRoundTrip(const Component &c,
                             const std::function<Component *()> &factory) {
  for (int b = 0; b < 2; b++) {
    bool binary = (b == 1);
    std::string s = WriteToString(c, binary);
    std::unique_ptr<Component> c2(factory());
    std::istringstream is(s);
    c2->Read(is, binary);
    EXPECT_EQ(FirstDifference(WriteToString(*c2, binary), s), "")
        << c.Type() << " binary=" << b;
    // With the opening tag consumed first (as ReadNew does).
    std::unique_ptr<Component> c3(factory());
    std::istringstream is3(s);
    std::string tok;
    ReadToken(is3, binary, &tok);
    EXPECT_EQ(tok, "<" + c.Type() + ">");
    c3->Read(is3, binary);
    EXPECT_EQ(FirstDifference(WriteToString(*c3, binary), s), "")
        << c.Type() << " binary=" << b;
  }
}

inline std::string ModelsDir() {
  return std::string(NNET3_TEST_DATA_DIR) + "/kaldi/models/";
}

// The text spans "<Type> ... </Type> " of every component of this type in
// Kaldi's reference text models.
inline std::vector<std::string> ReferenceSpans(const std::string &type) {
  static const char *kFiles[] = {
      "components_a", "components_b", "components_c", "descriptors",
      "rnn", "seed", "tdnn", "tdnn_real", "rand002", "rand003", "rand004",
      "rand005", "rand006", "rand007", "rand008", "rand009", "rand010",
      "rand011", "rand012", "rand013", "rand014", "rand015", "rand016",
      "rand017", "rand018", "rand019", "rand020", "rand021"};
  std::vector<std::string> spans;
  std::string open = "<" + type + "> ", close = "</" + type + "> ";
  for (const char *f : kFiles) {
    std::ifstream is(ModelsDir() + f + ".txt", std::ios::binary);
    if (!is) continue;
    std::stringstream ss;
    ss << is.rdbuf();
    std::string text = ss.str();
    size_t pos = 0;
    while ((pos = text.find(open, pos)) != std::string::npos) {
      size_t end = text.find(close, pos);
      if (end == std::string::npos) break;
      spans.push_back(text.substr(pos, end + close.size() - pos));
      pos = end;
    }
  }
  return spans;
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_NNET3_COMPONENTS_COMPONENT_TEST_UTIL_H_
