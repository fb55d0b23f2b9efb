"""Kernodeck's checkpoint inventory (stage 6, the resume check): what does a
training checkpoint hold, and do two checkpoints agree tensor by tensor?

Run it with the project interpreter:

    .venv-rebuild/bin/python ckpt-inventory.py inventory CKPT
    .venv-rebuild/bin/python ckpt-inventory.py step CKPT
    .venv-rebuild/bin/python ckpt-inventory.py compare A B --rule exact
    .venv-rebuild/bin/python ckpt-inventory.py compare A B --rule tolerance --atol X --rtol Y

It prints one JSON object per line.  inventory: one {"kind": ...} line per
kind of state, present or not, then {"end": true, "ok": ..., "loader": ...,
"step": N, "step_key": PATH}, step being the step counter the checkpoint
records (iter_num, global_step, step, ...; absent when it holds none).
step: only that end line.
The kinds: model (weights), optimizer ("buffers": per-parameter state such
as momentum), scheduler, rng_torch (the torch CPU generator), rng_cuda
(one state per device), rng_numpy, rng_python, counter (step or epoch),
data_position (a sampler's generator or the position in the data).  They
are told apart by structure and keys: an optimizer state has "state" and
"param_groups", a scheduler "last_epoch" and its learning rates, a torch
generator state is a uint8 tensor of torch.get_rng_state()'s length, and
one found under a key naming the sampler, the loader or the data is the
data order's generator, not the global one.

compare: one {"tensor": PATH, "class": ...} line per tensor that differs or
is in one file only, model tensors first, then the optimizer's, others,
and RNG states last, then {"end": true, "compared": N, "differ": M, "worst":
..., "classes": {model: {compared, differ}, ...}}; "worst" is the largest
difference among the model's tensors (else the optimizer's, else others').
An RNG state is compared as a state: same or not ("same": false), never as
numbers.

inventory --script TRAIN.py adds {"uses": {KIND: "FILE:LINE: code"}}: the
first line where the script visibly uses each kind of state (draws from a
generator, builds a scheduler, an optimizer, a data loader).
Floating-point tensors are compared under the rule (|a - b| <= atol +
rtol * |b|, b the second file); integer and boolean tensors exactly.

Reading is bounded: a checkpoint never materialises more than READ_FACTOR
times its bytes plus READ_SLACK.  Each archive member's declared size is
taken from that budget before it is read (and inflated a chunk at a time,
so that a compressed bomb stops at its declared size), and a tensor whose
shape holds more elements than its storage (a stride-0 or overlapping
view over a larger shape, or a shape its storage cannot hold) is refused
before any copy: {"end": true, "ok": false, "too_large": true, ...}.

Nothing is unpickled beyond an allow-list.  A checkpoint in torch.save's
zip format is read without importing torch (a tenth of a second instead of
torch's import): a restricted unpickler of its own admits only what
checkpoints hold (torch's tensor rebuilders, reimplemented over NumPy,
storages read from the archive, dtypes, OrderedDict, NumPy arrays for
NumPy's generator state, Python's plain types).  Another format goes
through torch.load(weights_only=True), and where the installed PyTorch
refuses a checkpoint it could hold (1.13 refuses an optimizer's float
settings), through torch.load with the same restricted unpickler.  A
checkpoint that needs any other class is refused, naming it: kernodeck never
unpickles arbitrary objects.

Python 3.8 or later; standard library and NumPy (torch only for a
checkpoint that is not a zip archive).
"""

import argparse
import collections
import errno
import json
import math
import pickle
import re
import sys

MESSAGE_CAP = 2000
MAX_DEPTH = 8
READ_FACTOR = 3            # a checkpoint never takes more than this many times its bytes ...
READ_SLACK = 16 << 20      # ... plus this much (a small checkpoint's pickle and views)
CHUNK = 1 << 20            # an archive member is read (and inflated) this much at a time

