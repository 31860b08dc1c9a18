// tests/util/options-test.cc
#include "util/options.h"

#include <sstream>

#include <gtest/gtest.h>

#include "base/log.h"
#include "util-test-util.h"

namespace nnet3 {
namespace {

struct DemoOptions {
  int32 num_frames = 10;
  bool use_gpu = false;
  float scale = 1.0f;
  double rate = 0.5;
  uint32 big = 7;
  std::string name = "x";
  void Register(OptionsItf *opts) {
    opts->Register("num-frames", &num_frames, "Number of frames");
    opts->Register("use_gpu", &use_gpu, "Use the GPU");
    opts->Register("scale", &scale, "Scale");
    opts->Register("rate", &rate, "Rate");
    opts->Register("big", &big, "Big");
    opts->Register("name", &name, "Name");
  }
};

// Owns argv strings for a call to Read().
struct Args {
  explicit Args(std::vector<std::string> a) : args(std::move(a)) {
    for (const std::string &s : args) ptrs.push_back(s.c_str());
  }
  int argc() const { return static_cast<int>(ptrs.size()); }
  const char *const *argv() const { return ptrs.data(); }
  std::vector<std::string> args;
  std::vector<const char *> ptrs;
};

// Parses argv (program name first) with --print-args=false prepended.
std::string Parse(ParseOptions *po, std::vector<std::string> args) {
  args.insert(args.begin() + 1, "--print-args=false");
  Args a(args);
  return test::UserErrorOf([&] { po->Read(a.argc(), a.argv()); });
}

TEST(OptionsTest, ParsesTypedValuesAndPositionals) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  EXPECT_EQ(Parse(&po, {"prog", "--num-frames=5", "--use-gpu", "--scale=0.25",
                        "--rate=1e-3", "--big=4000000000", "--name=a b",
                        "in.ark", "out.ark"}),
            "");
  EXPECT_EQ(o.num_frames, 5);
  EXPECT_TRUE(o.use_gpu);
  EXPECT_EQ(o.scale, 0.25f);
  EXPECT_EQ(o.rate, 1e-3);
  EXPECT_EQ(o.big, 4000000000u);
  EXPECT_EQ(o.name, "a b");
  EXPECT_EQ(po.NumArgs(), 2);
  EXPECT_EQ(po.GetArg(1), "in.ark");
  EXPECT_EQ(po.GetArg(2), "out.ark");
  EXPECT_EQ(po.GetOptArg(3), "");
  EXPECT_NE(test::UserErrorOf([&] { po.GetArg(3); }), "");
  EXPECT_NE(test::UserErrorOf([&] { po.GetArg(0); }), "");
}

TEST(OptionsTest, BooleanSpellings) {
  const std::vector<std::pair<std::string, bool> > cases = {
      {"--use-gpu=true", true}, {"--use-gpu=false", false},
      {"--use-gpu=T", true},    {"--use-gpu=f", false},
      {"--use-gpu=1", true},    {"--use-gpu=0", false},
      {"--use-gpu", true},      {"--use-gpu=FALSE", false}};
  for (const auto &c : cases) {
    ParseOptions po("usage");
    DemoOptions o;
    o.use_gpu = !c.second;
    o.Register(&po);
    EXPECT_EQ(Parse(&po, {"prog", c.first}), "") << c.first;
    EXPECT_EQ(o.use_gpu, c.second) << c.first;
  }
}

TEST(OptionsTest, BadValuesNameTheOption) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  std::string err = Parse(&po, {"prog", "--use-gpu=maybe"});
  EXPECT_NE(err.find("Invalid value 'maybe' for option --use-gpu (bool)"),
            std::string::npos) << err;
  err = Parse(&po, {"prog", "--use-gpu="});
  EXPECT_NE(err.find("--use-gpu"), std::string::npos) << err;
  err = Parse(&po, {"prog", "--num-frames=abc"});
  EXPECT_NE(err.find("Invalid value 'abc' for option --num-frames (int)"),
            std::string::npos) << err;
  err = Parse(&po, {"prog", "--num-frames"});
  EXPECT_NE(err.find("--num-frames (int)"), std::string::npos) << err;
  err = Parse(&po, {"prog", "--big=-1"});
  EXPECT_NE(err.find("--big (uint)"), std::string::npos) << err;
  err = Parse(&po, {"prog", "--scale=1.5.2"});
  EXPECT_NE(err.find("--scale (float)"), std::string::npos) << err;
  err = Parse(&po, {"prog", "--name"});
  EXPECT_NE(err.find("--name"), std::string::npos) << err;
  err = Parse(&po, {"prog", "--=3"});
  EXPECT_NE(err, "");
}

