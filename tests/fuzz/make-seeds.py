#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets (tests/data/fuzz/TARGET/seeds)
from the Kaldi reference files in tests/data/kaldi and a few hand-made
inputs. The computation-cache seeds come from fuzz-make-cache-seeds (a
program built with the tests), run when its path is given:

    tests/fuzz/make-seeds.py [build/tests/fuzz/fuzz-make-cache-seeds]

Only the seeds folders are rewritten; inputs kept because they once failed
(tests/data/fuzz/TARGET/*) are left alone."""
import os
import re
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KALDI = os.path.join(ROOT, "tests", "data", "kaldi")
FUZZ = os.path.join(ROOT, "tests", "data", "fuzz")


def read(path):
    with open(os.path.join(KALDI, path), "rb") as f:
        return f.read()


def seeds(target):
    folder = os.path.join(FUZZ, target, "seeds")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)

    def write(name, data):
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return write


def strip_comments(config):
    return "".join(line for line in config.splitlines(True)
                   if not line.lstrip().startswith("#"))


def nnet_config_and_descriptor():
    write = seeds("nnet-config")
    configs = {}
    models = os.path.join(KALDI, "models")
    for name in sorted(os.listdir(models)) + ["later/" + n for n in sorted(
            os.listdir(os.path.join(models, "later")))]:
        if not name.endswith(".config"):
            continue
        text = strip_comments(read("models/" + name).decode())
        if "/" in text or "|" in text:
            continue  # names a file (matrix=...): the target skips it
        configs[name] = text
        write(name.replace("/", "-"), text)
    write("small.config",
          "input-node name=input dim=4\n"
          "component name=a type=AffineComponent input-dim=12 output-dim=3\n"
          "component-node name=a component=a input=Append(Offset(input, -1), "
          "input, Offset(input, 1))\n"
          "output-node name=output input=a objective=quadratic\n")
    # Descriptors: every input=... of those configs, with node names mapped
    # to the five the descriptor target knows, plus hand-written ones.
    write = seeds("descriptor")
    found = set()
    for text in configs.values():
        for m in re.finditer(r"input=(.*?)(?=\s+[\w-]+=|\s*$)", text, re.M):
            desc = re.sub(r"\b(?!(?:Append|Sum|Failover|IfDefined|Offset|Switch|"
                          r"Round|ReplaceIndex|Scale|Const|t|x)\b)[A-Za-z_][\w.-]*",
                          "input", m.group(1))
            found.add(desc)
    found.update([
        "input", "Append(input, ivector)", "Sum(a, Scale(0.5, input))",
        "Failover(Offset(a, -1), input)", "IfDefined(Offset(b, 3))",
        "Switch(input, a)", "Round(Offset(input, 2), 3)",
        "ReplaceIndex(ivector, t, 0)", "ReplaceIndex(input, x, 1)",
        "Append(Const(1.0, 5), b)", "Offset(input, -2, 1)",
        "Sum(Append(input, b), Append(a, Offset(b, 1)))",
        "Append(Sum(input, a, output), IfDefined(Offset(ivector, -1)))"])
    for i, desc in enumerate(sorted(found)):
        write("d%03d" % i, desc)


def nnet_read():
    write = seeds("nnet-read")
    for name in ["rand017.raw", "rand009.raw", "rnn.raw", "components_c.raw",
                 "components_b.raw", "descriptors.raw", "x-gru.raw",
                 "rand017.txt", "rand009.txt", "rnn.txt", "components_c.txt",
                 "later/cnn.raw", "later/lstm.raw", "later/stats.raw",
                 "later/tdnnf.raw"]:
        write(name.replace("/", "-"), read("models/" + name))


def entry_offsets(archive, header_pattern):
    """Offsets of the objects of a binary archive (just past "key ")."""
    return [m.start() for m in re.finditer(header_pattern, archive)]


def table():
    write = seeds("table")
    holders = {"fmat": 0, "dmat": 1, "cmat": 2, "fvec": 3, "dvec": 4,
               "ivec": 5, "post": 6, "ivecvec": 7, "pairvec": 8, "float": 9,
               "tokens": 10}
    SCP, RANDOM, PERMISSIVE, SORTED, ONCE = 0x10, 0x20, 0x40, 0x80, 0xC0
    arks = [("fmat", "io/dm_to_fm.ark"), ("dmat", "io/dm.ark"),
            ("fmat", "io/cm1.ark"), ("cmat", "io/cm1.ark"),
            ("cmat", "io/cm2.ark"), ("cmat", "io/cm3.ark"),
            ("fmat", "io/cm4_pcm.ark"), ("fmat", "io/cm6_bytes.ark"),
            ("fmat", "io/cm7_unit.ark"), ("fvec", "io/vec_f.ark"),
            ("dvec", "io/vec_d.ark"), ("ivec", "io/ali.ark"),
            ("post", "io/post.ark"), ("fmat", "io/cm6_bytes.txt"),
            ("fvec", "io/vec_f.txt"), ("ivec", "io/ali.txt"),
            ("post", "io/post.txt")]
    for i, (holder, path) in enumerate(arks):
        data = read(path)
        flags = [0, RANDOM, RANDOM | SORTED, PERMISSIVE, RANDOM | ONCE][i % 5]
        write("ark-%s-%s" % (holder, os.path.basename(path)),
              bytes([holders[holder] | flags]) + data)
    # Script files with offsets and ranges into one archive "a".
    scripts = [("fmat", "io/dm_to_fm.ark", rb"\x00BFM ",
                ["", "[0:1]", "[:,1:2]", "[1:2,0:3]"]),
               ("cmat", "io/cm1.ark", rb"\x00BCM ", ["", "[0:2]", "[:,0:1]"]),
               ("fvec", "io/vec_f.ark", rb"\x00BFV ", ["", "", ""]),
               ("ivec", "io/ali.ark", rb"\x00B\x04", ["", ""]),
               ("post", "io/post.ark", rb"\x00B\x04", ["", ""])]
    for holder, path, pattern, ranges in scripts:
        data = read(path)
        offsets = entry_offsets(data, pattern)
        lines = ["k%d a:%d%s\n" % (i, off, rng)
                 for i, (off, rng) in enumerate(zip(offsets, ranges))]
        for flags in [SCP, SCP | RANDOM]:
            write("scp%d-%s-%s" % (flags >> 4, holder, os.path.basename(path)),
                  bytes([holders[holder] | flags]) + "".join(lines).encode() +
                  b"\0" + data)
    # A text script into a text archive, and the smaller holders.
    text = read("io/vec_f.txt")
    lines, pos = [], 0
    for n, line in enumerate(text.split(b"\n")[:-1]):
        key = line.split(b" ")[0]
        lines.append("k%d a:%d\n" % (n, pos + len(key) + 1))
        pos += len(line) + 1
    write("scp-fvec-text", bytes([holders["fvec"] | SCP]) +
          "".join(lines).encode() + b"\0" + text)
    write("ark-ivecvec", bytes([holders["ivecvec"]]) + b"a 1 2 ; 3 ; \nb ; \n")
    write("ark-pairvec", bytes([holders["pairvec"]]) + b"a 1 2 ; 3 4 \nb \n")
    write("ark-float", bytes([holders["float"]]) + b"a 0.5\nb -3e7\n")
    write("ark-tokens", bytes([holders["tokens"]]) + b"a x y z \nb q\n")


def egs():
    write = seeds("egs")
    for path in ["egsrand/subset9.egs.ark", "train/batchnorm.mb1.ark",
                 "train/natgrad.mb1.ark"]:
        write(os.path.basename(path), read(path))
    # The first example of a text archive.
    text = read("train/affine.egs.txt").decode()
    first = text[:text.index("</Nnet3Eg>") + len("</Nnet3Eg>")] + "\n"
    write("affine-first.egs.txt", first)


def wav_file(samples, rate=16000, channels=1, big_endian=False,
             extensible=False, streamed=False, extra_chunk=False):
    e = ">" if big_endian else "<"
    data = struct.pack(e + "%dh" % len(samples), *samples)
    if extensible:
        fmt = struct.pack(e + "HHIIHHHHIH14s", 0xFFFE, channels, rate,
                          rate * 2 * channels, 2 * channels, 16, 22, 16,
                          0, 1, b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa"
                          b"\x00\x38\x9b\x71")
    else:
        fmt = struct.pack(e + "HHIIHH", 1, channels, rate,
                          rate * 2 * channels, 2 * channels, 16)
    body = b"WAVE" + b"fmt " + struct.pack(e + "I", len(fmt)) + fmt
    if extra_chunk:
        body += b"LIST" + struct.pack(e + "I", 4) + b"INFO"
    size = 0xFFFFFFFF if streamed else len(data)
    body += b"data" + struct.pack(e + "I", size) + data
    riff = 0xFFFFFFFF if streamed else len(body)
    return (b"RIFX" if big_endian else b"RIFF") + struct.pack(e + "I", riff) + body


def wav():
    write = seeds("wav")
    ramp = [(i * 1237) % 65536 - 32768 for i in range(40)]
    write("mono.wav", wav_file(ramp))
    write("stereo-8k.wav", wav_file(ramp, rate=8000, channels=2))
    write("rifx.wav", wav_file(ramp[:10], big_endian=True))
    write("extensible.wav", wav_file(ramp[:12], extensible=True))
    write("streamed.wav", wav_file(ramp[:8], streamed=True))
    write("list-chunk.wav", wav_file(ramp[:6], extra_chunk=True))
    write("empty.wav", wav_file([]))


def options():
    write = seeds("options")
    write("basic", "--bool-opt\n--int-opt=-5\n--uint-opt=7\n--float-opt=0.5\n"
          "--double-opt=1e-3\n--string-opt=abc\na\nb\n")
    write("group", "--group.flag=false\n--group.name=x y\n--\n--not-an-option\n")
    write("compute", "--frames-per-chunk=50\n--extra-left-context=3\n"
          "--optimization.propagate-in-place=false\n--compiler.use-shortcut=f\n"
          "--acoustic-scale=0.1\nin\n")
    write("config", "--config=c\n--int-opt=3\npos\n\0"
          "# comment\n--bool-opt=true\n--string_opt=spaced \n"
          "--double-opt=2.5\n--verbose=1\n")
    write("print-args", "--print-args=false\n--verbose=0\nx\n")
    write("bad", "--int-opt=abc\n")
    write("bad-config", "--config=c\n\0--string_opt = spaced\n")


def computation_cache(tool):
    folder = os.path.join(FUZZ, "computation-cache", "seeds")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    subprocess.check_call([tool, folder])


def main():
    nnet_config_and_descriptor()
    nnet_read()
    table()
    egs()
    wav()
    options()
    if len(sys.argv) > 1:
        computation_cache(sys.argv[1])


if __name__ == "__main__":
    main()
