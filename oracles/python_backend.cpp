// The PyTorch backend's C++ half: CPython embedding, one call per step and
// one per observation (oracles/python_backend.h). The Python half is
// oracles/python_backend.py, compiled in as text.
#include <Python.h>

#include "oracles/python_backend.h"

#include <algorithm>
#include <array>
#include <limits>
#include <mutex>
#include <string_view>

#include "impl/fault.h"
#include "impl/ops.h"
#include "oracles/layout_policy.h"
#include "oracles/spelling.h"
#include "oracles/torch_errors.h"

namespace storcheck {
namespace detail {
namespace {

constexpr const char* kBackendPy =
#include "python_backend_py.inc"
    ;

/// Holds the GIL for a scope.
class Gil {
 public:
  Gil() : state_(PyGILState_Ensure()) {}
  ~Gil() { PyGILState_Release(state_); }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

 private:
  PyGILState_STATE state_;
};

/// An owned reference (Py_XDECREF on scope exit).
class Ref {
 public:
  explicit Ref(PyObject* o = nullptr) : o_(o) {}
  ~Ref() { Py_XDECREF(o_); }
  Ref(Ref&& r) noexcept : o_(r.o_) { r.o_ = nullptr; }
  Ref& operator=(Ref&& r) noexcept {
    std::swap(o_, r.o_);
    return *this;
  }
  PyObject* get() const { return o_; }
  explicit operator bool() const { return o_ != nullptr; }

 private:
  PyObject* o_;
};

/// The pending Python exception as "Type: message" (and clears it).
std::string python_error() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::string s = "unknown Python error";
  if (value) {
    Ref str(PyObject_Str(value));
    const char* c = str ? PyUnicode_AsUTF8(str.get()) : nullptr;
    s = std::string(type ? reinterpret_cast<PyTypeObject*>(type)->tp_name : "?") + ": " +
        (c ? c : "?");
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  PyErr_Clear();
  return s;
}

std::string str_of(PyObject* o) {
  const char* c = o && PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : nullptr;
  return c ? c : "";
}

// Note [One interpreter per process]
// Py_InitializeEx runs once, on first use, and the initializing thread then
// releases the GIL (PyEval_SaveThread) so that any thread can take it with
// PyGILState_Ensure. `import torch` there loads Debian's python3-torch,
// which links the same shared libtorch as the LibTorch backend: the two
// share one ATen in one process (checked by the tests: both backends run
// side by side in every pytorch.* property). The interpreter is never
// finalized (torch does not support re-initialization).
struct Interpreter {
  bool ok = false;
  std::string why;
  std::string version;
};

const Interpreter& interpreter() {
  static Interpreter interp;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!Py_IsInitialized()) {
      Py_InitializeEx(0);
      PyEval_SaveThread();
    }
    Gil gil;
    Ref torch(PyImport_ImportModule("torch"));
    if (!torch) {
      interp.why = "the embedded Python cannot import torch: " + python_error();
      return;
    }
    Ref v(PyObject_GetAttrString(torch.get(), "__version__"));
    interp.version = v ? str_of(v.get()) : "";
    if (!v) PyErr_Clear();
    interp.ok = true;
  });
  return interp;
}

const char* category_name(OpCategory c) {
  switch (c) {
    case OpCategory::kFactory: return "factory";
    case OpCategory::kView: return "view";
    case OpCategory::kInplace: return "inplace";
    case OpCategory::kInplaceView: return "inplace_view";
    case OpCategory::kCompute: return "compute";
    case OpCategory::kStorage: return "storage";
    case OpCategory::kConvert: return "convert";
    case OpCategory::kLifetime: return "lifetime";
    case OpCategory::kSparse: return "sparse";
    case OpCategory::kDevice: return "device";
  }
  return "?";
}

/// numel * itemsize of a size list (-1 on overflow or a negative size).
int64_t list_bytes(const IntList& l, int64_t item) {
  for (int64_t x : l)
    if (x < 0) return -1;
  for (int64_t x : l)
    if (x == 0) return 0;  // numel 0 whatever the other sizes (Geometry::numel)
  int64_t n = item;
  for (int64_t x : l)
    if (__builtin_mul_overflow(n, x, &n)) return -1;
  return n;
}

