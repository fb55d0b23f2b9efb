#!/usr/bin/env python3
"""Embed the demo sentences: one float32 vector per sentence, with PyTorch.

Reads sample/ids.txt and sample/sentences.txt (line i of one is line i of
the other) and params.json, and writes OUT/embeddings.npy (float32,
sentences x dim) and OUT/ids.txt (the identifiers, in the same order).

The model: the hashed character trigrams of kd_demo_tokenizer (features
buckets), a fixed linear layer whose weights are derived from the seed with
SHA-256 (no random generator, so another implementation can rebuild them),
tanh, then each row scaled to unit length.

Usage: python embed.py [--out DIR] [--device DEVICE]

--device cpu (the default), cuda, cuda:1 ...: where the product is computed.
A device that cannot be reached is an error: nothing falls back to the CPU.
"""

import argparse
import hashlib
import json
import os
import struct
import sys

import torch

import kd_demo_tokenizer


def weight(seed, i, j, features):
    """Element (i, j) of the linear layer: uniform in [-1, 1) / sqrt(features)."""
    d = hashlib.sha256(("kd-demo:%d:%d:%d" % (seed, i, j)).encode()).digest()
    u = int.from_bytes(d[:8], "little") / 2.0 ** 64
    return (2.0 * u - 1.0) / features ** 0.5


def write_npy(path, rows, cols, values):
    """A little-endian float32 .npy file, version 1.0, C order."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="outputs", help="output folder (default: outputs)")
    ap.add_argument("--device", default="cpu", help="torch device (default: cpu)")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "params.json")) as f:
        params = json.load(f)
    with open(os.path.join(here, "sample", "ids.txt")) as f:
        ids = [l.strip() for l in f if l.strip()]
    with open(os.path.join(here, "sample", "sentences.txt")) as f:
        sentences = [l.strip() for l in f if l.strip()]
    if len(ids) != len(sentences):
        sys.exit("embed.py: %d ids for %d sentences" % (len(ids), len(sentences)))
    nf, dim, seed = params["features"], params["dim"], params["seed"]

    device = torch.device(args.device)
    x = torch.tensor([kd_demo_tokenizer.features(s, nf) for s in sentences],
                     dtype=torch.float32, device=device)
    w = torch.tensor([[weight(seed, i, j, nf) for j in range(dim)] for i in range(nf)],
                     dtype=torch.float32, device=device)
    y = torch.tanh(x @ w)
    y = (y / y.norm(dim=1, keepdim=True)).cpu()

    os.makedirs(args.out, exist_ok=True)
    write_npy(os.path.join(args.out, "embeddings.npy"), y.shape[0], y.shape[1],
              y.contiguous().view(-1).tolist())
    with open(os.path.join(args.out, "ids.txt"), "w") as f:
        f.write("".join(i + "\n" for i in ids))
    print("embed.py: %d sentences -> %s/embeddings.npy (%d x %d float32, torch %s, on %s)"
          % (len(ids), args.out, y.shape[0], y.shape[1], torch.__version__, device))


if __name__ == "__main__":
    main()
