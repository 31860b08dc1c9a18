// tests/tree/tree-test-util.h
// Hand-made Kaldi bytes for the tree and hmm tests: tokens and integers as
// Kaldi's binary writer lays them out, and a small triphone tree written
// out by hand (not by the code under test) in binary and text form.
//
// The tree (N=3, P=1; key 1 = central phone, key 0 = left phone, key -1 =
// pdf-class):
//   central phone 1: pdf-class 0 -> pdf 0, any other pdf-class -> pdf 1;
//   central phone 2: pdf-class 0 -> pdf 2 after left phone 1, else pdf 3;
//                    pdf-class 1 -> pdf 4; other pdf-classes: no answer;
//   central phone 0 (or above 2): no answer.
#ifndef NNET3_TESTS_TREE_TREE_TEST_UTIL_H_
#define NNET3_TESTS_TREE_TREE_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace nnet3 {
namespace testing {

inline std::string Tok(const std::string &t) { return t + " "; }
inline std::string I32(int32_t v) {
  char b[5] = {4};
  std::memcpy(b + 1, &v, 4);
  return std::string(b, 5);
}
inline std::string U32(uint32_t v) {
  char b[5] = {static_cast<char>(-4)};
  std::memcpy(b + 1, &v, 4);
  return std::string(b, 5);
}
inline std::string F32(float v) {
  char b[5] = {4};
  std::memcpy(b + 1, &v, 4);
  return std::string(b, 5);
}
inline std::string IntVec(const std::vector<int32_t> &v) {
  std::string s = I32(static_cast<int32_t>(v.size()));
  for (int32_t x : v) s.append(reinterpret_cast<const char *>(&x), 4);
  return s;
}

// The triphone tree above, binary (with the "\0B" header).
inline std::string TriphoneTreeBinary() {
  return std::string("\0B", 2) + Tok("ContextDependency") + I32(3) + I32(1) +
         Tok("ToPdf") + Tok("TE") + I32(1) + U32(3) + Tok("(") +
         Tok("NULL") +
         Tok("SE") + I32(-1) + IntVec({0}) + Tok("{") + Tok("CE") + I32(0) +
         Tok("CE") + I32(1) + Tok("}") +
         Tok("TE") + I32(-1) + U32(2) + Tok("(") +
         Tok("SE") + I32(0) + IntVec({1}) + Tok("{") + Tok("CE") + I32(2) +
         Tok("CE") + I32(3) + Tok("}") + Tok("CE") + I32(4) + Tok(")") +
         Tok(")") + Tok("EndContextDependency");
}

// The same tree in Kaldi's text form.
inline std::string TriphoneTreeText() {
  return "ContextDependency 3 1 ToPdf TE 1 3 ( NULL SE -1 [ 0 ]\n"
         "{ CE 0 CE 1 } \n"
         "TE -1 2 ( SE 0 [ 1 ]\n"
         "{ CE 2 CE 3 } \n"
         "CE 4 ) \n"
         ") \n"
         "EndContextDependency ";
}

// The tree's answer computed directly from its description (-1: none).
inline int NaiveTriphonePdf(int left, int central, int pdf_class) {
  if (central == 1) return pdf_class == 0 ? 0 : 1;
  if (central == 2) {
    if (pdf_class == 0) return left == 1 ? 2 : 3;
    if (pdf_class == 1) return 4;
  }
  return -1;
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_TREE_TREE_TEST_UTIL_H_
