// bin/copy-matrix.cc
// Copies matrices (archives or single files), optionally transforming them.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "util/stream.h"

namespace {
void Transform(nnet3::Matrix<nnet3::BaseFloat> *mat, float scale,
               bool apply_log, bool apply_exp, bool apply_softmax_per_row,
               float apply_power) {
  if (scale != 1.0) mat->Scale(scale);
  if (apply_log) {
    mat->ApplyFloor(1.0e-20);
    mat->ApplyLog();
  }
  if (apply_exp) mat->ApplyExp();
  if (apply_softmax_per_row) mat->SoftMaxPerRow(*mat);
  if (apply_power != 1.0) mat->ApplyPow(apply_power);
}
}  // namespace

namespace nnet3 {

int CopyMatrix(int argc, char *argv[]) {
  const char *usage =
      "Copies matrices (single files or tables), optionally scaling them or\n"
      "applying an elementwise function.\n"
      "Usage: copy-matrix [options] <matrix-in-rspecifier> <matrix-out-wspecifier>\n"
      "  or: copy-matrix [options] <matrix-in-rxfilename> <matrix-out-wxfilename>\n"
      "e.g.: copy-matrix --binary=false final.mat -\n"
      "      copy-matrix --scale=0.5 ark:in.ark ark,t:-\n"
      "See also: copy-feats\n";
  ParseOptions po(usage);
  bool binary = true, apply_log = false, apply_exp = false,
       apply_softmax_per_row = false;
  BaseFloat scale = 1.0, apply_power = 1.0;
  po.Register("binary", &binary,
              "Write single-file output in binary");
  po.Register("scale", &scale, "Multiply every matrix by this factor");
  po.Register("apply-log", &apply_log,
              "Take the log of every element (floored at 1e-20 first)");
  po.Register("apply-exp", &apply_exp, "Take the exp of every element");
  po.Register("apply-power", &apply_power,
              "Raise every element to this power");
  po.Register("apply-softmax-per-row", &apply_softmax_per_row,
              "Replace each row by its softmax");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  if ((apply_log && apply_exp) || (apply_softmax_per_row && apply_exp) ||
      (apply_softmax_per_row && apply_log))
    NNET3_ERR << "Only one of --apply-log, --apply-exp and "
                 "--apply-softmax-per-row can be given";
  std::string in = po.GetArg(1), out = po.GetArg(2);
  if (!TablesNotFiles(in, out)) {
    Matrix<BaseFloat> mat;
    ReadKaldiObject(in, &mat);
    Transform(&mat, scale, apply_log, apply_exp, apply_softmax_per_row,
              apply_power);
    WriteKaldiObject(mat, out, binary);
    NNET3_LOG << "Copied matrix to " << PrintableWxfilename(out);
    return 0;
  }
  SequentialBaseFloatMatrixReader reader(in);
  BaseFloatMatrixWriter writer(out);
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++) {
    if (scale == 1.0 && !apply_log && !apply_exp && !apply_softmax_per_row &&
        apply_power == 1.0) {
      writer.Write(reader.Key(), reader.Value());
    } else {
      Matrix<BaseFloat> mat(reader.Value());
      Transform(&mat, scale, apply_log, apply_exp, apply_softmax_per_row,
                apply_power);
      writer.Write(reader.Key(), mat);
    }
  }
  NNET3_LOG << "Copied " << num_done << " matrices.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::CopyMatrix);
}
