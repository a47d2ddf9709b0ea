# The Python half of storcheck's PyTorch backend (oracles/python_backend.h).
# python_backend.cpp embeds this file's text (CMake turns it into a C++
# string), after the emitted scripts' prelude and helpers (oracles/spelling.h),
# and calls three functions: sc_begin, sc_step, sc_observe.
#
# Invariant: each step either runs through PyTorch's own API (the op table's
# python spelling, or PyTorch 1.13's FakeTensorMode / FakeTensorConverter /
# MetaConverter for conversions) or is refused with a reason before anything
# runs; this file never emulates an op.
import gc
import weakref

from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode, UnsupportedFakeTensorException
from torch._subclasses.meta_utils import MetaConverter

SC_DTYPES = [torch.float32, torch.float64, torch.int32, torch.int64, torch.uint8, torch.bool]
SC_DTYPE_INDEX = {d: k for k, d in enumerate(SC_DTYPES)}
SC_MAX_DIMS = 16  # oracles/observation.h kMaxDims
lazy_clone.noted = True  # the emitted scripts' note on stdout is not for a backend


class ScRun:
    """One program's state: its variables, converters and allocations."""

    def __init__(self, names, max_tensor, max_program):
        self.names = names
        self.v = {}  # variable name -> tensor (the steps' local namespace)
        self.mode = FakeTensorMode()  # `fake`, `fake_from_meta`: PyTorch's FakeTensorConverter
        self.meta = MetaConverter()   # `meta`: PyTorch's MetaConverter
        self.max_tensor, self.max_program, self.total = max_tensor, max_program, 0
        self.memo_step = False
        self.converted = []  # (real, conversion) weak references, per conversion step


RUN = None
SC_CODE = {}  # compiled step spellings


def sc_begin(names, max_tensor, max_program, plant_strong_ref):
    global RUN
    RUN = None  # the previous program's tensors and converters die first
    FOREIGN.clear()  # from_blob's helper keeps its numpy-backed storages per script
    RUN = ScRun(list(names), max_tensor, max_program)
    # Fault::kMemoStrongRef (impl/fault.h, test builds): the converters keep
    # every real tensor they convert, strongly, as a leaking memo would (F3).
    RUN.planted = [] if plant_strong_ref else None


# Note [Frozen startup objects]
# A full gc.collect() walks every object torch's import made (about 70 ms in
# PyTorch 1.13): too slow for one per memo_stats step. Those objects are
# moved to the permanent generation once, here, so that a collection walks
# only what the programs made (microseconds). Nothing the steps create is
# frozen, so the F3 checks see every cycle the programs leave.
gc.collect()
gc.freeze()


def sc_is_meta(t):
    return t.is_meta or isinstance(t, FakeTensor)


def sc_undersized(t):  # needs more bytes than its storage holds (R2, R7)
    return not sc_is_meta(t) and extent(t) * t.element_size() > storage(t).nbytes()


def sc_overlapping(t):  # two indices may reach one element
    dims = sorted((s, n) for n, s in zip(t.shape, t.stride()) if n > 1)
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
#    input) beyond Limits, or one that would bring the run past them;
# 2) a result rank that could pass kMaxDims;
# 3) an input that needs more bytes than its storage holds, except for ops
#    that read no data (views other than reshape and flatten, conversions, drop,
#    storage resizes);
# 4) add_, mul_ or copy_ into an overlapping tensor, or copy_ within one
#    storage;
# 5) negative sizes, and negative result indices of split, chunk and unbind
#    (checked in C++: negative_sizes() in python_backend.cpp).
# Steps on meta and fake tensors read and allocate nothing: no refusal.
SC_ALLOCATING = {"factory", "compute"}
SC_MAY_COPY = {"reshape", "flatten"}  # views that copy when the strides do not allow a view
SC_RESHAPING = {"reshape", "flatten", "contiguous", "clone", "clone_preserve_strides", "to", "add", "mul",
                "sum", "lazy_clone"}


