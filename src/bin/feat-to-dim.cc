// bin/feat-to-dim.cc
// Prints or writes the feature dimension (number of columns).
#include <iostream>

#include "bin/cli.h"
#include "matrix/table-types.h"
#include "util/stream.h"

namespace nnet3 {

int FeatToDim(int argc, char *argv[]) {
  const char *usage =
      "Writes feature dimensions (numbers of columns). With a wspecifier as\n"
      "second argument, one per key; with a wxfilename such as -, the\n"
      "dimension of the first matrix only.\n"
      "Usage: feat-to-dim [options] <feat-rspecifier> (<dim-wspecifier>|<dim-wxfilename>)\n"
      "e.g.: feat-to-dim scp:feats.scp -\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  std::string in = po.GetArg(1), out = po.GetArg(2);
  if (ClassifyRspecifier(in, nullptr, nullptr) != kNoRspecifier) {
    SequentialBaseFloatMatrixReader reader(in);
    if (ClassifyWspecifier(out, nullptr, nullptr, nullptr) !=
        kNoWspecifier) {
      Int32Writer writer(out);
      for (; !reader.Done(); reader.Next())
        writer.Write(reader.Key(), reader.Value().NumCols());
      return 0;
    }
    if (reader.Done())
      NNET3_ERR << "Could not read any features from " << in
                << " (empty archive?)";
    Output output(out, false);
    output.Stream() << reader.Value().NumCols() << "\n";
    if (!output.Close()) NNET3_ERR << "Failed to write to " << out;
    return 0;
  }
  Matrix<BaseFloat> mat;
  ReadKaldiObject(in, &mat);
  Output output(out, false);
  output.Stream() << mat.NumCols() << "\n";
  if (!output.Close()) NNET3_ERR << "Failed to write to " << out;
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::FeatToDim);
}
