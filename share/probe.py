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
float64 CPU result, within a stated bound), and with --perf or
--min-gflops perf (the throughput of a product in --dtype and of a copy,
medians over timed windows; on a GPU machine the CPU's too, after the
devices); then one "ext" step per
--ext MODULE[:FUNC] (imported, FUNC called with no argument); then libs (the
shared objects the process mapped, their owners, and the warnings: two
copies of one library, one from LD_LIBRARY_PATH shadowing another); and a
final {"step": "end", "ok": ..., "first_error": {...}} line.  A failed step has
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
import re
import statistics
import sysconfig
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
# The performance step: a matrix product of PERF_N (CPU) or PERF_N_GPU for
# PERF_WINDOWS windows of PERF_WINDOW_S seconds each, and a copy of
# PERF_COPY_BYTES; the throughput of each window, and their median.
PERF_N = 256
PERF_N_GPU = 4096
PERF_WINDOWS = 5
PERF_WINDOW_S = 0.2
PERF_COPY_BYTES = 16 << 20
# Libraries named one by one in the rows (the rest are in compute.yaml):
# the CUDA and ROCm runtimes and math libraries, NCCL, OpenMP, BLAS.
LIB_NOTABLE = ("libcudart", "libcublas", "libcublasLt", "libcudnn", "libnccl", "libnvrtc",
               "libcufft", "libcusparse", "libcusolver", "libcurand", "libamdhip64",
               "librocblas", "libMIOpen", "librccl", "libhipblaslt", "libgomp", "libiomp5",
               "libomp", "libopenblas", "libblas", "liblapack", "libmkl_rt", "libmkl_core",
               "libtorch_cpu", "libtorch_cuda", "libc10")


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
    def __init__(self, expect, exts, dtype="float32", min_gflops=None, perf=False):
        self.expect = expect
        self.exts = exts
        self.dtype = dtype
        self.min_gflops = min_gflops
        self.timed = perf or min_gflops is not None
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

        def s_perf():
            return self.perf(st["dev"])

        steps = [("device", s_device), ("alloc", s_alloc), ("h2d", s_h2d),
                 ("compute", s_compute), ("sync", s_sync), ("d2h", s_d2h), ("agree", s_agree)]
        if self.timed:
            steps.append(("perf", s_perf))
        for step, fn in steps:
            if self.step(step, fn, **tag) is None:
                return False
        return True

    def windows(self, dev, fn):
        """Calls per second of fn in each of PERF_WINDOWS windows of
        PERF_WINDOW_S seconds: a throttled machine (a CPU quota, a power
        cap) is slow over a window even when single calls are not."""
        rates = []
        for _ in range(PERF_WINDOWS):
            t0 = time.perf_counter()
            k = 0
            while True:
                fn()
                self.synchronize(dev)
                k += 1
                el = time.perf_counter() - t0
                if el >= PERF_WINDOW_S:
                    break
            rates.append(k / el)
        return rates

    def perf(self, dev):
        """The throughput of a matrix product in the reference's dtype and
        of a memory copy on dev: the median over the windows."""
        torch = self.torch
        n = PERF_N if dev.type == "cpu" else PERF_N_GPU
        dtype_name = self.dtype
        dt = getattr(torch, dtype_name, None)
        if not isinstance(dt, torch.dtype) or not dt.is_floating_point:
            dtype_name, dt = "float32", torch.float32
        g = torch.Generator().manual_seed(99)
        a = torch.randn((n, n), generator=g).to(dev).to(dt)
        b = torch.randn((n, n), generator=g).to(dev).to(dt)
        try:
            a @ b
        except RuntimeError:  # a dtype this device cannot multiply
            dtype_name, a, b = "float32", a.float(), b.float()
        self.synchronize(dev)
        flops = 2.0 * n ** 3
        gf = [r * flops / 1e9 for r in self.windows(dev, lambda: a @ b)]
        src = torch.empty(PERF_COPY_BYTES, dtype=torch.uint8, device=dev).fill_(1)
        dst = torch.empty_like(src)
        gb = [r * 2 * PERF_COPY_BYTES / 1e9 for r in self.windows(dev, lambda: dst.copy_(src))]
        data = {"dtype": dtype_name, "n": n, "windows": PERF_WINDOWS, "window_s": PERF_WINDOW_S,
                "gflops": round(statistics.median(gf), 3), "gflops_windows": [round(x, 3) for x in gf],
                "copy_bytes": PERF_COPY_BYTES, "copy_gbps": round(statistics.median(gb), 3),
                "copy_gbps_windows": [round(x, 3) for x in gb], "threads": torch.get_num_threads()}
        if self.min_gflops is not None:
            data["min_gflops"] = self.min_gflops
            if data["gflops"] < self.min_gflops:
                exc = StepFailed("the matrix product ran at %.3g GFLOP/s, under the reference's "
                                 "minimum %.3g" % (data["gflops"], self.min_gflops), "slow")
                exc.data = data
                raise exc
        return data

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

    # --- the libraries the process mapped ---

    def s_libs(self):
        try:
            paths = mapped_libraries()
        except OSError as exc:
            return {"available": False, "reason": str(exc)[:MESSAGE_CAP]}
        owners = conda_owners(paths)
        owners.update(wheel_owners(paths))
        owners.update(deb_owners([p for p in paths if p not in owners]))
        libs = []
        for p in paths:
            kind, package, version = owners.get(p, ("loose", None, None))
            libs.append({"path": p, "base": lib_base(p), "owner": kind, "package": package,
                         "version": version, "file_version": file_version(p)})
        torch_dir = os.path.dirname(getattr(self.torch, "__file__", "") or "") if self.torch else ""
        return {"available": True, "count": len(libs), "libraries": libs,
                "lib_warnings": lib_warnings(libs, torch_dir)}

    def run(self):
        ok = self.step("python", self.s_python) is not None
        if ok:
            ok = self.step("import_torch", self.s_import_torch) is not None
        if ok:
            self.step("precision", self.s_precision)
            facts = self.step("backend", self.s_backend)
            ok = facts is not None
            if ok:
                names = self.devices(facts)
                for name in names:
                    if not self.chain(name):
                        ok = False
                        break
                if ok and self.timed and "cpu" not in names:
                    # the host's CPU is timed too on a GPU machine
                    self.step("perf", lambda: self.perf(self.torch.device("cpu")), device="cpu")
            for spec in self.exts:
                if self.extension(spec) is None:
                    ok = False
            self.step("libs", self.s_libs)
        ok = ok and self.first_error is None
        emit({"step": "end", "ok": ok, "expected": self.expect, "first_error": self.first_error})
        return 0 if ok else 1


