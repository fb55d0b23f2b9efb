"""Kernodeck's compute probe (stage 5): can this interpreter compute with
PyTorch on the device the reference expects?

Run it with the project interpreter, never through activation:

    .venv-rebuild/bin/python probe.py --expect cuda [--ext mypkg._C:version]

It prints one JSON object per line on standard output, flushed as each step
ends, so that a crash or a hang still tells how far it got:

    {"begin": "compute", "device": "cuda:0"}
    {"step": "compute", "ok": true, "ms": 3.1, "device": "cuda:0", ...}

Steps, in order: python, import_torch, precision, backend, then for each
expected device: device, alloc, h2d (host to device), compute (a float32
matrix product), sync, d2h (device to host), agree (the product against a
float64 CPU result, within a stated bound); then one "ext" step per
--ext MODULE[:FUNC] (imported, FUNC called with no argument); and a final
{"step": "end", "ok": ..., "first_error": {...}} line.  A failed step has
"ok": false and "error": {"type", "message"}; the device chain stops at the
first failure.

The backend is read from torch.version.hip and torch.version.cuda (on ROCm,
PyTorch answers through torch.cuda), never from the torch.cuda name alone.
When the expected backend is a GPU that cannot be reached, the backend step
fails with the reason (CPU-only build, a visibility variable set to empty,
no device visible, the driver too old, the device's architecture not in
the build's arch list) and nothing is computed: the probe never runs the
computation on the CPU in place of the GPU.

Test aid: KD_PROBE_FAULT=STEP[:MODE] makes the probe fail at STEP (a step
name above, or "ext"), as if that step had raised; MODE "abort" kills the
probe with SIGABRT inside the step, "hang" makes it sleep there until it is
killed (to test timeouts).  It is meant for kernodeck's own tests only.

Python 3.8 or later; standard library and torch only.
"""

import argparse
import json
import math
import os
import sys
import time
import traceback
import warnings

STEP_ORDER = ("python", "import_torch", "precision", "backend", "device", "alloc",
              "h2d", "compute", "sync", "d2h", "agree", "ext")
VISIBILITY_VARS = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                   "GPU_DEVICE_ORDINAL", "NVIDIA_VISIBLE_DEVICES", "ZE_AFFINITY_MASK")
MATRIX_N = 64
MESSAGE_CAP = 2000


class StepFailed(Exception):
    """A step failed for a reason the probe determined itself (no exception
    from PyTorch): the message is the reason."""

    def __init__(self, message, reason=None):
        Exception.__init__(self, message)
        self.reason = reason


