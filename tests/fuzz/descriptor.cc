// tests/fuzz/descriptor.cc
// Fuzz target: the Descriptor parser alone (ParseDescriptor, the code that
// reads input=... in config files), over five known nodes, then what the
// compiler asks of a parsed descriptor: its dimension, modulus, node
// dependencies, and the Cindexes it reads for a few Indexes (with
// IsComputable against a set that holds t in [-20, 20]). A descriptor that
// parsed must print (WriteConfig) a form that parses back to the same
// printed form.
#include <string>
#include <vector>

#include "fuzz/fuzz-common.h"
#include "nnet3/core/descriptor.h"

namespace {

// Cindexes with |t| <= 20 and n, x in [0, 2] are computable.
class SmallCindexSet : public nnet3::CindexSet {
 public:
  bool operator()(const nnet3::Cindex &c) const override {
    const nnet3::Index &i = c.second;
    return i.t >= -20 && i.t <= 20 && i.n >= 0 && i.n <= 2 && i.x >= 0 &&
           i.x <= 2;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  std::string text(reinterpret_cast<const char *>(data), size);
  static const std::vector<std::string> names = {"input", "ivector", "a",
                                                 "b", "output"};
  static const std::vector<int32> dims = {40, 100, 40, 7, 40};
  fuzz::Guarded("descriptor", [&]() {
    Descriptor desc;
    std::string error;
    if (!ParseDescriptor(text, names, &desc, &error)) return;
    std::string printed = desc.ToString(names);
    Descriptor again;
    if (!ParseDescriptor(printed, names, &again, &error))
      fuzz::Fail("descriptor", "the printed form '" + printed +
                                   "' does not parse: " + error);
    if (again.ToString(names) != printed)
      fuzz::Fail("descriptor", "'" + printed + "' prints back as '" +
                                   again.ToString(names) + "'");
    desc.Modulus();
    std::vector<int32> nodes;
    desc.GetNodeDependencies(&nodes);
    SmallCindexSet computable;
    std::vector<Cindex> deps, used;
    for (int32 t : {-3, 0, 1, 7})
      for (int32 x : {0, 1}) {
        Index index(0, t, x);
        desc.GetDependencies(index, &deps);
        desc.IsComputable(index, computable, &used);
      }
    desc.Dim(dims);  // may throw UserError on mismatched parts
  });
  return 0;
}
