// Note [CUDA reference] (impl/cuda/device.h).
#include "impl/cuda/device.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "impl/tensor.h"

namespace storcheck::cuda {

namespace {

Error cuda_error(const char* call, cudaError_t e) {
  (void)cudaGetLastError();  // reset the last error, so the next call's check sees its own
  return make_error(e == cudaErrorMemoryAllocation ? ErrorKind::kResourceLimit : ErrorKind::kOther,
                    std::string("cuda: ") + call + ": " + cudaGetErrorName(e) + ": " +
                        cudaGetErrorString(e));
}

/// A Geometry as a kernel argument: sizes and strides in elements.
struct DevGeom {
  int rank;
  int64_t numel;
  int64_t offset;
  int64_t sizes[kGeometryMaxDims];
  int64_t strides[kGeometryMaxDims];
};

__device__ int64_t element_offset(const DevGeom& g, int64_t linear) {
  int64_t off = g.offset;
  for (int d = g.rank - 1; d >= 0; --d) {
    const int64_t i = linear % g.sizes[d];
    linear /= g.sizes[d];
    off += i * g.strides[d];
  }
  return off;
}

/// Checks `g` against `b` (S8) and makes its kernel form; numel 0 is fine.
Status device_geometry(const DeviceBuffer& b, const Geometry& g, DType d, const char* op,
                       DevGeom* out) {
  if (g.itemsize != itemsize(d))
    return make_error(ErrorKind::kInvalidArgument,
                      std::string(op) + ": geometry itemsize " + std::to_string(g.itemsize) +
                          " is not " + std::string(dtype_name(d)) + "'s");
  int64_t numel = 0, need = 0;
  if (!g.numel(&numel) || !g.required_bytes(&need))
    return make_error(ErrorKind::kStorageSizeOverflow,
                      std::string(op) + ": the geometry overflows");
  for (int k = 0; k < g.rank; ++k)
    if (g.strides[k] < 0)
      return make_error(ErrorKind::kInvalidArgument, std::string(op) + ": a negative stride");
  if (need > b.nbytes())
    return make_error(ErrorKind::kUndefinedBehavior,
                      std::string(op) + ": not executed: undefined (S8): the tensor needs " +
                          std::to_string(need) + " bytes, the device storage has " +
                          std::to_string(b.nbytes()));
  out->rank = g.rank;
  out->numel = numel;
  out->offset = g.offset;
  for (int k = 0; k < kGeometryMaxDims; ++k) {
    out->sizes[k] = k < g.rank ? g.sizes[k] : 1;
    out->strides[k] = k < g.rank ? g.strides[k] : 0;
  }
  return {};
}

constexpr int kThreads = 256;
int blocks_for(int64_t n) {
  return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 4096));
}

enum class Kind : int { kFill, kAdd, kMul };

// impl/dtype.cpp binop: floating dtypes in their own type; integers through
// uint64 (wrapping), stored back truncated; bool: nonzero of the sum/product.
template <typename T, bool kFloat, bool kBool>
__device__ T combine(T a, T b, Kind k) {
  if (k == Kind::kFill) return b;
  if constexpr (kFloat) {
    return k == Kind::kAdd ? a + b : a * b;
  } else if constexpr (kBool) {
    return static_cast<T>(k == Kind::kAdd ? (a | b) : (a & b));
  } else {
    const uint64_t x = static_cast<uint64_t>(static_cast<int64_t>(a));
    const uint64_t y = static_cast<uint64_t>(static_cast<int64_t>(b));
    return static_cast<T>(k == Kind::kAdd ? x + y : x * y);
  }
}

template <typename T, bool kFloat, bool kBool>
__global__ void scalar_kernel(T* base, DevGeom g, T s, Kind k) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < g.numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    T* p = base + element_offset(g, i);
    *p = combine<T, kFloat, kBool>(*p, s, k);
  }
}

/// Copies elements of `item` bytes: dst[gd] = src[gs] (same numel, row-major pairing).
template <typename T>
__global__ void copy_kernel(T* dst, DevGeom gd, const T* src, DevGeom gs) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < gd.numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    dst[element_offset(gd, i)] = src[element_offset(gs, i)];
}

