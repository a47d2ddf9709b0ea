// Classification of LibTorch exceptions into storcheck's ErrorKind, so that
// the comparator can check that the reference and LibTorch reject a step for
// the same reason (impl/error.h).
//
// Invariant: classification reads only the exception's type and message; it
// is a pure function of them, driven by one ordered table of
// {substring, kind} rows (first match wins), see kTorchErrorRules in
// torch_errors.cpp. A message no row matches is kOther and keeps its text.
//
//   try { t.view({5}); }
//   catch (const std::exception& e) {
//     Error err = classify_torch_exception(e);  // kShapeMismatch
//   }
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "impl/error.h"

namespace storcheck {

/// One row of the classification table.
struct TorchErrorRule {
  std::string_view substring;  ///< searched in the message (case-sensitive)
  ErrorKind kind;
};

/// Kind for a LibTorch message (without backtrace); kOther when no row
/// matches.
ErrorKind classify_torch_message(std::string_view message);

/// The message of a LibTorch exception without its C++ backtrace
/// (c10::Error::what_without_backtrace), or what() for other exceptions.
std::string torch_exception_message(const std::exception& e);

/// classify_torch_message of torch_exception_message(e); the Error's message
/// is prefixed with "torch: ".
Error classify_torch_exception(const std::exception& e);

}  // namespace storcheck
