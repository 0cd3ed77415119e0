#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets (fuzz/corpus/<target>/<name>).

Each seed is the byte string that the target's decoder (fuzz_input.h, fuzz_create_tensor.cpp,
fuzz_bce_op.cpp) turns into one chosen call: the Encoder below mirrors the decoder's choices, one
method per decision, in the decoder's order. A drift between the two only changes what a seed
means, never whether it is a valid input (every byte string is).

    python3 fuzz/make_corpus.py          # rewrites fuzz/corpus/
"""
import os
import shutil
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# Mirrors of the decoder's tables (fuzz_input.h).
EDGES = ["-1", "-2", "min", "max", "max-1", "max/2", "max/2+1", "max/3+1", "max/4+1", "max/8+1",
         "2^31-1", "2^31", "2^31+1", "2^32-1", "2^32", "2^32+1", "2^40", "2^61", "2^62", "2^62+1",
         "sqrt2^63", "65536", "65537", "4096", "-2^31"]
FLOATS = {"fp32": 0, "fp16": 1, "bf16": 2, "fp64": 3}
ALL_DTYPES = ["undefined", "fp32", "fp16", "int8", "int32", "uint8", "int16", "uint16", "uint32", "int64",
              "uint64", "fp64", "bool", "string", "complex64", "complex128", "bf16", "int4", "uint1",
              "complex32", "5", "14", "15", "26", "28", "40", "63", "-2", "-64"]
ALL_FORMATS = ["undefined", "nchw", "nhwc", "nd", "nc1hwc0", "fractal_z", "nc1hwc0_c04", "hwcn", "ndhwc",
               "fractal_nz", "ncdhw", "ndc1hwc0", "fractal_z_3d", "nc", "ncl", "5", "50", "63", "-2", "-64"]


def table_selector(table, name, first=224):
    """The byte >= first that picks table[name] as `selector % len(table)`."""
    index = table.index(name)
    selector = first + (index - first) % len(table)
    assert first <= selector < 256 and selector % len(table) == index
    return selector


class Encoder:
    def __init__(self):
        self.out = bytearray()

    def byte(self, b):
        self.out.append(b & 0xFF)

    def below(self, value, n):  # decoder: Byte() % n == value
        assert 0 <= value < n
        self.byte(value)

    def one_in(self, hit, n):  # decoder: Byte() % n == n - 1
        self.byte(n - 1 if hit else 0)

    def u64(self, v):
        self.out += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)

    def i64(self, v):
        """InterestingI64: small values 0..8, named edges, or a raw 64-bit value."""
        if isinstance(v, str):
            self.byte(160 + (EDGES.index(v) - 160) % len(EDGES))
        elif 0 <= v < 9:
            self.byte(v)
        else:
            self.byte(240)
            self.u64(v)

    def dtype(self, name):
        if name in FLOATS:
            self.byte(FLOATS[name])
        else:
            self.byte(table_selector(ALL_DTYPES, name))

    def format(self, name="nd"):
        self.byte(0 if name == "nd" else table_selector(ALL_FORMATS, name))


def write(target, name, data):
    directory = os.path.join(ROOT, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(bytes(data))


# ---------------------------------------------------------------------------------------------
# create_tensor: count, dims, strides?, offset, dtype, format, storage, null flags
# ---------------------------------------------------------------------------------------------
def create_tensor(dims, strides=None, offset=0, dtype="fp32", fmt="nd", storage=("view",), dims_null=False,
                  storage_null=False, data_null=False, count=None):
    e = Encoder()
    n = len(dims) if count is None else count
    if n < 10:
        e.byte(n)
    elif n < 40:
        e.byte(200 + (n - 200) % 40)
    else:
        e.byte(250)
        e.u64(n)
    for d in dims:
        e.i64(d)
    e.below(1 if strides is None else 0, 3)
    if strides is not None:
        for s in strides:
            e.i64(s)
    e.i64(offset)
    e.dtype(dtype)
    e.format(fmt)
    if storage[0] == "one":
        e.below(0, 4)
        e.i64(storage[1])
    elif storage[0] == "view":
        e.below(1, 4)
    else:  # ("dims", [..])
        e.below(2, 4)
        e.byte(len(storage[1]))
        for d in storage[1]:
            e.i64(d)
    e.one_in(dims_null, 16)
    e.one_in(storage_null, 16)
    e.one_in(data_null, 8)
    return e.out


CREATE_TENSOR_SEEDS = {
    "scalar": create_tensor([]),
    "contiguous_2x3": create_tensor([2, 3]),
    "contiguous_rank8": create_tensor([2, 1, 2, 1, 2, 1, 2, 2]),
    "strided_with_offset": create_tensor([3, 2], [1, 3], 2, storage=("one", 8)),
    "stride0_broadcast": create_tensor([4, 5], [0, 1], 0, storage=("one", 5)),
    "storage_too_small": create_tensor([4, 4], [5, 1], 0, storage=("one", 16)),
    "empty_with_huge_strides": create_tensor([0, "max"], ["max", "max"], 0, storage=("one", 0), data_null=True),
    "numel_overflow": create_tensor(["2^32", "2^32"], [0, 0], 0, storage=("one", 1)),
    "bytes_overflow": create_tensor(["2^62"], [0], 0, storage=("one", 1)),
    "storage_bytes_overflow": create_tensor([1], [1], 0, storage=("one", "2^62")),
    "past_2^31_stride0": create_tensor(["2^31+1"], [0], 0, dtype="fp16", storage=("one", 1)),
    "reach_overflow": create_tensor([2, 2], ["max", 1], 0, storage=("one", 16)),
    "huge_offset": create_tensor([1], [1], "max", storage=("one", 16)),
    "negative_dim": create_tensor([-1, 2], [1, 1], 0, storage=("one", 16)),
    "negative_stride": create_tensor([4], [-1], 3, storage=("one", 16)),
    "negative_offset": create_tensor([4], [1], -1, storage=("one", 16)),
    "negative_storage": create_tensor([4], [1], 0, storage=("dims", [4, -1])),
    "rank_33": create_tensor([1] * 33, None, 0, storage=("one", 1)),
    "rank_32": create_tensor([1] * 32, None, 0, storage=("one", 1)),
    "huge_count": create_tensor([1, 1], None, 0, count=2**64 - 1),
    "null_dims": create_tensor([2, 2], None, 0, dims_null=True),
    "null_storage_dims": create_tensor([2, 2], None, 0, storage_null=True),
    "null_data": create_tensor([2, 2], None, 0, data_null=True),
    "dtype_undefined": create_tensor([2], None, 0, dtype="undefined"),
    "dtype_int32": create_tensor([2], None, 0, dtype="int32"),
    "dtype_invalid_99": create_tensor([2], None, 0, dtype="63"),
    "dtype_complex128": create_tensor([2], None, 0, dtype="complex128"),
    "format_nchw": create_tensor([1, 2, 2, 2], None, 0, fmt="nchw"),
    "format_invalid": create_tensor([2, 2], None, 0, fmt="50"),
    "storage_2d_view": create_tensor([3, 4], [4, 1], 0, storage=("dims", [3, 4])),
}


# ---------------------------------------------------------------------------------------------
# bce_op: seed, reduction, self dims, six operands, alias, null flags, workspace, stream, repeat,
# share, destroyed; then (appended) the operator, the loss's one-element out, the fused call's
# gradOutput and gradInput
# ---------------------------------------------------------------------------------------------
def numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def encode_layout(e, rank, empty, kind="contiguous", storage_as_view=False):
    kinds = {"contiguous": 0, "offset": 1, "permuted": 2, "expanded": 3, "arbitrary": 4, "transposed": 5}
    k = kinds[kind]
    e.below(k, 7)
    if k == 2:
        for size in range(rank, 1, -1):
            e.below(size - 1, size)  # swap with the last place: a rotation
        for _ in range(rank):
            e.below(1, 3)  # padding 1
    if k == 3:
        for d in range(rank):
            e.below(d % 2, 2)
    if k == 4:
        for d in range(rank):
            e.below(1, 6)  # every stride 1: elements share memory
    if k != 0:
        e.below(2, 5)  # offset
    if empty:
        e.below(1, 3)
    elif k != 0:
        e.below(1, 3)  # extra storage
    if k == 0 and not empty:
        e.below(1 if storage_as_view else 0, 2)


BROADCAST = {"same": 0, "scalar": 1, "one": 2, "last": 3, "ones": 4, "drop": 5, "changed": 7, "longer": 8}


def operand(e, slot, rank, dims, spec):
    """spec: dict(present, dtype, format, shape, layout, values, storage_as_view)."""
    required = slot in ("self", "target", "dout", "out")
    if required:
        e.one_in(not spec.get("present", True), 40)
    else:
        e.below(1 if spec.get("present", False) else 0, 2)
    e.dtype(spec.get("dtype", "fp32"))
    if slot == "out":
        e.below(7 if spec.get("out_dtype_free", False) else 0, 8)
    e.format(spec.get("format", "nd"))
    shape = spec.get("shape", "same")
    shape_dims = list(dims)
    if slot in ("self", "target", "out"):
        e.one_in(shape != "same", 16)
        if shape != "same":
            e.below(BROADCAST[shape], 9)
            shape_dims = broadcast_dims(e, dims, shape)
        if slot == "self":
            shape_dims = list(dims)
    else:
        e.below(BROADCAST[shape], 9)
        shape_dims = broadcast_dims(e, dims, shape)
    encode_layout(e, len(shape_dims), numel(shape_dims) == 0, spec.get("layout", "contiguous"),
                  spec.get("storage_as_view", False))
    e.below(spec.get("values", 0), 8)


def broadcast_dims(e, dims, shape):
    if shape == "same":
        return list(dims)
    if shape == "scalar":
        return []
    if shape == "one":
        return [1] if dims else []
    if shape == "last":
        return [dims[-1]] if dims else []
    if shape == "ones":
        return [1] * len(dims)
    if shape == "drop":
        drop = min(1, len(dims))
        e.below(drop, len(dims) + 1)
        rest = list(dims[drop:])
        for i in range(len(rest)):
            e.below(i % 2, 2)
            if i % 2:
                rest[i] = 1
        return rest
    if shape == "changed":
        base = list(dims) if dims else [2]
        e.below(0, len(base))
        e.below(0, 3)
        base[0] += 1
        return base
    return [2] + list(dims)  # longer


SHARE_INPUTS = ["dout", "self", "target", "weight", "pos_weight"]
SLOTS = ["dout", "self", "target", "weight", "pos_weight", "out"]


OPS = ["backward", "target_backward", "forward", "fused"]
GRAD_SHARE = {"none": 0, "self": 12, "out": 13, "own_view_over_out": 14}


def bce_op(seed, reduction, dims, ops, alias="none", null_ws=False, null_exec=False, workspace="exact",
           stream="default", repeatable=False, long_row=None, share="none", share_slot="self", shift=0,
           destroyed=None, op="backward", out_one=None, dout_null=False, dout_shape="scalar", grad=None,
           grad_share="none"):
    """share: "none", "same_view" (out the same view as share_slot) or "own_view" (out's own view
    over share_slot's storage, shift bytes in); destroyed: a slot passed as a destroyed handle.
    op: one of OPS. out_one: for the forward and the fused call with mean or sum, out's one element
    ("scalar" [] or "one" [1]; None keeps the decoded shape). dout_null, dout_shape ("scalar",
    "one", "ones" or "decoded"), grad (a spec of gradInput) and grad_share: the fused call's."""
    e = Encoder()
    e.u64(seed)
    if isinstance(reduction, int) and 0 <= reduction < 3:
        e.byte(reduction)
    else:
        e.byte(240)
        e.i64(reduction)
    rank = len(dims)
    e.byte(rank if rank <= 8 else 250 + (rank - 9))
    for d in dims[:-1] if long_row else dims:
        assert 0 <= d <= 5, "the decoder makes dims 0..5 (and a long last row of 7..66)"
        e.below(15 if d == 0 else d - 1, 16)
    if long_row:
        e.below(0, 16)
    e.one_in(long_row is not None, 8)
    if long_row:
        e.below(long_row - 7, 60)
        dims = list(dims[:-1]) + [long_row]
    for slot in ("self", "target", "dout", "weight", "pos_weight", "out"):
        operand(e, slot, rank, dims, ops.get(slot, {}))
    e.below({"none": 0, "self": 14, "dout": 15}[alias], 16)
    e.one_in(null_ws, 64)
    e.one_in(null_exec, 64)
    e.below({"exact": 0, "larger": 11, "smaller": 12, "null": 13, "zero": 14}[workspace], 16)
    e.below({"default": 0, "created": 10, "not_a_stream": 15}[stream], 16)
    e.below(3 if repeatable else 0, 4)
    e.below({"none": 0, "same_view": 11, "own_view": 13}[share], 16)
    e.below(SHARE_INPUTS.index(share_slot), 5)
    e.below(shift, 24)
    e.one_in(destroyed is not None, 24)
    if destroyed is not None:
        e.below(SLOTS.index(destroyed), 6)
    if op == "backward" and out_one is None and grad is None:
        return e.out  # the original decoding ends here: the rest reads zeros
    e.below(OPS.index(op), 4)
    if op in ("forward", "fused") and reduction in (1, 2):
        e.one_in(out_one is None, 8)
        if out_one is not None:
            e.below(0 if out_one == "scalar" else 1, 2)
            encode_layout(e, 0 if out_one == "scalar" else 1, False)
    if op == "fused":
        e.one_in(dout_null, 4)
        shape = {"scalar": 0, "one": 3, "ones": 5, "decoded": 6}[dout_shape]
        e.below(shape, 8)
        if shape < 6:
            encode_layout(e, {0: 0, 3: 1, 5: rank}[shape], False)
        spec = grad or {}
        e.one_in(not spec.get("present", True), 40)
        e.below(7 if "dtype" in spec else 0, 8)
        if "dtype" in spec:
            e.dtype(spec["dtype"])
        e.format(spec.get("format", "nd"))
        e.one_in(False, 16)
        encode_layout(e, rank, numel(dims) == 0, spec.get("layout", "contiguous"))
        e.below(GRAD_SHARE[grad_share], 16)
    return e.out


def uniform(dtype, **extra):
    spec = {"dtype": dtype}
    spec.update(extra)
    return {"self": dict(spec), "target": dict(spec), "dout": dict(spec, shape="scalar"), "out": dict(spec)}


def with_optional(base, weight=None, pos_weight=None):
    ops = {k: dict(v) for k, v in base.items()}
    if weight:
        ops["weight"] = dict(weight, present=True)
    if pos_weight:
        ops["pos_weight"] = dict(pos_weight, present=True)
    return ops


BCE_OP_SEEDS = {}
for dt in ("fp32", "fp16", "bf16", "fp64"):
    for red in (0, 1, 2):
        BCE_OP_SEEDS[f"{dt}_2x3_reduction{red}"] = bce_op(1 + red, red, [2, 3], uniform(dt))
BCE_OP_SEEDS.update({
    "scalar_self": bce_op(7, 1, [], uniform("fp32")),
    "empty_self": bce_op(8, 0, [3, 0, 2], uniform("fp16")),
    "rank8_all_optional": bce_op(9, 2, [2, 1, 2, 1, 2, 1, 2, 2], with_optional(
        uniform("bf16"), {"dtype": "bf16", "shape": "last"}, {"dtype": "bf16", "shape": "ones"})),
    "mixed_dtypes_weight_pos_weight": bce_op(10, 1, [4, 5], with_optional(
        {"self": {"dtype": "fp16"}, "target": {"dtype": "fp32"}, "dout": {"dtype": "bf16", "shape": "one"},
         "out": {"dtype": "fp32"}}, {"dtype": "fp64", "shape": "last"}, {"dtype": "fp16", "shape": "drop"})),
    "permuted_views": bce_op(11, 0, [3, 4, 5], {
        "self": {"dtype": "fp32", "layout": "permuted"}, "target": {"dtype": "fp32", "layout": "transposed"},
        "dout": {"dtype": "fp32", "layout": "offset"}, "out": {"dtype": "fp32", "layout": "permuted"}}),
    "expanded_inputs": bce_op(12, 2, [4, 5], {
        "self": {"dtype": "bf16", "layout": "expanded"}, "target": {"dtype": "bf16", "layout": "expanded"},
        "dout": {"dtype": "bf16", "shape": "same", "layout": "expanded"}, "out": {"dtype": "bf16"}}),
    "out_transposed": bce_op(13, 0, [5, 4], dict(uniform("fp16"), out={"dtype": "fp16", "layout": "transposed"})),
    "out_overlapping": bce_op(14, 0, [3, 4], dict(uniform("fp32"), out={"dtype": "fp32", "layout": "arbitrary"})),
    "long_row": bce_op(15, 1, [2, 3], uniform("fp32"), long_row=66),
    "in_place_self": bce_op(16, 0, [4, 4], uniform("fp32"), alias="self"),
    "in_place_dout": bce_op(17, 2, [4, 4], dict(uniform("fp16"), dout={"dtype": "fp16", "shape": "same"}),
                            alias="dout"),
    "special_values": bce_op(18, 0, [5, 3], {
        "self": {"dtype": "fp32", "values": 6}, "target": {"dtype": "fp32", "values": 6},
        "dout": {"dtype": "fp32", "values": 6, "shape": "last"}, "out": {"dtype": "fp32"}}),
    "huge_logits": bce_op(19, 0, [1], {"self": {"dtype": "fp64", "values": 7}, "target": {"dtype": "fp64"},
                                         "dout": {"dtype": "fp64"}, "out": {"dtype": "fp64"}},
                          long_row=16),
    "target_null": bce_op(20, 0, [2, 2], dict(uniform("fp32"), target={"present": False})),
    "out_null": bce_op(21, 0, [2, 2], dict(uniform("fp32"), out={"present": False})),
    "null_executor_pointer": bce_op(22, 0, [2, 2], uniform("fp32"), null_exec=True),
    "rank9": bce_op(23, 0, [1, 1, 1, 1, 1, 1, 1, 1, 2], uniform("fp32")),
    "dtype_int32_self": bce_op(24, 0, [3], dict(uniform("fp32"), self={"dtype": "int32"})),
    "out_dtype_differs": bce_op(25, 0, [3], dict(uniform("fp32"), out={"dtype": "fp16", "out_dtype_free": True})),
    "format_mismatch": bce_op(26, 0, [3], dict(uniform("fp32"), target={"dtype": "fp32", "format": "nchw"})),
    "target_shape_differs": bce_op(27, 0, [3, 2], dict(uniform("fp32"), target={"dtype": "fp32", "shape": "changed"})),
    "weight_not_broadcastable": bce_op(28, 0, [3, 2], with_optional(uniform("fp32"), {"dtype": "fp32",
                                                                                       "shape": "longer"})),
    "reduction_invalid": bce_op(29, 7, [3], uniform("fp32")),
    "workspace_too_small": bce_op(30, 0, [5, 5], dict(uniform("fp16"), out={"dtype": "fp16", "layout": "transposed"}),
                                  workspace="smaller"),
    "workspace_null": bce_op(31, 0, [5, 5], dict(uniform("bf16"), out={"dtype": "bf16", "layout": "transposed"}),
                             workspace="null"),
    "created_stream_repeatable": bce_op(32, 1, [5, 1], uniform("fp32"), stream="created", repeatable=True,
                                        long_row=40),
    "not_a_stream": bce_op(33, 0, [2, 2], uniform("fp32"), stream="not_a_stream"),
    # out and the inputs' memory (Note [Aliasing]).
    "out_shifted_one_element_over_self": bce_op(34, 0, [4, 4], uniform("fp32"), share="own_view", shift=4),
    "out_shifted_one_element_over_target": bce_op(35, 0, [4, 4], uniform("fp32"), share="own_view",
                                                  share_slot="target", shift=4),
    "fp32_out_over_half_of_fp16_self": bce_op(43, 0, [2, 3], dict(uniform("fp32"), self={"dtype": "fp16"}),
                                              share="own_view", shift=4),
    "out_after_self_in_one_buffer": bce_op(36, 1, [2, 2], uniform("fp32"), share="own_view", shift=16),
    "out_same_view_as_target": bce_op(37, 0, [4, 5], uniform("bf16"), share="same_view", share_slot="target"),
    "out_same_view_as_weight": bce_op(38, 2, [4, 5], with_optional(uniform("fp16"), {"dtype": "fp16", "shape": "same"}),
                                      share="same_view", share_slot="weight"),
    "out_same_view_as_pos_weight": bce_op(39, 1, [3, 5], with_optional(uniform("fp64"), None,
                                                                        {"dtype": "fp64", "shape": "same"}),
                                          share="same_view", share_slot="pos_weight"),
    "out_overlapping_weight_row": bce_op(40, 0, [3, 4], with_optional(uniform("fp32"), {"dtype": "fp32",
                                                                                          "shape": "last"}),
                                         share="own_view", share_slot="weight", shift=0),
    # Passed only with BCE_FUZZ_DESTROYED_HANDLES=1 (a plain replay makes an ordinary call).
    "destroyed_self": bce_op(41, 0, [2, 3], uniform("fp32"), destroyed="self"),
    "destroyed_out": bce_op(42, 0, [2, 3], uniform("fp32"), destroyed="out"),
})
# The target gradient, the forward and the fused call (the appended decisions).
for dt in ("fp32", "fp16", "bf16", "fp64"):
    for red in (0, 1, 2):
        one = None if red == 0 else "scalar"
        BCE_OP_SEEDS[f"forward_{dt}_2x3_reduction{red}"] = bce_op(100 + red, red, [2, 3], uniform(dt),
                                                                  op="forward", out_one=one)
        BCE_OP_SEEDS[f"fused_{dt}_2x3_reduction{red}"] = bce_op(110 + red, red, [2, 3], uniform(dt), op="fused",
                                                                out_one=one)
    BCE_OP_SEEDS[f"target_backward_{dt}_3x4"] = bce_op(120, 1, [3, 4], uniform(dt), op="target_backward")
BCE_OP_SEEDS.update({
    "target_backward_weight_pos_weight": bce_op(121, 0, [4, 5], with_optional(
        uniform("fp32"), {"dtype": "fp32", "shape": "last"}, {"dtype": "fp16", "shape": "drop"}),
                                                op="target_backward"),
    "target_backward_special_values": bce_op(122, 2, [5, 3], with_optional({
        "self": {"dtype": "fp32", "values": 6}, "target": {"dtype": "fp32", "values": 6},
        "dout": {"dtype": "fp32", "values": 6, "shape": "last"}, "out": {"dtype": "fp32"}},
        None, {"dtype": "fp32", "values": 6, "shape": "same"}), op="target_backward"),
    "forward_mean_out_one": bce_op(130, 1, [4, 5], with_optional(
        uniform("bf16"), {"dtype": "bf16", "shape": "last"}, {"dtype": "fp32", "shape": "ones"}),
                                   op="forward", out_one="one"),
    "forward_sum_out_self_shaped": bce_op(131, 2, [3, 4], uniform("fp32"), op="forward"),
    "forward_none_special_values": bce_op(132, 0, [5, 3], with_optional({
        "self": {"dtype": "fp32", "values": 6}, "target": {"dtype": "fp32", "values": 6}, "out": {"dtype": "fp32"}},
        {"dtype": "fp32", "values": 6, "shape": "last"}, None), op="forward"),
    "forward_none_huge_logits": bce_op(133, 0, [1], {"self": {"dtype": "fp32", "values": 7},
                                                     "target": {"dtype": "fp32"}, "out": {"dtype": "fp32"}},
                                       long_row=30, op="forward"),
    "forward_mean_out_over_self": bce_op(134, 1, [4, 4], uniform("fp32"), share="own_view", shift=8, op="forward",
                                         out_one="scalar"),
    "forward_none_in_place": bce_op(135, 0, [4, 4], uniform("fp16"), alias="self", op="forward"),
    "forward_empty_mean": bce_op(136, 1, [3, 0], uniform("fp32"), op="forward", out_one="one"),
    "forward_long_row_sum_permuted": bce_op(137, 2, [2, 3], {
        "self": {"dtype": "fp32", "layout": "permuted"}, "target": {"dtype": "fp16", "layout": "transposed"},
        "out": {"dtype": "fp16"}}, long_row=66, op="forward", out_one="scalar"),
    "fused_mean_dout_null": bce_op(140, 1, [4, 5], uniform("fp32"), op="fused", out_one="scalar", dout_null=True),
    "fused_none_dout_ones_weight": bce_op(141, 0, [3, 4], with_optional(
        uniform("fp32"), {"dtype": "fp64", "shape": "last"}, None), op="fused", dout_shape="ones"),
    "fused_sum_grad_in_place": bce_op(142, 2, [4, 4], uniform("fp32"), op="fused", out_one="one", grad_share="self"),
    "fused_grad_over_out": bce_op(143, 0, [2, 3], uniform("fp32"), op="fused", grad_share="out"),
    "fused_grad_own_view_over_out": bce_op(144, 1, [2, 3], uniform("bf16"), op="fused", out_one="scalar",
                                           grad_share="own_view_over_out"),
    "fused_dout_not_one_element": bce_op(145, 1, [2, 3], uniform("fp32"), op="fused", out_one="scalar",
                                         dout_shape="decoded"),
    "fused_empty_sum": bce_op(146, 2, [0, 3], uniform("fp16"), op="fused", out_one="scalar"),
    "fused_grad_transposed_fp16": bce_op(147, 0, [5, 4], uniform("fp16"), op="fused",
                                         grad={"layout": "transposed"}),
    "fused_grad_dtype_differs": bce_op(148, 0, [3], uniform("fp32"), op="fused", grad={"dtype": "fp64"}),
})


def main():
    for target in ("create_tensor", "bce_op"):  # only this script's folders (npy has its own script)
        if os.path.isdir(os.path.join(ROOT, target)):
            shutil.rmtree(os.path.join(ROOT, target))
    for name, data in CREATE_TENSOR_SEEDS.items():
        write("create_tensor", name, data)
    for name, data in BCE_OP_SEEDS.items():
        write("bce_op", name, data)
    print(f"{len(CREATE_TENSOR_SEEDS)} create_tensor seeds, {len(BCE_OP_SEEDS)} bce_op seeds in {ROOT}")


if __name__ == "__main__":
    main()
