#!/usr/bin/python3
"""mkwheel.py - build a small pure-Python wheel for kernodeck's tests.

Usage: mkwheel.py OUTDIR NAME VERSION [--requires SPEC]... [--tag TAG]

A wheel is a zip holding NAME/__init__.py and NAME-VERSION.dist-info/
{METADATA, WHEEL, RECORD} (PEP 427, PEP 376).  No setuptools, no network:
run it with /usr/bin/python3.  Prints the path of the wheel.
"""
import base64
import hashlib
import os
import re
import sys
import zipfile


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (path, digest.decode("ascii"), len(data))


def build(outdir, name, version, requires, tag):
    dist = re.sub(r"[-_.]+", "_", name)
    module = dist.lower()
    info = "%s-%s.dist-info" % (dist, version)
    files = {
        "%s/__init__.py" % module: ("__version__ = %r\n" % version).encode(),
        "%s/METADATA" % info: (
            "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: kernodeck test wheel\n"
            % (name, version)
            + "".join("Requires-Dist: %s\n" % r for r in requires)
        ).encode(),
        "%s/WHEEL" % info: (
            "Wheel-Version: 1.0\nGenerator: kernodeck-mkwheel\nRoot-Is-Purelib: true\nTag: %s\n"
            % tag
        ).encode(),
    }
    record = [record_line(p, d) for p, d in files.items()]
    record.append("%s/RECORD,," % info)
    files["%s/RECORD" % info] = ("\n".join(record) + "\n").encode()
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "%s-%s-%s.whl" % (dist, version, tag))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files.items():
            z.writestr(zipfile.ZipInfo(p, date_time=(2024, 1, 1, 0, 0, 0)), d)
    return path


def main(argv):
    args, requires, tag = [], [], "py3-none-any"
    i = 0
    while i < len(argv):
        if argv[i] == "--requires" and i + 1 < len(argv):
            requires.append(argv[i + 1])
            i += 2
        elif argv[i] == "--tag" and i + 1 < len(argv):
            tag = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 3:
        sys.stderr.write(__doc__)
        return 2
    print(build(args[0], args[1], args[2], requires, tag))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
