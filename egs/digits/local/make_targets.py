#!/usr/bin/env python3
"""Frame targets of egs/digits from a CTM of exact word times.

Target 0 is silence; word w (its index in WORDS) has three targets,
1 + 3*w + k for its first, middle and last third (k = 0, 1, 2). A frame is
labelled by the position of its centre; with Kaldi's default framing
(25 ms windows every 10 ms, --snip-edges=true) frame t is centred at
t * 0.010 + 0.0125 s. The number of frames comes from utt2num_frames
(feat-to-len), so the targets always match the features.

Usage: make_targets.py CTM UTT2NUM_FRAMES > ali.txt   (Kaldi text int vectors)
Also: make_targets.py --num-targets  prints the number of targets.
"""
import sys

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven",
         "eight", "nine", "oh"]
SHIFT, CENTRE = 0.010, 0.0125


def main():
    if sys.argv[1:] == ["--num-targets"]:
        print(1 + 3 * len(WORDS))
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    index = {w: i for i, w in enumerate(WORDS)}
    words = {}
    with open(sys.argv[1]) as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            if len(p) < 5 or p[4] not in index:
                sys.exit("make_targets.py: %s:%d: bad CTM line: %s"
                         % (sys.argv[1], n, line.strip()))
            words.setdefault(p[0], []).append(
                (float(p[2]), float(p[2]) + float(p[3]), index[p[4]]))
    with open(sys.argv[2]) as f:
        for line in f:
            utt, num = line.split()
            labels = [0] * int(num)
            for start, end, w in words.get(utt, []):
                span = end - start
                t0 = max(0, int((start - CENTRE) / SHIFT) - 1)
                for t in range(t0, len(labels)):
                    c = t * SHIFT + CENTRE
                    if c >= end:
                        break
                    if c >= start:
                        labels[t] = 1 + 3 * w + min(2, int(3 * (c - start) / span))
            sys.stdout.write(utt + " " + " ".join(map(str, labels)) + "\n")


if __name__ == "__main__":
    main()
