// `gate --isolate`: each property in a child process, so that one crash or
// hang inside LibTorch does not end the run (issue 7 item 3).
//
// Note [Isolated properties]
// Each property runs check_property in a forked child (at most `jobs` at
// once; the parent starts no threads, so forking is safe). The child writes
// its CheckResult to a temporary file and exits 0. A child that dies of a
// signal, or ends by the program timeout (exit kTimeoutExit, Note [Program
// timeout]), leaves the program it was checking on disk (Note
// [Write-ahead]): the parent moves it to `died-PROPERTY-MTIME.sc` (or finds
// the `timeout-PROPERTY-*.sc` the child wrote), reports the property as
// crashed or timed out with that file, and goes on with the rest. A child
// that throws reports an internal error (exit 3 of the whole gate).
//
//   auto results = check_isolated(props, [&](const Property& p) { return opts; }, 2, false);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/properties.h"

namespace storcheck {

/// The exit status an isolated child uses for a program timeout.
inline constexpr int kTimeoutExit = 4;

/// One result per property, in order; CheckResult::abnormal says "crash",
/// "timeout" or "internal" for a child that did not finish normally.
std::vector<CheckResult> check_isolated(
    const std::vector<Property>& props,
    const std::function<CheckOptions(const Property&)>& options, int jobs, bool eager_unsafe);

/// How a child running `body` ended: `finished` with the text `body`
/// returned, or not, and then `how` ("was killed by SIGSEGV").
struct ChildOutcome {
  bool finished = false;
  std::string text;
  std::string how;
};
/// Runs `body` in a forked child and waits for it (the caller has no other
/// threads). Used for the regression replays of `gate --isolate`.
ChildOutcome run_in_child(const std::function<std::string()>& body);

/// CheckResult to and from the text a child hands its parent (exposed for tests).
std::string serialize_result(const CheckResult& r);
bool deserialize_result(const std::string& text, CheckResult* r);

}  // namespace storcheck
