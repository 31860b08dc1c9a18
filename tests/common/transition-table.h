// tests/common/transition-table.h
// The transition-id table of Kaldi's monophone model in
// tests/data/kaldi/am (final.mdl.txt), derived straight from the text of the
// file rather than from the code under test: the tuples in the order of
// <Triples>, one transition-id per <Transition> of the tuple's HMM state, in
// the order the topology lists them. Shared by the tests that build
// alignments for that model by hand (tests/hmm/am-tools-test,
// tests/cli/kaldi-scripts-cli-test).
#ifndef NNET3_TESTS_COMMON_TRANSITION_TABLE_H_
#define NNET3_TESTS_COMMON_TRANSITION_TABLE_H_

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/testing.h"

namespace nnet3 {
namespace testing {

// The directory of Kaldi's acoustic-model files in the test data.
inline std::string KaldiAmDir() { return DataDir() + "/kaldi/am"; }

struct Tid {
  int phone, hmm_state, pdf, dst;
};

// tids[t] for t = 1..; tids[0] unused.
inline std::vector<Tid> TidTable() {
  std::istringstream is(ReadFile(KaldiAmDir() + "/final.mdl.txt"));
  std::map<int, std::vector<std::vector<int> > > dsts;  // phone -> states
  std::string tok;
  std::vector<int> phones;
  std::vector<std::vector<int> > states;
  std::vector<Tid> tids(1);
  while (is >> tok) {
    if (tok == "<ForPhones>") {
      phones.clear();
      states.clear();
      while (is >> tok && tok != "</ForPhones>") phones.push_back(std::stoi(tok));
    } else if (tok == "<State>") {
      states.emplace_back();
    } else if (tok == "<Transition>") {
      int dst;
      double p;
      is >> dst >> p;
      states.back().push_back(dst);
    } else if (tok == "</TopologyEntry>") {
      for (int ph : phones) dsts[ph] = states;
    } else if (tok == "<Triples>") {
      int n;
      is >> n;
      for (int i = 0; i < n; i++) {
        int phone, state, pdf;
        is >> phone >> state >> pdf;
        for (int dst : dsts[phone][state])
          tids.push_back(Tid{phone, state, pdf, dst});
      }
      break;
    }
  }
  return tids;
}

// The transition-id of (phone, state -> dst).
inline int FindTid(const std::vector<Tid> &tids, int phone, int state,
                   int dst) {
  for (size_t t = 1; t < tids.size(); t++)
    if (tids[t].phone == phone && tids[t].hmm_state == state &&
        tids[t].dst == dst)
      return static_cast<int>(t);
  ADD_FAILURE() << "no transition " << phone << " " << state << " " << dst;
  return 0;
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_COMMON_TRANSITION_TABLE_H_
