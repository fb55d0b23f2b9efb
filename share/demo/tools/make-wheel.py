#!/usr/bin/python3
"""Build the demo's wheel, kd_demo_tokenizer-1.0.0-py3-none-any.whl.

A wheel is a zip archive with the package, METADATA, WHEEL and RECORD (PEP
427); this script writes one without setuptools or network, with fixed
timestamps and order so that the same sources always give the same bytes
(the demo's requirements pin it by its SHA-256).

Usage: tools/make-wheel.py OUTDIR   (run from share/demo)
"""

import base64
import hashlib
import os
import sys
import zipfile

NAME, VERSION = "kd_demo_tokenizer", "1.0.0"
DIST = "%s-%s.dist-info" % (NAME, VERSION)
HERE = os.path.dirname(os.path.abspath(__file__))


def record_hash(data):
    d = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    with open(os.path.join(HERE, NAME, "__init__.py"), "rb") as f:
        init = f.read()
    files = [
        (NAME + "/__init__.py", init),
        (DIST + "/METADATA", (
            "Metadata-Version: 2.1\n"
            "Name: kd-demo-tokenizer\n"
            "Version: %s\n"
            "Summary: Hashed character trigrams for the kernodeck demo\n"
            "License: MIT\n"
            "Requires-Python: >=3.8\n" % VERSION).encode()),
        (DIST + "/WHEEL", (
            "Wheel-Version: 1.0\n"
            "Generator: kernodeck make-wheel.py\n"
            "Root-Is-Purelib: true\n"
            "Tag: py3-none-any\n").encode()),
        (DIST + "/top_level.txt", (NAME + "\n").encode()),
    ]
    record = "".join("%s,%s,%d\n" % (n, record_hash(d), len(d)) for n, d in files)
    record += DIST + "/RECORD,,\n"
    files.append((DIST + "/RECORD", record.encode()))
    path = os.path.join(out, "%s-%s-py3-none-any.whl" % (NAME, VERSION))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
    with open(path, "rb") as f:
        print("%s  %s" % (hashlib.sha256(f.read()).hexdigest(), path))


if __name__ == "__main__":
    main()
