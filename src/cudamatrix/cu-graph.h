// cudamatrix/cu-graph.h
// CuGraph: device work recorded once and replayed many times. Between
// BeginCapture() and EndCapture() the operations queued on the device's
// stream are recorded instead of run; Launch() then runs the recording,
// with the pointers and scalar arguments it was recorded with, as one
// unit (one launch instead of one per kernel).
//
// Invariants:
//  - everything a recording reads or writes must stay where it was for as
//    long as the graph may be launched; the blocks that were freed while
//    recording (temporaries of the recorded operations) are kept out of the
//    allocator's reuse by the CuGraph itself and freed when it is cleared;
//  - nothing recorded runs until Launch(); a refused recording (an
//    operation that needs the host, e.g. reading a value back, ran meanwhile)
//    leaves the graph empty, and then none of it has run either;
//  - only device work can be recorded: without a GPU backend BeginCapture()
//    says so and returns false.
#ifndef NNET3_CUDAMATRIX_CU_GRAPH_H_
#define NNET3_CUDAMATRIX_CU_GRAPH_H_

#include <string>
#include <vector>

namespace nnet3 {

class CuGraph {
 public:
  CuGraph() {}
  ~CuGraph();

  bool Empty() const { return handle_ == nullptr; }
  bool Capturing() const { return capturing_; }

  // Starts recording on an empty, idle graph; false with *why when the
  // backend cannot record.
  bool BeginCapture(std::string *why);
  // Stops recording; false with *why (and the graph empty) when the
  // recording was refused.
  bool EndCapture(std::string *why);
  // Queues one run of the recording; InternalError on failure.
  void Launch();
  // Drops the recording (stopping one in progress) and frees its held
  // blocks.
  void Clear();

 private:
  CuGraph(const CuGraph &) = delete;
  CuGraph &operator=(const CuGraph &) = delete;

  void *handle_ = nullptr;
  bool capturing_ = false;
  std::vector<void *> held_;
};

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_GRAPH_H_
