#!/usr/bin/env bash
# CPU speed of the benchmark TDNN (tests/data/bench/tdnn.config) in one
# command: for each thread count, our inference (whole utterances, large
# chunks) and training (NnetTrainer on 8-frame egs) in frames per second,
# each with its ratio to the time of its own GEMMs alone measured in the
# same run (compute-bench, train-bench), and, when PyTorch can be imported,
# the same network in PyTorch (tests/bench/pytorch-tdnn.py: Conv1d layers,
# plain SGD) timed right after ours on the same workload. The last column
# is ours / PyTorch in frames per second (above 1: we are faster). For more
# than one thread, "inf-utts" is inference with that many utterances at once
# and one BLAS thread each (nnet3-compute --num-threads=N).
#
# Usage: tests/bench/cpu-speed.sh [--build DIR] [--threads "1 2"]
#          [--num-utts 40] [--frames 500] [--minibatch 256]
#          [--num-minibatches 4] [--reps 2]
# PyTorch is optional (Debian: python3-torch); without it those columns
# say "n/a". Nothing here is run by ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build
threads="1 2"
num_utts=40
frames=500
minibatch=256
num_minibatches=4
reps=2
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --num-utts) num_utts=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --minibatch) minibatch=$2; shift 2 ;;
    --num-minibatches) num_minibatches=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "cpu-speed.sh: unknown option $1 (see the usage at the top of the script)" >&2
       exit 1 ;;
  esac
done
compute_bench=$build/tests/bench/compute-bench
train_bench=$build/tests/bench/train-bench
for b in "$compute_bench" "$train_bench"; do
  [[ -x $b ]] || { echo "cpu-speed.sh: $b is missing (build the project first)" >&2; exit 1; }
done

# The first interpreter that can import torch (a pyenv or venv python3 on
# PATH may lack Debian's python3-torch, which lives under /usr/bin/python3).
torch_python=
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null 2>&1 &&
     "$py" -c 'import torch' >/dev/null 2>&1; then
    torch_python=$py
    break
  fi
done

# field NAME LINE: the number after "NAME" in a bench output line.
field() { sed -n "s/.*$1 *\([0-9.]*\).*/\1/p" <<<"$2" | head -1; }

echo "cpu-speed: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "  inference: $num_utts utterances x $frames frames; training: $num_minibatches minibatches of $minibatch x 8 frames; best of $reps"
[[ -n $torch_python ]] || echo "  PyTorch: not importable, its columns are n/a"
printf '%-8s %-10s %12s %10s %14s %10s\n' threads workload "frames/s" "/GEMM-only" "PyTorch fr/s" "ours/PyT"
for t in $threads; do
  export OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t
  inf_all=$("$compute_bench" --large-chunks-only --threads="$t" --reps="$reps" \
              --num-utts="$num_utts" --frames="$frames" 2>/dev/null)
  inf=$(grep 'large chunks' <<<"$inf_all")
  kernels=$(sed -n 's/.*BLAS kernels: *//p' <<<"$inf_all")
  inf_fps=$(field 'optimized:' "$inf")
  inf_ratio=$(field 'ratio' "$inf")
  tr=$("$train_bench" --threads="$t" --reps="$reps" --minibatch="$minibatch" \
         --num-minibatches="$num_minibatches" 2>/dev/null)
  tr_fps=$(sed -n 's/.*training: *[0-9.]* s *\([0-9.]*\) frames.*/\1/p' <<<"$tr" | head -1)
  tr_ratio=$(sed -n 's/.*ratio training \/ GEMM-only: *\([0-9.]*\).*/\1/p' <<<"$tr" | head -1)
  pt_inf=n/a pt_tr=n/a vs_inf=n/a vs_tr=n/a
  if [[ -n $torch_python ]]; then
    pt=$("$torch_python" "$root/tests/bench/pytorch-tdnn.py" --threads="$t" \
           --num-utts="$num_utts" --frames="$frames" --minibatch="$minibatch" \
           --num-minibatches="$num_minibatches" --reps="$reps" 2>/dev/null || true)
    pt_inf=$(sed -n 's/.*inference: *[0-9.]* s *\([0-9.]*\) frames.*/\1/p' <<<"$pt")
    pt_tr=$(sed -n 's/.*training: *[0-9.]* s *\([0-9.]*\) frames.*/\1/p' <<<"$pt")
    [[ -n $pt_inf ]] && vs_inf=$(awk -v a="$inf_fps" -v b="$pt_inf" 'BEGIN{printf "%.3f", a/b}')
    [[ -n $pt_tr ]] && vs_tr=$(awk -v a="$tr_fps" -v b="$pt_tr" 'BEGIN{printf "%.3f", a/b}')
  fi
  printf '%-8s %-10s %12s %10s %14s %10s\n' "$t" inference "$inf_fps" "$inf_ratio" "${pt_inf:-n/a}" "$vs_inf"
  if [[ $t -gt 1 ]]; then
    # What nnet3-compute --num-threads=N does: N utterances at once, one
    # BLAS thread each (the GEMM-only reference shares out its chunks alike).
    par=$("$compute_bench" --large-chunks-only --threads="$t" --utt-threads="$t" \
            --reps="$reps" --num-utts="$num_utts" --frames="$frames" 2>/dev/null |
          grep 'large chunks')
    par_fps=$(field 'optimized:' "$par")
    par_ratio=$(field 'ratio' "$par")
    vs_par=n/a
    [[ -n ${pt_inf:-} && $pt_inf != n/a ]] &&
      vs_par=$(awk -v a="$par_fps" -v b="$pt_inf" 'BEGIN{printf "%.3f", a/b}')
    printf '%-8s %-10s %12s %10s %14s %10s\n' "$t" "inf-utts" "$par_fps" "$par_ratio" "${pt_inf:-n/a}" "$vs_par"
  fi
  printf '%-8s %-10s %12s %10s %14s %10s\n' "$t" training "$tr_fps" "$tr_ratio" "${pt_tr:-n/a}" "$vs_tr"
done
# Which OpenBLAS kernels ours ran with (docs/matrix.md: "Which OpenBLAS
# kernels"); "A -> B": OpenBLAS picked A and the library switched to B.
echo "  our BLAS kernels: ${kernels:-unknown}"
