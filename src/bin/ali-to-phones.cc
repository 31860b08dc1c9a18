// bin/ali-to-phones.cc
// Turns alignments of transition-ids into phone sequences: one phone per
// occurrence, one per frame (--per-frame), (phone, length) pairs
// (--write-lengths) or CTM lines (--ctm-output).
#include <iomanip>

#include "bin/cli.h"
#include "hmm/alignment.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int AliToPhones(int argc, char *argv[]) {
  const char *usage =
      "Turns alignments of transition-ids into integer phone sequences, using\n"
      "the transition model at the start of <model>. With --ctm-output the\n"
      "third argument is a file of CTM lines (utterance, channel 1, start,\n"
      "duration, phone).\n"
      "Usage:  ali-to-phones [options] <model> <alignments-rspecifier> <phone-transcript-wspecifier|ctm-wxfilename>\n"
      "e.g.: ali-to-phones final.mdl ark:1.ali ark,t:-\n"
      "      ali-to-phones --ctm-output final.mdl ark:1.ali 1.ctm\n";
  ParseOptions po(usage);
  bool per_frame = false, write_lengths = false, ctm_output = false;
  BaseFloat frame_shift = 0.01;
  po.Register("ctm-output", &ctm_output,
              "Write CTM lines (confidence omitted) instead of a table");
  po.Register("frame-shift", &frame_shift,
              "Seconds per frame, for the times of --ctm-output");
  po.Register("per-frame", &per_frame,
              "Write one phone per frame instead of one per occurrence");
  po.Register("write-lengths", &write_lengths,
              "Write (phone, number of frames) pairs");
  po.Read(argc, argv);
  if (per_frame && write_lengths)
    NNET3_ERR << "--per-frame and --write-lengths cannot be used together";
  if (po.NumArgs() != 3) return UsageError(po);
  TransitionModel trans_model;
  ReadKaldiObject(po.GetArg(1), &trans_model);
  SequentialInt32VectorReader reader(po.GetArg(2));
  std::string out = po.GetArg(3);
  Int32VectorWriter phones_writer(!ctm_output && !write_lengths ? out : "");
  Int32PairVectorWriter pair_writer(!ctm_output && write_lengths ? out : "");
  Output ctm;
  if (ctm_output) {
    ctm.Open(out, false, false);
    ctm.Stream() << std::fixed << std::setprecision(frame_shift >= 0.01 ? 2 : 3);
  }
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++) {
    const std::string &key = reader.Key();
    std::vector<std::vector<int32> > split;
    try {
      SplitToPhones(trans_model, reader.Value(), &split);
    } catch (const UserError &e) {
      NNET3_ERR << "Alignment " << key << ": " << e.message();
    }
    if (ctm_output) {
      BaseFloat start = 0.0;
      for (const auto &seg : split) {
        int32 phone = trans_model.TransitionIdToPhone(seg[0]);
        BaseFloat dur = frame_shift * seg.size();
        ctm.Stream() << key << " 1 " << start << " " << dur << " " << phone
                     << "\n";
        start += dur;
      }
    } else if (write_lengths) {
      std::vector<std::pair<int32, int32> > pairs;
      for (const auto &seg : split)
        pairs.push_back(std::make_pair(trans_model.TransitionIdToPhone(seg[0]),
                                       static_cast<int32>(seg.size())));
      pair_writer.Write(key, pairs);
    } else {
      std::vector<int32> phones;
      for (const auto &seg : split) {
        int32 phone = trans_model.TransitionIdToPhone(seg[0]);
        phones.insert(phones.end(), per_frame ? seg.size() : 1, phone);
      }
      phones_writer.Write(key, phones);
    }
  }
  if (ctm_output) ctm.Close();
  NNET3_LOG << "Done " << num_done << " utterances.";
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::AliToPhones);
}