ALLOWED = {
    ("collections", "OrderedDict"),
    ("torch._utils", "_rebuild_tensor"),
    ("torch._utils", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_parameter"),
    ("torch._utils", "_rebuild_parameter_with_state"),
    ("torch._tensor", "_rebuild_from_type_v2"),
    ("torch", "Tensor"),
    ("torch.nn.parameter", "Parameter"),
    ("torch", "Size"),
    ("torch", "device"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "slice"),
    ("builtins", "complex"),
    ("_codecs", "encode"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
}


class Refused(Exception):
    """The checkpoint needs a class that is not on the allow-list."""


class TooLarge(Exception):
    """The checkpoint declares more than its bytes can hold: a view over a
    larger shape, an archive member larger than the file allows."""


class Budget:
    """What reading one checkpoint may materialise: READ_FACTOR times the
    file's bytes plus READ_SLACK, taken before each allocation."""

    def __init__(self, f):
        import os
        self.size = os.fstat(f.fileno()).st_size
        self.left = READ_FACTOR * self.size + READ_SLACK

    def take(self, n, what):
        if n < 0 or n > self.left:
            raise TooLarge("%s would take %d bytes, more than a checkpoint of %d bytes may hold "
                           "(%d times its size plus %d MiB): refused, nothing read"
                           % (what, n, self.size, READ_FACTOR, READ_SLACK >> 20))
        self.left -= n


BUDGET = None   # the Budget of the checkpoint being read


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that admits only the classes of ALLOWED, torch's
    storages and dtypes; torch.load subclasses it (find_class turns
    storage names into storage types before it reaches here)."""

    def find_class(self, module, name):
        import torch
        if (module, name) in ALLOWED:
            return super().find_class(module, name)
        if module == "torch" and isinstance(getattr(torch, name, None), torch.dtype):
            return getattr(torch, name)
        if module in ("torch", "torch.storage") and name.endswith("Storage"):
            return super().find_class(module, name)
        raise Refused("%s.%s" % (module, name))


class RestrictedUsed(RestrictedUnpickler):
    """Counts its uses, so that a load it did not serve is refused."""
    used = 0

    def __init__(self, *a, **kw):
        RestrictedUsed.used += 1
        super().__init__(*a, **kw)


def restricted_torch_load(f):
    """torch.load through RestrictedUnpickler.  PyTorch 1.13 ignores
    pickle_module unless weights_only is set (it assigns the pickle module
    itself), so the module torch.serialization calls pickle is replaced by
    a copy with the restricted unpickler for the load, then put back."""
    import types
    import torch
    import torch.serialization as ser
    fake = types.ModuleType("pickle")
    fake.__dict__.update(pickle.__dict__)
    fake.Unpickler = RestrictedUsed
    fake.load = lambda f, **kw: RestrictedUsed(f, **kw).load()
    saved, before = ser.pickle, RestrictedUsed.used
    ser.pickle = fake
    try:
        f.seek(0)
        obj = torch.load(f, map_location="cpu", pickle_module=fake)
    finally:
        ser.pickle = saved
    if RestrictedUsed.used == before:
        raise Refused("(this PyTorch's torch.load would not use the restricted unpickler)")
    return obj


def emit(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=True, allow_nan=False) + "\n")
    sys.stdout.flush()


# --- reading torch.save's zip format without importing torch ---

STORAGE_DTYPES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
    "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool", "UntypedStorage": "uint8",
}
TORCH_DTYPES = {"float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                "uint8", "bool", "double", "float", "half", "long", "int", "short"}
FLOATING = {"float64", "float32", "float16", "bfloat16"}
TORCH_RNG_STATE_BYTES = 5056   # len(torch.get_rng_state()): the CPU generator (MT19937)


class Tensor:
    """A tensor as NumPy holds it: its values and torch's dtype name
    (bfloat16 kept as its raw 16-bit patterns)."""
    __slots__ = ("a", "dtype")

    def __init__(self, a, dtype):
        self.a, self.dtype = a, dtype

    @property
    def shape(self):
        return tuple(self.a.shape)

    def numel(self):
        return int(self.a.size)

    def is_floating_point(self):
        return self.dtype in FLOATING

    def as_float64(self):
        import numpy as np
        if self.dtype == "bfloat16":
            return (self.a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return self.a.astype(np.float64)


class StorageType:
    def __init__(self, dtype):
        self.dtype = dtype


class DType:
    def __init__(self, name):
        self.name = name


def _rebuild_tensor(storage, offset, size, stride, *rest):
    import numpy as np
    a, dtype = storage
    size, stride = tuple(size), tuple(stride)
    if (not all(isinstance(n, int) and n >= 0 for n in size + stride) or len(size) != len(stride)
            or not isinstance(offset, int) or offset < 0):
        raise TooLarge("a tensor with a negative or malformed size, stride or offset: refused")
    numel = 1
    for n in size:
        numel *= n
    if numel == 0:
        BUDGET.take(0, "an empty tensor")
        return Tensor(np.zeros(size, dtype=a.dtype), dtype)
    if numel > a.size - offset:
        raise TooLarge("a tensor of shape %s over a storage of %d elements: a stride-0 or overlapping "
                       "view over a larger shape (or a shape larger than its storage): refused"
                       % (list(size), a.size))
    last = offset + sum((n - 1) * st for n, st in zip(size, stride))
    if last >= a.size:
        raise ValueError("a tensor reaches outside its storage")
    BUDGET.take(numel * a.itemsize, "a tensor of shape %s" % list(size))
    view = np.lib.stride_tricks.as_strided(a[offset:], shape=size,
                                           strides=[st * a.itemsize for st in stride])
    return Tensor(np.array(view), dtype)


def _rebuild_parameter(data, *rest):
    return data


def _rebuild_from_type_v2(func, new_type, args, state):
    return func(*args)


class _Marker:
    """torch.Tensor or torch.nn.Parameter named as a type: only passed on."""


ZIP_FUNCS = {
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
    ("torch", "Tensor"): _Marker, ("torch.nn.parameter", "Parameter"): _Marker,
    ("torch", "Size"): tuple, ("torch", "device"): lambda *a: "device",
}


class ZipUnpickler(pickle.Unpickler):
    """The restricted unpickler over a torch zip checkpoint: tensors become
    NumPy arrays read from the archive's storages; nothing outside ALLOWED
    and torch's rebuilders (reimplemented here) is admitted."""

    def __init__(self, f, zf, prefix):
        super().__init__(f, encoding="utf-8")
        self.zf, self.prefix, self.storages = zf, prefix, {}

    def find_class(self, module, name):
        if (module, name) in ZIP_FUNCS:
            return ZIP_FUNCS[(module, name)]
        if module in ("torch", "torch.storage", "torch.cuda") and name in STORAGE_DTYPES:
            return StorageType(STORAGE_DTYPES[name])
        if module == "torch" and name in TORCH_DTYPES:
            return DType(name)
        if (module, name) in ALLOWED:
            return super().find_class(module, name)
        raise Refused("%s.%s" % (module, name))

    def persistent_load(self, pid):
        import numpy as np
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise Refused("(a persistent object that is not a storage)")
        stype, key = pid[1], str(pid[2])
        dtype = stype.dtype if isinstance(stype, StorageType) else "uint8"
        if key not in self.storages:
            raw = read_member(self.zf, "%s/data/%s" % (self.prefix, key))
            np_dtype = {"bfloat16": np.uint16, "bool": np.bool_}.get(dtype, dtype)
            self.storages[key] = (np.frombuffer(raw, dtype=np.dtype(np_dtype).newbyteorder("<")), dtype)
        return self.storages[key]


def read_member(zf, name):
    """An archive member, its declared size taken from the budget before a
    byte is read, inflated a chunk at a time (a compressed bomb stops at
    its declared size, which zipfile enforces)."""
    info = zf.getinfo(name)
    BUDGET.take(info.file_size, "archive member %s (declared %d bytes%s)"
                % (name, info.file_size, ", compressed" if info.compress_type else ""))
    out = bytearray()
    with zf.open(info) as f:
        while len(out) <= info.file_size:
            chunk = f.read(CHUNK)
            if not chunk:
                break
            out += chunk
    if len(out) != info.file_size:
        raise TooLarge("archive member %s holds %d bytes, not the %d it declares: refused"
                       % (name, len(out), info.file_size))
    return bytes(out)


def zip_load(f):
    """A torch.save zip checkpoint, f its open file (or its path, opened
    with open_checkpoint)."""
    import io
    import zipfile
    global BUDGET
    if isinstance(f, str):
        with open_checkpoint(f) as opened:
            return zip_load(opened)
    BUDGET = Budget(f)
    f.seek(0)
    with zipfile.ZipFile(f) as zf:
        names = [n for n in zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if not names:
            raise ValueError("a zip file without data.pkl: not a torch.save checkpoint")
        prefix = names[0].split("/")[0]
        return ZipUnpickler(io.BytesIO(read_member(zf, names[0])), zf, prefix).load()


def as_numpy(obj, depth=0):
    """torch tensors (the torch loaders) as Tensor, through the structure."""
    import torch
    if isinstance(obj, torch.Tensor):
        BUDGET.take(obj.numel() * obj.element_size(), "a tensor of shape %s" % list(obj.shape))
        t = obj.detach().cpu()
        name = str(t.dtype).replace("torch.", "")
        if name == "bfloat16":
            return Tensor(t.view(torch.int16).numpy().view("uint16").copy(), name)
        return Tensor(t.numpy().copy(), name)
    if depth > MAX_DEPTH:
        return obj
    if isinstance(obj, dict):
        return type(obj)((k, as_numpy(v, depth + 1)) for k, v in obj.items()) \
            if isinstance(obj, collections.OrderedDict) else {k: as_numpy(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, list):
        return [as_numpy(v, depth + 1) for v in obj]
    if isinstance(obj, tuple):
        return tuple(as_numpy(v, depth + 1) for v in obj)
    return obj


def open_checkpoint(path):
    """The checkpoint opened once, without following a link at its last
    component (the project's code may have planted one there; kernodeck
    checked the folders on the way before it started this reader): every
    read of it goes through this one file, never the path again."""
    import os
    import stat
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise OSError(e.errno, "a symbolic link: the checkpoint reader follows no link "
                          "(refusing to read through it)", path) from None
        raise
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        raise OSError(errno.EINVAL, "not a regular file: not read", path)
    return f


def load(path):
    """(object, loader name); raises Refused or the load's own error.  A zip
    checkpoint is read without torch; another format goes through torch:
    weights_only=True, then the restricted unpickler.  The file is opened
    once (open_checkpoint)."""
    with open_checkpoint(path) as f:
        return load_file(f)


def load_file(f):
    import zipfile
    global BUDGET
    if zipfile.is_zipfile(f):
        return zip_load(f), "zip, restricted"
    BUDGET = Budget(f)
    import torch
    try:
        f.seek(0)
        return as_numpy(torch.load(f, map_location="cpu", weights_only=True)), "torch, weights_only"
    except TypeError:
        pass    # a PyTorch without weights_only
    except pickle.UnpicklingError:
        pass    # refused by torch's own allow-list: try ours
    except RuntimeError as e:
        if "weights_only" not in str(e) and "Weights only" not in str(e):
            raise
    return as_numpy(restricted_torch_load(f)), "torch, restricted"


def is_tensor(v):
    return isinstance(v, Tensor)


def is_generator_state(v):
    return (is_tensor(v) and v.dtype == "uint8" and v.a.ndim == 1
            and v.numel() == TORCH_RNG_STATE_BYTES)


DATA_WORDS = re.compile(r"sampler|loader|data|shuffl|batch_idx|position|cursor|offset|samples_seen", re.I)
# counters under the names trainers give them: step, global_step, iter_num,
# step_num, n_iter, num_updates, epoch, epoch_num, current_epoch, ...
_COUNTER_PREFIX = r"^(global_|n_|num_|cur_|current_|total_|train_|training_)?"
_COUNTER_SUFFIX = r"(_num|_count|_idx|_id)?$"
STEP_KEYS = re.compile(_COUNTER_PREFIX + r"(step|steps|it|iter|iters|iteration|iterations|update|updates)"
                       + _COUNTER_SUFFIX, re.I)
EPOCH_KEYS = re.compile(_COUNTER_PREFIX + r"(epoch|epochs)" + _COUNTER_SUFFIX, re.I)


def is_counter_key(k):
    return bool(STEP_KEYS.match(k) or EPOCH_KEYS.match(k))


def recorded_step(obj, depth=0):
    """The step counter a checkpoint records, as (key path, value), found
    level by level from the top (so that a model's own counters below do
    not win); None when it holds none."""
    level = [("", obj)]
    for _ in range(4):
        below = []
        for path, o in level:
            if not isinstance(o, dict):
                continue
            for k, v in o.items():
                sub = "%s.%s" % (path, k) if path else str(k)
                if isinstance(k, str) and STEP_KEYS.match(k) and isinstance(v, int) and not isinstance(v, bool):
                    return sub, v
                if isinstance(v, dict):
                    below.append((sub, v))
        level = below
    return None


class Inventory:
    def __init__(self):
        self.kinds = collections.OrderedDict()
        for k in ("model", "optimizer", "scheduler", "rng_torch", "rng_cuda", "rng_numpy",
                  "rng_python", "counter", "data_position"):
            self.kinds[k] = {"kind": k, "present": False, "where": []}

    def add(self, kind, where, **extra):
        row = self.kinds[kind]
        row["present"] = True
        if len(row["where"]) < 8:
            row["where"].append(where or "(top level)")
        for key, value in extra.items():
            if isinstance(value, dict):
                row.setdefault(key, {}).update(value)
            elif isinstance(value, int) and not isinstance(value, bool):
                row[key] = row.get(key, 0) + value
            elif isinstance(value, bool):
                row[key] = row.get(key, False) or value
            else:
                row[key] = value

    def walk(self, obj, path, depth=0):
        if depth > MAX_DEPTH:
            return
        in_data = bool(DATA_WORDS.search(path))
        if isinstance(obj, dict):
            keys = set(k for k in obj if isinstance(k, str))
            if "state" in keys and "param_groups" in keys:
                st = obj.get("state") or {}
                buffers = sorted(set(b for s in st.values() if isinstance(s, dict)
                                     for b, t in s.items() if is_tensor(t)))
                self.add("optimizer", path, buffers=bool(buffers), parameters_with_state=len(st),
                         buffer_names=buffers)
                return
            if "last_epoch" in keys and keys & {"base_lrs", "_last_lr", "_step_count"}:
                self.add("scheduler", path, last_epoch=int(obj.get("last_epoch") or 0))
                return
            if "bit_generator" in keys and "state" in keys:
                self.add("data_position" if in_data else "rng_numpy", path)
                return
            values = list(obj.values())
            if values and all(is_tensor(v) and v.is_floating_point() for v in values):
                self.add("model", path, tensors=len(values),
                         parameters=sum(int(v.numel()) for v in values))
                return
            for k, v in obj.items():
                self.walk(v, "%s.%s" % (path, k) if path else str(k), depth + 1)
                if isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(k, str):
                    sub = "%s.%s" % (path, k) if path else k
                    if DATA_WORDS.search(sub):
                        self.add("data_position", sub)
                    elif is_counter_key(k):
                        self.add("counter", sub, values={sub: v})
            return
        if isinstance(obj, (list, tuple)):
            if (len(obj) == 5 and obj[0] == "MT19937") or (len(obj) == 3 and obj[0] == 3 and
                                                          isinstance(obj[1], tuple) and len(obj[1]) == 625):
                kind = "rng_numpy" if obj[0] == "MT19937" else "rng_python"
                self.add("data_position" if in_data else kind, path)
                return
            if obj and all(is_tensor(t) and t.dtype == "uint8" for t in obj) and "cuda" in path.lower():
                self.add("rng_cuda", path, devices=len(obj))
                return
            for i, v in enumerate(obj[:64]):
                self.walk(v, "%s[%d]" % (path, i), depth + 1)
            return
        if is_generator_state(obj):
            if "cuda" in path.lower():
                self.add("rng_cuda", path, devices=1)
            else:
                self.add("data_position" if in_data else "rng_torch", path)
            return
        if is_tensor(obj) and "cuda" in path.lower() and obj.dtype == "uint8":
            self.add("rng_cuda", path, devices=1)


# what a training script visibly uses, kind by kind: the first line that
# draws from a generator, builds a scheduler, an optimizer or a loader
USES = [
    ("rng_torch", re.compile(r"torch\.(rand|randn|randint|randperm|bernoulli|multinomial|normal)\(|"
                             r"\.(normal_|uniform_|bernoulli_|random_)\(|[Dd]ropout\(|shuffle\s*=\s*True|RandomSampler\(")),
    ("rng_numpy", re.compile(r"(np|numpy)\.random\.(rand|randn|randint|random|normal|uniform|choice|shuffle|"
                             r"permutation|binomial|poisson|beta|gamma|default_rng)\b")),
    ("rng_python", re.compile(r"(?<![\w.])random\.(random|uniform|randint|choice|choices|shuffle|sample|gauss|"
                              r"randrange|betavariate|normalvariate)\(")),
    ("scheduler", re.compile(r"lr_scheduler\.|[A-Za-z]*Scheduler\(|[A-Z]\w*LR\(")),
    ("optimizer", re.compile(r"optim\.[A-Z]\w*\(|\b(AdamW|Adam|SGD|RMSprop|Adagrad)\(")),
    ("data_position", re.compile(r"DataLoader\(|Sampler\(|shuffle\s*=\s*True")),
]
SCRIPT_CAP = 2 << 20


def script_uses(path):
    """{kind: "FILE:LINE: text"} for each kind the script visibly uses."""
    import os
    uses = {}
    try:
        if os.path.getsize(path) > SCRIPT_CAP:
            return None
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for n, line in enumerate(lines, 1):
        code = line.split("#", 1)[0]
        for kind, rx in USES:
            if kind == "rng_torch" and "generator=" in code:
                continue    # a generator of its own, not the global one
            if kind not in uses and rx.search(code):
                uses[kind] = "%s:%d: %s" % (os.path.basename(path), n, code.strip()[:120])
    return uses


def cmd_step(args):
    """Only the step counter the checkpoint records (the kill mode's wait)."""
    try:
        obj, _ = load(args.checkpoint)
    except Exception as e:   # noqa: BLE001 - reported, not hidden
        emit({"end": True, "ok": False, "error": ("%s: %s" % (type(e).__name__, e))[:MESSAGE_CAP]})
        return 1
    rec = recorded_step(obj)
    emit({"end": True, "ok": True, "step": rec[1], "step_key": rec[0]} if rec else {"end": True, "ok": True})
    return 0


def cmd_inventory(args):
    try:
        obj, loader = load(args.checkpoint)
    except Refused as e:
        emit({"end": True, "ok": False, "refused": str(e),
              "error": "the checkpoint needs the class %s, which kernodeck's restricted loader does not "
                       "admit; it is never unpickled without confirmation" % e})
        return 1
    except TooLarge as e:
        emit({"end": True, "ok": False, "too_large": True, "error": str(e)[:MESSAGE_CAP]})
        return 1
    except MemoryError:
        emit({"end": True, "ok": False, "too_large": True,
              "error": "reading the checkpoint reached the reader's memory limit: refused"})
        return 1
    except Exception as e:   # noqa: BLE001 - reported, not hidden
        emit({"end": True, "ok": False, "error": ("%s: %s" % (type(e).__name__, e))[:MESSAGE_CAP]})
        return 1
    inv = Inventory()
    if is_tensor(obj) or not isinstance(obj, (dict, list, tuple)):
        inv.walk({"": obj}, "")
    else:
        inv.walk(obj, "")
    for row in inv.kinds.values():
        emit(row)
    if args.script:
        uses = script_uses(args.script)
        if uses is not None:
            emit({"uses": uses, "script": args.script})
    end = {"end": True, "ok": True, "loader": loader}
    rec = recorded_step(obj)
    if rec is not None:
        end["step_key"], end["step"] = rec
    emit(end)
    return 0


def tensors(obj, path, out, depth=0):
    if depth > MAX_DEPTH:
        return
    if is_tensor(obj):
        out[path or "(top level)"] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            tensors(v, "%s.%s" % (path, k) if path else str(k), out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj[:4096]):
            tensors(v, "%s[%d]" % (path, i), out, depth + 1)


def finite_or_none(x):
    return x if x is not None and math.isfinite(x) else None


def compare_one(name, a, b, args):
    import numpy as np
    if a.shape != b.shape or a.dtype != b.dtype:
        return {"tensor": name, "ok": False, "error": "shape or dtype differs: %s %s against %s %s"
                % (list(a.shape), a.dtype, list(b.shape), b.dtype)}
    if a.numel() == 0:
        return None
    if a.is_floating_point():
        ad, bd = a.as_float64().reshape(-1), b.as_float64().reshape(-1)
        with np.errstate(invalid="ignore"):
            diff = np.abs(ad - bd)
            if args.rule == "tolerance":
                bad = ~(diff <= args.atol + args.rtol * np.abs(bd))
            else:
                bad = ~((a.a.reshape(-1) == b.a.reshape(-1)) | (np.isnan(ad) & np.isnan(bd)))
        finite = diff[np.isfinite(diff)]
        worst = float(finite.max()) if finite.size else None
    else:
        av, bv = a.a.reshape(-1), b.a.reshape(-1)
        bad = av != bv
        worst = float(np.abs(av.astype(np.float64) - bv.astype(np.float64)).max()) \
            if a.dtype != "bool" else float(bad.sum())
        ad, bd = av, bv
    n_bad = int(bad.sum())
    row = {"tensor": name, "ok": n_bad == 0, "elements": a.numel(), "differ": n_bad,
           "max_abs": finite_or_none(worst)}
    if n_bad:
        i = int(np.flatnonzero(bad)[0])
        row["first"] = {"index": i, "a": finite_or_none(float(ad[i])), "b": finite_or_none(float(bd[i]))}
    return row


def tensor_class(name, inv):
    """model, optimizer, rng or other: model tensors are reported first,
    RNG states compared as states (same or not)."""
    def under(kind):
        return any(w == "(top level)" or name == w or name.startswith(w + ".") or name.startswith(w + "[")
                   for w in inv.kinds[kind]["where"])
    if under("model"):
        return "model"
    if under("optimizer"):
        return "optimizer"
    if any(under(k) for k in ("rng_torch", "rng_cuda", "rng_numpy", "rng_python", "data_position")) \
            or re.search(r"rng|random|generator", name, re.I):
        return "rng"
    return "other"


CLASS_ORDER = {"model": 0, "optimizer": 1, "other": 2, "rng": 3}


def cmd_compare(args):
    loaded = []
    for p in (args.a, args.b):
        try:
            loaded.append(load(p)[0])
        except Refused as e:
            emit({"end": True, "ok": False, "refused": str(e), "file": p,
                  "error": "%s needs the class %s, which the restricted loader does not admit" % (p, e)})
            return 1
        except TooLarge as e:
            emit({"end": True, "ok": False, "too_large": True, "file": p, "error": ("%s: %s" % (p, e))[:MESSAGE_CAP]})
            return 1
        except Exception as e:   # noqa: BLE001
            emit({"end": True, "ok": False, "file": p,
                  "error": ("%s: %s: %s" % (p, type(e).__name__, e))[:MESSAGE_CAP]})
            return 1
    inv = Inventory()
    inv.walk(loaded[0] if isinstance(loaded[0], (dict, list, tuple)) else {"": loaded[0]}, "")
    ta, tb = {}, {}
    tensors(loaded[0], "", ta)
    tensors(loaded[1], "", tb)
    names = sorted(set(ta) | set(tb), key=lambda n: CLASS_ORDER[tensor_class(n, inv)])
    count = {c: [0, 0] for c in CLASS_ORDER}    # compared, differ
    worst = {}
    for name in names:
        cls = tensor_class(name, inv)
        if name not in tb or name not in ta:
            emit({"tensor": name, "ok": False, "class": cls, "only_in": "a" if name in ta else "b"})
            count[cls][1] += 1
            continue
        if cls == "rng":
            a, b = ta[name], tb[name]
            same = a.shape == b.shape and a.dtype == b.dtype and bool((a.a == b.a).all())
            count[cls][0] += 1
            if not same:
                count[cls][1] += 1
                emit({"tensor": name, "ok": False, "class": cls, "same": False})
            continue
        row = compare_one(name, ta[name], tb[name], args)
        if row is None:
            continue
        count[cls][0] += 1
        row["class"] = cls
        if not row["ok"]:
            count[cls][1] += 1
            emit(row)
        w = worst.get(cls)
        if row.get("max_abs") is not None and (w is None or row["max_abs"] > w["max_abs"]):
            worst[cls] = {"tensor": name, "max_abs": row["max_abs"]}
    headline = next((worst[c] for c in ("model", "optimizer", "other") if c in worst), None)
    emit({"end": True, "ok": True, "compared": sum(c[0] for c in count.values()),
          "differ": sum(c[1] for c in count.values()), "worst": headline,
          "classes": {c: {"compared": v[0], "differ": v[1]} for c, v in count.items() if v[0] or v[1]}})
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("inventory")
    i.add_argument("checkpoint")
    i.add_argument("--script", help="the training script, for what it visibly uses")
    st = sub.add_parser("step")
    st.add_argument("checkpoint")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--rule", choices=("exact", "tolerance"), default="exact")
    c.add_argument("--atol", type=float, default=0.0)
    c.add_argument("--rtol", type=float, default=0.0)
    args = ap.parse_args()
    try:
        import numpy  # noqa: F401
    except Exception as e:   # noqa: BLE001
        emit({"end": True, "ok": False, "error": ("cannot import numpy: %s: %s" % (type(e).__name__, e))[:MESSAGE_CAP]})
        return 1
    return {"inventory": cmd_inventory, "step": cmd_step, "compare": cmd_compare}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
