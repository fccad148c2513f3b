//===- ScanAnalysisTest.cpp - Scans written as masked reductions ----------===//

#include "kf/Analysis/ScanAnalysis.h"

#include "kf/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class ScanAnalysisTest : public ::testing::Test {
protected:
  ScanAnalysisTest() {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The analysis of a generic over (i, k, l) reading x[i, `xIndex`] into
  /// a [4, 64] output at (i, k), whose body is `body` (with %v the element,
  /// %acc the output, %l and %k the indices and %zero, %one constants) and
  /// yields %r.
  FailureOr<kf::ScanLoops> analyze(StringRef body, StringRef xIndex = "l",
                                   std::string *whyNot = nullptr) {
    std::string text =
        (llvm::Twine("func.func @f(%x: tensor<4x64xf32>, %init: "
                     "tensor<4x64xf32>) -> tensor<4x64xf32> {\n"
                     "  %zero = arith.constant 0.0 : f32\n"
                     "  %one = arith.constant 1.0 : f32\n"
                     "  %r = linalg.generic {indexing_maps = "
                     "[affine_map<(i, k, l) -> (i, ") +
         xIndex +
         ")>, affine_map<(i, k, l) -> (i, k)>], iterator_types = "
         "[\"parallel\", \"parallel\", \"reduction\"]} ins(%x : "
         "tensor<4x64xf32>) outs(%init : tensor<4x64xf32>) {\n"
         "  ^bb0(%v: f32, %acc: f32):\n"
         "    %l = linalg.index 2 : index\n"
         "    %k = linalg.index 1 : index\n" +
         body +
         "\n    linalg.yield %s : f32\n  } -> tensor<4x64xf32>\n"
         "  return %r : tensor<4x64xf32>\n}\n")
            .str();
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    if (!module)
      return failure();
    linalg::LinalgOp op;
    module->walk([&](linalg::LinalgOp found) { op = found; });
    return kf::analyzeScan(op, whyNot);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ScanAnalysisTest, InclusiveForwardSum) {
  FailureOr<kf::ScanLoops> scan = analyze(R"mlir(
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %zero : f32
    %s = arith.addf %m, %acc : f32)mlir");
  ASSERT_TRUE(succeeded(scan));
  EXPECT_EQ(scan->scanLoop, 1u);
  EXPECT_EQ(scan->reductionLoop, 2u);
  EXPECT_EQ(scan->length, 64);
  EXPECT_FALSE(scan->reverse);
  EXPECT_FALSE(scan->exclusive);
}

TEST_F(ScanAnalysisTest, OperandsSwappedAndNeutralFirst) {
  // k > l is l < k: exclusive forwards; select(k >= l, 1, v) keeps v where
  // l > k (reverse, exclusive) for a product.
  FailureOr<kf::ScanLoops> swapped = analyze(R"mlir(
    %in = arith.cmpi ugt, %k, %l : index
    %m = arith.select %in, %v, %zero : f32
    %s = arith.addf %acc, %m : f32)mlir");
  ASSERT_TRUE(succeeded(swapped));
  EXPECT_FALSE(swapped->reverse);
  EXPECT_TRUE(swapped->exclusive);
  FailureOr<kf::ScanLoops> inverted = analyze(R"mlir(
    %in = arith.cmpi sge, %k, %l : index
    %m = arith.select %in, %one, %v : f32
    %s = arith.mulf %m, %acc : f32)mlir");
  ASSERT_TRUE(succeeded(inverted));
  EXPECT_TRUE(inverted->reverse);
  EXPECT_TRUE(inverted->exclusive);
}

TEST_F(ScanAnalysisTest, ElementComputedFromTheInputs) {
  FailureOr<kf::ScanLoops> scan = analyze(R"mlir(
    %a = math.absf %v : f32
    %in = arith.cmpi uge, %l, %k : index
    %m = arith.select %in, %a, %zero : f32
    %s = arith.addf %m, %acc : f32)mlir");
  ASSERT_TRUE(succeeded(scan));
  EXPECT_TRUE(scan->reverse);
  EXPECT_FALSE(scan->exclusive);
  EXPECT_EQ(scan->element.getDefiningOp()->getName().getStringRef(),
            "math.absf");
}

TEST_F(ScanAnalysisTest, RefusesWhatIsNotAScan) {
  std::string why;
  // The masked value is not the sum's neutral element.
  EXPECT_TRUE(failed(analyze(R"mlir(
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %one : f32
    %s = arith.addf %m, %acc : f32)mlir",
                             "l", &why)));
  EXPECT_NE(why.find("neutral"), std::string::npos) << why;
  // Equality picks one element: a gather, not a scan.
  EXPECT_TRUE(failed(analyze(R"mlir(
    %in = arith.cmpi eq, %l, %k : index
    %m = arith.select %in, %v, %zero : f32
    %s = arith.addf %m, %acc : f32)mlir")));
  // The mask compares the scanned loop with itself.
  EXPECT_TRUE(failed(analyze(R"mlir(
    %in = arith.cmpi ule, %k, %k : index
    %m = arith.select %in, %v, %zero : f32
    %s = arith.addf %m, %acc : f32)mlir")));
  // The element depends on k (through its index).
  EXPECT_TRUE(failed(analyze(R"mlir(
    %kf = arith.index_cast %k : index to i32
    %kv = arith.sitofp %kf : i32 to f32
    %e = arith.mulf %v, %kv : f32
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %e, %zero : f32
    %s = arith.addf %m, %acc : f32)mlir")));
  // A plain reduction.
  EXPECT_TRUE(failed(analyze(R"mlir(
    %s = arith.addf %v, %acc : f32)mlir")));
}

} // namespace
