// Resource limits on untrusted programs (corpus files, fuzz bytes, CLI input).
//
// The parser enforces the textual limits (bytes, line length, steps,
// variables, rank) and rejects factories whose element bytes overflow or
// exceed `max_tensor_bytes`. The backends enforce the allocation limits at
// run time, before they allocate, with the same rule (an `kResourceLimit`
// error that every backend agrees on): see oracles/backend.h.
//
//   Limits lim;                 // the defaults below
//   lim.max_steps = 64;         // a tighter budget for a fuzzer
#pragma once

#include <cstdint>

namespace storcheck {

struct Limits {
  int64_t max_input_bytes = 1 << 20;     ///< whole program text
  int64_t max_line_bytes = 4096;         ///< one line, newline excluded
  int64_t max_steps = 4096;              ///< steps (non-comment lines)
  int64_t max_vars = 1024;               ///< distinct variables defined
  int64_t max_rank = 8;                  ///< any int list (sizes, strides, dims)
  int64_t max_name_bytes = 32;           ///< a variable name
  int64_t max_tensor_bytes = 1 << 20;    ///< bytes one allocation may take
  int64_t max_program_bytes = 16 << 20;  ///< bytes all allocations of a run may take
  /// Elements one sum or to_sparse_* step may read from its input (Note
  /// [Elements a step reads], impl/ops.h).
  int64_t max_step_reads = 1 << 20;
};

}  // namespace storcheck
