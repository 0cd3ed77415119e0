"""Strict readers and writers of the two file kinds that golden data travels in.

* ``.npy`` (NumPy's format, versions 1.0, 2.0 and 3.0): the header is parsed here, never by
  ``numpy.load``: magic, version and header length are checked first, then the header dict is read
  with :func:`ast.literal_eval` (a literal, never code; pickles are never loaded) and every key is
  validated before any data is touched.
* raw ``.bin``: the values alone, little-endian, C order, the layout CANN samples read with
  ``fread`` and write with ``fwrite``; the dtype and shape come from the caller and the file size
  must be exactly ``prod(shape) * itemsize``.

Only the four floating dtypes of the operators are accepted: float16, bfloat16, float32, float64.
Whatever else a file holds (big-endian data, Fortran order, object or structured dtypes, a
truncated header, a size that does not match the header, trailing bytes) raises
:class:`NpyError` with a one-line message that names the file. No other exception escapes the
readers (``fuzz/fuzz_npy.py`` checks this).

bfloat16 in ``.npy`` files: NumPy has no bfloat16 of its own; ``numpy.save`` of an
``ml_dtypes.bfloat16`` array writes the descr ``'<V2'`` (a 2-byte void, checked with numpy 2.4 and
ml_dtypes 0.7), and ``numpy.load`` gives the bytes back as ``void16``. This module reads a 2-byte
void descr (``'<V2'`` or ``'|V2'``) as bfloat16 and writes bfloat16 as ``'<V2'``, so files round-trip
with ``numpy.save`` / ``numpy.load(...).view(ml_dtypes.bfloat16)``.
"""

from __future__ import annotations

import ast
import os
import struct
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

try:
    import ml_dtypes as _ml_dtypes

    BFLOAT16: Optional[np.dtype] = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency of the golden tools
    BFLOAT16 = None

__all__ = [
    "NpyError",
    "DTYPES",
    "MAGIC",
    "MAX_HEADER_LEN",
    "dtype_from_name",
    "dtype_name",
    "parse_shape",
    "parse_npy_header",
    "loads_npy",
    "read_npy",
    "read_bin",
    "read_array",
    "dumps_npy",
    "write_npy",
    "write_bin",
    "dumps_bin",
    "write_files",
]

MAGIC = b"\x93NUMPY"
#: The longest header accepted, the limit numpy.lib.format applies by default (max_header_size).
MAX_HEADER_LEN = 10000


class NpyError(ValueError):
    """A file that cannot be read (or written) as asked; the message is one line naming the file."""


def _names() -> Dict[str, np.dtype]:
    names = {
        "float16": np.dtype("<f2"),
        "float32": np.dtype("<f4"),
        "float64": np.dtype("<f8"),
    }
    if BFLOAT16 is not None:
        names["bfloat16"] = BFLOAT16
    return names


#: The accepted dtypes by name (little-endian where the byte order matters).
DTYPES: Dict[str, np.dtype] = _names()
_ALIASES = {"fp16": "float16", "half": "float16", "fp32": "float32", "float": "float32",
            "fp64": "float64", "double": "float64", "bf16": "bfloat16"}
# descr strings of the .npy header -> dtype name ('=' and '|' only where numpy writes them).
_DESCRS = {"<f2": "float16", "<f4": "float32", "<f8": "float64", "<V2": "bfloat16", "|V2": "bfloat16"}


def dtype_from_name(name: str) -> np.dtype:
    """The dtype called ``name`` (float16, bfloat16, float32, float64, or fp16/bf16/fp32/fp64)."""
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in DTYPES:
        if key == "bfloat16":
            raise NpyError("bfloat16 needs the ml_dtypes package (pip install ml-dtypes)")
        raise NpyError(f"unsupported dtype {name!r}: use float16, bfloat16, float32 or float64")
    return DTYPES[key]


def dtype_name(dtype: Any) -> str:
    """float16, bfloat16, float32 or float64 for a supported dtype (any byte order)."""
    dt = np.dtype(dtype)
    if BFLOAT16 is not None and dt == BFLOAT16:
        return "bfloat16"
    if dt.kind == "f" and dt.itemsize in (2, 4, 8):
        return {2: "float16", 4: "float32", 8: "float64"}[dt.itemsize]
    raise NpyError(f"unsupported dtype {dt}: use float16, bfloat16, float32 or float64")


