"""``aclnn-bce`` / ``python -m aclnn_bce``: golden data for NPU kernels and the comparison with it.

    aclnn-bce golden  --op OP --input X --target Y [--weight W] [--pos-weight P] [--grad-output G]
                      [--reduction none|mean|sum] [--dtype D --shape S] [--<operand>-dtype D ...]
                      [--out F] [--out-npy F] [--out-bin F] [--grad-out F ...]
    aclnn-bce gen     --op OP --shape S --dtype D --outdir DIR [--seed N] [--reduction R] ...
    aclnn-bce compare OUTPUT GOLDEN [--dtype D --shape S] [--rtol R] [--ratio Q] [--floor F]

Exit status: 0 success (compare: PASS), 1 compare: FAIL, 2 a usage or file error (one line on
stderr, never a traceback). docs/golden.md is the manual.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import golden as _golden
from .npy import NpyError, dtype_from_name, dtype_name, dumps_bin, dumps_npy, parse_shape, read_array, write_files

PROG = "aclnn-bce"
DTYPE_CHOICES = ("float16", "bfloat16", "float32", "float64")
# The operands of the golden command: (option stem, key of compute_golden).
OPERANDS = (("input", "input"), ("target", "target"), ("weight", "weight"), ("pos-weight", "pos_weight"),
            ("grad-output", "grad_output"))


class UsageError(Exception):
    """A command line that does not fit (exit status 2, one line)."""


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # an option is named in full
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # one line, no usage dump: the message names the option
        raise UsageError(message)


def _shape_arg(text: str):
    try:
        return parse_shape(text)
    except NpyError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _dtype_arg(text: str) -> str:
    try:
        return dtype_name(dtype_from_name(text))
    except NpyError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _float_arg(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not np.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0: {text!r}")
    return v


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Golden data for NPU kernels of binary cross entropy with logits and on "
                f"probabilities ({', '.join(_golden.OPS)}), and the comparison of an NPU's output with it.",
                epilog="Exit status: 0 ok / PASS, 1 FAIL, 2 usage or file error. See docs/golden.md.")
    sub = p.add_subparsers(dest="command", metavar="{golden,gen,compare}", parser_class=_Parser)

    g = sub.add_parser("golden", help="compute golden outputs from input files",
                       description="Compute an operator's golden outputs from .npy or raw .bin inputs.")
    g.add_argument("--op", required=True, choices=_golden.OPS)
    g.add_argument("--reduction", default="mean", choices=("none", "mean", "sum"))
    helps = {"input": "the logits (self; the probabilities for the operators on probabilities: "
                      + ", ".join(op for op in _golden.OPS if _golden.takes_probabilities(op)) + ")", "target": "the labels (target-backward reads only its dtype and shape)",
             "weight": "optional weight, broadcast to input", "pos-weight": "optional pos_weight, broadcast to input",
             "grad-output": "the incoming gradient: required by "
                            + ", ".join(op for op in _golden.OPS if _golden.needs_grad_output(op)) + "; fused takes an "
                            "optional one-element one"}
    for stem, _ in OPERANDS:
        g.add_argument(f"--{stem}", required=stem in ("input", "target"), metavar="FILE",
                       help=helps[stem] + " (.npy, or raw with a dtype and shape)")
    g.add_argument("--dtype", type=_dtype_arg, metavar="D", help="dtype of every raw input file "
                   "(float16, bfloat16, float32, float64)")
    g.add_argument("--shape", type=_shape_arg, metavar="S", help="shape of every raw input file, e.g. 32,32 "
                   "(scalar, '' or () for 0-dim)")
    for stem, _ in OPERANDS:
        g.add_argument(f"--{stem}-dtype", type=_dtype_arg, metavar="D", help=f"dtype of a raw {stem} file "
                       "(instead of --dtype); for a .npy file it must match")
        g.add_argument(f"--{stem}-shape", type=_shape_arg, metavar="S", help=f"shape of a raw {stem} file "
                       "(instead of --shape); for a .npy file it must match")
    _add_golden_options(g)
    g.add_argument("--out", action="append", default=[], metavar="FILE",
                   help="write the output (fused: the loss); .npy by extension, raw otherwise; repeatable")
    g.add_argument("--out-npy", action="append", default=[], metavar="FILE", help="write the output as .npy")
    g.add_argument("--out-bin", action="append", default=[], metavar="FILE", help="write the output raw")
    g.add_argument("--grad-out", action="append", default=[], metavar="FILE",
                   help="fused only: write the gradient (.npy by extension, raw otherwise); repeatable")
    g.add_argument("--grad-out-npy", action="append", default=[], metavar="FILE", help="fused: the gradient as .npy")
    g.add_argument("--grad-out-bin", action="append", default=[], metavar="FILE", help="fused: the gradient raw")
    g.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")

    n = sub.add_parser("gen", help="generate a random case: inputs and golden outputs",
                       description="Generate seeded random inputs of a shape and dtype, and their golden "
                                   "outputs, into a directory (with case.json describing them).")
    n.add_argument("--op", required=True, choices=_golden.OPS)
    n.add_argument("--shape", required=True, type=_shape_arg, metavar="S", help="input's shape, e.g. 32,32")
    n.add_argument("--dtype", default="float32", type=_dtype_arg, metavar="D", help="dtype of every input "
                   "(default float32)")
    n.add_argument("--reduction", default="mean", choices=("none", "mean", "sum"))
    n.add_argument("--seed", type=int, default=0)
    n.add_argument("--with-weight", action="store_true", help="also a weight (input's shape)")
    n.add_argument("--with-pos-weight", action="store_true", help="also a pos_weight ([C], the last dimension)")
    n.add_argument("--with-grad-output", action="store_true", help="fused: also a (0-dim) grad_output")
    n.add_argument("--logit-scale", type=_float_arg, default=4.0, help="standard deviation of the logits (4)")
    n.add_argument("--hard-labels", action="store_true", help="labels 0/1 instead of uniform in [0, 1]")
    n.add_argument("--outdir", required=True, metavar="DIR")
    n.add_argument("--format", default="both", choices=("npy", "bin", "both"), help="file format (both)")
    _add_golden_options(n)
    n.add_argument("-q", "--quiet", action="store_true")

    c = sub.add_parser("compare", help="compare an NPU output with the golden",
                       description="Compare an output file with a golden file under the precision "
                                   "standard of the output's dtype; exit 0 PASS, 1 FAIL, 2 error.")
    c.add_argument("output", metavar="OUTPUT", help="the NPU's output (.npy, or raw with --dtype/--shape)")
    c.add_argument("golden", metavar="GOLDEN", help="the golden (.npy, or raw)")
    c.add_argument("--dtype", type=_dtype_arg, metavar="D", help="dtype of a raw OUTPUT (and of a raw GOLDEN)")
    c.add_argument("--shape", type=_shape_arg, metavar="S", help="shape of a raw OUTPUT (and of a raw GOLDEN)")
    c.add_argument("--golden-dtype", type=_dtype_arg, metavar="D", help="dtype of a raw GOLDEN if it differs")
    c.add_argument("--golden-shape", type=_shape_arg, metavar="S", help="shape of a raw GOLDEN if it differs")
    c.add_argument("--rtol", type=_float_arg, help="relative error threshold (default: the dtype's standard)")
    c.add_argument("--ratio", type=_float_arg, help="share of elements allowed over rtol (default: the standard)")
    c.add_argument("--floor", type=_float_arg, help="small-value floor of the relative error's denominator "
                   f"(default: {_golden.FLOOR_SCALE:g} * max|golden|, at least the smallest normal)")
    c.add_argument("--show", type=int, default=5, metavar="K", help="list the K worst elements (5)")
    return p


def _add_golden_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--precision", default="float64", choices=("float64", "native"),
                   help="float64 (default): compute in float64 and round once; native: as the operands' "
                        "dtypes compute (fp32 for fp16/bf16/fp32)")
    p.add_argument("--out-dtype", type=_dtype_arg, metavar="D",
                   help="dtype of the golden outputs (default: target's dtype, the operator's output dtype)")


def _files(arr: np.ndarray, paths_auto: Sequence[str], paths_npy: Sequence[str],
           paths_bin: Sequence[str]) -> List[Tuple[str, Callable[[], bytes]]]:
    """(path, bytes to write) for each output file asked for; .npy by extension for paths_auto."""
    def npy_bytes() -> bytes:
        return dumps_npy(arr)

    def bin_bytes() -> bytes:
        return dumps_bin(arr)

    files = [(path, npy_bytes if path.lower().endswith(".npy") else bin_bytes) for path in paths_auto]
    files += [(path, npy_bytes) for path in paths_npy]
    files += [(path, bin_bytes) for path in paths_bin]
    return files


def _describe(name: str, arr: np.ndarray) -> str:
    a = np.asarray(arr).astype(np.float64)
    finite = a[np.isfinite(a)]
    stats = f", min {finite.min():.6g}, max {finite.max():.6g}" if finite.size else ""
    return f"{name}: shape {tuple(arr.shape)}, {dtype_name(arr.dtype)}{stats}"


def cmd_golden(args) -> int:
    operands: Dict[str, Optional[np.ndarray]] = {}
    for stem, key in OPERANDS:
        path = getattr(args, stem.replace("-", "_"))
        if path is None:
            if getattr(args, f"{stem.replace('-', '_')}_dtype") or getattr(args, f"{stem.replace('-', '_')}_shape") is not None:
                raise UsageError(f"--{stem}-dtype/--{stem}-shape given without --{stem}")
            operands[key] = None
            continue
        own_dtype = getattr(args, f"{stem.replace('-', '_')}_dtype")
        own_shape = getattr(args, f"{stem.replace('-', '_')}_shape")
        if path.lower().endswith(".npy"):  # the defaults are for raw files; the file's own options must match
            operands[key] = read_array(path, own_dtype, own_shape)
        else:
            operands[key] = read_array(path, own_dtype or args.dtype,
                                       own_shape if own_shape is not None else args.shape)
    names = _golden.output_names(args.op)
    two_outputs = len(names) > 1  # fused: the loss and the gradient
    if not two_outputs and (args.grad_out or args.grad_out_npy or args.grad_out_bin):
        raise UsageError(f"--grad-out* is for --op fused (the gradient); --op {args.op} writes with --out*")
    outs_main = (args.out, args.out_npy, args.out_bin)
    outs_grad = (args.grad_out, args.grad_out_npy, args.grad_out_bin)
    if not any(outs_main) and not any(outs_grad):
        raise UsageError("no output file: give --out FILE (or --out-npy / --out-bin" +
                         (", --grad-out" if two_outputs else "") + ")")
    results = _golden.compute_golden(args.op, operands["input"], operands["target"], operands["weight"],
                                     operands["pos_weight"], operands["grad_output"], args.reduction,
                                     args.precision, args.out_dtype)
    report, files = [], []
    for name, paths in zip(names, (outs_main, outs_grad)):
        these = _files(results[name], *paths)
        if these:
            files += these
            report.append(f"{_describe(name, results[name])} -> {', '.join(path for path, _ in these)}")
    write_files(files)  # all of them or none
    if not args.quiet:
        print(f"golden {args.op} (reduction {args.reduction}, precision {args.precision})")
        for line in report:
            print("  " + line)
    return 0


_GOLDEN_FILES = {"loss": "golden_loss", "grad_input": "golden_grad_input", "grad_target": "golden_grad_target"}


def cmd_gen(args) -> int:
    if args.with_grad_output and (_golden.needs_grad_output(args.op) or not _golden.takes(args.op, "grad_output")):
        raise UsageError("--with-grad-output is for --op fused (the backward operators always get one)")
    for option, role in (("--with-weight", "weight"), ("--with-pos-weight", "pos_weight")):
        if getattr(args, option[2:].replace("-", "_")) and not _golden.takes(args.op, role):
            raise UsageError(f"{option}: --op {args.op} takes no {role}")
    _check_case_memory(args)
    case = _golden.generate_inputs(args.op, args.shape, args.dtype, args.seed, args.reduction,
                                   args.with_weight, args.with_pos_weight, args.with_grad_output,
                                   args.logit_scale, args.hard_labels)
    results = _golden.compute_golden(args.op, case["input"], case["target"], case.get("weight"),
                                     case.get("pos_weight"), case.get("grad_output"), args.reduction,
                                     args.precision, args.out_dtype)
    exts = {"npy": (".npy",), "bin": (".bin",), "both": (".npy", ".bin")}[args.format]
    manifest = {"op": args.op, "reduction": args.reduction, "seed": args.seed, "dtype": args.dtype,
                "precision": args.precision, "inputs": {}, "outputs": {}}
    lines, files = [], []
    for kind, items in (("inputs", case.items()), ("outputs", ((_GOLDEN_FILES[k], v) for k, v in results.items()))):
        for name, arr in items:
            names = [name + ext for ext in exts]
            for file in names:
                files.append((os.path.join(args.outdir, file),
                              (lambda a=arr: dumps_npy(a)) if file.endswith(".npy") else (lambda a=arr: dumps_bin(a))))
            manifest[kind][name] = {"dtype": dtype_name(arr.dtype), "shape": list(arr.shape), "files": names}
            lines.append(f"{_describe(name, arr)} -> {', '.join(names)}")
    manifest["compare"] = [_compare_hint(args.outdir, name, entry) for name, entry in manifest["outputs"].items()]
    files.append((os.path.join(args.outdir, "case.json"), (json.dumps(manifest, indent=2) + "\n").encode()))
    created = not os.path.isdir(args.outdir)
    try:
        os.makedirs(args.outdir, exist_ok=True)
    except OSError as e:
        raise NpyError(f"{args.outdir}: cannot create the directory: {e.strerror or e}") from None
    try:
        write_files(files)  # all of them or none
    except BaseException:
        if created:  # the folder this command made goes too (it is empty: nothing was renamed into it)
            try:
                os.rmdir(args.outdir)
            except OSError:
                pass
        raise
    if not args.quiet:
        print(f"gen {args.op} (reduction {args.reduction}, seed {args.seed}) in {args.outdir}:")
        for line in lines:
            print("  " + line)
        for hint in manifest["compare"]:
            print("  check: " + hint)
    return 0


def _check_case_memory(args) -> None:
    """Refuses (UsageError) a case that cannot be made: a shape no array can have, or one whose
    arrays need more memory than this process may use, with the numbers, before anything is
    allocated."""
    shape_text = ",".join(map(str, args.shape)) or "scalar"
    elements = 1
    for d in args.shape:
        elements *= d
    need = _golden.case_bytes(args.op, args.shape, args.dtype, args.reduction, args.with_weight,
                              args.with_pos_weight, args.with_grad_output)
    if need is None:
        raise UsageError(f"--shape {shape_text}: {elements} elements is too large for any array "
                         "(numpy counts bytes in 64 bits)")
    limit, what = _memory_limit()
    if limit is not None and need > limit:
        raise UsageError(f"--shape {shape_text}: {elements} elements need about {_gib(need)} for the case's "
                         f"arrays, more than {what} ({_gib(limit)})")


def _gib(n: int) -> str:
    return f"{n / 2**30:.0f} GiB" if n >= 2**34 else f"{n / 2**30:.3g} GiB"


def _memory_limit() -> Tuple[Optional[int], str]:
    """(the most bytes this process may allocate, what limits it): the machine's physical
    memory, or the process's RLIMIT_AS / RLIMIT_DATA where lower; (None, '') where unknown."""
    limit, what = None, ""
    try:
        limit, what = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "the machine's memory"
    except (ValueError, OSError, AttributeError):
        pass
    try:
        import resource

        for name in ("RLIMIT_AS", "RLIMIT_DATA"):
            soft = resource.getrlimit(getattr(resource, name))[0]
            if soft != resource.RLIM_INFINITY and (limit is None or soft < limit):
                limit, what = soft, f"the process's {name}"
    except (ImportError, ValueError, OSError, AttributeError):
        pass
    return limit, what


