# The Python half of storcheck's PyTorch backend (oracles/python_backend.h).
# python_backend.cpp embeds this file's text (CMake turns it into a C++
# string), after the emitted scripts' prelude and helpers (oracles/spelling.h),
# and calls four functions: sc_begin, sc_layouts, sc_step, sc_observe.
#
# Invariant: each step either runs through PyTorch's own API (the op table's
# python spelling, or PyTorch 1.13's FakeTensorMode / FakeTensorConverter /
# MetaConverter for conversions) or is refused with a reason before anything
# runs; this file never emulates an op.
import gc
import warnings
import weakref

from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode, UnsupportedFakeTensorException
from torch._subclasses.meta_utils import MetaConverter

try:  # PyTorch 1.13's memo keys (Note [Stale converter memo entries])
    from torch._subclasses.meta_utils import WeakTensorRefKey
    from torch.multiprocessing.reductions import StorageWeakRef
except ImportError:
    WeakTensorRefKey = StorageWeakRef = None

# PyTorch's notices that sparse CSR, CSC, BSR and BSC support is beta, printed
# on the first such tensor of a process: not findings, and noise in `storcheck
# bench` and the gate (the CSC one still reached pytorch.fake_matches_reference).
warnings.filterwarnings("ignore", message="Sparse (CSR|CSC|BSR|BSC) tensor support is in beta")

SC_DTYPES = [torch.float32, torch.float64, torch.int32, torch.int64, torch.uint8, torch.bool]
SC_DTYPE_INDEX = {d: k for k, d in enumerate(SC_DTYPES)}
SC_LAYOUTS = [torch.strided, torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr,
              torch.sparse_bsc]  # oracles/observation.h Layout
SC_LAYOUT_INDEX = {l: k for k, l in enumerate(SC_LAYOUTS)}
SC_COMPRESSED = {torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc}
SC_MAX_DIMS = 16  # oracles/observation.h kMaxDims
lazy_clone.noted = True  # the emitted scripts' note on stdout is not for a backend


class ScRun:
    """One program's state: its variables, converters and allocations."""

    def __init__(self, names, max_tensor, max_program, max_reads):
        self.names = names
        self.v = {}  # variable name -> tensor (the steps' local namespace)
        self.mode = FakeTensorMode()  # `fake`, `fake_from_meta`: PyTorch's FakeTensorConverter
        self.meta = MetaConverter()   # `meta`: PyTorch's MetaConverter
        self.max_tensor, self.max_program, self.total = max_tensor, max_program, 0
        self.max_reads = max_reads  # Limits::max_step_reads
        self.memo_step = False
        self.converted = []  # (real, conversion) weak references, per conversion step
        # Fakes a `fake` step got back from FakeTensorConverter's memo (weak
        # references): Note [Fakes a memo hit keeps alive].
        self.memo_hits = []
        # What the last step's conversion met beyond its outcome, for the
        # known-divergence list (Note [Stale converter memo entries]).
        self.step_note = ""


RUN = None
SC_CODE = {}  # compiled step spellings: Note [A bounded cache of compiled steps]
SC_CODE_MAX = 4096


# Note [A bounded cache of compiled steps]
# Most steps' spellings are new (their variable names and literals differ
# from program to program): the cache took about 5 entries a program, for
# good. Cleared when full, it stays a bounded part of what a collection walks
# (Note [Freezing what earlier programs left]).
def sc_compiled(code):
    c = SC_CODE.get(code)
    if c is None:
        if len(SC_CODE) >= SC_CODE_MAX:
            SC_CODE.clear()
        c = SC_CODE[code] = compile(code, "<step>", "exec")
    return c


SC_PROGRAMS = 0  # programs begun in this process
SC_FREEZE_EVERY = 256


def sc_begin(names, max_tensor, max_program, max_reads, plant_strong_ref):
    global RUN, SC_PROGRAMS
    RUN = None  # the previous program's tensors and converters die first
    FOREIGN.clear()  # the from_blob and set_nonresizable helpers keep weak references per script
    NONRESIZABLE.clear()
    SC_PROGRAMS += 1
    if SC_PROGRAMS % SC_FREEZE_EVERY == 0:  # Note [Freezing what earlier programs left]
        gc.collect()
        gc.freeze()
    RUN = ScRun(list(names), max_tensor, max_program, max_reads)
    # Fault::kMemoStrongRef (impl/fault.h, test builds): the converters keep
    # every real tensor they convert, strongly, as a leaking memo would (F3).
    RUN.planted = [] if plant_strong_ref else None


# Note [Frozen startup objects]
# A full gc.collect() walks every object torch's import made (about 70 ms in
# PyTorch 1.13): too slow for one per memo_stats step. Those objects are
# moved to the permanent generation once, here, so that a collection walks
# only what the programs made (microseconds). Nothing a program creates is
# frozen while it runs (Note [Freezing what earlier programs left]), so the
# F3 checks see every cycle the programs leave.
gc.collect()
gc.freeze()


# Note [Freezing what earlier programs left]
# PyTorch 1.13 leaks every fake tensor that a FakeTensorConverter memo hit
# returned (Note [Fakes a memo hit keeps alive]), and with it its mode, its
# converters and their memos' finalizers: about 12 GC-tracked objects per
# program that converts a tensor twice, which no collection can free. Every
# collection walked them all (each sweep and memo_stats step runs one, and
# Python's own full collections come more often as they grow), so a run's
# throughput fell with its length: pytorch.eager_matches_libtorch (seed
# 1921) checked 2,000 programs in 5.4 s, 16,000 in 93 s and 40,000 in 954 s,
# with 80,000 tracked objects after 12,000 programs (now 16,000 in 30 s,
# with the bounded cache above). So every
# SC_FREEZE_EVERY programs, between two programs, a full collection frees
# what the earlier programs left that can be freed, and what survives is
# frozen as the startup objects are. A program's own objects are never
# frozen while it runs, so the F3 checks still see every cycle it leaves;
# the leaked objects' memory (a few KiB a program) stays with PyTorch 1.13.


