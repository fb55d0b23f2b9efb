# tests/e2e/reference-form.sh - stage 1 through its forms, at 80x24: a small
# project whose reference is filled in the walkthrough (two data items, an
# entry point whose arguments hold spaces, a tolerance with its
# justification), the checks pass; then a data file changes, the digest
# check fails showing both digests, and the later stage is marked stale.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "reference form: fill" "reference form: pass" "reference form: change" \
	"reference form: stale"
if ! command -v git >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	skip "reference form" "git and jq are needed"
	exit 0
fi

# A small committed project.
P="$KD_TMP/project"
mkdir -p "$P/data" "$P/weights" "$P/sample" "$P/reference" "$P/kernodeck"
git -C "$P" init -q -b main
echo "print('embed')" >"$P/embed.py"
echo "dim: 4" >"$P/config.yaml"
printf 'alpha\nbeta\n' >"$P/data/words.txt"
printf '0123456789' >"$P/weights/enc.bin"
printf 'a\nb\n' >"$P/sample/ids.txt"
printf 'expected' >"$P/reference/expected.npy"
printf 'numpy==1.24.2\ntorch==1.13.1\n' >"$P/reference/freeze.txt"
git -C "$P" add . && git -C "$P" commit -q -m project

# Everything but what the forms fill: data, entry point, comparison rule.
cat >"$P/kernodeck/reference.yaml" <<'EOF'
schema: 1
goal: close-values
code:
  params:
    - path: config.yaml
python:
  version: "3.11.2"
  inventory: reference/freeze.txt
  install:
    procedure: python3 -m venv .venv-rebuild && .venv-rebuild/bin/python -m pip install -r requirements-rebuild.txt
    sources: [--find-links wheels]
system:
  os: Debian GNU/Linux 12 (bookworm)
  arch: x86_64
  gpu_vendor: none
  gpu_count: 0
  backend: cpu
result:
  format: npy
  outputs: outputs
  count: 1
  shape: [2, 4]
  dtype: float32
  finite: true
  ids:
    file: outputs/ids.txt
    reference: sample/ids.txt
  criterion: each word keeps its nearest neighbour
  sample:
    path: sample
  example:
    path: reference/expected.npy
EOF

# edit_text TEXT: Enter on the selected field, type TEXT, accept (the keys
# queue in the terminal; the program reads them in order).
edit_text() {
	tm send-keys -t kd Enter
	tm send-keys -t kd -l "$1"
	tm_keys Enter
}
# down N / up N: move the selection N fields.
down() { n=$1; while [ "$n" -gt 0 ]; do tm send-keys -t kd j; n=$((n - 1)); done; sleep 0.2; }
up() { n=$1; while [ "$n" -gt 0 ]; do tm send-keys -t kd k; n=$((n - 1)); done; sleep 0.2; }

tm_walk 80 24 "$P"
check "reference form: opens on the fields" tm_wait "Fields (48)"
# the body and the key bar name the same key for the whole file: E
check "reference form: the body names E for reference.yaml" tm_wait "reference.yaml, with E"
check "reference form: the key bar names E beside e" sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | tail -1 | grep -q 'e edit .* E file'"

# the entry point (6th field): arguments with spaces, typed as at a prompt
down 5
edit_text 'python embed.py --title "two words" --out outputs'
check "reference form: the entry point is shown quoted" tm_wait "embed.py --title 'two words"

# data and weights (8th field): two items through the list editor
down 2
tm_keys Enter
check "reference form: the list editor opens" tm_wait "No items: press a to add one"
# item 1: a file
tm_keys a
check "reference form: a new item's form" tm_wait "data and weights: item 1"
edit_text "word list"
tm_keys j Enter           # kind: the picker, first choice is data
tm_keys Enter
tm_keys j
edit_text "data/words.txt"
down 4
edit_text "v1"
tm_keys j
edit_text "typed by the test"
tm_keys j
edit_text "public"
check "reference form: item 1 filled" tm_wait "typed by the test"
tm_keys Escape
# item 2: a folder of weights
tm_keys a
tm_wait "data and weights: item 2" >/dev/null
edit_text "encoder weights"
tm_keys j Enter
tm_keys j Enter           # kind: weights
tm_keys j
edit_text "weights"
down 4
edit_text "2024-01"
tm_keys j
edit_text "run 42"
tm_keys j
edit_text "env:HF_TOKEN"
check "reference form: item 2 filled" tm_wait "env:HF_TOKEN"
tm_keys Escape
check "reference form: the list shows both items" tm_wait "encoder weights"
tm_keys Escape
check "reference form: two items saved" tm_wait "2 items"

