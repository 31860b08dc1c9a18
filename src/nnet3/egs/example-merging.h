// nnet3/egs/example-merging.h
// Grouping a stream of single examples into minibatches, as Kaldi's
// nnet3-merge-egs does (ExampleMergingConfig / ExampleMerger).
//
// --minibatch-size rules: either one set of sizes ("128", "64,128",
// "32:64,128": a list of values or ranges lo:hi), or several rules
// "EGSIZE=SET" separated by '/', e.g. "128=64:128,256/256=32:64". An
// example's size is its largest NnetIo row count (GetNnetExampleSize); the
// rule whose EGSIZE is nearest applies (the first of equally near ones).
// While input continues, a group is written when it holds the largest size
// of the rule's set; at the end of the input each group is written in pieces
// of the largest size in the set that fits what is left, and what fits no
// size of the set is discarded.
//
// Examples are grouped by structure (names, Indexes, feature dims:
// NnetExampleStructureCompare); a group is written as soon as it is full.
// Output keys are Kaldi's: "merged-K-SIZE", K counting minibatches written
// (from 0) and SIZE the number of examples in that minibatch. At Finish()
// the groups left are flushed in the order in which each group's first
// example arrived.
#ifndef NNET3_NNET3_EGS_EXAMPLE_MERGING_H_
#define NNET3_NNET3_EGS_EXAMPLE_MERGING_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nnet3/egs/nnet-example.h"
#include "util/options.h"

namespace nnet3 {

struct ExampleMergingConfig {
  bool compress = false;
  std::string measure_output_frames = "deprecated";
  std::string minibatch_size = "256";
  std::string discard_partial_minibatches = "deprecated";

  // A set of positive integers given as ranges [first, second].
  struct IntSet {
    int32 largest_size = 0;
    std::vector<std::pair<int32, int32> > ranges;
    // The largest member of the set that is <= max_value, or 0.
    int32 LargestValueInRange(int32 max_value) const;
  };
  // (eg-size, set); eg-size is 0 when there is a single rule without one.
  std::vector<std::pair<int32, IntSet> > rules;

  void Register(OptionsItf *opts);
  // Parses minibatch_size into rules (UserError naming the option if it is
  // malformed, or if an eg-size repeats); warns that the two deprecated
  // options are ignored when they are set.
  void ComputeDerived();
  // Parses "a,b:c,..." (all values > 0, each range lo <= hi); false if
  // malformed.
  static bool ParseIntSet(const std::string &str, IntSet *int_set);
  // How many of num_available examples of size size_of_eg to merge now (0:
  // none yet). Needs ComputeDerived().
  int32 MinibatchSize(int32 size_of_eg, int32 num_available_egs,
                      bool input_ended) const;
};

// Counts of what was written and discarded, per example size, for the log.
class ExampleMergingStats {
 public:
  void WroteExample(int32 example_size, size_t structure_hash,
                    int32 minibatch_size);
  void DiscardedExamples(int32 example_size, size_t structure_hash,
                         int32 num_discarded);
  // Two LOG lines as Kaldi prints them (specific and aggregate stats).
  void PrintStats() const;

 private:
  struct StatsForExampleSize {
    int32 num_discarded = 0;
    std::map<int32, int32> minibatch_to_num_written;
  };
  std::map<std::pair<int32, size_t>, StatsForExampleSize> stats_;
};

class ExampleMerger {
 public:
  // config and writer must outlive this object.
  ExampleMerger(const ExampleMergingConfig &config, NnetExampleWriter *writer);
  // Examples still held (Finish() not called) are dropped unwritten, so an
  // error that ends the input early does not flush partial minibatches.
  ~ExampleMerger();
  // Takes the contents of *eg (which is left empty).
  void AcceptExample(NnetExample *eg);
  // Writes out what is left (see above) and prints the stats.
  void Finish();
  // 0 if any minibatch was written, else 1.
  int32 ExitStatus() const { return num_egs_written_ > 0 ? 0 : 1; }

 private:
  void WriteMinibatch(std::vector<NnetExample> *egs);

  struct Group {
    size_t hash = 0;  // NnetExampleStructureHasher of egs[0]
    std::vector<NnetExample> egs;
  };
  bool finished_ = false;
  int32 num_egs_written_ = 0;
  const ExampleMergingConfig &config_;
  NnetExampleWriter *writer_;
  ExampleMergingStats stats_;
  // Groups in order of arrival of their first example; a group is removed
  // when written out, so a later example of that structure starts a new one.
  std::vector<std::unique_ptr<Group> > groups_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_EGS_EXAMPLE_MERGING_H_
