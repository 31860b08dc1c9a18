// tests/nnet3/core/descriptor-test.cc: Descriptor parsing, normalisation and
// printing (against hand-worked forms and against every descriptor Kaldi
// printed in tests/data/kaldi/models), dependencies and computability on
// hand-worked examples, moduli and dimensions (against Kaldi's nnet3-info),
// scales, and the error for every kind of malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "nnet3/core/config-line.h"
#include "nnet3/core/descriptor.h"

namespace nnet3 {
namespace {

// Node indexes: input=0 ivector=1 a=2 b=3 c=4 d=5 tdnn1.batchnorm=6 x-y=7.
const std::vector<std::string> kNames = {"input", "ivector", "a", "b",
                                         "c", "d", "tdnn1.batchnorm", "x-y"};
const int32 kInput = 0, kIvector = 1, kA = 2, kB = 3, kC = 4;

Descriptor ParseOk(const std::string &text,
                   const std::vector<std::string> &names = kNames) {
  Descriptor d;
  std::string error;
  EXPECT_TRUE(ParseDescriptor(text, names, &d, &error))
      << "text: " << text << " error: " << error;
  return d;
}

std::string Normal(const std::string &text) {
  return ParseOk(text).ToString(kNames);
}

std::string ParseError(const std::string &text) {
  Descriptor d;
  std::string error;
  EXPECT_FALSE(ParseDescriptor(text, kNames, &d, &error)) << "text: " << text;
  return error;
}

class SetOfCindexes : public CindexSet {
 public:
  explicit SetOfCindexes(const std::set<Cindex> &s) : set_(s) {}
  bool operator()(const Cindex &c) const override { return set_.count(c) != 0; }
 private:
  std::set<Cindex> set_;
};

Cindex C(int32 node, int32 t, int32 x = 0, int32 n = 0) {
  return Cindex(node, Index(n, t, x));
}

// ------------------------------------------------------------ printing
TEST(Descriptor, CanonicalFormsPrintUnchanged) {
  const char *forms[] = {
      "input",
      "tdnn1.batchnorm",
      "x-y",
      "Append(Offset(input, -1), input, Offset(input, 1))",
      "Append(Offset(input, -2), input, Offset(input, 1), ReplaceIndex(ivector, t, 0))",
      "Offset(a, -1, 2)",
      "Offset(a, 0, 2)",
      "ReplaceIndex(a, x, 0)",
      "ReplaceIndex(a, t, -3)",
      "Round(Offset(input, 1), 3)",
      "Switch(a, Offset(a, -1))",
      "Switch(a)",
      "Offset(Switch(a, b, c), 2)",
      "Scale(0.5, a)",
      "Scale(-2, a)",
      "Offset(Scale(-0.5, b), -1)",
      "Sum(a, b)",
      "Sum(a, Sum(b, c))",
      "Sum(Sum(a, b), c)",
      "Failover(Offset(a, -2), a)",
      "IfDefined(Offset(a, -3))",
      "Sum(Failover(Offset(a, -1), c), IfDefined(Offset(b, -1)))",
      "Sum(a, Sum(Offset(Scale(-0.5, b), -1), Const(0.25, 16)))",
      "Const(-1, 8)",
      "Append(a, Const(1, 3))",
      "Append(Failover(Offset(a, -2), a), IfDefined(Offset(b, -3)))",
      "IfDefined(IfDefined(a))",
      "Failover(Sum(a, b), c)",
  };
  for (const char *f : forms) {
    EXPECT_EQ(Normal(f), f);
    // Parse -> print -> parse -> print is stable.
    EXPECT_EQ(Normal(Normal(f)), f);
  }
}

TEST(Descriptor, WhitespaceAndRealSpellings) {
  EXPECT_EQ(Normal("  Append( Offset( a ,-1 ),\tb )  "),
            "Append(Offset(a, -1), b)");
  EXPECT_EQ(Normal("Scale(2.0, a)"), "Scale(2, a)");
  EXPECT_EQ(Normal("Scale(1.0, a)"), "a");
  EXPECT_EQ(Normal("Scale(1e-1, a)"), "Scale(0.1, a)");
  EXPECT_EQ(Normal("Const(-1.0, 8)"), "Const(-1, 8)");
  EXPECT_EQ(Normal("Const(0.333333333, 4)"), "Const(0.333333, 4)");
  EXPECT_EQ(Normal("Offset(a, +2)"), "Offset(a, 2)");
}

// ------------------------------------------------------------ normalisation
TEST(Descriptor, Normalisation) {
  const std::pair<const char *, const char *> cases[] = {
      {"Append(a)", "a"},
      {"Append(Offset(input, 0))", "input"},
      {"Append(a, Append(b, c))", "Append(a, b, c)"},
      {"Append(Append(a), Append(b, Append(c)))", "Append(a, b, c)"},
      {"Offset(Append(a, b), -1)", "Append(Offset(a, -1), Offset(b, -1))"},
      {"Offset(Offset(a, 1), 2)", "Offset(a, 3)"},
      {"Offset(Offset(a, 1, 2), -1)", "Offset(a, 0, 2)"},
      {"Offset(Offset(a, 1), -1)", "a"},
      {"Offset(a, 2, 0)", "Offset(a, 2)"},
      {"Offset(a, 0, 0)", "a"},
      {"Offset(Offset(Offset(a, 1), 1), 1)", "Offset(a, 3)"},
      {"Sum(a)", "a"},
      {"Sum(a, b, c)", "Sum(a, Sum(b, c))"},
      {"Sum(a, b, c, d)", "Sum(a, Sum(b, Sum(c, d)))"},
      {"Scale(2, Sum(a, b))", "Sum(Scale(2, a), Scale(2, b))"},
      {"Scale(2, Sum(a, b, c))",
       "Sum(Scale(2, a), Sum(Scale(2, b), Scale(2, c)))"},
      {"Scale(0.5, Append(a, b))", "Append(Scale(0.5, a), Scale(0.5, b))"},
      {"Scale(2, Scale(3, a))", "Scale(6, a)"},
      {"Scale(2, Scale(0.5, a))", "a"},
      {"Scale(2, Offset(a, 1))", "Offset(Scale(2, a), 1)"},
      {"Scale(2, Round(a, 3))", "Round(Scale(2, a), 3)"},
      {"Scale(2, ReplaceIndex(a, t, 0))", "ReplaceIndex(Scale(2, a), t, 0)"},
      {"Scale(2, Offset(Offset(a, 1), 2))", "Offset(Scale(2, a), 3)"},
      {"Sum(a, Scale(-0.5, Offset(b, -1)), Const(0.25, 16))",
       "Sum(a, Sum(Offset(Scale(-0.5, b), -1), Const(0.25, 16)))"},
      {"Offset(Sum(a, b), 1)", "Sum(Offset(a, 1), Offset(b, 1))"},
      {"Offset(Sum(a, b, c), 1)",
       "Sum(Offset(a, 1), Sum(Offset(b, 1), Offset(c, 1)))"},
      {"Offset(Offset(Sum(a, b), 1), 1)", "Sum(Offset(a, 2), Offset(b, 2))"},
      {"Offset(IfDefined(a), -1)", "IfDefined(Offset(a, -1))"},
      {"Offset(Failover(a, b), 2)", "Failover(Offset(a, 2), Offset(b, 2))"},
      {"Round(Sum(a, b), 3)", "Sum(Round(a, 3), Round(b, 3))"},
      {"ReplaceIndex(IfDefined(ivector), t, 0)",
       "IfDefined(ReplaceIndex(ivector, t, 0))"},
      {"Switch(Sum(a, b))", "Sum(Switch(a), Switch(b))"},
      {"Switch(Append(a, b), Append(c, d))",
       "Append(Switch(a, c), Switch(b, d))"},
      {"Sum(Append(a, b), Append(c, d))", "Append(Sum(a, c), Sum(b, d))"},
      {"Offset(Scale(2, Sum(a, b)), 1)",
       "Sum(Offset(Scale(2, a), 1), Offset(Scale(2, b), 1))"},
      {"Scale(2, Offset(Sum(a, b), 1))",
       "Sum(Offset(Scale(2, a), 1), Offset(Scale(2, b), 1))"},
      {"Offset(Const(1, 3), 0)", "Const(1, 3)"},
      {"IfDefined(Offset(Append(a, b), -1))",
       "Append(IfDefined(Offset(a, -1)), IfDefined(Offset(b, -1)))"},
      {"Failover(Append(a, b), Append(c, d))",
       "Append(Failover(a, c), Failover(b, d))"},
      {"Offset(Round(Offset(a, 1), 2), 1)", "Offset(Round(Offset(a, 1), 2), 1)"},
      {"Sum(Sum(a, b, c))", "Sum(a, Sum(b, c))"},
  };
  for (const auto &c : cases) {
    EXPECT_EQ(Normal(c.first), c.second) << "input: " << c.first;
    EXPECT_EQ(Normal(c.second), c.second) << "re-parse of: " << c.second;
  }
}

TEST(Descriptor, NormalisedStructure) {
  Descriptor d = ParseOk("Sum(a, b, c)");
  ASSERT_EQ(d.NumParts(), 1);
  const auto *top = dynamic_cast<const BinarySumDescriptor *>(&d.Part(0));
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->Op(), BinarySumDescriptor::kSumOperation);
  EXPECT_NE(dynamic_cast<const SimpleSumDescriptor *>(&top->Src1()), nullptr);
  EXPECT_NE(dynamic_cast<const BinarySumDescriptor *>(&top->Src2()), nullptr);