def sc_is_meta(t):
    return t.is_meta or isinstance(t, FakeTensor)


def sc_is_sparse(t):
    return t.layout != torch.strided


def sc_parts(t):  # a sparse tensor's parts: COO indices, values; compressed, plain indices, values
    if t.layout == torch.sparse_coo:
        return [t._indices(), t._values()]
    if t.layout in (torch.sparse_csr, torch.sparse_bsr):
        return [t.crow_indices(), t.col_indices(), t.values()]
    return [t.ccol_indices(), t.row_indices(), t.values()]


def sc_undersized(t):  # needs more bytes than its storage holds (R2, R7); sparse: a part does
    if sc_is_meta(t):
        return False
    if sc_is_sparse(t):
        return any(sc_undersized(p) for p in sc_parts(t))
    return extent(t) * t.element_size() > storage(t).nbytes()


def sc_indices_invalid(t):
    """Note [Sparse indices written through an accessor] (torch_backend.cpp): PyTorch's own
    construction checks, re-run on the parts of a real sparse tensor."""
    try:
        if t.layout == torch.sparse_coo:
            torch._validate_sparse_coo_tensor_args(t._indices(), t._values(), t.shape)
        else:
            torch._validate_sparse_compressed_tensor_args(*sc_parts(t), t.shape, t.layout)
    except Exception:  # noqa: BLE001 - any failed check means invalid indices
        return True
    if t.layout != torch.sparse_coo:
        # 1.13 checks no index invariant when nnz is 0, but reads every range
        # [c[i], c[i+1]): each must lie within nnz (check_sparse_indices in C++).
        c, p = sc_parts(t)[0], sc_parts(t)[1]
        nnz = p.shape[-1]
        rows = c.reshape(-1, c.shape[-1]).tolist() if c.numel() else []
        for row in rows:
            for lo, hi in zip(row, row[1:]):
                if lo > hi or (lo < hi and (lo < 0 or hi > nnz)):
                    return True
    return False


def sc_layouts(ins):
    """Per input variable: (layout index, meta or fake, dtype index), for check_layouts
    (oracles/layout_policy.h)."""
    return tuple((SC_LAYOUT_INDEX[t.layout], sc_is_meta(t), SC_DTYPE_INDEX[t.dtype])
                 for t in (RUN.v[n] for n in ins))


def sc_stride(t):
    """t's strides. PyTorch 1.13's Tensor.stride() returns them as SymInts and reads a
    stride below -2**62 as a symbolic int's node pointer: a segfault. Such a stride comes
    from a wrapped contiguous stride, which only a numel-0 tensor has (any other fails
    the byte-size check first, S9; views that would scale a stride there raise):
    aten::stride.int, which returns the plain int64 but costs 50 times as much, reads those."""
    if t.numel() != 0:
        return t.stride()
    return tuple(torch.ops.aten.stride(t, d) for d in range(t.dim()))


def sc_shape(name):
    """expand's input sizes, for case 5 (expand_refusal in python_backend.cpp)."""
    return tuple(RUN.v[name].shape)


def sc_pair_geometry(ins):
    """Case 4 for copy_, add_out and mul_out (checked in C++: one_storage_hazard in
    python_backend.cpp): None unless both operands are strided tensors over one storage
    and not one tensor; else each one's (sizes, strides, offset, itemsize), their dtype
    indices, and whether the input is a real CPU tensor."""
    a, b = (RUN.v[n] for n in ins)
    if a is b or a.layout != torch.strided or b.layout != torch.strided \
            or storage(a)._cdata != storage(b)._cdata:
        return None
    geo = [(tuple(t.shape), tuple(sc_stride(t)), t.storage_offset(), t.element_size())
           for t in (a, b)]
    return (geo[0], geo[1], SC_DTYPE_INDEX[a.dtype], SC_DTYPE_INDEX[b.dtype],
            not sc_is_meta(b) and b.device.type == "cpu")


def sc_overlapping(t):  # two indices may reach one element
    dims = sorted((s, n) for n, s in zip(t.shape, sc_stride(t)) if n > 1)
    reach = 0
    for s, n in dims:
        if s <= reach:
            return True
        reach += (n - 1) * s
    return False


