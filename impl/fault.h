// Fault injection: switches that plant a known bug in the reference so tests
// can prove the pipeline finds bugs (issue: "proof the pipeline finds bugs").
//
// Invariant: unless the build defines STORCHECK_FAULT_INJECTION (the test
// build does, the normal build does not), `fault_active` is constant false
// and no fault can be switched on.
//
//   set_active_fault(Fault::kTransposeSquareStrides);   // test build only
//   ... run the gate: it must fail ...
//   set_active_fault(Fault::kNone);
#pragma once

#include <string_view>

namespace storcheck {

enum class Fault {
  kNone,
  /// transpose/transpose_ of two dims of equal size > 1 swaps the sizes but
  /// forgets to swap the strides (S2/S4 violated on square shapes).
  kTransposeSquareStrides,
  /// The restore rule (R3) is checked only by `clone`, as in the original
  /// bug: the other clone paths treat an emptied input as S8 undefined.
  kRestoreOnlyInClone,
  /// rehydrate sizes a storage from one view only (the emptied tensor with
  /// the smallest extent) instead of the largest extent among them (R5).
  kRehydrateFromOneView,
  /// A write by the last sharer of a COW block copies it to a new address
  /// instead of taking ownership (C4).
  kLastSharerCopies,
  /// An in-place scalar op (add_, mul_, ...) through a view that does not
  /// start the storage or is not contiguous writes into the COW block
  /// without materializing it, so every sharer sees the write (C3, C6).
  kViewWriteSkipsCow,
  /// The meta/fake memo keeps a strong reference to the real tensor (F3):
  /// nothing it converted can die, and the memo never empties.
  kMemoStrongRef,
  /// Converting a second tensor of a storage gives it a fresh meta storage:
  /// a view loses its aliasing with the converted base (F2).
  kFakeViewLosesAliasing,
  /// The meta rule of add/mul gives contiguous strides where eager keeps the
  /// input's permuted layout (F6: fake execution differs from eager).
  kMetaOutplaceContiguous,
  /// The fallback converts an output that aliases an input into a fresh
  /// fake tensor instead of raising (F7: the view loses its aliasing).
  kFallbackConvertsViews,
  /// inplace_view ops fall back like any other op (F7 says they never do).
  kFallbackRunsInplaceView,
  /// Sparse conversion swaps sparse_dim and dense_dim: the meta or fake
  /// tensor of a sparse tensor reports the real one's dense_dim as its
  /// sparse_dim and the other way round (F4).
  kSparseFakeSwapsDims,
  // Harness faults (oracles/reference_backend.cpp): a backend that misbehaves
  // the way a broken LibTorch can, so tests can prove the harness copes.
  /// The reference backend hangs (sleeps an hour) in zero_: a per-program
  /// timeout must report it with the program saved.
  kHangInZero,
  /// The reference backend dies of SIGSEGV in fill_: --isolate must keep
  /// the gate going and save the program.
  kCrashInFill,
  /// The reference backend throws std::logic_error in clone: an internal
  /// error, exit code 3.
  kThrowInClone,
};

/// Every fault, kNone first.
inline constexpr Fault kAllFaults[] = {Fault::kNone,
                                       Fault::kTransposeSquareStrides,
                                       Fault::kRestoreOnlyInClone,
                                       Fault::kRehydrateFromOneView,
                                       Fault::kLastSharerCopies,
                                       Fault::kViewWriteSkipsCow,
                                       Fault::kMemoStrongRef,
                                       Fault::kFakeViewLosesAliasing,
                                       Fault::kMetaOutplaceContiguous,
                                       Fault::kFallbackConvertsViews,
                                       Fault::kFallbackRunsInplaceView,
                                       Fault::kSparseFakeSwapsDims,
                                       Fault::kHangInZero,
                                       Fault::kCrashInFill,
                                       Fault::kThrowInClone};

/// True when the build has fault injection compiled in.
bool fault_injection_available();
/// Switches a fault on (or kNone for off). False when unavailable.
bool set_active_fault(Fault f);
/// "none", "transpose_square_strides".
std::string_view fault_name(Fault f);
bool parse_fault(std::string_view name, Fault* out);

#ifdef STORCHECK_FAULT_INJECTION
bool fault_active(Fault f);
#else
constexpr bool fault_active(Fault) { return false; }
#endif

}  // namespace storcheck
