// nnet3/compute/computation-graphs.h
// What lets an NnetComputer replay a compiled computation as CUDA graphs
// (--cuda-graphs, on by default for inference on a GPU). A computation is a
// fixed program: after one ordinary run with a given computation and
// network, the device work between two host interactions (a "segment": the
// commands between two kAcceptInput) is recorded once and every later run
// replays it with one launch instead of one launch per kernel.
//
// A recording keeps the device pointers it saw, so one ComputationGraphs
// holds everything such a segment touches for as long as its graphs live:
// one device matrix ("slot") per matrix of the computation, which the
// computer binds to its matrices instead of allocating; the computation's
// index arrays on the device; and, through each CuGraph, the temporaries
// the recorded components freed.
//
// Invariants:
//  - only computations with no backprop, no compression and no loop
//    (kGotoLabel) are replayed, and only with no statistics being stored:
//    replaying then repeats exactly the device work of an ordinary run;
//  - a segment is recorded only if, in an ordinary run watched for it (the
//    first, and up to kMaxObservations while they find host waits), it did
//    device work and never made the host wait (no copy to or from the host,
//    no value read back; GpuRuntime::HostWaits); a recording that is refused
//    anyway marks the segment as not replayable and the commands run
//    ordinarily, so a refusal costs speed, never a result;
//  - slot bindings are a deterministic function of the commands run, and
//    every run starts with all slots free, so the recorded pointers are the
//    ones bound at every replay;
//  - an entry is used by one computer at a time (InUse), and found again
//    only for the same computation object (held weakly: an entry whose
//    computation is gone is dropped) and the same network object, whose
//    parameters must not move while it exists (the inference drivers never
//    change the network they compute with).
#ifndef NNET3_NNET3_COMPUTE_COMPUTATION_GRAPHS_H_
#define NNET3_NNET3_COMPUTE_COMPUTATION_GRAPHS_H_

#include <memory>
#include <vector>

#include "cudamatrix/cu-array.h"
#include "cudamatrix/cu-graph.h"
#include "cudamatrix/cu-matrix.h"
#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

struct GraphReplayStats {
  long long recorded = 0;   // segments recorded
  long long replayed = 0;   // segment runs that were replays
  long long refused = 0;    // recordings the runtime refused
};

// The computation's index arrays (indexes, indexes_ranges) as arrays of the
// computing backend.
void UploadComputationIndexes(const NnetComputation &computation,
                              std::vector<CuArray<int32> > *indexes,
                              std::vector<CuArray<Int32Pair> > *ranges);

class ComputationGraphs {
 public:
  struct Segment {
    int32 begin = 0, end = 0;   // commands [begin, end)
    bool device_work = false;   // has commands that queue device work
    bool provides_output = false;  // has a kProvideOutput
    int32 observations = 0;     // ordinary runs watched for host waits
    bool replayable = false;    // the last watched run had none
    CuGraph graph;
  };
  // A segment whose watched runs made the host wait is watched again up to
  // this many runs in all (a component may upload something once, on its
  // first run), then left ordinary.
  static const int32 kMaxObservations = 3;

  // True for a computation whose runs can be replayed (see the invariants);
  // 'why' receives the reason when not.
  static bool ComputationIsReplayable(const NnetComputation &computation,
                                      std::string *why);

  // The entry of (computation, nnet), made on first use, marked in use; null
  // when graphs cannot be used now: no GPU is computing, the computation is
  // not replayable, or its entry is in use by another computer. Release()
  // gives it back.
  static std::shared_ptr<ComputationGraphs> Acquire(
      const std::shared_ptr<const NnetComputation> &computation,
      const Nnet &nnet);
  static void Release(const std::shared_ptr<ComputationGraphs> &entry);

  // Process-wide counts (for tests and --verbose logs).
  static GraphReplayStats Stats();
  // Drops every entry not in use (tests; frees their device memory).
  static void Clear();
  // Tests: lets entries be made for the CPU backend too, where every
  // recording is refused, so that the slot bookkeeping and the fallback to
  // ordinary runs can be checked without a GPU.
  static void SetHostTesting(bool on);
  static bool HostTesting();

  explicit ComputationGraphs(const NnetComputation &computation);

  // Whether one ordinary run has been completed (the segments have been
  // judged); before that the computer runs ordinarily.
  bool Observed() const { return observed_; }
  void SetObserved() { observed_ = true; }

  // The segment that starts at command 'c', or -1.
  int32 SegmentStartingAt(int32 c) const {
    return segment_at_[c];
  }
  Segment &GetSegment(int32 s) { return *segments_[s]; }

  // The device matrix for matrix m, allocated on first use with the size
  // and stride type the computation declares (empty while bound).
  CuMatrix<BaseFloat> &Slot(int32 m);
  // A free slot of matrix m's shape (m's own if free), -1 if none.
  int32 FreeSlotFor(int32 m);
  // Allocates every slot now (before a recording, so that none is
  // allocated while recording).
  void AllocateSlots();

  const std::vector<CuArray<int32> > &Indexes() const { return indexes_; }
  const std::vector<CuArray<Int32Pair> > &IndexesRanges() const {
    return indexes_ranges_;
  }

  void CountRecorded();
  void CountReplayed();
  void CountRefused();

 private:
  friend class GraphRegistry;
  const NnetComputation &computation_;
  bool observed_ = false;
  bool in_use_ = false;
  std::vector<std::unique_ptr<Segment> > segments_;
  std::vector<int32> segment_at_;
  std::vector<CuMatrix<BaseFloat> > slots_;
  std::vector<bool> slot_made_;
  std::vector<CuArray<int32> > indexes_;
  std::vector<CuArray<Int32Pair> > indexes_ranges_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPUTE_COMPUTATION_GRAPHS_H_
