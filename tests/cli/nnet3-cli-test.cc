// tests/cli/nnet3-cli-test.cc
// nnet3-init / nnet3-info / nnet3-copy as a user runs them: config errors
// (each with its message and exit status), edits, and option effects
// checked against the text form of the model.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

const char *kGoodConfig =
    "input-node name=input dim=4\n"
    "component name=affine type=AffineComponent input-dim=8 output-dim=3\n"
    "component-node name=affine component=affine input=Append(Offset(input, -1), input)\n"
    "component name=relu type=RectifiedLinearComponent dim=3\n"
    "component-node name=relu component=relu input=affine\n"
    "output-node name=output input=relu\n";

class Nnet3Cli : public ::testing::Test {
 protected:
  CommandResult Run(const std::string &cmd) { return RunCommand(cmd, dir_.path()); }
  void Write(const std::string &name, const std::string &text) {
    WriteFile(dir_.File(name), text);
  }
  // Runs nnet3-init on a config and expects failure whose error line
  // contains every fragment.
  void ExpectInitError(const std::string &config,
                       const std::vector<std::string> &fragments) {
    Write("bad.config", config);
    CommandResult r = Run("nnet3-init bad.config out.raw");
    EXPECT_EQ(r.exit_status, 1) << r.err;
    std::string last = LastLine(r.err);
    EXPECT_EQ(last.rfind("ERROR (", 0), 0u) << r.err;
    for (const std::string &f : fragments)
      EXPECT_NE(last.find(f), std::string::npos)
          << "error line lacks '" << f << "': " << last;
    EXPECT_FALSE(FileExists(dir_.File("out.raw")));
  }
  TempDir dir_;
};

