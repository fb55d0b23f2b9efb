#!/bin/sh
# replay-lock-vcs.sh - the lock's local artefacts and a VCS package at
# another commit (issue 28): the demo with delta from a git repository
# outside the project at a commit, epsilon a folder of the project, zeta a
# wheel file of the project and gamma a wheel file outside it (its folder's
# name has a space: %20 in the file: URL), checked and
# written as a dossier.  pylock.toml (read back with tomllib, PEP 751's
# rules) names each by its path, never by a file: URL: under the project
# relative to it, outside it the building machine's path with
# [packages.tool.kernodeck] local saying it is to be provided there; the
# replay installs them.  Then the repository's history moves: a tag named
# as the recorded commit points at a new commit, so that pip, asked for
# git+file://REPO@COMMIT, installs the other commit; the replay and
# `bash procedure.sh` both fail naming delta and the two commits.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python replay-lock-vcs "python3-torch is needed" torch
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
export HOME="$KD_TMP/home"
mkdir -p "$HOME"

DEMO="$KD_TMP/demo"
FILES="$KD_TMP/wheel files"
VCS="$KD_TMP/vcsrepo"
"$KD_BIN" demo "$DEMO" --create-only >/dev/null 2>&1
"$PY" "$MKW" "$FILES" gamma 1.0 >/dev/null
"$PY" "$MKW" "$DEMO/local" zeta 1.0 >/dev/null
G_SHA=$(sha256sum "$FILES/gamma-1.0-py3-none-any.whl" | cut -d' ' -f1)
Z_SHA=$(sha256sum "$DEMO/local/zeta-1.0-py3-none-any.whl" | cut -d' ' -f1)
delta_epsilon "$VCS" "$DEMO"
git -C "$DEMO" add local
printf -- '--no-index\n--find-links wheels\nkd-demo-tokenizer==1.0.0\n./local/zeta-1.0-py3-none-any.whl\nfile://%s/gamma-1.0-py3-none-any.whl\ngit+file://%s@%s#egg=delta\n./pkgs/epsilon\n' \
	"$KD_TMP/wheel%20files" "$VCS" "$DC" >"$DEMO/requirements-rebuild.txt"
printf 'delta==0.1\nepsilon==0.1\ngamma==1.0\nzeta==1.0\n' >>"$DEMO/reference/freeze.txt"
commit_and_check "$DEMO" "delta from git, epsilon a folder, zeta and gamma wheel files" "the demo with local artefacts"
D="$DEMO/kernodeck/dossier"

"$PY" - "$D/pylock.toml" "$VCS" "$DC" "$FILES" "$G_SHA" "$Z_SHA" >"$KD_TMP/pylock.out" 2>&1 <<'PYEOF'
# PEP 751 (packaging.python.org/specifications/pylock-toml): each package one
# source kind; vcs: type, commit-id, url or path; archive: url or path and
# hashes; directory: path.  A local artefact by its path, never a file: URL.
import sys, tomllib
lock, vcs, dc, files, g_sha, z_sha = sys.argv[1:]
d = tomllib.load(open(lock, "rb"))
assert d["lock-version"] == "1.0" and d["created-by"], "the lock's header"
by = {p["name"]: p for p in d["packages"]}
for p in d["packages"]:
    kinds = [k for k in ("vcs", "directory", "archive", "sdist", "wheels") if k in p]
    assert len(kinds) == 1 or kinds == ["sdist", "wheels"], (p["name"], kinds)
    for k in ("vcs", "directory", "archive", "sdist"):
        if k in p:
            e = p[k]
            assert "url" in e or "path" in e, (p["name"], e)
            assert not e.get("url", "").startswith("file:"), ("a file: URL", p["name"], e)
    for w in p.get("wheels", []):
        assert not w.get("url", "").startswith("file:"), ("a file: URL", p["name"], w)
