#include "oracles/known_divergences.h"

namespace storcheck {

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
  static const std::vector<KnownDivergence> kList = {};
  return kList;
}

const KnownDivergence* find_known_divergence(std::string_view id,
                                             const std::vector<KnownDivergence>& list) {
  for (const KnownDivergence& k : list)
    if (k.id == id) return &k;
  return nullptr;
}

}  // namespace storcheck
