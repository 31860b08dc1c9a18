// cudamatrix/cu-graph.cc
#include "cudamatrix/cu-graph.h"

#include "base/log.h"
#include "cudamatrix/cu-backend.h"

namespace nnet3 {

CuGraph::~CuGraph() { Clear(); }

bool CuGraph::BeginCapture(std::string *why) {
  NNET3_ASSERT(Empty() && !capturing_);
  if (!cu_backend::Available()) {
    *why = "no GPU backend is enabled";
    return false;
  }
  if (!cu_backend::BeginCapture(why)) return false;
  capturing_ = true;
  return true;
}

bool CuGraph::EndCapture(std::string *why) {
  NNET3_ASSERT(capturing_);
  capturing_ = false;
  std::vector<void *> held;
  bool ok = cu_backend::EndCapture(&handle_, &held, why);
  held_.insert(held_.end(), held.begin(), held.end());
  if (!ok) Clear();
  return ok;
}

void CuGraph::Launch() {
  NNET3_ASSERT(!Empty() && !capturing_);
  std::string why;
  if (!cu_backend::LaunchGraph(handle_, &why))
    throw InternalError("launching a CUDA graph failed: " + why);
}

void CuGraph::Clear() {
  if (capturing_) {
    std::string why;
    EndCapture(&why);  // the recording, if made, is dropped below
  }
  cu_backend::DestroyGraph(handle_);
  handle_ = nullptr;
  // Queued replays finish before later work on the same stream reuses these.
  for (void *ptr : held_) cu_backend::Free(ptr);
  held_.clear();
}

}  // namespace nnet3