/// Bytes a step allocates, from its arguments alone (factories, resizes);
/// 0 when the arguments do not say, -1 on overflow (refused, case 1).
int64_t argument_bytes(const Step& s) {
  switch (s.op) {
    case OpId::kArange: case OpId::kZeros: case OpId::kOnes: case OpId::kRand:
    case OpId::kFromBlob:
      return list_bytes(s.args[0].list, itemsize(to_dtype(s.args[1].dtype)));
    case OpId::kFull: return list_bytes(s.args[0].list, itemsize(to_dtype(s.args[2].dtype)));
    case OpId::kEmptyStrided: {
      const IntList& sz = s.args[0].list;
      const IntList& st = s.args[1].list;
      if (sz.size() != st.size()) return 0;  // raises before it allocates
      int64_t extent = 1, term = 0;
      for (int k = 0; k < sz.size(); ++k) {
        if (sz[k] == 0) return 0;
        if (sz[k] < 0 || k >= st.size() || st[k] < 0 ||
            __builtin_mul_overflow(sz[k] - 1, st[k], &term) ||
            __builtin_add_overflow(extent, term, &extent))
          return -1;
      }
      int64_t bytes = 0;
      return __builtin_mul_overflow(extent, itemsize(to_dtype(s.args[2].dtype)), &bytes) ? -1 : bytes;
    }
    case OpId::kResize_: return list_bytes(s.args[1].list, 8);  // the widest dtype
    case OpId::kResizeStorage: return s.args[1].i;
    default: return 0;
  }
}

/// Case 1 for as_strided_: new sizes with a size-0 dim whose numel, counted
/// as 1.13's unsigned product, overflows before the 0 (the LibTorch
/// backend's check_inplace_numel; transpose_ is checked in Python, where the
/// tensor's sizes are).
bool inplace_numel_overflows(const Step& s) {
  if (s.op != OpId::kAsStrided_) return false;
  const IntList& sizes = s.args[1].list;
  if (std::find(sizes.begin(), sizes.end(), 0) == sizes.end()) return false;
  return !safe_numel_ok(IntSpan(sizes.begin(), sizes.size()));
}

/// Case 5 of Note [Steps the PyTorch backend refuses]: negative sizes, and
/// negative result indices of split, chunk and unbind (storcheck rejects
/// them; Python's indexing would wrap them). expand's sizes depend on its
/// input's: expand_refusal.
bool negative_sizes(const Step& s) {
  auto negative = [](const IntList& l) {
    return std::any_of(l.begin(), l.end(), [](int64_t x) { return x < 0; });
  };
  switch (s.op) {
    case OpId::kAsStrided:
    case OpId::kAsStrided_:
    case OpId::kResize_:
      return negative(s.args[1].list);
    case OpId::kUnfold: return s.args[2].i < 0;
    case OpId::kSplit: case OpId::kChunk: return s.args[3].i < 0;
    case OpId::kUnbind: return s.args[2].i < 0;
    default: return false;
  }
}

/// A failed step's Python exception as storcheck's ErrorKind.
Error classify_python_error(const std::string& type, const std::string& message) {
  Error e;
  e.message = "pytorch: " + type + ": " + message;
  if (type == "UnsupportedFakeTensorException")
    e.kind = ErrorKind::kUnsupportedFakeTensor;
  else if (message.find("non-Fake Tensor inputs in FakeTensorMode") != std::string::npos)
    e.kind = ErrorKind::kDeviceMismatch;  // F6: real and fake tensors mixed
  else if (type == "IndexError" && message == "tuple index out of range")
    e.kind = ErrorKind::kIndexOutOfRange;  // split/chunk/unbind: Python's index past the results
  else if (type == "AssertionError")
    e.kind = ErrorKind::kOther;  // an assert inside PyTorch's Python, not a typed refusal
  else if (message.rfind("lazy_clone: the storage's data has a foreign owner", 0) == 0)
    e.kind = ErrorKind::kInvalidArgument;  // C7, raised by lazy_clone's stand-in (spelling.cpp)
  else
    e.kind = classify_torch_message(message);
  return e;
}