TEST(OptionsTest, UnknownOptionIsAnError) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  testing::internal::CaptureStderr();  // The usage message goes there.
  std::string err = Parse(&po, {"prog", "--foo=1", "a"});
  testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Invalid option --foo=1"), std::string::npos) << err;
}

TEST(OptionsTest, NamesAreNormalized) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  EXPECT_EQ(Parse(&po, {"prog", "--num_frames=3", "--USE-GPU=true"}), "");
  EXPECT_EQ(o.num_frames, 3);
  EXPECT_TRUE(o.use_gpu);
  EXPECT_EQ(Parse(&po, {"prog", "--use_gpu=false"}), "");
  EXPECT_FALSE(o.use_gpu);
}

TEST(OptionsTest, OptionsAfterPositionalsArePositional) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  EXPECT_EQ(Parse(&po, {"prog", "a", "--num-frames=3"}), "");
  EXPECT_EQ(o.num_frames, 10);
  ASSERT_EQ(po.NumArgs(), 2);
  EXPECT_EQ(po.GetArg(2), "--num-frames=3");
}

TEST(OptionsTest, DoubleDashEndsOptions) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  EXPECT_EQ(Parse(&po, {"prog", "--num-frames=3", "--", "--scale=2", "b"}),
            "");
  EXPECT_EQ(o.num_frames, 3);
  EXPECT_EQ(o.scale, 1.0f);
  ASSERT_EQ(po.NumArgs(), 2);
  EXPECT_EQ(po.GetArg(1), "--scale=2");
  EXPECT_EQ(po.GetArg(2), "b");
}

TEST(OptionsTest, ConfigFileAndCommandLineOverride) {
  test::TempDir dir;
  std::string conf = dir.File("a.conf");
  test::WriteFileBytes(conf,
                       "# a comment\n"
                       "\n"
                       "--num-frames=20   # trailing comment\n"
                       "  --scale=3\n"
                       "--use_gpu=true\n");
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  // The command line wins even when it comes before --config.
  EXPECT_EQ(Parse(&po, {"prog", "--scale=4", "--config=" + conf, "x"}), "");
  EXPECT_EQ(o.num_frames, 20);
  EXPECT_EQ(o.scale, 4.0f);
  EXPECT_TRUE(o.use_gpu);
  EXPECT_EQ(po.NumArgs(), 1);
}

TEST(OptionsTest, ConfigFileErrorsNameFileAndLine) {
  test::TempDir dir;
  std::string conf = dir.File("bad.conf");
  test::WriteFileBytes(conf, "--num-frames=2\nnum-frames=3\n");
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  std::string err = Parse(&po, {"prog", "--config=" + conf});
  EXPECT_NE(err.find(conf), std::string::npos) << err;
  EXPECT_NE(err.find("line 2"), std::string::npos) << err;
  test::WriteFileBytes(conf, "--frobnicate=3\n");
  err = Parse(&po, {"prog", "--config=" + conf});
  EXPECT_NE(err.find("--frobnicate"), std::string::npos) << err;
  EXPECT_NE(err.find("line 1"), std::string::npos) << err;
  err = Parse(&po, {"prog", "--config=" + dir.File("missing.conf")});
  EXPECT_NE(err.find("missing.conf"), std::string::npos) << err;
}

