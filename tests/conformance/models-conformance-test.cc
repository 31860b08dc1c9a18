// tests/conformance/models-conformance-test.cc
// Kaldi's reference models (tests/data/kaldi/models, from Kaldi's own
// nnet3-init / nnet3-copy / nnet3-info) against our tools:
//  - byte-identical copies: raw -> txt equals NAME.txt, raw -> raw equals
//    NAME.raw, txt -> txt equals NAME.txt, txt -> raw -> txt equals NAME.txt;
//  - nnet3-info of NAME.raw reports the same contexts, parameter count,
//    modulus and node lines (with dims) as NAME.info, and the same
//    component names and types;
//  - nnet3-init of NAME.config gives a network with the same nnet3-info
//    facts (parameters are random, so only structure is compared).
// Every Kaldi component type is implemented: a model with a type the
// registry does not know is a failure naming the types (nothing is skipped).
#include <gtest/gtest.h>
#include <dirent.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "common/testing.h"
#include "nnet3/components/component.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Kaldi() { return DataDir() + "/kaldi"; }

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const std::string sub : {"models", "models/later"}) {
    DIR *dir = opendir((Kaldi() + "/" + sub).c_str());
    if (!dir) continue;
    while (dirent *e = readdir(dir)) {
      std::string f = e->d_name;
      if (f.size() > 4 && f.substr(f.size() - 4) == ".raw")
        names.push_back(sub + "/" + f.substr(0, f.size() - 4));
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Component types named in a Kaldi text model ("<ComponentName> x <Type>").
std::set<std::string> ComponentTypes(const std::string &txt) {
  std::set<std::string> types;
  std::istringstream is(txt);
  std::string tok;
  while (is >> tok) {
    if (tok != "<ComponentName>") continue;
    std::string name, type;
    is >> name >> type;
    if (type.size() > 2) types.insert(type.substr(1, type.size() - 2));
  }
  return types;
}

std::string MissingTypes(const std::string &txt) {
  std::vector<std::string> known = ComponentRegistry::Get().Types();
  std::string missing;
  for (const std::string &t : ComponentTypes(txt))
    if (std::find(known.begin(), known.end(), t) == known.end())
      missing += (missing.empty() ? "" : ", ") + t;
  return missing;
}

// The lines of nnet3-info output that must match Kaldi's exactly, plus the
// "component name=X type=Type" prefix of component lines.
std::vector<std::string> InfoFacts(const std::string &info) {
  std::vector<std::string> facts;
  std::istringstream is(info);
  std::string line;
  while (std::getline(is, line)) {
    if (line.rfind("component name=", 0) == 0) {
      facts.push_back(line.substr(0, line.find(',')));
    } else if (!line.empty()) {
      facts.push_back(line);
    }
  }
  return facts;
}

std::string Name(const ::testing::TestParamInfo<std::string> &info) {
  std::string s = info.param;
  for (char &c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class ModelConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    model_ = Kaldi() + "/" + GetParam();
    txt_ = ReadFile(model_ + ".txt");
    std::string missing = MissingTypes(txt_);
    if (!missing.empty())
      FAIL() << GetParam() << " uses component types this library does not "
             << "register: " << missing;
  }
  CommandResult Run(const std::string &cmd) {
    return RunCommand(cmd, Kaldi());
  }
  std::string model_, txt_;
  TempDir dir_;
};

TEST_P(ModelConformance, CopiesAreByteIdentical) {
  std::string out = dir_.path();
  CommandResult r = Run("nnet3-copy --binary=false " + model_ + ".raw " + out +
                        "/a.txt && nnet3-copy " + model_ + ".raw " + out +
                        "/b.raw && nnet3-copy --binary=false " + model_ +
                        ".txt " + out + "/c.txt && nnet3-copy " + model_ +
                        ".txt " + out + "/d.raw && nnet3-copy --binary=false " +
                        out + "/d.raw " + out + "/e.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(ReadFile(out + "/a.txt") == txt_) << "raw -> txt differs";
  EXPECT_TRUE(ReadFile(out + "/b.raw") == ReadFile(model_ + ".raw"))
      << "raw -> raw differs";
  EXPECT_TRUE(ReadFile(out + "/c.txt") == txt_) << "txt -> txt differs";
  EXPECT_TRUE(ReadFile(out + "/e.txt") == txt_) << "txt -> raw -> txt differs";
}

TEST_P(ModelConformance, InfoMatchesKaldi) {
  CommandResult r = Run("nnet3-info " + model_ + ".raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::vector<std::string> got = InfoFacts(r.out),
                           want = InfoFacts(ReadFile(model_ + ".info"));
  EXPECT_EQ(got, want);
}

TEST_P(ModelConformance, InitFromConfigHasTheSameStructure) {
  std::string out = dir_.path() + "/init.raw";
  CommandResult r = Run("nnet3-init " + model_ + ".config " + out +
                        " && nnet3-info " + out);
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(InfoFacts(r.out), InfoFacts(ReadFile(model_ + ".info")));
}

INSTANTIATE_TEST_SUITE_P(Kaldi, ModelConformance,
                         ::testing::ValuesIn(ModelNames()), Name);

}  // namespace
}  // namespace testing
}  // namespace nnet3
