// bin/matrix-sum-rows.cc
// Sums (or averages) the rows of each matrix of a table into a vector.
#include "bin/cli.h"
#include "matrix/table-types.h"

namespace nnet3 {

int MatrixSumRows(int argc, char *argv[]) {
  const char *usage =
      "Writes, for each matrix of a table, the vector of its row sums (or,\n"
      "with --do-average, row means).\n"
      "Usage: matrix-sum-rows [options] <matrix-rspecifier> <vector-wspecifier>\n"
      "e.g.: matrix-sum-rows --do-average=true scp:feats.scp ark,t:means.txt\n";
  ParseOptions po(usage);
  bool do_average = false;
  po.Register("do-average", &do_average, "Write row means instead of sums");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  SequentialBaseFloatMatrixReader reader(po.GetArg(1));
  BaseFloatVectorWriter writer(po.GetArg(2));
  int32 num_done = 0;
  int64 num_rows_done = 0;
  for (; !reader.Done(); reader.Next()) {
    const Matrix<BaseFloat> &mat = reader.Value();
    // Accumulate in double so long utterances do not lose precision.
    Vector<double> sum(mat.NumCols());
    for (MatrixIndexT r = 0; r < mat.NumRows(); r++)
      sum.AddVec(1.0, mat.Row(r));
    if (do_average && mat.NumRows() > 0) sum.Scale(1.0 / mat.NumRows());
    writer.Write(reader.Key(), Vector<BaseFloat>(sum));
    num_done++;
    num_rows_done += mat.NumRows();
  }
  NNET3_LOG << "Summed rows " << num_done << " matrices, " << num_rows_done
            << " rows in total.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::MatrixSumRows);
}
