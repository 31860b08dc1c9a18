#!/usr/bin/env bash
# GPU speed of the benchmark networks (tests/data/bench: TDNN, TDNN-F,
# TDNN-LSTM) in one command, the figures issue #13 asks for: for each
# network, inference (whole utterances in 50-frame chunks as Kaldi computes
# them, and in our large chunks) with CUDA-graph replay off and on, and
# training (NnetTrainer on 8-frame egs), in frames per second, each with
# its ratio to the time of its own GEMMs alone (cuBLAS, same shapes, same
# run; compute-bench, train-bench). For the TDNN also PyTorch eager on the
# same GPU (tests/bench/pytorch-tdnn.py --device=cuda), when it imports
# with CUDA. The targets: large-chunk inference within 1.3 times its
# GEMMs, training within 1.5 times and faster than PyTorch.
#
# Usage: tests/bench/gpu-speed.sh [--build DIR] [--networks "tdnn tdnnf lstm"]
#          [--num-utts 200] [--frames 500] [--minibatch 256]
#          [--num-minibatches 24] [--reps 2] [--use-gpu yes]
#   --build DIR  a build tree, or a folder holding compute-bench and
#                train-bench (found by name)
#   --use-gpu no runs the same commands on the CPU (to try the script on a
#                machine without a GPU; replay then does nothing)
# Each inference row is the best of the repetitions of its kind. Nothing
# here is run by ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build
networks="tdnn tdnnf lstm"
num_utts=200
frames=500
minibatch=256
num_minibatches=24
reps=2
use_gpu=yes
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --networks) networks=$2; shift 2 ;;
    --num-utts) num_utts=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --minibatch) minibatch=$2; shift 2 ;;
    --num-minibatches) num_minibatches=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --use-gpu) use_gpu=$2; shift 2 ;;
    *) echo "gpu-speed.sh: unknown option $1 (see the usage at the top of the script)" >&2
       exit 1 ;;
  esac
done
find_bin() { find "$build" -type f -name "$1" -perm -u+x 2>/dev/null | head -1; }
compute_bench=$(find_bin compute-bench)
train_bench=$(find_bin train-bench)
[[ -n $compute_bench && -n $train_bench ]] ||
  { echo "gpu-speed.sh: compute-bench or train-bench not found under $build (build the project first)" >&2; exit 1; }

torch_python=
if [[ $use_gpu != no ]]; then
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 &&
       "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
      torch_python=$py
      break
    fi
  done
fi

# best LABEL TEXT: "frames/s ratio" of the fastest line starting with LABEL.
best() {
  grep -F "$1" <<<"$2" |
    sed -n 's/.* \([0-9.]*\) frames\/s .*ratio \([0-9.]*\).*/\1 \2/p' |
    sort -k1,1 -g -r | head -1
}

echo "gpu-speed: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo 'no nvidia-smi') (--use-gpu=$use_gpu)"
echo "  inference: $num_utts utterances x $frames frames; training: $num_minibatches minibatches of $minibatch x 8 frames; best of $reps"
[[ $use_gpu == no || -n $torch_python ]] || echo "  PyTorch with CUDA: not importable, its columns are n/a"
printf '%-7s %-34s %12s %10s %14s %10s\n' network workload "frames/s" "/GEMM-only" "PyTorch fr/s" "ours/PyT"
for net in $networks; do
  config=$root/tests/data/bench/$net.config
  [[ -f $config ]] || { echo "gpu-speed.sh: no $config" >&2; exit 1; }
  inf=$("$compute_bench" --config="$config" --use-gpu="$use_gpu" --inference-only \
          --compare-cuda-graphs --num-utts="$num_utts" --frames="$frames" \
          --reps="$reps" 2>&1) || { echo "$inf" | tail -3 >&2; exit 1; }
  tr=$("$train_bench" --config="$config" --use-gpu="$use_gpu" --reps="$reps" \
         --minibatch="$minibatch" --num-minibatches="$num_minibatches" 2>&1) ||
    { echo "$tr" | tail -3 >&2; exit 1; }
  tr_fps=$(sed -n 's/.*training: *[0-9.]* s *\([0-9.]*\) frames.*/\1/p' <<<"$tr" | head -1)
  tr_ratio=$(sed -n 's/.*ratio training \/ GEMM-only: *\([0-9.]*\).*/\1/p' <<<"$tr" | head -1)
  pt_inf=n/a pt_tr=n/a
  if [[ $net == tdnn && -n $torch_python ]]; then
    pt=$("$torch_python" "$root/tests/bench/pytorch-tdnn.py" --device=cuda \
           --num-utts="$num_utts" --frames="$frames" --minibatch="$minibatch" \
           --num-minibatches="$num_minibatches" --reps="$reps" 2>/dev/null || true)
    pt_inf=$(sed -n 's/.*inference: *[0-9.]* s *\([0-9.]*\) frames.*/\1/p' <<<"$pt")
    pt_tr=$(sed -n 's/.*training: *[0-9.]* s *\([0-9.]*\) frames.*/\1/p' <<<"$pt")
    pt_inf=${pt_inf:-n/a} pt_tr=${pt_tr:-n/a}
  fi
  row() {  # row WORKLOAD FPS RATIO PEER
    local vs=n/a
    [[ $4 != n/a && -n $2 ]] && vs=$(awk -v a="$2" -v b="$4" 'BEGIN{printf "%.3f", a/b}')
    printf '%-7s %-34s %12s %10s %14s %10s\n' "$net" "$1" "${2:-?}" "${3:-?}" "$4" "$vs"
  }
  for kind in "50-frame chunks, CUDA graphs off" "50-frame chunks, CUDA graphs on" \
              "large chunks, CUDA graphs off" "large chunks, CUDA graphs on"; do
    read -r fps ratio <<<"$(best "$kind:" "$inf")"
    label=$(sed 's/, CUDA graphs /, replay /' <<<"$kind")
    row "inference $label" "$fps" "$ratio" "$pt_inf"
  done
  row training "$tr_fps" "$tr_ratio" "$pt_tr"
done