# Note [Steps the PyTorch backend refuses]
# storcheck's LibTorch backend applies policy checks before it calls LibTorch
# (Note [Torch backend policy checks] in torch_backend.cpp: limits, rank, S8,
# order-dependent writes, negative sizes) and restores clone paths of emptied
# tensors (R3). Plain PyTorch has none of them: it would allocate, read freed
# storage or run undefined writes. Rather than copy those rules, this backend
# refuses, before running anything, every step where one of them could
# apply; the Runner then ends the comparison there, as not comparable
# (Note [Step outcome rules] rule 5 in oracles/runner.h). The cases:
# 1) an allocation (estimated from the arguments, or numel * itemsize of the
#    input) beyond Limits, or one that would bring the run past them; a
#    split, chunk or unbind of more than 65,536 results, a resize_ whose
#    storage size overflows, and a transpose_ or as_strided_ whose numel
#    overflows before a size-0 dim (meta inputs too);
# 2) a result rank that could pass kMaxDims;
# 3) an input that needs more bytes than its storage holds, except for ops
#    that read no data (views other than reshape and flatten, conversions, drop,
#    storage resizes); steps with a meta or fake input too: FakeTensorMode's
#    error for a real input (copy_, add_out, set_, a constructor's part)
#    formats that input's elements, reading past its storage (a segfault);
# 4) add_, mul_, copy_, add_out or mul_out into an overlapping tensor, or
#    copy_, add_out or mul_out within one storage where the two operands
#    overlap in a way LibTorch does not detect (the LibTorch backend's S8
#    rules on their geometries, meta and fake too; checked in C++:
#    one_storage_hazard in python_backend.cpp);
# 5) negative sizes, and negative result indices of split, chunk and
#    unbind (checked in C++: negative_sizes() in python_backend.cpp); for
#    expand only a size LibTorch would take (below -1 in a size-1 or new
#    leading dim, or any negative one on a 0-dim tensor) unless ATen raises
#    first (expand_refusal() there, on sc_shape's sizes);
# 6) to_dense, or coalesce of an uncoalesced tensor, when a part is
#    undersized or the indices fail PyTorch's construction checks (a write
#    through an accessor: Note [Sparse indices written through an accessor]
#    in torch_backend.cpp). The accessors read nothing: no refusal;
# 7) split or chunk of a dim so large that PyTorch's own `dim_size +
#    split_size - 1` (or `+ chunks - 1`) overflows int64, or a piece's
#    slice does; slice or narrow whose offset, size or stride arithmetic
#    does (undefined behaviour in C++; split_arithmetic_overflows and
#    slice_arithmetic_overflows in impl/ops.h); sparse_coo_tensor whose
#    sparse_dim + dense_dim overflows (coo_dims_overflow in
#    oracles/layout_policy.h), and sparse_{csr,csc,bsr,bsc}_tensor of a size
#    INT64_MAX (compressed_dims_overflow; checked in C++); view_dtype to a
#    smaller item whose stride, size or offset scaling does
#    (view_dtype_arithmetic_overflows);
# 8) any step but drop on a tensor with a stride below -2**62 (a numel-0
#    tensor's wrapped contiguous stride): PyTorch 1.13's Python reads strides
#    as SymInts and dereferences such a value as a symbolic int's pointer;
#    set_ to a source with any negative (wrapped) stride, and view_dtype of
#    one (set_sizes_and_strides recomputes a negative stride with a signed
#    multiply that overflows).
# 9) meta or fake of a view that set_ moved off its base's storage: PyTorch
#    1.13's MetaConverter converts a view as a view of its autograd base
#    (t._base, which set_ does not change), so the result lands on the meta
#    storage of the base's old storage and aliases the base's conversions
#    instead of the conversions of the storage the view now uses (an F2
#    aliasing bug upstream, README "Fuzzing"; found by
#    pytorch.fake_matches_reference, seed 1603);
# 10) set_ of a tensor that a converter's memo holds (a meta or fake result):
#    PyTorch's converters convert every later view of the same real base as
#    a view of that memoized tensor, so set_ on it moves those conversions
#    to its new storage (found by pytorch.fake_matches_reference, seed 1604:
#    meta of a view of t0 aliased t1 = meta t0 after `set_ t1 t3`); the
#    reference's memo keeps the real storage's meta storage (F2).
# 11) set_nonresizable of a meta or fake tensor: Python marks a storage
#    non-resizable only through numpy() (the set_nonresizable helper in
#    oracles/spelling.cpp), which takes CPU tensors; LibTorch marks a meta
#    storage too.
# Layouts an op does not take are refused by the shared policy before this
# (check_layouts in C++, oracles/layout_policy.h), as on every backend.
# Steps on meta and fake tensors read and allocate nothing: no refusal but
# case 4's overlapping writes and add_out or mul_out within one storage,
# case 1's result lists and resize_ overflows,
# and case 7's index arithmetic, which the other backends refuse on meta inputs too.
SC_ALLOCATING = {"factory", "compute"}
SC_MAY_COPY = {"reshape", "flatten"}  # views that copy when the strides do not allow a view
SC_RESHAPING = {"reshape", "flatten", "contiguous", "clone", "clone_preserve_strides", "to", "add", "mul",
                "sum", "lazy_clone", "to_dense"}
SC_SPARSE_ACCESSORS = {"indices", "values", "crow_indices", "col_indices", "ccol_indices", "row_indices"}


SC_MAX_SPLIT_RESULTS = 65536  # impl/ops.h kMaxSplitResults