def parse_shape(text: str) -> Tuple[int, ...]:
    """``"32,32"`` -> (32, 32); ``"7"`` or ``"7,"`` -> (7,); ``""``, ``"()"`` or ``"scalar"`` -> ()."""
    s = text.strip()
    if s.startswith("(") and s.endswith(")") or s.startswith("[") and s.endswith("]"):
        s = s[1:-1].strip()
    if s == "" or s.lower() == "scalar":
        return ()
    parts = [p.strip() for p in s.replace("x", ",").split(",")]
    if parts and parts[-1] == "" and len(parts) > 1:
        parts = parts[:-1]
    dims = []
    for p in parts:
        if not p.isdigit():
            raise NpyError(f"bad shape {text!r}: expected comma-separated non-negative integers, e.g. 32,32")
        dims.append(int(p))
    if len(dims) > 32:
        raise NpyError(f"bad shape {text!r}: more than 32 dimensions")
    return tuple(dims)


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def parse_npy_header(data: bytes, where: str = "<bytes>") -> Tuple[np.dtype, Tuple[int, ...], int]:
    """(dtype, shape, offset of the data) from the start of a .npy file; ``data`` needs to hold
    the whole header only. Raises NpyError for anything but a valid header of a supported dtype."""
    if len(data) == 0:
        raise NpyError(f"{where}: empty file, not a .npy file")
    if len(data) < 8:
        if MAGIC.startswith(bytes(data[:6])):
            raise NpyError(f"{where}: truncated .npy header ({len(data)} bytes)")
        raise NpyError(f"{where}: not a .npy file (no \\x93NUMPY magic)")
    if bytes(data[:6]) != MAGIC:
        raise NpyError(f"{where}: not a .npy file (no \\x93NUMPY magic)")
    major, minor = data[6], data[7]
    if (major, minor) == (1, 0):
        len_size, encoding = 2, "latin1"
    elif (major, minor) in ((2, 0), (3, 0)):
        len_size, encoding = 4, "latin1" if major == 2 else "utf8"
    else:
        raise NpyError(f"{where}: unsupported .npy version {major}.{minor} (1.0, 2.0 and 3.0 are read)")
    start = 8 + len_size
    if len(data) < start:
        raise NpyError(f"{where}: truncated .npy header (no header length)")
    (header_len,) = struct.unpack("<H" if len_size == 2 else "<I", bytes(data[8:start]))
    if header_len > MAX_HEADER_LEN:
        raise NpyError(f"{where}: .npy header of {header_len} bytes is longer than {MAX_HEADER_LEN}")
    end = start + header_len
    if len(data) < end:
        raise NpyError(f"{where}: truncated .npy header ({len(data) - start} of {header_len} bytes)")
    try:
        text = bytes(data[start:end]).decode(encoding)
    except UnicodeDecodeError:
        raise NpyError(f"{where}: .npy header is not {encoding} text") from None
    try:
        header = ast.literal_eval(text)
    except Exception:  # SyntaxError, ValueError, MemoryError, RecursionError, ...: all "not a literal"
        raise NpyError(f"{where}: .npy header is not a Python literal dict") from None
    if not isinstance(header, dict):
        raise NpyError(f"{where}: .npy header is not a dict")
    keys = set(header.keys()) if all(isinstance(k, str) for k in header) else None
    if keys != {"descr", "fortran_order", "shape"}:
        raise NpyError(f"{where}: .npy header keys must be exactly 'descr', 'fortran_order', 'shape'")
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    if not isinstance(fortran, bool):
        raise NpyError(f"{where}: .npy header fortran_order is not a bool")
    if fortran:
        raise NpyError(f"{where}: Fortran-ordered .npy files are not supported (save a C-ordered array)")
    if not isinstance(shape, tuple) or not all(type(d) is int for d in shape):
        raise NpyError(f"{where}: .npy header shape is not a tuple of integers")
    if any(d < 0 for d in shape):
        raise NpyError(f"{where}: .npy header shape {shape} has a negative dimension")
    if len(shape) > 32:
        raise NpyError(f"{where}: .npy header shape has {len(shape)} dimensions (at most 32)")
    dtype = _descr_dtype(descr, where)
    _check_dims(shape, dtype, where)
    return dtype, shape, end


def _check_dims(shape: Tuple[int, ...], dtype: np.dtype, where: str) -> None:
    """numpy needs the byte size of the shape's nonzero dimensions to fit in a signed 64-bit
    integer, even when another dimension is 0."""
    nonzero = dtype.itemsize
    for d in shape:
        nonzero *= max(d, 1)
    if nonzero >= 2**63:
        raise NpyError(f"{where}: shape {_short(shape)} is too large for any array")


