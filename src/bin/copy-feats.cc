// bin/copy-feats.cc
// Copies feature matrices (archives or single files), optionally compressing.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "util/stream.h"

namespace nnet3 {

int CopyFeats(int argc, char *argv[]) {
  const char *usage =
      "Copies feature matrices, optionally converting between text and\n"
      "binary or compressing them.\n"
      "Usage: copy-feats [options] <feature-rspecifier> <feature-wspecifier>\n"
      " or:   copy-feats [options] <feats-rxfilename> <feats-wxfilename>\n"
      "e.g.: copy-feats ark:raw.ark ark,scp:feats.ark,feats.scp\n"
      "      copy-feats --compress=true scp:feats.scp ark:- | ...\n"
      "See also: copy-matrix, feat-to-len, feat-to-dim\n";
  ParseOptions po(usage);
  bool binary = true, compress = false;
  int32 compression_method = 1;
  std::string num_frames_wspecifier;
  po.Register("binary", &binary,
              "Write single-file output in binary (archives take b/t from "
              "the wspecifier)");
  po.Register("compress", &compress,
              "Store the output as compressed matrices (CM, CM2 or CM3)");
  po.Register("compression-method", &compression_method,
              "With --compress: 1 = automatic (2 if more than 8 rows, else "
              "3), 2 = per-column percentiles, 3 = two bytes per value, "
              "4 = two-byte integers, 5 = one byte per value, "
              "6 = one-byte unsigned integers, 7 = one byte in [0, 1]");
  po.Register("write-num-frames", &num_frames_wspecifier,
              "Also write each matrix's number of rows to this wspecifier, "
              "e.g. ark,t:utt2num_frames (table input only)");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  if (compression_method < 1 || compression_method > 7)
    NNET3_ERR << "Invalid --compression-method=" << compression_method
              << " (expected 1 through 7)";
  CompressionMethod method =
      static_cast<CompressionMethod>(compression_method);
  std::string in = po.GetArg(1), out = po.GetArg(2);

  if (ClassifyRspecifier(in, nullptr, nullptr) != kNoRspecifier) {
    SequentialBaseFloatMatrixReader reader(in);
    BaseFloatMatrixWriter writer;
    CompressedMatrixWriter compressed_writer;
    if (compress) compressed_writer.Open(out);
    else writer.Open(out);
    Int32Writer num_frames_writer;
    if (!num_frames_wspecifier.empty())
      num_frames_writer.Open(num_frames_wspecifier);
    int32 num_done = 0;
    for (; !reader.Done(); reader.Next(), num_done++) {
      const Matrix<BaseFloat> &mat = reader.Value();
      if (compress)
        compressed_writer.Write(reader.Key(), CompressedMatrix(mat, method));
      else
        writer.Write(reader.Key(), mat);
      if (!num_frames_wspecifier.empty())
        num_frames_writer.Write(reader.Key(), mat.NumRows());
    }
    NNET3_LOG << "Copied " << num_done << " feature matrices.";
    return num_done != 0 ? 0 : 1;
  }
  if (!num_frames_wspecifier.empty())
    NNET3_ERR << "--write-num-frames is only supported when writing tables";
  Matrix<BaseFloat> mat;
  ReadKaldiObject(in, &mat);
  if (compress)
    WriteKaldiObject(CompressedMatrix(mat, method), out, binary);
  else
    WriteKaldiObject(mat, out, binary);
  NNET3_LOG << "Copied features from " << PrintableRxfilename(in) << " to "
            << PrintableWxfilename(out);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::CopyFeats);
}
