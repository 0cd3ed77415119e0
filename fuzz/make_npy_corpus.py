#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/fuzz_npy.py (fuzz/corpus/npy/<name>.npy): a few valid files of
every accepted kind and a few broken ones, one per rule of the strict reader.

    python fuzz/make_npy_corpus.py          # rewrites fuzz/corpus/npy/
"""
import io
import os
import shutil
import struct

import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover
    ml_dtypes = None

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "npy")


def saved(arr, allow_pickle=False):
    b = io.BytesIO()
    np.save(b, arr, allow_pickle=allow_pickle)
    return b.getvalue()


def header_file(header, data=b"", version=(1, 0)):
    """A .npy file with this header text (padded as numpy pads it) and data."""
    text = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    if version == (1, 0):
        prefix = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text))
    else:
        prefix = b"\x93NUMPY" + bytes(version) + struct.pack("<I", len(text))
    return prefix + text.encode("utf8" if version == (3, 0) else "latin1") + data


def seeds():
    f32 = np.array([[0.5, -1.25, 3.0], [7.0, -0.0, 1e-3]], dtype=np.float32)
    yield "valid_f32_2x3", saved(f32)
    yield "valid_f16_4", saved(np.array([1, -2, 65504, 6e-8], dtype=np.float16))
    yield "valid_f64_scalar", saved(np.float64(2.5) * np.ones((), np.float64))
    yield "valid_f32_empty_0x3", saved(np.zeros((0, 3), np.float32))
    yield "valid_f32_nan_inf", saved(np.array([np.nan, np.inf, -np.inf], dtype=np.float32))
    if ml_dtypes is not None:
        yield "valid_bf16_5", saved(np.arange(5).astype(ml_dtypes.bfloat16))
    yield "valid_v2_header", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                         np.ones(2, np.float32).tobytes(), (2, 0))
    yield "valid_v3_header", header_file("{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }",
                                         np.ones(1, np.float16).tobytes(), (3, 0))
    good = saved(f32)
    yield "bad_truncated_header", good[:40]
    yield "bad_truncated_data", good[:-3]
    yield "bad_trailing_bytes", good + b"\0"
    yield "bad_magic", b"\x93NUMPZ" + good[6:]
    yield "bad_version_9", good[:6] + b"\x09\x00" + good[8:]
    yield "bad_header_len", good[:8] + struct.pack("<H", 60000) + good[10:]
    yield "bad_big_endian", saved(np.ones(3, ">f4"))
    yield "bad_fortran", saved(np.asfortranarray(np.ones((2, 3), np.float32)))
    yield "bad_object_pickle", saved(np.array([1, "a", None], dtype=object), allow_pickle=True)
    yield "bad_int32", saved(np.arange(3, dtype=np.int32))
    yield "bad_structured", saved(np.zeros(2, dtype=[("a", "<f4"), ("b", "<f2")]))
    yield "bad_not_a_dict", header_file("['descr', '<f4']")
    yield "bad_code_not_literal", header_file("{'descr': __import__('os').getcwd(), 'fortran_order': False, 'shape': ()}")
    yield "bad_negative_dim", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }")
    yield "bad_huge_shape", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4), }")
    yield "bad_extra_key", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", b"\0" * 4)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for name, data in seeds():
        with open(os.path.join(OUT, name + ".npy"), "wb") as f:
            f.write(data)
    print(f"wrote {len(os.listdir(OUT))} seeds to {OUT}")


if __name__ == "__main__":
    main()
