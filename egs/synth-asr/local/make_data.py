#!/usr/bin/env python3
"""Writes a synthetic speech-like corpus for the synth-asr recipe.

Each utterance is a sequence of "phones". Phone k is a sum of three
sinusoids at phone-specific formant frequencies with a slow amplitude
envelope, plus a strong white noise (a few dB SNR); phones last 6..20 frames of 10 ms. The
frame-level label sequence (the phone covering each frame's centre, using
Kaldi's default framing: 25 ms windows every 10 ms, snip-edges) is written
as a Kaldi int-vector text archive, so labels and features line up exactly.

Usage: make_data.py <out-dir> <num-utts> <num-phones> <seed> <spk-prefix>
Writes <out-dir>/wav/*.wav, wav.scp, utt2spk, spk2utt, ali.txt.
"""
import math
import os
import random
import struct
import sys


def write_wav(path, samples, rate):
    data = b"".join(struct.pack("<h", max(-32768, min(32767, int(s))))
                    for s in samples)
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    header += b"data" + struct.pack("<I", len(data))
    with open(path, "wb") as f:
        f.write(header + data)


def main():
    out_dir, num_utts, num_phones, seed, prefix = sys.argv[1:6]
    num_utts, num_phones, seed = int(num_utts), int(num_phones), int(seed)
    rate, shift, window = 16000, 160, 400
    rng = random.Random(seed)
    # Phone "formants": fixed for the corpus (seeded independently of the
    # utterances so that train and test sets share them).
    prng = random.Random(12345)
    formants = [[prng.uniform(200, 900), prng.uniform(900, 2500),
                 prng.uniform(2500, 5000)] for _ in range(num_phones)]
    os.makedirs(os.path.join(out_dir, "wav"), exist_ok=True)
    speakers = {}
    with open(os.path.join(out_dir, "wav.scp"), "w") as scp, \
            open(os.path.join(out_dir, "ali.txt"), "w") as ali, \
            open(os.path.join(out_dir, "utt2spk"), "w") as u2s:
        for u in range(num_utts):
            spk = "%s%02d" % (prefix, u % 4)
            utt = "%s-u%04d" % (spk, u)
            speakers.setdefault(spk, []).append(utt)
            pitch_scale = 0.88 + 0.08 * (u % 4)
            noise = rng.uniform(1000, 2500)
            segs = []  # (phone, num_samples)
            for _ in range(rng.randint(15, 40)):
                segs.append((rng.randrange(num_phones),
                             rng.randint(6, 20) * shift))
            samples, bounds, pos = [], [], 0
            for phone, n in segs:
                f = [x * pitch_scale for x in formants[phone]]
                amp = [2000.0, 1000.0, 500.0]
                for i in range(n):
                    env = math.sin(math.pi * (i + 0.5) / n) ** 0.5
                    t = (pos + i) / rate
                    s = sum(a * math.sin(2 * math.pi * fr * t)
                            for a, fr in zip(amp, f))
                    samples.append(env * s + rng.gauss(0, noise))
                bounds.append((pos, pos + n, phone))
                pos += n
            num_frames = 1 + (len(samples) - window) // shift
            labels, b = [], 0
            for t in range(num_frames):
                centre = t * shift + window // 2
                while bounds[b][1] <= centre:
                    b += 1
                labels.append(bounds[b][2])
            path = os.path.join(out_dir, "wav", utt + ".wav")
            write_wav(path, samples, rate)
            scp.write("%s %s\n" % (utt, path))
            ali.write("%s %s\n" % (utt, " ".join(map(str, labels))))
            u2s.write("%s %s\n" % (utt, spk))
    with open(os.path.join(out_dir, "spk2utt"), "w") as s2u:
        for spk in sorted(speakers):
            s2u.write("%s %s\n" % (spk, " ".join(speakers[spk])))


if __name__ == "__main__":
    main()