# the comparison rule: kind (11th from the end), atol, rtol, justification
tm_keys G
up 10
tm_keys Enter
check "reference form: the rule kind picker" tm_wait "tolerance"
tm_keys j Enter
tm_keys j
edit_text "1e-5"
tm_keys j
edit_text "1e-4"
down 4
edit_text "float32 against a float64 reference: 1e-4 keeps the rankings"
check "reference form: the justification is shown" tm_wait "float32 against a float64"

R="$P/kernodeck/reference.yaml"
check "reference form: reference.yaml holds the entry point as a vector" \
	grep -q -- "- two words" "$R"
check "reference form: reference.yaml holds both items" \
	sh -c "grep -q 'path: data/words.txt' '$R' && grep -q 'path: weights' '$R'"
check "reference form: reference.yaml holds the tolerance" \
	sh -c "grep -q 'kind: tolerance' '$R' && grep -q 'justification: .*float32 against' '$R'"

# run the checks: everything passes, digests are recorded
tm_keys r
check "reference form: pass: the stage passes" tm_wait "Status: passed" 30
check "reference form: pass: the stage column marks it passed" tm_wait "+ 1 Reference"
check "reference form: pass: the digests were recorded" \
	sh -c "[ \$(grep -c 'sha256: [0-9a-f]\{64\}' '$R') -ge 4 ]"
check "reference form: pass: kernodeck's folder is kept out of git status" \
	sh -c "[ -z \"\$(git -C '$P' status --porcelain)\" ]"
tm_keys q
check "reference form: quits with status 0" tm_wait "kd-exited-with-0"
tm_stop_all

# stage 2 is checked headless; its failing checks get deviations, so it
# counts as done
"$KD_BIN" check "$P" --stage system --force --format json >"$KD_TMP/sys.json" 2>/dev/null
for id in $(jq -r '.stages[0].rows[] | select(.status == "fail") | .id' "$KD_TMP/sys.json"); do
	"$KD_BIN" deviate "$P" --stage system --check "$id" --why "e2e: another machine" \
		>/dev/null 2>&1
done
st2=$(sed -n '/^  system:/,/status:/s/.*status: *//p' "$P/kernodeck/state.yaml")
check "reference form: stale: stage 2 is done before the change ($st2)" \
	sh -c "[ '$st2' = passed ] || [ '$st2' = deviation ]"

# a data file changes: the digest check fails, stage 2 is stale
old=$(sed -n '/path: data\/words.txt/,/sha256/s/.*sha256: \([0-9a-f]*\).*/\1/p' "$R")
printf 'alpha\nbeta\ngamma\n' >"$P/data/words.txt"
new=$(sha256sum "$P/data/words.txt" | cut -d' ' -f1)
tm_walk 80 24 "$P"
tm_wait "1/7 Reference" >/dev/null
tm_keys r
check "reference form: change: the stage fails" tm_wait "Status: failed" 30
check "reference form: change: the stage column marks it failed" tm_wait "! 1 Reference"
check "reference form: stale: stage 2 is marked stale" tm_wait "? 2 System"
tm_keys q
tm_wait "kd-exited-with-" >/dev/null
"$KD_BIN" check "$P" --stage reference --format json >"$KD_TMP/ref.json" 2>/dev/null
row() { jq -r --arg f "$1" '.stages[0].rows[] | select(.id == "data.word-list.sha256") | .[$f]' "$KD_TMP/ref.json"; }
check "reference form: change: the digest check of that item fails" [ "$(row status)" = fail ]
check "reference form: change: it shows the recorded digest" [ "$(row expected)" = "$old" ]
check "reference form: change: and the file's digest now" [ "$(row observed)" = "$new" ]
check "reference form: change: the other item still passes" \
	sh -c "jq -e '.stages[0].rows[] | select(.id == \"data.encoder-weights.sha256\") | .status == \"pass\"' '$KD_TMP/ref.json' >/dev/null"
check "reference form: change: the recorded digest was not replaced" grep -q "$old" "$R"
check "reference form: the typed tolerance is the rule" \
	sh -c "jq -r '.stages[0].rows[] | select(.id == \"result.rule\") | .observed' '$KD_TMP/ref.json' | grep -q '1e-05 + 0.0001'"
check "reference form: stale: state.yaml keeps stage 2 stale" \
	sh -c "sed -n '/^  system:/,/^  [a-z]*:\$/p' '$P/kernodeck/state.yaml' | grep -q 'status: stale'"
