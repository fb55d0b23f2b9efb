#!/usr/bin/python3
"""firstframe.py - time from start to the first full frame of a curses
program, read from a pseudo-terminal (for tests/bench/walkthrough.sh).

Usage: firstframe.py [--runs N] [--timev N] [--rows R] [--cols C]
                     [--marker TEXT]... [--keys KEYS] [--timeout S]
                     [--touch FILE] -- ARGV...

Each run starts ARGV on a new pseudo-terminal of R x C (default 80 x 24,
TERM=xterm-256color, LANG=C.UTF-8, NO_COLOR unset), reads what it draws
until every --marker has appeared (the frame is complete: choose markers on
its first and last lines; escape sequences are left out before they are
looked for), notes the time since the start and the CPU time the program
has used so far (/proc/PID/task/*/schedstat, in nanoseconds), sends KEYS
(default "q"), reads until the program exits and collects its resource
use (wait4: user+system CPU, peak RSS).  With --timev N, N more runs go
through `/usr/bin/time -v`, whose "Maximum resident set size" is kept.
With --touch FILE, FILE's times are set to now before every run (as if it
had just been edited), so that what the program caches by a file's times
(kernodeck: the reference identity, by reference.yaml's) is computed again.

Prints one JSON object: frame_ms (a list, one per run), frame_cpu_ms,
cpu_ms (the whole session), maxrss_kb, timev_maxrss_kb, and their medians.  Exits 1 when a run never showed every
marker within the timeout (the program is killed).  Standard library only;
run it with /usr/bin/python3.
"""
import argparse
import fcntl
import json
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time


def child(argv, rows, cols):
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)
    try:
        os.execvpe(argv[0], argv, env)
    finally:
        os._exit(127)


# Escape sequences and backspaces: a word is not always written in one piece
# (curses writes the last cell of the screen apart).
ESCAPES = re.compile(rb"\x1b(\[[0-9;?>=]*[ -/]*[@-~]|[()*+][0-9A-Za-z]|[@-Z\\-_=>78])|[\x08\x0f\x0e]")


def read_some(fd, timeout):
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return b""
    try:
        return os.read(fd, 65536) or None
    except OSError:
        return None   # EIO: the other side is closed


def cpu_so_far(pid):
    """CPU time (s) the process has used so far, all its threads: the first
    field of /proc/PID/task/*/schedstat (nanoseconds on a CPU), or None."""
    total = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total / 1e9


def one_run(argv, args):
    """(frame seconds or None, cpu seconds to the frame, cpu seconds in all,
    maxrss KiB)"""
    markers = [m.encode() for m in args.marker]
    if args.touch:
        os.utime(args.touch)
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        child(argv, args.rows, args.cols)
    seen, frame, frame_cpu = b"", None, None
    deadline = start + args.timeout
    while frame is None and time.monotonic() < deadline:
        chunk = read_some(fd, 0.5)
        if chunk is None:
            break
        seen += chunk
        text = ESCAPES.sub(b"", seen)
        if all(m in text for m in markers):
            frame = time.monotonic() - start
            frame_cpu = cpu_so_far(pid)
    if frame is not None:
        os.write(fd, args.keys.encode())
    else:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if read_some(fd, 0.5) is None:
            break
    else:
        os.kill(pid, signal.SIGKILL)
    _, status, ru = os.wait4(pid, 0)
    os.close(fd)
    if frame is None:
        sys.stderr.write("firstframe: %s: markers %s not all seen in %.0f s; it drew:\n%r\n"
                         % (argv[0], args.marker, args.timeout, seen[-2000:]))
    return frame, frame_cpu, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def med(v):
    return statistics.median(v) if v else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--timev", type=int, default=0)
    ap.add_argument("--rows", type=int, default=24)
    ap.add_argument("--cols", type=int, default=80)
    ap.add_argument("--marker", action="append", default=[])
    ap.add_argument("--keys", default="q")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--touch", default=None)
    ap.add_argument("argv", nargs="+")
    args = ap.parse_args()
    if not args.marker:
        ap.error("give at least one --marker")
    frames, fcpus, cpus, rss, tv = [], [], [], [], []
    for _ in range(args.runs):
        f, fc, c, m = one_run(args.argv, args)
        if f is None:
            return 1
        frames.append(f * 1e3)
        if fc is not None:
            fcpus.append(fc * 1e3)
        cpus.append(c * 1e3)
        rss.append(m)
    for _ in range(args.timev):
        with tempfile.NamedTemporaryFile("r", prefix="firstframe-timev.") as t:
            f, _, _, _ = one_run(["/usr/bin/time", "-v", "-o", t.name] + args.argv, args)
            if f is None:
                return 1
            for line in open(t.name):
                if "Maximum resident set size" in line:
                    tv.append(int(line.split(":")[1]))
    print(json.dumps({
        "frame_ms": frames, "frame_cpu_ms": fcpus, "cpu_ms": cpus, "maxrss_kb": rss, "timev_maxrss_kb": tv,
        "median_frame_ms": med(frames), "min_frame_ms": min(frames) if frames else None,
        "median_frame_cpu_ms": med(fcpus), "median_cpu_ms": med(cpus), "median_maxrss_kb": med(rss),
        "median_timev_maxrss_kb": med(tv),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