TEST(OptionsTest, PrefixedOptions) {
  ParseOptions po("usage");
  DemoOptions outer, inner, nested;
  outer.Register(&po);
  ParseOptions opt_po("optimization", &po);
  inner.Register(&opt_po);
  ParseOptions nested_po("deep", &opt_po);
  nested.Register(&nested_po);
  EXPECT_EQ(Parse(&po, {"prog", "--num-frames=1", "--optimization.num-frames=2",
                        "--optimization.deep.num_frames=3"}),
            "");
  EXPECT_EQ(outer.num_frames, 1);
  EXPECT_EQ(inner.num_frames, 2);
  EXPECT_EQ(nested.num_frames, 3);
}

TEST(OptionsTest, PrintArgsEchoesTheCommandLine) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  Args a({"prog", "--name=a b", "x"});
  testing::internal::CaptureStderr();
  po.Read(a.argc(), a.argv());
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "prog '--name=a b' x \n");
}

TEST(OptionsTest, VerboseSetsTheLevel) {
  int old = GetVerboseLevel();
  ParseOptions po("usage");
  EXPECT_EQ(Parse(&po, {"prog", "--verbose=3"}), "");
  EXPECT_EQ(GetVerboseLevel(), 3);
  SetVerboseLevel(old);
}

TEST(OptionsTest, HelpPrintsUsageAndExits) {
  auto run = [] {
    ParseOptions po("Usage: prog [options] <in> <out>");
    DemoOptions o;
    o.Register(&po);
    Args a({"prog", "--help"});
    po.Read(a.argc(), a.argv());
    std::exit(3);  // Not reached if --help exits.
  };
  // Each line: two spaces, --name padded to 25 columns, " : ", the doc.
  EXPECT_EXIT(run(), testing::ExitedWithCode(0),
              "Usage: prog \\[options\\] <in> <out>\nOptions:\n"
              "  --big                       : Big \\(uint, default = 7\\)\n"
              "  --name                      : Name \\(string, default = "
              "\"x\"\\)\n"
              "  --num-frames                : Number of frames \\(int, "
              "default = 10\\)\n");
  EXPECT_EXIT(run(), testing::ExitedWithCode(0),
              "Standard options:\n  --config                    : "
              "Read options from this file");
  EXPECT_EXIT(run(), testing::ExitedWithCode(0),
              "  --use_gpu                   : Use the GPU \\(bool, default "
              "= false\\)");
}

TEST(OptionsTest, PrintConfig) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  EXPECT_EQ(Parse(&po, {"prog", "--num-frames=4"}), "");
  std::ostringstream os;
  po.PrintConfig(os);
  EXPECT_NE(os.str().find("\nnum-frames = 4\n"), std::string::npos);
  EXPECT_NE(os.str().find("\nuse_gpu = false\n"), std::string::npos);
}

TEST(OptionsTest, DuplicateRegistrationKeepsTheFirst) {
  ParseOptions po("usage");
  int32 a = 1, b = 2;
  test::LogCapture log;
  po.Register("x", &a, "first");
  po.Register("x", &b, "second");
  EXPECT_TRUE(log.Contains("Option registered twice"));
  EXPECT_EQ(Parse(&po, {"prog", "--x=9"}), "");
  EXPECT_EQ(a, 9);
  EXPECT_EQ(b, 2);
}

TEST(OptionsTest, DisableOption) {
  ParseOptions po("usage");
  DemoOptions o;
  o.Register(&po);
  po.DisableOption("scale");
  testing::internal::CaptureStderr();
  std::string err = Parse(&po, {"prog", "--scale=2"});
  testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Invalid option --scale=2"), std::string::npos);
}

TEST(OptionsTest, Escape) {
  EXPECT_EQ(ParseOptions::Escape("abc-1_2.ark:x,y/z"), "abc-1_2.ark:x,y/z");
  EXPECT_EQ(ParseOptions::Escape("a b"), "'a b'");
  EXPECT_EQ(ParseOptions::Escape(""), "''");
  EXPECT_EQ(ParseOptions::Escape("it's"), "\"it's\"");
  EXPECT_EQ(ParseOptions::Escape("it's $x"), "'it'\\''s $x'");
  EXPECT_EQ(ParseOptions::Escape("ark:gunzip -c a.gz|"),
            "'ark:gunzip -c a.gz|'");
}

}  // namespace
}  // namespace nnet3
