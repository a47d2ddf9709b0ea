// The known upstream divergences: LibTorch behaviour that differs from the
// reference on purpose or by an upstream bug, keyed by LibTorch version,
// each with a reason (DESIGN.md). The gate reports a divergence that matches
// an entry as an expected failure, and flags an entry whose regression file
// stops diverging (the upstream bug was fixed, or the reference changed).
//
// A regression file names its entry in a header line `# known: ID`.
//
//   const KnownDivergence* k = find_known_divergence("some-id");
//   if (k && k->applies_to(torch_version())) ...
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "oracles/compare.h"

namespace storcheck {

struct KnownDivergence {
  std::string_view id;
  /// LibTorch versions it applies to (for the `pytorch-*` entries, versions
  /// of the PyTorch the PyTorch backend embeds): "*" for all, else a comma-separated
  /// list of "MAJOR.MINOR" prefixes ("1.13,2.0").
  std::string_view torch_versions;
  std::string_view op;     ///< the op at the diverging step: a name, a comma-separated list, or "*"
  std::string_view field;  ///< the differing field(s), comma-separated ("rank,sizes")
  std::string_view reason;
  /// A substring one side of the mismatch must contain ("" : any); '|'
  /// separates alternatives (each backend words its error its own way).
  std::string_view contains = "";
  /// A substring the step's error message must contain in one backend ("" :
  /// any outcome); '|' separates alternatives. An entry for what a failed
  /// call leaves behind names the failure, or it would also explain the
  /// same field differing after a call that succeeded.
  std::string_view step_error = "";
  /// The differing variable must be a meta or fake tensor: an entry for a
  /// meta kernel must not explain the same op's difference on real data.
  bool meta_only = false;
  /// A further condition on the mismatch, for what a substring cannot say
  /// (which side holds more); nullptr: none.
  bool (*when)(const Mismatch&) = nullptr;
  bool applies_to(std::string_view torch_version) const;
};

/// The list (may be empty).
const std::vector<KnownDivergence>& known_divergences();
/// Null when no entry has this id.
const KnownDivergence* find_known_divergence(std::string_view id,
                                             const std::vector<KnownDivergence>& list =
                                                 known_divergences());

/// The entry that explains a divergence found by a property: same op at
/// the diverging step, same field, version applies, `contains` matches. The
/// `pytorch-*` entries are PyTorch's Python stack's: they match only a
/// comparison with the PyTorch backend (`with_pytorch`), never one of the
/// reference with LibTorch alone.
const KnownDivergence* match_known_divergence(std::string_view op, const std::string& field,
                                              const std::string& a, const std::string& b,
                                              std::string_view torch_version,
                                              bool with_pytorch = false,
                                              const std::vector<KnownDivergence>& list =
                                                  known_divergences());
/// The same, keyed also by where the mismatch happened (the step's error
/// messages and the variable's device, Mismatch in oracles/compare.h): what
/// every divergence found by running a program is matched with. The form
/// above knows only the field and values: a step that succeeded, on real
/// tensors.
const KnownDivergence* match_known_divergence(
    std::string_view op, const Mismatch& m, std::string_view torch_version,
    bool with_pytorch = false, const std::vector<KnownDivergence>& list = known_divergences());
/// An entry of PyTorch's Python stack (id "pytorch-..."), seen only by the
/// PyTorch backend.
bool is_pytorch_entry(const KnownDivergence& k);

/// "1.13.1" for the LibTorch this binary links, "" without LibTorch.
std::string torch_version();

}  // namespace storcheck
