// tests/hmm/hmm-test-util.h
// A hand-written topology for the hmm tests, matching the triphone tree of
// tests/tree/tree-test-util.h: phones 1 and 2 share one entry of three
// states, 0 and 1 emitting (pdf-classes 0 and 1), each with a self-loop and
// a forward transition of probability 0.5; state 2 is final. With that tree
// the transition model has the tuples (phone, state, pdf), sorted:
//   ts1 (1,0,0)  ts2 (1,1,1)  ts3 (2,0,2)  ts4 (2,0,3)  ts5 (2,1,4)
// and transition-ids 2s-1 (self-loop) and 2s (forward; final for states
// of HMM state 1) for transition-state s.
#ifndef NNET3_TESTS_HMM_HMM_TEST_UTIL_H_
#define NNET3_TESTS_HMM_HMM_TEST_UTIL_H_

#include <cmath>
#include <sstream>
#include <string>

#include "base/io.h"
#include "tree/tree-test-util.h"

namespace nnet3 {
namespace testing {

// One emitting state n of the test topology (pdf-class n, a self-loop and
// a transition to state n + 1, both 0.5) in text form; "sep" follows every
// token and number.
inline std::string EmittingState(int n, const std::string &sep) {
  std::string s = std::to_string(n), next = std::to_string(n + 1);
  return "<State>" + sep + s + sep + "<PdfClass>" + sep + s + sep +
         "<Transition>" + sep + s + sep + "0.5" + sep + "<Transition>" + sep +
         next + sep + "0.5" + sep + "</State>" + sep;
}

inline std::string TopoText() {
  return "<Topology>\n<TopologyEntry>\n<ForPhones>\n1 2\n</ForPhones>\n" +
         EmittingState(0, " ") + "\n" + EmittingState(1, " ") + "\n" +
         "<State> 2 </State>\n</TopologyEntry>\n</Topology>\n";
}

// The binary form of TopoText() without the "\0B" header.
inline std::string TopoBinary() {
  return Tok("<Topology>") + IntVec({1, 2}) + IntVec({-1, 0, 0}) + I32(1) +
         I32(3) + I32(0) + I32(2) + I32(0) + F32(0.5) + I32(1) + F32(0.5) +
         I32(1) + I32(2) + I32(1) + F32(0.5) + I32(2) + F32(0.5) + I32(-1) +
         I32(0) + Tok("</Topology>");
}

// The transition model of TopoText() under the triphone tree, binary,
// without the header: all probabilities 0.5.
inline std::string TransitionModelBinary() {
  std::string s = Tok("<TransitionModel>") + TopoBinary() + Tok("<Triples>") +
                  I32(5);
  int tuples[5][3] = {{1, 0, 0}, {1, 1, 1}, {2, 0, 2}, {2, 0, 3}, {2, 1, 4}};
  for (auto &t : tuples) s += I32(t[0]) + I32(t[1]) + I32(t[2]);
  s += Tok("</Triples>") + Tok("<LogProbs>") + Tok("FV") + I32(11);
  float log_probs[11];
  log_probs[0] = 0.0f;
  for (int i = 1; i < 11; i++) log_probs[i] = std::log(0.5f);
  s.append(reinterpret_cast<const char *>(log_probs), sizeof(log_probs));
  return s + Tok("</LogProbs>") + Tok("</TransitionModel>");
}

template <class C>
std::string Serialize(const C &c, bool binary) {
  std::ostringstream os;
  InitKaldiOutputStream(os, binary);
  c.Write(os, binary);
  return os.str();
}

// Reads with the header if the bytes have one ("\0B"), else as text.
template <class C>
void Deserialize(const std::string &bytes, C *c) {
  std::istringstream is(bytes);
  bool binary;
  if (!InitKaldiInputStream(is, &binary)) throw UserError("bad header", "bad header");
  c->Read(is, binary);
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_HMM_HMM_TEST_UTIL_H_
