#include "impl/storage.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "impl/fault.h"
#include "impl/pool.h"

namespace storcheck {

Status AllocBudget::refuse(int64_t bytes, const char* op) const {
  if (bytes > max_tensor_bytes) {
    return make_error(ErrorKind::kResourceLimit,
                      std::string(op) + ": allocation of " + std::to_string(bytes) +
                          " bytes exceeds max_tensor_bytes " + std::to_string(max_tensor_bytes));
  }
  return make_error(ErrorKind::kResourceLimit,  // charge calls it only past a limit
                    std::string(op) + ": allocation of " + std::to_string(bytes) +
                        " bytes brings the run's total past max_program_bytes " +
                        std::to_string(max_total_bytes) + " (already " + std::to_string(used) +
                        ")");
}

namespace {
BlockRef new_block(int64_t nbytes, const uint8_t* keep_from, int64_t keep) {
  if (nbytes == 0) return {};
  BlockRef b = BlockRef::allocate(nbytes);
  if (keep > 0) std::memcpy(b.bytes(), keep_from, static_cast<size_t>(keep));
  std::memset(b.bytes() + keep, 0, static_cast<size_t>(nbytes - keep));
  return b;
}
}  // namespace

BlockRef BlockRef::allocate(int64_t nbytes) {
  const size_t size = static_cast<size_t>(nbytes);
  BlockRef r;
  r.b_ = new (pool_allocate(sizeof(DataBlock) + size)) DataBlock{1, size};
  return r;
}

void BlockRef::release(DataBlock* b) noexcept { pool_deallocate(b, sizeof(DataBlock) + b->size); }

Storage::Storage(int64_t nbytes) : nbytes_(0) { resize(nbytes); }

Result<Rc<Storage>> Storage::allocate(AllocBudget* budget, int64_t nbytes, const char* op) {
  Status st = budget->charge(nbytes, op);
  if (!st.ok()) return st.error();
  return make_pooled<Storage>(nbytes);
}

Rc<Storage> Storage::make_meta(int64_t nbytes) {
  auto s = make_pooled<Storage>(0);
  s->meta_ = true;
  s->nbytes_ = nbytes;
  return s;
}

// Note [COW materialization]
// Case 1) not COW: the storage owns its block; nothing to do.
// Case 2) COW with other sharers alive: copy all nbytes into a fresh block
//         (a new address); the old block loses one sharer (C4).
// Case 3) COW as the last sharer: keep the block and its address, no copy;
//         the storage stops being COW (C4).
// In every case identity, nbytes, and the tensors' metadata are unchanged (C5).
void Storage::materialize() {
  if (block_ && (block_.use_count() > 1 || fault_active(Fault::kLastSharerCopies))) {  // Case 2)
    block_ = new_block(nbytes_, block_.bytes(), nbytes_);
    ++detail::t_cow_copies;
  }
  cow_ = false;  // Case 3) and the end of Case 2)
}

void Storage::resize(int64_t nbytes) {
  SC_ASSERT(nbytes >= 0, "negative storage size " + std::to_string(nbytes));
  if (meta_) {  // what LibTorch's resize_bytes_meta does: the size only
    nbytes_ = nbytes;
    return;
  }
  // Like LibTorch's resize_bytes_cpu: always a fresh allocation (a new
  // address, even for the same size), min(old, new) bytes copied.
  int64_t keep = std::min(nbytes, nbytes_);
  block_ = new_block(nbytes, read_data(), keep);  // C8: leaves the COW group
  cow_ = false;
  nbytes_ = nbytes;
}

Rc<Storage> Storage::lazy_clone() {
  cow_ = true;
  auto c = make_pooled<Storage>(0);
  c->block_ = block_;
  c->nbytes_ = nbytes_;
  c->cow_ = true;
  c->resizable_ = resizable_;  // as c10::impl::cow::lazy_clone_storage
  c->device_ = device_;
  return c;
}

}  // namespace storcheck
