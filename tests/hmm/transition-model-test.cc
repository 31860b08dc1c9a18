// tests/hmm/transition-model-test.cc
// TransitionModel: built from the hand-written triphone tree and topology,
// its numbering and mappings against the tuples derived by hand (see
// hmm-test-util.h), its bytes against hand-derived bytes, the <Tuples>
// form, the maximum-likelihood update against the formula evaluated
// directly, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/log.h"
#include "hmm/hmm-test-util.h"
#include "hmm/transition-model.h"
#include "tree/context-dep.h"

namespace nnet3 {
namespace testing {
namespace {

TransitionModel TriphoneModel() {
  ContextDependency tree;
  Deserialize(TriphoneTreeBinary(), &tree);
  HmmTopology topo;
  Deserialize(TopoText(), &topo);
  return TransitionModel(tree, topo);
}

TEST(TransitionModel, NumberingFollowsTheSortedTuples) {
  TransitionModel tm = TriphoneModel();
  EXPECT_EQ(tm.NumTransitionStates(), 5);
  EXPECT_EQ(tm.NumTransitionIds(), 10);
  EXPECT_EQ(tm.NumPdfs(), 5);
  EXPECT_EQ(tm.NumPhones(), 2);
  int tuples[5][3] = {{1, 0, 0}, {1, 1, 1}, {2, 0, 2}, {2, 0, 3}, {2, 1, 4}};
  for (int s = 1; s <= 5; s++) {
    const int *t = tuples[s - 1];
    EXPECT_EQ(tm.TupleToTransitionState(t[0], t[1], t[2], t[2]), s);
    for (int index = 0; index < 2; index++) {
      int tid = 2 * s - 1 + index;
      EXPECT_EQ(tm.PairToTransitionId(s, index), tid);
      EXPECT_EQ(tm.TransitionIdToTransitionState(tid), s);
      EXPECT_EQ(tm.TransitionIdToTransitionIndex(tid), index);
      EXPECT_EQ(tm.TransitionIdToPhone(tid), t[0]);
      EXPECT_EQ(tm.TransitionIdToHmmState(tid), t[1]);
      EXPECT_EQ(tm.TransitionIdToPdf(tid), t[2]);
      EXPECT_EQ(tm.TransitionIdToPdfClass(tid), t[1]);
      EXPECT_EQ(tm.IsSelfLoop(tid), index == 0);
      EXPECT_EQ(tm.IsFinal(tid), index == 1 && t[1] == 1);
      EXPECT_FLOAT_EQ(tm.GetTransitionProb(tid), 0.5);
    }
    EXPECT_EQ(tm.SelfLoopOf(s), 2 * s - 1);
  }
  EXPECT_EQ(tm.TupleToTransitionState(1, 0, 1, 1), 0);
  EXPECT_THROW(tm.TransitionIdToPdf(0), UserError);
  EXPECT_THROW(tm.TransitionIdToPdf(11), UserError);
  EXPECT_THROW(tm.TransitionStateToPhone(6), UserError);
}

TEST(TransitionModel, BytesAgreeWithHandDerivedBytes) {
  TransitionModel tm = TriphoneModel();
  std::string binary = std::string("\0B", 2) + TransitionModelBinary();
  EXPECT_EQ(Serialize(tm, true), binary);
  TransitionModel back;
  Deserialize(binary, &back);
  EXPECT_TRUE(back.Compatible(tm));
  EXPECT_EQ(Serialize(back, true), binary);
  TransitionModel from_text;
  Deserialize(Serialize(tm, false), &from_text);
  EXPECT_EQ(Serialize(from_text, false), Serialize(tm, false));
  EXPECT_NE(Serialize(tm, false).find("<Triples> 5 \n1 0 0 \n1 1 1 \n"),
            std::string::npos);
}

TEST(TransitionModel, TuplesWithSelfLoopPdfs) {
  std::string text =
      "<TransitionModel>\n<Topology>\n<TopologyEntry>\n<ForPhones>\n1\n"
      "</ForPhones>\n<State> 0 <ForwardPdfClass> 0 <SelfLoopPdfClass> 1 "
      "<Transition> 0 0.25 <Transition> 1 0.75 </State>\n<State> 1 </State>\n"
      "</TopologyEntry>\n</Topology>\n<Tuples> 1\n1 0 0 1\n</Tuples>\n"
      "<LogProbs>\n [ 0 -1.386294 -0.2876821 ]\n</LogProbs>\n"
      "</TransitionModel>\n";
  TransitionModel tm;
  Deserialize(text, &tm);
  EXPECT_FALSE(tm.IsHmm());
  EXPECT_EQ(tm.NumPdfs(), 2);
  EXPECT_EQ(tm.TransitionIdToPdf(1), 1);  // the self-loop
  EXPECT_EQ(tm.TransitionIdToPdf(2), 0);  // the forward transition
  EXPECT_TRUE(tm.IsFinal(2));
  std::string binary = Serialize(tm, true);
  EXPECT_NE(binary.find(Tok("<Tuples>") + I32(1) + I32(1) + I32(0) + I32(0) +
                        I32(1) + Tok("</Tuples>")),
            std::string::npos);
  TransitionModel back;
  Deserialize(binary, &back);
  EXPECT_TRUE(back.Compatible(tm));
  EXPECT_EQ(Serialize(back, false), Serialize(tm, false));
}

// The update written out directly: normalized counts, then three rounds of
// renormalizing and flooring.
std::vector<double> ExpectedProbs(const std::vector<double> &counts,
                                  double floor) {
  double total = 0;
  for (double c : counts) total += c;
  std::vector<double> p;
  for (double c : counts) p.push_back(c / total);
  for (int round = 0; round < 3; round++) {
    double sum = 0;
    for (double x : p) sum += x;
    for (double &x : p) x = std::max(x / sum, floor);
  }
  return p;
}

TEST(TransitionModel, MleUpdateFollowsTheFormula) {
  // Counts per transition-id: state 1 well seen, state 2 below the minimum
  // count, state 3 needs the floor, state 4 unseen, state 5 plain.
  std::vector<double> counts = {0, 30, 10, 1, 1, 100, 0, 0, 0, 6, 2};
  for (bool shared : {false, true}) {
    TransitionModel tm = TriphoneModel();
    Vector<double> stats;
    tm.InitStats(&stats);
    for (int tid = 1; tid <= 10; tid++)
      for (int k = 0; k < counts[tid]; k++) tm.Accumulate(1.0, tid, &stats);
    MleTransitionUpdateConfig cfg;
    cfg.share_for_pdfs = shared;  // one state per pdf here: the same result
    BaseFloat objf, total;
    tm.MleUpdate(stats, cfg, &objf, &total);
    EXPECT_FLOAT_EQ(total, 150.0);
    double expected_objf = 0;
    for (int s = 1; s <= 5; s++) {
      std::vector<double> c = {counts[2 * s - 1], counts[2 * s]};
      std::vector<double> p = {0.5, 0.5};
      if (c[0] + c[1] >= cfg.mincount) p = ExpectedProbs(c, cfg.floor);
      for (int i = 0; i < 2; i++) {
        EXPECT_NEAR(tm.GetTransitionProb(2 * s - 1 + i), p[i], 1e-6)
            << "state " << s << " index " << i;
        expected_objf += c[i] * (std::log(p[i]) - std::log(0.5));
      }
    }
    EXPECT_NEAR(objf, expected_objf, 1e-3);
  }
}

TEST(TransitionModel, BadModelsAreUserErrors) {
  std::string good = std::string("\0B", 2) + TransitionModelBinary();
  TransitionModel tm;
  EXPECT_THROW(Deserialize(good.substr(0, good.size() - 30), &tm), UserError);
  std::string wrong_token = good;
  wrong_token.replace(wrong_token.find("<Triples>"), 9, "<Triplez>");
  EXPECT_THROW(Deserialize(wrong_token, &tm), UserError);
  // Tuples out of order.
  std::string text = Serialize(TriphoneModel(), false);
  std::string swapped = text;
  swapped.replace(swapped.find("1 0 0 \n1 1 1 \n"), 14, "1 1 1 \n1 0 0 \n");
  EXPECT_THROW(Deserialize(swapped, &tm), UserError);
  // A tuple naming the final (non-emitting) state.
  std::string final_state = text;
  final_state.replace(final_state.find("2 1 4 \n"), 7, "2 2 4 \n");
  EXPECT_THROW(Deserialize(final_state, &tm), UserError);
  // A positive log-probability.
  std::string positive = text;
  positive.replace(positive.find("[ 0 -0.6931472"), 14, "[ 0 0.6931472");
  EXPECT_THROW(Deserialize(positive, &tm), UserError);
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
