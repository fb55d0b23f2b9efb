#!/usr/bin/python3
"""Write share/demo/reference.yaml, the demo's fixed reference, from the demo
project's files (their SHA-256 digests and sizes).  Run once after changing
the demo project (from share/demo); kernodeck demo copies the result and
fills in code.commit.

The sample folder's digest is kernodeck's folder digest: SHA-256 of the
sorted manifest of lines "SHA256  SIZE  RELPATH\\n" (hash_folder in
src/lib/hash.c).
"""

import hashlib
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROJECT = os.path.join(HERE, "project")


def file_digest(rel):
    with open(os.path.join(PROJECT, rel), "rb") as f:
        data = f.read()
    return hashlib.sha256(data).hexdigest(), len(data)


def folder_digest(rel):
    root = os.path.join(PROJECT, rel)
    entries = []
    for d, _, files in os.walk(root):
        for n in files:
            p = os.path.join(d, n)
            entries.append(os.path.relpath(p, root))
    lines, total = [], 0
    for e in sorted(entries, key=lambda s: s.encode()):
        h, size = file_digest(os.path.join(rel, e))
        lines.append("%s  %d  %s\n" % (h, size, e))
        total += size
    return hashlib.sha256("".join(lines).encode()).hexdigest(), total


params = file_digest("params.json")
sample = folder_digest("sample")
example = file_digest("reference/expected.npy")

TEMPLATE = """\
# The reference of the kernodeck demo (format: doc/reference-format.md).
# Recorded once on Debian 12 (bookworm) x86_64, /usr/bin/python3 3.11.2 and
# Debian's python3-torch 1.13.1 on the CPU.  kernodeck demo fills in
# code.commit with the commit it makes; everything else is fixed.
schema: 1
goal: close-values
strict: true
code:
  repository: .
  commit: null
  branch: main
  tags: []
  remote: null
  entry_point: [python, embed.py, --out, outputs]
  params:
    - path: params.json
      sha256: %(params)s
data:
  - name: demo sentences
    kind: data
    path: sample
    sha256: %(sample)s
    size: %(sample_size)d
    version: "1.0"
    provenance: written for the kernodeck demo; shipped in share/demo
    access: public
python:
  version: "3.11.2"
  interpreter: /usr/bin/python3
  inventory: reference/freeze.txt
  install:
    procedure: /usr/bin/python3 -m venv --system-site-packages .venv-rebuild && .venv-rebuild/bin/python -m pip install -r requirements-rebuild.txt
    system_site_packages: true
    sources:
      - "wheels/ (--no-index --find-links wheels): kd-demo-tokenizer 1.0.0, pinned by digest"
      - "Debian 12 packages python3-torch 1.13.1 and python3-numpy 1.24.2, through system site packages"
system:
  os: Debian GNU/Linux 12 (bookworm)
  arch: x86_64
  gpu_vendor: none
  gpu_model: null
  gpu_count: 0
  driver: null
  cuda: null
  rocm: null
  backend: cpu
result:
  format: npy
  outputs: outputs
  files: [embeddings.npy]
  count: 1
  shape: [12, 16]
  dtype: float32
  finite: true
  ids:
    file: outputs/ids.txt
    reference: sample/ids.txt
    order: same
  criterion: each sentence keeps the same nearest neighbour as in the reference (search results do not change)
  rule:
    kind: tolerance
    atol: 1.0e-6
    rtol: 1.0e-5
    nan_equal: false
    justification: >-
      embed.py computes in float32 (24-bit significand, unit roundoff 6e-8);
      the reference is float64 from an independent NumPy implementation.
      A 64-term dot product, tanh and a normalisation accumulate at most a few
      hundred roundings: about 1e-7 absolute on values of unit rows (0.1 to 1);
      the recorded run differs by 9.3e-8 at most.  atol 1e-6 + rtol 1e-5 leaves
      a tenfold margin, and any real change (a weight, a feature, a sentence)
      moves values by more than 1e-3.
  sample:
    path: sample
    sha256: %(sample)s
  example:
    path: reference/expected.npy
    sha256: %(example)s
not_applicable:
  code.remote: a local repository made by kernodeck demo; replay clones it from its folder
  system.gpu_model: the demo runs on the CPU
  system.driver: the demo runs on the CPU
  system.cuda: the demo runs on the CPU
  system.rocm: the demo runs on the CPU
"""

with open(os.path.join(HERE, "reference.yaml"), "w") as f:
    f.write(TEMPLATE % {"params": params[0], "sample": sample[0], "sample_size": sample[1],
                        "example": example[0]})
print("reference.yaml: params %s, sample %s, example %s" % (params[0][:12], sample[0][:12],
                                                            example[0][:12]))
