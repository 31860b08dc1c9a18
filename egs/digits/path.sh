# Puts the project's tools first in PATH (Kaldi recipes source path.sh).
# NNET3_ROOT (the checkout) and NNET3_BIN (where the tools are) may be set
# by the caller, e.g. to run a copy of this recipe against another build.
NNET3_ROOT=${NNET3_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export NNET3_ROOT
export PATH=${NNET3_BIN:-$NNET3_ROOT/build/src/bin}:$PWD/utils:$PATH
export LC_ALL=C
# The Python scripts need numpy: prefer the system interpreter, which is the
# one Debian's python3-numpy installs into.
if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
export PYTHON