int64_t as_i64(PyObject* o) { return static_cast<int64_t>(PyLong_AsLongLong(o)); }

class PythonBackend final : public Backend {
 public:
  explicit PythonBackend(PyObject* globals) : globals_(globals) {}
  ~PythonBackend() override {
    Gil gil;
    Py_XDECREF(globals_);
  }

  std::string_view name() const override { return "pytorch"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.cow = false;
    c.cow_refs = false;
    c.skipped_note =
        "COW fields skipped: PyTorch before 2.3 has no _lazy_clone (lazy_clone runs as the "
        "emitted scripts' eager stand-in)";
    return c;
  }

  void begin(const Program& program, const Limits& limits) override {
    program_ = &program;
    refusal_.clear();
    leak_.clear();
    Gil gil;
    Ref names(PyTuple_New(program.num_vars()));
    for (int v = 0; v < program.num_vars(); ++v)
      PyTuple_SET_ITEM(names.get(), v, PyUnicode_FromString(program.var_names[static_cast<size_t>(v)].c_str()));
    Ref r(call("sc_begin", Py_BuildValue("(OLLLO)", names.get(),
                                         static_cast<long long>(limits.max_tensor_bytes),
                                         static_cast<long long>(limits.max_program_bytes),
                                         static_cast<long long>(limits.max_step_reads),
                                         fault_active(Fault::kMemoStrongRef) ? Py_True : Py_False)));
    SC_ASSERT(r, "pytorch backend: sc_begin failed: " + python_error());
  }

