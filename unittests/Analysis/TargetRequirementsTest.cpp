//===- TargetRequirementsTest.cpp - The NVPTX target's tables and rules ---===//

#include "kf/Analysis/TargetRequirements.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

namespace {

TEST(TargetRequirementsTest, ProcessorsComeFromTheBackend) {
  std::vector<std::string> processors = kf::nvptxProcessors();
  ASSERT_FALSE(processors.empty());
  for (const char *chip : {"sm_50", "sm_61", "sm_70", "sm_80", "sm_90",
                           "sm_90a", "sm_100a", "sm_120"})
    EXPECT_TRUE(llvm::is_contained(processors, chip)) << chip;
  EXPECT_FALSE(llvm::is_contained(processors, "sm_999"));
  // Ordered by SM number, not as strings (sm_100 after sm_90a).
  auto position = [&](const char *chip) {
    return llvm::find(processors, chip) - processors.begin();
  };
  EXPECT_LT(position("sm_90a"), position("sm_100"));
  EXPECT_LT(position("sm_20"), position("sm_30"));
}

TEST(TargetRequirementsTest, PTXVersionsComeFromTheBackend) {
  std::vector<unsigned> versions = kf::nvptxPTXVersions();
  EXPECT_TRUE(llvm::is_contained(versions, 60u));
  EXPECT_TRUE(llvm::is_contained(versions, 78u));
  EXPECT_TRUE(llvm::is_contained(versions, 80u));
  EXPECT_FALSE(llvm::is_contained(versions, 79u));
}

TEST(TargetRequirementsTest, EveryProcessorHasAMinimumPTXVersion) {
  // The table of minimums is kf's (measured with llc-22); a processor a
  // newer LLVM adds must be added to it.
  std::vector<unsigned> versions = kf::nvptxPTXVersions();
  for (const std::string &chip : kf::nvptxProcessors()) {
    unsigned minimum = kf::backendMinimumPTXVersion(chip);
    EXPECT_NE(minimum, 0u) << chip;
    EXPECT_TRUE(llvm::is_contained(versions, minimum)) << chip;
  }
  EXPECT_EQ(kf::backendMinimumPTXVersion("sm_90"), 78u);
  EXPECT_EQ(kf::backendMinimumPTXVersion("sm_90a"), 80u);
  EXPECT_EQ(kf::backendMinimumPTXVersion("sm_999"), 0u);
}

TEST(TargetRequirementsTest, ChipsSatisfyRequirements) {
  kf::TargetRequirement wmma{{70}, false, "wmma"};
  EXPECT_FALSE(kf::chipSatisfies("sm_61", wmma));
  EXPECT_TRUE(kf::chipSatisfies("sm_70", wmma));
  EXPECT_TRUE(kf::chipSatisfies("sm_100a", wmma));
  EXPECT_FALSE(kf::chipSatisfies("gfx90a", wmma));
  kf::TargetRequirement wgmma{{90}, true, "wgmma"};
  EXPECT_FALSE(kf::chipSatisfies("sm_90", wgmma));
  EXPECT_TRUE(kf::chipSatisfies("sm_90a", wgmma));
  EXPECT_FALSE(kf::chipSatisfies("sm_100a", wgmma));
  EXPECT_EQ(wmma.describe(), "sm_70 or newer");
  kf::TargetRequirement tcgen05{{100, 110}, true, "tcgen05"};
  EXPECT_EQ(tcgen05.describe(), "sm_100a or sm_110a");
  EXPECT_EQ(kf::smNumber("sm_121f"), 121u);
  EXPECT_EQ(kf::smNumber("compute_90"), std::nullopt);
}

} // namespace
