#include "impl/fault.h"

namespace storcheck {

namespace {
[[maybe_unused]] Fault g_fault = Fault::kNone;
}  // namespace

bool fault_injection_available() {
#ifdef STORCHECK_FAULT_INJECTION
  return true;
#else
  return false;
#endif
}

bool set_active_fault(Fault f) {
#ifdef STORCHECK_FAULT_INJECTION
  g_fault = f;
  return true;
#else
  return f == Fault::kNone;
#endif
}

#ifdef STORCHECK_FAULT_INJECTION
bool fault_active(Fault f) { return g_fault == f; }
#endif

std::string_view fault_name(Fault f) {
  switch (f) {
    case Fault::kNone: return "none";
    case Fault::kTransposeSquareStrides: return "transpose_square_strides";
    case Fault::kRestoreOnlyInClone: return "restore_only_in_clone";
    case Fault::kRehydrateFromOneView: return "rehydrate_from_one_view";
    case Fault::kLastSharerCopies: return "last_sharer_copies";
    case Fault::kViewWriteSkipsCow:
      return "view_write_skips_cow";
    case Fault::kMemoStrongRef: return "memo_strong_ref";
    case Fault::kFakeViewLosesAliasing: return "fake_view_loses_aliasing";
    case Fault::kMetaOutplaceContiguous: return "meta_outplace_contiguous";
    case Fault::kFallbackConvertsViews: return "fallback_converts_views";
    case Fault::kFallbackRunsInplaceView: return "fallback_runs_inplace_view";
    case Fault::kSparseFakeSwapsDims: return "sparse_fake_swaps_dims";
    case Fault::kHangInZero: return "hang_in_zero";
    case Fault::kCrashInFill: return "crash_in_fill";
    case Fault::kThrowInClone: return "throw_in_clone";
  }
  return "?";
}

bool parse_fault(std::string_view name, Fault* out) {
  for (Fault f : kAllFaults) {
    if (fault_name(f) == name) {
      *out = f;
      return true;
    }
  }
  return false;
}

}  // namespace storcheck