TEST_F(Nnet3Cli, InitInfoCopy) {
  Write("good.config", kGoodConfig);
  CommandResult r = Run("nnet3-init --srand=3 good.config a.raw && nnet3-info a.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("left-context: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("right-context: 0\n"), std::string::npos);
  EXPECT_NE(r.out.find("num-parameters: 27\n"), std::string::npos);  // 8*3+3
  EXPECT_NE(r.out.find("component-node name=affine component=affine input=Append(Offset(input, -1), input) input-dim=8 output-dim=3"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output-node name=output input=relu dim=3 objective=linear"),
            std::string::npos);
  // Same seed, same parameters; text and binary agree.
  r = Run("nnet3-init --srand=3 good.config b.raw && cmp a.raw b.raw && "
          "nnet3-copy --binary=false a.raw a.txt && nnet3-copy a.txt c.raw && "
          "nnet3-copy --binary=false c.raw c.txt && cmp a.txt c.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;
}

TEST_F(Nnet3Cli, InitOnTopOfAnExistingModel) {
  Write("good.config", kGoodConfig);
  Write("more.config",
        "component name=final type=AffineComponent input-dim=3 output-dim=2\n"
        "component-node name=final component=final input=relu\n"
        "output-node name=output input=final objective=quadratic\n");
  CommandResult r = Run("nnet3-init good.config a.raw && nnet3-init a.raw "
                        "more.config b.raw && nnet3-info b.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("output-node name=output input=final dim=2 objective=quadratic"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("num-parameters: 35\n"), std::string::npos);
}

TEST_F(Nnet3Cli, ConfigErrors) {
  ExpectInitError("input-node name=input dim=4\ncomponent name=a type=NoSuchComponent dim=3\n",
                  {"bad.config:2", "NoSuchComponent", "AffineComponent"});
  ExpectInitError("input-node name=input dim=4\ncomponent name=a type=RectifiedLinearComponent dim=4 colour=red\n",
                  {"bad.config:2", "colour=red"});
  ExpectInitError("input-node name=input dim=4\nfrobnicate name=x\n",
                  {"bad.config:2", "frobnicate"});
  ExpectInitError(
      "input-node name=input dim=4\n"
      "component name=a type=AffineComponent input-dim=5 output-dim=3\n"
      "component-node name=a component=a input=input\n"
      "output-node name=output input=a\n",
      {"a", "4", "5"});
  ExpectInitError(
      "input-node name=input dim=4\n"
      "component name=r type=RectifiedLinearComponent dim=4\n"
      "component-node name=r component=r input=nosuchnode\n"
      "output-node name=output input=r\n",
      {"bad.config:3", "nosuchnode"});
  ExpectInitError(
      "input-node name=input dim=4\n"
      "component name=r type=RectifiedLinearComponent dim=4\n"
      "component-node name=r component=r input=Offset(input, \n"
      "output-node name=output input=r\n",
      {"bad.config:3"});
  ExpectInitError(
      "input-node name=input dim=4\ninput-node name=input dim=5\n"
      "output-node name=output input=input\n",
      {"bad.config:2", "input", "twice"});
  ExpectInitError("input-node name=input dim=4\n", {"no output"});
  ExpectInitError(
      "input-node name=input dim=4\n"
      "output-node name=output input=input\n"
      "output-node name=output2 input=output\n",
      {"output2", "an output node"});
  ExpectInitError(
      "input-node name=input dim=4\n"
      "component name=r type=RectifiedLinearComponent dim=4\n"
      "component-node name=r component=r input=input\n"
      "dim-range-node name=part input-node=r dim-offset=2 dim=3\n"
      "output-node name=output input=part\n",
      {"part", "dim-offset=2", "dim=3"});
}

// Each general component type with an inconsistent dimension, time offset
// or geometry: nnet3-init names the config line and the option.
TEST_F(Nnet3Cli, ConfigErrorsOfTheGeneralComponentTypes) {
  const std::vector<std::pair<std::string, std::string> > cases = {
      {"TdnnComponent input-dim=4 output-dim=3 time-offsets=0,0", "time-offsets"},
      {"TdnnComponent input-dim=0 output-dim=3 time-offsets=-1,0", "input-dim"},
      {"TimeHeightConvolutionComponent num-filters-in=2 num-filters-out=3 "
       "height-in=4 height-out=7 time-offsets=-1,0,1 height-offsets=-1,0,1",
       "height-out"},
      {"ConvolutionComponent input-x-dim=3 input-y-dim=4 input-z-dim=2 "
       "filt-x-dim=5 filt-y-dim=2 num-filters=3", "filt-x-dim"},
      {"MaxpoolingComponent input-x-dim=3 input-y-dim=4 input-z-dim=2 "
       "pool-x-size=4 pool-y-size=2 pool-z-size=1", "pool-x-size"},
      {"LstmNonlinearityComponent cell-dim=0", "cell-dim"},
      {"GruNonlinearityComponent cell-dim=4 recurrent-dim=6", "recurrent-dim"},
      {"OutputGruNonlinearityComponent cell-dim=-1", "cell-dim"},
      {"BackpropTruncationComponent dim=0", "dim"},
      {"StatisticsExtractionComponent input-dim=4 input-period=2 output-period=3",
       "output-period"},
      {"StatisticsPoolingComponent input-dim=9 left-context=-2 right-context=2",
       "left-context"},
      {"RestrictedAttentionComponent num-heads=1 key-dim=2 value-dim=2 "
       "num-left-inputs=2 num-right-inputs=1 time-stride=0", "time-stride"},
      {"GeneralDropoutComponent dim=4 block-dim=3", "block-dim"},
      {"DropoutMaskComponent output-dim=3 dropout-proportion=1.5",
       "dropout-proportion"},
      {"SpecAugmentTimeMaskComponent dim=4 time-mask-max-frames=1",
       "time-mask-max-frames"},
      {"DistributeComponent input-dim=7 output-dim=3", "input-dim"},
      {"ConstantComponent output-dim=0", "output-dim"},
      {"CompositeComponent num-components=2 "
       "component1='type=TanhComponent dim=4'", "component2"},
      {"BlockAffineComponent input-dim=6 output-dim=4 num-blocks=4", "num-blocks"},
      {"RepeatedAffineComponent input-dim=6 output-dim=4 num-repeats=4",
       "num-repeats"},
      {"NaturalGradientRepeatedAffineComponent input-dim=6 output-dim=4 "
       "num-repeats=4", "num-repeats"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.first);
    ExpectInitError("input-node name=input dim=4\ncomponent name=c type=" +
                        c.first + "\ncomponent-node name=c component=c "
                        "input=input\noutput-node name=output input=c\n",
                    {"bad.config:2", c.second});
  }
}

TEST_F(Nnet3Cli, MissingFilesAndUnknownOptions) {
  CommandResult r = Run("nnet3-init no_such.config out.raw");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("no_such.config"), std::string::npos) << r.err;
  r = Run("nnet3-info no_such.raw");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("no_such.raw"), std::string::npos) << r.err;
  r = Run("nnet3-copy --no-such-option=1 a b");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("--no-such-option"), std::string::npos);
}

TEST_F(Nnet3Cli, TruncatedModelIsAnErrorAndLeavesOutputAlone) {
  Write("good.config", kGoodConfig);
  ASSERT_EQ(Run("nnet3-init good.config a.raw").exit_status, 0);
  std::string raw = ReadFile(dir_.File("a.raw"));
  Write("cut.raw", raw.substr(0, raw.size() - 20));
  Write("out.raw", "precious");
  CommandResult r = Run("nnet3-copy cut.raw out.raw");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(ReadFile(dir_.File("out.raw")), "precious");
}

