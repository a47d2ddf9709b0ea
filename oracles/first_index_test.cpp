#include "oracles/first_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace storcheck {
namespace {

TEST(FirstIndex, KeepsTheFirstValuePerKeyUntilReset) {
  FirstIndex f;
  int a = 0, b = 0;
  f.reset(4);
  EXPECT_EQ(f.find_or_insert(&a, 3), 3);
  EXPECT_EQ(f.find_or_insert(&b, 5), 5);
  EXPECT_EQ(f.find_or_insert(&a, 7), 3);
  EXPECT_EQ(f.find_or_insert(&b, 9), 5);
  f.reset(4);
  EXPECT_EQ(f.find_or_insert(&a, 7), 7) << "reset forgets every key";
}

TEST(FirstIndex, GrowsAndMatchesAPairwiseScan) {
  // 1,000 keys with repeats, as observe() sees storages shared by views.
  std::vector<int> objects(300);
  std::vector<const void*> keys;
  for (int k = 0; k < 1000; ++k) keys.push_back(&objects[static_cast<size_t>((k * 7919) % 300)]);
  FirstIndex f;
  for (int round = 0; round < 3; ++round) {
    f.reset(keys.size());
    for (size_t v = 0; v < keys.size(); ++v) {
      size_t first = v;
      for (size_t w = 0; w < v; ++w)
        if (keys[w] == keys[v]) {
          first = w;
          break;
        }
      ASSERT_EQ(f.find_or_insert(keys[v], static_cast<int32_t>(v)), static_cast<int32_t>(first));
    }
  }
}

}  // namespace
}  // namespace storcheck
