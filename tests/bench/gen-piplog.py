#!/usr/bin/env python3
"""gen-piplog.py OUT [BYTES] - a pip install -v log of BYTES (default 8.7 MB,
seeded, no credential in it): the input of tests/bench/redact.sh."""
import random, sys
rng = random.Random(15)
words = "torch numpy scipy pandas requests urllib3 idna certifi charset-normalizer filelock typing-extensions sympy networkx jinja2 fsspec".split()
out = []
size = 0
target = int(sys.argv[2]) if len(sys.argv) > 2 else 8_700_000
i = 0
while size < target:
    w = rng.choice(words); v = "%d.%d.%d" % (rng.randint(0,3), rng.randint(0,30), rng.randint(0,9))
    h = "%064x" % rng.getrandbits(256)
    lines = [
        "Collecting %s==%s" % (w, v),
        "  Created temporary directory: /tmp/pip-unpack-%08x" % rng.getrandbits(32),
        "  Looking up \"https://pypi.internal.example.com/simple/%s/\" in the cache" % w,
        "  Starting new HTTPS connection (1): pypi.internal.example.com:443",
        "  https://pypi.internal.example.com:443 \"GET /simple/%s/ HTTP/1.1\" 200 %d" % (w, rng.randint(1000, 90000)),
        "  Found link https://files.example.com/packages/%s/%s-%s-py3-none-any.whl#sha256=%s (from https://pypi.internal.example.com/simple/%s/), version: %s" % (h[:2], w, v, h, w, v),
        "  Skipping link: none of the wheel's tags (cp311-cp311-win_amd64) are compatible (run pip debug --verbose to show compatible tags): https://files.example.com/%s-%s-cp311-cp311-win_amd64.whl#sha256=%s" % (w, v, h),
        "  Downloading %s-%s-py3-none-any.whl (%d kB)" % (w, v, rng.randint(10, 9000)),
        "  Added %s==%s from https://files.example.com/%s-%s-py3-none-any.whl#sha256=%s to build tracker '/tmp/pip-build-tracker-%08x'" % (w, v, w, v, h, rng.getrandbits(32)),
        "Requirement already satisfied: %s>=%s in ./venv/lib/python3.11/site-packages (from -r requirements.txt (line %d)) (%s)" % (w, v, rng.randint(1,90), v),
    ]
    for l in lines:
        out.append(l); size += len(l) + 1
    i += 1
open(sys.argv[1], "w").write("\n".join(out) + "\n")
