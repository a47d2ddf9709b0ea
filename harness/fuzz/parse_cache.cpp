#include "harness/fuzz/parse_cache.h"

#include <functional>
#include <utility>

#include "program/text_format.h"

namespace storcheck {

namespace {

uint64_t hash_of(std::string_view text) { return std::hash<std::string_view>{}(text); }

}  // namespace

ParseCache::ParseCache(const Limits& limits, size_t capacity)
    : limits_(limits), capacity_(capacity == 0 ? 1 : capacity) {}

const Program* ParseCache::find(std::string_view text) const {
  auto it = entries_.find(hash_of(text));
  if (it == entries_.end() || it->second.text != text) return nullptr;
  return &it->second.program;
}

const Program* ParseCache::parse(std::string_view text) {
  if (const Program* p = find(text)) return p;
  ParseResult r = parse_program(text, limits_);
  if (!r.ok()) return nullptr;
  const uint64_t h = hash_of(text);
  auto [it, fresh] = entries_.try_emplace(h);
  if (fresh) {  // a colliding text replaces the entry in place
    order_.push_back(h);
    while (entries_.size() > capacity_) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
  }
  it->second.text.assign(text.data(), text.size());
  it->second.program = std::move(r.program);
  return &it->second.program;
}

}  // namespace storcheck
