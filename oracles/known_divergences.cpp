#include "oracles/known_divergences.h"

#include <cstdio>
#include <cstdlib>

namespace storcheck {

namespace {
/// True when the comma-separated `list` has `item` as one of its entries.
bool list_contains(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == item) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

/// True when `a` or `b` contains one of the '|'-separated `alternatives`.
bool either_contains(std::string_view alternatives, const std::string& a, const std::string& b) {
  while (true) {
    const size_t bar = alternatives.find('|');
    const std::string_view one = alternatives.substr(0, bar);
    if (a.find(one) != std::string::npos || b.find(one) != std::string::npos) return true;
    if (bar == std::string_view::npos) return false;
    alternatives.remove_prefix(bar + 1);
  }
}

/// A printed memo ("3 tensors, 2 storages (0 pending), 0 sparse", compare.cpp).
struct PrintedMemo {
  long long tensors = -1, storages = -1, pending = -1, sparse = -1;
};
PrintedMemo parse_memo(const std::string& printed) {
  PrintedMemo m;
  if (std::sscanf(printed.c_str(), "%lld tensors, %lld storages (%lld pending), %lld sparse",
                  &m.tensors, &m.storages, &m.pending, &m.sparse) != 4)
    return PrintedMemo{};
  return m;
}

/// pytorch-memo-keeps-view-bases: PyTorch's memo (the second backend's)
/// holds more tensors than the reference's, strided or sparse, never fewer.
bool pytorch_holds_more_tensors(const Mismatch& m) {
  const PrintedMemo a = parse_memo(m.a), b = parse_memo(m.b);
  return a.tensors >= 0 && b.tensors >= a.tensors && b.sparse >= a.sparse &&
         (b.tensors > a.tensors || b.sparse > a.sparse);
}

/// pytorch-storage-pending-after-its-tensor-1.13: PyTorch's memo holds the
/// same tensors, and its pending list more entries, at least one for each
/// storage it holds beyond the reference's (the list names a storage once
/// per tensor entry that died while the storage lived).
bool pytorch_extra_storages_pending(const Mismatch& m) {
  const PrintedMemo a = parse_memo(m.a), b = parse_memo(m.b);
  return a.tensors >= 0 && b.tensors == a.tensors && b.sparse == a.sparse &&
         b.storages >= a.storages && b.pending > a.pending &&
         b.pending - a.pending >= b.storages - a.storages;
}

/// pytorch-fake-from-meta-memoized: for identity, PyTorch's result is an
/// earlier variable's tensor ("t#J" below the reference's own class);
/// geometry fields are the memoized fake's old geometry, any values.
bool pytorch_identity_is_earlier(const Mismatch& m) {
  if (m.field != "identity_class") return true;
  if (m.a.rfind("t#", 0) != 0 || m.b.rfind("t#", 0) != 0) return false;
  const long long a = std::atoll(m.a.c_str() + 2), b = std::atoll(m.b.c_str() + 2);
  return b >= 0 && b < a;
}

/// pytorch-memo-stale-after-inplace-metadata-1.13: the PyTorch backend
/// noted that a stale memo entry answered the conversion (Note [Stale
/// converter memo entries], oracles/python_backend.py).
bool pytorch_memo_was_stale(const Mismatch& m) {
  const std::string_view note = "stale converter memo";
  return m.note_a.find(note) != std::string::npos || m.note_b.find(note) != std::string::npos;
}

/// pytorch-fake-memo-weak-values-1.13: the PyTorch backend noted that the
/// FakeTensorConverter's memo had lost the input's fake (Note [Stale
/// converter memo entries], oracles/python_backend.py).
bool pytorch_fake_memo_dropped(const Mismatch& m) {
  const std::string_view note = "fake memo dropped";
  return m.note_a.find(note) != std::string::npos || m.note_b.find(note) != std::string::npos;
}

/// pytorch-meta-set-resizes-storage-1.13: a side noted that set_ sized its
/// meta storage ("meta storage sized by set_: N bytes where F2 keeps K",
/// Note [Meta storages sized by set_] in oracles/python_backend.py), reports
/// N, and the other side reports K.
bool pytorch_meta_storage_set_sized(const Mismatch& m) {
  auto sized = [](const std::string& note, long long* n, long long* keeps) {
    const std::string_view tag = "meta storage sized by set_: ";
    const size_t at = note.find(tag);
    return at != std::string::npos && std::sscanf(note.c_str() + at + tag.size(),
                                                  "%lld bytes where F2 keeps %lld", n, keeps) == 2;
  };
  long long n = 0, keeps = 0;
  if (sized(m.note_b, &n, &keeps) && m.b == std::to_string(n) && m.a == std::to_string(keeps))
    return true;
  return sized(m.note_a, &n, &keeps) && m.a == std::to_string(n) && m.b == std::to_string(keeps);
}

/// pytorch-unflatten-empty-sizes-checked-first: the other side raised
/// dim_out_of_range (printed "dim_out_of_range (...)", compare.cpp).
bool other_side_dim_out_of_range(const Mismatch& m) {
  return m.a.rfind("dim_out_of_range", 0) == 0 || m.b.rfind("dim_out_of_range", 0) == 0;
}

/// pytorch-converters-accept-fakes, pytorch-fake-of-memoized-meta-1.13,
/// pytorch-fake-from-meta-memo-hit-1.13: PyTorch's converter gave a tensor
/// back ("none", no error) where the reference raised; whatever else PyTorch
/// raises there is a finding.
bool one_side_no_error(const Mismatch& m) { return m.a == "none" || m.b == "none"; }

/// meta-copy-unchecked-1.13: LibTorch's meta copy_ raised nothing where the
/// reference raised (on a meta input: "[meta]").
bool libtorch_meta_unchecked(const Mismatch& m) { return m.b == "none"; }

/// meta-as-strided-overflow-unchecked-1.13: the reference raised S9's storage
/// size overflow where LibTorch raised nothing, or only the bounds check on
/// the wrapped size (setStorage's out_of_bounds, for a storage smaller than
/// that: views-errors-meta-overflow-wraps-into-a-bounds-error.sc).
bool libtorch_skipped_size_overflow(const Mismatch& m) {
  return m.a.rfind("storage_size_overflow", 0) == 0 &&
         (m.b == "none" || m.b.rfind("out_of_bounds (", 0) == 0);
}

/// meta-set-sets-nbytes-1.13: LibTorch's set_ shrank the meta storage below
/// the reference's byte count (the reference only grows it).
bool libtorch_side_fewer_bytes(const Mismatch& m) {
  return std::atoll(m.b.c_str()) < std::atoll(m.a.c_str());
}

/// pytorch-meta-sparse-coo-nnz-0-1.13: PyTorch's side (either, by property)
/// has nnz 0.
bool one_side_nnz_0(const Mismatch& m) { return m.a == "0" || m.b == "0"; }

/// to-meta-sparse-coo-empty-1.13: LibTorch's side (the second) is a new
/// empty COO tensor: nnz 0, dense_dim 0, coalesced, sparse_dim the rank
/// (more than the input's).
bool libtorch_side_empty_coo(const Mismatch& m) {
  if (m.field == "nnz" || m.field == "dense_dim") return m.b == "0";
  if (m.field == "coalesced") return m.b == "coalesced";
  return m.field == "sparse_dim" && std::atoll(m.b.c_str()) > std::atoll(m.a.c_str());
}
}  // namespace

bool KnownDivergence::applies_to(std::string_view version) const {
  if (torch_versions == "*") return true;
  std::string_view rest = torch_versions;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (!item.empty() && version.substr(0, item.size()) == item &&
        (version.size() == item.size() || version[item.size()] == '.'))
      return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

const std::vector<KnownDivergence>& known_divergences() {
  // Upstream bugs that the LibTorch backend guards instead of running (S8/S9
  // policies in oracles/backend.h) do not diverge and are not listed; see
  // corpus/regressions/ for their regression files.
  static const std::vector<KnownDivergence> kList = {
      {"meta-set-sets-nbytes-1.13", "1.13", "set_", "storage_nbytes",
       "LibTorch 1.13's set_ on the meta device (set_storage_meta__symint) sets the shared "
       "meta storage's byte count to the source's extent, shrinking it for a source that does "
       "not reach the storage's end (every alias sees the smaller storage); later LibTorch "
       "only grows it ('The old behavior was to unconditionally set_nbytes'), as the "
       "reference does (Note [set_] in impl/ops.cpp). Matched only where LibTorch's side "
       "holds fewer bytes",
       "", "", /*meta_only=*/true, libtorch_side_fewer_bytes},
      {"meta-fill-unchecked-1.13", "1.13", "fill_", "error",
       "LibTorch 1.13's fill_ on the meta device skips the scalar range check that eager makes "
       "(value cannot be converted to type ... without overflow); SEMANTICS F9 says meta "
       "kernels make every check eager makes, and the reference does. Matched only where the "
       "reference raised that overflow and LibTorch nothing",
       "without overflow [meta]", "", false, libtorch_meta_unchecked},
      {"meta-as-strided-overflow-unchecked-1.13", "1.13",
       "as_strided,as_strided_,squeeze,unsqueeze,permute,movedim,expand", "error",
       "LibTorch 1.13's as_strided on the meta device skips eager's storage size overflow check "
       "(S9): strides whose extent overflows int64 build a meta tensor where eager raises; "
       "squeeze, unsqueeze, permute (movedim) and expand are as_strided in 1.13, so a view of a "
       "meta tensor whose extent overflows passes too; SEMANTICS F9 says meta kernels make "
       "every check eager makes. Matched only where the reference raised storage_size_overflow "
       "and LibTorch nothing, or the bounds check on the wrapped size (out_of_bounds) of a "
       "storage smaller than that",
       "[meta]", "", false, libtorch_skipped_size_overflow},
      {"meta-copy-unchecked-1.13", "1.13", "copy_", "error",
       "LibTorch 1.13's copy_ into a meta tensor returns before any check (copy_impl: 'Copies "
       "into meta self are OK and just ignored'): no broadcast shape check, no internal or "
       "partial overlap check; SEMANTICS F9 says meta kernels make every check eager makes. "
       "Matched only where LibTorch raised nothing",
       "[meta]", "", false, libtorch_meta_unchecked},
      {"resize-nonresizable-not-atomic-1.13", "1.13", "resize_,add_out,mul_out",
       "rank,sizes,strides",
       "LibTorch 1.13's resize_ sets the new sizes and strides before it tries to grow a "
       "non-resizable storage, so the failed call leaves the tensor half-changed (also add_out's "
       "and mul_out's resize of an out of other sizes, which calls resize_); the reference keeps "
       "the strong guarantee of SEMANTICS S10",
       "", "not resizable"},
      {"out-restride-not-atomic-1.13", "1.13", "add_out,mul_out", "rank,sizes,strides",
       "LibTorch 1.13's structured out= kernels resize out (resize_) and then restride it "
       "(as_strided_), which raises on a negative stride: for a 0-element input of huge sizes "
       "the iterator's strides wrap negative, so the failed call leaves out resized to the "
       "input's sizes with resize_'s strides; the reference raises the same error before the "
       "resize (SEMANTICS S10's strong guarantee)",
       "", "Negative strides are not supported"},
      {"to-meta-sparse-coo-empty-1.13", "1.13", "to_meta", "sparse_dim,dense_dim,nnz,coalesced",
       "LibTorch 1.13's to(kMeta) of a sparse COO tensor gives a new empty one of the same sizes "
       "and dtype: nnz 0, sparse_dim = rank, dense_dim 0, coalesced (a hybrid or uncoalesced "
       "input loses its dims split and flag); SEMANTICS F8 says to_meta keeps nnz, the "
       "sparse/dense dims split and the coalesced flag, as later PyTorch does, and the "
       "reference does",
       "", "", false, libtorch_side_empty_coo},
      {"meta-sparse-compressed-1.13", "1.13", "meta,fake,to_meta", "error",
       "LibTorch 1.13 has no meta tensors of the compressed sparse layouts (CSR, CSC, BSR, "
       "BSC): every way of building one raises ('Unsupported device type for SparseCsr "
       "layout: meta', 'Could not run new_compressed_tensor from the meta device'); "
       "SEMANTICS F4 converts them with their dense_dim, blocksize and index dtype (PyTorch "
       "2.x's _sparse_compressed_tensor_with_dims), and F8's to_meta clones them, as the "
       "reference does",
       "LibTorch has no meta sparse_"},
      {"symint-range-1.13", "1.13", "*", "error",
       "LibTorch 1.13 reserves int64 values below -2^62 for symbolic ints: a stride or size "
       "that lands there (huge strides on a numel-0 tensor scaled by slice/unfold/diagonal) "
       "raises 'cannot be represented as a SymInt' where the reference builds the view or "
       "raises its own error",
       "SymInt"},
      {"symint-range-assert-1.13", "1.13", "*", "error",
       "LibTorch 1.13: the same reserved SymInt range trips an internal assert "
       "(Expected !is_symbolic()) instead of a user error",
       "is_symbolic()"},
      // PyTorch 1.13's own Python stack (oracles/python_backend.h): what its
      // FakeTensorConverter and MetaConverter do by design, seen by the
      // pytorch.* properties.
      {"pytorch-memo-keeps-view-bases", "1.13", "memo_stats,sweep", "fake_memo,meta_memo",
       "PyTorch 1.13's MetaConverter converts a view by converting its autograd base first "
       "(meta_tensor(t._base)) and memoizes both; the base stays alive as long as the view "
       "(t._base), so its entry counts until the view dies. The reference memoizes the "
       "tensors it was asked to convert (F2, F3). A converted base stays alive through a view "
       "that outlives its variable too: values() and the other accessors of a sparse tensor "
       "are views of it in 1.13, so a dropped sparse tensor stays in the memo while its "
       "values() is bound. PyTorch's memo then holds more tensors, strided or sparse, never "
       "fewer",
       "", "", false, pytorch_holds_more_tensors},
      {"pytorch-storage-pending-after-its-tensor-1.13", "1.13", "memo_stats,sweep",
       "fake_memo,meta_memo",
       "PyTorch 1.13's MetaConverter drops a tensor's entry in a weakref.finalize callback, "
       "which runs before the tensor's storage is freed ('even though the tensor has died, the "
       "deallocation of its storage can take longer, even when the storage has no other "
       "uses/views', Note [expired-storages] in meta_utils.py), and puts the storage on its "
       "maybe_storages_to_delete list whenever it is still alive then, once per dead tensor "
       "entry, even while other tensors hold it; a sweep removes only the storages that died. "
       "F3 drops a storage's entry at the death of its last tensor entry when the storage died "
       "with it, and counts as pending only the storages whose tensor entries all died, as the "
       "reference does. PyTorch's memo then holds the same tensors, and more pending entries, "
       "at least one for each extra storage",
       "", "", false, pytorch_extra_storages_pending},
      {"pytorch-meta-storage-resize-1.13", "1.13", "resize_storage,shrink", "error",
       "PyTorch 1.13's Python UntypedStorage.resize_ supports cpu and cuda storages only "
       "('got unexpected device type meta'); the reference (and LibTorch C++) resize a meta "
       "storage's byte count",
       "unexpected device type meta"},
      {"pytorch-converters-accept-fakes", "*", "meta,fake", "error",
       "PyTorch's MetaConverter converts a FakeTensor like a real tensor (its __call__ accepts "
       "`isinstance(t, FakeTensor)`), and FakeTensorMode.from_tensor of a fake tensor returns "
       "a fake; the reference refuses a fake input with unsupported_fake_tensor (F4). Matched "
       "only where PyTorch raised nothing",
       "already a fake tensor", "", false, one_side_no_error},
      {"pytorch-fake-from-meta-memoized", "*", "fake_from_meta",
       "identity_class,rank,sizes,strides,offset",
       "PyTorch's FakeTensorConverter.from_meta_and_device memoizes by the meta tensor: the "
       "same live meta tensor gives the same fake tensor (F2's rule applied to F5), of the "
       "geometry it had then even after an in-place metadata op (as_strided_, set_) changed "
       "the meta tensor; the reference makes a new fake tensor at each fake_from_meta",
       "", "", false, pytorch_identity_is_earlier},
      {"pytorch-fake-meta-device-assert-1.13", "1.13", "fake,to_meta,fake_from_meta", "error",
       "PyTorch 1.13's FakeTensor asserts that its device is not meta (`assert device.type != "
       "\"meta\"` in FakeTensor.__init__): converting a meta tensor, or moving a fake tensor "
       "to meta, fails on that AssertionError (kind other), as does from_meta_and_device of a "
       "tensor that is not meta (`assert t.device.type == \"meta\"`), instead of the typed "
       "UnsupportedFakeTensorException the reference raises (F4). The PyTorch backend labels "
       "the AssertionError of those steps alone (Note [FakeTensor's device asserts] in "
       "python_backend.py), so that no other assert matches",
       "FakeTensor's device assert"},
      {"pytorch-fake-of-memoized-meta-1.13", "1.13", "fake", "error",
       "PyTorch 1.13's FakeTensorConverter.from_real_tensor looks its memo up before it looks "
       "at the input: a meta tensor that fake_from_meta converted before (memoized by the "
       "meta tensor, pytorch-fake-from-meta-memoized) gives that fake tensor back; the "
       "reference refuses a meta input with unsupported_fake_tensor (F4). Listed after "
       "pytorch-fake-meta-device-assert-1.13, which a meta input that is not in the memo "
       "matches (its AssertionError); matched only where PyTorch raised nothing",
       "already a meta tensor", "", false, one_side_no_error},
      {"pytorch-lazy-clone-standin-pre-2.3", "1.13,2.0,2.1,2.2", "lazy_clone", "error",
       "PyTorch before 2.3 has no torch._lazy_clone: the PyTorch spelling runs the emitted "
       "scripts' eager stand-in (an eager copy of the whole storage, C6), which cannot set a "
       "real storage on a fake or meta tensor",
       "different device"},
      {"pytorch-meta-set-resizes-storage-1.13", "1.13", "meta,fake", "storage_nbytes",
       "an upstream bug in PyTorch 1.13's MetaConverter (meta_utils.py): it builds each meta "
       "tensor with set_(storage, offset, sizes, strides), which resizes the shared meta "
       "storage to that tensor's extent, so an emptied tensor (R2) gets a fake storage of "
       "its full extent instead of 0 bytes, and one that does not span its storage gets a "
       "smaller one; F2 keeps the real storage's byte size. Found by "
       "pytorch.fake_matches_reference (harness/pytorch_check.sh replays it). Converting "
       "another tensor of a storage already converted sets the shared meta storage's byte "
       "count again, under every conversion of it (shrinking one a resize_ of a fake grew), "
       "where F2 leaves it. Matched only where the PyTorch backend noted the byte count it "
       "got and the one F2 gives, and the two sides report exactly those (Note [Meta storages "
       "sized by set_] in python_backend.py)",
       "", "", false, pytorch_meta_storage_set_sized},
      {"pytorch-meta-set-resizes-storage-view-1.13", "1.13", "meta,fake", "error",
       "the same upstream bug as pytorch-meta-set-resizes-storage-1.13: PyTorch 1.13's "
       "MetaConverter resizes the meta storage to the base's extent with set_, so a view "
       "that reaches past its base's extent (as_strided_ on the base) fails to convert "
       "('setStorage: ... out of bounds'); F2 converts it over a storage of the real "
       "storage's byte size",
       "setStorage: sizes"},
      {"pytorch-fake-from-meta-memo-hit-1.13", "1.13", "fake_from_meta", "error",
       "PyTorch 1.13's FakeTensorConverter.from_meta_and_device looks the tensor up in its "
       "memo before anything else: a real tensor that was converted by `fake` before comes "
       "back as its fake instead of failing the meta-device check that a fresh one fails "
       "(see pytorch-fake-meta-device-assert-1.13); F5 takes meta tensors only. Matched only "
       "where PyTorch raised nothing",
       "the input is not a meta tensor", "", false, one_side_no_error},
      {"pytorch-memo-stale-after-inplace-metadata-1.13", "1.13", "meta,fake",
       "rank,sizes,strides,offset,alias_class,storage_nbytes",
       "an upstream limitation of PyTorch 1.13's MetaConverter: a tensor it converted as the "
       "base of a view (it converts t._base first, see pytorch-memo-keeps-view-bases) stays "
       "in its memo with the geometry and storage it had then, so after an in-place metadata "
       "change (resize_, t_, transpose_, as_strided_, set_ onto another storage, ...) "
       "converting that tensor itself returns the stale conversion, and converting a view of "
       "it builds the view on the stale conversion's storage (shared with the earlier "
       "conversions); the reference gives the tensor's current metadata and storage (F1, "
       "F2). Matched only where the PyTorch backend noted the stale entry (Note [Stale "
       "converter memo entries] in python_backend.py)",
       "", "", false, pytorch_memo_was_stale},
      {"pytorch-fake-memo-weak-values-1.13", "1.13", "fake", "rank,sizes,strides,offset",
       "PyTorch 1.13's FakeTensorConverter holds its fakes weakly (tensor_memo is a "
       "WeakValueDictionary): once the fake of a live real tensor dies, `fake` of that tensor "
       "makes a new fake from the MetaConverter's memo, with the geometry the tensor was "
       "converted with, where F2 gives the same fake while the real tensor lives, as the "
       "reference does; the two differ once an in-place metadata op (transpose_, "
       "as_strided_, resize_, ...) changed the first fake before it died. Matched only where "
       "the PyTorch backend noted the memo miss (Note [Stale converter memo entries] in "
       "python_backend.py)",
       "", "", false, pytorch_fake_memo_dropped},
      {"pytorch-meta-sparse-coo-nnz-0-1.13", "1.13", "meta", "nnz",
       "PyTorch 1.13's MetaConverter converts a sparse COO tensor to a new meta one with the "
       "same sizes, sparse_dim, dense_dim and coalesced flag but nnz 0 (meta_utils.py: "
       "sparse_resize_and_clear_); SEMANTICS F4 allows that in PyTorch's converter, and the "
       "reference's `meta` (and the LibTorch backend's) is the faithful mode that keeps nnz "
       "(their `fake` gives nnz 0 and agrees)",
       "", "", false, one_side_nnz_0},
      {"pytorch-meta-sparse-compressed-1.13", "1.13", "meta,fake,to_meta", "error",
       "PyTorch 1.13 converts no compressed sparse tensor (CSR, CSC, BSR, BSC): "
       "FakeTensorMode.from_tensor raises UnsupportedFakeTensorException ('meta converter "
       "nyi'), MetaConverter returns the input unconverted, and to('meta') raises "
       "'Unsupported device type for SparseCsr layout: meta'; SEMANTICS F4 converts them with "
       "their dense_dim, blocksize and index dtype, and F8's to_meta clones them, as the "
       "reference does. A part of one (values(), crow_indices(), ...: views of the compressed "
       "base) fails the same way, untyped: the MetaConverter converts the view's base first "
       "and raises NotImplementedError ('Cannot access storage of SparseCsrTensorImpl') "
       "where F4 wants the typed error for a view of a sparse base. The PyTorch backend labels "
       "these errors (sc_labelled in "
       "python_backend.py) so that this entry matches them alone",
       "PyTorch 1.13 has no meta torch.sparse_"},
      {"pytorch-fake-memo-hit-leaks-1.13", "1.13", "sweep,memo_stats", "memo_leak",
       "PyTorch 1.13's FakeTensorConverter._get_memo calls _fix_weakref() on the fake tensor "
       "of every memo hit (converting a live real tensor again), and such a fake outlives "
       "every reference: after gc.collect() it is alive with no referrer, its real tensor dead "
       "and the memo empty (100 of 100 in a loop; converted once, none is; MetaConverter's "
       "memo leaks nothing). Fixed upstream in 2.0 (pytorch/pytorch#90823, 'Fix _fix_weakref "
       "memory leak'). SEMANTICS F3's memo is weak and never leaks, as the reference's is; "
       "the PyTorch backend reports these fakes apart (Note [Fakes a memo hit keeps alive] in "
       "python_backend.py)",
       "returned again by FakeTensorConverter's memo"},
      {"pytorch-sparse-coo-indices-converted", "*", "sparse_coo_tensor", "error",
       "Python's torch.sparse_coo_tensor converts indices of any other dtype to int64 "
       "(tensor_new.cpp: internal_new_from_data with kLong, a copy: the sparse tensor then "
       "shares no storage with them, and float indices are truncated), where LibTorch's "
       "at::sparse_coo_tensor, as the reference, raises for indices that are not int64: a "
       "difference of the two front ends, not of ATen",
       "indices must be an int64 tensor|expected scalar type Long"},
      {"pytorch-unflatten-empty-sizes-checked-first", "*", "unflatten", "error",
       "Python's Tensor.unflatten (torch/_tensor.py) raises 'unflatten: sizes must be "
       "non-empty' before it calls ATen, where ATen's unflatten (as the reference) wraps the "
       "dim first: an empty sizes list with a dim out of range raises invalid_argument in "
       "Python and dim_out_of_range in LibTorch, a difference of the two front ends, not of "
       "ATen",
       "unflatten: sizes must be non-empty", "", false, other_side_dim_out_of_range},
  };
  return kList;
}

const KnownDivergence* match_known_divergence(std::string_view op, const Mismatch& m,
                                              std::string_view torch_version, bool with_pytorch,
                                              const std::vector<KnownDivergence>& list) {
  for (const KnownDivergence& k : list) {
    if (!k.applies_to(torch_version)) continue;
    if (is_pytorch_entry(k) && !with_pytorch) continue;
    if (k.op != "*" && !list_contains(k.op, op)) continue;
    if (!list_contains(k.field, m.field)) continue;
    if (!k.contains.empty() && !either_contains(k.contains, m.a, m.b)) continue;
    if (!k.step_error.empty() && !either_contains(k.step_error, m.error_a, m.error_b)) continue;
    if (k.meta_only && !m.on_meta) continue;
    if (k.when && !k.when(m)) continue;
    return &k;
  }
  return nullptr;
}

const KnownDivergence* match_known_divergence(std::string_view op, const std::string& field,
                                              const std::string& a, const std::string& b,
                                              std::string_view torch_version, bool with_pytorch,
                                              const std::vector<KnownDivergence>& list) {
  Mismatch m;
  m.field = field;
  m.a = a;
  m.b = b;
  return match_known_divergence(op, m, torch_version, with_pytorch, list);
}

bool is_pytorch_entry(const KnownDivergence& k) { return k.id.substr(0, 8) == "pytorch-"; }

const KnownDivergence* find_known_divergence(std::string_view id,
                                             const std::vector<KnownDivergence>& list) {
  for (const KnownDivergence& k : list)
    if (k.id == id) return &k;
  return nullptr;
}

}  // namespace storcheck
