#!/usr/bin/env python3
"""Fuzzes the strict .npy reader of the golden tools (python/aclnn_bce/npy.py) with atheris.

Every byte string must either load as an array that agrees with its header, and with numpy's own
loader (numpy.load, allow_pickle=False, reads every file the strict reader accepts, to the same
bytes), or raise the reader's NpyError. Any other exception, a mismatch or a crash is a finding.

    python fuzz/fuzz_npy.py -max_total_time=30 fuzz/corpus/npy     # a bounded run (CI): exit 0, no finding
    python fuzz/fuzz_npy.py -runs=0 fuzz/corpus/npy                # replay the seeds only

Arguments are libFuzzer's. When the first corpus directory is the committed fuzz/corpus/npy (seeds
from fuzz/make_npy_corpus.py), new inputs go to a work directory instead ($FUZZ_NPY_WORKDIR, by
default <tmp>/aclnn_bce_fuzz_npy) and the committed seeds are only read.
"""
import io
import os
import sys
import tempfile

import atheris

HERE = os.path.dirname(os.path.abspath(__file__))

import numpy as np

from aclnn_bce import npy


def _instrument(module):
    """Coverage instrumentation of the module's own functions, in place. (instrument_imports misses
    them: the editable install loads the package through its own finder.)"""
    for value in list(vars(module).values()):
        if getattr(value, "__module__", None) == module.__name__ and hasattr(value, "__code__"):
            atheris.instrument_func(value)


_instrument(npy)

COMMITTED = os.path.realpath(os.path.join(HERE, "corpus", "npy"))


def TestOneInput(data: bytes) -> None:
    try:
        arr = npy.loads_npy(data, "fuzz")
    except npy.NpyError as e:
        message = str(e)
        assert message.startswith("fuzz: ") and "\n" not in message, message
        return
    dtype, shape, offset = npy.parse_npy_header(data, "fuzz")
    assert isinstance(arr, np.ndarray), type(arr)
    assert arr.shape == shape, (arr.shape, shape)
    assert arr.dtype == dtype and npy.dtype_name(arr.dtype) in npy.DTYPES, arr.dtype
    assert arr.flags.c_contiguous and arr.flags.writeable
    assert arr.nbytes == len(data) - offset, (arr.nbytes, len(data), offset)
    assert arr.tobytes() == data[offset:]
    # Differential: numpy reads the same file to the same bytes (bfloat16 comes back as void16).
    ref = np.load(io.BytesIO(data), allow_pickle=False)
    assert ref.shape == shape and ref.dtype.itemsize == dtype.itemsize, (ref.shape, ref.dtype)
    assert ref.tobytes() == arr.tobytes()
    # And what the writer makes of the array reads back bit for bit.
    again = npy.loads_npy(npy.dumps_npy(arr), "fuzz")
    assert again.shape == arr.shape and again.dtype == arr.dtype and again.tobytes() == arr.tobytes()


def _argv(argv):
    """argv with a writable work directory before the committed corpus (see the module doc)."""
    positional = [i for i, a in enumerate(argv) if i > 0 and not a.startswith("-")]
    if not positional or os.path.realpath(argv[positional[0]]) != COMMITTED:
        return argv
    if any(a.startswith("-merge") for a in argv):
        return argv
    work = os.environ.get("FUZZ_NPY_WORKDIR") or os.path.join(tempfile.gettempdir(), "aclnn_bce_fuzz_npy")
    os.makedirs(work, exist_ok=True)
    return argv[:positional[0]] + [work] + argv[positional[0]:]


def main():
    atheris.Setup(_argv(sys.argv), TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
