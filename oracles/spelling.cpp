#include "oracles/spelling.h"

#include <cctype>
#include <iterator>

#include "oracles/backend.h"

namespace storcheck {

bool calls(const std::string& text, const char* call) {
  for (size_t at = text.find(call); at != std::string::npos; at = text.find(call, at + 1)) {
    char before = at == 0 ? ' ' : text[at - 1];
    if (!(std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.' ||
          before == '>'))
      return true;
  }
  return false;
}

namespace {

/// Python's index expression for `slice X DIM START END STEP` ("" when the
/// dim is too far out for a readable one).
std::string python_index(const Step& s) {
  int64_t dim = s.args[1].i, start = s.args[2].i, end = s.args[3].i, step = s.args[4].i;
  std::string range = std::to_string(start) + ":" + std::to_string(end);
  if (step != 1) range += ":" + std::to_string(step);
  std::string out;
  if (dim >= 0 && dim <= kMaxRank) {
    for (int64_t d = 0; d < dim; ++d) out += ":, ";
    return out + range;
  }
  if (dim < 0 && dim >= -kMaxRank) {
    out = "..., " + range;
    for (int64_t d = -1; d > dim; --d) out += ", :";
    return out;
  }
  return "";
}

std::string render_arg(const Syntax& sx, const Program& p, const Arg& a) {
  switch (a.kind) {
    case ArgKind::kVar: return p.var_names[static_cast<size_t>(a.var)];
    case ArgKind::kInt: return sx.integer(a.i);
    case ArgKind::kList: return sx.ints(a.list.begin(), a.list.size());
    case ArgKind::kScalar: return sx.scalar(a.scalar);
    case ArgKind::kDType: return sx.dtype(to_dtype(a.dtype));
    case ArgKind::kNone: break;
  }
  return "";
}

}  // namespace

std::string spell_step(const Syntax& sx, const Program& p, const Step& s, bool input_fits) {
  std::string_view t = sx.py() ? s.info().python : s.info().cpp;
  if (sx.py() && s.op == OpId::kSlice && (python_index(s).empty() || !input_fits))
    t = "torch.ops.aten.slice($0, $1, $2, $3, $4)";
  std::string out;
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k] != '$') {
      out += t[k];
      continue;
    }
    if (t.substr(k, 4) == "$idx") {
      out += python_index(s);
      k += 3;
    } else if (k + 1 < t.size() && t[k + 1] >= '0' && t[k + 1] <= '9') {
      out += render_arg(sx, p, s.args[t[k + 1] - '0']);
      ++k;
    } else {
      out += t[k];
    }
  }
  return out;
}

const char* const kPythonPrelude = R"PY(import math
import sys

import torch

TOL = {torch.float32: 1e-5, torch.float64: 1e-12}  # relative, as storcheck compares
EMPTIED = "emptied"  # the storage has 0 bytes (SEMANTICS R2): values not read


def storage(t):  # untyped_storage() from PyTorch 2.0; 1.13 spells it storage().untyped()
    return t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage().untyped()


def same_storage(a, b):
    return storage(a)._cdata == storage(b)._cdata


def close(a, b, tol):
    if a != a or b != b:  # NaN
        return a != a and b != b
    return a == b or abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def same(v):  # every element equals v
    return ("same", v)


def checksum(x):  # sum over k of element_k * (k % 1021 + 1), row-major, in float64
    return ("checksum", x)


def check_values(where, t, want):
    tol = TOL.get(t.dtype, 0.0)
    # flatten's checked size product throws on a 0-element tensor with huge sizes
    t = t if t.numel() else t.new_empty(0)
    if isinstance(want, list):
        got = t.flatten().tolist()
        ok = len(got) == len(want) and all(close(a, b, tol) for a, b in zip(got, want))
    elif want[0] == "same":
        got = [x for x in t.flatten().tolist() if not close(x, want[1], tol)][:4]
        ok = not got
    else:
        x = t.flatten().double()
        w = torch.arange(x.numel(), dtype=torch.float64) % 1021 + 1
        got, scale = (x * w).sum().item(), (x.abs() * w).sum().item()
        ok = close(got, want[1], 0.0) or (
            math.isfinite(scale) and abs(got - want[1]) <= max(tol, 1e-9) * max(1.0, scale))
        got = checksum(got)
    assert ok, f"{where}: values: expected {want}, got {got}"