  Descriptor e = ParseOk("Offset(Scale(-0.5, b), -1)");
  const auto *simple = dynamic_cast<const SimpleSumDescriptor *>(&e.Part(0));
  ASSERT_NE(simple, nullptr);
  const auto *off =
      dynamic_cast<const OffsetForwardingDescriptor *>(&simple->Src());
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->Offset(), Index(0, -1, 0));
  const auto *node =
      dynamic_cast<const SimpleForwardingDescriptor *>(&off->Src());
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->SrcNode(), kB);
  EXPECT_EQ(node->Scale(), -0.5f);
}

// ------------------------------------------------------------ errors
struct ErrorCase {
  const char *text;
  const char *expect1;  // substrings the message must contain
  const char *expect2;
};

TEST(Descriptor, MalformedInputsGiveErrorsWithPosition) {
  const ErrorCase cases[] = {
      {"Offset(a)", "Expected ',' while parsing Offset(), got ')'",
       "column 9"},
      {"Offset(a, 1", "Expected ')' while parsing Offset()",
       "got end of input at column 12"},
      {"Offset(a, b)", "Expected an integer (t-offset)", "column 11"},
      {"Offset(a, 1.5)", "Expected an integer (t-offset)", "'1.5'"},
      {"Offset(a, 1, z)", "Expected an integer (x-offset)", "column 14"},
      {"Offset", "Expected '(' while parsing Offset()", "end of input"},
      {"foo", "Unknown node name 'foo'", "column 1"},
      {"Append(a, foo)", "Unknown node name 'foo'",
       "column 11 of descriptor 'Append(a, foo)' (remaining text: 'foo)')"},
      {"", "Expected a descriptor", "end of input"},
      {"a b", "Expected end of input", "'b' at column 3"},
      {"Sum(a, b))", "Expected end of input", "')' at column 10"},
      {"Append(a b)", "Expected ',' or ')' while parsing Append()",
       "'b' at column 10"},
      {"Append()", "Expected a descriptor", "')' at column 8"},
      {"Append(a,, b)", "Expected a descriptor", "',' at column 10"},
      {"(a)", "Expected a descriptor", "'(' at column 1"},
      {"Switch(a", "Expected ',' or ')' while parsing Switch()",
       "end of input"},
      {"Round(a, 0)", "positive t-modulus", "column 10"},
      {"Round(a, -3)", "positive t-modulus", "column 10"},
      {"Round(a)", "Expected ',' while parsing Round()", "column 8"},
      {"ReplaceIndex(a, n, 0)", "Expected 't' or 'x'", "column 17"},
      {"ReplaceIndex(a, t)", "Expected ',' while parsing ReplaceIndex()",
       "column 18"},
      {"ReplaceIndex(a, t, q)", "Expected an integer (value)", "column 20"},
      {"Const(1, 0)", "positive dimension", "column 10"},
      {"Const(1, -2)", "positive dimension", "column 10"},
      {"Const(a, 3)", "Expected a number (value) while parsing Const()",
       "column 7"},
      {"Const(inf, 3)", "finite value", "column 7"},
      {"Const(1)", "Expected ',' while parsing Const()", "column 8"},
      {"Scale(x2, a)", "Expected a number (scale) while parsing Scale()",
       "column 7"},
      {"Scale(2 a)", "Expected ',' while parsing Scale()", "column 9"},
      {"Failover(a)", "Expected ',' while parsing Failover()", "column 11"},
      {"Failover(a, b, c)", "Expected ')' while parsing Failover()",
       "column 14"},
      {"IfDefined(a, b)", "Expected ')' while parsing IfDefined()",
       "column 12"},
      {"a$", "Invalid token 'a$'", "column 1"},
      {"Append(a, #b)", "Invalid token '#b'", "column 11"},
      // Errors found while normalising name the descriptor.
      {"Scale(2, IfDefined(a))", "Scale() around IfDefined()",
       "in descriptor 'Scale(2, IfDefined(a))'"},
      {"Scale(2, Const(1, 3))", "Scale() around Const()", "in descriptor"},
      {"Scale(2, Switch(a, b))", "Scale() around Switch()", "in descriptor"},
      {"Scale(2, Failover(a, b))", "Scale() around Failover()",
       "in descriptor"},
      {"Switch(Sum(a, b), c)", "Sum() inside Switch()", "in descriptor"},
      {"Switch(a, IfDefined(c))", "IfDefined() appears inside Switch()",
       "in descriptor"},
      {"Offset(Const(1, 3), 1)", "Const() appears too deep", "in descriptor"},
      {"Sum(Append(a, b), c)", "different numbers of Append() terms",
       "(2 vs. 1)"},
      {"Switch(Append(a, b), Append(a, b, c))",
       "arguments of Switch() have different numbers of Append() terms",
       "(2 vs. 3)"},
  };
  for (const ErrorCase &c : cases) {
    std::string error = ParseError(c.text);
    EXPECT_NE(error.find(c.expect1), std::string::npos)
        << "text: " << c.text << "\nerror: " << error;
    EXPECT_NE(error.find(c.expect2), std::string::npos)
        << "text: " << c.text << "\nerror: " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

// Deep nesting is a parse error naming the limit, not a stack overflow.
TEST(Descriptor, NestingDepthIsLimited) {
  auto nested = [](const std::string &op, int levels) {
    std::string text;
    for (int i = 0; i < levels; i++) text += op + "(";
    text += "a";
    for (int i = 0; i < levels; i++) text += ")";
    return text;
  };
  // The example: 100000 nested IfDefined( overflowed the stack.
  std::string error = ParseError(nested("IfDefined", 100000));
  EXPECT_NE(error.find("nested more than 64 levels deep"), std::string::npos)
      << error.substr(0, 300);
  EXPECT_LT(error.size(), 1000u);
  // Unterminated deep input fails the same way.
  error = ParseError(std::string(300000, '(').replace(0, 0, "Sum"));
  EXPECT_FALSE(error.empty());
  std::string deep_open;
  for (int i = 0; i < 100000; i++) deep_open += "Offset(";
  EXPECT_NE(ParseError(deep_open).find("64 levels"), std::string::npos);
  // Exactly at the limit is fine, one more is not.
  EXPECT_EQ(Normal(nested("IfDefined", kMaxDescriptorDepth)),
            nested("IfDefined", kMaxDescriptorDepth));
  EXPECT_NE(ParseError(nested("IfDefined", kMaxDescriptorDepth + 1))
                .find("64 levels"),
            std::string::npos);
  // A Sum of n terms becomes n-1 nested Sums and counts as such.
  std::string sum = "Sum(a";
  for (int i = 0; i < 100000; i++) sum += ", b";
  sum += ")";
  EXPECT_NE(ParseError(sum).find("64 levels"), std::string::npos);
  ParseOk("Sum(a, b, c, d, a, b, c, d)");
}

TEST(Descriptor, FailedParseLeavesDescriptorUnchanged) {
  Descriptor d = ParseOk("Append(a, b)");
  std::string error;
  EXPECT_FALSE(ParseDescriptor("Append(a, ", kNames, &d, &error));
  EXPECT_EQ(d.ToString(kNames), "Append(a, b)");
  EXPECT_FALSE(ParseDescriptor("Append(a, ", kNames, &d, nullptr));
}

TEST(Descriptor, ParseMethodThrowsUserError) {
  Descriptor d;
  try {
    d.Parse("Offset(a, x)", kNames);
    FAIL() << "no exception";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("Expected an integer"), std::string::npos);
  }
  d.Parse("Offset(a, 1)", kNames);
  EXPECT_EQ(d.ToString(kNames), "Offset(a, 1)");
}

TEST(Descriptor, Tokenize) {
  std::vector<std::string> tokens;
  ASSERT_TRUE(DescriptorTokenize(" Append(Offset( x-y ,-1),\t0.5)", &tokens));
  std::vector<std::string> expected = {"Append", "(", "Offset", "(", "x-y",
                                       ",", "-1", ")", ",", "0.5", ")"};
  EXPECT_EQ(tokens, expected);
  EXPECT_FALSE(DescriptorTokenize("Append(a$b)", &tokens));
  ASSERT_TRUE(DescriptorTokenize("", &tokens));
  EXPECT_TRUE(tokens.empty());
}

// ------------------------------------------------------------ dependencies
TEST(Descriptor, GetDependencies) {
  std::vector<Cindex> deps;
  ParseOk("Append(Offset(input, -1), input, ReplaceIndex(ivector, t, 0))")
      .GetDependencies(Index(0, 5), &deps);
  EXPECT_EQ(deps, (std::vector<Cindex>{C(kInput, 4), C(kInput, 5),
                                       C(kIvector, 0)}));

  // GetDependencies clears its output first.
  ParseOk("Offset(a, -1, 2)").GetDependencies(Index(2, 5, 1), &deps);
  EXPECT_EQ(deps, std::vector<Cindex>{C(kA, 4, 3, 2)});

  ParseOk("ReplaceIndex(a, x, 3)").GetDependencies(Index(1, 7, 0), &deps);
  EXPECT_EQ(deps, std::vector<Cindex>{C(kA, 7, 3, 1)});

  // Switch picks argument t mod 3 (mathematical modulus).
  Descriptor sw = ParseOk("Switch(a, b, c)");
  const int32 expected_node[] = {kB, kC, kA, kB, kC, kA, kB, kC};  // t=-5..2
  for (int32 t = -5; t <= 2; t++) {
    sw.GetDependencies(Index(0, t), &deps);
    EXPECT_EQ(deps, std::vector<Cindex>{C(expected_node[t + 5], t)}) << t;
  }
  // Round first rounds t down to a multiple of 3, then the inner Offset.
  Descriptor round = ParseOk("Round(Offset(input, 1), 3)");
  const std::pair<int32, int32> round_cases[] = {
      {-4, -5}, {-3, -2}, {-1, -2}, {0, 1}, {2, 1}, {3, 4}, {5, 4}};
  for (const auto &rc : round_cases) {
    round.GetDependencies(Index(0, rc.first), &deps);
    EXPECT_EQ(deps, std::vector<Cindex>{C(kInput, rc.second)}) << rc.first;
  }
  // Offset outside Switch: the shifted t chooses.
  ParseOk("Offset(Switch(a, b), 1)").GetDependencies(Index(0, 0), &deps);
  EXPECT_EQ(deps, std::vector<Cindex>{C(kB, 1)});

  // Sum/Failover/IfDefined list everything; Const nothing.
  ParseOk("Sum(Failover(Offset(a, -1), c), Sum(IfDefined(Offset(b, -1)), "
          "Const(1, 16)))")
      .GetDependencies(Index(0, 0), &deps);
  EXPECT_EQ(deps, (std::vector<Cindex>{C(kA, -1), C(kC, 0), C(kB, -1)}));
}

TEST(Descriptor, IsComputable) {
  std::vector<Cindex> used;
  Descriptor failover = ParseOk("Failover(Offset(a, -1), b)");
  EXPECT_TRUE(failover.IsComputable(
      Index(0, 0), SetOfCindexes({C(kA, -1), C(kB, 0)}), &used));
  EXPECT_EQ(used, std::vector<Cindex>{C(kA, -1)});
  EXPECT_TRUE(
      failover.IsComputable(Index(0, 0), SetOfCindexes({C(kB, 0)}), &used));
  EXPECT_EQ(used, std::vector<Cindex>{C(kB, 0)});
  EXPECT_FALSE(
      failover.IsComputable(Index(0, 0), SetOfCindexes({C(kA, 0)}), &used));
  EXPECT_TRUE(used.empty());

  Descriptor ifdef = ParseOk("IfDefined(Offset(a, -1))");
  EXPECT_TRUE(ifdef.IsComputable(Index(0, 3), SetOfCindexes({}), &used));
  EXPECT_TRUE(used.empty());
  EXPECT_TRUE(
      ifdef.IsComputable(Index(0, 3), SetOfCindexes({C(kA, 2)}), &used));
  EXPECT_EQ(used, std::vector<Cindex>{C(kA, 2)});

  Descriptor sum = ParseOk("Sum(a, IfDefined(Offset(b, -1)))");
  EXPECT_TRUE(sum.IsComputable(Index(0, 0), SetOfCindexes({C(kA, 0)}), &used));
  EXPECT_EQ(used, std::vector<Cindex>{C(kA, 0)});
  EXPECT_TRUE(sum.IsComputable(Index(0, 0),
                               SetOfCindexes({C(kA, 0), C(kB, -1)}), &used));
  EXPECT_EQ(used, (std::vector<Cindex>{C(kA, 0), C(kB, -1)}));
  EXPECT_FALSE(
      sum.IsComputable(Index(0, 0), SetOfCindexes({C(kB, -1)}), &used));
  EXPECT_TRUE(used.empty());
  EXPECT_FALSE(sum.IsComputable(Index(0, 0), SetOfCindexes({}), nullptr));

  // One part not computable: the whole Append is not, and used is cleared.
  Descriptor app = ParseOk("Append(IfDefined(b), a)");
  EXPECT_FALSE(app.IsComputable(Index(0, 0), SetOfCindexes({C(kB, 0)}), &used));
  EXPECT_TRUE(used.empty());
  EXPECT_TRUE(app.IsComputable(Index(0, 0),
                               SetOfCindexes({C(kA, 0), C(kB, 0)}), &used));
  EXPECT_EQ(used, (std::vector<Cindex>{C(kB, 0), C(kA, 0)}));

  // Switch, Round and ReplaceIndex map to the one input that is needed.
  Descriptor sw = ParseOk("Switch(a, Offset(b, -1))");
  EXPECT_TRUE(sw.IsComputable(Index(0, 3), SetOfCindexes({C(kB, 2)}), &used));
  EXPECT_EQ(used, std::vector<Cindex>{C(kB, 2)});
  EXPECT_FALSE(sw.IsComputable(Index(0, 4), SetOfCindexes({C(kB, 3)}), &used));
  Descriptor round = ParseOk("Round(a, 4)");
  EXPECT_TRUE(round.IsComputable(Index(0, 7), SetOfCindexes({C(kA, 4)}),
                                 &used));
  EXPECT_FALSE(round.IsComputable(Index(0, 8), SetOfCindexes({C(kA, 4)}),
                                  &used));
  Descriptor rep = ParseOk("ReplaceIndex(ivector, t, 0)");
  EXPECT_TRUE(rep.IsComputable(Index(1, 99), SetOfCindexes({C(kIvector, 0, 0, 1)}),
                               &used));
  EXPECT_EQ(used, std::vector<Cindex>{C(kIvector, 0, 0, 1)});
  EXPECT_FALSE(rep.IsComputable(Index(0, 99),
                                SetOfCindexes({C(kIvector, 0, 0, 1)}), &used));

  // Const is always computable and uses nothing.
  Descriptor c = ParseOk("Sum(a, Const(1, 16))");
  EXPECT_TRUE(c.IsComputable(Index(0, 0), SetOfCindexes({C(kA, 0)}), &used));
  EXPECT_EQ(used, std::vector<Cindex>{C(kA, 0)});

  // Failover of two optional terms: first one wins even if it uses nothing.
  Descriptor ff = ParseOk("Failover(IfDefined(a), b)");
  EXPECT_TRUE(ff.IsComputable(Index(0, 0), SetOfCindexes({C(kB, 0)}), &used));
  EXPECT_TRUE(used.empty());
}

TEST(Descriptor, NodeDependencies) {
  std::vector<int32> nodes = {99};
  ParseOk("Append(Sum(a, Failover(b, Offset(a, 1))), Switch(c, input))")
      .GetNodeDependencies(&nodes);
  EXPECT_EQ(nodes, (std::vector<int32>{kA, kB, kA, kC, kInput}));
  ParseOk("Const(1, 3)").GetNodeDependencies(&nodes);
  EXPECT_TRUE(nodes.empty());
}

TEST(Descriptor, Modulus) {
  const std::pair<const char *, int32> cases[] = {
      {"a", 1},
      {"Offset(a, 5)", 1},
      {"Switch(a, b)", 2},
      {"Switch(a, b, c)", 3},
      {"Round(a, 4)", 4},
      {"Offset(Round(a, 5), 1)", 5},
      {"Append(Switch(a, b), Round(c, 3))", 6},
      {"Switch(Round(a, 2), b, c)", 6},
      {"Switch(Round(a, 4), b)", 4},
      {"Sum(Round(a, 2), Round(b, 3))", 6},
      {"Failover(Round(a, 4), Round(b, 6))", 12},
      {"IfDefined(Round(a, 4))", 4},
      {"ReplaceIndex(Round(a, 4), x, 0)", 1},  // as Kaldi: not passed through
      {"Const(1, 3)", 1},
  };
  for (const auto &c : cases)
    EXPECT_EQ(ParseOk(c.first).Modulus(), c.second) << c.first;
  EXPECT_EQ(Descriptor().Modulus(), 1);
}

TEST(Descriptor, Dim) {
  // input 8, ivector 5, a 16, b 16, c 10, d 16.
  std::vector<int32> dims = {8, 5, 16, 16, 10, 16, 32, 7};
  EXPECT_EQ(ParseOk("Append(Offset(input, -2), input, ReplaceIndex(ivector, "
                    "t, 0))").Dim(dims), 21);
  EXPECT_EQ(ParseOk("Sum(a, b)").Dim(dims), 16);
  EXPECT_EQ(ParseOk("Sum(a, Const(1, 16))").Dim(dims), 16);
  EXPECT_EQ(ParseOk("Append(c, Const(1, 3))").Dim(dims), 13);
  EXPECT_EQ(ParseOk("Switch(a, b, d)").Dim(dims), 16);
  EXPECT_EQ(ParseOk("IfDefined(Offset(c, 1))")
                .Dim([](int32 node) { return node == kC ? 10 : -1; }),
            10);
  const char *bad[] = {"Sum(a, c)", "Failover(a, c)", "Switch(a, c)",
                       "Sum(a, Const(1, 15))", "Append(c, Sum(a, input))"};
  for (const char *b : bad) {
    try {
      ParseOk(b).Dim(dims);
      ADD_FAILURE() << "no error for " << b;
    } catch (const UserError &e) {
      EXPECT_NE(e.message().find("inconsistent dimension"), std::string::npos)
          << e.message();
    }
  }
}

TEST(Descriptor, GetScaleForNode) {
  const BaseFloat inf = std::numeric_limits<BaseFloat>::infinity();
  Descriptor d = ParseOk("Sum(Scale(2, a), Const(-1, 16))");
  EXPECT_EQ(d.Part(0).GetScaleForNode(kA), 2.0f);
  EXPECT_EQ(d.Part(0).GetScaleForNode(kB), inf);
  EXPECT_EQ(d.Part(0).GetScaleForNode(-1), -1.0f);
  Descriptor e = ParseOk("Append(Offset(Scale(0.5, a), 1), Switch(b, Scale(3, c)))");
  EXPECT_EQ(e.Part(0).GetScaleForNode(kA), 0.5f);
  EXPECT_EQ(e.Part(0).GetScaleForNode(-1), 0.0f);
  EXPECT_EQ(e.Part(1).GetScaleForNode(kB), 1.0f);
  EXPECT_EQ(e.Part(1).GetScaleForNode(kC), 3.0f);
  EXPECT_EQ(ParseOk("Sum(a, Sum(Const(1, 16), Const(2, 16)))")
                .Part(0).GetScaleForNode(-1), 3.0f);
  EXPECT_EQ(ParseOk("Failover(a, b)").Part(0).GetScaleForNode(-1), 0.0f);
  EXPECT_EQ(ParseOk("Sum(a, Offset(a, 1))").Part(0).GetScaleForNode(kA), 1.0f);
  EXPECT_THROW(ParseOk("IfDefined(Const(1, 3))").Part(0).GetScaleForNode(-1),
               UserError);
  EXPECT_THROW(ParseOk("Sum(a, Scale(2, a))").Part(0).GetScaleForNode(kA),
               UserError);
  EXPECT_THROW(ParseOk("Switch(a, Scale(2, a))").Part(0).GetScaleForNode(kA),
               UserError);
  EXPECT_THROW(
      ParseOk("Failover(Sum(a, Const(1, 16)), b)").Part(0).GetScaleForNode(-1),
      UserError);
}

TEST(Descriptor, CopyIsDeep) {
  auto original = std::make_unique<Descriptor>(
      ParseOk("Append(Sum(Offset(a, 1), IfDefined(Round(Switch(b, c), 2))), "
              "Failover(ReplaceIndex(ivector, t, 0), Const(2, 5)))"));
  std::string printed = original->ToString(kNames);
  Descriptor copy(*original);
  Descriptor assigned;
  assigned = *original;
  original.reset();
  EXPECT_EQ(copy.ToString(kNames), printed);
  EXPECT_EQ(assigned.ToString(kNames), printed);
  std::vector<Cindex> deps;
  copy.GetDependencies(Index(0, 3), &deps);
  EXPECT_EQ(deps, (std::vector<Cindex>{C(kA, 4), C(kB, 2), C(kIvector, 0)}));
}

// Node names that are also words of the grammar's arguments ("t", "x") and
// names with '.', '-' are fine where a node is expected.
TEST(Descriptor, UnusualNodeNames) {
  std::vector<std::string> names = {"t", "x", "lstm1.c", "tdnn-2", "_h"};
  EXPECT_EQ(ParseOk("ReplaceIndex(t, t, 0)", names).ToString(names),
            "ReplaceIndex(t, t, 0)");
  EXPECT_EQ(ParseOk("Append(x, Offset(lstm1.c, -1), tdnn-2, _h)", names)
                .ToString(names),
            "Append(x, Offset(lstm1.c, -1), tdnn-2, _h)");
}

// ------------------------------------------------------------ Kaldi files
std::vector<std::string> ModelConfigs() {
  std::vector<std::string> out;
  std::string base = std::string(NNET3_TEST_DATA_DIR) + "/kaldi/models";
  for (const std::string &dir : {base, base + "/later"}) {
    DIR *d = opendir(dir.c_str());
    if (d == nullptr) continue;
    while (struct dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 7 && name.substr(name.size() - 7) == ".config")
        out.push_back(dir + "/" + name.substr(0, name.size() - 7));
    }
    closedir(d);
  }
  return out;
}

