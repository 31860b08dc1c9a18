# Puts the project's tools first in PATH (Kaldi recipes source path.sh).
NNET3_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NNET3_ROOT
export PATH=$NNET3_ROOT/build/src/bin:$PATH
export LC_ALL=C
