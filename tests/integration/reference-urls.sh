#!/bin/sh
# Stage 1's URL checks through `kernodeck check --stage reference`, against
# the local HTTP(S) server tests/helpers/httpd.py on 127.0.0.1: a file that
# answers, an ETag that is the SHA-256 (agreeing or not), a Hugging Face
# style redirect with X-Linked-Etag, a wrong size, 404, a redirect loop, a
# timeout, an untrusted certificate (and the same server trusted through
# KD_CA_FILE), credentials in a URL, and a floating revision.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
for t in "$PY" openssl git jq; do
	if ! command -v "$t" >/dev/null 2>&1; then
		skip "reference urls" "$t is missing"
		exit 0
	fi
done
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$KD_TMP/key.pem" -out "$KD_TMP/cert.pem" \
	-days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
mkfifo "$KD_TMP/srv.in"
"$PY" "$KD_SRCDIR/tests/helpers/httpd.py" --tls "$KD_TMP/cert.pem" "$KD_TMP/key.pem" \
	<"$KD_TMP/srv.in" >"$KD_TMP/srv.out" 2>/dev/null &
SRV=$!
exec 3>"$KD_TMP/srv.in"      # the server lives while this stays open
trap 'exec 3>&-; kill $SRV 2>/dev/null; wait $SRV 2>/dev/null; rm -rf "$KD_TMP"' EXIT
i=0
while [ $i -lt 100 ] && ! grep -q https= "$KD_TMP/srv.out"; do sleep 0.1; i=$((i + 1)); done
HTTP=$(sed -n 's/^http=\([0-9]*\).*/\1/p' "$KD_TMP/srv.out")
HTTPS=$(sed -n 's/.*https=\([0-9]*\).*/\1/p' "$KD_TMP/srv.out")
if [ -z "$HTTP" ] || [ -z "$HTTPS" ]; then
	notok "reference urls: the test server started"
	exit 0
fi
H="http://127.0.0.1:$HTTP"
S="https://127.0.0.1:$HTTPS"
LFS_SHA=$(printf 'weights of a model stored with git LFS\n' | sha256sum | cut -d' ' -f1)
WRONG=$(printf 'something else' | sha256sum | cut -d' ' -f1)

P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
git -C "$P" init -q -b main
echo "print(1)" >"$P/run.py"
git -C "$P" add run.py && git -C "$P" commit -q -m one

item() { # name url [sha256] [size] [version]
	printf '  - name: %s\n    kind: weights\n    url: %s\n' "$1" "$2"
	[ -n "${3:-}" ] && printf '    sha256: %s\n' "$3"
	[ -n "${4:-}" ] && printf '    size: %s\n' "$4"
	printf '    version: %s\n    provenance: the test server\n    access: public\n' "${5:-r1}"
}
{
	echo "schema: 1"
	echo "goal: close-values"
	echo "data:"
	item ok "$H/ok" "" 11
	item lfs "$H/lfs" "$LFS_SHA" 39
	item lfs-changed "$H/lfs" "$WRONG" 39
	item hub "$H/hf/model.bin" "$LFS_SHA"
	item wrong-size "$H/ok" "" 12
	item missing "$H/missing" "$LFS_SHA"
	item loop "$H/loop" "$LFS_SHA"
	item slow "$H/slow" "$LFS_SHA"
	item tls "$S/ok" "" 11
	item secret "http://alice:hunter2@127.0.0.1:$HTTP/ok" "" 11
	item floating "$H/org/m/resolve/main/ok" "" "" main
} >"$P/kernodeck/reference.yaml"

run_check() {
	KD_NET_TIMEOUT=2 "$KD_BIN" check "$P" --stage reference --format json --quiet \
		>"$KD_TMP/r.json" 2>"$KD_TMP/r.err"
}
st() { jq -r --arg id "$1" '.stages[0].rows[] | select(.id == $id) | .status' "$KD_TMP/r.json"; }
err() { jq -r --arg id "$1" '.stages[0].rows[] | select(.id == $id) | .first_error' "$KD_TMP/r.json"; }
obs() { jq -r --arg id "$1" '.stages[0].rows[] | select(.id == $id) | .observed' "$KD_TMP/r.json"; }
has() { case "$1" in *"$2"*) return 0;; *) return 1;; esac; }

