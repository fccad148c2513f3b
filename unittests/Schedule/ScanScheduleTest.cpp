//===- ScanScheduleTest.cpp - Schedules of scans --------------------------===//

#include "kf/Schedule/Schedule.h"

#include "kf/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

/// A cumulative sum over rows of 64 written in blocks of 8 (the form of
/// Level 1's cumsum problems).
const char *kBlockedScan =
    "func.func @cumsum(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {\n"
    "  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : "
    "tensor<2x64xf32> into tensor<2x8x8xf32>\n"
    "  %neutral = arith.constant 0.0 : f32\n"
    "  %e3 = tensor.empty() : tensor<2x8x8xf32>\n"
    "  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> "
    "tensor<2x8x8xf32>\n"
    "  %inner = linalg.generic {\n"
    "      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, "
    "affine_map<(i, j, k, l) -> (i, j, k)>],\n"
    "      iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
    "\"reduction\"]}\n"
    "      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {\n"
    "  ^bb0(%v: f32, %acc: f32):\n"
    "    %l = linalg.index 3 : index\n"
    "    %k = linalg.index 2 : index\n"
    "    %in = arith.cmpi ule, %l, %k : index\n"
    "    %m = arith.select %in, %v, %neutral : f32\n"
    "    %s = arith.addf %m, %acc : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<2x8x8xf32>\n"
    "  %e2 = tensor.empty() : tensor<2x8xf32>\n"
    "  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> "
    "tensor<2x8xf32>\n"
    "  %totals = linalg.generic {\n"
    "      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, "
    "j, k) -> (i, j)>],\n"
    "      iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}\n"
    "      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {\n"
    "  ^bb0(%v: f32, %acc: f32):\n"
    "    %s = arith.addf %v, %acc : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<2x8xf32>\n"
    "  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> "
    "tensor<2x8xf32>\n"
    "  %outer = linalg.generic {\n"
    "      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, "
    "k) -> (i, j)>],\n"
    "      iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}\n"
    "      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {\n"
    "  ^bb0(%v: f32, %acc: f32):\n"
    "    %l = linalg.index 2 : index\n"
    "    %k = linalg.index 1 : index\n"
    "    %in = arith.cmpi ult, %l, %k : index\n"
    "    %m = arith.select %in, %v, %neutral : f32\n"
    "    %s = arith.addf %m, %acc : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<2x8xf32>\n"
    "  %e3b = tensor.empty() : tensor<2x8x8xf32>\n"
    "  %y = linalg.generic {\n"
    "      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, "
    "j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],\n"
    "      iterator_types = [\"parallel\", \"parallel\", \"parallel\"]}\n"
    "      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b "
    ": tensor<2x8x8xf32>) {\n"
    "  ^bb0(%a: f32, %b: f32, %o: f32):\n"
    "    %s = arith.addf %a, %b : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<2x8x8xf32>\n"
    "  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into "
    "tensor<2x64xf32>\n"
    "  return %r : tensor<2x64xf32>\n"
    "}\n";

/// A cumulative sum over 1024 rows of 32768 written as one masked
/// reduction.
const char *kFlatScan =
    "func.func @flat(%x: tensor<1024x32768xf32>) -> tensor<1024x32768xf32> {\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<1024x32768xf32>\n"
    "  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x32768xf32>) -> "
    "tensor<1024x32768xf32>\n"
    "  %r = linalg.generic {\n"
    "      indexing_maps = [affine_map<(i, k, l) -> (i, l)>, affine_map<(i, k, "
    "l) -> (i, k)>],\n"
    "      iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}\n"
    "      ins(%x : tensor<1024x32768xf32>) outs(%f : tensor<1024x32768xf32>) "
    "{\n"
    "  ^bb0(%v: f32, %acc: f32):\n"
    "    %l = linalg.index 2 : index\n"
    "    %k = linalg.index 1 : index\n"
    "    %in = arith.cmpi ule, %l, %k : index\n"
    "    %m = arith.select %in, %v, %zero : f32\n"
    "    %s = arith.addf %m, %acc : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<1024x32768xf32>\n"
    "  return %r : tensor<1024x32768xf32>\n"
    "}\n";