template <typename T, bool kFloat, bool kBool>
Status launch_scalar(DeviceBuffer& b, const DevGeom& g, const uint8_t* sv, Kind k) {
  if (g.numel == 0) return {};
  T s;
  std::memcpy(&s, sv, sizeof(T));
  scalar_kernel<T, kFloat, kBool>
      <<<blocks_for(g.numel), kThreads>>>(static_cast<T*>(b.data()), g, s, k);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_error("kernel launch", e);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    return cuda_error("cudaDeviceSynchronize", e);
  return {};
}

Status scalar_op(DeviceBuffer& b, const Geometry& g, DType d, const Scalar& s, Kind k,
                 const char* op) {
  DevGeom dg;
  if (Status st = device_geometry(b, g, d, op, &dg); !st.ok()) return st;
  uint8_t sv[8] = {};
  if (s.kind == Scalar::Kind::kFloat)
    store_double(sv, d, s.f);
  else
    store_int(sv, d, s.i);
  switch (d) {
    case DType::kF32: return launch_scalar<float, true, false>(b, dg, sv, k);
    case DType::kF64: return launch_scalar<double, true, false>(b, dg, sv, k);
    case DType::kI32: return launch_scalar<int32_t, false, false>(b, dg, sv, k);
    case DType::kI64: return launch_scalar<int64_t, false, false>(b, dg, sv, k);
    case DType::kU8: return launch_scalar<uint8_t, false, false>(b, dg, sv, k);
    case DType::kBool: return launch_scalar<uint8_t, false, true>(b, dg, sv, k);
  }
  return make_error(ErrorKind::kInvalidArgument, std::string(op) + ": unknown dtype");
}

template <typename T>
Status launch_copy(void* dst, const DevGeom& gd, const void* src, const DevGeom& gs) {
  copy_kernel<T><<<blocks_for(gd.numel), kThreads>>>(static_cast<T*>(dst), gd,
                                                      static_cast<const T*>(src), gs);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_error("kernel launch", e);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    return cuda_error("cudaDeviceSynchronize", e);
  return {};
}

Status copy_by_itemsize(void* dst, const DevGeom& gd, const void* src, const DevGeom& gs,
                        int64_t item) {
  if (gd.numel == 0) return {};
  switch (item) {
    case 1: return launch_copy<uint8_t>(dst, gd, src, gs);
    case 4: return launch_copy<uint32_t>(dst, gd, src, gs);
    default: return launch_copy<uint64_t>(dst, gd, src, gs);
  }
}

}  // namespace

bool device_available(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (why)
      *why = std::string("no usable CUDA device: cudaGetDeviceCount: ") + cudaGetErrorName(e) +
             ": " + cudaGetErrorString(e);
    return false;
  }
  if (n == 0) {
    if (why) *why = "no usable CUDA device: cudaGetDeviceCount found 0 devices";
    return false;
  }
  return true;
}

DeviceBuffer::~DeviceBuffer() { release(); }
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), nbytes_(std::exchange(o.nbytes_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    nbytes_ = std::exchange(o.nbytes_, 0);
  }
  return *this;
}

Result<DeviceBuffer> DeviceBuffer::allocate(int64_t nbytes) {
  if (nbytes < 0)
    return make_error(ErrorKind::kInvalidArgument,
                      "cuda: allocate: negative size " + std::to_string(nbytes));
  DeviceBuffer b;
  if (nbytes == 0) return Result<DeviceBuffer>(std::move(b));
  if (cudaError_t e = cudaMalloc(&b.data_, static_cast<size_t>(nbytes)); e != cudaSuccess) {
    b.data_ = nullptr;
    return cuda_error("cudaMalloc", e);
  }
  b.nbytes_ = nbytes;
  if (cudaError_t e = cudaMemset(b.data_, 0, static_cast<size_t>(nbytes)); e != cudaSuccess)
    return cuda_error("cudaMemset", e);
  return Result<DeviceBuffer>(std::move(b));
}

Result<DeviceBuffer> DeviceBuffer::clone() const {
  Result<DeviceBuffer> r = allocate(nbytes_);
  if (!r.ok() || nbytes_ == 0) return r;
  if (cudaError_t e = cudaMemcpy(r.value().data_, data_, static_cast<size_t>(nbytes_),
                                 cudaMemcpyDeviceToDevice);
      e != cudaSuccess)
    return cuda_error("cudaMemcpy device to device", e);
  return r;
}

