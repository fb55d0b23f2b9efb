#!/usr/bin/python3
"""A small HTTP(S) server on 127.0.0.1 for kernodeck's network tests.

Usage: /usr/bin/python3 httpd.py [--tls CERT KEY]

It listens on ephemeral ports and prints one line, then serves until
SIGTERM or until its standard input closes (so it never outlives a test
that crashed):
    http=PORT             (without --tls)
    http=PORT https=PORT  (with --tls: the same routes over TLS)

Routes (HEAD answers like GET without the body):
    /ok              200, 11 bytes "hello world", ETag "v1-abc", Last-Modified
    /lfs             200, ETag is the SHA-256 of the body (Hugging Face LFS)
    /hf/model.bin    302 to /cdn/blob with X-Linked-Etag (SHA-256 of the body)
                     and X-Linked-Size, as huggingface.co answers for LFS files
    /cdn/blob        200 with the body, ETag "cdn-opaque"
    /missing         404
    /redirect/N      302 to /redirect/N-1; /redirect/0 goes to /ok
    /loop            302 to /loop, forever
    /slow            never answers (sleeps 60 s)
    /nohead          405 to HEAD, 200 to GET (body "hello world")
    /big/N           N bytes of a repeating pattern (the test computes its digest)
    /drip            headers with Content-Length 1000000, then 1 byte every 50 ms
    /unauth          401
    /simple/NAME/    with KD_HTTPD_INDEX=DIR in the environment: a PEP 503
                     "simple" page linking the files of DIR whose project
                     name (normalised) is NAME, as /files/FILE
    /files/FILE      that file of DIR
                     (with KD_HTTPD_INDEX_AUTH=USER:PASSWORD too, both answer
                     401 unless the request carries those in Basic auth)
"""
import base64
import hashlib
import http.server
import os
import re
import socketserver
import ssl
import sys
import threading
import time

BODY = b"hello world"
LFS_BODY = b"weights of a model stored with git LFS\n"
LFS_SHA = hashlib.sha256(LFS_BODY).hexdigest()
PATTERN = bytes(range(256))


def big_body(n):
    full, rest = divmod(n, len(PATTERN))
    return PATTERN * full + PATTERN[:rest]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kdtest"

    def log_message(self, fmt, *args):  # keep the test output clean
        pass

    def send_body(self, code, body, headers=()):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def redirect(self, where, headers=()):
        self.send_response(302)
        self.send_header("Location", where)
        self.send_header("Content-Length", "0")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()

    def index(self, p):
        """Serve the package index of KD_HTTPD_INDEX (PEP 503); False when
        p is not one of its routes."""
        root = os.environ.get("KD_HTTPD_INDEX")
        if not root or not p.startswith(("/simple/", "/files/")):
            return False
        norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
        auth = os.environ.get("KD_HTTPD_INDEX_AUTH")
        if auth and self.headers.get("Authorization", "") != \
                "Basic " + base64.b64encode(auth.encode()).decode():
            self.send_body(401, b"unauthorized\n", [("WWW-Authenticate", 'Basic realm="kd"')])
            return True
        if p.startswith("/simple/"):
            name = norm(p[len("/simple/"):].strip("/"))
            links = "".join('<a href="/files/%s">%s</a>\n' % (f, f)
                            for f in sorted(os.listdir(root))
                            if norm(re.split(r"-[0-9]", f, 1)[0]) == name)
            self.send_body(200, ("<html><body>\n%s</body></html>\n" % links).encode(),
                           [("Content-Type", "text/html")])
            return True
        f = os.path.join(root, p[len("/files/"):])
        if "/" in p[len("/files/"):] or not os.path.isfile(f):
            self.send_body(404, b"no such file\n")
            return True
        with open(f, "rb") as fh:
            self.send_body(200, fh.read())
        return True

    def route(self):
        p = self.path.split("?", 1)[0]
        if self.index(p):
            return None
        if p == "/ok":
            return self.send_body(200, BODY, [("ETag", '"v1-abc"'),
                                              ("Last-Modified", "Tue, 02 Jan 2024 03:04:05 GMT")])
        if p == "/lfs":
            return self.send_body(200, LFS_BODY, [("ETag", '"%s"' % LFS_SHA)])
        if p == "/hf/model.bin":
            return self.redirect("/cdn/blob", [("X-Linked-Etag", '"%s"' % LFS_SHA),
                                               ("X-Linked-Size", str(len(LFS_BODY))),
                                               ("ETag", 'W/"41-small"')])
        if p == "/cdn/blob":
            return self.send_body(200, LFS_BODY, [("ETag", '"cdn-opaque"')])
        if p == "/missing":
            return self.send_body(404, b"no such file\n")
        if p == "/unauth":
            return self.send_body(401, b"login first\n")
        if p.startswith("/redirect/"):
            n = int(p.rsplit("/", 1)[1])
            return self.redirect("/ok" if n <= 0 else "/redirect/%d" % (n - 1))
        if p == "/loop":
            return self.redirect("/loop")
        if p == "/slow":
            time.sleep(60)
            return None
        if p == "/nohead":
            if self.command == "HEAD":
                return self.send_body(405, b"", [("Allow", "GET")])
            return self.send_body(200, BODY, [("ETag", '"nohead-1"')])
        if p.startswith("/big/"):
            return self.send_body(200, big_body(int(p.rsplit("/", 1)[1])))
        if p == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            if self.command == "HEAD":
                return None
            try:
                for _ in range(1000000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:
                pass
            return None
        return self.send_body(404, b"unknown route\n")

    def do_GET(self):
        self.route()

    def do_HEAD(self):
        self.route()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(srv):
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def main():
    servers = []
    plain = Server(("127.0.0.1", 0), Handler)
    servers.append(plain)
    line = "http=%d" % plain.server_address[1]
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
        tls = Server(("127.0.0.1", 0), Handler)
        tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
        servers.append(tls)
        line += " https=%d" % tls.server_address[1]
    elif len(sys.argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    for s in servers:
        serve(s)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
    # Serve until stdin closes (the test ended or crashed) or SIGTERM.
    try:
        while os.read(0, 4096):
            pass
    except (OSError, KeyboardInterrupt):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