def _descr_dtype(descr: Any, where: str) -> np.dtype:
    if not isinstance(descr, str):
        raise NpyError(f"{where}: structured .npy dtypes are not supported (descr {_short(descr)})")
    if descr in _DESCRS:
        name = _DESCRS[descr]
        if name not in DTYPES:
            raise NpyError(f"{where}: bfloat16 .npy files need the ml_dtypes package")
        return DTYPES[name]
    if descr in ("|O", "O", "<O", ">O") or descr.endswith("O"):
        raise NpyError(f"{where}: object (pickled) .npy arrays are not supported")
    if len(descr) >= 2 and descr[0] == ">" and descr[1:] in ("f2", "f4", "f8", "V2"):
        raise NpyError(f"{where}: big-endian .npy data (descr {descr!r}) is not supported; save it little-endian")
    raise NpyError(f"{where}: unsupported .npy dtype {_short(descr)} (float16, bfloat16, float32, float64 are read)")


def _short(value: Any) -> str:
    text = ascii(value)  # one line, ASCII: a header's bytes are not to be printed as they are
    return text if len(text) <= 40 else text[:37] + "..."


def _check_size(where: str, have: int, shape: Tuple[int, ...], dtype: np.dtype, raw: bool) -> int:
    count = _prod(shape)
    need = count * dtype.itemsize
    if have != need:
        what = f"{'size' if raw else '.npy data'} is {have} bytes"
        kind = "truncated" if have < need else ("too large" if raw else "trailing bytes")
        raise NpyError(f"{where}: {what}, but shape {shape} of {dtype_name(dtype)} needs {need} ({kind})")
    return count


def _finish(flat: np.ndarray, dtype: np.dtype, shape: Tuple[int, ...]) -> np.ndarray:
    if BFLOAT16 is not None and dtype == BFLOAT16:
        flat = flat.view(BFLOAT16)
    return flat.reshape(shape)  # sizes were checked (_check_size, _check_dims)


def _storage(dtype: np.dtype) -> np.dtype:
    """The dtype the bytes are read as (bfloat16 through little-endian uint16)."""
    return np.dtype("<u2") if BFLOAT16 is not None and dtype == BFLOAT16 else dtype


def loads_npy(data: bytes, where: str = "<bytes>") -> np.ndarray:
    """The array a .npy file's bytes hold (a new writable array); NpyError for anything else."""
    dtype, shape, offset = parse_npy_header(data, where)
    count = _check_size(where, len(data) - offset, shape, dtype, False)
    flat = np.frombuffer(data, dtype=_storage(dtype), count=count, offset=offset).copy()
    return _finish(flat, dtype, shape)


