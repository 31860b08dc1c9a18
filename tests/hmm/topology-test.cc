// tests/hmm/topology-test.cc
// HmmTopology: text and binary forms against hand-derived bytes, the
// extended form with separate self-loop pdf-classes, queries, and the
// checks that reject malformed topologies.
#include <gtest/gtest.h>

#include <string>

#include "base/log.h"
#include "hmm/hmm-test-util.h"
#include "hmm/topology.h"

namespace nnet3 {
namespace testing {
namespace {

HmmTopology FromText(const std::string &text) {
  HmmTopology topo;
  Deserialize(text, &topo);
  return topo;
}

TEST(HmmTopology, TextAndBinaryFormsAgreeWithHandDerivedBytes) {
  HmmTopology topo = FromText(TopoText());
  EXPECT_EQ(Serialize(topo, true), std::string("\0B", 2) + TopoBinary());
  // Kaldi's text writer puts a space after every token and number.
  std::string expected_text =
      "<Topology> \n<TopologyEntry> \n<ForPhones> \n1 2 \n</ForPhones> \n" +
      EmittingState(0, " ") + "\n" + EmittingState(1, " ") + "\n" +
      "<State> 2 </State> \n</TopologyEntry> \n</Topology> \n";
  EXPECT_EQ(Serialize(topo, false), expected_text);
  HmmTopology from_binary;
  Deserialize(std::string("\0B", 2) + TopoBinary(), &from_binary);
  EXPECT_TRUE(from_binary == topo);
  EXPECT_TRUE(topo.IsHmm());
  EXPECT_EQ(topo.NumPdfClasses(2), 2);
  std::vector<int32> n;
  topo.GetPhoneToNumPdfClasses(&n);
  EXPECT_EQ(n, (std::vector<int32>{-1, 2, 2}));
  EXPECT_THROW(topo.TopologyForPhone(3), UserError);
}

TEST(HmmTopology, SeparateSelfLoopPdfClasses) {
  std::string text =
      "<Topology>\n<TopologyEntry>\n<ForPhones>\n1\n</ForPhones>\n"
      "<State> 0 <ForwardPdfClass> 0 <SelfLoopPdfClass> 1 "
      "<Transition> 0 0.5 <Transition> 1 0.5 </State>\n"
      "<State> 1 </State>\n</TopologyEntry>\n</Topology>\n";
  HmmTopology topo = FromText(text);
  EXPECT_FALSE(topo.IsHmm());
  EXPECT_EQ(topo.NumPdfClasses(1), 2);
  // Binary: the -1 marker before the entry count, two pdf-classes a state.
  std::string expected = std::string("\0B", 2) + Tok("<Topology>") +
                         IntVec({1}) + IntVec({-1, 0}) + I32(-1) + I32(1) +
                         I32(2) + I32(0) + I32(1) + I32(2) + I32(0) +
                         F32(0.5) + I32(1) + F32(0.5) + I32(-1) + I32(-1) +
                         I32(0) + Tok("</Topology>");
  EXPECT_EQ(Serialize(topo, true), expected);
  HmmTopology back;
  Deserialize(expected, &back);
  EXPECT_TRUE(back == topo);
  Deserialize(Serialize(topo, false), &back);
  EXPECT_TRUE(back == topo);
}

void ExpectBad(const std::string &text, const std::string &fragment) {
  try {
    FromText(text);
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find(fragment), std::string::npos) << e.message();
  }
}

std::string Entry(const std::string &phones, const std::string &states) {
  return "<Topology>\n<TopologyEntry>\n<ForPhones>\n" + phones +
         "\n</ForPhones>\n" + states + "</TopologyEntry>\n</Topology>\n";
}

TEST(HmmTopology, MalformedTopologiesAreRejected) {
  const std::string good_final = "<State> 1 </State>\n";
  ExpectBad(Entry("1", "<State> 0 <PdfClass> 0 <Transition> 1 1.0 </State>\n"),
            "at least one emitting state");
  ExpectBad(Entry("1 x", "<State> 0 <PdfClass> 0 <Transition> 1 1.0 </State>\n" +
                             good_final),
            "expected a phone");
  ExpectBad(Entry("1", "<State> 0 <PdfClass> 0 <Transition> 1 0 </State>\n" +
                           good_final),
            "must be positive");
  ExpectBad(Entry("1", "<State> 0 <PdfClass> 0 <Transition> 5 1 </State>\n" +
                           good_final),
            "invalid destination state 5");
  ExpectBad(Entry("1", "<State> 0 <PdfClass> 1 <Transition> 1 1 </State>\n" +
                           good_final),
            "without gaps");
  ExpectBad(Entry("1", "<State> 1 <PdfClass> 0 <Transition> 1 1 </State>\n"),
            "numbered from 0");
  ExpectBad(Entry("1", "<State> 0 <PdfClass> 0 <Transition> 1 1 </State>\n"
                       "<State> 1 <PdfClass> 1 </State>\n"),
            "last state");
  ExpectBad(Entry("1", "<State> 0 <PdfClass> 0 <Final> 1 </State>\n"),
            "old topology format");
  ExpectBad("<Topology>\n<TopologyEntry>\n<ForPhones>\n1\n</ForPhones>\n"
            "<State> 0 <PdfClass> 0 <Transition> 1 1 </State>\n<State> 1 "
            "</State>\n</TopologyEntry>\n<TopologyEntry>\n<ForPhones>\n1\n"
            "</ForPhones>\n<State> 0 <PdfClass> 0 <Transition> 1 1 </State>\n"
            "<State> 1 </State>\n</TopologyEntry>\n</Topology>\n",
            "more than one topology entry");
  ExpectBad("<Topology>\n<TopologyEntry>\n<ForPhones>\n1\n", "end of file");
  // A binary entry count far beyond the bytes present.
  ExpectBad(std::string("\0B", 2) + Tok("<Topology>") + IntVec({1}) +
                IntVec({-1, 0}) + I32(100000000),
            "entry count");
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
