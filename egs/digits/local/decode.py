#!/usr/bin/env python3
"""Digit-loop Viterbi decoder for egs/digits.

Turns the network's frame log-posteriors (nnet3-compute output in Kaldi text
form) into word strings. The search graph is a loop: optional silence, then
any number of words, each word optionally followed by silence. A word is
three left-to-right states (its first, middle and last third, targets
1 + 3*w + k), each lasting at least --min-frames frames; silence (target 0)
lasts at least --min-sil-frames. Entering a word costs --word-penalty (in
log-probability units). Frame scores are log-posteriors, optionally minus
--prior-scale times the log prior read from --priors (a Kaldi text vector of
target counts).

Usage: decode.py [options] LOGPOST_TEXT_ARK > hyp_text
"""
import argparse
import sys

import numpy as np

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven",
         "eight", "nine", "oh"]
NEG = -1e30


def read_text_matrices(path):
    """Yields (key, matrix) from a Kaldi text archive of matrices."""
    with open(path) as f:
        key, rows = None, []
        for line in f:
            p = line.split()
            if not p:
                continue
            if key is None:
                if len(p) < 2 or p[1] != "[":
                    sys.exit("decode.py: %s: expected 'KEY [', got: %s"
                             % (path, line.strip()[:60]))
                key, p = p[0], p[2:]
                if not p:
                    continue
            end = p[-1] == "]"
            if end:
                p = p[:-1]
            if p:
                rows.append(np.array(p, dtype=np.float64))
            if end:
                yield key, np.vstack(rows) if rows else np.zeros((0, 0))
                key, rows = None, []
        if key is not None:
            sys.exit("decode.py: %s: archive ends inside matrix %s" % (path, key))


class Graph:
    """Nodes of the expanded loop; each node emits one target."""

    def __init__(self, min_frames, min_sil):
        target, chain_prev, self_loop = [], [], []
        self.word_entry, self.word_end, self.word_of = [], [], []

        def add_chain(tgt, length, word):
            first = len(target)
            for i in range(length):
                target.append(tgt)
                chain_prev.append(len(target) - 2 if i > 0 else -1)
                self_loop.append(i == length - 1)
                self.word_of.append(word)
            return first, len(target) - 1

        self.sil_entry, self.sil_end = add_chain(0, min_sil, -1)
        for w in range(len(WORDS)):
            prev_end = None
            for k in range(3):
                first, last = add_chain(1 + 3 * w + k, min_frames, w)
                if k == 0:
                    self.word_entry.append(first)
                else:
                    chain_prev[first] = prev_end
                prev_end = last
            self.word_end.append(prev_end)
        self.target = np.array(target)
        self.chain_prev = np.array(chain_prev)
        self.has_prev = self.chain_prev >= 0
        self.self_loop = np.array(self_loop)
        self.word_entry = np.array(self.word_entry)
        self.word_end = np.array(self.word_end)
        n = len(target)
        self.is_word_entry = np.zeros(n, bool)
        self.is_word_entry[self.word_entry] = True

    def decode(self, scores, penalty):
        """Best word sequence for a (frames x targets) score matrix."""
        T, n = scores.shape[0], len(self.target)
        if T == 0:
            return []
        emit = scores[:, self.target]
        back = np.zeros((T, n), dtype=np.int64)
        cur = np.full(n, NEG)
        cur[self.sil_entry] = 0.0
        cur[self.word_entry] = penalty
        cur += emit[0]
        back[0] = -1
        idx = np.arange(n)
        prev_idx = np.where(self.has_prev, self.chain_prev, 0)
        for t in range(1, T):
            stay = np.where(self.self_loop, cur, NEG)
            adv = np.where(self.has_prev, cur[prev_idx], NEG)
            best, arg = stay, idx.copy()
            take = adv > best
            best = np.where(take, adv, best)
            arg = np.where(take, prev_idx, arg)
            e = int(self.word_end[np.argmax(cur[self.word_end])])
            word_best = cur[e]
            # Into a word: from a word end or from the end of silence.
            src = e if word_best >= cur[self.sil_end] else self.sil_end
            into_word = cur[src] + penalty
            take = self.is_word_entry & (into_word > best)
            best = np.where(take, into_word, best)
            arg = np.where(take, src, arg)
            # Into silence: from a word end.
            if word_best > best[self.sil_entry]:
                best[self.sil_entry] = word_best
                arg[self.sil_entry] = e
            back[t] = arg
            cur = best + emit[t]
        ends = np.concatenate(([self.sil_end], self.word_end))
        node = int(ends[np.argmax(cur[ends])])
        path = [node]
        for t in range(T - 1, 0, -1):
            node = int(back[t, node])
            path.append(node)
        path.reverse()
        words, prev = [], -1
        for node in path:
            if self.is_word_entry[node] and not (prev == node):
                words.append(WORDS[self.word_of[node]])
            prev = node
        return words


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--min-frames", type=int, default=2)
    p.add_argument("--min-sil-frames", type=int, default=1)
    p.add_argument("--word-penalty", type=float, default=0.0)
    p.add_argument("--priors", default="")
    p.add_argument("--prior-scale", type=float, default=0.0)
    p.add_argument("logpost")
    a = p.parse_args()
    log_prior = 0.0
    if a.priors and a.prior_scale != 0.0:
        with open(a.priors) as f:
            counts = np.array(f.read().replace("[", " ").replace("]", " ").split(),
                              dtype=np.float64)
        log_prior = a.prior_scale * np.log((counts + 1) / (counts + 1).sum())
    g = Graph(a.min_frames, a.min_sil_frames)
    for key, m in read_text_matrices(a.logpost):
        if m.shape[0] and m.shape[1] != 1 + 3 * len(WORDS):
            sys.exit("decode.py: %s: %d columns, expected %d"
                     % (key, m.shape[1], 1 + 3 * len(WORDS)))
        words = g.decode(m - log_prior, a.word_penalty)
        sys.stdout.write(key + (" " if words else "") + " ".join(words) + "\n")


if __name__ == "__main__":
    main()