def _compare_hint(outdir: str, name: str, entry: dict) -> str:
    """The compare command for an output, as a shell runs it: every word quoted (shlex), a 0-dim
    shape spelled 'scalar'."""
    golden = os.path.join(outdir, entry["files"][-1])
    npu = name.replace("golden_", "npu_") + ".bin"
    shape = ",".join(map(str, entry["shape"])) or "scalar"
    return shlex.join([PROG, "compare", npu, golden, "--dtype", entry["dtype"], "--shape", shape])


def cmd_compare(args) -> int:
    out_npy = args.output.lower().endswith(".npy")
    gold_npy = args.golden.lower().endswith(".npy")
    output = golden = None
    if out_npy:
        output = read_array(args.output)
    if gold_npy:
        golden = read_array(args.golden)
    if not out_npy:
        ref = golden
        dtype = args.dtype or (dtype_name(ref.dtype) if ref is not None else None)
        shape = args.shape if args.shape is not None else (ref.shape if ref is not None else None)
        output = read_array(args.output, dtype, shape)
    if not gold_npy:
        dtype = args.golden_dtype or args.dtype or dtype_name(output.dtype)
        shape = args.golden_shape if args.golden_shape is not None else (
            args.shape if args.shape is not None else output.shape)
        golden = read_array(args.golden, dtype, shape)
    if output.shape != golden.shape:
        raise UsageError(f"shape mismatch: {args.output} has shape {output.shape}, {args.golden} has {golden.shape}")
    res = _golden.compare(output, golden, args.rtol, args.ratio, args.floor, max(args.show, 0))
    print(_golden.format_report(res, args.output, args.golden))
    return 0 if res.passed else 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command line ``argv`` (default: sys.argv[1:]); returns the exit status."""
    parser = build_parser()
    for stream in (sys.stdout, sys.stderr):  # a path that the terminal's encoding cannot show
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass
    try:
        try:
            args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        except SystemExit as e:  # --help
            return e.code if isinstance(e.code, int) else 0
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        return {"golden": cmd_golden, "gen": cmd_gen, "compare": cmd_compare}[args.command](args)
    except UsageError as e:
        _error(str(e))
    except (NpyError, _golden.GoldenError) as e:
        _error(str(e))
    except KeyboardInterrupt:
        _error("interrupted")
    except MemoryError:  # not a bug of this tool: the problem is larger than the memory at hand
        _error("not enough memory for this command (smaller shapes, or a machine with more memory)")
    except Exception as e:  # never a traceback: a bug of this tool, reported on one line
        if os.environ.get("ACLNN_BCE_TRACEBACK"):
            raise
        _error(f"internal error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    return 2


def _error(message: str) -> None:
    text = " ".join(message.split("\n"))
    print(f"{PROG}: error: {text}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
