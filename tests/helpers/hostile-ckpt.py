#!/usr/bin/env python3
"""Write hostile checkpoints in torch.save's zip format, without torch, for
the checkpoint reader's tests (share/ckpt-inventory.py):

    hostile-ckpt.py DIR

DIR/stride0.pt    a 4-byte storage seen as a 100000 x 100000 float32 view
                  with strides (0, 0): 40 GB if materialised
DIR/hugeshape.pt  a shape of 2**40 elements over a 1-element storage
DIR/bomb.pt       a deflated member of 1 GiB of zeros (about 1 MB on disk)
DIR/oversized.pt  a stored member whose directory entry declares 3 GB
DIR/fine.pt       the same writer's honest checkpoint (a 2 x 3 tensor)
"""

import collections
import io
import os
import pickle
import struct
import sys
import types
import zipfile

# the names torch's pickles refer to, without torch
torch = types.ModuleType("torch")
utils = types.ModuleType("torch._utils")
sys.modules["torch"] = torch
sys.modules["torch._utils"] = utils


def _rebuild_tensor_v2(*args):
    raise RuntimeError("only written, never called")


_rebuild_tensor_v2.__module__ = "torch._utils"
utils._rebuild_tensor_v2 = _rebuild_tensor_v2


class FloatStorage:
    pass


FloatStorage.__module__ = "torch"
torch.FloatStorage = FloatStorage


class Storage:
    def __init__(self, key, numel):
        self.key, self.numel = key, numel


class T:
    def __init__(self, storage, size, stride, offset=0):
        self.args = (storage, offset, tuple(size), tuple(stride), False, collections.OrderedDict())

    def __reduce__(self):
        return (_rebuild_tensor_v2, self.args)


class P(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            return ("storage", FloatStorage, obj.key, "cpu", obj.numel)
        return None


def pkl(obj):
    buf = io.BytesIO()
    P(buf, protocol=2).dump(obj)
    return buf.getvalue()


def write(path, obj, members, compress=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", pkl(obj))
        for name, data in members.items():
            if callable(data):
                with z.open(zipfile.ZipInfo("archive/data/" + name), "w", force_zip64=True) as f:
                    data(f)
            else:
                z.writestr("archive/data/" + name, data, compress_type=compress)


def zeros_gib(f):
    block = bytes(16 << 20)
    for _ in range(64):
        f.write(block)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    one = {"0": struct.pack("<f", 1.0)}
    write(os.path.join(d, "stride0.pt"), {"w": T(Storage("0", 1), (100000, 100000), (0, 0))}, one)
    write(os.path.join(d, "hugeshape.pt"), {"w": T(Storage("0", 1), (1 << 40,), (1,))}, one)
    write(os.path.join(d, "fine.pt"), {"w": T(Storage("0", 6), (2, 3), (3, 1))},
          {"0": struct.pack("<6f", 1, 2, 3, 4, 5, 6)})
    # a deflated gigabyte: the member's data written through a deflating stream
    info_bomb = zipfile.ZipInfo("archive/data/0")
    info_bomb.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(os.path.join(d, "bomb.pt"), "w") as z:
        z.writestr("archive/data.pkl", pkl({"w": T(Storage("0", 1 << 28), (1 << 28,), (1,))}))
        with z.open(info_bomb, "w", force_zip64=True) as f:
            zeros_gib(f)
    # a stored member whose central directory entry says 3 GB
    p = os.path.join(d, "oversized.pt")
    write(p, {"w": T(Storage("0", 2), (2,), (1,))}, {"0": struct.pack("<2f", 1, 2)})
    raw = bytearray(open(p, "rb").read())
    at = raw.find(b"PK\x01\x02", 0)
    while at >= 0:
        name_len = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46:at + 46 + name_len] == b"archive/data/0":
            struct.pack_into("<II", raw, at + 20, 3000000000, 3000000000)
        at = raw.find(b"PK\x01\x02", at + 4)
    open(p, "wb").write(bytes(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