def sc_refusal(op, cat, ts, alloc, out_itemsize):
    if any(sc_is_meta(t) for t in ts):
        return None
    if cat not in ("lifetime", "convert") and op not in ("shrink", "resize_storage"):
        if (cat != "view" or op in SC_MAY_COPY) and any(sc_undersized(t) for t in ts):
            return ("case 3: an input needs more bytes than its storage holds (emptied, R2, or "
                    "undersized, R7); storcheck's LibTorch backend restores it (R3) or refuses "
                    "the step (S8) by its own rules")
    est = alloc
    if op in SC_RESHAPING and ts:
        est = max(est, ts[0].numel() * (out_itemsize or ts[0].element_size()))
    if est < 0 or est > RUN.max_tensor or RUN.total + est > RUN.max_program:
        return "case 1: an allocation at or past storcheck's resource limits (program/limits.h)"
    if op in ("unsqueeze", "unsqueeze_", "unfold", "unflatten") and ts[0].dim() + 8 > SC_MAX_DIMS:
        return "case 2: a result rank that could pass kMaxDims"
    if op in ("add_", "mul_", "copy_") and sc_overlapping(ts[0]):
        return "case 4: an in-place write into a tensor whose elements overlap"
    if op == "copy_" and storage(ts[0])._cdata == storage(ts[1])._cdata:
        return "case 4: copy_ within one storage"
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


def sc_step(op, cat, code, out, ins, alloc, out_itemsize):
    """Runs one step. Returns None, ("refused", reason) or ("error", type, message)."""
    R = RUN
    R.memo_step = False
    ts = [R.v[n] for n in ins]
    reason = sc_refusal(op, cat, ts, alloc, out_itemsize)
    if reason:
        return ("refused", reason)
    est = alloc if alloc > 0 else 0
    if op in SC_RESHAPING and ts:
        est = max(est, ts[0].numel() * (out_itemsize or ts[0].element_size()))
    try:
        if cat == "convert" and op != "to_meta":
            r = sc_convert(op, R, ts)
            if out:
                R.v[out] = r
                if op in ("fake", "meta"):
                    R.converted.append((weakref.ref(ts[0]), weakref.ref(r)))
                    if R.planted is not None:
                        R.planted.append(ts[0])
        else:
            exec(SC_CODE.get(code) or SC_CODE.setdefault(code, compile(code, "<step>", "exec")),
                 globals(), R.v)
    except UnsupportedFakeTensorException as e:
        return ("error", "UnsupportedFakeTensorException", str(getattr(e, "reason", e)))
    except Exception as e:  # noqa: BLE001 - every failure is an observation
        return ("error", type(e).__name__, str(e).split("\n")[0][:500])
    if not any(sc_is_meta(t) for t in ts):
        R.total += est  # over-counts views: refusal only comes earlier (case 1)
    return None


def sc_memo(mc):
    return (len(mc.tensor_memo), len(mc.storage_memo), len(mc.maybe_storages_to_delete))


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
    orphans = [f() for r, f in R.converted
               if r() is None and f() is not None and id(f()) not in bound]
    if orphans:
        problems.append(f"{len(orphans)} fake/meta tensors alive after their real tensor died, "
                        "with no variable holding them")
    return "; ".join(problems)


def sc_observe(all_values, fresh):
    """Per variable: None, or (sizes, strides, offset, dtype, kind, nbytes, data_null, alias,
    identity, version, values bytes or None); kind 0 cpu, 1 meta, 2 fake. Then the memos
    ((tensors, storages, pending) of fake, of meta) after memo_stats and sweep, else None,
    and the F3 leak report ("" when clean)."""
    R = RUN
    out, storages, objects = [], {}, {}
    for k, name in enumerate(R.names):
        t = R.v.get(name)
        if t is None:
            out.append(None)
            continue
        fake = isinstance(t, FakeTensor)
        s = storage(t)
        alias = storages.setdefault(s._cdata, k)
        ident = objects.setdefault(id(t), k)
        nbytes = s.nbytes()
        values = None
        if (all_values or k == fresh) and not sc_is_meta(t) and not sc_undersized(t):
            # numpy() of the tensor itself would mark its storage non-resizable
            # for good (PyTorch 1.13): read a private copy.
            values = t.detach().clone(memory_format=torch.contiguous_format).numpy().tobytes() \
                if t.numel() else b""
        # Note [Versions of converted tensors]
        # PyTorch 1.13's MetaConverter builds each conversion with set_(storage, offset,
        # sizes, strides) on a fresh meta tensor, which bumps its version counter, so
        # every meta and fake tensor starts at 1 (and ops on fakes follow from there);
        # the reference starts at 0. By design, and no part of F1's metadata: the
        # version of meta and fake tensors is reported unknown (None), not compared.
        version = None if sc_is_meta(t) else t._version
        out.append((tuple(t.shape), tuple(t.stride()), t.storage_offset(), SC_DTYPE_INDEX[t.dtype],
                    2 if fake else 1 if t.is_meta else 0, nbytes, s.data_ptr() == 0, alias, ident,
                    version, values))
    memo, leaks = None, ""
    if R.memo_step:
        memo = (sc_memo(R.mode.fake_tensor_converter.meta_converter), sc_memo(R.meta))
        leaks = sc_leaks(R)
    return out, memo, leaks