def clean(value):
    """Make a value JSON-safe: non-finite floats become strings."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) \
            and not -2 ** 63 <= value < 2 ** 63:
        return str(value)  # JSON readers keep 64-bit integers at most
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)


def has_attr(obj, name):
    """hasattr that also survives objects raising something else than
    AttributeError (torch.backends.cuda.matmul asserts on unknown names)."""
    try:
        getattr(obj, name)
        return True
    except Exception:
        return False


def emit(obj):
    sys.stdout.write(json.dumps(clean(obj), allow_nan=False, sort_keys=False) + "\n")
    sys.stdout.flush()


class Probe:
    def __init__(self, expect, exts):
        self.expect = expect
        self.exts = exts
        self.first_error = None
        self.torch = None
        fault = os.environ.get("KD_PROBE_FAULT", "")
        self.fault_step, _, mode = fault.partition(":")
        self.fault_mode = mode or "raise"

    def maybe_fault(self, name):
        if not self.fault_step or self.fault_step != name:
            return
        if self.fault_mode == "abort":
            os.abort()
        if self.fault_mode == "hang":
            while True:
                time.sleep(3600)
        raise RuntimeError("fault injected by KD_PROBE_FAULT at step %s" % name)

    def step(self, name, fn, **extra):
        """Run one step: a begin line, then its result line.  Returns the
        step's data, or None when it failed."""
        begin = {"begin": name}
        begin.update(extra)
        emit(begin)
        t0 = time.perf_counter()
        caught = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.maybe_fault(name)
                data = fn() or {}
            ok = True
            error = None
        except BaseException as exc:  # noqa: B902 - any failure is reported
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            ok = False
            data = getattr(exc, "data", {}) or {}
            error = {"type": type(exc).__name__,
                     "message": str(exc)[:MESSAGE_CAP].strip() or repr(exc)}
            if isinstance(exc, StepFailed) and exc.reason:
                error["reason"] = exc.reason
            tb = traceback.extract_tb(exc.__traceback__)
            if tb and not isinstance(exc, StepFailed):
                frame = tb[-1]
                error["frame"] = "%s:%d in %s" % (frame.filename, frame.lineno, frame.name)
        out = {"step": name, "ok": ok, "ms": round((time.perf_counter() - t0) * 1000.0, 3)}
        out.update(extra)
        out.update(data)
        msgs = []
        for w in caught:
            m = str(w.message)[:MESSAGE_CAP]
            if m not in msgs:
                msgs.append(m)
        if msgs:
            out["warnings"] = msgs
        if error is not None:
            out["error"] = error
            if self.first_error is None:
                self.first_error = dict(error, step=name, **extra)
        emit(out)
        return data if ok else None

    # --- the steps ---

    def s_python(self):
        base = getattr(sys, "base_prefix", sys.prefix)
        return {"version": sys.version.split()[0], "implementation": sys.implementation.name,
                "executable": sys.executable, "prefix": sys.prefix, "base_prefix": base,
                "venv": sys.prefix != base}

    def s_import_torch(self):
        import torch  # noqa: E402 - the step is the import
        self.torch = torch
        ver = getattr(torch, "version", None)
        return {"version": torch.__version__, "file": getattr(torch, "__file__", None),
                "cuda": getattr(ver, "cuda", None), "hip": getattr(ver, "hip", None),
                "git_version": getattr(ver, "git_version", None),
                "debug": getattr(ver, "debug", None)}

    def s_precision(self):
        torch = self.torch
        out = {}

        def get(name, fn):
            try:
                out[name] = fn()
            except Exception as exc:  # an older or newer PyTorch lacks it
                out[name] = "unavailable: %s" % type(exc).__name__

        get("matmul_allow_tf32", lambda: torch.backends.cuda.matmul.allow_tf32)
        get("cudnn_allow_tf32", lambda: torch.backends.cudnn.allow_tf32)
        if has_attr(torch.backends.cuda.matmul, "fp32_precision"):
            get("matmul_fp32_precision", lambda: torch.backends.cuda.matmul.fp32_precision)
        if has_attr(torch.backends, "fp32_precision"):
            get("fp32_precision", lambda: torch.backends.fp32_precision)
        get("float32_matmul_precision", torch.get_float32_matmul_precision)
        get("matmul_allow_fp16_reduced_precision_reduction",
            lambda: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction)
        get("cudnn_enabled", lambda: torch.backends.cudnn.enabled)
        get("cudnn_benchmark", lambda: torch.backends.cudnn.benchmark)
        get("cudnn_deterministic", lambda: torch.backends.cudnn.deterministic)
        get("deterministic_algorithms", torch.are_deterministic_algorithms_enabled)
        if hasattr(torch, "is_deterministic_algorithms_warn_only_enabled"):
            get("deterministic_warn_only", torch.is_deterministic_algorithms_warn_only_enabled)
        get("num_threads", torch.get_num_threads)
        get("num_interop_threads", torch.get_num_interop_threads)
        get("initial_seed", torch.initial_seed)
        env = {}
        for name in ("CUBLAS_WORKSPACE_CONFIG", "PYTHONHASHSEED", "OMP_NUM_THREADS",
                     "MKL_NUM_THREADS", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
                     "NVIDIA_TF32_OVERRIDE", "HIPBLASLT_ALLOW_TF32"):
            env[name] = os.environ.get(name)
        out["env"] = env
        return out

    def backend_facts(self):
        """What the build and the machine say, without deciding anything."""
        torch = self.torch
        hip = getattr(torch.version, "hip", None)
        cuda = getattr(torch.version, "cuda", None)
        if hip:
            build = "rocm"
        elif cuda:
            build = "cuda"
        else:
            build = "cpu"
        facts = {"build": build, "label": torch.__version__.partition("+")[2] or None,
                 "visibility": {k: os.environ.get(k) for k in VISIBILITY_VARS
                                if k in os.environ}}
        if build in ("cuda", "rocm"):
            facts["is_available"] = bool(torch.cuda.is_available())
            facts["device_count"] = int(torch.cuda.device_count())
            try:
                facts["arch_list"] = list(torch.cuda.get_arch_list())
            except Exception as exc:
                facts["arch_list"] = []
                facts["arch_list_error"] = str(exc)[:MESSAGE_CAP]
            devices = []
            for i in range(facts["device_count"] if facts["is_available"] else 0):
                p = torch.cuda.get_device_properties(i)
                d = {"index": i, "name": p.name, "total_memory": int(p.total_memory),
                     "capability": "%d.%d" % (p.major, p.minor),
                     "multi_processor_count": int(p.multi_processor_count)}
                if getattr(p, "gcnArchName", None):
                    d["gcn_arch"] = p.gcnArchName
                devices.append(d)
            facts["devices"] = devices
            try:
                facts["cudnn"] = torch.backends.cudnn.version()
            except Exception:
                facts["cudnn"] = None
            facts["cudnn_name"] = "MIOpen" if build == "rocm" else "cuDNN"
            try:
                v = torch.cuda.nccl.version()
                facts["nccl"] = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
            except Exception:
                facts["nccl"] = None
            facts["nccl_name"] = "RCCL" if build == "rocm" else "NCCL"
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and hasattr(mps, "is_available"):
            facts["mps_available"] = bool(mps.is_available())
        xpu = getattr(torch, "xpu", None)
        if xpu is not None and hasattr(xpu, "is_available"):
            facts["xpu_available"] = bool(xpu.is_available())
            if facts["xpu_available"]:
                facts["xpu_device_count"] = int(xpu.device_count())
        return facts

    def s_backend(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            facts = self.backend_facts()
        msgs = []
        for w in caught:
            m = str(w.message)[:MESSAGE_CAP]
            if m not in msgs:
                msgs.append(m)
        if msgs:
            facts["init_warnings"] = msgs
        seen = facts["build"]
        if seen in ("cuda", "rocm") and not (facts.get("is_available") and facts.get("device_count")):
            seen = "cpu"
        if facts.get("mps_available"):
            seen = "mps"
        if facts.get("xpu_available"):
            seen = "xpu"
        facts["seen"] = seen
        facts["expected"] = self.expect
        if self.expect in ("cpu", "auto"):
            return facts
        reason = self.unreachable_reason(facts, msgs)
        if reason is not None:
            exc = StepFailed("expected backend %s is not reachable: %s" % (self.expect, reason[1]),
                             reason[0])
            exc.data = facts
            raise exc
        return facts

    def unreachable_reason(self, facts, msgs):
        """(code, sentence) when the expected GPU backend cannot be used, read
        from the evidence; None when it can."""
        exp = self.expect
        build = facts["build"]
        if exp == "mps":
            return None if facts.get("mps_available") else (
                "mps-unavailable", "torch.backends.mps.is_available() is False")
        if exp == "xpu":
            return None if facts.get("xpu_available") else (
                "xpu-unavailable", "torch.xpu.is_available() is False")
        if build == "cpu":
            label = facts.get("label") or ""
            why = ("label +%s" % label if label.startswith("cpu")
                   else "torch.version.cuda and torch.version.hip are None")
            return ("cpu-only-build", "this PyTorch is a CPU-only build (%s, torch %s)"
                    % (why, self.torch.__version__))
        if build != exp:
            return ("wrong-build", "this PyTorch is a %s build (torch.version.%s = %s), not %s"
                    % ("ROCm" if build == "rocm" else "CUDA",
                       "hip" if build == "rocm" else "cuda",
                       self.torch.version.hip if build == "rocm" else self.torch.version.cuda,
                       "ROCm" if exp == "rocm" else "CUDA"))
        for var, value in facts["visibility"].items():
            if value is not None and value.strip() == "" and var != "NVIDIA_VISIBLE_DEVICES":
                if not facts.get("device_count"):
                    return ("visibility-empty", "%s is set to an empty value, which hides every device"
                            % var)
        for var in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
            value = facts["visibility"].get(var)
            if value is not None and value.strip() in ("-1", "none", "NoDevFiles") \
                    and not facts.get("device_count"):
                return ("visibility-none", "%s=%s hides every device" % (var, value))
        for m in msgs:
            low = m.lower()
            if "driver" in low and ("too old" in low or "insufficient" in low):
                return ("driver-too-old", m.splitlines()[0].strip())
        if not facts.get("is_available") or not facts.get("device_count"):
            detail = ""
            if msgs:
                detail = " (PyTorch says: %s)" % msgs[0].splitlines()[0].strip()
            return ("no-device", "no %s device is visible: torch.cuda.is_available() is %s, "
                    "device_count() is %d%s" % ("ROCm" if exp == "rocm" else "CUDA",
                                                facts.get("is_available"),
                                                facts.get("device_count") or 0, detail))
        arch = [a for a in facts.get("arch_list") or []]
        for d in facts.get("devices", []):
            if not arch:
                break
            if exp == "cuda":
                major, minor = d["capability"].split(".")
                sm = "sm_%s%s" % (major, minor)
                ptx = [a for a in arch if a.startswith("compute_")]
                ptx_ok = any(int(a[8:]) <= int(major + minor) for a in ptx if a[8:].isdigit())
                if sm not in arch and not ptx_ok:
                    return ("arch-not-in-list", "device %d (%s) has capability %s (%s), which is not "
                            "in this build's arch list %s" % (d["index"], d["name"],
                                                             d["capability"], sm, " ".join(arch)))
            else:
                gfx = (d.get("gcn_arch") or "").split(":")[0]
                if gfx and gfx not in [a.split(":")[0] for a in arch]:
                    return ("arch-not-in-list", "device %d (%s) is %s, which is not in this "
                            "build's arch list %s" % (d["index"], d["name"], gfx, " ".join(arch)))
        for m in msgs:
            if "not compatible with the current PyTorch installation" in m:
                return ("arch-not-in-list", m.splitlines()[0].strip())
        return None

    # --- the device chain ---

    def devices(self, facts):
        if self.expect in ("cuda", "rocm"):
            return ["cuda:%d" % i for i in range(facts.get("device_count") or 0)]
        if self.expect == "mps":
            return ["mps"]
        if self.expect == "xpu":
            return ["xpu:%d" % i for i in range(facts.get("xpu_device_count") or 1)]
        if self.expect == "auto" and facts["seen"] in ("cuda", "rocm"):
            return ["cuda:0"]
        if self.expect == "auto" and facts["seen"] in ("mps", "xpu"):
            return [facts["seen"]]
        return ["cpu"]

    def synchronize(self, dev):
        torch = self.torch
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        elif dev.type == "mps":
            torch.mps.synchronize()
        elif dev.type == "xpu":
            torch.xpu.synchronize(dev)

    def chain(self, name):
        """The device chain on one device; False at the first failure."""
        torch = self.torch
        st = {}
        tag = {"device": name}

        def s_device():
            st["dev"] = torch.device(name)
            if st["dev"].type == "cuda":
                torch.cuda.set_device(st["dev"])
                return {"name": torch.cuda.get_device_name(st["dev"])}
            return {}

        def s_alloc():
            st["buf"] = torch.empty((MATRIX_N, MATRIX_N), dtype=torch.float32, device=st["dev"])
            self.synchronize(st["dev"])
            out = {"bytes": MATRIX_N * MATRIX_N * 4}
            if st["dev"].type == "cuda":
                free, total = torch.cuda.mem_get_info(st["dev"])
                out.update({"free_memory": int(free), "total_memory": int(total)})
            return out

        def s_h2d():
            g = torch.Generator().manual_seed(1234)
            st["a"] = torch.randn((MATRIX_N, MATRIX_N), generator=g, dtype=torch.float32)
            st["b"] = torch.randn((MATRIX_N, MATRIX_N), generator=g, dtype=torch.float32)
            st["a_d"] = st["a"].to(st["dev"])
            st["b_d"] = st["b"].to(st["dev"])
            return {"bytes": 2 * MATRIX_N * MATRIX_N * 4}

        def s_compute():
            st["c_d"] = st["a_d"] @ st["b_d"]
            return {"op": "matmul", "shape": [MATRIX_N, MATRIX_N], "dtype": "float32"}

        def s_sync():
            self.synchronize(st["dev"])
            return {}

        def s_d2h():
            st["c"] = st["c_d"].to("cpu")
            return {}

        def s_agree():
            a64, b64 = st["a"].double(), st["b"].double()
            ref = a64 @ b64
            err = (st["c"].double() - ref).abs().max().item()
            scale = (a64.abs() @ b64.abs()).max().item()
            reduced = self.reduced_precision(st["dev"])
            unit = 2.0 ** -11 if reduced else 2.0 ** -24
            bound = 2.0 * MATRIX_N * unit * scale
            data = {"max_abs_error": err, "bound": bound, "n": MATRIX_N,
                    "unit_roundoff": unit, "reduced_precision": reduced,
                    "formula": "max|C - A@B (float64)| <= 2 n u max(|A|@|B|), u = %s"
                               % ("2^-11 (TF32 allowed)" if reduced else "2^-24 (float32)")}
            if not err <= bound:
                exc = StepFailed("the product differs from the float64 CPU result by %.3g, over "
                                 "the bound %.3g" % (err, bound), "disagree")
                exc.data = data
                raise exc
            return data

        for step, fn in (("device", s_device), ("alloc", s_alloc), ("h2d", s_h2d),
                         ("compute", s_compute), ("sync", s_sync), ("d2h", s_d2h),
                         ("agree", s_agree)):
            if self.step(step, fn, **tag) is None:
                return False
        return True

    def reduced_precision(self, dev):
        torch = self.torch
        if dev.type != "cuda":
            return torch.get_float32_matmul_precision() != "highest" and dev.type != "cpu"
        try:
            if torch.backends.cuda.matmul.allow_tf32:
                return True
        except Exception:
            pass
        return torch.get_float32_matmul_precision() != "highest"

    def extension(self, spec):
        module, _, func = spec.partition(":")

        def run():
            import importlib
            mod = importlib.import_module(module)
            out = {"module": module, "file": getattr(mod, "__file__", None)}
            if func:
                out["call"] = func
                result = getattr(mod, func)()
                out["result"] = repr(result)[:200]
            return out
        return self.step("ext", run, module=module)

    def run(self):
        ok = self.step("python", self.s_python) is not None
        if ok:
            ok = self.step("import_torch", self.s_import_torch) is not None
        if ok:
            self.step("precision", self.s_precision)
            facts = self.step("backend", self.s_backend)
            ok = facts is not None
            if ok:
                for name in self.devices(facts):
                    if not self.chain(name):
                        ok = False
                        break
            for spec in self.exts:
                if self.extension(spec) is None:
                    ok = False
        ok = ok and self.first_error is None
        emit({"step": "end", "ok": ok, "expected": self.expect, "first_error": self.first_error})
        return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description="Kernodeck's compute probe (one JSON object per line).")
    ap.add_argument("--expect", default="auto",
                    choices=("cpu", "cuda", "rocm", "mps", "xpu", "auto"),
                    help="the backend the reference expects")
    ap.add_argument("--ext", action="append", default=[], metavar="MODULE[:FUNC]",
                    help="an extension to import (and FUNC to call with no argument)")
    args = ap.parse_args(argv)
    return Probe(args.expect, args.ext).run()


if __name__ == "__main__":
    sys.exit(main())
