// bin/am-tool.h
// What the acoustic-model tools share: reading and writing a whole Kaldi
// nnet3 .mdl (a TransitionModel followed by an AmNnetSimple). Reading
// checks that the two parts agree on the number of pdfs, so a model whose
// transition model and network disagree fails with one error line naming
// the file and both counts.
#ifndef NNET3_BIN_AM_TOOL_H_
#define NNET3_BIN_AM_TOOL_H_

#include <string>

#include "hmm/transition-model.h"
#include "nnet3/nnet/am-nnet-simple.h"

namespace nnet3 {

// UserError naming "what" if the counts differ.
void CheckPdfCounts(const TransitionModel &trans_model,
                    const AmNnetSimple &am_nnet, const std::string &what);

void ReadAmModel(const std::string &rxfilename, TransitionModel *trans_model,
                 AmNnetSimple *am_nnet);

void WriteAmModel(const TransitionModel &trans_model,
                  const AmNnetSimple &am_nnet, const std::string &wxfilename,
                  bool binary);

}  // namespace nnet3

#endif  // NNET3_BIN_AM_TOOL_H_
