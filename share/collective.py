"""kernodeck's collective check: one rank of a torch.distributed all-reduce.

Run by `kernodeck fleet --collective` on every node of a Slurm step (one
task per node).  Rank 0 takes a free port at the address Slurm knows for the
first node and writes it, atomically, to --port-file in the shared project
folder; the others wait for that file.  Every rank joins one group (the
backend the reference asks for: gloo on the CPU, nccl on CUDA or ROCm, never
another), records that it joined, all-reduces a known tensor (rank r holds
r + 1 everywhere, so the sum is n(n+1)/2) for a few sizes, checks the sum
and measures the time and the bus bandwidth (algorithm bandwidth times
2(n-1)/n, as nccl-tests count it).  A rank that does not join within the
timeout is named by its rank and node.

Each rank also times a fixed piece of local work between two barriers
(RANK_WORK: a sum over a tensor, repeated) and the ranks share their
times: a rank slower than --slow times the median's speed is named
(collective.rank, a warning on that rank).  With --pairs, every pair of
ranks (the ring neighbours only, r and r+1, beyond PAIRS_ALL ranks)
exchanges PAIR_BYTES back and forth, at least PAIR_ROUNDS times and for
at least PAIR_WINDOW seconds, one pair at a time,
and the bandwidth of each pair is shared: the pairs below --slow times the
median over the ranks of each rank's median pair are slow links, and the node common to every slow pair is named
(collective.link, a warning on that rank); each rank's own row
collective.pairs lists its pairs.

It prints one JSON object on its last line:
  {"rank", "world", "backend", "ok", "first_error", "rows": [kernodeck rows],
   "rank_rate": [every rank's sums per second], "pairs": [{"a", "b", "gbps"}]}
"""
import argparse
import json
import os
import socket
import sys
import time

SIZES = (1 << 10, 1 << 16, 1 << 20)   # elements of float32: 4 KiB, 256 KiB, 4 MiB
RANK_WORK = (1 << 18, 0.5)            # elements summed, seconds (a window)
PAIRS_ALL = 16                        # every pair up to this many ranks, then the ring
PAIR_BYTES = 4 << 20
PAIR_ROUNDS = 16                      # at least, back and forth
PAIR_WINDOW = 0.4                     # seconds, at least, a pair


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def name(nodes, r):
    return nodes[r] if r < len(nodes) else "rank %d" % r


def rank_times(dist, torch, a, nodes, dev):
    """Every rank's speed at the same local work (sums per second over a
    window of RANK_WORK[1] s: a throttled rank is slow over a window even
    when one sum is not), and this rank's row."""
    x = torch.ones(RANK_WORK[0], dtype=torch.float32, device=dev)
    dist.barrier()
    t0 = time.perf_counter()
    k = 0
    while True:
        x.sum()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        k += 1
        el = time.perf_counter() - t0
        if el >= RANK_WORK[1]:
            break
    mine = round(k / el, 3)
    got = [None] * a.world
    dist.all_gather_object(got, mine)
    med = median(got)
    slow = [r for r in range(a.world) if got[r] < a.slow * med]
    expected = "at least %g of the median rank's speed" % a.slow
    if a.rank in slow:
        r = row("collective.rank", False, "rank %d (%s) ran %.4g sums/s where the median rank ran %.4g"
                % (a.rank, name(nodes, a.rank), mine, med), expected)
        r["status"] = "warn"
    else:
        r = row("collective.rank", True, "%.4g sums/s (median rank %.4g)%s" % (
            mine, med, "; slow: " + ", ".join("rank %d (%s)" % (q, name(nodes, q)) for q in slow) if slow else ""),
            expected)
    return got, r


def pair_list(world):
    if world <= PAIRS_ALL:
        return [(i, j) for i in range(world) for j in range(i + 1, world)]
    return [(i, (i + 1) % world) for i in range(world)]


