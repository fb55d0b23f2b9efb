# bisect-verdicts.sh - kernodeck bisect's verdicts past "vanishes" (issue 29,
# point 4): a layer that shrinks the difference, the settings layer, and
# the smallest set of layers together.  The demo project made to scale its
# output by two things: alpha's constant (a package, as in bisect-layers)
# and a factor from a float32 sum over a million elements, whose last bits
# depend on PyTorch's thread count (its parallel sum splits the reduction
# by thread).  The dossier was made with OMP_NUM_THREADS=2 (the probe
# records num_threads 2) and alpha 1.0 from ext1; project p2 runs with
# OMP_NUM_THREADS=1 (set, as a machine's default may be either) and another
# alpha 1.0 (ext2): each of env, settings
# and packages removes one of the two causes (shrinks), none alone makes
# it vanish, env+packages together do, env+settings do not; with a
# sentence changed too, env, packages and data are needed.  p1 checked
# again with one thread: the settings layer alone explains it.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python bisect-verdicts "python3-torch is needed" torch
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
unset OMP_NUM_THREADS MKL_NUM_THREADS ATEN_CPU_CAPABILITY
export PIP_CONFIG_FILE=/dev/null PIP_RETRIES=0 PIP_TIMEOUT=5
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
J="$KD_TMP/j.py"
# j.py FILE EXPR: exit 0 when EXPR holds of the bisect report d (L: its
# rows by layer, T: its rows "together" by their layers joined with +)
cat >"$J" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
L = {l["layer"]: l for l in d["layers"]}
T = {"+".join(l["layers"]): l["outcome"] for l in d["layers"] if l["layer"] == "together"}
ok = eval(sys.argv[2])
if not ok:
    print("# " + json.dumps({"outcomes": [(l["layer"], l.get("layers"), l["outcome"]) for l in d["layers"]],
                             "explained_by": d["explained_by"]}))
sys.exit(0 if ok else 1)
PYEOF

alpha_wheels 0.9999999
alpha_pair "    import alpha.scale
    t = torch.linspace(0, 1, 1000003).pow(1.5).sum().item()
    y = (y / y.norm(dim=1, keepdim=True) * alpha.scale.SCALE
         * (1.0 + (t - 400001.25) * 1e-5)).cpu()" \
	"the output scaled by alpha's constant and by a sum that depends on the threads"
OMP_NUM_THREADS=2 "$KD_BIN" check "$P1" --quiet >"$KD_TMP/c1.out" 2>&1
r1=$?
# from here on, "this machine" runs one thread
export OMP_NUM_THREADS=1
"$KD_BIN" check "$P2" --quiet >"$KD_TMP/c2.out" 2>&1
r2=$?
check "both projects pass (the differences within the rule)" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ]' sh "$r1" "$r2"
[ "$r1" -eq 0 ] || grep -v ' pass ' "$KD_TMP/c1.out" | head -n 10 | sed 's/^/#   /'
[ "$r2" -eq 0 ] || grep -v ' pass ' "$KD_TMP/c2.out" | head -n 10 | sed 's/^/#   /'
D="$KD_TMP/d1"
cp -a "$P1/kernodeck/dossier" "$D"

# one layer that removes one of two causes: shrinks, in text and in JSON;
# nothing explains it (exit 1)
"$KD_BIN" bisect "$D" "$P2" --layers env >"$KD_TMP/s1.txt" 2>"$KD_TMP/s1.err"
r=$?
sed 's/^/#   /' "$KD_TMP/s1.txt"
check "env alone: exit 1, the row says shrinks, no layer explains it" sh -c \
	'[ "$1" -eq 1 ] && grep -q "^  env       shrinks    embeddings.npy: [0-9]* of 192 differ" "$2" &&
	 grep -qx "no layer explains the difference" "$2"' sh "$r" "$KD_TMP/s1.txt"
check "env alone: the here row's largest difference is larger than env's" "$PY" -c '
import re, sys
t = open(sys.argv[1]).read()
h = float(re.search(r"^  here .*largest ([0-9.e+-]+)", t, re.M).group(1))
e = float(re.search(r"^  env .*largest ([0-9.e+-]+)", t, re.M).group(1))
sys.exit(0 if 0 < e < h else 1)' "$KD_TMP/s1.txt"
"$KD_BIN" bisect "$D" "$P2" --layers packages --format json >"$KD_TMP/s2.json" 2>"$KD_TMP/s2.err"
r=$?
check "packages alone: exit 1, outcome shrinks, its largest below here's, explained by nothing" sh -c \
	'[ "$1" -eq 1 ] && "$2" "$3" "$4" '\''L["here"]["outcome"] == "differs" and L["packages"]["outcome"] == "shrinks" and 0 < L["packages"]["comparison"]["largest"] < L["here"]["comparison"]["largest"] and d["explained_by"] == []'\''' \
	sh "$r" "$PY" "$J" "$KD_TMP/s2.json"