v = by["delta"]["vcs"]
assert v["type"] == "git" and v["path"] == vcs and v["commit-id"] == dc and "url" not in v, v
assert by["delta"]["version"] == "0.1"
assert "to be provided at this path" in by["delta"]["tool"]["kernodeck"]["local"], by["delta"]
e = by["epsilon"]["directory"]
assert e == {"path": "pkgs/epsilon", "editable": False}, e
assert "local" not in by["epsilon"]["tool"]["kernodeck"], by["epsilon"]
z = by["zeta"]["archive"]
assert z == {"path": "local/zeta-1.0-py3-none-any.whl", "hashes": {"sha256": z_sha}}, z
assert "local" not in by["zeta"]["tool"]["kernodeck"], by["zeta"]
g = by["gamma"]["archive"]
assert g == {"path": files + "/gamma-1.0-py3-none-any.whl", "hashes": {"sha256": g_sha}}, g
assert "to be provided at this path" in by["gamma"]["tool"]["kernodeck"]["local"], by["gamma"]
print("pylock ok")
PYEOF
check "pylock.toml: local artefacts by their path, PEP 751's fields (tomllib)" \
	grep -qx "pylock ok" "$KD_TMP/pylock.out"
grep -v "pylock ok" "$KD_TMP/pylock.out" | sed 's/^/# /'
check "kernodeck reads its own pylock.toml back: delta at its commit" sh -c "
'$KD_BIN' inspect pylock '$D/pylock.toml' >'$KD_TMP/inspect.out' 2>&1 &&
grep -q '$DC' '$KD_TMP/inspect.out'"

"$KD_BIN" replay "$D" --workdir "$KD_TMP/w1" --yes >"$KD_TMP/r1.out" 2>"$KD_TMP/r1.err"
r=$?
check "the locked replay installs the local artefacts and passes (exit $r)" sh -c "
[ $r -eq 0 ] && grep -q 'commits_checked: 1' '$KD_TMP/w1/kernodeck/rebuild.yaml' &&
'$KD_TMP/w1/.venv-rebuild/bin/python' -c 'import delta, epsilon, gamma, zeta; assert delta.X == 1'"
[ "$r" -eq 0 ] || tail -n 20 "$KD_TMP/r1.out" | sed 's/^/#   /'

# the repository's history moves: a tag named as the recorded commit points
# at a new commit, which pip then checks out for git+file://REPO@COMMIT (a
# fresh HOME: pip's cache holds the wheel it built from the recorded commit)
echo 'X = 2' >"$VCS/delta.py"
git -C "$VCS" commit -qam "delta moved"
NC=$(git -C "$VCS" rev-parse HEAD)
git -C "$VCS" tag "$DC" "$NC"
HOME="$KD_TMP/home2" "$KD_BIN" replay "$D" --workdir "$KD_TMP/w2" --yes >"$KD_TMP/r2.out" 2>"$KD_TMP/r2.err"
r=$?
check "delta installed at another commit: the replay fails (exit $r)" test "$r" -eq 1
check "the replay names delta and both commits" sh -c "
grep -q 'requirement: delta' '$KD_TMP/w2/kernodeck/rebuild.yaml' &&
grep -q 'delta: installed at commit $NC, the lock has $DC' '$KD_TMP/w2/kernodeck/rebuild.yaml' &&
grep -q 'delta: installed at commit $NC, the lock has $DC' '$KD_TMP/r2.out'"
grep -i 'delta' "$KD_TMP/r2.out" | head -n 3 | sed 's/^/# /'

mkdir -p "$KD_TMP/byhand"
(cd "$KD_TMP/byhand" && HOME="$KD_TMP/home3" bash "$D/procedure.sh" "$KD_TMP/byhand/work") \
	>"$KD_TMP/proc.out" 2>&1
r=$?
check "procedure.sh: delta at another commit stops it (exit $r)" test "$r" -eq 1
check "procedure.sh names delta and both commits, and runs nothing after" sh -c "
grep -q 'delta: installed at commit $NC, the lock has $DC' '$KD_TMP/proc.out' &&
! grep -q '^== 4. diagnose' '$KD_TMP/proc.out'"
[ "$r" -eq 1 ] || tail -n 20 "$KD_TMP/proc.out" | sed 's/^/#   /'
