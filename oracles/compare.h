// The comparator: checks two backends' observations of one step and names
// the first field that differs (STYLE rule 11: a structured report, never a
// bare false).
//
// Fields are compared in a fixed order — the step's error kind, then for
// each variable in id order: live, rank, sizes, strides, offset, dtype,
// storage_nbytes, data_null, alias_class, identity_class, is_cow, data_class,
// data_moved, cow_refs, version, values — and a field
// either backend cannot observe (Capabilities, *_known) is skipped.
// Values: integers and bool compare exactly; floats within a relative
// tolerance of 1e-5 (f32) or 1e-12 (f64) of max(1, |a|, |b|): every op but
// `sum` is one IEEE operation per element and matches exactly, `sum`
// accumulates in a backend-specific order. nan equals nan, -0.0 equals 0.0.
//
//   Mismatch m;
//   if (!compare_observations(ref_obs, ref_caps, torch_obs, torch_caps, &m))
//     std::cout << m.field << " of " << m.var << ": " << m.a << " vs " << m.b;
#pragma once

#include <string>

#include "oracles/backend.h"

namespace storcheck {

/// The first difference between two observations of one step.
struct Mismatch {
  std::string field;   ///< "error", "sizes", "values", ...
  VarId var = kNoVar;  ///< kNoVar for the step-level field "error"
  std::string a;       ///< the first backend's value, printed
  std::string b;       ///< the second backend's value, printed
  // Where it happened, for the known-divergence list (oracles/known_divergences.h):
  /// The step's error message in each backend ("" : the step succeeded there).
  std::string error_a, error_b;
  /// The step's note in each backend (Observation::step_note).
  std::string note_a, note_b;
  /// The differing variable is a meta or fake tensor in the first backend.
  bool on_meta = false;
};

/// True when equal on every field both can observe; else fills *m. With
/// `only`, compares just those variables (Note [Incremental observation]).
bool compare_observations(const Observation& a, const Capabilities& ca, const Observation& b,
                          const Capabilities& cb, Mismatch* m,
                          const std::vector<VarId>* only = nullptr);

/// Prints a VarObs field for reports ("[3, 4]", "f32", "[1.5, 2, nan]").
std::string format_values(const VarObs& v, size_t max_elems = 16);

}  // namespace storcheck
