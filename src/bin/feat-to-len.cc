// bin/feat-to-len.cc
// Writes the number of frames (rows) of each feature matrix.
#include <iostream>

#include "bin/cli.h"
#include "matrix/table-types.h"
#include "util/stream.h"

namespace nnet3 {

int FeatToLen(int argc, char *argv[]) {
  const char *usage =
      "Writes the number of frames (rows) of each feature matrix, keyed like\n"
      "the input; with one argument, prints the total number of frames.\n"
      "Usage: feat-to-len [options] <in-rspecifier> [<out-wspecifier>]\n"
      "e.g.: feat-to-len scp:feats.scp ark,t:feats.lengths\n"
      "or: feat-to-len scp:feats.scp\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 1 && po.NumArgs() != 2) return UsageError(po);
  std::string in = po.GetArg(1);
  if (po.NumArgs() == 2) {
    SequentialBaseFloatMatrixReader reader(in);
    Int32Writer writer(po.GetArg(2));
    for (; !reader.Done(); reader.Next())
      writer.Write(reader.Key(), reader.Value().NumRows());
    return 0;
  }
  int64 num_frames = 0;
  if (ClassifyRspecifier(in, nullptr, nullptr) != kNoRspecifier) {
    SequentialBaseFloatMatrixReader reader(in);
    for (; !reader.Done(); reader.Next())
      num_frames += reader.Value().NumRows();
  } else {
    Matrix<BaseFloat> mat;
    ReadKaldiObject(in, &mat);
    num_frames = mat.NumRows();
  }
  std::cout << num_frames << std::endl;
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::FeatToLen);
}
