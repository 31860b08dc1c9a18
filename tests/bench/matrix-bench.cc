// tests/bench/matrix-bench.cc
// Benchmarks for the foundation layer; prints figures, asserts nothing.
//  1. AddMatMat against a direct cblas_sgemm call on TDNN-like shapes: the
//     wrapper's overhead in percent (target: under 2%). The two are timed
//     alternately, repetition by repetition (the order flipping each time),
//     and the best times compared, so interference from the rest of the
//     machine does not count against either.
//  2. The natural gradient's rank-R update with its trace,
//     cu::SubtractProjection (cudamatrix/cu-math-low-rank.h), against the
//     BLAS product and TraceMatMat it replaces, on the benchmark TDNN's
//     shapes; timed alternately as in 1.
//  3. Sequential table reading of a ~100 MB binary feature archive (from the
//     page cache): MB/s (target: over 500 MB/s), and the ratio to reading
//     the same file's bytes with plain read(2).
// Usage: matrix-bench [--threads=N] [--reps=N] [--archive-mb=N] [--quick]
#include <cblas.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/timer.h"
#include "cudamatrix/cu-math-low-rank.h"
#include "matrix/table-types.h"

extern "C" void openblas_set_num_threads(int);

namespace nnet3 {
namespace {

double Min(const std::vector<double> &v) {
  return *std::min_element(v.begin(), v.end());
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs a() and b() (each returning its seconds) reps + 1 times each,
// alternating which goes first so that cache and clock effects of the
// order cancel out, and keeps all but the first round (which warms caches
// and thread pools).
template <typename FnA, typename FnB>
void TimeAlternately(int reps, const FnA &a, const FnB &b,
                     std::vector<double> *times_a,
                     std::vector<double> *times_b) {
  for (int r = 0; r < reps + 1; r++) {
    double ea, eb;
    if (r % 2 == 0) {
      ea = a();
      eb = b();
    } else {
      eb = b();
      ea = a();
    }
    if (r == 0) continue;
    times_a->push_back(ea);
    times_b->push_back(eb);
  }
}

void BenchGemm(int m, int k, int n, int reps) {
  // Both write the same output matrix, so memory placement cannot differ.
  Matrix<float> A(m, k), B(k, n), C(m, n);
  RandomSource rs(1);
  A.SetRandn(&rs);
  B.SetRandn(&rs);
  std::vector<double> wrapped, direct;
  auto time_wrapped = [&]() {
    Timer t;
    C.AddMatMat(1.0, A, kNoTrans, B, kNoTrans, 0.0);
    return t.Elapsed();
  };
  auto time_direct = [&]() {
    Timer t;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                A.Data(), A.Stride(), B.Data(), B.Stride(), 0.0f, C.Data(),
                C.Stride());
    return t.Elapsed();
  };
  TimeAlternately(reps, time_wrapped, time_direct, &wrapped, &direct);
  // The best time estimates the cost free of interference from the rest of
  // the machine; the median shows the typical time.
  double w = Min(wrapped), d = Min(direct);
  double wm = Median(wrapped), dm = Median(direct);
  double gflop = 2.0 * m * k * n * 1e-9;
  std::printf("gemm %5dx%-5d * %5dx%-5d  AddMatMat %9.3f ms (%6.1f GFLOP/s)  "
              "cblas_sgemm %9.3f ms (%6.1f GFLOP/s)  overhead %+6.2f%% "
              "(best of %d; medians %+.2f%%)\n",
              m, k, k, n, w * 1e3, gflop / w, d * 1e3, gflop / d,
              (w / d - 1.0) * 100.0, static_cast<int>(wrapped.size()),
              (wm / dm - 1.0) * 100.0);
}

void BenchLowRank(int n, int d, int r, int reps) {
  CuMatrix<float> X0(n, d), H(n, r), W(r, d), X(n, d);
  X0.SetRandn();
  H.SetRandn();
  W.SetRandn();
  W.Scale(0.01);
  std::vector<double> ours, blas;
  float t_ours = 0, t_blas = 0;
  auto time_ours = [&]() {
    X.CopyFromMat(X0);
    Timer t;
    t_ours = cu::SubtractProjection(H, W, &X);
    return t.Elapsed();
  };
  auto time_blas = [&]() {
    X.CopyFromMat(X0);
    Timer t;
    X.AddMatMat(-1.0, H, kNoTrans, W, kNoTrans, 1.0);
    t_blas = TraceMatMat(X, X, kTrans);
    return t.Elapsed();
  };
  TimeAlternately(reps, time_ours, time_blas, &ours, &blas);
  double o = Min(ours), b = Min(blas), gflop = 2.0 * n * d * r * 1e-9;
  std::printf("low-rank X -= H W, tr(X X^T): %5dx%-5d rank %-3d  fused %8.3f ms "
              "(%6.1f GFLOP/s)  BLAS+trace %8.3f ms  ratio %.2f  (traces %.6g, "
              "%.6g; kernel %s)\n",
              n, d, r, o * 1e3, gflop / o, b * 1e3, b / o, t_ours, t_blas,
              cu::LowRankKernelsAvailable() ? "AVX-512" : "none, BLAS path");
}

void BenchTableRead(int archive_mb) {
  char dir_template[] = "/tmp/nnet3-bench-XXXXXX";
  if (!mkdtemp(dir_template)) {
    std::perror("mkdtemp");
    return;
  }
  std::string dir = dir_template, ark = dir + "/feats.ark";
  const int rows = 500, cols = 40;
  const size_t per_utt = static_cast<size_t>(rows) * cols * sizeof(float);
  int num_utts = static_cast<int>((archive_mb * 1024.0 * 1024.0) / per_utt);
  {
    Matrix<float> m(rows, cols);
    RandomSource rs(2);
    m.SetRandn(&rs);
    BaseFloatMatrixWriter writer("ark:" + ark);
    char key[32];
    for (int u = 0; u < num_utts; u++) {
      std::snprintf(key, sizeof(key), "utt%06d", u);
      m(0, 0) = u;
      writer.Write(key, m);
    }
  }
  // Baseline: the file's bytes with read(2), 1 MiB at a time.
  auto raw_read = [&]() {
    int fd = open(ark.c_str(), O_RDONLY);
    std::vector<char> buf(1 << 20);
    size_t total = 0;
    ssize_t n;
    while ((n = read(fd, buf.data(), buf.size())) > 0) total += n;
    close(fd);
    return total;
  };
  raw_read();  // into the page cache
  std::vector<double> table_times, raw_times;
  size_t bytes = 0;
  for (int rep = 0; rep < 3; rep++) {
    Timer t;
    SequentialBaseFloatMatrixReader reader("ark:" + ark);
    double check = 0;
    int n = 0;
    for (; !reader.Done(); reader.Next(), n++) check += reader.Value()(0, 0);
    table_times.push_back(t.Elapsed());
    if (n != num_utts) std::printf("ERROR: read %d of %d matrices\n", n, num_utts);
    Timer t2;
    bytes = raw_read();
    raw_times.push_back(t2.Elapsed());
    (void)check;
  }
  double mb = bytes / (1024.0 * 1024.0);
  double tt = Median(table_times), rt = Median(raw_times);
  std::printf("table read: %.1f MB archive, %d matrices of %dx%d: %.0f MB/s "
              "(read(2) of the same bytes: %.0f MB/s; table/raw time %.2fx)\n",
              mb, num_utts, rows, cols, mb / tt, mb / rt, tt / rt);
  std::remove(ark.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace nnet3

int main(int argc, char *argv[]) {
  int threads = 1, reps = 7, archive_mb = 100;
  bool quick = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--threads=", 0) == 0) threads = std::atoi(a.c_str() + 10);
    else if (a.rfind("--reps=", 0) == 0) reps = std::atoi(a.c_str() + 7);
    else if (a.rfind("--archive-mb=", 0) == 0) archive_mb = std::atoi(a.c_str() + 13);
    else if (a == "--quick") quick = true;
    else {
      std::fprintf(stderr, "usage: matrix-bench [--threads=N] [--reps=N] "
                           "[--archive-mb=N] [--quick]\n");
      return 1;
    }
  }
  openblas_set_num_threads(threads);
  std::printf("OpenBLAS threads: %d, base repetitions: %d\n", threads, reps);
  nnet3::BenchGemm(512, 1536, 1024, reps * 3);
  nnet3::BenchGemm(256, 200, 1024, reps * 10);
  if (!quick) nnet3::BenchGemm(8192, 1024, 3000, std::max(5, reps));
  // The natural gradient's shapes in the benchmark TDNN's training: input
  // side (dimension 3073 or 1025 with the bias column, rank 20) and output
  // side (1024 or 3000, rank 80), on a 256 x 8-frame minibatch's rows.
  nnet3::BenchLowRank(2048, 3073, 20, reps * 2);
  nnet3::BenchLowRank(2048, 1025, 20, reps * 2);
  nnet3::BenchLowRank(2048, 1024, 80, reps * 2);
  if (!quick) nnet3::BenchLowRank(2048, 3000, 80, reps * 2);
  nnet3::BenchTableRead(quick ? 20 : archive_mb);
  return 0;
}
