#!/usr/bin/env python3
"""Word and sentence error rates of hypotheses against reference texts.

Each utterance's words are aligned to the reference by Levenshtein distance
(substitutions, insertions and deletions all cost 1; among equal-cost
alignments the counts are taken from the first found). Prints Kaldi's
compute-wer lines:
  %WER 2.35 [ 45 / 1914, 10 ins, 20 del, 15 sub ]
  %SER 5.00 [ 10 / 200 ]
An utterance missing from the hypotheses counts as all deletions.

Usage: score.py REF_TEXT HYP_TEXT [PER_UTT_OUT]
"""
import sys


def read(path):
    d = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p:
                d[p[0]] = p[1:]
    return d


def align(ref, hyp):
    """(ins, del, sub) of a minimum-cost alignment."""
    n, m = len(ref), len(hyp)
    # cost[i][j] = (errors, ins, del, sub) for ref[:i] vs hyp[:j]
    prev = [(j, j, 0, 0) for j in range(m + 1)]
    for i in range(1, n + 1):
        cur = [(i, 0, i, 0)]
        for j in range(1, m + 1):
            d = prev[j - 1]
            if ref[i - 1] == hyp[j - 1]:
                best = d
            else:
                best = (d[0] + 1, d[1], d[2], d[3] + 1)
            a = cur[j - 1]
            if a[0] + 1 < best[0]:
                best = (a[0] + 1, a[1] + 1, a[2], a[3])
            b = prev[j]
            if b[0] + 1 < best[0]:
                best = (b[0] + 1, b[1], b[2] + 1, b[3])
            cur.append(best)
        prev = cur
    return prev[m][1:]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    ref, hyp = read(sys.argv[1]), read(sys.argv[2])
    ins = dele = sub = words = bad = 0
    missing = 0
    lines = []
    for utt in sorted(ref):
        if utt not in hyp:
            missing += 1
        i, d, s = align(ref[utt], hyp.get(utt, []))
        ins, dele, sub = ins + i, dele + d, sub + s
        words += len(ref[utt])
        if i + d + s:
            bad += 1
        lines.append("%s ref: %s | hyp: %s | %d ins %d del %d sub" % (
            utt, " ".join(ref[utt]), " ".join(hyp.get(utt, [])), i, d, s))
    err = ins + dele + sub
    print("%%WER %.2f [ %d / %d, %d ins, %d del, %d sub ]" % (
        100.0 * err / max(1, words), err, words, ins, dele, sub))
    print("%%SER %.2f [ %d / %d ]" % (100.0 * bad / max(1, len(ref)), bad,
                                     len(ref)))
    print("Scored %d sentences, %d not present in hyp." % (len(ref), missing))
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