  Error run_step(const Step& step) override {
    const OpInfo& info = step.info();
    std::string_view spelling = info.python;
    const bool convert = info.category == OpCategory::kConvert && step.op != OpId::kToMeta;
    if (info.category == OpCategory::kDevice || step.device != DeviceArg::kHome) {
      refusal_ = "a device op: this backend runs PyTorch on the CPU only";
      return Error{};
    }
    if (!convert && !spelling.empty() && (spelling[0] == '!' || spelling[0] == '*')) {
      refusal_ = spelling[0] == '!' ? std::string(spelling.substr(1))
                                    : "the step expands from the reference's state (ops.def `*`), "
                                      "which this backend does not read";
      return Error{};
    }
    if (inplace_numel_overflows(step)) {
      refusal_ = "case 1: as_strided_ to sizes whose numel overflows after a size-0 dim; "
                 "PyTorch sets them before it raises (S10)";
      return Error{};
    }
    // Case 7: compressed_dims_overflow (oracles/layout_policy.h) needs the
    // parts' ranks; a size of INT64_MAX is refused whatever they are.
    if (is_compressed_from_parts(step.op) &&
        std::find(step.args[3].list.begin(), step.args[3].list.end(),
                  std::numeric_limits<int64_t>::max()) != step.args[3].list.end()) {
      refusal_ = "case 7: a sparse compressed tensor of a size INT64_MAX, whose number of "
                 "compressed rows (columns) + 1 may overflow int64 in PyTorch (S8)";
      return Error{};
    }
    if (negative_sizes(step)) {
      refusal_ = "case 5: a negative size or result index, which storcheck's LibTorch backend "
                 "rejects and LibTorch or Python may accept";
      return Error{};
    }
    std::string code;
    if (!convert) {
      code = spell_step(Syntax{EmitLang::kPython}, *program_, step, /*input_fits=*/false);
      if (info.result == OpResult::kTensor)
        code = program_->var_names[static_cast<size_t>(step.out)] + " = " + code;
    }
    Gil gil;
    int n_in = 0;
    for (int a = 0; a < step.nargs; ++a) n_in += step.args[a].kind == ArgKind::kVar;
    Ref ins(PyTuple_New(n_in));
    for (int a = 0, k = 0; a < step.nargs; ++a)
      if (step.args[a].kind == ArgKind::kVar)
        PyTuple_SET_ITEM(ins.get(), k++, PyUnicode_FromString(var_name(step.args[a].var).c_str()));
    // Note [Layout policy] (oracles/layout_policy.cpp): the same refusal as every backend's,
    // before PyTorch sees the step.
    if (n_in > 0) {
      Ref lay(call("sc_layouts", Py_BuildValue("(O)", ins.get())));
      SC_ASSERT(lay, "pytorch backend: sc_layouts failed: " + python_error());
      std::array<OperandLayout, kMaxArgs> layouts{};
      for (int a = 0, k = 0; a < step.nargs; ++a) {
        if (step.args[a].kind != ArgKind::kVar) continue;
        PyObject* l = PyTuple_GetItem(lay.get(), k++);
        layouts[static_cast<size_t>(a)] = {static_cast<Layout>(as_i64(PyTuple_GetItem(l, 0))),
                                           PyTuple_GetItem(l, 1) == Py_True, Device::kCpu,
                                           static_cast<DType>(as_i64(PyTuple_GetItem(l, 2)))};
      }
      if (Error e = check_layouts(step, layouts); e.kind != ErrorKind::kNone) return e;
    }
    if (std::string why = expand_refusal(step, ins.get()); !why.empty()) {
      refusal_ = std::move(why);
      return Error{};
    }
    if (std::string why = one_storage_hazard(step, ins.get()); !why.empty()) {
      refusal_ = std::move(why);
      return Error{};
    }
    Ref out(step.out != kNoVar ? PyUnicode_FromString(var_name(step.out).c_str())
                               : (Py_INCREF(Py_None), Py_None));
    // to's and view_dtype's result item size (case 1's estimate; case 7).
    int64_t out_item = step.op == OpId::kTo || step.op == OpId::kViewDtype
                           ? itemsize(to_dtype(step.args[1].dtype))
                           : 0;
    // The int arguments after the input: split/chunk/unbind's result count
    // (case 1) and index arithmetic (case 7), slice and narrow's (case 7);
    // to_sparse_bsr/bsc's blocksize: its compressed indices (case 1).
    long long int_args[4] = {0, 0, 0, 0};
    for (int a = 1; a < 5 && a < step.nargs; ++a)
      if (step.args[a].kind == ArgKind::kInt)
        int_args[a - 1] = static_cast<long long>(step.args[a].i);
    // resize_: the new numel (-1 on overflow), for its storage size (case 1).
    if (step.op == OpId::kResize_) {
      const int64_t b = list_bytes(step.args[1].list, 1);
      int_args[0] = static_cast<long long>(b);
    }
    if ((step.op == OpId::kToSparseBsr || step.op == OpId::kToSparseBsc) &&
        step.args[1].list.size() == 2) {
      int_args[0] = static_cast<long long>(step.args[1].list[0]);
      int_args[1] = static_cast<long long>(step.args[1].list[1]);
    }
    Ref r(
        call("sc_step", Py_BuildValue("(sssOOLLLLLL)", std::string(info.name).c_str(),
                                      category_name(info.category), code.c_str(), out.get(),
                                      ins.get(), static_cast<long long>(argument_bytes(step)),
                                      static_cast<long long>(out_item), int_args[0], int_args[1],
                                      int_args[2], int_args[3])));
    SC_ASSERT(r,
              "pytorch backend: sc_step failed inside storcheck's own Python: " + python_error());
    if (r.get() == Py_None) return Error{};
    std::string what = str_of(PyTuple_GetItem(r.get(), 0));
    if (what == "refused") {
      refusal_ = str_of(PyTuple_GetItem(r.get(), 1));
      return Error{};
    }
    return classify_python_error(str_of(PyTuple_GetItem(r.get(), 1)),
                                 str_of(PyTuple_GetItem(r.get(), 2)));
  }

  void observe(Observation* obs, const ObserveScope& scope = {}) override;

  bool take_refusal(std::string* why) override { return hand_over_refusal(&refusal_, why); }

