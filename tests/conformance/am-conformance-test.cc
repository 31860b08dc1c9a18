// tests/conformance/am-conformance-test.cc
// Kaldi's acoustic-model files (tests/data/kaldi/am, made by Kaldi's
// gen_topo.pl, gmm-init-mono, nnet3-init, nnet3-am-init and nnet3-am-copy;
// see commands.txt there) against our readers, writers and tools:
//  - the topology read from Kaldi's text "topo" file and written again
//    gives exactly the <Topology> bytes inside final.mdl (binary) and
//    final.mdl.txt (text);
//  - the binary tree is written back byte for byte, and survives a text
//    round trip;
//  - final.mdl copied binary -> binary, binary -> text and text -> text
//    equals final.mdl / final.mdl.txt; --raw=true equals final.raw;
//    nnet3-am-init (from mono.mdl's transition model, here final.mdl's, and
//    from tree + topo) rebuilds final.mdl byte for byte;
//  - tree-info, hmm-info, am-info and nnet3-am-info print exactly what
//    Kaldi's tools printed.
#include <gtest/gtest.h>

#include <sstream>

#include "common/testing.h"
#include "hmm/topology.h"
#include "hmm/transition-model.h"
#include "tree/context-dep.h"
#include "util/stream.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Am() { return DataDir() + "/kaldi/am"; }

// The bytes of "text" from the first "begin" to the end of the first "end"
// after it.
std::string Slice(const std::string &text, const std::string &begin,
                  const std::string &end) {
  size_t b = text.find(begin);
  EXPECT_NE(b, std::string::npos) << begin;
  size_t e = text.find(end, b);
  EXPECT_NE(e, std::string::npos) << end;
  if (b == std::string::npos || e == std::string::npos) return "";
  return text.substr(b, e + end.size() - b);
}

template <class C>
std::string Serialize(const C &c, bool binary) {
  std::ostringstream os;
  InitKaldiOutputStream(os, binary);
  c.Write(os, binary);
  return os.str();
}

template <class C>
void Deserialize(const std::string &bytes, C *c) {
  std::istringstream is(bytes);
  bool binary;
  ASSERT_TRUE(InitKaldiInputStream(is, &binary));
  c->Read(is, binary);
}

TEST(AmConformance, TopologyWrittenAsKaldiWritesIt) {
  HmmTopology topo;
  ReadKaldiObject(Am() + "/topo", &topo);
  // Binary: the header, then exactly the bytes of the topology in final.mdl.
  std::string mdl = ReadFile(Am() + "/final.mdl");
  std::string expected_binary =
      Slice(mdl, "<Topology> ", "</Topology> ");
  EXPECT_EQ(Serialize(topo, true), std::string("\0B", 2) + expected_binary);
  std::string mdl_txt = ReadFile(Am() + "/final.mdl.txt");
  std::string expected_text = Slice(mdl_txt, "<Topology> ", "</Topology> \n");
  EXPECT_EQ(Serialize(topo, false), expected_text);
  // Both forms read back to the same object.
  HmmTopology from_binary, from_text;
  Deserialize(Serialize(topo, true), &from_binary);
  Deserialize(Serialize(topo, false), &from_text);
  EXPECT_TRUE(from_binary == topo);
  EXPECT_TRUE(from_text == topo);
  EXPECT_EQ(topo.GetPhones(), (std::vector<int32>{1, 2, 3, 4, 5}));
  EXPECT_EQ(topo.NumPdfClasses(1), 5);
  EXPECT_EQ(topo.NumPdfClasses(4), 3);
}

TEST(AmConformance, TreeWrittenBackByteForByte) {
  ContextDependency tree;
  ReadKaldiObject(Am() + "/tree", &tree);
  EXPECT_EQ(tree.NumPdfs(), 17);
  EXPECT_EQ(tree.ContextWidth(), 1);
  EXPECT_EQ(tree.CentralPosition(), 0);
  std::string bytes = ReadFile(Am() + "/tree");
  EXPECT_EQ(Serialize(tree, true), bytes);
  ContextDependency from_text;
  Deserialize(Serialize(tree, false), &from_text);
  EXPECT_EQ(Serialize(from_text, true), bytes);
  // The monophone tree numbers pdfs phone by phone, pdf-class by pdf-class
  // (phone 1 has 5 pdf-classes, phones 2..5 have 3).
  int32 pdf;
  ASSERT_TRUE(tree.Compute({1}, 4, &pdf));
  EXPECT_EQ(pdf, 4);
  ASSERT_TRUE(tree.Compute({5}, 2, &pdf));
  EXPECT_EQ(pdf, 16);
  EXPECT_FALSE(tree.Compute({6}, 0, &pdf));
}

