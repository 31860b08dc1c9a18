// nnet3/nnet/am-nnet-simple.h
// AmNnetSimple: the part of a Kaldi nnet3 acoustic model (.mdl) after the
// transition model: the network, then "<LeftContext> l <RightContext> r
// <Priors> <float vector>" (no opening or closing token of its own). The
// network must be "simple" (one input "input", optional "ivector", one
// output "output" whose dimension is the number of pdfs). The contexts are
// always recomputed from the network, on reading too (Kaldi does the same);
// the priors are empty or of the output's dimension.
// ReadAmNnetSimple() is the shortcut of the inference tools' --use-priors:
// it reads a whole .mdl (skipping its transition model) into a network and
// the priors.
#ifndef NNET3_NNET3_NNET_AM_NNET_SIMPLE_H_
#define NNET3_NNET3_NNET_AM_NNET_SIMPLE_H_

#include <istream>
#include <ostream>
#include <string>

#include "matrix/vector.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

class AmNnetSimple {
 public:
  AmNnetSimple() {}
  // A model of "nnet" without priors; UserError if nnet is not simple.
  explicit AmNnetSimple(const Nnet &nnet);

  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;

  const Nnet &GetNnet() const { return nnet_; }
  // After changing the network through this, call SetContext().
  Nnet &GetNnet() { return nnet_; }
  // Replaces the network (recomputing the context); priors of another
  // dimension than the new output are dropped with a warning.
  void SetNnet(const Nnet &nnet);
  // Recomputes the context; UserError if the network is not simple.
  void SetContext();

  const Vector<BaseFloat> &Priors() const { return priors_; }
  // "priors" must be empty or of dimension NumPdfs() (else UserError).
  void SetPriors(const VectorBase<BaseFloat> &priors);

  // The output dimension of the network (UserError if it has no "output").
  int32 NumPdfs() const;
  int32 LeftContext() const { return left_context_; }
  int32 RightContext() const { return right_context_; }

  // nnet3-am-info's text: input, iVector and output dimensions, the prior
  // dimension (and sum, min, max when there are priors), then the
  // network's Info().
  std::string Info() const;

 private:
  Nnet nnet_;
  int32 left_context_ = 0;
  int32 right_context_ = 0;
  Vector<BaseFloat> priors_;
};

// Reads 'rxfilename' as a .mdl; a file without the AmNnetSimple fields
// after the network (a raw network) is a UserError naming the file.
void ReadAmNnetSimple(const std::string &rxfilename, Nnet *nnet,
                      Vector<BaseFloat> *priors);

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_AM_NNET_SIMPLE_H_
