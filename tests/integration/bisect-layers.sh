# bisect-layers.sh - kernodeck bisect's packages and data layers (issue 29,
# point 4) on the demo project made to import a package, alpha, whose
# constant scales the output: the dossier was made with alpha 1.0 from one
# folder of wheels; a second project installs another alpha 1.0 (the same
# version, another constant) from another folder: the packages layer (a
# side venv from the dossier's lock) makes the difference vanish and names
# alpha.  A sample file changed after the dossier: with --data, the data
# layer names it.  Bad inputs exit 2 with a clear message.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python bisect-layers "python3-torch is needed" torch
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null PIP_RETRIES=0 PIP_TIMEOUT=5
export HOME="$KD_TMP/home"
mkdir -p "$HOME"

# alpha 1.0 twice: SCALE 1.0 in ext1, 1.0000001 in ext2
alpha_wheels 1.0000001
alpha_pair "    import alpha.scale
    y = (y / y.norm(dim=1, keepdim=True) * alpha.scale.SCALE).cpu()" "the output scaled by alpha's constant"
"$KD_BIN" check "$P1" --quiet >"$KD_TMP/c1.out" 2>&1
r1=$?
"$KD_BIN" check "$P2" --quiet >"$KD_TMP/c2.out" 2>&1
r2=$?
check "both projects pass (the two alphas within the rule)" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ]' sh "$r1" "$r2"
[ "$r1" -eq 0 ] || grep -v ' pass ' "$KD_TMP/c1.out" | head -n 10 | sed 's/^/#   /'
[ "$r2" -eq 0 ] || grep -v ' pass ' "$KD_TMP/c2.out" | head -n 10 | sed 's/^/#   /'
D="$KD_TMP/d1"
cp -a "$P1/kernodeck/dossier" "$D"

# bad inputs: exit 2 and a message that says what is wrong
expect_exit 2 "no dossier: exit 2" "$KD_BIN" bisect "$KD_TMP/nothing" "$P2"
"$KD_BIN" bisect "$KD_TMP/nothing" "$P2" 2>"$KD_TMP/e1" >/dev/null
check "no dossier: the message names the path" grep -q "$KD_TMP/nothing: no such dossier" "$KD_TMP/e1"
expect_exit 2 "an unknown layer: exit 2" "$KD_BIN" bisect "$D" "$P2" --layers env,kernels
"$KD_BIN" bisect "$D" "$P2" --layers env,kernels 2>"$KD_TMP/e2" >/dev/null
check "an unknown layer: named, with the layers there are" \
	grep -q 'unknown layer "kernels" (the layers: env, settings, packages, data)' "$KD_TMP/e2"
P3="$KD_TMP/p3"
git clone -q "$P1" "$P3"
mkdir -p "$P3/kernodeck"
cp "$P1/kernodeck/reference.yaml" "$P3/kernodeck/"
expect_exit 2 "no sample result (stage 6 never ran): exit 2" "$KD_BIN" bisect "$D" "$P3"
"$KD_BIN" bisect "$D" "$P3" 2>"$KD_TMP/e3" >/dev/null
check "no sample result: says which stage to run" grep -q "no sample result.*check --stage sample" "$KD_TMP/e3"
cp -a "$D" "$KD_TMP/dbad"
printf 'x' >>"$KD_TMP/dbad/outputs/ids.txt"
expect_exit 2 "a dossier that does not verify: exit 2" "$KD_BIN" bisect "$KD_TMP/dbad" "$P2"

# the packages layer
"$KD_BIN" bisect "$D" "$P2" --layers packages,settings --format json >"$KD_TMP/b1.json" 2>"$KD_TMP/b1.err"
r=$?
sed 's/^/#   /' "$KD_TMP/b1.err" | head -n 30
check "packages: exit 0 (explained)" test "$r" -eq 0
check "packages: the side venv from the dossier's lock makes it vanish; alpha named" \
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); L={l["layer"]: l for l in d["layers"]}; sys.exit(0 if L["here"]["outcome"]=="differs" and L["packages"]["outcome"]=="vanishes" and d["explained_by"]==[{"layer":"packages","packages":["alpha"]}] else 1)' "$KD_TMP/b1.json"
check "packages: the plan shows the lock's line and the install before the runs" \
	"$PY" -c 'import sys; t=open(sys.argv[1]).read(); r=t.find("run 01-here"); sys.exit(0 if 0 < t.find("alpha==1.0 --hash=sha256:") < r and 0 < t.find("--require-hashes --no-deps") < r else 1)' "$KD_TMP/b1.err"
check "packages: the side venv holds the dossier's alpha" \
	grep -rqx "SCALE = 1.0" "$P2/kernodeck/bisect/02-packages/venv/lib"
check "a run's copy of the project is its own file, no hard link to the project's" sh -c \
	'f=$(find "$1/kernodeck/bisect" -path "*/work/embed.py" | head -n 1); [ -n "$f" ] &&
	 [ "$(stat -c %i "$f")" != "$(stat -c %i "$1/embed.py")" ] && [ "$(stat -c %h "$1/embed.py")" -eq 1 ]' sh "$P2"
# the dossier's folder of wheels gone: impossible, said why
mv "$KD_TMP/ext1" "$KD_TMP/ext1.away"
"$KD_BIN" bisect "$D" "$P2" --layers packages >"$KD_TMP/b2.txt" 2>&1
r=$?
mv "$KD_TMP/ext1.away" "$KD_TMP/ext1"
sed 's/^/#   /' "$KD_TMP/b2.txt" | tail -n 4
check "packages unreachable: exit 1, said impossible with why" sh -c \
	'[ "$1" -eq 1 ] && grep -q "packages  impossible .*--find-links .*ext1: no such folder" "$2"' sh "$r" "$KD_TMP/b2.txt"

# the data layer: a sentence changed in p1 after its dossier
ORIG="$KD_TMP/orig"
mkdir -p "$ORIG"
cp -a "$P1/sample" "$ORIG/sample"
sed -i '1s/$/ and more/' "$P1/sample/sentences.txt"
"$KD_BIN" check "$P1" --stage sample --force --quiet >/dev/null 2>&1
"$KD_BIN" bisect "$D" "$P1" --layers data,env >"$KD_TMP/b3.txt" 2>"$KD_TMP/b3.err"
r=$?
sed 's/^/#   /' "$KD_TMP/b3.txt"
check "data without --data: not run, and none explains it (exit 1)" sh -c \
	'[ "$1" -eq 1 ] && grep -q "data  *not run  *no --data DIR" "$2" && grep -q "no layer explains" "$2"' sh "$r" "$KD_TMP/b3.txt"
"$KD_BIN" bisect "$D" "$P1" --layers data --data "$ORIG" >"$KD_TMP/b4.txt" 2>"$KD_TMP/b4.err"
r=$?
sed 's/^/#   /' "$KD_TMP/b4.txt"
check "data: exit 0, the dossier's data makes it vanish and is named" sh -c \
	'[ "$1" -eq 0 ] && grep -q "^  data      vanishes" "$2" && grep -qx "explained by data: sample" "$2"' sh "$r" "$KD_TMP/b4.txt"
check "data: the plan says where the data comes from, checked by digest" \
	grep -q "data sample from $ORIG/sample (SHA-256 checked)" "$KD_TMP/b4.err"
check "data: the project's own sample untouched" grep -q "and more" "$P1/sample/sentences.txt"
expect_exit 2 "--data whose data does not verify: exit 2" \
	"$KD_BIN" bisect "$D" "$P1" --layers data --data "$P1"
