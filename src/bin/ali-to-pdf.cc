// bin/ali-to-pdf.cc
// Maps alignments of transition-ids to pdf-ids (zero-based).
#include "bin/cli.h"
#include "hmm/transition-model.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int AliToPdf(int argc, char *argv[]) {
  const char *usage =
      "Maps alignments of transition-ids to sequences of pdf-ids (zero-based),\n"
      "using the transition model at the start of <model>.\n"
      "Usage:  ali-to-pdf [options] <model> <alignments-rspecifier> <pdfs-wspecifier>\n"
      "e.g.: ali-to-pdf final.mdl ark:1.ali ark,t:-\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  TransitionModel trans_model;
  ReadKaldiObject(po.GetArg(1), &trans_model);
  SequentialInt32VectorReader reader(po.GetArg(2));
  Int32VectorWriter writer(po.GetArg(3));
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++) {
    std::vector<int32> pdfs = reader.Value();
    try {
      for (int32 &id : pdfs) id = trans_model.TransitionIdToPdf(id);
    } catch (const UserError &e) {
      NNET3_ERR << "Alignment " << reader.Key() << ": " << e.message();
    }
    writer.Write(reader.Key(), pdfs);
  }
  NNET3_LOG << "Converted " << num_done << " alignments to pdf sequences.";
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::AliToPdf);
}