  /// Case 5 of Note [Steps the PyTorch backend refuses] for expand: a size
  /// that storcheck's LibTorch backend rejects where LibTorch would take it
  /// (expand_size_not_allowed, oracles/layout_policy.h, on the input's sizes
  /// as PyTorch reports them); after the layout check, as there. Empty when
  /// the step may run: where ATen raises first, PyTorch raises too.
  std::string expand_refusal(const Step& step, PyObject* ins) {
    if (step.op != OpId::kExpand || PyTuple_Size(ins) != 1) return {};
    const IntList& sizes = step.args[1].list;
    if (std::none_of(sizes.begin(), sizes.end(), [](int64_t x) { return x < 0; })) return {};
    Ref r(call("sc_shape", Py_BuildValue("(O)", PyTuple_GetItem(ins, 0))));
    SC_ASSERT(r, "pytorch backend: sc_shape failed: " + python_error());
    std::vector<int64_t> in(static_cast<size_t>(PyTuple_Size(r.get())));
    for (size_t d = 0; d < in.size(); ++d)
      in[d] = as_i64(PyTuple_GetItem(r.get(), static_cast<Py_ssize_t>(d)));
    const int k = expand_size_not_allowed(in.data(), static_cast<int>(in.size()), sizes.begin(),
                                          static_cast<int>(sizes.size()));
    if (k < 0) return {};
    return "case 5: expand's size " + std::to_string(sizes[static_cast<size_t>(k)]) + " at dim " +
           std::to_string(k) + " on a tensor of " + std::to_string(in.size()) +
           " dims, which storcheck's LibTorch backend rejects and LibTorch 1.13 takes (a "
           "negative size; Note [Torch backend policy checks])";
  }

  /// Case 4 of Note [Steps the PyTorch backend refuses] for copy_, add_out
  /// and mul_out whose two operands share one storage: the S8 rules the
  /// LibTorch backend applies (copy_overlap_undetected,
  /// scalar_out_overlap_undetected in oracles/layout_policy.h), on the
  /// operands' geometries as PyTorch reports them; meta and fake tensors
  /// too. Empty when the step may run.
  std::string one_storage_hazard(const Step& step, PyObject* ins) {
    const bool out = is_scalar_out(step.op);
    if ((step.op != OpId::kCopy_ && !out) || PyTuple_Size(ins) != 2) return {};
    Ref r(call("sc_pair_geometry", Py_BuildValue("(O)", ins)));
    SC_ASSERT(r, "pytorch backend: sc_pair_geometry failed: " + python_error());
    if (r.get() == Py_None) return {};  // other storages, one tensor, or not strided
    auto geometry = [](PyObject* g) {
      Geometry out;
      PyObject* sizes = PyTuple_GetItem(g, 0);
      PyObject* strides = PyTuple_GetItem(g, 1);
      out.rank = static_cast<int>(PyTuple_Size(sizes));
      for (int d = 0; d < out.rank && d < kGeometryMaxDims; ++d) {
        out.sizes[static_cast<size_t>(d)] = as_i64(PyTuple_GetItem(sizes, d));
        out.strides[static_cast<size_t>(d)] = as_i64(PyTuple_GetItem(strides, d));
      }
      out.offset = as_i64(PyTuple_GetItem(g, 2));
      out.itemsize = as_i64(PyTuple_GetItem(g, 3));
      return out;
    };
    const Geometry g0 = geometry(PyTuple_GetItem(r.get(), 0));
    const Geometry g1 = geometry(PyTuple_GetItem(r.get(), 1));
    const auto d0 = static_cast<DType>(as_i64(PyTuple_GetItem(r.get(), 2)));
    const auto d1 = static_cast<DType>(as_i64(PyTuple_GetItem(r.get(), 3)));
    const bool cpu = PyTuple_GetItem(r.get(), 4) == Py_True;
    if (!out) {
      if (copy_overlap_undetected(g0, g1, /*same_tensor=*/false, d0 == d1))
        return "case 4: copy_ within one storage, dst and src overlapping in a way LibTorch "
               "does not detect (S8)";
      return {};
    }
    const bool resize = g0.rank != g1.rank ||
                        !std::equal(g0.sizes.begin(), g0.sizes.begin() + g0.rank, g1.sizes.begin());
    const Geometry gn =
        resized_out_geometry(g1, d1, result_type(d1, to_scalar(step.args[2].scalar)), cpu, g0);
    if (scalar_out_overlap_undetected(g0, g1, gn, resize))
      return "case 4: " + std::string(step.info().name) +
             " within one storage, out and the input sharing elements in a way LibTorch does "
             "not detect (S8)";
    return {};
  }
  std::string take_unsafe_finding() override { return std::exchange(leak_, {}); }
  std::string_view finding_field() const override { return "memo_leak"; }