def lib_base(path):
    """The library a file is a copy of: libgomp of libgomp.so.1.0.0 and of a
    wheel's vendored libgomp-a34b3233.so.1."""
    base = os.path.basename(path).split(".so", 1)[0]
    m = re.match(r"^(.*)-[0-9a-f]{8}$", base)
    return m.group(1) if m else base


def file_version(path):
    """1.0.0 of libgomp.so.1.0.0, or None."""
    m = re.search(r"\.so\.([0-9][0-9.]*)$", os.path.basename(path))
    return m.group(1) if m else None


def mapped_libraries():
    """The shared objects this process mapped (/proc/self/maps), in order."""
    out, seen = [], set()
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.rstrip("\n").split(None, 5)
            if len(parts) < 6 or not parts[5].startswith("/"):
                continue
            path = parts[5]
            if path.endswith(" (deleted)"):
                path = path[:-10]
            if ".so" not in os.path.basename(path) or path in seen:
                continue
            seen.add(path)
            out.append(path)
    return out


def wheel_owners(paths):
    """path -> ("wheel", name, version) from the RECORD files of the
    dist-info folders of the site folders that hold a mapped library."""
    want, roots, out = set(paths), set(), {}
    for sp in sys.path:
        if not sp or not os.path.isdir(sp):
            continue
        real = os.path.join(os.path.realpath(sp), "")
        if any(p.startswith(real) for p in paths):
            roots.add(real)
    for root in sorted(roots):
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for d in names:
            if not d.endswith(".dist-info"):
                continue
            name, _, version = d[:-len(".dist-info")].partition("-")
            try:
                with open(os.path.join(root, d, "RECORD"), encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        rel = line.split(",", 1)[0]
                        if ".so" not in rel:
                            continue
                        full = os.path.realpath(os.path.join(root, rel))
                        if full in want:
                            out[full] = ("wheel", name, version or None)
            except OSError:
                continue
    return out


def so_lines(data):
    """The lines of a dpkg file list (bytes) whose last component names a
    shared object: found by searching for ".so" (in C), so that the Python
    loop sees a few lines of each list, not every one."""
    out = []
    i = data.find(b".so")
    while i >= 0:
        start = data.rfind(b"\n", 0, i) + 1
        end = data.find(b"\n", i)
        if end < 0:
            end = len(data)
        line = data[start:end]
        if b"/" not in line[line.rfind(b".so"):]:
            out.append(line.decode("utf-8", "replace"))
        i = data.find(b".so", end)
    return out


def deb_owners(paths, info="/var/lib/dpkg/info", status="/var/lib/dpkg/status"):
    """path -> ("deb", package, version) from dpkg's file lists (read, not
    one dpkg -S per file) and its status file."""
    out = {}
    if not paths or not os.path.isdir(info):
        return out
    by_name = {}
    for p in paths:
        by_name.setdefault(os.path.basename(p), set()).add(p)
    pending = set(paths)
    try:
        lists = sorted(f for f in os.listdir(info) if f.endswith(".list"))
    except OSError:
        return out
    for f in lists:
        if not pending:
            break
        try:
            with open(os.path.join(info, f), "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        for line in so_lines(data):
            if line.rpartition("/")[2] not in by_name:
                continue
            real = os.path.realpath(line)
            if real in pending:
                out[real] = ["deb", f[:-5], None]
                pending.discard(real)
    wanted = {v[1].partition(":")[0] for v in out.values()}
    versions = {}
    try:
        with open(status, encoding="utf-8", errors="replace") as fh:
            pkg = arch = None
            for line in fh:
                if line.startswith("Package: "):
                    pkg, arch = line[9:].strip(), None
                elif line.startswith("Architecture: "):
                    arch = line[14:].strip()
                elif line.startswith("Version: ") and pkg in wanted:
                    versions[pkg] = versions[pkg + ":" + str(arch)] = line[9:].strip()
    except OSError:
        pass
    for v in out.values():
        v[2] = versions.get(v[1]) or versions.get(v[1].partition(":")[0])
    return {k: tuple(v) for k, v in out.items()}


def conda_owners(paths):
    """path -> ("conda", name, version) from the prefix's conda-meta."""
    out = {}
    for prefix in {os.environ.get("CONDA_PREFIX") or "", sys.prefix, sys.base_prefix}:
        meta = os.path.join(prefix, "conda-meta") if prefix else ""
        if not meta or not os.path.isdir(meta):
            continue
        want = set(paths)
        for f in sorted(os.listdir(meta)):
            if not f.endswith(".json"):
                continue
            try:
                with open(os.path.join(meta, f), encoding="utf-8") as fh:
                    rec = json.load(fh)
            except (OSError, ValueError):
                continue
            for rel in rec.get("files") or []:
                if isinstance(rel, str) and ".so" in rel:
                    full = os.path.realpath(os.path.join(prefix, rel))
                    if full in want:
                        out[full] = ("conda", rec.get("name"), rec.get("version"))
    return out


def lib_warnings(libs, torch_dir):
    """Two copies of one library mapped at once, and a library loaded from
    LD_LIBRARY_PATH where PyTorch (its lib folder, the nvidia wheels) or
    the system's library folders hold another copy."""
    warn = []
    by_base = {}
    for lib in libs:
        if lib["base"].startswith("lib"):
            by_base.setdefault(lib["base"], []).append(lib["path"])
    for base, ps in sorted(by_base.items()):
        if len(ps) > 1:
            warn.append({"kind": "duplicate", "library": base, "paths": ps,
                         "message": "two copies of %s in one process: %s" % (base, " and ".join(ps))})
    ldlp = [os.path.realpath(d) for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    if not ldlp:
        return warn
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    homes = []
    if torch_dir:
        homes.append(os.path.join(torch_dir, "lib"))
        nv = os.path.join(os.path.dirname(torch_dir), "nvidia")
        if os.path.isdir(nv):
            homes += sorted(os.path.join(nv, d, "lib") for d in os.listdir(nv))
    for d in ("/usr/lib/" + multiarch, "/lib/" + multiarch, "/usr/lib64", "/usr/lib", "/lib"):
        if d not in homes:
            homes.append(d)
    listing = {}
    for lib in libs:
        if os.path.dirname(lib["path"]) not in ldlp or len(by_base.get(lib["base"], [])) > 1:
            continue
        for home in homes:
            if home not in listing:
                try:
                    listing[home] = sorted(os.listdir(home))
                except OSError:
                    listing[home] = []
            other = [os.path.realpath(os.path.join(home, f)) for f in listing[home]
                     if lib_base(f) == lib["base"] and ".so" in f]
            other = sorted({o for o in other if o != lib["path"] and os.path.isfile(o)})
            if other:
                warn.append({"kind": "shadow", "library": lib["base"],
                             "paths": [lib["path"], other[0]],
                             "message": "%s from LD_LIBRARY_PATH shadows %s" % (lib["path"], other[0])})
                break
    return warn


def main(argv=None):
    ap = argparse.ArgumentParser(description="Kernodeck's compute probe (one JSON object per line).")
    ap.add_argument("--expect", default="auto",
                    choices=("cpu", "cuda", "rocm", "mps", "xpu", "auto"),
                    help="the backend the reference expects")
    ap.add_argument("--ext", action="append", default=[], metavar="MODULE[:FUNC]",
                    help="an extension to import (and FUNC to call with no argument)")
    ap.add_argument("--perf", action="store_true",
                    help="time the product and a copy (the perf step; also with --min-gflops)")
    ap.add_argument("--dtype", default="float32",
                    help="the dtype of the timed matrix product (the reference's)")
    ap.add_argument("--min-gflops", type=float, default=None, metavar="GFLOPS",
                    help="fail the performance step below this throughput")
    args = ap.parse_args(argv)
    return Probe(args.expect, args.ext, args.dtype, args.min_gflops, args.perf).run()


if __name__ == "__main__":
    sys.exit(main())
