// The CUDA reference (impl/cuda/device.h, Note [CUDA reference]) against
// the CPU reference: ctest label `gpu`. Without a usable device the kernel
// tests skip with the reason; the checks that run before any CUDA call (S8,
// arguments) and the error path of a machine without a GPU run everywhere.
#include "impl/cuda/device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "impl/ops.h"
#include "impl/tensor.h"

namespace storcheck {
namespace {

#define SKIP_WITHOUT_GPU()                                 \
  do {                                                     \
    std::string why_;                                      \
    if (!cuda::device_available(&why_)) GTEST_SKIP() << why_; \
  } while (0)

TEST(CudaDevice, AvailabilityNamesTheReason) {
  std::string why;
  if (cuda::device_available(&why)) {
    EXPECT_TRUE(why.empty());
  } else {
    EXPECT_EQ(why.rfind("no usable CUDA device: ", 0), 0u) << why;
  }
}

// S8 and argument checks come before any CUDA call: no device needed.
TEST(CudaDevice, UndersizedStorageIsRefusedBeforeAnyLaunchS8) {
  cuda::DeviceBuffer empty;  // 0 bytes, as after release() (R1)
  Geometry g = Geometry::of({2, 3}, {3, 1}, 0, 4);
  Status st = cuda::fill(empty, g, DType::kF32, Scalar::floating(1));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kUndefinedBehavior);
  EXPECT_NE(st.error().message.find("needs 24 bytes, the device storage has 0"), std::string::npos)
      << st.error().message;
  Geometry wrong_item = Geometry::of({2}, {1}, 0, 8);
  EXPECT_EQ(cuda::add_scalar(empty, wrong_item, DType::kF32, Scalar::integer(1)).error().kind,
            ErrorKind::kInvalidArgument);
  Result<cuda::DeviceBuffer> neg = cuda::DeviceBuffer::allocate(-1);
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.error().kind, ErrorKind::kInvalidArgument);
  Result<cuda::DeviceBuffer> none = cuda::DeviceBuffer::allocate(0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value().nbytes(), 0);
  uint8_t byte = 0;
  EXPECT_EQ(none.value().upload(&byte, 1).error().kind, ErrorKind::kInvalidArgument);
}

// Without a GPU every runtime call is an error Status naming the call.
TEST(CudaDevice, WithoutAGpuAllocationIsAnErrorNotACrash) {
  std::string why;
  if (cuda::device_available(&why)) GTEST_SKIP() << "a GPU is present: this checks its absence";
  Result<cuda::DeviceBuffer> b = cuda::DeviceBuffer::allocate(16);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("cuda: cudaMalloc: "), std::string::npos) << b.error().message;
  EXPECT_FALSE(cuda::device_bytes_in_use().ok());
}

TEST(CudaDevice, AllocateZeroFillsCloneCopiesReleaseFreesR1R3C3) {
  SKIP_WITHOUT_GPU();
  cuda::DeviceBuffer b = cuda::DeviceBuffer::allocate(64).value();
  std::vector<uint8_t> bytes(64, 0xff);
  ASSERT_TRUE(b.download(bytes.data(), 64).ok());
  EXPECT_EQ(bytes, std::vector<uint8_t>(64, 0))
      << "a fresh or restored storage is zero-filled (R3)";
  for (int k = 0; k < 64; ++k) bytes[static_cast<size_t>(k)] = static_cast<uint8_t>(k);
  ASSERT_TRUE(b.upload(bytes.data(), 64).ok());
  cuda::DeviceBuffer c = b.clone().value();
  uint8_t seven = 7;
  ASSERT_TRUE(b.upload(&seven, 1, 10).ok());
  std::vector<uint8_t> back(64);
  ASSERT_TRUE(c.download(back.data(), 64).ok());
  EXPECT_EQ(back, bytes) << "the clone is a copy, not an alias (C3)";
  // A shrink frees device memory (R1): 256 MiB come back.
  const int64_t big = int64_t{256} << 20;
  cuda::DeviceBuffer large = cuda::DeviceBuffer::allocate(big).value();
  const int64_t with = cuda::device_bytes_in_use().value();
  large.release();
  EXPECT_EQ(large.nbytes(), 0);
  const int64_t without = cuda::device_bytes_in_use().value();
  EXPECT_GE(with - without, big * 3 / 4);
}

/// A random geometry over `nbytes` of a dtype of `item` bytes (ranks 0-4,
/// sizes 0-4, strides 0-6, offsets 0-3), one that fits.
Geometry random_geometry(std::mt19937_64& rng, int64_t item, int64_t nbytes) {
  for (;;) {
    Geometry g;
    g.rank = static_cast<int>(rng() % 5);
    g.itemsize = item;
    for (int d = 0; d < g.rank; ++d) {
      g.sizes[static_cast<size_t>(d)] = static_cast<int64_t>(rng() % 5);
      g.strides[static_cast<size_t>(d)] = static_cast<int64_t>(rng() % 7);
    }
    g.offset = static_cast<int64_t>(rng() % 4);
    int64_t need = 0;
    if (g.required_bytes(&need) && need <= nbytes) return g;
  }
}

const DType kDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kU8,
                         DType::kBool};