void DeviceBuffer::release() {
  if (data_) (void)cudaFree(data_);
  data_ = nullptr;
  nbytes_ = 0;
}

Status DeviceBuffer::upload(const void* host, int64_t n, int64_t at) {
  if (n < 0 || at < 0 || at > nbytes_ || n > nbytes_ - at)
    return make_error(ErrorKind::kInvalidArgument, "cuda: upload: bytes [" + std::to_string(at) +
                                                       ", +" + std::to_string(n) +
                                                       ") outside the buffer");
  if (n == 0) return {};
  if (cudaError_t e = cudaMemcpy(static_cast<uint8_t*>(data_) + at, host, static_cast<size_t>(n),
                                 cudaMemcpyHostToDevice);
      e != cudaSuccess)
    return cuda_error("cudaMemcpy host to device", e);
  return {};
}

Status DeviceBuffer::download(void* host, int64_t n, int64_t at) const {
  if (n < 0 || at < 0 || at > nbytes_ || n > nbytes_ - at)
    return make_error(ErrorKind::kInvalidArgument, "cuda: download: bytes [" + std::to_string(at) +
                                                       ", +" + std::to_string(n) +
                                                       ") outside the buffer");
  if (n == 0) return {};
  if (cudaError_t e = cudaMemcpy(host, static_cast<const uint8_t*>(data_) + at,
                                 static_cast<size_t>(n), cudaMemcpyDeviceToHost);
      e != cudaSuccess)
    return cuda_error("cudaMemcpy device to host", e);
  return {};
}

Status fill(DeviceBuffer& b, const Geometry& g, DType d, const Scalar& s) {
  return scalar_op(b, g, d, s, Kind::kFill, "fill_");
}
Status add_scalar(DeviceBuffer& b, const Geometry& g, DType d, const Scalar& s) {
  return scalar_op(b, g, d, s, Kind::kAdd, "add_");
}
Status mul_scalar(DeviceBuffer& b, const Geometry& g, DType d, const Scalar& s) {
  return scalar_op(b, g, d, s, Kind::kMul, "mul_");
}

Status copy(DeviceBuffer& dst, const Geometry& gd, const DeviceBuffer& src, const Geometry& gs,
            DType d) {
  DevGeom a, b;
  if (Status st = device_geometry(dst, gd, d, "copy_", &a); !st.ok()) return st;
  if (Status st = device_geometry(src, gs, d, "copy_", &b); !st.ok()) return st;
  bool same = a.rank == b.rank;
  for (int k = 0; same && k < a.rank; ++k) same = a.sizes[k] == b.sizes[k];
  if (!same)
    return make_error(ErrorKind::kShapeMismatch, "copy_: sizes " + format_sizes(gd) + " and " +
                                                     format_sizes(gs) + " differ");
  return copy_by_itemsize(dst.data(), a, src.data(), b, itemsize(d));
}

Status read_elements(const DeviceBuffer& b, const Geometry& g, DType d, std::vector<uint8_t>* out) {
  DevGeom dg;
  if (Status st = device_geometry(b, g, d, "read", &dg); !st.ok()) return st;
  const int64_t bytes = dg.numel * itemsize(d);
  out->assign(static_cast<size_t>(bytes), 0);
  if (bytes == 0) return {};
  // Gathered row-major into a contiguous scratch buffer, then one download.
  Result<DeviceBuffer> scratch = DeviceBuffer::allocate(bytes);
  if (!scratch.ok()) return scratch.error();
  DevGeom flat = dg;
  flat.offset = 0;
  int64_t stride = 1;
  for (int k = dg.rank - 1; k >= 0; --k) {
    flat.strides[k] = stride;
    stride *= dg.sizes[k];
  }
  if (Status st = copy_by_itemsize(scratch.value().data(), flat, b.data(), dg, itemsize(d));
      !st.ok())
    return st;
  return scratch.value().download(out->data(), bytes);
}

Result<int64_t> device_bytes_in_use() {
  size_t free_b = 0, total_b = 0;
  if (cudaError_t e = cudaMemGetInfo(&free_b, &total_b); e != cudaSuccess)
    return cuda_error("cudaMemGetInfo", e);
  return static_cast<int64_t>(total_b - free_b);
}

}  // namespace storcheck::cuda
