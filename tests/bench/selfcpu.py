#!/usr/bin/python3
"""selfcpu.py - the CPU time a program uses itself, without the programs it
runs (for tests/bench/install.sh: kernodeck's own share of a rebuild whose
time is mostly pip's).

Usage: selfcpu.py ARGV...

Runs ARGV, waits for it to exit without reaping it (waitid with WNOWAIT),
reads utime and stime from /proc/PID/stat (every thread, dead ones
included, but not its children, which are counted in cutime and cstime),
then reaps it.  Prints "self_ms CHILDREN_ms EXIT" on one line; the
resolution is the kernel's clock tick (10 ms at USER_HZ 100).  Standard
library only; run it with /usr/bin/python3.
"""
import os
import subprocess
import sys


def main(argv):
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    tick = os.sysconf("SC_CLK_TCK")
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    with open("/proc/%d/stat" % p.pid) as f:
        # the command name (2nd field) may hold spaces: split after its ')'
        fields = f.read().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    rc = p.wait()
    print("%.1f %.1f %d" % ((utime + stime) * 1000.0 / tick,
                            (cutime + cstime) * 1000.0 / tick, rc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
