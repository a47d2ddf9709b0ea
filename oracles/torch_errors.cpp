// See torch_errors.h. The table below is the whole classification: to support
// a new LibTorch message, add one row with a comment saying which op raises it
// (and in which LibTorch version when it is version-specific).
#include "oracles/torch_errors.h"

#include "oracles/torch_pch.h"

namespace storcheck {
namespace {

// Note [Torch error table]
// Rows are tried in order and the first whose substring occurs in the message
// wins, so a specific row must come before a more general one that would also
// match (e.g. the expand "leading, non-existing dimension" row before the
// generic "The expanded size of the tensor" row). Substrings are chosen to be
// stable across LibTorch 1.13 and 2.x; where the versions word a check
// differently, both wordings have a row with the same kind.
constexpr TorchErrorRule kTorchErrorRules[] = {
    // --- kDimOutOfRange ---------------------------------------------------
    // maybe_wrap_dim: every dim argument (select, transpose, unsqueeze, ...).
    {"Dimension out of range", ErrorKind::kDimOutOfRange},
    // maybe_wrap_dim on a 0-dim tensor in older code paths.
    {"Dimension specified as 0 but tensor has no dimensions", ErrorKind::kDimOutOfRange},
    // select()/narrow()/unbind() on a 0-dim tensor.
    {"cannot be applied to a 0-dim tensor", ErrorKind::kDimOutOfRange},
    // split()/chunk() on a 0-dim tensor: "split expects at least a
    // 1-dimensional tensor" (as select() on a 0-dim tensor, above).
    {"expects at least a 1-dimensional tensor", ErrorKind::kDimOutOfRange},
    // narrow in LibTorch 2.x: start outside [-size, size]. LibTorch 1.13
    // wraps `start` with maybe_wrap_dim and says "Dimension out of range", so
    // both versions classify it as kDimOutOfRange.
    {"start out of range", ErrorKind::kDimOutOfRange},
    // --- kIndexOutOfRange -------------------------------------------------
    // select(): "index 3 out of range for tensor of size [3, 4] at dimension 0".
    {"out of range for tensor of size", ErrorKind::kIndexOutOfRange},
    // --- kOutOfBounds (S5) ------------------------------------------------
    // setStorage/as_strided/checkInBoundsForStorage: "... requiring a storage
    // size of 80 are out of bounds for storage of size 40".
    {"out of bounds for storage of size", ErrorKind::kOutOfBounds},
    // --- kViewIncompatible (S6) -------------------------------------------
    // view(): the shape cannot be expressed over the strides.
    {"view size is not compatible with input tensor's size and stride",
     ErrorKind::kViewIncompatible},
    // --- kInvalidArgument that a kShapeMismatch row below would also match --
    // expand(): -1 for a new leading dim.
    {"isn't allowed in a leading, non-existing dimension", ErrorKind::kInvalidArgument},
    // narrow() in LibTorch 2.x with a negative length (1.13 says "start (2) +
    // length (-1) exceeds dimension size (4)", a kShapeMismatch below).
    {"length must be non-negative", ErrorKind::kInvalidArgument},
    // --- kShapeMismatch: numel, broadcast or extent mismatch ---------------
    // view/reshape: "shape '[5]' is invalid for input of size 12".
    {"is invalid for input of size", ErrorKind::kShapeMismatch},
    // expand(): a non-singleton dim of the wrong size.
    {"The expanded size of the tensor", ErrorKind::kShapeMismatch},
    // expand(): fewer sizes than dims.
    {"must be greater or equal to the number of dimensions in the tensor",
     ErrorKind::kShapeMismatch},
    // copy_ (broadcast of src to dst): "The size of tensor a (4) must match
    // the size of tensor b (5) at non-singleton dimension 1".
    {"must match the size of tensor", ErrorKind::kShapeMismatch},
    // copy_ whose src broadcasts to a bigger shape than dst: "output with
    // shape [2, 1] doesn't match the broadcast shape [2, 2]".
    {"doesn't match the broadcast shape", ErrorKind::kShapeMismatch},
    // unflatten(): "Provided sizes [3, 3] don't multiply up to the size of dim 1".
    {"don't multiply up to the size", ErrorKind::kShapeMismatch},
    // narrow(): "start (2) + length (5) exceeds dimension size (4)".
    {"exceeds dimension size", ErrorKind::kShapeMismatch},
    // unfold(): "maximum size for tensor at dimension 1 is 4 but size is 5".
    {"maximum size for tensor at dimension", ErrorKind::kShapeMismatch},
    // --- kInternalOverlap / kPartialOverlap (S7) ----------------------------
    // assert_no_internal_overlap: in-place write to stride-0 dims of size > 1.
    {"more than one element of the written-to tensor refers to a single memory location",
     ErrorKind::kInternalOverlap},
    // assert_no_partial_overlap: copy_ src partially overlapping dst.
    {"some elements of the input tensor and the written-to tensor refer to a single memory "
     "location",
     ErrorKind::kPartialOverlap},
    // --- kDtypeCast --------------------------------------------------------
    // TensorIterator: "result type Float can't be cast to the desired output
    // type Int" (add_ 1.5 on i32, add_ 1 on bool).
    {"can't be cast to the desired output type", ErrorKind::kDtypeCast},
    // --- kScalarOverflow ---------------------------------------------------
    // fill_/full: "value cannot be converted to type uint8_t without overflow".
    {"value cannot be converted to type", ErrorKind::kScalarOverflow},
    // --- kStorageSizeOverflow (S9) ------------------------------------------
    // computeStorageNbytes (factories, empty_strided, as_strided, unfold with
    // a negative size, resize_); also empty_strided with a negative stride,
    // which LibTorch computes in uint64.
    {"Storage size calculation overflowed", ErrorKind::kStorageSizeOverflow},
    // safe_compute_numel (resize_ in 1.13, including negative sizes).
    {"integer multiplication overflow", ErrorKind::kStorageSizeOverflow},
    // maybe_resize_storage_cpu: "Requested storage size (...) cannot be
    // represented as a size_t".
    {"cannot be represented as a size_t", ErrorKind::kStorageSizeOverflow},
    // --- kNonResizable (S10, R1) ---------------------------------------------
    {"Trying to resize storage that is not resizable", ErrorKind::kNonResizable},
    // --- kInvalidArgument --------------------------------------------------
    // Factories: "Trying to create tensor with negative dimension -1: [-1]".
    {"negative dimension", ErrorKind::kInvalidArgument},
    // view/reshape: "invalid shape dimension -2".
    {"invalid shape dimension", ErrorKind::kInvalidArgument},
    // view/reshape/unflatten: two -1 entries.
    {"only one dimension can be inferred", ErrorKind::kInvalidArgument},
    // view/reshape of a 0-element tensor with -1: "cannot reshape tensor of
    // 0 elements into shape [0, 2, -1] because the unspecified dimension size
    // -1 can be any value and is ambiguous".
    {"can be any value and is ambiguous", ErrorKind::kInvalidArgument},
    // slice(): step <= 0.
    {"slice step must be positive", ErrorKind::kInvalidArgument},
    // unfold(): "step is 0 but must be > 0".
    {"but must be > 0", ErrorKind::kInvalidArgument},
    // permute(): repeated dims.
    {"duplicate dims are not allowed", ErrorKind::kInvalidArgument},
    // permute(): wrong number of dims.
    {"does not match the length of the desired ordering", ErrorKind::kInvalidArgument},
    // t() on a tensor with more than 2 dims.
    {"expects a tensor with <= 2 dimensions", ErrorKind::kInvalidArgument},
    // diagonal(): dim1 == dim2.
    {"diagonal dimensions cannot be identical", ErrorKind::kInvalidArgument},
    // as_strided(): negative storage offset ("Tensor: invalid storage offset -1").
    {"invalid storage offset", ErrorKind::kInvalidArgument},
    // as_strided(): a negative stride.
    {"Negative strides are not supported", ErrorKind::kInvalidArgument},
    // view(dtype): "self.dim() cannot be 0 to view Int as Byte (different
    // element sizes)", "self.stride(-1) must be 1 to view ...", "self.size(-1)
    // must be divisible by 2 to view ...".
    {"(different element sizes)", ErrorKind::kInvalidArgument},
    // Sparse conversions (impl/sparse.h): 0-d inputs of to_sparse_csr/bsr...
    {"but tensor has no dimensions", ErrorKind::kDimOutOfRange},
    // ... to_sparse(sparse_dim) outside 1..dim.
    {"sparse_dim must be", ErrorKind::kDimOutOfRange},
    // Blocksizes that do not divide the sizes, or are zero.
    {"needs to be divisible by blocksize", ErrorKind::kShapeMismatch},
    {"blocksize needs to be non zero", ErrorKind::kInvalidArgument},
    // sparse_coo_tensor(indices, values, sizes): the argument checks of
    // _validate_sparse_coo_tensor_args.
    {"indices must be sparse_dim x nnz", ErrorKind::kInvalidArgument},
    {"number of dimensions must be sparse_dim", ErrorKind::kShapeMismatch},
    {"indices must be an int64 tensor", ErrorKind::kInvalidArgument},
    // ... the same check as LibTorch C++ reaches it for non-empty indices of
    // another dtype (the reference says "indices must be an int64 tensor").
    {"expected scalar type Long but found", ErrorKind::kInvalidArgument},
    {"found negative index", ErrorKind::kIndexOutOfRange},
    {"size is inconsistent with indices", ErrorKind::kIndexOutOfRange},
    {"indices and values must have same nnz", ErrorKind::kShapeMismatch},
    {"values has incorrect size", ErrorKind::kShapeMismatch},
    // sparse_{csr,csc,bsr,bsc}_tensor(compressed, plain, values, sizes): the
    // checks of 1.13's _validate_sparse_compressed_tensor_args (impl/sparse.cpp
    // sparse_compressed_tensor, same kinds). A plain index out of range
    // ("`0 <= col_indices < ncols` is not satisfied.") before the other
    // invariants' rows.
    {"to be a strided and contiguous tensor", ErrorKind::kInvalidArgument},
    {"must have dimensionality >= 1 but got", ErrorKind::kShapeMismatch},
    {"dimensionalities must be equal but got", ErrorKind::kShapeMismatch},
    {"values must have dimensionality > sum of batch and block", ErrorKind::kShapeMismatch},
    // 1.13 spells it "dimensionalites".
    {"tensor dimensionality must be sum of batch, base, and dense", ErrorKind::kShapeMismatch},
    {"must be equal to tensor batch dimensions", ErrorKind::kShapeMismatch},
    {"as defined by values shape", ErrorKind::kShapeMismatch},
    {".shape[-1] must be equal to the number of", ErrorKind::kShapeMismatch},
    {".shape[-1] must be equal to nnz", ErrorKind::kShapeMismatch},
    // 1.13: "... must have the same dtype, bot got Int and Long, respectively".
    {"_indices must have the same dtype", ErrorKind::kInvalidArgument},
    {"dtype must be Int or Long, but got", ErrorKind::kInvalidArgument},
    {" < ncols` is not satisfied", ErrorKind::kIndexOutOfRange},
    {" < nrows` is not satisfied", ErrorKind::kIndexOutOfRange},
    {"` is not satisfied", ErrorKind::kInvalidArgument},
    // to_dense of a compressed tensor with dense dims (sparse_csr_tensor of
    // values [nnz, d]): 1.13 densifies no hybrid compressed tensor.
    {"Hybrid tensors are not supported", ErrorKind::kInvalidArgument},
    // indices()/values() of an uncoalesced COO tensor.
    {"Cannot get indices on an uncoalesced tensor", ErrorKind::kInvalidArgument},
    {"Cannot get values on an uncoalesced tensor", ErrorKind::kInvalidArgument},
    // Compressed layouts: batches of different nnz, or an empty batch.
    {"Expect the same number of specified elements per batch", ErrorKind::kInvalidArgument},
    {"Expected product of batch dimensions to be non-zero", ErrorKind::kInvalidArgument},
    // set_() in PyTorch's Python binding: "source.dtype() == self.dtype()
    // INTERNAL ASSERT FAILED" (storcheck's backends raise it as an argument error).
    {"source.dtype() == self.dtype()", ErrorKind::kInvalidArgument},
    {"the source's dtype differs from self's", ErrorKind::kInvalidArgument},
    // set_(): checkSetStorage, a storage on another device.
    {"This is no longer allowed; the devices must match", ErrorKind::kDeviceMismatch},
    // add_out, mul_out (TensorIterator's compute_types): "Expected all tensors to be
    // on the same device, but found at least two devices, meta and cpu!".
    {"Expected all tensors to be on the same device", ErrorKind::kDeviceMismatch},
    // ... and a 0-dim CPU input beside the wrapped scalar on a non-CPU out:
    // "Trying to pass too many CPU scalars to non-CPU kernel!".
    {"too many CPU scalars to non-CPU kernel", ErrorKind::kDeviceMismatch},
    // copy_() from a meta source into a real destination.
    {"Cannot copy out of meta tensor", ErrorKind::kDeviceMismatch},
    // flatten(): start_dim > end_dim.
    {"start_dim cannot come after end_dim", ErrorKind::kInvalidArgument},
    // chunk(): chunks <= 0.
    {"chunk expects `chunks` to be greater than 0", ErrorKind::kInvalidArgument},
    // split(): split_size 0 on a non-empty dim, or negative.
    {"split_size can only be 0 if dimension size is 0", ErrorKind::kInvalidArgument},
    {"split expects split_size be non-negative", ErrorKind::kInvalidArgument},
    // unflatten(): empty sizes list.
    {"sizes must be non-empty", ErrorKind::kInvalidArgument},
    // as_strided/empty_strided: sizes and strides of different lengths.
    {"must match dimensionality of strides", ErrorKind::kInvalidArgument},
    {"mismatch in length of strides and shape", ErrorKind::kInvalidArgument},
};

}  // namespace

ErrorKind classify_torch_message(std::string_view message) {
  for (const TorchErrorRule& rule : kTorchErrorRules) {
    if (message.find(rule.substring) != std::string_view::npos) return rule.kind;
  }
  return ErrorKind::kOther;
}

std::string torch_exception_message(const std::exception& e) {
  if (const auto* ce = dynamic_cast<const c10::Error*>(&e)) return ce->what_without_backtrace();
  return e.what();
}

Error classify_torch_exception(const std::exception& e) {
  std::string msg = torch_exception_message(e);
  ErrorKind kind = classify_torch_message(msg);
  return make_error(kind, "torch: " + msg);
}

}  // namespace storcheck