def strides(t):  # PyTorch 1.13's t.stride() takes one below -2**62 for a SymInt pointer
    return [torch.ops.aten.stride(t, d) for d in range(t.dim())]


def expect(where, t, size, stride, offset, dtype, values, base=None):
    want = (size, stride, offset, dtype)
    got = (list(t.shape), strides(t), t.storage_offset(), t.dtype)
    assert got == want, f"{where}: sizes, strides, offset, dtype: expected {want}, got {got}"
    if base is not None:
        assert same_storage(t, base), f"{where}: expected a view sharing its base's storage (S3)"
    if values is EMPTIED:
        n = storage(t).nbytes()
        assert n == 0, f"{where}: expected an emptied storage (0 bytes), got {n} bytes"
    elif values is not None:
        check_values(where, t, values)


def expect_error(where, kind, run):
    try:
        run()
    except (RuntimeError, IndexError, ValueError, TypeError):
        return
    raise AssertionError(f"{where}: expected an error ({kind}), but the step succeeded")
)PY";

namespace {

const Helper kPythonHelpers[] = {
    {"expect_sparse(",
     R"PY(def expect_sparse(where, t, layout, size, dtype, sparse_dim, dense_dim, nnz, values):
    # A sparse tensor (SEMANTICS F4): its metadata, then its to_dense() values.
    want = (layout, size, dtype, sparse_dim, dense_dim, nnz)
    got = (t.layout, list(t.shape), t.dtype, t.sparse_dim(), t.dense_dim(), t._nnz())
    assert got == want, f"{where}: layout, sizes, dtype, sparse_dim, dense_dim, nnz: expected {want}, got {got}"
    if values is not None:
        check_values(where, t.to_dense(), values)
)PY"},
    {"zero_bytes(",
     R"PY(def zero_bytes(t, start):  # storcheck defines new storage bytes as zero (R6)
    s = storage(t)
    if s.nbytes() > start and s.device.type != "meta":  # meta and fake storages hold no bytes
        torch.tensor([], dtype=torch.uint8).set_(s)[start:].zero_()
)PY"},
    {"arange(", R"PY(def arange(size, dtype):
    return torch.arange(math.prod(size)).to(dtype).view(size)
)PY"},
    {"rand(",
     R"PY(def rand(size, dtype, seed):  # storcheck's deterministic values (splitmix64), not torch's RNG
    m, values = (1 << 64) - 1, []
    for k in range(math.prod(size)):
        z = ((seed & m) * 0x9E3779B97F4A7C15 + k + 0x632BE59BD9B4E019) & m
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        z ^= z >> 31
        values.append((z >> 40) / 16777216.0 if dtype.is_floating_point
                      else z & 1 if dtype == torch.bool else z % 10)
    return torch.tensor(values, dtype=torch.float64).to(dtype).view(size)
)PY"},
    {"empty_strided(",
     R"PY(def empty_strided(size, stride, dtype):  # with its bytes defined as zero
    t = torch.empty_strided(size, stride, dtype=dtype)
    storage(t).fill_(0)
    return t
)PY"},
    {"resize_(", R"PY(def resize_(t, size):  # Tensor.resize_; the grown bytes are zero (R6)
    old = storage(t).nbytes()
    t.resize_(size)
    zero_bytes(t, old)
)PY"},
    {"set_(", R"PY(def set_(t, src):  # Tensor.set_; the grown bytes are zero (R6)
    old = storage(src).nbytes()
    t.set_(src)
    zero_bytes(t, old)
)PY"},
    {"scalar_out(",
     R"PY(def scalar_out(op, out, x, s):  # op(x, s, out=out): torch.add or torch.mul with out=
    # A resized out's grown bytes before its first element, which the kernel
    # does not write, are zero (R6).
    import warnings
    old = storage(out).nbytes()
    with warnings.catch_warnings():  # resizing a non-empty out is the point here
        warnings.simplefilter("ignore", UserWarning)
        op(x, s, out=out)
    first = min(out.storage_offset() * out.element_size(), storage(out).nbytes())
    if first > old and storage(out).device.type != "meta":
        torch.tensor([], dtype=torch.uint8).set_(storage(out))[old:first].zero_()
)PY"},
    {"resize_storage(",
     R"PY(def resize_storage(t, nbytes):  # untyped_storage().resize_(); grown bytes are zero (R6)
    old = storage(t).nbytes()
    storage(t).resize_(nbytes)
    zero_bytes(t, old)
)PY"},
    {"coalesce(", R"PY(def coalesce(t):  # Tensor.coalesce; the bytes past the new nnz are zero (R6)
    r = t.coalesce()
    if t.is_coalesced() or storage(r._values()).device.type == "meta":
        return r
    # The new indices and values were allocated for the old nnz and narrowed
    # (Note [Coalesce slack] in oracles/torch_backend.cpp).
    i, v = r._indices(), r._values()
    if i.storage_offset() == 0 and i.stride(1) == 1 and i.stride(0) >= i.shape[1]:
        n, cap, es = storage(i).nbytes(), i.stride(0), i.element_size()
        whole = torch.tensor([], dtype=torch.uint8).set_(storage(i))
        for d in range(i.shape[0]):
            whole[min((d * cap + i.shape[1]) * es, n):min((d + 1) * cap * es, n)].zero_()
    if v.is_contiguous():
        zero_bytes(v, (v.storage_offset() + v.numel()) * v.element_size())
    return r
)PY"},
    {"extent(", R"PY(def extent(t):  # elements of the storage the tensor needs, offset included
    if t.numel() == 0:
        return 0
    return t.storage_offset() + 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
)PY"},
    {"clone_preserve_strides(",
     R"PY(def clone_preserve_strides(t):  # Inductor's: copy the storage prefix t needs
    copy = t.as_strided([extent(t)], [1], 0).clone()
    return copy.as_strided(t.shape, t.stride(), t.storage_offset())
)PY"},
    {"restored(",
     R"PY(def restored(size, stride, offset, dtype):  # R3: zeros with the clone's geometry
    n = 0 if 0 in size else offset + 1 + sum((a - 1) * b for a, b in zip(size, stride))
    return torch.zeros(n, dtype=dtype).as_strided(size, stride, offset)
)PY"},
    {"sum64(", R"PY(def sum64(t):  # floating sums accumulate in float64
    return t.sum(dtype=torch.float64) if t.is_floating_point() else t.sum()
)PY"},
    {"set_nonresizable(",
     R"PY(NONRESIZABLE = []  # weak references to the storages set_nonresizable marked


def set_nonresizable(t):  # numpy() marks a storage non-resizable for good
    from torch.multiprocessing.reductions import StorageWeakRef
    # (tensor_to_numpy); through a 0-element alias of the storage, so that
    # nothing is read and t itself is untouched (its version too).
    torch.tensor([], dtype=torch.uint8).set_(storage(t), 0, (0,), (1,)).numpy()
    # Python cannot read the flag back: is_resizable looks here.
    NONRESIZABLE.append(StorageWeakRef(storage(t)))


def is_resizable(t):  # False for a storage set_nonresizable marked (from_blob's too)
    return not any(not w.expired() and w.cdata == storage(t)._cdata for w in NONRESIZABLE)
)PY"},
    {"from_blob(",
     R"PY(FOREIGN = []  # weak references to the storages standing for memory PyTorch does not own (C7)


def from_blob(size, dtype):  # a zero-filled tensor over "foreign" memory
    from torch.multiprocessing.reductions import StorageWeakRef
    stride = [math.prod(max(n, 1) for n in size[d + 1:]) for d in range(len(size))]
    # Python cannot wrap memory it does not own without numpy, whose arrays
    # have a non-null pointer even for 0 elements where from_blob's storage
    # has none (S1). What a foreign owner changes is observable as a
    # non-resizable storage (set_nonresizable: numpy() marks it) and C7,
    # which lazy_clone's helper checks with FOREIGN. detach: no view (no
    # _base for a converter to convert and memoize too), as from_blob's
    # tensor is none.
    t = torch.zeros(math.prod(size), dtype=dtype).as_strided(size, stride).detach()
    set_nonresizable(t)
    # Weak: the storage dies with its last tensor, as it would in a program
    # that called from_blob (a strong reference kept it in the converters' memos).
    FOREIGN.append(StorageWeakRef(storage(t)))
    return t
)PY"},
    {"lazy_clone(", R"PY(def lazy_clone(t):  # C1: torch._lazy_clone, from PyTorch 2.3
    if hasattr(torch, "_lazy_clone"):
        return torch._lazy_clone(t)
    # Before 2.3 an eager copy of the whole storage, same geometry, stands in:
    # values and metadata are checked (C6), copy-on-write state is not.
    if not getattr(lazy_clone, "noted", False):
        print(f"note: PyTorch {torch.__version__} has no torch._lazy_clone (2.3+): "
              "lazy_clone runs as an eager copy; copy-on-write state is not checked")
        lazy_clone.noted = True
    if any(not f.expired() and f.cdata == storage(t)._cdata for f in globals().get("FOREIGN", [])):
        raise RuntimeError("lazy_clone: the storage's data has a foreign owner (C7)")
    n = storage(t).nbytes()
    # The source's bytes first: set_ refuses a fake or meta input's (meta)
    # storage before anything is allocated (its extent may be any size).
    src = torch.tensor([], dtype=torch.uint8).set_(storage(t))
    size = max(n, extent(t) * t.element_size())
    data = torch.cat([src, torch.zeros(size - n + -size % t.element_size(), dtype=torch.uint8)])
    # A view of a fresh tensor, detached: no view (no _base) and at version 0,
    # as _lazy_clone's result (C1); set_ would have started it at 1.
    c = data.view(t.dtype).as_strided(t.shape, t.stride(), t.storage_offset()).detach()
    storage(c).resize_(n)  # the source's byte size, even when it is undersized (C1)
    if not is_resizable(t):
        set_nonresizable(c)  # lazy_clone_storage keeps the source's resizable flag
    return c
)PY"},
    {"rehydrate(", R"PY(def rehydrate(*storages):  # R5: (tensor, nbytes) per emptied storage
    for t, nbytes in storages:
        storage(t).resize_(nbytes)
        storage(t).fill_(0)
)PY"},
    {"reshrink(", R"PY(def reshrink(*tensors):  # R5: empty again what rehydrate restored
    for t in tensors:
        storage(t).resize_(0)
)PY"},
};
}  // namespace

std::string helpers_for(const Helper* table, size_t n, const std::string& body,
                        const char* separator, bool all) {
  // A helper only calls helpers listed before it, or in the prelude.
  std::string needed = body;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t k = 0; k < n; ++k)
      if (calls(needed, table[k].name) && needed.find(table[k].code) == std::string::npos)
        needed += table[k].code;
  std::string helpers;
  for (size_t k = 0; k < n; ++k)
    if (all || needed.find(table[k].code) != std::string::npos)
      helpers += separator + std::string(table[k].code);
  return helpers;
}

std::string python_helpers_for(const std::string& body, bool all) {
  return helpers_for(kPythonHelpers, std::size(kPythonHelpers), body, "\n\n", all);
}

}  // namespace storcheck
