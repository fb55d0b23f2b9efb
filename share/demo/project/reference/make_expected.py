#!/usr/bin/python3
"""Compute reference/expected.npy: the demo's embeddings in float64, with
NumPy only, independently of embed.py, PyTorch and kd_demo_tokenizer.

Same model as embed.py (hashed character trigrams, a linear layer derived
from the seed with SHA-256, tanh, unit rows) written again from its
description, in float64.  embed.py computes in float32: the two agree
within the tolerance stated in kernodeck/reference.yaml, and a real change
(another weight, another feature, another sentence) moves values by far
more than that.

Usage: python3 reference/make_expected.py   (from the project folder)
"""

import hashlib
import json
import os

import numpy as np

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
params = json.load(open(os.path.join(here, "params.json")))
nf, dim, seed = params["features"], params["dim"], params["seed"]
sentences = [l.strip() for l in open(os.path.join(here, "sample", "sentences.txt")) if l.strip()]

x = np.zeros((len(sentences), nf), dtype=np.float64)
for r, s in enumerate(sentences):
    framed = "^" + s.lower().strip() + "$"
    grams = [framed[i:i + 3] for i in range(len(framed) - 2)]
    for g in grams:
        h = hashlib.sha256(g.encode("utf-8")).digest()
        x[r, int.from_bytes(h[:4], "little") % nf] += 1.0
    x[r] /= max(1, len(grams))

w = np.empty((nf, dim), dtype=np.float64)
for i in range(nf):
    for j in range(dim):
        d = hashlib.sha256(("kd-demo:%d:%d:%d" % (seed, i, j)).encode()).digest()
        w[i, j] = (2.0 * (int.from_bytes(d[:8], "little") / 2.0 ** 64) - 1.0) / np.sqrt(nf)

y = np.tanh(x @ w)
y /= np.linalg.norm(y, axis=1, keepdims=True)
np.save(os.path.join(here, "reference", "expected.npy"), y)
print("expected.npy: %s %s" % (y.shape, y.dtype))
