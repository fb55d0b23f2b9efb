#!/usr/bin/env python3
"""A small trainer for the resume check's tests (never the demo): torch on
the CPU, a few hundred parameters, a second or two a run.

Written like the trainers people bring, not like kernodeck's demo: the
learning rate is computed from the step counter `iter_num` (no scheduler
object), batches are drawn with torch's global generator, dropout uses it
too, and the checkpoint is a dict {model, optimizer, iter_num, rng, config}.

    toy-trainer.py --steps N --out DIR [--resume CKPT] [--every K]
                   [--ckpt step|single|none] [--log jsonl|print]
                   [--drop-rng] [--sleep S]

--ckpt step: OUT/ckpt-STEP.pt every K steps and at the end; single: the
one file OUT/ckpt.pt, overwritten every K steps (as nanoGPT's ckpt.pt or
Lightning's last.ckpt); none: never saves.  --log jsonl appends
{"step", "loss", "lr"} to OUT/metrics.jsonl; print prints
"iter N: loss X, lr Y, time T ms" instead.  --drop-rng leaves the RNG
state out of the checkpoint; --eval-only saves at every K steps only (not at
the end), as a trainer that saves at its evaluations.  --sleep S waits S seconds after each step
(a kill-mode test needs time to kill).
"""

import argparse
import json
import os
import sys
import time

import torch
from torch import nn


def lr_at(it):
    """The rate is a function of the step, as nanoGPT's get_lr(it)."""
    return 0.1 * (0.5 ** (it // 4))


def save(path, state):
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume")
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--ckpt", choices=("step", "single", "none"), default="step")
    ap.add_argument("--log", choices=("jsonl", "print"), default="jsonl")
    ap.add_argument("--drop-rng", action="store_true")
    ap.add_argument("--eval-only", action="store_true")
    ap.add_argument("--sleep", type=float, default=0.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    g = torch.Generator().manual_seed(7)
    x = torch.randn(64, 6, generator=g)
    y = (x @ torch.randn(6, 3, generator=g)).argmax(dim=1)
    torch.manual_seed(1337)
    model = nn.Sequential(nn.Dropout(0.2), nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=lr_at(0), momentum=0.9)
    iter_num = 0
    if a.resume:
        ck = torch.load(a.resume, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        iter_num = ck["iter_num"]
        if "rng" in ck:
            torch.set_rng_state(ck["rng"])
    metrics = open(os.path.join(a.out, "metrics.jsonl"), "a") if a.log == "jsonl" else None
    while iter_num < a.steps:
        lr = lr_at(iter_num)
        for group in opt.param_groups:
            group["lr"] = lr
        idx = torch.randint(0, x.shape[0], (8,))
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        iter_num += 1
        if metrics:
            metrics.write(json.dumps({"step": iter_num, "loss": loss.item(), "lr": lr}) + "\n")
            metrics.flush()
        else:
            print("iter %d: loss %.6f, lr %.6g, time %.2f ms" % (iter_num, loss.item(), lr, 1.5), flush=True)
        if a.ckpt != "none" and (iter_num % a.every == 0 or (iter_num == a.steps and not a.eval_only)):
            state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "iter_num": iter_num,
                     "config": {"every": a.every}}
            if not a.drop_rng:
                state["rng"] = torch.get_rng_state()
            name = "ckpt-%d.pt" % iter_num if a.ckpt == "step" else "ckpt.pt"
            save(os.path.join(a.out, name), state)
        time.sleep(a.sleep)
    print("toy-trainer: %d steps" % iter_num, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