/// The CPU reference's tensor over a fresh storage of `nbytes` filled with
/// a pattern, viewed with `g`.
Tensor cpu_tensor(Context& ctx, int64_t nbytes, DType d, const Geometry& g, uint8_t seed) {
  const int64_t n[] = {nbytes / itemsize(d)};
  Tensor base = zeros(ctx, IntSpan(n, 1), d).value();
  uint8_t* p = base->storage->mutable_data();
  for (int64_t k = 0; k < nbytes; ++k)
    p[k] = d == DType::kBool ? static_cast<uint8_t>((k * 7 + seed) % 2)
                             : static_cast<uint8_t>(k * 37 + seed);
  if (d == DType::kF32 || d == DType::kF64)  // finite values: small integers
    for (int64_t k = 0; k < nbytes / itemsize(d); ++k) {
      if (d == DType::kF32) {
        float v = static_cast<float>((k * 5 + seed) % 17) - 8.5f;
        std::memcpy(p + k * 4, &v, 4);
      } else {
        double v = static_cast<double>((k * 5 + seed) % 17) - 8.5;
        std::memcpy(p + k * 8, &v, 8);
      }
    }
  return as_strided(base, IntSpan(g.sizes.data(), g.rank), IntSpan(g.strides.data(), g.rank),
                    g.offset)
      .value();
}

std::vector<uint8_t> storage_bytes(const Tensor& t) {
  const uint8_t* p = t->storage->read_data();
  return std::vector<uint8_t>(p, p + t->storage->nbytes());
}

TEST(CudaDevice, ScalarKernelsMatchTheCpuReferenceOnRandomGeometries) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(11);
  const Scalar scalars[] = {Scalar::integer(3), Scalar::floating(-1.25), Scalar::integer(-200),
                            Scalar::boolean(true)};
  int checked = 0;
  for (int round = 0; round < 300; ++round) {
    const DType d = kDTypes[round % 6];
    const int64_t nbytes = 64 * itemsize(d);
    Geometry g = random_geometry(rng, itemsize(d), nbytes);
    const Scalar s = scalars[static_cast<size_t>(round / 6 % 4)];
    const int which = round / 24 % 3;  // fill_, add_, mul_
    if (which > 0 && g.has_overlap()) continue;  // order-dependent writes: not compared
    if (!scalar_fits(d, s)) continue;
    Context ctx;
    Tensor t = cpu_tensor(ctx, nbytes, d, g, static_cast<uint8_t>(round));
    cuda::DeviceBuffer b = cuda::DeviceBuffer::allocate(nbytes).value();
    ASSERT_TRUE(b.upload(t->storage->read_data(), nbytes).ok());
    Status cpu = which == 0 ? fill_(t, s) : which == 1 ? add_(t, s) : mul_(t, s);
    if (!cpu.ok()) continue;  // e.g. a dtype cast the CPU reference refuses
    Status gpu = which == 0   ? cuda::fill(b, g, d, s)
                 : which == 1 ? cuda::add_scalar(b, g, d, s)
                              : cuda::mul_scalar(b, g, d, s);
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;
    std::vector<uint8_t> got(static_cast<size_t>(nbytes));
    ASSERT_TRUE(b.download(got.data(), nbytes).ok());
    EXPECT_EQ(got, storage_bytes(t)) << "round " << round << " " << dtype_name(d) << " op "
                                     << which << " sizes " << format_sizes(g) << " strides "
                                     << format_strides(g) << " offset " << g.offset;
    std::vector<uint8_t> cpu_el, gpu_el;
    read_elements(*t, &cpu_el);
    ASSERT_TRUE(cuda::read_elements(b, g, d, &gpu_el).ok());
    EXPECT_EQ(gpu_el, cpu_el);
    ++checked;
  }
  EXPECT_GT(checked, 150);
}

TEST(CudaDevice, CopyMatchesTheCpuReferenceOnRandomGeometries) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(5);
  int checked = 0;
  for (int round = 0; round < 200; ++round) {
    const DType d = kDTypes[round % 6];
    const int64_t nbytes = 64 * itemsize(d);
    Geometry gd = random_geometry(rng, itemsize(d), nbytes);
    if (gd.has_overlap()) continue;
    Geometry gs = random_geometry(rng, itemsize(d), nbytes);
    gs.rank = gd.rank;
    gs.sizes = gd.sizes;
    int64_t need = 0;
    if (!gs.required_bytes(&need) || need > nbytes) continue;
    Context ctx;
    Tensor dst = cpu_tensor(ctx, nbytes, d, gd, 1);
    Tensor src = cpu_tensor(ctx, nbytes, d, gs, 2);
    cuda::DeviceBuffer bd = cuda::DeviceBuffer::allocate(nbytes).value();
    cuda::DeviceBuffer bs = cuda::DeviceBuffer::allocate(nbytes).value();
    ASSERT_TRUE(bd.upload(dst->storage->read_data(), nbytes).ok());
    ASSERT_TRUE(bs.upload(src->storage->read_data(), nbytes).ok());
    ASSERT_TRUE(copy_(dst, src).ok());
    Status gpu = cuda::copy(bd, gd, bs, gs, d);
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;
    std::vector<uint8_t> got(static_cast<size_t>(nbytes));
    ASSERT_TRUE(bd.download(got.data(), nbytes).ok());
    EXPECT_EQ(got, storage_bytes(dst)) << "round " << round;
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace storcheck
