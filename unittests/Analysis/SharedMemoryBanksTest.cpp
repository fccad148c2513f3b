//===- SharedMemoryBanksTest.cpp - Wavefronts of warp-wide shared accesses ===//

#include "kf/Analysis/SharedMemoryBanks.h"

#include "gtest/gtest.h"

using kf::sharedWavefronts;

namespace {

TEST(SharedMemoryBanks, ScalarAccesses) {
  // Consecutive words: one wavefront.
  auto unit = sharedWavefronts(4, 0, 0, 4);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->instructions, 1u);
  EXPECT_EQ(unit->wavefronts, 1u);
  EXPECT_EQ(unit->passes, 1u);
  EXPECT_EQ(unit->distinctWords, 32u);
  // A column of a 32-wide tile: every lane in bank 0.
  auto column = sharedWavefronts(128, 0, 0, 4);
  ASSERT_TRUE(column);
  EXPECT_EQ(column->wavefronts, 32u);
  // Padded by one word: conflict-free.
  EXPECT_EQ(sharedWavefronts(132, 0, 0, 4)->wavefronts, 1u);
  // Stride 2 words: 2-way.
  EXPECT_EQ(sharedWavefronts(8, 0, 0, 4)->wavefronts, 2u);
  // Broadcast: one word for the warp.
  auto broadcast = sharedWavefronts(0, 0, 0, 4);
  EXPECT_EQ(broadcast->wavefronts, 1u);
  EXPECT_EQ(broadcast->distinctWords, 1u);
}

TEST(SharedMemoryBanks, VectorAccessesPassPerQuarterWarp) {
  // 16 bytes per lane, consecutive: four passes of 128 bytes.
  auto v4 = sharedWavefronts(16, 0, 0, 16);
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->instructions, 1u);
  EXPECT_EQ(v4->wavefronts, 4u);
  EXPECT_EQ(v4->passes, 4u);
  // 32 bytes apart: two lanes of a pass share banks, 2-way.
  EXPECT_EQ(sharedWavefronts(32, 0, 0, 16)->wavefronts, 8u);
  // A 64-byte vector per lane is four 16-byte instructions.
  auto v16 = sharedWavefronts(0, 0, 0, 64);
  EXPECT_EQ(v16->instructions, 4u);
  EXPECT_EQ(v16->wavefronts, 16u);
  // 8 bytes per lane: two passes of 16 lanes.
  EXPECT_EQ(sharedWavefronts(8, 0, 0, 8)->wavefronts, 2u);
}

TEST(SharedMemoryBanks, NarrowBlocksPutSeveralRowsInAWarp) {
  // 16 threads along x: lanes 16-31 are the next thread row. Rows 8 tile
  // rows of 16 words apart (512 bytes) land in the same banks: the second
  // row doubles the words per bank of a 4-byte access.
  EXPECT_EQ(sharedWavefronts(0, 512, 16, 4)->wavefronts, 2u);
  EXPECT_EQ(sharedWavefronts(0, 512, 16, 4)->distinctWords, 2u);
  // Rows 1 word apart: no conflict.
  EXPECT_EQ(sharedWavefronts(0, 4, 16, 4)->wavefronts, 1u);
  // For 16-byte accesses each quarter-warp pass holds one thread row.
  EXPECT_EQ(sharedWavefronts(0, 512, 16, 16)->wavefronts, 4u);
  // Blocks at least a warp wide ignore the y stride.
  EXPECT_EQ(sharedWavefronts(4, 512, 32, 4)->wavefronts, 1u);
}

TEST(SharedMemoryBanks, UnmodelledAccesses) {
  EXPECT_FALSE(sharedWavefronts(4, 0, 0, 2));   // 16-bit elements
  EXPECT_FALSE(sharedWavefronts(2, 0, 0, 4));   // misaligned lanes
  EXPECT_FALSE(sharedWavefronts(4, 0, 0, 512)); // larger than modelled
}

} // namespace
