#!/usr/bin/env bash
# Runs the workplace's prose-check (../shared/tools/prose-check beside the
# checkout) over the whole project and fails if it flags any span other than
# the interface facts listed in tools/prose-check-facts.txt (a paper's
# title). Skips with one line when the checker is not there (e.g. a clone
# outside this workplace).
#   tools/prose-check.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
checker=${PROSE_CHECK:-$root/../shared/tools/prose-check}
if [[ ! -x $checker ]]; then
  echo "prose-check: $checker not found; skipped"
  exit 0
fi
cd "$root"
rc=0
out=$("$checker" 2>&1) || rc=$?
# "FILE:LINE: span" lines that are not listed facts.
flagged=$(printf '%s\n' "$out" | awk -F': ' '
  FNR == NR { if ($0 !~ /^#/ && NF) { split($0, f, "\t"); fact[f[1] "\t" f[2]] = 1 } next }
  /^[^ ]+:[0-9]+: / { file = $1; sub(/:[0-9]+$/, "", file); span = substr($0, length($1) + 3)
                      if (!((file "\t" span) in fact)) print }' tools/prose-check-facts.txt -)
if [[ -n $flagged ]]; then
  printf '%s\n' "$flagged"
  echo "prose-check: the spans above match Kaldi's wording; rewrite them in our own words" \
       "(or, for an interface fact, list it in tools/prose-check-facts.txt)" >&2
  exit 1
fi
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
  echo "prose-check: the checker failed (exit $rc): $out" >&2
  exit 1
fi
echo "prose-check: clean (only listed interface facts)"
