#!/usr/bin/python3
"""gen-inputs.py - inputs for tests/bench/parse.sh, generated (deterministic,
standard library only; run with /usr/bin/python3).

  gen-inputs.py freeze N OUT             a pip freeze --all of N packages
  gen-inputs.py variant IN OUT           IN with about 5% of it changed
  gen-inputs.py pip-check N OUT          a pip check output of N lines
  gen-inputs.py dossier BASE PKGS OUT    BASE (a dossier.yaml) with its
                                         inventory.packages replaced by the
                                         YAML list in PKGS

The line shapes are those of the real outputs in tests/fixtures/pip/pip_freeze
and pip_check (pasted in public issues; sources in tests/fixtures/pip/SOURCES.md): name==version, direct URLs
from conda builds (name @ file:///tmp/build/...), editable installs with
their comment, local labels (+cu121), and the three pip check kinds
(requires ... which is not installed; has requirement ..., but you have
...; is not supported on this platform).
"""
import random
import sys

WORDS = ("""torch vision audio text data utils core lib py fast tiny deep
          net graph sparse cuda rocm cpu jit onnx trace log metric opt sched
          token embed index search vector store cache proto grpc http json
          yaml toml ini conf env path file io zip hash sign auth cert ssl"""
         ).split()


def names(n, rng):
    """n distinct package names in the shapes PyPI uses."""
    seen, out = set(), []
    while len(out) < n:
        parts = rng.sample(WORDS, rng.choice((1, 2, 2, 3)))
        sep = rng.choice(("-", "-", "_", ".", ""))
        name = sep.join(parts) + ("%d" % rng.randrange(1000) if rng.random() < 0.5 else "")
        if rng.random() < 0.1:
            name = name.capitalize()
        key = name.lower().replace("_", "-").replace(".", "-")
        if key not in seen:
            seen.add(key)
            out.append(name)
    return out


def version(rng):
    v = "%d.%d.%d" % (rng.randrange(4), rng.randrange(30), rng.randrange(20))
    r = rng.random()
    if r < 0.05:
        v += rng.choice(("rc1", "b2", ".post1", ".dev0"))
    return v


def freeze_line(name, ver, rng):
    r = rng.random()
    if r < 0.80:
        return "%s==%s" % (name, ver)
    if r < 0.88:
        return "%s==%s+%s" % (name, ver, rng.choice(("cu121", "cu118", "cpu", "rocm6.2")))
    if r < 0.96:
        return "%s @ file:///tmp/build/80754af9/%s_%d/work" % (
            name, name.lower().replace("-", "_"), 1600000000000 + rng.randrange(10 ** 11))
    if r < 0.98:
        return ("# Editable install with no version control (%s==%s)\n-e /data/src/%s"
                % (name, ver, name))
    return "-e git+https://github.com/example/%s.git@%040x#egg=%s" % (
        name, rng.getrandbits(160), name.replace("-", "_"))


def cmd_freeze(n, out):
    rng = random.Random(n)
    pkgs = names(n, rng)
    with open(out, "w") as f:
        for name in sorted(pkgs, key=str.lower):
            f.write(freeze_line(name, version(rng), rng) + "\n")


def cmd_variant(src, out):
    """About 1% removed, 1% added, 2% new version, 1% new local label."""
    rng = random.Random(7)
    lines = open(src).read().splitlines()
    res = []
    for line in lines:
        r = rng.random()
        if r < 0.01 and not line.startswith("#"):
            continue
        if r < 0.03 and "==" in line and not line.startswith(("#", "-e")):
            name, ver = line.split("==", 1)
            base, _, local = ver.partition("+")
            parts = base.split(".")
            if parts[-1].isdigit():
                parts[-1] = str(int(parts[-1]) + 1)
                line = "%s==%s%s" % (name, ".".join(parts), "+" + local if local else "")
        elif r < 0.04 and "==" in line and "+" in line:
            name, ver = line.split("==", 1)
            line = "%s==%s+cu124" % (name, ver.split("+")[0])
        res.append(line)
    for name in names(max(1, len(lines) // 100), random.Random(99)):
        res.append("zz-extra-%s==1.0.0" % name.lower())
    with open(out, "w") as f:
        f.write("\n".join(res) + "\n")


def cmd_pip_check(n, out):
    rng = random.Random(n)
    pkgs = names(max(10, n // 2), rng)
    with open(out, "w") as f:
        for _ in range(n):
            a, b = rng.sample(pkgs, 2)
            r = rng.random()
            if r < 0.5:
                f.write("%s %s requires %s, which is not installed.\n" % (a, version(rng), b))
            elif r < 0.95:
                f.write("%s %s has requirement %s>=%s, but you have %s %s.\n"
                        % (a, version(rng), b, version(rng), b, version(rng)))
            else:
                f.write("%s %s is not supported on this platform\n" % (a, version(rng)))


def cmd_dossier(base, pkgs, out):
    lines = open(base).read().split("\n")
    start = lines.index("inventory:")
    end = start + 1
    while end < len(lines) and (lines[end].startswith(" ") or lines[end].startswith("-")
                                or lines[end] == ""):
        end += 1
    block = ["inventory:", "  source: kernodeck/installed-after.txt"]
    for line in open(pkgs).read().split("\n"):
        if line and not line.startswith("packages:"):
            block.append("  " + line)
        elif line.startswith("packages:"):
            block.append("  packages:")
    with open(out, "w") as f:
        f.write("\n".join(lines[:start] + block + lines[end:]))


def main(argv):
    if len(argv) >= 3 and argv[0] == "freeze":
        cmd_freeze(int(argv[1]), argv[2])
    elif len(argv) >= 3 and argv[0] == "variant":
        cmd_variant(argv[1], argv[2])
    elif len(argv) >= 3 and argv[0] == "pip-check":
        cmd_pip_check(int(argv[1]), argv[2])
    elif len(argv) >= 4 and argv[0] == "dossier":
        cmd_dossier(argv[1], argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