TEST_F(Nnet3Cli, EditsAndOptions) {
  Write("good.config", kGoodConfig);
  ASSERT_EQ(Run("nnet3-init good.config a.raw").exit_status, 0);
  CommandResult r = Run(
      "nnet3-copy --edits='set-learning-rate learning-rate=0.25;"
      "rename-node old-name=relu new-name=nonlin' a.raw b.raw && nnet3-info b.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("learning-rate=0.25"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("component-node name=nonlin component=relu"), std::string::npos);
  EXPECT_NE(r.out.find("output-node name=output input=nonlin"), std::string::npos);
  r = Run("nnet3-copy --edits='frobnicate x=1' a.raw b.raw");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("frobnicate"), std::string::npos);
  // --scale=2 doubles every parameter: compare the text forms.
  r = Run("nnet3-copy --binary=false a.raw a.txt && nnet3-copy --binary=false "
          "--scale=2 a.raw s.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string a = ReadFile(dir_.File("a.txt")), s = ReadFile(dir_.File("s.txt"));
  size_t pa = a.find("<LinearParams>"), ps = s.find("<LinearParams>");
  ASSERT_NE(pa, std::string::npos);
  std::istringstream ia(a.substr(pa + 17)), is(s.substr(ps + 17));
  for (int i = 0; i < 24; i++) {
    double x, y;
    ia >> x;
    is >> y;
    EXPECT_NEAR(y, 2 * x, 1e-5 * std::fabs(y) + 1e-6);
  }
}

TEST_F(Nnet3Cli, SvdEdits) {
  Write("good.config", kGoodConfig);
  ASSERT_EQ(Run("nnet3-init good.config a.raw").exit_status, 0);
  // apply-svd splits affine (8 -> 3) into affine_a (8 -> 2) and affine_b.
  CommandResult r = Run(
      "nnet3-copy --edits='apply-svd name=aff* bottleneck-dim=2' a.raw b.raw "
      "&& nnet3-info b.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("component-node name=affine_a component=affine_a "
                       "input=Append(Offset(input, -1), input) input-dim=8 "
                       "output-dim=2"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("component-node name=affine_b component=affine_b "
                       "input=affine_a input-dim=2 output-dim=3"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("component-node name=relu component=relu input=affine_b"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("component name=affine_a type=LinearComponent"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("component name=affine_b type=NaturalGradientAffineComponent"),
            std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("component name=affine type="), std::string::npos) << r.out;
  // reduce-rank keeps the structure and the parameter count.
  r = Run("nnet3-copy --edits='reduce-rank name=affine rank=1' a.raw c.raw "
          "&& nnet3-info c.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("num-parameters: 27\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("component name=affine type=AffineComponent"),
            std::string::npos) << r.out;
  // Errors name the option, on one line.
  r = Run("nnet3-copy --edits='reduce-rank name=affine' a.raw d.raw");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("rank=<r>"), std::string::npos) << r.err;
  r = Run("nnet3-copy --edits='apply-svd name=affine energy-threshold=2' "
          "a.raw d.raw");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("energy-threshold=2"), std::string::npos)
      << r.err;
  // A non-affine match is a warning, not an error.
  r = Run("nnet3-copy --edits='apply-svd name=relu bottleneck-dim=1' a.raw d.raw");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("WARNING"), std::string::npos) << r.err;
}

TEST_F(Nnet3Cli, RemoveOutputNodesAndOrphans) {
  Write("two.config",
        "input-node name=input dim=4\n"
        "component name=a type=AffineComponent input-dim=4 output-dim=3\n"
        "component-node name=a component=a input=input\n"
        "component name=b type=AffineComponent input-dim=4 output-dim=2\n"
        "component-node name=b component=b input=input\n"
        "output-node name=output input=a\n"
        "output-node name=output-xent input=b\n");
  CommandResult r = Run("nnet3-init two.config a.raw && nnet3-copy "
                        "--edits='remove-output-nodes name=*xent;remove-orphans' "
                        "a.raw b.raw && nnet3-info b.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out.find("output-xent"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("component name=b "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("num-parameters: 15\n"), std::string::npos) << r.out;
}

TEST_F(Nnet3Cli, ReadsTheNnetOutOfAnMdl) {
  // A .mdl is a transition model followed by the nnet (and priors); where a
  // raw nnet is expected the transition model is skipped.
  std::string raw = ReadFile(DataDir() + "/kaldi/models/seed.raw");
  ASSERT_EQ(raw.substr(0, 2), std::string("\0B", 2));
  std::string tm = "<TransitionModel> <Topology> ";
  for (int i = 0; i < 64; i++) tm += static_cast<char>(i * 7);  // binary junk
  tm += " </Triples> </TransitionModel> ";
  std::string mdl = std::string("\0B", 2) + tm + raw.substr(2) +
                    "<LeftContext> \x04\x01\x00\x00\x00";
  Write("final.mdl", mdl);
  CommandResult r = Run("nnet3-copy final.mdl out.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(ReadFile(dir_.File("out.raw")) == raw);
}

TEST_F(Nnet3Cli, InfoDotPrintsADigraph) {
  // Nodes of kGoodConfig: input n0, affine_input n1, affine n2,
  // relu_input n3, relu n4, output n5.
  Write("good.config", kGoodConfig);
  CommandResult r = Run("nnet3-init good.config a.raw && nnet3-info --dot a.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  ASSERT_GE(r.out.size(), 2u);
  EXPECT_EQ(r.out.rfind("digraph nnet {\n", 0), 0u) << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n") << r.out;
  EXPECT_NE(r.out.find("  n2 [label=\"affine\\nAffineComponent\\ndim=3\", "
                       "shape=box];\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  n0 -> n1 [label=\"t-1, t\"];\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  n4 -> n5;\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("num-parameters"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
