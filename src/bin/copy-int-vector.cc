// bin/copy-int-vector.cc
// Copies integer vectors (e.g. alignments), archives or single files.
#include "bin/cli.h"
#include "util/holders.h"
#include "util/stream.h"
#include "util/table.h"

namespace {
// A single-file integer vector in Kaldi's WriteIntegerVector form.
struct IntVectorFile {
  std::vector<nnet3::int32> v;
  void Read(std::istream &is, bool binary) {
    nnet3::ReadIntegerVector(is, binary, &v);
  }
  void Write(std::ostream &os, bool binary) const {
    nnet3::WriteIntegerVector(os, binary, v);
  }
};
}  // namespace

namespace nnet3 {

int CopyIntVector(int argc, char *argv[]) {
  const char *usage =
      "Copies integer vectors such as alignments (single files or tables).\n"
      "Usage: copy-int-vector [options] (vector-in-rspecifier|vector-in-rxfilename) "
      "(vector-out-wspecifier|vector-out-wxfilename)\n"
      "e.g.: copy-int-vector ark:ali.1.ark ark,t:-\n";
  ParseOptions po(usage);
  bool binary = true;
  po.Register("binary", &binary,
              "Write single-file output in binary");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  std::string in = po.GetArg(1), out = po.GetArg(2);
  if (!TablesNotFiles(in, out)) {
    IntVectorFile v;
    ReadKaldiObject(in, &v);
    WriteKaldiObject(v, out, binary);
    NNET3_LOG << "Copied vector to " << PrintableWxfilename(out);
    return 0;
  }
  SequentialInt32VectorReader reader(in);
  Int32VectorWriter writer(out);
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++)
    writer.Write(reader.Key(), reader.Value());
  NNET3_LOG << "Copied " << num_done << " vectors of int32.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::CopyIntVector);
}