# no layer alone, two together: the smallest set named (env and settings
# both remove the thread count's part: env+packages, the first pair that
# does, not all three)
"$KD_BIN" bisect "$D" "$P2" --layers env,settings,packages --format json >"$KD_TMP/t1.json" 2>"$KD_TMP/t1.err"
r=$?
check "env,settings,packages: exit 0" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 5 "$KD_TMP/t1.err" | sed 's/^/#   /'
check "env,settings,packages: each shrinks alone; all together and env+packages vanish; env+settings does not" \
	"$PY" "$J" "$KD_TMP/t1.json" 'all(L[k]["outcome"] == "shrinks" for k in ("env", "settings", "packages")) and T.get("env+settings+packages") == "vanishes" and T.get("env+packages") == "vanishes" and T.get("env+settings") != "vanishes"'
check "env,settings,packages: explained by the smallest set, env and packages" \
	"$PY" "$J" "$KD_TMP/t1.json" 'd["explained_by"] == [{"layers": ["env", "packages"]}]'
check "a run's copy of the project leaves kernodeck's folder out (the runs' folders are in it)" \
	sh -c '[ -f "$1/01-here/work/embed.py" ] && ! [ -e "$1/01-here/work/kernodeck" ] &&
	 ! [ -e "$1/07-together-env+packages/work/kernodeck" ]' sh "$P2/kernodeck/bisect"
check "the plan says the layers may run together" \
	grep -q "then, when no layer alone makes the difference vanish: the layers that ran, together" "$KD_TMP/t1.err"
"$KD_BIN" bisect "$D" "$P2" --layers env,settings >"$KD_TMP/t2.txt" 2>"$KD_TMP/t2.err"
r=$?
sed 's/^/#   /' "$KD_TMP/t2.txt"
check "env,settings: together they do not explain it: exit 1, said" sh -c \
	'[ "$1" -eq 1 ] && grep -q "^  together  shrinks    env+settings: embeddings.npy" "$2" &&
	 grep -qx "no layer explains the difference" "$2"' sh "$r" "$KD_TMP/t2.txt"
"$KD_BIN" bisect "$D" "$P2" --layers env,packages >"$KD_TMP/t3.txt" 2>"$KD_TMP/t3.err"
r=$?
sed 's/^/#   /' "$KD_TMP/t3.txt"
check "env,packages: exit 0, named in the text" sh -c \
	'[ "$1" -eq 0 ] && grep -q "^  together  vanishes   env+packages: bit for bit the dossier" "$2" &&
	 grep -qx "explained by the layers together: env packages" "$2"' sh "$r" "$KD_TMP/t3.txt"

# three causes in three layers, two of which alone leave the largest
# difference as it is (a changed sentence dominates it): those that stay
# are tried together too, and no pair is enough: all three named
ORIG="$KD_TMP/orig"
mkdir -p "$ORIG"
cp -a "$P2/sample" "$ORIG/sample"
sed -i '1s/$/ and more/' "$P2/sample/sentences.txt"
"$KD_BIN" check "$P2" --stage sample --force --quiet >/dev/null 2>&1
"$KD_BIN" bisect "$D" "$P2" --layers env,packages,data --data "$ORIG" --format json \
	>"$KD_TMP/v1.json" 2>"$KD_TMP/v1.err"
r=$?
check "env,packages,data: exit 0" test "$r" -eq 0
check "env,packages,data: env and packages stay, data shrinks; all three together vanish, no pair does" \
	"$PY" "$J" "$KD_TMP/v1.json" 'L["env"]["outcome"] == "stays" and L["packages"]["outcome"] == "stays" and L["data"]["outcome"] == "shrinks" and T.get("env+packages+data") == "vanishes" and all(T.get(k) not in (None, "vanishes") for k in ("env+packages", "env+data", "packages+data")) and d["explained_by"] == [{"layers": ["env", "packages", "data"]}]'

# the settings layer alone: p1 checked again with one thread (its probe
# now records num_threads 1)
"$KD_BIN" check "$P1" --stage compute --force --quiet >/dev/null 2>&1
"$KD_BIN" check "$P1" --stage sample --force --quiet >/dev/null 2>&1
"$KD_BIN" bisect "$D" "$P1" --layers settings,packages >"$KD_TMP/u1.txt" 2>"$KD_TMP/u1.err"
r=$?
sed 's/^/#   /' "$KD_TMP/u1.txt"
check "settings: exit 0, the dossier's thread count makes it vanish and is named" sh -c \
	'[ "$1" -eq 0 ] && grep -q "^  here      differs    embeddings.npy" "$2" &&
	 grep -q "^  settings  vanishes   bit for bit the dossier" "$2" &&
	 grep -q "^  packages  not run    the dossier.s lock is this project.s" "$2" &&
	 grep -qx "explained by settings: num_threads=2" "$2"' sh "$r" "$KD_TMP/u1.txt"
check "settings: the plan shows the setting passed to the wrapper" \
	grep -q "settings (the dossier's precision and determinism settings.*" "$KD_TMP/u1.err"
check "settings: the run's vector carries num_threads 2" \
	grep -q '^run 02-settings: .*{"num_threads":2}' "$KD_TMP/u1.err"
