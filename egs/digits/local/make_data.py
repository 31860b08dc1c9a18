#!/usr/bin/env python3
"""Generates the spoken-digit corpus of egs/digits as Kaldi data directories.

Every speaker is a synthetic voice: an espeak-ng accent with a voice variant,
speed and pitch, or a flite voice with a duration stretch and pitch target.
Each speaker says the eleven words once (one synthesizer call per word); an
utterance is 1 to 7 of those recordings joined with pauses of random length,
scaled, and mixed with coloured noise at a random signal-to-noise ratio.
Because the utterance is assembled here, the time of every word is exact: it
is written as a CTM file, from which frame targets are made later.

Invariants:
  - the same --seed gives byte-identical directories;
  - test speakers use voice variants (and a flite voice) that no training or
    validation speaker uses; validation speakers are training-style voices
    set aside, never used for training;
  - the wav files keep the synthesizer's sample rate; wav.scp resamples to
    16 kHz through a sox pipe, as Kaldi recipes do.

Usage: make_data.py [options] OUT_DIR
writes OUT_DIR/{train,valid,test}/{wav.scp,text,utt2spk,spk2utt,ctm,spk2voice}
and the wav files under OUT_DIR/wav/.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import wave

import numpy as np

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven",
         "eight", "nine", "oh"]
ACCENTS = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029",
           "en-gb-x-gbclan", "en-gb-x-gbcwmd"]
TRAIN_VARIANTS = ["m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3",
                  "f4", "adam", "Alex", "Andy", "Annie", "benjamin", "caleb",
                  "david", "ed", "edward", "Gene", "iven", "john", "linda",
                  "max", "Michael", "Mike", "paul", "pedro", "quincy", "rob",
                  "robert", "steph", "travis", "victor", "zac", "klatt",
                  "klatt2", "klatt3", "norbert", "shelby"]
TEST_VARIANTS = ["m8", "f5", "Alicia", "Andrea", "aunty", "belinda", "boris",
                 "edward2", "Hugo", "Jacky", "Lee", "marcelo", "steph2",
                 "klatt4", "grandpa", "sandro"]
TRAIN_FLITE = ["kal", "awb", "slt"]
TEST_FLITE = ["rms"]
SNRS_DB = [None, 30, 20, 15, 10]   # None: no added noise


def fail(msg):
    sys.exit("make_data.py: " + msg)


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        fail("command failed (%s): %s" % (" ".join(cmd),
                                            r.stderr.decode(errors="replace").strip()))


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            fail("%s: expected 16-bit mono from the synthesizer" % path)
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        return data.astype(np.float64), w.getframerate()


def write_wav(path, samples, rate):
    clipped = np.clip(np.round(samples), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(clipped.tobytes())


def trim(x, rate):
    """Cuts leading and trailing silence: keeps from the first to the last
    5 ms block whose peak exceeds 2% of the word's peak."""
    block = max(1, rate // 200)
    n = len(x) // block
    if n == 0:
        return x
    peaks = np.abs(x[:n * block]).reshape(n, block).max(axis=1)
    loud = np.nonzero(peaks > 0.02 * peaks.max())[0]
    if len(loud) == 0:
        return x
    return x[loud[0] * block:(loud[-1] + 1) * block]


def make_speakers(rng, kind, count):
    """count speakers of the given kind: 'train' (training and validation
    share this pool of variants) or 'test'."""
    variants = TRAIN_VARIANTS if kind == "train" else TEST_VARIANTS
    flites = TRAIN_FLITE if kind == "train" else TEST_FLITE
    speakers, seen = [], set()
    while len(speakers) < count:
        if rng.random() < 0.15:
            v = {"engine": "flite", "voice": rng.choice(flites),
                 "stretch": round(rng.uniform(0.8, 1.25), 2),
                 "f0": rng.choice([90, 105, 120, 140, 170, 200])}
            key = (v["engine"], v["voice"], v["stretch"], v["f0"])
        else:
            v = {"engine": "espeak-ng", "voice": rng.choice(ACCENTS),
                 "variant": rng.choice(variants),
                 "speed": rng.choice([130, 145, 160, 175, 190]),
                 "pitch": rng.choice([25, 35, 45, 55, 65, 75])}
            key = (v["engine"], v["voice"], v["variant"], v["speed"], v["pitch"])
        if key not in seen:
            seen.add(key)
            speakers.append(v)
    return speakers


def describe(v):
    if v["engine"] == "flite":
        return "flite voice=%s duration_stretch=%s f0=%s" % (
            v["voice"], v["stretch"], v["f0"])
    return "espeak-ng voice=%s+%s speed=%s pitch=%s" % (
        v["voice"], v["variant"], v["speed"], v["pitch"])


def synthesize_words(v, tmpdir):
    """The eleven words in this voice, trimmed; returns ({word: samples}, rate)."""
    words, rate = {}, None
    for w in WORDS:
        path = os.path.join(tmpdir, w + ".wav")
        if v["engine"] == "flite":
            run(["flite", "-voice", v["voice"], "--setf",
                 "duration_stretch=%s" % v["stretch"], "--setf",
                 "int_f0_target_mean=%s" % v["f0"], "-t", w, "-o", path])
        else:
            run(["espeak-ng", "-v", "%s+%s" % (v["voice"], v["variant"]),
                 "-s", str(v["speed"]), "-p", str(v["pitch"]), "-w", path, w])
        x, r = read_wav(path)
        if rate is not None and r != rate:
            fail("voice %s changed sample rate" % describe(v))
        rate = r
        x = trim(x, r)
        if len(x) < r // 20:
            fail("voice %s produced no audible '%s'" % (describe(v), w))
        words[w] = x / max(1.0, np.abs(x).max())  # peak 1.0
    return words, rate


def make_utterance(rng, nprng, words, rate):
    """Joins 1..7 words with pauses; returns (samples, [(word, start, end) s])."""
    n = rng.randint(1, 7)
    seq = [rng.choice(WORDS) for _ in range(n)]
    pieces, times, t = [], [], 0
    lead = int(rate * rng.uniform(0.15, 0.5))
    pieces.append(np.zeros(lead))
    t += lead
    for i, w in enumerate(seq):
        x = words[w]
        times.append((w, t / rate, (t + len(x)) / rate))
        pieces.append(x)
        t += len(x)
        if i + 1 < n:
            gap = 0 if rng.random() < 0.25 else int(rate * rng.uniform(0.03, 0.35))
            pieces.append(np.zeros(gap))
            t += gap
    tail = int(rate * rng.uniform(0.15, 0.5))
    pieces.append(np.zeros(tail))
    x = np.concatenate(pieces) * (32767 * 10 ** (rng.uniform(-12, -1) / 20))
    snr = rng.choice(SNRS_DB)
    if snr is not None:
        noise = nprng.standard_normal(len(x))
        pole = rng.choice([0.0, 0.5, 0.9])          # white, pinkish, brownish
        if pole > 0:
            for k in range(1, 4):                     # cheap colouring
                noise[k:] = noise[k:] + pole ** k * noise[:-k]
        speech = np.concatenate([x[int(a * rate):int(b * rate)]
                                 for _, a, b in times])
        p_speech = np.mean(speech ** 2)
        p_noise = np.mean(noise ** 2)
        x = x + noise * np.sqrt(p_speech / (p_noise * 10 ** (snr / 10)))
    return x, times


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--num-train-spk", type=int, default=48)
    p.add_argument("--num-valid-spk", type=int, default=6)
    p.add_argument("--num-test-spk", type=int, default=12)
    p.add_argument("--utts-per-spk", type=int, default=24)
    p.add_argument("--test-utts-per-spk", type=int, default=20)
    p.add_argument("out_dir")
    a = p.parse_args()
    for tool in ("espeak-ng", "flite", "sox"):
        if shutil.which(tool) is None:
            fail("%s not found; install it with: apt-get install %s"
                 % (tool, tool))
    rng = random.Random(a.seed)
    pool = make_speakers(rng, "train", a.num_train_spk + a.num_valid_spk)
    sets = [("train", pool[:a.num_train_spk], a.utts_per_spk),
            ("valid", pool[a.num_train_spk:], a.test_utts_per_spk),
            ("test", make_speakers(rng, "test", a.num_test_spk),
             a.test_utts_per_spk)]
    wav_dir = os.path.abspath(os.path.join(a.out_dir, "wav"))
    tmp = os.path.join(a.out_dir, "tmp")
    os.makedirs(wav_dir, exist_ok=True)
    os.makedirs(tmp, exist_ok=True)
    for name, speakers, per_spk in sets:
        d = os.path.join(a.out_dir, name)
        os.makedirs(d, exist_ok=True)
        scp, text, u2s, s2u, ctm, s2v = [], [], [], [], [], []
        for i, v in enumerate(speakers):
            spk = "%s%03d" % (name, i + 1)
            words, rate = synthesize_words(v, tmp)
            nprng = np.random.default_rng([a.seed, len(name), i])
            utts = []
            for j in range(per_spk):
                utt = "%s-%03d" % (spk, j + 1)
                x, times = make_utterance(rng, nprng, words, rate)
                path = os.path.join(wav_dir, utt + ".wav")
                write_wav(path, x, rate)
                scp.append("%s sox -R %s -t wav -r 16000 -b 16 - |" % (utt, path))
                text.append("%s %s" % (utt, " ".join(w for w, _, _ in times)))
                u2s.append("%s %s" % (utt, spk))
                for w, s, e in times:
                    ctm.append("%s 1 %.3f %.3f %s" % (utt, s, e - s, w))
                utts.append(utt)
            s2u.append("%s %s" % (spk, " ".join(utts)))
            s2v.append("%s %s" % (spk, describe(v)))
        for fname, lines in (("wav.scp", scp), ("text", text),
                             ("utt2spk", u2s), ("spk2utt", s2u),
                             ("ctm", ctm), ("spk2voice", s2v)):
            with open(os.path.join(d, fname), "w") as f:
                f.write("\n".join(lines) + "\n")
        print("make_data.py: %s: %d speakers, %d utterances" %
              (name, len(speakers), len(u2s)))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
