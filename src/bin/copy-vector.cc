// bin/copy-vector.cc
// Copies vectors (archives or single files), optionally scaling or
// changing their dimension.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "util/stream.h"

namespace {
void Transform(nnet3::Vector<nnet3::BaseFloat> *v, float scale,
               int change_dim) {
  if (change_dim >= 0) v->Resize(change_dim, nnet3::kCopyData);
  if (scale != 1.0) v->Scale(scale);
}
}  // namespace

namespace nnet3 {

int CopyVector(int argc, char *argv[]) {
  const char *usage =
      "Copies vectors (single files or tables), optionally scaling them or\n"
      "changing their dimension.\n"
      "Usage: copy-vector [options] (<vector-in-rspecifier>|<vector-in-rxfilename>) "
      "(<vector-out-wspecifier>|<vector-out-wxfilename>)\n"
      "e.g.: copy-vector --binary=false prior.vec -\n"
      "      copy-vector ark:ivectors.ark ark,t:-\n";
  ParseOptions po(usage);
  bool binary = true;
  int32 change_dim = -1;
  BaseFloat scale = 1.0;
  po.Register("binary", &binary,
              "Write single-file output in binary");
  po.Register("scale", &scale, "Multiply every vector by this factor");
  po.Register("change-dim", &change_dim,
              "If >= 0, cut or zero-pad every vector to this dimension");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  std::string in = po.GetArg(1), out = po.GetArg(2);
  if (!TablesNotFiles(in, out)) {
    Vector<BaseFloat> v;
    ReadKaldiObject(in, &v);
    Transform(&v, scale, change_dim);
    WriteKaldiObject(v, out, binary);
    NNET3_LOG << "Copied vector to " << PrintableWxfilename(out);
    return 0;
  }
  SequentialBaseFloatVectorReader reader(in);
  BaseFloatVectorWriter writer(out);
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++) {
    if (scale == 1.0 && change_dim < 0) {
      writer.Write(reader.Key(), reader.Value());
    } else {
      Vector<BaseFloat> v(reader.Value());
      Transform(&v, scale, change_dim);
      writer.Write(reader.Key(), v);
    }
  }
  NNET3_LOG << "Copied " << num_done << " vectors.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::CopyVector);
}
