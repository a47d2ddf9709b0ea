#include "impl/storage.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

namespace storcheck {

Status AllocBudget::charge(int64_t bytes, std::string_view op) {
  if (bytes > max_tensor_bytes) {
    return make_error(ErrorKind::kResourceLimit,
                      std::string(op) + ": allocation of " + std::to_string(bytes) +
                          " bytes exceeds max_tensor_bytes " + std::to_string(max_tensor_bytes));
  }
  if (bytes > max_total_bytes - used) {
    return make_error(ErrorKind::kResourceLimit,
                      std::string(op) + ": allocation of " + std::to_string(bytes) +
                          " bytes brings the run's total past max_program_bytes " +
                          std::to_string(max_total_bytes) + " (already " + std::to_string(used) +
                          ")");
  }
  used += bytes;
  return {};
}

namespace {
std::atomic<int64_t> g_next_storage_id{1};
}  // namespace

Storage::Storage(int64_t id, int64_t nbytes) : id_(id), nbytes_(0) { resize(nbytes); }

Result<std::shared_ptr<Storage>> Storage::allocate(AllocBudget* budget, int64_t nbytes,
                                                   std::string_view op) {
  Status st = budget->charge(nbytes, op);
  if (!st.ok()) return st.error();
  return std::make_shared<Storage>(g_next_storage_id++, nbytes);
}

void Storage::resize(int64_t nbytes) {
  SC_ASSERT(nbytes >= 0, "negative storage size " + std::to_string(nbytes));
  if (nbytes == nbytes_) return;
  std::unique_ptr<uint8_t[]> fresh;
  if (nbytes > 0) {
    fresh.reset(new uint8_t[static_cast<size_t>(nbytes)]);
    int64_t keep = std::min(nbytes, nbytes_);
    if (keep > 0) std::memcpy(fresh.get(), data_.get(), static_cast<size_t>(keep));
    std::memset(fresh.get() + keep, 0, static_cast<size_t>(nbytes - keep));
  }
  data_ = std::move(fresh);
  nbytes_ = nbytes;
}

}  // namespace storcheck