start=$(date +%s)
run_check
rc=$?
took=$(( $(date +%s) - start ))
check "urls: the stage ran (exit 1: some checks fail)" [ "$rc" -eq 1 ]
check "urls: a URL that answers passes" [ "$(st data.ok.url)" = pass ]
check "urls: status and size are observed" has "$(obs data.ok.url)" "HTTP 200, 11 bytes"
check "urls: an ETag that is the recorded SHA-256 passes" [ "$(st data.lfs.url)" = pass ]
check "urls: ... and says so" has "$(obs data.lfs.url)" "ETag matches the SHA-256"
check "urls: an ETag SHA-256 that differs fails" [ "$(st data.lfs-changed.url)" = fail ]
e=$(err data.lfs-changed.url)
check "urls: ... showing both digests" sh -c 'case "$1" in *"$2"*"$3"*) exit 0;; esac; exit 1' - "$e" "$LFS_SHA" "$WRONG"
check "urls: a Hugging Face redirect with X-Linked-Etag passes" [ "$(st data.hub.url)" = pass ]
check "urls: ... the redirect is shown" has "$(obs data.hub.url)" "redirected to"
check "urls: a size that differs fails" [ "$(st data.wrong-size.url)" = fail ]
check "urls: ... naming both sizes" has "$(err data.wrong-size.url)" "announces 11 bytes, the reference records 12"
check "urls: 404 fails" [ "$(st data.missing.url)" = fail ]
check "urls: ... with the status" has "$(err data.missing.url)" "404"
check "urls: a redirect loop fails" [ "$(st data.loop.url)" = fail ]
check "urls: ... saying so" has "$(err data.loop.url)" "redirects"
check "urls: a server that never answers fails" [ "$(st data.slow.url)" = fail ]
check "urls: ... as a timeout" has "$(err data.slow.url)" "timed out"
check "urls: the timeout is bounded (KD_NET_TIMEOUT=2)" [ "$took" -lt 20 ]
check "urls: an untrusted certificate fails" [ "$(st data.tls.url)" = fail ]
check "urls: ... saying it is the certificate" has "$(err data.tls.url)" "certificate"
check "urls: credentials in a URL warn" [ "$(st data.secret.credentials)" = warn ]
check "urls: ... and the stripped URL still answers" [ "$(st data.secret.url)" = pass ]
check "urls: credentials are gone from reference.yaml" sh -c "! grep -q hunter2 '$P/kernodeck/reference.yaml'"
check "urls: credentials are gone from every file kernodeck wrote" sh -c "! grep -rq hunter2 '$P/kernodeck'"
check "urls: a floating revision without a digest fails" [ "$(st data.floating.version)" = fail ]
check "urls: a URL-only item without a digest fails" [ "$(st data.ok.sha256)" = fail ]
check "urls: ... and the hint offers the download" has "$(jq -r '.stages[0].rows[] | select(.id == "data.ok.sha256") | .hint' "$KD_TMP/r.json")" "download"

# the same server, trusted through KD_CA_FILE
KD_CA_FILE="$KD_TMP/cert.pem" run_check
check "urls: a certificate trusted through KD_CA_FILE passes" [ "$(st data.tls.url)" = pass ]

# libcurl is opened when a URL is first looked at, not linked: a start
# pays nothing for it, and a missing libcurl is said, not a crash
check "urls: kernodeck is not linked with libcurl" sh -c "! readelf -d '$KD_BIN' | grep -q 'libcurl'"
KD_LIBCURL="$KD_TMP/no-such-libcurl.so.4" run_check
rc=$?
check "urls: without libcurl the check still ends (exit 1 or 3, not a crash)" [ "$rc" -eq 1 -o "$rc" -eq 3 ]
check "urls: ... the URL row says libcurl cannot be loaded" has "$(err data.ok.url)" "libcurl cannot be loaded"
check "urls: ... naming the file it looked for" has "$(err data.ok.url)" "no-such-libcurl.so.4"
check "urls: ... while local checks still run" [ "$(st goal)" = pass ]
