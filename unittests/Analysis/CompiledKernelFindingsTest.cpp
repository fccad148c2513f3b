//===- CompiledKernelFindingsTest.cpp - Findings of compiled kernels ------===//

#include "kf/Analysis/KernelAnalysis.h"

#include "gtest/gtest.h"

using namespace llvm;

namespace {

/// A kernel's diagnosis document with the fields the findings read.
json::Value document(StringRef kernel, int64_t localBytes) {
  return json::Object{{"kernel", kernel},
                      {"location", "problem.mlir:3:5"},
                      {"local_bytes", localBytes},
                      {"findings", json::Array()}};
}

const json::Array &findingsOf(const json::Array &diagnosis, size_t index) {
  return *diagnosis[index].getAsObject()->getArray("findings");
}

TEST(CompiledKernelFindingsTest, LocalMemoryBeyondTheIRIsASpill) {
  json::Array diagnosis{document("gemm_kernel", 0),
                        document("scan_kernel", 64)};
  // The runtime names kernels "module::kernel"; the scan's 64 bytes are
  // its own array, no spill.
  unsigned added = kf::addCompiledKernelFindings(
      diagnosis, {{"kernels::gemm_kernel", 128, 3960},
                  {"kernels::scan_kernel", 40, 64},
                  {"kernels::unknown_kernel", 255, 512}});
  EXPECT_EQ(added, 1u);
  const json::Array &gemm = findingsOf(diagnosis, 0);
  ASSERT_EQ(gemm.size(), 1u);
  const json::Object &finding = *gemm[0].getAsObject();
  EXPECT_EQ(finding.getString("kind"), "register-spill");
  EXPECT_EQ(finding.getString("severity"), "warning");
  EXPECT_EQ(finding.getString("action"), "shrink-register-tile");
  EXPECT_EQ(finding.getString("location"), "problem.mlir:3:5");
  const json::Object &evidence = *finding.getObject("evidence");
  EXPECT_EQ(evidence.getInteger("registers"), 128);
  EXPECT_EQ(evidence.getInteger("spilled_bytes"), 3960);
  EXPECT_TRUE(findingsOf(diagnosis, 1).empty());
}

TEST(CompiledKernelFindingsTest, NoLocalMemoryNoFinding) {
  json::Array diagnosis{document("copy_kernel", 0)};
  EXPECT_EQ(kf::addCompiledKernelFindings(diagnosis, {{"copy_kernel", 34, 0}}),
            0u);
  EXPECT_TRUE(findingsOf(diagnosis, 0).empty());
}

} // namespace
