#!/usr/bin/env python3
"""Train the demo classifier for a number of steps, resumably, on the CPU.

A tiny model (16 -> 64 -> 32 -> 4, 3,300 parameters) with dropout, trained
with SGD with momentum and a step-wise learning-rate schedule on generated
data (params.json gives the seed and the sizes), shuffled by a DataLoader
with a generator of its own.  Each step appends one line to OUT/metrics.jsonl:
{"step": N, "loss": x, "lr": y}.  Every --ckpt-every steps and at the end it
saves OUT/ckpt-STEP.pt (written beside, then renamed: a checkpoint that
exists is complete), holding everything a resumed run needs: the model, the
optimizer (with its momentum buffers), the scheduler, the random generators
(torch CPU, each CUDA device, NumPy, Python), the step and epoch, and the
data order's generator and position in the epoch.  At the end it writes the
predictions on the held-out rows, OUT/predictions.npy (float32, rows x 4),
with OUT/ids.txt.

--resume CKPT starts from a checkpoint: the metrics after its step are
dropped from OUT/metrics.jsonl, and training goes on to --steps.

Two options make it train as many real trainers do (the resume check's
`checkpoint` without {step} and `metrics_pattern`, doc/reference-format.md):
--ckpt-file NAME overwrites the one file OUT/NAME instead of writing
ckpt-STEP.pt files, and --print-metrics prints "step N: loss X lr Y" (full
precision) instead of writing OUT/metrics.jsonl.

Usage: python train.py --steps N --out DIR [--resume CKPT] [--ckpt-every K]
                       [--ckpt-file NAME] [--print-metrics]
"""

import argparse
import json
import os
import random
import sys

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(p):
    """The generated problem: Gaussian inputs, labels from a hidden linear map."""
    g = torch.Generator().manual_seed(p["data_seed"])
    w = torch.randn(p["features"], p["classes"], generator=g)
    x = torch.randn(p["rows"] + p["held_out"], p["features"], generator=g)
    y = (x @ w + 0.5 * torch.randn(x.shape[0], p["classes"], generator=g)).argmax(dim=1)
    n = p["rows"]
    return x[:n], y[:n], x[n:]


def make_model(p):
    return nn.Sequential(
        nn.Linear(p["features"], 64), nn.ReLU(), nn.Dropout(p["dropout"]),
        nn.Linear(64, 32), nn.ReLU(), nn.Dropout(p["dropout"]),
        nn.Linear(32, p["classes"]))


def save_checkpoint(path, state):
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def write_npy(path, a):
    with open(path + ".tmp", "wb") as f:
        np.save(f, a)
    os.replace(path + ".tmp", path)


def keep_metrics(path, upto):
    """Drop the metrics of steps after upto (a resumed run writes them again)."""
    if not os.path.exists(path):
        return
    kept = []
    with open(path) as f:
        for line in f:
            try:
                if json.loads(line)["step"] <= upto:
                    kept.append(line if line.endswith("\n") else line + "\n")
            except (ValueError, KeyError):
                pass   # a line cut off by a kill
    with open(path + ".tmp", "w") as f:
        f.writelines(kept)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume", default=None)
    ap.add_argument("--ckpt-every", type=int, default=10)
    ap.add_argument("--ckpt-file", default=None)
    ap.add_argument("--print-metrics", action="store_true")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "params.json")) as f:
        p = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    metrics_path = os.path.join(args.out, "metrics.jsonl")

    print("KD_STEP: reading the data", flush=True)
    x, y, held_out = make_data(p)
    torch.manual_seed(p["seed"])
    np.random.seed(p["seed"])
    random.seed(p["seed"])
    model = make_model(p)
    opt = torch.optim.SGD(model.parameters(), lr=p["lr"], momentum=p["momentum"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=p["lr_step"], gamma=0.5)
    order = torch.Generator().manual_seed(p["seed"] + 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=p["batch"], shuffle=True, generator=order)
    step, epoch, batch_in_epoch = 0, 0, 0
    loss = None
    epoch_start_order = order.get_state()

    if args.resume:
        print("KD_STEP: loading the checkpoint", flush=True)
        ck = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ck["model"])
        if "optimizer" in ck:
            opt.load_state_dict(ck["optimizer"])
        if "scheduler" in ck:
            sched.load_state_dict(ck["scheduler"])
        if "torch_rng" in ck:
            torch.set_rng_state(ck["torch_rng"])
        if "cuda_rng" in ck and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(ck["cuda_rng"])
        if "numpy_rng" in ck:
            np.random.set_state(ck["numpy_rng"])
        if "python_rng" in ck:
            random.setstate(ck["python_rng"])
        step, epoch = ck["step"], ck.get("epoch", 0)
        if "data" in ck:
            epoch_start_order = ck["data"]["generator"]
            batch_in_epoch = ck["data"]["batch"]
        if not args.print_metrics:
            keep_metrics(metrics_path, step)

    print("KD_STEP: training", flush=True)
    model.train()
    with open(os.devnull if args.print_metrics else metrics_path, "a") as metrics:
        while step < args.steps:
            order.set_state(epoch_start_order)
            batches = iter(loader)
            for _ in range(batch_in_epoch):
                next(batches)
            for xb, yb in batches:
                noise = torch.from_numpy(np.random.normal(0.0, p["noise"], xb.shape).astype(np.float32))
                scale = random.uniform(0.9, 1.1)
                loss = nn.functional.cross_entropy(model(xb * scale + noise), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                step += 1
                batch_in_epoch += 1
                if args.print_metrics:
                    print("step %d: loss %r lr %r" % (step, loss.item(), sched.get_last_lr()[0]), flush=True)
                else:
                    metrics.write(json.dumps({"step": step, "loss": loss.item(),
                                              "lr": sched.get_last_lr()[0]}) + "\n")
                    metrics.flush()
                if step % args.ckpt_every == 0 or step == args.steps:
                    state = {
                        "model": model.state_dict(),
                        "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict(),
                        "torch_rng": torch.get_rng_state(),
                        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
                        "numpy_rng": np.random.get_state(),
                        "python_rng": random.getstate(),
                        "data": {"generator": epoch_start_order, "batch": batch_in_epoch},
                        "step": step,
                        "epoch": epoch,
                    }
                    save_checkpoint(os.path.join(args.out, args.ckpt_file or "ckpt-%d.pt" % step), state)
                if step >= args.steps:
                    break
            else:
                epoch += 1
                batch_in_epoch = 0
                epoch_start_order = order.get_state()

    print("KD_STEP: writing the predictions", flush=True)
    model.eval()
    with torch.no_grad():
        pred = torch.softmax(model(held_out), dim=1).numpy().astype(np.float32)
    write_npy(os.path.join(args.out, "predictions.npy"), pred)
    with open(os.path.join(args.out, "ids.txt"), "w") as f:
        f.write("".join("h%02d\n" % (i + 1) for i in range(pred.shape[0])))
    print("train.py: %d steps, loss %.4f -> %s (torch %s)" % (step, loss.item() if loss is not None else float("nan"),
                                                          args.out, torch.__version__))


if __name__ == "__main__":
    sys.exit(main())
