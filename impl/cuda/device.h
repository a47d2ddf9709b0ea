// The reference's storage and elementwise kernels on a CUDA device (issue
// 11): device bytes through the CUDA runtime, strided kernels over the CPU
// reference's Geometry, and element reads for observations. Built by nvcc
// when CMake finds the CUDA Toolkit (STORCHECK_WITH_CUDA); host code sees
// no CUDA header. Every entry point turns a runtime error into a Status, so
// a machine without a GPU or driver gets errors, never a crash.
//
// Note [CUDA reference]
// - A DeviceBuffer is one cudaMalloc'd block. allocate() zero-fills it
//   (cudaMemset): a fresh storage, and the restored storage of every clone
//   path of an emptied tensor (R3). clone() is a device-to-device copy (the
//   materialization of a COW storage, C3). release() frees the device
//   memory and leaves 0 bytes (shrink, R1).
// - The kernels take a Geometry in elements (any rank up to
//   kGeometryMaxDims, any strides >= 0 including 0, an offset) and give the
//   CPU reference's results element for element: the scalar is converted to
//   the tensor's dtype on the host first (as store_scalar does), floating
//   dtypes compute in their own type, integers wrap, bool add is `or` and
//   mul is `and` (impl/dtype.cpp binop).
// - S8: a kernel never reads or writes past the buffer; a geometry whose
//   required bytes exceed nbytes() is kUndefinedBehavior, not launched.
//
//   std::string why;
//   if (!cuda::device_available(&why)) return skip(why);
//   cuda::DeviceBuffer b = cuda::DeviceBuffer::allocate(24).value();
//   Geometry g = Geometry::of({2, 3}, {1, 2}, 0, 4);  // a transposed view
//   Status st = cuda::fill(b, g, DType::kF32, Scalar::floating(1.5));
//   std::vector<uint8_t> out;
//   st = cuda::read_elements(b, g, DType::kF32, &out);  // row-major bytes
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "impl/dtype.h"
#include "impl/error.h"
#include "impl/geometry.h"

namespace storcheck::cuda {

/// Whether a CUDA device can run kernels; otherwise false with the reason in
/// *why (no driver, no device, a runtime older than the driver...: any error
/// of cudaGetDeviceCount means no GPU).
bool device_available(std::string* why);

/// One block of device memory (Note [CUDA reference]). Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// `nbytes` of zero-filled device memory; kInvalidArgument for a negative
  /// size, kResourceLimit when the device is out of memory.
  static Result<DeviceBuffer> allocate(int64_t nbytes);
  /// A device-to-device copy of every byte (C3).
  Result<DeviceBuffer> clone() const;
  /// Frees the device memory: nbytes() is 0 afterwards (R1).
  void release();

  int64_t nbytes() const { return nbytes_; }
  void* data() const { return data_; }

  /// Host bytes [0, n) to device bytes [at, at + n), and back.
  Status upload(const void* host, int64_t n, int64_t at = 0);
  Status download(void* host, int64_t n, int64_t at = 0) const;

 private:
  void* data_ = nullptr;
  int64_t nbytes_ = 0;
};

/// fill_, add_ and mul_ with a scalar on the elements `g` addresses in `b`.
Status fill(DeviceBuffer& b, const Geometry& g, DType d, const Scalar& s);
Status add_scalar(DeviceBuffer& b, const Geometry& g, DType d, const Scalar& s);
Status mul_scalar(DeviceBuffer& b, const Geometry& g, DType d, const Scalar& s);
/// dst's elements (geometry gd) = src's (gs), same sizes and dtype; the
/// two may be one buffer only when the caller has ruled out overlap.
Status copy(DeviceBuffer& dst, const Geometry& gd, const DeviceBuffer& src, const Geometry& gs,
            DType d);
/// The elements of `g`, row-major, numel * itemsize(d) bytes into *out.
Status read_elements(const DeviceBuffer& b, const Geometry& g, DType d, std::vector<uint8_t>* out);
/// Device memory in use (total minus free, cudaMemGetInfo): what a shrink
/// frees is seen here.
Result<int64_t> device_bytes_in_use();

}  // namespace storcheck::cuda
