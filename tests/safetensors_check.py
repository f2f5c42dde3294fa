#!/usr/bin/env python3
"""Check a safetensors file with Python's standard library, and with PyTorch if it is here.

Usage: safetensors_check.py FILE

An oracle for lib/io/safetensors.c that shares no code with it: the file is read
with struct and json, every tensor entry is checked (dtype, shape,
data_offsets that match them and tile the data section), and the workbook's
"wb.crc32" metadata entry is checked with zlib.crc32. Then it prints, in
header order:

    crc32 ok                       (only when the file has "wb.crc32")
    meta KEY "VALUE"               (each other metadata entry, VALUE as JSON)
    tensor NAME DTYPE [SHAPE] v0 v1 ...

with the values row-major, floats printed with "%.9g" (as C's printf does) and
integers with "%d". When PyTorch is importable, each tensor is decoded again
with torch.frombuffer and compared; when the safetensors package is
importable, the file is also loaded with it and compared. Lines starting with
"#" say which of these ran. Exit status 0 when all is well; 1 with the problem
on stderr otherwise.
"""
import json
import math
import re
import struct
import sys
import zlib

# dtype -> (struct code, bytes per element); BF16 is decoded by hand below.
DTYPES = {
    "F64": ("d", 8), "F32": ("f", 4), "F16": ("e", 2), "BF16": ("H", 2),
    "I64": ("q", 8), "I32": ("i", 4), "I16": ("h", 2), "I8": ("b", 1),
    "U64": ("Q", 8), "U32": ("I", 4), "U16": ("H", 2), "U8": ("B", 1), "BOOL": ("?", 1),
}


class Bad(Exception):
    """The file breaks the format."""


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise Bad("duplicate key %r in the header" % k)
    return dict(pairs)


def decode(dtype, raw):
    code, size = DTYPES[dtype]
    n = len(raw) // size
    values = list(struct.unpack("<%d%s" % (n, code), raw))
    if dtype == "BF16":  # the upper half of an f32
        values = [struct.unpack("<f", struct.pack("<I", v << 16))[0] for v in values]
    return values


def fmt(dtype, v):
    if dtype.startswith(("F", "BF")):
        return "%.9g" % v
    return "%d" % v


def same(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def read(path):
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise Bad("%d bytes, fewer than the 8-byte header length" % len(blob))
    (n,) = struct.unpack("<Q", blob[:8])
    if n > len(blob) - 8:
        raise Bad("header length %d, but only %d bytes follow it" % (n, len(blob) - 8))
    raw_header = blob[8:8 + n]
    header = json.loads(raw_header.decode("utf-8"), object_pairs_hook=no_duplicates)
    if not isinstance(header, dict):
        raise Bad("the header is not a JSON object")
    data = blob[8 + n:]
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise Bad("__metadata__ is not an object of strings")

    crc_ok = None
    if "wb.crc32" in meta:
        found = re.search(rb'"wb\.crc32"\s*:\s*"([0-9a-f]{8})"', raw_header)
        if not found or found.group(1).decode() != meta["wb.crc32"]:
            raise Bad("wb.crc32 is not 8 hex digits in the raw header")
        at = 8 + found.start(1)
        computed = zlib.crc32(blob[:at] + b"00000000" + blob[at + 8:]) & 0xFFFFFFFF
        if computed != int(meta["wb.crc32"], 16):
            raise Bad("checksum mismatch: stored %s, zlib computes %08x" % (meta["wb.crc32"], computed))
        crc_ok = True

    tensors, spans = [], []
    for name, info in header.items():
        dtype, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in DTYPES:
            raise Bad("tensor %r: unknown dtype %r" % (name, dtype))
        if not all(isinstance(s, int) and s >= 0 for s in shape):
            raise Bad("tensor %r: bad shape %r" % (name, shape))
        count = 1
        for s in shape:
            count *= s
        if end - begin != count * DTYPES[dtype][1] or begin < 0:
            raise Bad("tensor %r: data_offsets %r do not fit %s %r" % (name, [begin, end], dtype, shape))
        tensors.append((name, dtype, shape, data[begin:end]))
        spans.append((begin, end, name))
    covered = 0
    for begin, end, name in sorted(spans):
        if begin != covered:
            raise Bad("tensor %r starts at %d, expected %d (gap or overlap)" % (name, begin, covered))
        covered = end
    if covered != len(data):
        raise Bad("the tensors cover %d bytes of a %d-byte data section" % (covered, len(data)))
    return meta, tensors, crc_ok


def check_with_torch(tensors):
    try:
        import torch
    except ImportError:
        print("# torch: not installed, not compared")
        return None
    if sys.byteorder != "little":
        print("# torch: a big-endian machine, not compared")
        return torch
    kinds = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
             "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
             "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}
    for name, dtype, shape, raw in tensors:
        if dtype not in kinds:
            continue
        if raw:
            t = torch.frombuffer(bytearray(raw), dtype=kinds[dtype]).reshape(shape)
        else:
            t = torch.empty(shape, dtype=kinds[dtype])
        if list(t.shape) != list(shape):
            raise Bad("torch: tensor %r has shape %r, expected %r" % (name, list(t.shape), shape))
        got, want = t.flatten().tolist(), decode(dtype, raw)
        if len(got) != len(want) or not all(same(a, b) for a, b in zip(got, want)):
            raise Bad("torch: tensor %r decodes to %r, struct to %r" % (name, got[:8], want[:8]))
    print("# torch %s: %d tensors decode the same" % (torch.__version__, len(tensors)))
    return torch


def check_with_safetensors(path, meta, tensors, torch):
    try:
        from safetensors import safe_open
    except ImportError:
        print("# safetensors: not installed, not compared")
        return
    framework = "pt" if torch else "numpy"
    with safe_open(path, framework=framework) as f:
        if (f.metadata() or {}) != meta:
            raise Bad("safetensors: metadata %r, expected %r" % (f.metadata(), meta))
        if sorted(f.keys()) != sorted(name for name, _, _, _ in tensors):
            raise Bad("safetensors: tensors %r" % sorted(f.keys()))
        for name, dtype, shape, raw in tensors:
            t = f.get_tensor(name)
            got = t.flatten().tolist()
            if list(t.shape) != list(shape) or not all(same(a, b) for a, b in zip(got, decode(dtype, raw))):
                raise Bad("safetensors: tensor %r differs" % name)
    print("# safetensors (%s): %d tensors match" % (framework, len(tensors)))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    path = sys.argv[1]
    sys.stdout.reconfigure(encoding="utf-8")
    try:
        meta, tensors, crc_ok = read(path)
        if crc_ok:
            print("crc32 ok")
        for key, value in meta.items():
            if key != "wb.crc32":
                print("meta %s %s" % (key, json.dumps(value, ensure_ascii=False)))
        for name, dtype, shape, raw in tensors:
            values = " ".join(fmt(dtype, v) for v in decode(dtype, raw))
            print(("tensor %s %s %s %s" % (name, dtype, json.dumps(shape), values)).rstrip())
        torch = check_with_torch(tensors)
        check_with_safetensors(path, meta, tensors, torch)
    except (Bad, ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        sys.stderr.write("safetensors_check: %s: %s\n" % (path, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