 private:
  std::string var_name(VarId v) const { return program_->var_names[static_cast<size_t>(v)]; }

  /// globals_[fn](*args); steals `args`. Null with the Python error pending.
  PyObject* call(const char* fn, PyObject* args) {
    Ref a(args);
    PyObject* f = PyDict_GetItemString(globals_, fn);  // borrowed
    if (!f || !a) return nullptr;
    return PyObject_CallObject(f, a.get());
  }

  PyObject* globals_;
  const Program* program_ = nullptr;
  std::string refusal_, leak_;
};

void fill_memo(PyObject* t, MemoStats* m) {
  m->tensors = as_i64(PyTuple_GetItem(t, 0));
  m->storages = as_i64(PyTuple_GetItem(t, 1));
  m->pending = as_i64(PyTuple_GetItem(t, 2));
  m->sparse = as_i64(PyTuple_GetItem(t, 3));  // sparse entries: MemoStats::sparse
}

// Note [Observing a sparse variable] (oracles/observation.h), from sc_observe's tuple `t`
// and sc_sparse_obs's metadata `m` (python_backend.py).
void observe_sparse(PyObject* t, PyObject* m, bool refresh, VarObs* o) {
  PyObject* sizes = PyTuple_GetItem(t, 0);
  const int rank = static_cast<int>(PyTuple_Size(sizes));
  SC_ASSERT(rank <= kMaxDims, "pytorch backend: a sparse rank past kMaxDims");
  std::array<int64_t, kMaxDims> s{};
  for (int d = 0; d < rank; ++d) s[static_cast<size_t>(d)] = as_i64(PyTuple_GetItem(sizes, d));
  observe_sparse_storage_none(o, rank, s.data(), static_cast<DType>(as_i64(PyTuple_GetItem(t, 3))));
  const int64_t kind = as_i64(PyTuple_GetItem(t, 4));
  o->fake = kind == 2;
  o->device = kind == 1 ? Device::kMeta : Device::kCpu;  // F1: a fake reports its fake device
  o->identity_class = static_cast<int32_t>(as_i64(PyTuple_GetItem(t, 8)));
  o->layout = static_cast<Layout>(as_i64(PyTuple_GetItem(m, 0)));
  o->sparse_dim = as_i64(PyTuple_GetItem(m, 1));
  o->dense_dim = as_i64(PyTuple_GetItem(m, 2));
  o->nnz = as_i64(PyTuple_GetItem(m, 3));
  o->coalesced = PyTuple_GetItem(m, 4) == Py_True;
  PyObject* block = PyTuple_GetItem(m, 5);
  o->blocksize = {as_i64(PyTuple_GetItem(block, 0)), as_i64(PyTuple_GetItem(block, 1))};
  o->index_dtype = static_cast<DType>(as_i64(PyTuple_GetItem(m, 6)));
  if (!refresh) return;
  PyObject* values = PyTuple_GetItem(t, 10);
  o->values_known = values != Py_None;
  o->values.clear();
  if (o->values_known) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(PyBytes_AsString(values));
    o->values.assign(bytes, bytes + PyBytes_Size(values));
  }
}