TEST(AmConformance, TransitionModelReadAndWritten) {
  TransitionModel tm;
  ReadKaldiObject(Am() + "/final.mdl", &tm);
  std::string mdl = ReadFile(Am() + "/final.mdl");
  EXPECT_EQ(Serialize(tm, true),
            std::string("\0B", 2) +
                Slice(mdl, "<TransitionModel> ", "</TransitionModel> "));
  std::string txt = ReadFile(Am() + "/final.mdl.txt");
  EXPECT_EQ(Serialize(tm, false),
            Slice(txt, "<TransitionModel> ", "</TransitionModel> \n"));
  // Built from Kaldi's tree and topology, the model is the same.
  ContextDependency tree;
  ReadKaldiObject(Am() + "/tree", &tree);
  HmmTopology topo;
  ReadKaldiObject(Am() + "/topo", &topo);
  TransitionModel built(tree, topo);
  EXPECT_TRUE(built.Compatible(tm));
  EXPECT_EQ(Serialize(built, true), Serialize(tm, true));
}

class AmTools : public ::testing::Test {
 protected:
  CommandResult Run(const std::string &command) {
    CommandResult r = RunCommand(command, dir_.path());
    EXPECT_EQ(r.exit_status, 0) << command << "\n" << r.err;
    return r;
  }
  std::string Out(const std::string &name) { return ReadFile(dir_.File(name)); }
  TempDir dir_;
};

TEST_F(AmTools, CopiesAreByteIdentical) {
  const std::string am = Am();
  Run("nnet3-am-copy " + am + "/final.mdl b.mdl");
  EXPECT_EQ(Out("b.mdl"), ReadFile(am + "/final.mdl"));
  Run("nnet3-am-copy --binary=false " + am + "/final.mdl t.mdl");
  EXPECT_EQ(Out("t.mdl"), ReadFile(am + "/final.mdl.txt"));
  Run("nnet3-am-copy --binary=false " + am + "/final.mdl.txt tt.mdl");
  EXPECT_EQ(Out("tt.mdl"), ReadFile(am + "/final.mdl.txt"));
  Run("nnet3-am-copy --raw=true " + am + "/final.mdl r.raw");
  EXPECT_EQ(Out("r.raw"), ReadFile(am + "/final.raw"));
  // Through pipes too.
  CommandResult r = Run("cat " + am + "/final.mdl | nnet3-am-copy - - | cat");
  EXPECT_EQ(r.out, ReadFile(am + "/final.mdl"));
}

TEST_F(AmTools, InitRebuildsKaldisModel) {
  const std::string am = Am();
  // From a transition model (Kaldi used mono.mdl; final.mdl starts with the
  // same transition model).
  Run("nnet3-am-init " + am + "/final.mdl " + am + "/nnet.raw a.mdl");
  EXPECT_EQ(Out("a.mdl"), ReadFile(am + "/final.mdl"));
  Run("nnet3-am-init " + am + "/tree " + am + "/topo " + am +
      "/nnet.raw b.mdl");
  EXPECT_EQ(Out("b.mdl"), ReadFile(am + "/final.mdl"));
  Run("nnet3-am-init --binary=false " + am + "/tree " + am + "/topo " + am +
      "/nnet.raw c.mdl");
  EXPECT_EQ(Out("c.mdl"), ReadFile(am + "/final.mdl.txt"));
}

TEST_F(AmTools, InfoToolsPrintWhatKaldiPrinted) {
  const std::string am = Am();
  EXPECT_EQ(Run("tree-info " + am + "/tree").out,
            ReadFile(am + "/tree-info.txt"));
  // Kaldi ran hmm-info and am-info on mono.mdl, a GMM model with the same
  // transition model as final.mdl; both tools read only that part.
  EXPECT_EQ(Run("hmm-info " + am + "/final.mdl").out,
            ReadFile(am + "/hmm-info.txt"));
  EXPECT_EQ(Run("am-info " + am + "/final.mdl").out,
            ReadFile(am + "/am-info.txt"));
  EXPECT_EQ(Run("am-info " + am + "/final.mdl.txt").out,
            ReadFile(am + "/am-info.txt"));
  EXPECT_EQ(Run("nnet3-am-info " + am + "/final.mdl").out,
            ReadFile(am + "/nnet3-am-info.txt"));
  EXPECT_EQ(Run("nnet3-am-info " + am + "/final.mdl.txt").out,
            ReadFile(am + "/nnet3-am-info.txt"));
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
