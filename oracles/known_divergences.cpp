#include "oracles/known_divergences.h"

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
      {"meta-fill-unchecked-1.13", "1.13", "fill_", "error",
       "LibTorch 1.13's fill_ on the meta device skips the scalar range check that eager makes "
       "(value cannot be converted to type ... without overflow); SEMANTICS F9 says meta "
       "kernels make every check eager makes, and the reference does",
       "[meta]"},
      {"meta-as-strided-overflow-unchecked-1.13", "1.13", "as_strided,as_strided_", "error",
       "LibTorch 1.13's as_strided on the meta device skips eager's storage size overflow check "
       "(S9): strides whose extent overflows int64 build a meta tensor where eager raises; "
       "SEMANTICS F9 says meta kernels make every check eager makes",
       "[meta]"},
      {"meta-copy-unchecked-1.13", "1.13", "copy_", "error",
       "LibTorch 1.13's copy_ into a meta tensor returns before any check (copy_impl: 'Copies "
       "into meta self are OK and just ignored'): no broadcast shape check, no internal or "
       "partial overlap check; SEMANTICS F9 says meta kernels make every check eager makes",
       "[meta]"},
      {"resize-nonresizable-not-atomic-1.13", "1.13", "resize_", "rank,sizes,strides",
       "LibTorch 1.13's resize_ sets the new sizes and strides before it tries to grow a "
       "non-resizable storage, so the failed call leaves the tensor half-changed; the reference "
       "keeps the strong guarantee of SEMANTICS S10"},
      {"to-meta-sparse-coo-empty-1.13", "1.13", "to_meta", "sparse_dim,dense_dim,nnz,coalesced",
       "LibTorch 1.13's to(kMeta) of a sparse COO tensor gives a new empty one of the same sizes "
       "and dtype: nnz 0, sparse_dim = rank, dense_dim 0, coalesced (a hybrid or uncoalesced "
       "input loses its dims split and flag); SEMANTICS F8 says to_meta keeps nnz, the "
       "sparse/dense dims split and the coalesced flag, as later PyTorch does, and the "
       "reference does"},
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
  };
  return kList;
}

const KnownDivergence* match_known_divergence(std::string_view op, const std::string& field,
                                              const std::string& a, const std::string& b,
                                              std::string_view torch_version,
                                              const std::vector<KnownDivergence>& list) {
  for (const KnownDivergence& k : list) {
    if (!k.applies_to(torch_version)) continue;
    if (k.op != "*" && !list_contains(k.op, op)) continue;
    if (!list_contains(k.field, field)) continue;
    if (!k.contains.empty() && a.find(k.contains) == std::string::npos &&
        b.find(k.contains) == std::string::npos)
      continue;
    return &k;
  }
  return nullptr;
}

const KnownDivergence* find_known_divergence(std::string_view id,
                                             const std::vector<KnownDivergence>& list) {
  for (const KnownDivergence& k : list)
    if (k.id == id) return &k;
  return nullptr;
}

}  // namespace storcheck
