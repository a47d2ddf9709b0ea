// The structure-aware mutator of the program fuzz targets (issue 6): it
// parses the input, changes the program at the level of steps and
// arguments using the op table, repairs what the change broke, and prints
// it again. The entry points' LLVMFuzzerCustomMutator and
// LLVMFuzzerCustomCrossOver are thin wrappers around mutate() and
// cross_over().
//
// Every mutator has the same signature and a name in one table (as in
// libFuzzer's MutationDispatcher), so stats can say which one ran. Each
// output ends with a comment `# mutator: NAME`, which the parser skips and
// which stays in the corpus file libFuzzer keeps: counting those lines in
// the files a night added tells which mutators produced new coverage (the
// last such line of a file: byte-level output keeps the old line and gets
// `# mutator: bytes` appended).
//
// Invariant: a program-level result always parses under the limits given
// to the constructor and uses only the ops of its OpSet; a repair removes a
// step whose variable operands cannot be retargeted. Input that does not
// parse goes to the byte-level fallback (LLVMFuzzerMutate in the targets).
//
//   ProgramMutator m(find_fuzz_target("views_fuzzer")->ops, fuzz_parse_limits());
//   size_t n = m.mutate(data, size, max_size, seed, &LLVMFuzzerMutate);
//   std::cerr << m.stats_text();
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "generators/program_gen.h"
#include "harness/fuzz/parse_cache.h"
#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

/// libFuzzer's byte-level mutator (LLVMFuzzerMutate), or a test double.
using ByteMutateFn = size_t (*)(uint8_t* data, size_t size, size_t max_size);

/// What a program-level mutator may use.
struct MutationContext {
  std::mt19937_64& rng;
  const std::vector<OpId>& ops;  ///< the ops it may insert or change to
  const Program* other = nullptr;  ///< the second parent (splice only)
};

/// A program-level mutator: changes *p in place; false when it did not
/// apply (nothing to change). The result may be ill formed until repaired.
using ProgramMutatorFn = bool (*)(MutationContext& ctx, Program* p);

struct MutatorInfo {
  std::string_view name;
  std::string_view summary;
  ProgramMutatorFn fn;  ///< null for the byte-level fallback
};

/// Every mutator, in table order; the last is the byte-level fallback
/// `bytes`, the one before it `splice` (cross-over only).
const std::vector<MutatorInfo>& mutator_table();
/// Index of a mutator by name; -1 when unknown.
int find_mutator(std::string_view name);

/// Makes *p well formed again: a variable operand that is not live is
/// retargeted to a live variable of a suitable position (the step is
/// removed when there is none), a variable defined twice gets a fresh one,
/// and the variables are renamed t0, t1, ... Returns false when the result
/// still fails validate_program under `limits`.
bool repair_program(Program* p, const Limits& limits, std::mt19937_64& rng);

/// Uses of one mutator: how often it was tried, and how often it gave a
/// program that parsed (the rest fell through to another mutator).
struct MutatorStats {
  uint64_t tried = 0;
  uint64_t produced = 0;
};

class ProgramMutator {
 public:
  /// With `cache` (its limits must be `limits`), inputs are looked up and
  /// every emitted program is parsed into it once (Note [Parsed inputs]).
  ProgramMutator(const OpSet& ops, const Limits& limits, ParseCache* cache = nullptr);
  /// LLVMFuzzerCustomMutator: mutates data[0, size) in place into at most
  /// max_size bytes and returns the new size.
  size_t mutate(uint8_t* data, size_t size, size_t max_size, unsigned seed,
                ByteMutateFn fallback);
  /// LLVMFuzzerCustomCrossOver: a splice of two programs (a prefix of one,
  /// a suffix of the other) into out[0, max_out); 0 when neither parses.
  size_t cross_over(const uint8_t* d1, size_t s1, const uint8_t* d2, size_t s2, uint8_t* out,
                    size_t max_out, unsigned seed);
  /// Applies one program-level mutator by table index and repairs; false
  /// when it did not apply or the repair failed (for tests).
  bool apply(int mutator, Program* p, std::mt19937_64& rng, const Program* other = nullptr);
  const std::vector<MutatorStats>& stats() const { return stats_; }
  /// One line per mutator: "insert_step  tried 120  produced 118".
  std::string stats_text() const;

 private:
  /// Parses text as a program of the mutator's ops; false when it is not one.
  bool parse_own(const uint8_t* data, size_t size, Program* out);
  /// Keeps the program of the emitted out[0, n) in the cache; returns n.
  size_t remember(const uint8_t* out, size_t n);

  std::vector<OpId> ops_;
  Limits limits_;
  ParseCache* cache_;
  std::vector<MutatorStats> stats_;
};

}  // namespace storcheck
