// The PyTorch backend: PyTorch's own Python stack, embedded (CPython), as a
// Backend (SEMANTICS group F above all, DESIGN.md "oracles/"). Each step
// runs through the op table's PyTorch spelling (program/ops.def, rendered by
// oracles/spelling.h exactly as `storcheck emit` writes it), and the
// conversion ops through PyTorch's real converters: `fake` through
// FakeTensorMode.from_tensor (FakeTensorConverter.from_real_tensor), `meta`
// through torch._subclasses.meta_utils.MetaConverter, `fake_from_meta`
// through FakeTensorConverter.from_meta_and_device, `sweep` through
// MetaConverter.check_for_expired_weak_storages after gc.collect().
//
// Invariant: the backend never emulates an op; a step PyTorch's Python API
// cannot express (`!reason` in ops.def), or one where storcheck's LibTorch
// backend applies a policy check plain PyTorch lacks (see Note [Steps the
// PyTorch backend refuses] in python_backend.py), is refused before
// anything runs: take_refusal() names the reason and the Runner stops
// comparing that program (not comparable, Note [Step outcome rules] rule 5).
//
// It observes what the LibTorch backend observes, read in one Python call
// per step: sizes, strides, offset, dtype, device (fake tensors report their
// fake device, F1), storage nbytes, data_null, alias and identity classes,
// version counters and element values; a sparse variable by its F4 metadata
// and to_dense() values (Note [Observing a sparse variable]), after the
// shared layout policy (oracles/layout_policy.h) has refused the layouts a
// step does not take. After `memo_stats` and `sweep` it also reports the
// FakeTensorConverter's and the MetaConverter's memos (Observation::memo_known:
// tensor entries, storage entries, storages pending a sweep, sparse tensor
// entries), and a finding (take_unsafe_finding, field "memo_leak") when,
// after gc.collect(), a memo holds an entry of a dead real tensor, or
// a converted real tensor lives on with no variable (or a variable's view
// base) holding it, or a fake or meta tensor lives on after its real tensor
// died with no variable holding it (F3).
//
// CPython is initialized once per process; each backend holds its own
// Python namespace and takes the GIL for each call, so one backend per
// thread is fine.
//
//   std::string why;
//   std::unique_ptr<Backend> py = make_python_backend(&why);
//   if (!py) std::cout << "no PyTorch backend: " << why;
#pragma once

#include <memory>
#include <string>

#include "oracles/backend.h"

namespace storcheck {

/// Null, with *why set, when storcheck was built without the PyTorch
/// backend or when PyTorch fails to import at run time.
std::unique_ptr<Backend> make_python_backend(std::string* why = nullptr);

/// Why the PyTorch backend was not built ("" when it was): printed by CMake
/// at configure time and by the tests that skip.
std::string python_backend_absent_reason();

/// torch.__version__ of the embedded PyTorch ("1.13.0a0"), "" when absent.
std::string pytorch_version();

}  // namespace storcheck
