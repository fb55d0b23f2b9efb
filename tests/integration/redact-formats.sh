# redact-formats.sh - redaction never breaks the file it redacts: every
# planted value of tests/fixtures/secrets/corpus.tsv is written in each
# position of YAML (block plain, double- and single-quoted, flow sequence
# and mapping, literal and folded block scalars, a quoted string over
# lines), JSON and TOML (basic, literal, multi-line strings, arrays, inline
# tables); each file is redacted (tests/helpers/kd-redact) with the values
# known (as secrets_collect registers them) and without (the shapes
# alone), and must parse to the same tree with only values replaced.
. "$KD_SRCDIR/tests/lib.sh"
need_python "redact formats" "python3-yaml is not installed" yaml tomllib
RED="$KD_BUILDDIR/tests/helpers/kd-redact"
[ -x "$RED" ] || { notok "tests/helpers/kd-redact is built"; exit 0; }
/usr/bin/python3 - "$KD_SRCDIR/tests/fixtures/secrets/corpus.tsv" "$KD_TMP" "$RED" <<'PYEOF'
import json, os, subprocess, sys, tomllib, yaml

corpus, tmp, red = sys.argv[1:4]
un = lambda s: s.replace("\\\\", "\0").replace("\\n", "\n").replace("\\t", "\t").replace("\0", "\\")
values = []
for l in open(corpus):
    if l.startswith("#"):
        continue
    r = l.rstrip("\n").split("\t")
    if r[0] == "secret":
        v = un(r[2])
        if "\n" not in v and v not in values:
            values.append(v)

def yq(v):   # a YAML (and TOML basic) double-quoted scalar
    return json.dumps(v)

def sq(v):
    return "'" + v.replace("'", "''") + "'"

def yaml_docs(v):
    d = {
        "plain": "password: %s\nnote: kept\n" % v,
        "plain-prose": "note: the key %s is here\n" % v,
        "dquoted": "token: %s\n" % yq(v),
        "squoted": "secret: %s\n" % sq(v),
        "flow-seq": "code:\n  entry_point: [python, run.py, --password=%s]\n  x: 1\n" % v,
        "flow-seq-alone": "args: [python, run.py, %s, --epochs, 3]\n" % v,
        "flow-map": "db: {user: bob, password: %s, port: 5432}\n" % v,
        "flow-map-quoted": "db: {user: bob, token: %s}\n" % yq(v),
        "literal": "key: |\n  first line\n  %s\n  last line\nafter: 1\n" % v,
        "folded": "key: >\n  first line\n  %s\nafter: 1\n" % v,
        "dquoted-lines": "note: \"first line\n  %s last\"\nafter: 1\n" % json.dumps(v)[1:-1],
        "list": "items:\n  - --token\n  - %s\n  - x\n" % v,
    }
    return d

def json_docs(v):
    return {"object": json.dumps({"password": v, "args": ["--token=" + v, "x"],
                                  "note": "the key %s here" % v, "n": 1}, indent=1),
            "compact": json.dumps({"a": [v, {"secret": v}]}),
            "ascii": json.dumps({"token": v + "\u00e9"}, ensure_ascii=True)}

def toml_docs(v):
    d = {"basic": "password = %s\nn = 1\n" % yq(v),
         "array": "args = [\"python\", %s]\n" % yq("--password=" + v),
         "inline": "db = { user = \"bob\", password = %s }\n" % yq(v),
         "multi": "note = \"\"\"\nfirst\n%s\nlast\"\"\"\n" % json.dumps(v)[1:-1]}
    if "'" not in v:
        d["literal"] = "secret = '%s'\n" % v
        d["multi-literal"] = "key = '''\n%s\n'''\n" % v
    return d

LOAD = {"yaml": yaml.safe_load, "json": json.loads, "toml": tomllib.loads}
docs = []
for i, v in enumerate(values):
    for fmt, gen in (("yaml", yaml_docs), ("json", json_docs), ("toml", toml_docs)):
        for pos, text in gen(v).items():
            try:
                tree = LOAD[fmt](text)
            except Exception:
                continue   # the value cannot stand there as written
            path = os.path.join(tmp, "%d-%s-%s.%s" % (i, fmt, pos, fmt))
            with open(path, "w") as f:
                f.write(text)
            docs.append((path, fmt, pos, v, tree))

def same(a, b, v):
    """Same tree, leaves equal or their value replaced by ${NAME}."""
    if type(a) != type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], v) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y, v) for x, y in zip(a, b))
    if isinstance(a, str) and a != b:
        return "${" in b and (v is None or v not in b)
    return a == b

def run(mode):
    vals = os.path.join(tmp, "values-" + mode)
    with open(vals, "w") as f:
        if mode == "known":
            for i, v in enumerate(values):
                f.write("V%d_SECRET\t%s\n" % (i, v))
    p = subprocess.run([red, vals], input="\n".join(d[0] for d in docs) + "\n", text=True)
    assert p.returncode == 0, "kd-redact failed"
    broken, kept, changed = [], [], 0
    for path, fmt, pos, v, tree in docs:
        out = open(path + ".red").read()
        changed += out != open(path).read()
        try:
            t2 = LOAD[fmt](out)
        except Exception as e:
            broken.append("%s %s: does not parse: %s" % (fmt, pos, str(e).splitlines()[0]))
            continue
        if not same(tree, t2, v if mode == "known" else None):
            broken.append("%s %s: another tree:\n#   %r\n#   %r" % (fmt, pos, tree, t2))
        if mode == "known" and v in out:
            kept.append("%s %s" % (fmt, pos))
    return broken, kept, changed

ok = True
for mode in ("known", "shapes"):
    broken, kept, changed = run(mode)
    print("# %s: %d files from %d values, %d redacted, %d broken, %d kept a value" %
          (mode, len(docs), len(values), changed, len(broken), len(kept)))
    for b in broken[:8]:
        print("#   " + b)
    for k in kept[:8]:
        print("#   kept: " + k)
    print(("ok" if not broken else "not ok") + " - %s: every redacted file parses to the same tree" % mode)
    if mode == "known":
        print(("ok" if not kept else "not ok") + " - known: no value is left in any file")
        print(("ok" if changed == len(docs) else "not ok") + " - known: every file was redacted")
print(("ok" if len(values) >= 150 and len(docs) >= 150 * 20 else "not ok") +
      " - at least 150 values in at least 20 positions each")
PYEOF