def read_npy(path: str) -> np.ndarray:
    """The array of a .npy file; NpyError (one line, naming the file) for anything else."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(8 + 4 + MAX_HEADER_LEN)
            dtype, shape, offset = parse_npy_header(head, path)
            count = _check_size(path, size - offset, shape, dtype, False)
            f.seek(offset)
            flat = np.fromfile(f, dtype=_storage(dtype), count=count)
    except NpyError:
        raise
    except (OSError, MemoryError, ValueError) as e:
        raise NpyError(f"{path}: cannot read: {_oserror(e)}") from None
    if flat.size != count:  # the file shrank while it was read
        raise NpyError(f"{path}: .npy data truncated while reading")
    return _finish(flat, dtype, shape)


def read_bin(path: str, dtype: Any, shape: Sequence[int]) -> np.ndarray:
    """A raw little-endian C-order file of ``shape`` and ``dtype`` (a name or a numpy dtype)."""
    dt = dtype_from_name(dtype) if isinstance(dtype, str) else DTYPES[dtype_name(dtype)]
    shape = tuple(int(d) for d in shape)
    _check_dims(shape, dt, path)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            count = _check_size(path, size, shape, dt, True)
            flat = np.fromfile(f, dtype=_storage(dt), count=count)
    except NpyError:
        raise
    except (OSError, MemoryError, ValueError) as e:
        raise NpyError(f"{path}: cannot read: {_oserror(e)}") from None
    if flat.size != count:
        raise NpyError(f"{path}: raw data truncated while reading")
    return _finish(flat, dt, shape)


def read_array(path: str, dtype: Optional[str] = None, shape: Optional[Sequence[int]] = None) -> np.ndarray:
    """A ``.npy`` file (by its extension; ``dtype`` and ``shape``, when given, must match it) or a
    raw file of ``dtype`` and ``shape`` (both required)."""
    if path.lower().endswith(".npy"):
        arr = read_npy(path)
        if dtype is not None and dtype_name(arr.dtype) != dtype_name(dtype_from_name(dtype)):
            raise NpyError(f"{path}: holds {dtype_name(arr.dtype)}, but {dtype_name(dtype_from_name(dtype))} "
                           "was asked for")
        if shape is not None and tuple(shape) != arr.shape:
            raise NpyError(f"{path}: has shape {arr.shape}, but {tuple(shape)} was asked for")
        return arr
    if dtype is None or shape is None:
        missing = " and ".join(n for n, v in (("a dtype", dtype), ("a shape", shape)) if v is None)
        raise NpyError(f"{path}: a raw file needs {missing} (--dtype/--shape)")
    return read_bin(path, dtype, shape)


def _oserror(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def _le_contiguous(arr: np.ndarray) -> np.ndarray:
    name = dtype_name(arr.dtype)
    dt = DTYPES[name]
    out = np.ascontiguousarray(arr, dtype=dt)
    return out.view("<u2") if name == "bfloat16" else out


def dumps_npy(arr: np.ndarray) -> bytes:
    """The bytes of a version 1.0 .npy file of ``arr`` (C order, little-endian; bfloat16 as '<V2'),
    what numpy.save writes for the same array."""
    arr = np.asarray(arr)
    name = dtype_name(arr.dtype)
    descr = {"float16": "<f2", "float32": "<f4", "float64": "<f8", "bfloat16": "<V2"}[name]
    header = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, tuple(arr.shape))
    # numpy pads the header with spaces and a newline so that the data starts 64-byte aligned.
    total = len(MAGIC) + 2 + 2 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    if len(header) > 65535:  # pragma: no cover - only for shapes of thousands of dimensions
        prefix = MAGIC + bytes([2, 0]) + struct.pack("<I", len(header))
    else:
        prefix = MAGIC + bytes([1, 0]) + struct.pack("<H", len(header))
    return prefix + header.encode("latin1") + _le_contiguous(arr).tobytes()


def dumps_bin(arr: np.ndarray) -> bytes:
    """The bytes of a raw file of ``arr``: its values alone, little-endian, C order."""
    return _le_contiguous(np.asarray(arr)).tobytes()


def write_npy(path: str, arr: np.ndarray) -> None:
    """Writes ``arr`` as a .npy file (see :func:`dumps_npy`)."""
    write_files([(path, dumps_npy(arr))])


def write_bin(path: str, arr: np.ndarray) -> None:
    """Writes ``arr``'s values alone: little-endian, C order, as ``fwrite`` of the buffer would."""
    write_files([(path, dumps_bin(arr))])


def write_files(files: Sequence[Tuple[str, Any]]) -> None:
    """Writes every ``(path, data)`` or none of them (``data``: bytes, or a function of no
    arguments returning them, called when that file is written, so that one file's bytes at a
    time are held). Each goes to a new temporary file in its destination's folder, and only when
    all are written are they renamed over their paths (a rename within one file system replaces
    the file at once). A failure removes the temporaries and raises NpyError naming the path,
    leaving every destination as it was."""
    temps: list = []
    try:
        for path, data in files:
            temps.append((_write_temporary(path, data() if callable(data) else data), path))
        for _, path in temps:  # what a rename would fail on, before any rename
            if os.path.isdir(path):
                raise NpyError(f"{path}: cannot write: Is a directory")
        for temp, path in temps:
            try:
                os.replace(temp, path)
            except OSError as e:
                raise NpyError(f"{path}: cannot write: {_oserror(e)}") from None
    finally:
        for temp, _ in temps:
            if os.path.lexists(temp):
                try:
                    os.unlink(temp)
                except OSError:
                    pass


def _write_temporary(path: str, data: bytes) -> str:
    """A new file beside ``path`` (a hidden name of its own) holding ``data``; its name."""
    folder, name = os.path.split(path)
    for _ in range(100):  # a name another writer took: try another
        temp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for open()
        except FileExistsError:
            continue
        except OSError as e:
            raise NpyError(f"{path}: cannot write: {_oserror(e)}") from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except OSError as e:
            os.unlink(temp)
            raise NpyError(f"{path}: cannot write: {_oserror(e)}") from None
        return temp
    raise NpyError(f"{path}: cannot write: no free temporary name beside it")
