// tests/tree/context-dep-test.cc
// ContextDependency: reader and writer against hand-derived bytes (binary
// and text) of a small triphone tree, Compute() and GetPdfInfo() against the
// tree's description, and bad headers.
#include <gtest/gtest.h>

#include <sstream>

#include "base/io.h"
#include "base/log.h"
#include "tree/context-dep.h"
#include "tree/tree-test-util.h"

namespace nnet3 {
namespace testing {
namespace {

ContextDependency ReadTree(const std::string &bytes) {
  std::istringstream is(bytes);
  bool binary;
  EXPECT_TRUE(InitKaldiInputStream(is, &binary));
  ContextDependency tree;
  tree.Read(is, binary);
  return tree;
}

std::string WriteTree(const ContextDependency &tree, bool binary) {
  std::ostringstream os;
  InitKaldiOutputStream(os, binary);
  tree.Write(os, binary);
  return os.str();
}

TEST(ContextDependency, ReadsAndWritesHandDerivedBytes) {
  ContextDependency from_binary = ReadTree(TriphoneTreeBinary());
  EXPECT_EQ(WriteTree(from_binary, true), TriphoneTreeBinary());
  EXPECT_EQ(WriteTree(from_binary, false), TriphoneTreeText());
  ContextDependency from_text = ReadTree(TriphoneTreeText());
  EXPECT_EQ(WriteTree(from_text, true), TriphoneTreeBinary());
  EXPECT_EQ(from_text.ContextWidth(), 3);
  EXPECT_EQ(from_text.CentralPosition(), 1);
  EXPECT_EQ(from_text.NumPdfs(), 5);
}

TEST(ContextDependency, ComputeFollowsTheTree) {
  ContextDependency tree = ReadTree(TriphoneTreeBinary());
  for (int left = 0; left <= 2; left++)
    for (int central = 0; central <= 3; central++)
      for (int right = 0; right <= 2; right++)
        for (int pdf_class = 0; pdf_class <= 2; pdf_class++) {
          int32 pdf = -7;
          bool ok = tree.Compute({left, central, right}, pdf_class, &pdf);
          int expected = NaiveTriphonePdf(left, central, pdf_class);
          EXPECT_EQ(ok, expected >= 0);
          if (ok) {
            EXPECT_EQ(pdf, expected);
          }
        }
  int32 pdf;
  EXPECT_THROW(tree.Compute({1, 2}, 0, &pdf), UserError);
}

TEST(ContextDependency, PdfInfoListsPhonesAndPdfClasses) {
  ContextDependency tree = ReadTree(TriphoneTreeText());
  std::vector<std::vector<std::pair<int32, int32> > > info;
  tree.GetPdfInfo({1, 2}, {-1, 2, 2}, &info);
  typedef std::vector<std::pair<int32, int32> > V;
  ASSERT_EQ(info.size(), 5u);
  EXPECT_EQ(info[0], (V{{1, 0}}));
  EXPECT_EQ(info[1], (V{{1, 1}}));
  EXPECT_EQ(info[2], (V{{2, 0}}));
  EXPECT_EQ(info[3], (V{{2, 0}}));
  EXPECT_EQ(info[4], (V{{2, 1}}));
}

TEST(ContextDependency, OldToLengthSectionIsSkipped) {
  std::string text = TriphoneTreeText();
  text.insert(text.find("ToPdf"), "ToLength CE 3 ");
  ContextDependency tree = ReadTree(text);
  EXPECT_EQ(WriteTree(tree, false), TriphoneTreeText());
}

TEST(ContextDependency, BadHeadersAreUserErrors) {
  EXPECT_THROW(ReadTree("ContextDependency 3 3 ToPdf CE 0 EndContextDependency "),
               UserError);
  EXPECT_THROW(ReadTree("ContextDependency 1 0 ToTree CE 0 EndContextDependency "),
               UserError);
  EXPECT_THROW(ReadTree("ContextDependency 1 0 ToPdf NULL EndContextDependency "),
               UserError);
  EXPECT_THROW(ReadTree("ContextDependency 1 0 ToPdf CE 0 "), UserError);
  std::string truncated = TriphoneTreeBinary();
  EXPECT_THROW(ReadTree(truncated.substr(0, truncated.size() / 2)), UserError);
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