class ScanScheduleTest : public ::testing::Test {
protected:
  ScanScheduleTest() {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  func::FuncOp parse(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    return cast<func::FuncOp>(module->getBody()->front());
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ScanScheduleTest, DefaultFoldsABlockedScanAndGivesItLanes) {
  func::FuncOp reference = parse(kBlockedScan);
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->foldScans);
  EXPECT_FALSE(schedule->fuseElementwise);
  FailureOr<kf::Restructured> structure = kf::restructure(reference, *schedule);
  ASSERT_TRUE(succeeded(structure));
  // The fill of the output and the scan.
  ASSERT_EQ(structure->shapes.size(), 2u);
  EXPECT_EQ(structure->shapes[1].scanPosition, std::optional<unsigned>(1));
  // 64 elements: 8 lanes of 8 elements; 32 groups of them would want 32
  // rows, the two rows get a group each; the scanned loop stays whole.
  ASSERT_EQ(schedule->ops.size(), 2u);
  EXPECT_EQ(schedule->ops[1].reductionLanes, 8);
  EXPECT_EQ(schedule->ops[1].blockTile, (SmallVector<int64_t>{2, 0}));
  EXPECT_EQ(schedule->ops[1].threads, (SmallVector<int64_t>{2, 0}));
  FailureOr<std::string> script = kf::renderSchedule(reference, *schedule);
  ASSERT_TRUE(succeeded(script));
  EXPECT_NE(script->find("kf-fold-blocked-scans"), std::string::npos);
  EXPECT_NE(script->find("fuse_into_containing_op %op0 into %bforall1"),
            std::string::npos)
      << *script;

  kf::Schedule copy;
  llvm::json::Path::Root root;
  ASSERT_TRUE(kf::fromJSON(kf::toJSON(*schedule), copy, root));
  EXPECT_TRUE(copy.foldScans);

  // The trusted reference runs the blocked ops as written.
  FailureOr<kf::Schedule> naive =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_FALSE(naive->foldScans);
  for (const kf::OpSchedule &op : naive->ops)
    EXPECT_EQ(op.reductionLanes, 0);
}

TEST_F(ScanScheduleTest, ScanLanes) {
  kf::OpShape shape;
  shape.parallelSizes = {4, 8192};
  shape.innerReductionSize = 8192;
  shape.reductionLoops = 1;
  shape.scanPosition = 1;
  EXPECT_EQ(kf::defaultReductionLanes(shape), 32);
  kf::OpSchedule op;
  // At most a warp walks a row.
  EXPECT_FALSE(kf::setReductionLanes(op, shape, 64));
  ASSERT_TRUE(kf::setReductionLanes(op, shape, 16));
  EXPECT_EQ(op.reductionLanes, 16);
  EXPECT_EQ(op.blockTile, (SmallVector<int64_t>{4, 0}));
  EXPECT_EQ(op.threads, (SmallVector<int64_t>{4, 0}));
  shape.innerReductionSize = 32;
  EXPECT_EQ(kf::defaultReductionLanes(shape), 4);
  shape.innerReductionSize = 8;
  EXPECT_EQ(kf::defaultReductionLanes(shape), 0);
  // One row: nothing to tile over blocks.
  shape.parallelSizes = {8192};
  shape.innerReductionSize = 8192;
  shape.scanPosition = 0;
  EXPECT_FALSE(kf::setReductionLanes(op, shape, 32));
}

TEST_F(ScanScheduleTest, LongScanWithoutLanesIsRefused) {
  func::FuncOp reference = parse(kFlatScan);
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_EQ(schedule->ops[1].reductionLanes, 32);
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));
  // Without its lanes, 1024 x 32768^2 steps.
  kf::Schedule naive = *schedule;
  FailureOr<kf::Schedule> plain =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(plain));
  naive.ops = plain->ops;
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(kf::renderSchedule(reference, naive)));
  EXPECT_NE(message.find("needs reduction lanes"), std::string::npos)
      << message;
}

TEST_F(ScanScheduleTest, ReadsOneInput) {
  // A pooling window reads its input; the window shape's operand only gives
  // the loop's range. A convolution reads weights too (here through
  // math.fma, with no arith.mulf).
  parse("func.func @f(%x: tensor<4x20xf32>, %w: tensor<4xf32>, %o: "
        "tensor<4x17xf32>) -> (tensor<4x17xf32>, tensor<4x17xf32>) {\n"
        "  %p = linalg.generic {indexing_maps = [affine_map<(i, j, r) -> (i, "
        "j + r)>, affine_map<(i, j, r) -> (r)>, affine_map<(i, j, r) -> (i, "
        "j)>], iterator_types = [\"parallel\", \"parallel\", "
        "\"reduction\"]} ins(%x, %w : tensor<4x20xf32>, tensor<4xf32>) "
        "outs(%o : tensor<4x17xf32>) {\n"
        "  ^bb0(%a: f32, %b: f32, %acc: f32):\n"
        "    %m = arith.maximumf %a, %acc : f32\n"
        "    linalg.yield %m : f32\n"
        "  } -> tensor<4x17xf32>\n"
        "  %c = linalg.generic {indexing_maps = [affine_map<(i, j, r) -> (i, "
        "j + r)>, affine_map<(i, j, r) -> (r)>, affine_map<(i, j, r) -> (i, "
        "j)>], iterator_types = [\"parallel\", \"parallel\", "
        "\"reduction\"]} ins(%x, %w : tensor<4x20xf32>, tensor<4xf32>) "
        "outs(%o : tensor<4x17xf32>) {\n"
        "  ^bb0(%a: f32, %b: f32, %acc: f32):\n"
        "    %m = math.fma %a, %b, %acc : f32\n"
        "    linalg.yield %m : f32\n"
        "  } -> tensor<4x17xf32>\n"
        "  return %p, %c : tensor<4x17xf32>, tensor<4x17xf32>\n}\n");
  SmallVector<linalg::LinalgOp> ops;
  module->walk([&](linalg::LinalgOp op) { ops.push_back(op); });
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_TRUE(kf::readsOneInput(ops[0]));
  EXPECT_FALSE(kf::readsOneInput(ops[1]));
}

} // namespace
