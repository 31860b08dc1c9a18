#!/usr/bin/env bash
# Installs the Debian packages nnet3 needs to build and test, if any are
# missing. Idempotent and quiet when everything is present.
#   tools/install-deps.sh          install what is missing
#   tools/install-deps.sh --check  only report what is missing (exit 1 if any)
set -euo pipefail

packages=(g++ make cmake pkg-config libopenblas-dev libgtest-dev libgmock-dev
          libbenchmark-dev gzip python3
          # egs/digits: speech synthesis, audio conversion, plots, numpy
          espeak-ng flite sox gnuplot-nox python3-numpy)
# Extra packages named in NNET3_EXTRA_PACKAGES (CI adds slurm-wlm and munge
# for the Slurm test; a user's machine does not need them).
read -r -a extra <<< "${NNET3_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
  echo "missing packages: ${missing[*]}"
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