def pair_bandwidth(dist, torch, a, nodes, dev):
    """Each pair, one at a time: a buffer sent back and forth; the shared
    list of {a, b, gbps}, this rank's rows."""
    buf = torch.ones(PAIR_BYTES // 4, dtype=torch.float32, device=dev)
    mine = []
    for (i, j) in pair_list(a.world):
        dist.barrier()
        if a.rank not in (i, j):
            continue
        peer = j if a.rank == i else i
        # rank i decides, after each round, whether another follows (a flag
        # sent first): at least PAIR_ROUNDS rounds and PAIR_WINDOW seconds,
        # so that a node held to a share of a core (a CPU quota, whose
        # period is 100 ms) is measured over several periods, not in one
        # burst that fits inside its quota
        flag = torch.ones(1, dtype=torch.int32, device=dev)
        rounds = 0
        t0 = time.perf_counter()
        while True:
            if a.rank == i:
                go = rounds < PAIR_ROUNDS or time.perf_counter() - t0 < PAIR_WINDOW
                flag[0] = 1 if go else 0
                dist.send(flag, peer)
                if not go:
                    break
                dist.send(buf, peer)
                dist.recv(buf, peer)
            else:
                dist.recv(flag, peer)
                if int(flag[0]) == 0:
                    break
                dist.recv(buf, peer)
                dist.send(buf, peer)
            rounds += 1
        if dev.type == "cuda":
            torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        if a.rank == i:
            mine.append({"a": i, "b": j, "gbps": round(2 * rounds * PAIR_BYTES / dt / 1e9, 4)})
    dist.barrier()
    got = [None] * a.world
    dist.all_gather_object(got, mine)
    pairs = sorted((p for g in got for p in g), key=lambda p: (p["a"], p["b"]))
    # the reference: the median over the ranks of each rank's median pair
    # (a slow node is in most pairs of a small world: their plain median
    # would be one of its own)
    per = [median([p["gbps"] for p in pairs if r in (p["a"], p["b"])])
           for r in range(a.world) if any(r in (p["a"], p["b"]) for p in pairs)]
    med = median(per) if per else 0.0
    slow = [p for p in pairs if p["gbps"] < a.slow * med]
    label = lambda p: "%s-%s %.4g GB/s" % (name(nodes, p["a"]), name(nodes, p["b"]), p["gbps"])
    own = [p for p in pairs if a.rank in (p["a"], p["b"])]
    rows = [row("collective.pairs", True, "%s (the median rank's median pair %.4g GB/s)" % (
        ", ".join(label(p) for p in own), med), "measured")]
    common = None
    if slow:
        common = set((slow[0]["a"], slow[0]["b"]))
        for p in slow[1:]:
            common &= set((p["a"], p["b"]))
    what = ", ".join(label(p) for p in slow)
    if len(slow) == 1 and a.rank in common:
        # one slow pair: the link between them, not a node, is named
        r = row("collective.link", False, "the link %s is slow; the median rank's median pair %.4g GB/s"
                % (what, med), "no pair below %g of the median" % a.slow)
        r["status"] = "warn"
    elif slow and common and a.rank in common:
        r = row("collective.link", False, "%s (%s) is in every slow pair: %s; the median rank's median "
                "pair %.4g GB/s" % ("rank %d" % a.rank, name(nodes, a.rank), what, med),
                "no pair below %g of the median" % a.slow)
        r["status"] = "warn"
    elif slow and not common and a.rank in set(x for p in slow for x in (p["a"], p["b"])):
        r = row("collective.link", False, "slow links with no node in common: %s; the median pair %.4g GB/s"
                % (what, med), "no pair below %g of the median" % a.slow)
        r["status"] = "warn"
    else:
        r = row("collective.link", True, "no slow link of this rank%s" % (
            "; slow: " + what if slow else ""), "no pair below %g of the median" % a.slow)
    rows.append(r)
    return pairs, rows

def row(id_, ok, observed, expected, error=None):
    r = {"id": id_, "status": "pass" if ok else "fail",
         "observed": observed, "expected": expected}
    if error:
        r["first_error"] = error
    return r


def report(a, ok, rows, first_error):
    print(json.dumps({"rank": a.rank, "world": a.world, "backend": a.backend, "ok": ok,
                      "first_error": first_error, "rows": rows}), flush=True)
    return 0


def free_port(addr):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((addr, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def publish_port(path, port):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def wait_port(path, deadline):
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            time.sleep(0.05)
    return None


def missing_ranks(store, world, nodes):
    """The ranks that never wrote their joined key, named with their node."""
    out = []
    for r in range(world):
        try:
            store.wait(["kd_joined_%d" % r], __import__("datetime").timedelta(milliseconds=50))
        except Exception:
            out.append("rank %d (%s)" % (r, nodes[r] if r < len(nodes) else "?"))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", required=True, choices=("gloo", "nccl"))
    p.add_argument("--addr", required=True)
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--nodes", default="")
    p.add_argument("--port-file", required=True)
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--pairs", action="store_true")
    p.add_argument("--slow", type=float, default=0.8)
    a = p.parse_args()
    nodes = a.nodes.split(",") if a.nodes else []
    if os.environ.get("KD_FAULT_COLLECTIVE_ABSENT"):
        # test aid: this rank never joins
        return report(a, False, [row("collective.join", False, "this rank stayed out (KD_FAULT_COLLECTIVE_ABSENT)",
                                     "every rank joins")], "stayed out")
    import datetime
    import torch
    import torch.distributed as dist
    deadline = time.monotonic() + a.timeout
    rows = []
    if a.backend == "nccl" and not torch.cuda.is_available():
        return report(a, False, [row("collective.backend", False, "nccl, but no GPU is visible to torch",
                                     "nccl on CUDA or ROCm")], "no GPU for nccl")
    if a.rank == 0:
        port = free_port(a.addr)
        publish_port(a.port_file, port)
    else:
        port = wait_port(a.port_file, deadline)
        if port is None:
            return report(a, False, [row("collective.join", False,
                                         "rank 0 (%s) published no port within %g s" % (nodes[0] if nodes else "?", a.timeout),
                                         "every rank joins")], "no rendezvous")
    tmo = datetime.timedelta(seconds=a.timeout)
    try:
        store = dist.TCPStore(a.addr, port, a.world, a.rank == 0, tmo, wait_for_workers=False)
        store.set("kd_joined_%d" % a.rank, "1")
        left = max(0.1, deadline - time.monotonic())
        store.wait(["kd_joined_%d" % r for r in range(a.world)], datetime.timedelta(seconds=left))
    except Exception as e:
        try:
            gone = missing_ranks(store, a.world, nodes)
        except Exception:
            gone = []
        what = ("%s did not join within %g s" % (", ".join(gone), a.timeout)) if gone else str(e).splitlines()[0]
        if a.rank == 0:
            time.sleep(1)   # the store serves the others' question: who is missing
        return report(a, False, [row("collective.join", False, what, "all %d ranks join" % a.world, str(e).splitlines()[0])],
                      what)
    rows.append(row("collective.join", True, "%d ranks joined at %s:%d" % (a.world, a.addr, port),
                    "all %d ranks join" % a.world))
    try:
        dist.init_process_group(a.backend, store=store, rank=a.rank, world_size=a.world, timeout=tmo)
    except Exception as e:
        msg = str(e).splitlines()[0]
        rows.append(row("collective.backend", False, "%s: %s" % (a.backend, msg), a.backend, msg))
        return report(a, False, rows, msg)
    rows.append(row("collective.backend", True, a.backend, a.backend))
    dev = torch.device("cuda", torch.cuda.current_device()) if a.backend == "nccl" else torch.device("cpu")
    want = a.world * (a.world + 1) / 2
    results, first_error, ok = [], None, True
    for n in SIZES:
        t = torch.full((n,), float(a.rank + 1), dtype=torch.float32, device=dev)
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(t)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        good = bool(torch.all(t == want).item())
        if not good and first_error is None:
            first_error = "all-reduce of %d floats: got %r, wanted %r" % (n, float(t[0].item()), want)
            ok = False
        nbytes = n * 4
        busbw = nbytes / dt * 2 * (a.world - 1) / a.world / 1e9 if dt > 0 else 0.0
        results.append({"bytes": nbytes, "ms": round(dt * 1e3, 3), "busbw_gbps": round(busbw, 4), "sum_ok": good})
    rows.append(row("collective.allreduce", ok,
                    "sum %s on every element (%d sizes)" % ("right" if ok else "WRONG", len(SIZES)),
                    "sum of ranks 1..%d = %g" % (a.world, want), first_error))
    rows.append(row("collective.bandwidth", True,
                    ", ".join("%d KiB %.3f ms %.3f GB/s" % (r["bytes"] // 1024, r["ms"], r["busbw_gbps"]) for r in results),
                    "measured"))
    rank_rate, r = rank_times(dist, torch, a, nodes, dev)
    rows.append(r)
    pairs = None
    if a.pairs:
        pairs, prow = pair_bandwidth(dist, torch, a, nodes, dev)
        rows.extend(prow)
    dist.barrier()
    dist.destroy_process_group()
    out = {"rank": a.rank, "world": a.world, "backend": a.backend, "ok": ok, "first_error": first_error,
           "sizes": results, "rows": rows, "rank_rate": rank_rate}
    if pairs is not None:
        out["pairs"] = pairs
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