def sc_split_count(op, t, a, b):
    """The results split(a, dim=b), chunk(a, ...) or unbind(dim=a) would give, as
    oracles/torch_backend.cpp check_split_count counts them (0 when it cannot say)."""
    def size_of(dim):
        r = t.dim()
        return None if r == 0 or dim < -r or dim >= r else t.shape[dim]
    if op == "chunk":
        return a
    if op == "split":
        n = size_of(b) if a > 0 else None
        return 0 if n is None else (1 if n == 0 else (n - 1) // a + 1)
    n = size_of(a)
    return n or 0


SC_INT64_MAX = 2**63 - 1


def sc_slice_overflows(t, dim, start, end, step):
    """slice's offset, size or stride arithmetic past int64, after its clamps
    (slice_arithmetic_overflows in impl/ops.h)."""
    size, stride = t.shape[dim], sc_stride(t)[dim]
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = 0 if start < 0 else min(start, size)
    end = start if end < start else min(end, size)
    first = start * stride
    return any(abs(x) > SC_INT64_MAX for x in
               (first, t.storage_offset() + first, end - start + step - 1, stride * step))


def sc_view_dtype_overflows(t, new_itemsize):
    """view(dtype) to a smaller item whose scaling of the strides but the last, the last
    size or the offset passes int64 once PyTorch's checks pass
    (view_dtype_arithmetic_overflows in impl/ops.h)."""
    r, e = t.dim(), t.element_size()
    if r == 0 or e <= new_itemsize or sc_stride(t)[-1] != 1:
        return False
    ratio = e // new_itemsize
    xs = list(sc_stride(t)[:-1]) + [t.shape[-1], t.storage_offset()]
    return any(not -2**63 <= x * ratio <= SC_INT64_MAX for x in xs)


def sc_index_arithmetic_overflows(op, t, a, b, c=0, d=0):
    """Case 7: split(a, dim=b) or chunk(a, dim=b) whose index arithmetic, or
    that of a piece's slice, overflows int64 once PyTorch's argument checks
    pass; slice(dim=a, start=b, end=c, step=d) and narrow(dim=a, start=b,
    length=c) whose own does (impl/ops.h)."""
    r = t.dim()
    if op in ("slice", "narrow"):
        if r == 0 or a < -r or a >= r:
            return False
        n = t.shape[a]
        if op == "slice":
            return d > 0 and sc_slice_overflows(t, a, b, c, d)
        if b != n:
            if b < -n or b >= n:
                return False
            b = b + n if b < 0 else b
        return c >= 0 and b <= n - c and sc_slice_overflows(t, a, b, b + c, 1)
    if op not in ("split", "chunk") or r == 0 or a <= 0 or b < -r or b >= r:
        return False
    n = t.shape[b]
    if n + a - 1 > SC_INT64_MAX:
        return True
    split_size = (n + a - 1) // a if op == "chunk" else a
    if split_size == 0:
        return False
    if op == "chunk" and n + split_size - 1 > SC_INT64_MAX:
        return True
    count = 1 if n == 0 else (n - 1) // split_size + 1
    # PyTorch builds the pieces in order: a piece whose as_strided raises
    # ends the op before a later piece's arithmetic (set_strided_checks in
    # impl/ops.h; the LibTorch backend's check_split_arithmetic).
    for k in range(count):
        start, end = k * split_size, min(n, (k + 1) * split_size)
        if sc_slice_overflows(t, b, start, end, 1):
            return True
        if sc_piece_raises(t, b, start, end - start):
            return False
    return False


def sc_piece_raises(t, dim, start, length):
    """as_strided's checks on narrow(dim, start, length) of t: a negative
    (wrapped) stride, or elements past the storage's bytes."""
    if any(x < 0 for x in sc_stride(t)):
        return True
    sizes = list(t.shape)
    sizes[dim] = length
    if any(x == 0 for x in sizes):
        return False
    offset = t.storage_offset() + start * sc_stride(t)[dim]
    last = offset + sum((x - 1) * y for x, y in zip(sizes, sc_stride(t)))
    return (last + 1) * t.element_size() > storage(t).nbytes()


def sc_compressed_index_bytes(by_row, blocked):
    """Bytes of the largest index (the compressed indices, or the plain index
    of Note [The plain index of an empty input]) that converting a 0-element
    input to a compressed layout allocates, None when the reference's
    argument checks refuse it first or the input has elements (then
    check_step_reads bounds them)."""
    def count(t, bs):
        if t.numel() != 0 or t.dim() < 2:
            return None
        b0, b1 = (bs[0], bs[1]) if blocked else (1, 1)
        if blocked and (b0 <= 0 or b1 <= 0):
            return None
        rows, cols = t.shape[-2], t.shape[-1]
        if rows % b0 or cols % b1 or any(d == 0 for d in t.shape[:-2]):
            return None
        entries = (rows // b0 if by_row else cols // b1) + 1
        for d in t.shape[:-2]:
            entries *= d
        # Note [The plain index of an empty input] (impl/sparse.cpp): 1.13
        # also allocates an int64 index of the plain dim's positions, freed
        # within the step; the other backends refuse it past the limits too.
        plain = 0 if t.is_meta else (cols // b1 if by_row else rows // b0)
        return max(entries, plain) * 8
    return count


SC_COMPRESSED_INDEX_BYTES = {
    "to_sparse_csr": sc_compressed_index_bytes(True, False),
    "to_sparse_csc": sc_compressed_index_bytes(False, False),
    "to_sparse_bsr": sc_compressed_index_bytes(True, True),
    "to_sparse_bsc": sc_compressed_index_bytes(False, True),
}


# torch.add / torch.mul with out= (Note [out=] in impl/ops.cpp).
SC_SCALAR_OUT = ("add_out", "mul_out")


def sc_estimate(op, ts, alloc, out_itemsize):
    """Bytes a step may allocate (case 1): the arguments' estimate, a fresh copy of
    the input, or add_out's (mul_out's) out resized to the input's numel at out's offset."""
    est = alloc
    if op in SC_RESHAPING and ts:
        est = max(est, ts[0].numel() * (out_itemsize or ts[0].element_size()))
    if op in SC_SCALAR_OUT and len(ts) == 2 and ts[0].layout == torch.strided:
        est = max(est, (ts[1].numel() + ts[0].storage_offset()) * ts[0].element_size())
    return est


def sc_converters(R):
    """The memos of PyTorch's converters this run uses: FakeTensorMode's (its own and its
    MetaConverter's) and the plain MetaConverter's."""
    fc = R.mode.fake_tensor_converter
    return (fc, fc.meta_converter, R.meta)


# Note [Stale converter memo entries]
# PyTorch 1.13's MetaConverter memoizes each tensor it converts, and the base of
# each view it converts (meta_tensor(t._base) first), by the tensor object; it
# never looks at the entry again. After an in-place metadata change of the real
# tensor (set_ onto another storage, resize_, t_, as_strided_, ...) the entry is
# stale: converting the tensor returns the old conversion, and converting a view
# of it builds the view on the old conversion's storage (the reference, which
# converts a view without its base, converts both anew unless it converted the
# tensor itself). FakeTensorConverter's own memo (real tensor -> fake) is not
# checked: a hit returns the very fake F2 names, whatever in-place ops did to
# it since, on both sides. An entry is stale when its
# geometry is not the real tensor's, or its storage is not the conversion of
# the real tensor's storage in that converter's storage memo. sc_step notes it
# before a `meta` or `fake` conversion runs (it reads the memos, changes
# nothing): the known divergence pytorch-memo-stale-after-inplace-metadata-1.13
# matches a divergence of such a step alone (oracles/known_divergences.cpp).
#
# FakeTensorConverter's memo holds its fakes weakly (a WeakValueDictionary):
# once a real tensor's fake dies, the next `fake` of it misses there and makes
# a new fake from the MetaConverter's memo, which holds the meta conversion
# strongly, with the geometry of the conversion (an in-place metadata change
# of the dead fake is gone). F2 keeps the fake while its real tensor lives, as
# the reference does. sc_step notes that miss too, for the known divergence
# pytorch-fake-memo-weak-values-1.13.
def sc_memo_entry_stale(t, m, mc):
    if t.layout != torch.strided or m is None or m.layout != torch.strided:
        return False
    if tuple(t.shape) != tuple(m.shape) or sc_stride(t) != sc_stride(m) \
            or t.storage_offset() != m.storage_offset():
        return True
    ms = mc.storage_memo.get(StorageWeakRef(t.storage()))
    return ms is None or storage(ms)._cdata != storage(m)._cdata


def sc_stale_memo_note(op, t):
    """What a `meta` or `fake` of t meets in the converters' memos ("" when nothing of note)."""
    if op not in ("meta", "fake") or WeakTensorRefKey is None or t.layout != torch.strided \
            or sc_is_meta(t):
        return ""
    try:
        fc = RUN.mode.fake_tensor_converter
        mc = RUN.meta if op == "meta" else fc.meta_converter
        chain = [("the input", t)] + ([("its base", t._base)] if t._base is not None else [])
        for who, x in chain:
            if sc_memo_entry_stale(x, mc.tensor_memo.get(WeakTensorRefKey(x)), mc):
                return ("stale converter memo: " + who + " changed in place since PyTorch's "
                        "converter memoized it (Note [Stale converter memo entries])")
        key = WeakTensorRefKey(t)
        if op == "fake" and fc.tensor_memo.get(key) is None and mc.tensor_memo.get(key) is not None:
            return ("fake memo dropped: the input's fake died, and PyTorch's FakeTensorConverter "
                    "makes a new one from its MetaConverter's memo (Note [Stale converter memo "
                    "entries])")
    except (AttributeError, TypeError):  # another PyTorch's converters: nothing noted
        return ""
    return ""


# Note [Meta storages sized by set_]
# PyTorch 1.13's MetaConverter builds every meta tensor with set_(storage,
# offset, sizes, strides) on a fresh meta tensor, and 1.13's set_ on the meta
# device sets the meta storage's byte count to that tensor's extent
# (meta-set-sets-nbytes-1.13). So a new meta storage gets the extent of the
# first tensor converted over it (an emptied tensor, R2, its full extent; a
# tensor short of its storage's end a smaller one), and converting another
# tensor of a storage already converted resizes the shared meta storage
# again, under every conversion of that storage (shrinking one that an
# earlier resize_ of a fake had grown). F2 gives a new fake storage the real
# storage's byte count and leaves an existing one as it is. Around a `meta`
# or `fake` of a real strided tensor, sc_step reads the byte count of the
# converter's meta storage for the input's storage (memoized or not), and
# notes a result whose storage holds other bytes than F2's: "meta storage
# sized by set_: N bytes where F2 keeps K". The known divergence
# pytorch-meta-set-resizes-storage-1.13 matches a storage_nbytes difference
# of such a step alone, and only when one side reports N and the other K
# (oracles/known_divergences.cpp).
SC_SET_SIZED_NOTE = "meta storage sized by set_: "


def sc_meta_storage_bytes(op, t):
    """Bytes F2 gives the fake storage of t's storage at a `meta` or `fake` of t: those of
    the converter's memoized meta storage, else those of the real storage (None: not a
    conversion of a real strided tensor)."""
    if op not in ("meta", "fake") or WeakTensorRefKey is None or t.layout != torch.strided \
            or sc_is_meta(t):
        return None
    try:
        mc = RUN.meta if op == "meta" else RUN.mode.fake_tensor_converter.meta_converter
        ms = mc.storage_memo.get(StorageWeakRef(t.storage()))
    except (AttributeError, TypeError):  # another PyTorch's converters: nothing noted
        return None
    return storage(ms if ms is not None else t).nbytes()


def sc_set_sized_note(keeps, r):
    """The note when the conversion's result r does not hold the `keeps` bytes F2 gives."""
    if keeps is None or not isinstance(r, torch.Tensor) or r.layout != torch.strided:
        return ""
    n = storage(r).nbytes()
    if n == keeps:
        return ""
    return f"{SC_SET_SIZED_NOTE}{n} bytes where F2 keeps {keeps} (Note [Meta storages sized by set_])"


def sc_refusal(op, cat, ts, alloc, out_itemsize, a=0, b=0, c=0, d=0):
    # Case 8: PyTorch 1.13's Python reads strides as SymInts throughout (Tensor.stride(),
    # the converters, clone, transpose): one below -2**62 is taken for a symbolic int's node
    # pointer and dereferenced (a segfault, S8).
    if op != "drop" and any(t.layout == torch.strided and min(sc_stride(t), default=0) < -2**62
                            for t in ts):
        return "case 8: an input stride below -2**62, which PyTorch 1.13 reads as a symbolic " \
               "int's pointer (a segfault; copies_symint_pointer_stride in oracles/layout_policy.h)"
    if op == "set_nonresizable" and ts and ts[0].layout == torch.strided and sc_is_meta(ts[0]):
        return ("case 11: set_nonresizable of a meta or fake tensor (Python marks a storage "
                "non-resizable only through numpy(), which takes CPU tensors)")
    # Case 1 on meta inputs too: storcheck's limit on a result list (a huge
    # meta tensor splits into millions of tensors in PyTorch, which has none).
    if op in ("split", "chunk", "unbind") and ts and sc_split_count(op, ts[0], a, b) > SC_MAX_SPLIT_RESULTS:
        return "case 1: a split, chunk or unbind past storcheck's limit on results (impl/ops.h)"
    if ts and ts[0].layout == torch.strided and sc_index_arithmetic_overflows(op, ts[0], a, b, c, d):
        return "case 7: a split, chunk, slice or narrow whose index arithmetic overflows int64"
    if op == "view_dtype" and ts and ts[0].layout == torch.strided \
            and sc_view_dtype_overflows(ts[0], out_itemsize):
        return "case 7: a view_dtype whose stride, size or offset scaling overflows int64"
    if op == "sparse_coo_tensor" and len(ts) > 1 and ts[0].layout == torch.strided \
            and ts[0].dim() == 2 and ts[0].shape[0] + max(ts[1].dim(), 1) - 1 > 2**63 - 1:
        return "case 7: a sparse_coo_tensor whose sparse_dim + dense_dim overflows int64"
    # Case 1 on meta inputs too: a resize_ whose storage size, (numel +
    # offset) * itemsize, overflows int64 even for 0 elements (a is the new
    # numel): PyTorch sets the new sizes before it raises, where the other
    # backends check first and leave them unchanged (S10).
    if op == "resize_" and ts and a >= 0 and \
            (a + ts[0].storage_offset()) * ts[0].element_size() > SC_INT64_MAX:
        return "case 1: a resize_ whose storage size overflows int64 (S10)"
    # Case 1 on meta inputs too: transpose_ to sizes whose numel, an unsigned
    # product, overflows before a size-0 dim; PyTorch sets them, then raises
    # (as_strided_ is checked in C++: inplace_numel_overflows).
    if op == "transpose_" and ts and ts[0].layout == torch.strided and 0 in ts[0].shape \
            and min(sc_stride(ts[0]), default=0) >= 0:  # a negative stride raises first
        r, sizes = ts[0].dim(), list(ts[0].shape)
        if r > 0 and -r <= a < r and -r <= b < r:
            sizes[a], sizes[b] = sizes[b], sizes[a]
            n = 1
            for x in sizes:
                n *= x
                if n > 2**64 - 1:
                    return "case 1: a transpose_ whose numel overflows after a size-0 dim (S10)"
    # Case 8 for set_: a negative (wrapped) source stride, which set_sizes_and_strides
    # recomputes with a signed multiply that overflows (the LibTorch backend refuses it, S8).
    if op == "set_" and len(ts) == 2 and ts[1].layout == torch.strided \
            and min(sc_stride(ts[1]), default=0) < 0:
        return "case 8: set_ to a source with a negative (wrapped) stride (S8)"
    if op == "view_dtype" and ts and ts[0].layout == torch.strided \
            and min(sc_stride(ts[0]), default=0) < 0:
        return "case 8: view_dtype of a tensor with a negative (wrapped) stride (S8)"
    # Case 10: set_ of a converter's memoized result.
    if op == "set_" and ts and any(v is ts[0] for mc in sc_converters(RUN)
                                    for v in list(mc.tensor_memo.values())):
        return ("case 10: set_ of a meta or fake tensor that PyTorch's converter memoizes; "
                "later conversions of views of its real tensor would follow it (F2)")
    # Case 9: a view whose storage is no longer its base's (set_ moved it).
    if op in ("meta", "fake") and ts and ts[0].layout == torch.strided and not sc_is_meta(ts[0]) \
            and ts[0]._base is not None and ts[0]._base.layout == torch.strided \
            and storage(ts[0])._cdata != storage(ts[0]._base)._cdata:
        return ("case 9: a view that set_ moved off its base's storage, which PyTorch 1.13's "
                "MetaConverter converts onto the base's storage (F2)")
    # Case 4 on meta inputs too: the reference and the LibTorch backend refuse
    # an overlapping in-place write whatever the device.
    if op in ("add_", "mul_", "copy_") + SC_SCALAR_OUT and ts and ts[0].layout == torch.strided \
            and sc_overlapping(ts[0]):
        return "case 4: an in-place write into a tensor whose elements overlap"
    meta_in = any(sc_is_meta(t) for t in ts)
    if meta_in and op in ("to_dense", "coalesce"):
        return None
    if op in ("to_dense", "coalesce") and not (op == "coalesce" and ts[0].is_coalesced()):
        if sc_undersized(ts[0]) or sc_indices_invalid(ts[0]):
            return ("case 6: a sparse input's part is undersized or its indices are no longer "
                    "valid; storcheck's LibTorch backend refuses the step (S8)")
    elif cat not in ("lifetime", "convert") and op not in ("shrink", "resize_storage", "coalesce") \
            and op not in SC_SPARSE_ACCESSORS:
        if (cat != "view" or op in SC_MAY_COPY) and any(sc_undersized(t) for t in ts):
            return ("case 3: an input needs more bytes than its storage holds (emptied, R2, or "
                    "undersized, R7); storcheck's LibTorch backend restores it (R3) or refuses "
                    "the step (S8) by its own rules")
    if meta_in:  # a meta or fake result allocates nothing: cases 1 and 2 do not apply
        return None
    # Note [Elements a step reads] (impl/ops.h): after the S8 cases above.
    if (op in ("sum", "fill_", "zero_") or op.startswith("to_sparse")) and ts \
            and ts[0].layout == torch.strided and ts[0].numel() > RUN.max_reads:
        return ("case 1: a sum, to_sparse_*, fill_ or zero_ touching more elements than "
                "Limits::max_step_reads")
    # The compressed indices of a 0-element input: batch * (rows / blocksize
    # + 1) entries whatever the data (oracles/torch_backend.cpp
    # check_compressed_indices; [100000,100000,0] asked for 80 GB).
    if op in SC_COMPRESSED_INDEX_BYTES and ts and ts[0].layout == torch.strided:
        ib = SC_COMPRESSED_INDEX_BYTES[op](ts[0], (a, b))
        if ib is not None and ib > RUN.max_tensor:
            return "case 1: a compressed layout's indices at or past storcheck's resource limits (program/limits.h)"
    est = sc_estimate(op, ts, alloc, out_itemsize)
    if est < 0 or est > RUN.max_tensor or RUN.total + est > RUN.max_program:
        return "case 1: an allocation at or past storcheck's resource limits (program/limits.h)"
    if op in ("unsqueeze", "unsqueeze_", "unfold", "unflatten") and ts[0].dim() + 8 > SC_MAX_DIMS:
        return "case 2: a result rank that could pass kMaxDims"
    return None


def sc_convert(op, R, ts):
    """PyTorch's own converters (SEMANTICS group F)."""
    if op == "fake":  # FakeTensorConverter.from_real_tensor, through FakeTensorMode
        return R.mode.from_tensor(ts[0])
    if op == "meta":  # MetaConverter: None-returning misses become the typed error
        r = R.meta(ts[0])
        if r is ts[0]:
            raise UnsupportedFakeTensorException("MetaConverter declined the input (it returned it unconverted)")
        return r
    if op == "fake_from_meta":  # F5
        return R.mode.fake_tensor_converter.from_meta_and_device(R.mode, ts[0], torch.device("cpu"))
    if op in ("sweep", "memo_stats"):
        gc.collect()
        if op == "sweep":  # PyTorch's sweep of storages that outlived their tensors (F3)
            for mc in (R.mode.fake_tensor_converter.meta_converter, R.meta):
                mc.check_for_expired_weak_storages()
        R.memo_step = True
        return None
    raise AssertionError("sc_convert: not a conversion: " + op)


# Note [FakeTensor's device asserts]
# PyTorch 1.13's FakeTensor.__init__ asserts that its device is not meta, and
# from_meta_and_device that its input is on the meta device, with bare
# `assert`s: a `fake` of a meta tensor, a `to_meta` of a fake one and a
# `fake_from_meta` of a tensor that is not meta raise an AssertionError with no
# message, where F4 raises the typed error. An AssertionError of those steps
# alone is labelled, so that the known divergence
# pytorch-fake-meta-device-assert-1.13 matches it and no assert elsewhere in
# PyTorch's fake tensor code (oracles/known_divergences.cpp).
SC_DEVICE_ASSERT = "FakeTensor's device assert (Note [FakeTensor's device asserts]): "


def sc_device_assert(op, ts):
    """Whether the step is one that PyTorch 1.13's device asserts refuse."""
    if not ts:
        return False
    fake = isinstance(ts[0], FakeTensor)
    if op == "fake":
        return ts[0].is_meta and not fake
    if op == "to_meta":
        return fake
    if op == "fake_from_meta":
        return fake or not ts[0].is_meta
    return False


def sc_labelled(op, ts, message):
    """A failed conversion of a compressed sparse tensor, or of a part of one (an accessor's
    result, a view whose base the MetaConverter converts first), says so, for the known
    divergence pytorch-meta-sparse-compressed-1.13 (oracles/known_divergences.cpp) to match
    it alone."""
    if op in ("meta", "fake", "to_meta") and ts:
        if ts[0].layout in SC_COMPRESSED:
            return f"PyTorch 1.13 has no meta {ts[0].layout} tensor: {message}"
        base = ts[0]._base
        if op != "to_meta" and base is not None and base.layout in SC_COMPRESSED:
            return f"PyTorch 1.13 has no meta {base.layout} tensor (the base of this part): {message}"
    return message


def sc_step(op, cat, code, out, ins, alloc, out_itemsize, a=0, b=0, c=0, d=0):
    """Runs one step. Returns None, ("refused", reason) or ("error", type, message)."""
    R = RUN
    R.memo_step = False
    ts = [R.v[n] for n in ins]
    R.step_note = ""
    reason = sc_refusal(op, cat, ts, alloc, out_itemsize, a, b, c, d)
    if reason:
        return ("refused", reason)
    keeps = None
    if cat == "convert" and ts:
        R.step_note = sc_stale_memo_note(op, ts[0])
        keeps = sc_meta_storage_bytes(op, ts[0])
    est = max(sc_estimate(op, ts, alloc, out_itemsize), 0)
    try:
        if cat == "convert" and op != "to_meta":
            r = sc_convert(op, R, ts)
            sized = sc_set_sized_note(keeps, r)
            if sized:
                R.step_note = R.step_note + "; " + sized if R.step_note else sized
            if out:
                R.v[out] = r
                if op in ("fake", "meta"):
                    if op == "fake" and any(f() is r for _, f in R.converted):
                        R.memo_hits.append(weakref.ref(r))
                    R.converted.append((weakref.ref(ts[0]), weakref.ref(r)))
                    if R.planted is not None:
                        R.planted.append(ts[0])
        else:
            exec(sc_compiled(code), globals(), R.v)
    except UnsupportedFakeTensorException as e:
        return ("error", "UnsupportedFakeTensorException", sc_labelled(op, ts, str(getattr(e, "reason", e))))
    except Exception as e:  # noqa: BLE001 - every failure is an observation
        message = str(e).split("\n")[0][:500]
        if isinstance(e, AssertionError) and sc_device_assert(op, ts):
            message = SC_DEVICE_ASSERT + message
        return ("error", type(e).__name__, sc_labelled(op, ts, message))
    if not any(sc_is_meta(t) for t in ts):
        R.total += est  # over-counts views: refusal only comes earlier (case 1)
    return None


def sc_memo(mc):  # (tensors, storages, pending, sparse): impl/fake.h MemoStats
    sparse = sum(1 for k in mc.tensor_memo if k.ten() is not None and sc_is_sparse(k.ten()))
    return (len(mc.tensor_memo) - sparse, len(mc.storage_memo), len(mc.maybe_storages_to_delete), sparse)


def sc_leaks(R):
    """F3 after gc.collect(): what the memos and fakes keep that they should not."""
    bound = set()
    for t in R.v.values():
        while t is not None:  # a view keeps its base alive (autograd's _base)
            bound.add(id(t))
            t = t._base
    problems = []
    for mc, name in ((R.mode.fake_tensor_converter.meta_converter, "fake"), (R.meta, "meta")):
        dead = sum(1 for k in mc.tensor_memo if k.ten() is None)
        if dead:
            problems.append(f"{name}: {dead} tensor memo entries of dead real tensors")
    kept = [r() for r, _ in R.converted if r() is not None and id(r()) not in bound]
    if kept:
        problems.append(f"{len(kept)} converted real tensors alive with no variable holding them")
    # A memo maps a live real tensor to its conversion (F2), so a conversion may
    # outlive its variables while its real tensor lives; never after.
    # Note [Fakes a memo hit keeps alive]
    # PyTorch 1.13's FakeTensorConverter._get_memo calls out._fix_weakref() on
    # every memo hit, and a fake it has been called on outlives every reference
    # (100 of 100 fakes converted twice stay alive after gc.collect(), with no
    # referrer and an empty memo; converted once, none does; MetaConverter's
    # memo hits leak nothing): an upstream F3 leak (fixed in 2.0 by
    # pytorch/pytorch#90823), reported apart so that the known divergence
    # pytorch-fake-memo-hit-leaks-1.13 names it alone.
    orphans, hit = {}, {id(w()) for w in R.memo_hits if w() is not None}
    for r, f in R.converted:
        if r() is None and f() is not None and id(f()) not in bound:
            orphans[id(f())] = id(f()) in hit
    if any(not h for h in orphans.values()):
        problems.append(f"{sum(not h for h in orphans.values())} fake/meta tensors alive after "
                        "their real tensor died, with no variable holding them")
    if any(orphans.values()):
        problems.append(f"{sum(orphans.values())} fake tensors alive after their real tensor "
                        "died, with no variable holding them, each returned again by "
                        "FakeTensorConverter's memo (_get_memo's _fix_weakref)")
    return "; ".join(problems)


def sc_sparse_obs(t):
    """F4 metadata: (layout, sparse_dim, dense_dim, nnz, coalesced, blocksize, index dtype)."""
    parts = sc_parts(t)
    blocksize = (1, 1)
    # Note [Compressed parts are the inputs] (impl/sparse.cpp): the parts may have
    # changed shape in place; read nnz and the blocksize as the reference does.
    if t.layout in (torch.sparse_bsr, torch.sparse_bsc):
        at = t.dim() - 2 - t.dense_dim() + 1
        v = parts[-1]
        blocksize = (0, 0) if at < 0 or at + 1 >= v.dim() else (v.shape[at], v.shape[at + 1])
    nnz = t._nnz() if t.layout == torch.sparse_coo else \
        (parts[1].shape[-1] if parts[1].dim() else 0)
    return (SC_LAYOUT_INDEX[t.layout], t.sparse_dim(), t.dense_dim(), nnz,
            t.layout == torch.sparse_coo and t.is_coalesced(), blocksize, SC_DTYPE_INDEX[parts[0].dtype])


def sc_sparse_values(t):
    """The bytes of to_dense() of a real sparse tensor, or None where the LibTorch backend reads
    none: a part undersized (S8), invalid indices, a dense form past one tensor's limit, or no
    to_dense (PyTorch 1.13 has none for hybrid compressed tensors)."""
    if sc_is_meta(t) or sc_undersized(t) or sc_indices_invalid(t) \
            or t.numel() * t.element_size() > RUN.max_tensor:
        return None
    if min(t.shape, default=0) < 0:  # sparse_csr_tensor of sizes [0, -4]: to_dense raises
        return None
    try:
        return t.to_dense().contiguous().numpy().tobytes() if t.numel() else b""
    except Exception:  # noqa: BLE001
        return None


SC_OBSERVE_ALL_ELEMENTS = 1 << 16  # kObserveAllElements (impl/geometry.h)


def sc_strided_values(t):
    """A covered strided tensor's values: its elements in row-major order, or, under Note
    [Observing overlapping views] (impl/geometry.h), those at its distinct offsets."""
    n = t.numel()
    if n == 0:
        return b""
    span = 1 + sum((m - 1) * s for m, s in zip(t.shape, sc_stride(t)))
    if n <= SC_OBSERVE_ALL_ELEMENTS or n <= span:
        return t.detach().clone(memory_format=torch.contiguous_format).numpy().tobytes()
    reached = torch.zeros(span, dtype=torch.bool)
    reached[0] = True
    for m, s in zip(t.shape, sc_stride(t)):
        if m < 2 or s == 0:
            continue
        have = 1
        while have < m:  # reached covers multiples 0..have-1 of s; double it
            k = min(have, m - have)
            reached[k * s:] |= reached[:span - k * s].clone()
            have += k
    flat = t.detach().as_strided((span,), (1,), t.storage_offset())
    return flat[reached].numpy().tobytes()


def sc_observe(all_values, fresh):
    """Per variable: None, or (sizes, strides, offset, dtype, kind, nbytes, data_null, alias,
    identity, version, values bytes or None, sparse metadata or None); kind 0 cpu, 1 meta,
    2 fake; a sparse variable gives sc_sparse_obs's metadata and no storage (None for the
    strided fields). Then the memos
    ((tensors, storages, pending) of fake, of meta) after memo_stats and sweep, else None,
    the F3 leak report ("" when clean), and the last step's note (Note [Stale converter
    memo entries]; "" when none)."""
    R = RUN
    out, storages, objects = [], {}, {}
    for k, name in enumerate(R.names):
        t = R.v.get(name)
        if t is None:
            out.append(None)
            continue
        fake = isinstance(t, FakeTensor)
        if sc_is_sparse(t):  # Note [Observing a sparse variable] (oracles/observation.h)
            ident = objects.setdefault(id(t), k)
            values = sc_sparse_values(t) if all_values or k == fresh else None
            out.append((tuple(t.shape), None, 0, SC_DTYPE_INDEX[t.dtype], 2 if fake else 1 if t.is_meta else 0,
                        -1, False, -1, ident, None, values, sc_sparse_obs(t)))
            continue
        s = storage(t)
        alias = storages.setdefault(s._cdata, k)
        ident = objects.setdefault(id(t), k)
        nbytes = s.nbytes()
        values = None
        if (all_values or k == fresh) and not sc_is_meta(t) and not sc_undersized(t):
            # numpy() of the tensor itself would mark its storage non-resizable
            # for good (PyTorch 1.13): read a private copy.
            values = sc_strided_values(t)
        # Note [Versions of converted tensors]
        # PyTorch 1.13's MetaConverter builds each conversion with set_(storage, offset,
        # sizes, strides) on a fresh meta tensor, which bumps its version counter, so
        # every meta and fake tensor starts at 1 (and ops on fakes follow from there);
        # the reference starts at 0. By design, and no part of F1's metadata: the
        # version of meta and fake tensors is reported unknown (None), not compared.
        version = None if sc_is_meta(t) else t._version
        out.append((tuple(t.shape), tuple(sc_stride(t)), t.storage_offset(), SC_DTYPE_INDEX[t.dtype],
                    2 if fake else 1 if t.is_meta else 0, nbytes, s.data_ptr() == 0, alias, ident,
                    version, values, None))
    memo, leaks = None, ""
    if R.memo_step:
        memo = (sc_memo(R.mode.fake_tensor_converter.meta_converter), sc_memo(R.meta))
        leaks = sc_leaks(R)
    return out, memo, leaks, R.step_note