struct NodeLine {
  std::string type, name, input;
  std::map<std::string, int32> ints;  // dim, input-dim, output-dim
};

// Reads the node lines of a config, a text model or an nnet3-info listing.
std::vector<NodeLine> ReadNodeLines(const std::string &path) {
  std::vector<NodeLine> out;
  std::ifstream is(path);
  std::string line;
  while (std::getline(is, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    if (line.compare(0, 5, "<Nnet") == 0) line = line.substr(line.find('>') + 1);
    ConfigLine c;
    if (line.find("-node ") == std::string::npos || !c.ParseLine(line))
      continue;
    const std::string &t = c.FirstToken();
    if (t != "input-node" && t != "component-node" && t != "output-node" &&
        t != "dim-range-node")
      continue;
    NodeLine n;
    n.type = t;
    c.GetValue("name", &n.name);
    c.GetValue("input", &n.input);
    for (const char *key : {"dim", "input-dim", "output-dim"}) {
      int32 v;
      if (c.HasValue(key) && c.GetValue(key, &v)) n.ints[key] = v;
    }
    out.push_back(n);
  }
  return out;
}

int32 ReadInfoModulus(const std::string &path) {
  std::ifstream is(path);
  std::string line;
  while (std::getline(is, line))
    if (line.compare(0, 9, "modulus: ") == 0) return std::stoi(line.substr(9));
  return -1;
}

int32 Lcm(int32 a, int32 b) {
  int32 x = a, y = b;
  while (y != 0) { int32 r = x % y; x = y; y = r; }
  return a / x * b;
}

TEST(DescriptorConformance, PrintedFormsMatchKaldi) {
  std::vector<std::string> models = ModelConfigs();
  ASSERT_GE(models.size(), 20u) << "Kaldi model files missing";
  int32 num_compared = 0, num_dims = 0, num_moduli = 0;
  for (const std::string &model : models) {
    SCOPED_TRACE(model);
    std::vector<NodeLine> config = ReadNodeLines(model + ".config"),
                          text = ReadNodeLines(model + ".txt"),
                          info = ReadNodeLines(model + ".info");
    if (text.empty()) continue;  // Kaldi refused this config
    // Node names as Kaldi's Nnet holds them: component-nodes come with a
    // "<name>_input" descriptor node.
    std::vector<std::string> names;
    std::map<std::string, const NodeLine *> text_by_name, info_by_name;
    for (const NodeLine &n : config) {
      if (n.type == "component-node") names.push_back(n.name + "_input");
      names.push_back(n.name);
    }
    for (const NodeLine &n : text) text_by_name[n.type + " " + n.name] = &n;
    for (const NodeLine &n : info) info_by_name[n.type + " " + n.name] = &n;
    // Output dims of every node, from nnet3-info (oracle for Dim()).
    std::map<std::string, int32> out_dim;
    for (const NodeLine &n : info) {
      auto it = n.ints.find(n.type == "component-node" ? "output-dim" : "dim");
      if (it != n.ints.end()) out_dim[n.name] = it->second;
    }
    NodeDimFunction node_dim = [&](int32 node) -> int32 {
      auto it = out_dim.find(names[node]);
      EXPECT_NE(it, out_dim.end()) << names[node];
      return it == out_dim.end() ? 0 : it->second;
    };
    int32 modulus = 1;
    for (const NodeLine &n : config) {
      if (n.type != "component-node" && n.type != "output-node") continue;
      SCOPED_TRACE(n.name + " input=" + n.input);
      auto it = text_by_name.find(n.type + " " + n.name);
      ASSERT_NE(it, text_by_name.end());
      Descriptor d = ParseOk(n.input, names);
      std::string printed = d.ToString(names);
      EXPECT_EQ(printed, it->second->input);
      // Kaldi's printed form reads back to itself.
      EXPECT_EQ(ParseOk(it->second->input, names).ToString(names),
                it->second->input);
      num_compared++;
      modulus = Lcm(modulus, d.Modulus());
      auto inf = info_by_name.find(n.type + " " + n.name);
      if (inf != info_by_name.end()) {
        const char *key = n.type == "component-node" ? "input-dim" : "dim";
        auto dim = inf->second->ints.find(key);
        if (dim != inf->second->ints.end()) {
          EXPECT_EQ(d.Dim(node_dim), dim->second);
          num_dims++;
        }
      }
    }
    int32 kaldi_modulus = ReadInfoModulus(model + ".info");
    if (kaldi_modulus > 0) {
      EXPECT_EQ(modulus, kaldi_modulus);
      num_moduli++;
    }
  }
  EXPECT_GT(num_compared, 100);
  EXPECT_GT(num_dims, 100);
  EXPECT_GT(num_moduli, 20);
  std::cout << "compared " << num_compared << " descriptors, " << num_dims
            << " dims, " << num_moduli << " moduli with Kaldi's\n";
}

}  // namespace
}  // namespace nnet3
