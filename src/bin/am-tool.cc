// bin/am-tool.cc
// Whole-.mdl reading and writing for the acoustic-model tools (see
// am-tool.h).
#include "bin/am-tool.h"

#include "util/stream.h"

namespace nnet3 {

void CheckPdfCounts(const TransitionModel &trans_model,
                    const AmNnetSimple &am_nnet, const std::string &what) {
  if (trans_model.NumPdfs() != am_nnet.NumPdfs())
    NNET3_ERR << what << ": the transition model has "
              << trans_model.NumPdfs() << " pdfs but the network's output "
              << "has dimension " << am_nnet.NumPdfs();
}

namespace {
// The parts of a .mdl in order, so that ReadKaldiObject and
// WriteKaldiObject open, name and close the file.
struct AmModelRef {
  TransitionModel *trans_model;
  AmNnetSimple *am_nnet;
  void Read(std::istream &is, bool binary) {
    trans_model->Read(is, binary);
    am_nnet->Read(is, binary);
  }
};
struct ConstAmModelRef {
  const TransitionModel &trans_model;
  const AmNnetSimple &am_nnet;
  void Write(std::ostream &os, bool binary) const {
    trans_model.Write(os, binary);
    am_nnet.Write(os, binary);
  }
};
}  // namespace

void ReadAmModel(const std::string &rxfilename, TransitionModel *trans_model,
                 AmNnetSimple *am_nnet) {
  AmModelRef ref{trans_model, am_nnet};
  ReadKaldiObject(rxfilename, &ref);
  CheckPdfCounts(*trans_model, *am_nnet,
                 "Model " + PrintableRxfilename(rxfilename));
}

void WriteAmModel(const TransitionModel &trans_model,
                  const AmNnetSimple &am_nnet, const std::string &wxfilename,
                  bool binary) {
  WriteKaldiObject(ConstAmModelRef{trans_model, am_nnet}, wxfilename, binary);
}

}  // namespace nnet3