void PythonBackend::observe(Observation* obs, const ObserveScope& scope) {
  const size_t n = static_cast<size_t>(program_->num_vars());
  obs->vars.resize(n);
  Gil gil;
  Ref r(call("sc_observe", Py_BuildValue("(OL)", scope.all_values ? Py_True : Py_False,
                                         static_cast<long long>(scope.fresh))));
  SC_ASSERT(r, "pytorch backend: sc_observe failed: " + python_error());
  PyObject* vars = PyTuple_GetItem(r.get(), 0);
  PyObject* memo = PyTuple_GetItem(r.get(), 1);
  obs->memo_known = memo != Py_None;
  if (obs->memo_known) {
    fill_memo(PyTuple_GetItem(memo, 0), &obs->fake_memo);
    fill_memo(PyTuple_GetItem(memo, 1), &obs->meta_memo);
  }
  leak_ = str_of(PyTuple_GetItem(r.get(), 2));
  obs->step_note = str_of(PyTuple_GetItem(r.get(), 3));
  for (size_t v = 0; v < n; ++v) {
    VarObs& o = obs->vars[v];
    PyObject* t = PyList_GetItem(vars, static_cast<Py_ssize_t>(v));
    const bool refresh = scope.all_values || static_cast<VarId>(v) == scope.fresh || !o.live;
    o.live = t != Py_None;
    if (!o.live) {
      o = VarObs{};
      continue;
    }
    PyObject* sizes = PyTuple_GetItem(t, 0);
    PyObject* strides = PyTuple_GetItem(t, 1);
    PyObject* sparse = PyTuple_GetItem(t, 11);
    if (sparse != Py_None) {
      observe_sparse(t, sparse, refresh, &o);
      continue;
    }
    o.rank = static_cast<int>(PyTuple_Size(sizes));
    SC_ASSERT(o.rank <= kMaxDims, "pytorch backend: a result rank past kMaxDims");
    o.sizes = {};
    o.strides = {};
    for (int d = 0; d < o.rank; ++d) {
      o.sizes[d] = as_i64(PyTuple_GetItem(sizes, d));
      o.strides[d] = as_i64(PyTuple_GetItem(strides, d));
    }
    o.offset = as_i64(PyTuple_GetItem(t, 2));
    o.dtype = static_cast<DType>(as_i64(PyTuple_GetItem(t, 3)));
    o.layout = Layout::kStrided;
    const int64_t kind = as_i64(PyTuple_GetItem(t, 4));
    o.fake = kind == 2;
    o.device = kind == 1 ? Device::kMeta : Device::kCpu;  // F1: a fake reports its fake device
    o.storage_nbytes = as_i64(PyTuple_GetItem(t, 5));
    o.data_null = PyTuple_GetItem(t, 6) == Py_True;
    o.alias_class = static_cast<int32_t>(as_i64(PyTuple_GetItem(t, 7)));
    o.identity_class = static_cast<int32_t>(as_i64(PyTuple_GetItem(t, 8)));
    PyObject* version = PyTuple_GetItem(t, 9);  // Note [Versions of converted tensors] (.py)
    o.version_known = version != Py_None;
    o.version = o.version_known ? as_i64(version) : 0;
    if (!refresh) continue;
    PyObject* values = PyTuple_GetItem(t, 10);
    o.values_known = values != Py_None;
    o.values.clear();
    if (o.values_known) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(PyBytes_AsString(values));
      o.values.assign(bytes, bytes + PyBytes_Size(values));
    }
  }
}

}  // namespace
}  // namespace detail

std::unique_ptr<Backend> make_python_backend(std::string* why) {
  const detail::Interpreter& interp = detail::interpreter();
  if (!interp.ok) {
    if (why) *why = interp.why;
    return nullptr;
  }
  detail::Gil gil;
  PyObject* globals = PyDict_New();
  PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
  std::string text = std::string(kPythonPrelude) + python_helpers_for("", /*all=*/true) + "\n\n" +
                     detail::kBackendPy;
  detail::Ref r(PyRun_String(text.c_str(), Py_file_input, globals, globals));
  if (!r) {
    std::string e = detail::python_error();
    Py_DECREF(globals);
    if (why) *why = "the PyTorch backend's Python failed to load: " + e;
    return nullptr;
  }
  return std::make_unique<detail::PythonBackend>(globals);
}

std::string python_backend_absent_reason() { return ""; }

std::string pytorch_version() { return detail::interpreter().version; }

}  // namespace storcheck
