//===- DefaultScheduleTest.cpp - Choices of the default schedule ----------===//

#include "kf/Schedule/Schedule.h"

#include "kf/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <functional>

using namespace mlir;

namespace {

class DefaultScheduleTest : public ::testing::Test {
protected:
  DefaultScheduleTest() {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The default schedule of the function `text` holds, parsed into
  /// `module`.
  FailureOr<kf::Schedule> defaultOf(StringRef text, kf::DefaultSchedule kind) {
    module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return failure();
    return kf::buildDefaultSchedule(
        cast<func::FuncOp>(module->getBody()->front()), kind);
  }

  /// The default schedule of a function computing `x * 2` over a
  /// `rows` x `columns` input, read through `inputMap`.
  FailureOr<kf::Schedule> scaleDefault(int64_t rows, int64_t columns,
                                       StringRef inputMap,
                                       kf::DefaultSchedule kind) {
    std::string type = llvm::formatv("tensor<{0}x{1}xf32>", rows, columns);
    std::string text = llvm::formatv(
        "func.func @f(%x: {0}) -> {0} {{\n"
        "  %two = arith.constant 2.0 : f32\n"
        "  %e = tensor.empty() : {0}\n"
        "  %y = linalg.generic {{indexing_maps = [affine_map<(i, j) -> "
        "{1}>, affine_map<(i, j) -> (i, j)>], iterator_types = "
        "[\"parallel\", \"parallel\"]} ins(%x : {0}) outs(%e : {0}) {{\n"
        "  ^bb0(%in: f32, %out: f32):\n"
        "    %r = arith.mulf %in, %two : f32\n"
        "    linalg.yield %r : f32\n"
        "  } -> {0}\n"
        "  return %y : {0}\n}\n",
        type, inputMap);
    return defaultOf(text, kind);
  }

  /// The default schedule of a function that transposes a `rows` x
  /// `columns` input (linalg.transpose, a K-outer operand copy's op).
  FailureOr<kf::Schedule> transposeDefault(int64_t rows, int64_t columns) {
    std::string text = llvm::formatv(
        "func.func @f(%x: tensor<{0}x{1}xf32>) -> tensor<{1}x{0}xf32> {{\n"
        "  %e = tensor.empty() : tensor<{1}x{0}xf32>\n"
        "  %y = linalg.transpose ins(%x : tensor<{0}x{1}xf32>) "
        "outs(%e : tensor<{1}x{0}xf32>) permutation = [1, 0]\n"
        "  return %y : tensor<{1}x{0}xf32>\n}\n",
        rows, columns);
    return defaultOf(text, kf::DefaultSchedule::Tuned);
  }

  /// A row reduction over a 64 x 256 input summing its elements and, when
  /// `withPick`, also keeping the element at each row's index t[i] (a
  /// second output: cross-entropy's target logit).
  FailureOr<kf::Schedule> rowSumDefault(bool withPick) {
    std::string text = llvm::formatv(
        "func.func @f(%x: tensor<64x256xf32>, %t: tensor<64xi64>) -> "
        "(tensor<64xf32>, tensor<64xf32>) {{\n"
        "  %zero = arith.constant 0.0 : f32\n"
        "  %e = tensor.empty() : tensor<64xf32>\n"
        "  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> "
        "tensor<64xf32>\n"
        "  %r:2 = linalg.generic {{indexing_maps = [affine_map<(i, j) -> "
        "(i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, "
        "affine_map<(i, j) -> (i)>], iterator_types = [\"parallel\", "
        "\"reduction\"]} ins(%x, %t : tensor<64x256xf32>, tensor<64xi64>) "
        "outs(%s0, %s0 : tensor<64xf32>, tensor<64xf32>) {{\n"
        "  ^bb0(%a: f32, %ti: i64, %s: f32, %p: f32):\n"
        "    %j = linalg.index 1 : index\n"
        "    %jj = arith.index_cast %j : index to i64\n"
        "    %eq = arith.cmpi eq, %jj, %ti : i64\n"
        "    %s1 = arith.addf %a, %s : f32\n"
        "    %p1 = arith.select %eq, {0}, %p : f32\n"
        "    linalg.yield %s1, %p1 : f32, f32\n"
        "  } -> (tensor<64xf32>, tensor<64xf32>)\n"
        "  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf32>\n}\n",
        // Without a pick: the select keeps a sum, no element of x.
        withPick ? "%a" : "%s1");
    return defaultOf(text, kf::DefaultSchedule::Tuned);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(DefaultScheduleTest, GenesAloneGetTheDefaultsTunedOps) {
  // A genome of structure genes alone (no "ops") is completed with what the
  // default schedule gives each op: here a copy's 4 x 4 tiles, there 16-byte
  // vectors, not the plain mapping of Restructured::defaults.
  for (auto build : {std::function<FailureOr<kf::Schedule>()>(
                         [&] { return transposeDefault(512, 2048); }),
                     std::function<FailureOr<kf::Schedule>()>([&] {
                       return scaleDefault(64, 1024, "(i, j)",
                                           kf::DefaultSchedule::Tuned);
                     })}) {
    FailureOr<kf::Schedule> schedule = build();
    ASSERT_TRUE(succeeded(schedule));
    kf::Schedule genes = *schedule;
    genes.ops.clear();
    FailureOr<kf::Schedule> completed = kf::completeSchedule(
        cast<func::FuncOp>(module->getBody()->front()), genes);
    ASSERT_TRUE(succeeded(completed));
    ASSERT_EQ(completed->ops.size(), schedule->ops.size());
    for (auto [got, want] : llvm::zip_equal(completed->ops, schedule->ops)) {
      EXPECT_EQ(got.vectorWidth, want.vectorWidth);
      EXPECT_EQ(got.vectorWidth, 4);
      EXPECT_EQ(got.blockTile, want.blockTile);
      EXPECT_EQ(got.threads, want.threads);
    }
  }
}

TEST_F(DefaultScheduleTest, PicksAtAnIndexAreGathered) {
  FailureOr<kf::Schedule> schedule = rowSumDefault(/*withPick=*/true);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->gatherSelections);
  // The sum, alone in its reduction, shares each row among lanes.
  EXPECT_TRUE(llvm::any_of(schedule->ops, [](const kf::OpSchedule &op) {
    return op.reductionLanes > 1;
  }));
  auto reference = cast<func::FuncOp>(module->getBody()->front());
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));
  // The gene round-trips through the genome's JSON.
  kf::Schedule copy;
  llvm::json::Path::Root root;
  ASSERT_TRUE(kf::fromJSON(kf::toJSON(*schedule), copy, root));
  EXPECT_TRUE(copy.gatherSelections);
  // The naive default (the reference's) rewrites nothing.
  FailureOr<kf::Schedule> naive =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_FALSE(naive->gatherSelections);

  FailureOr<kf::Schedule> noPick = rowSumDefault(/*withPick=*/false);
  ASSERT_TRUE(succeeded(noPick));
  EXPECT_FALSE(noPick->gatherSelections);
}

TEST_F(DefaultScheduleTest, ContiguousElementwiseOpsUseSixteenByteVectors) {
  // Four elements per thread along the contiguous loop, 64 threads (two
  // whole warps) along it: block [4, 256].
  FailureOr<kf::Schedule> schedule =
      scaleDefault(64, 1024, "(i, j)", kf::DefaultSchedule::Tuned);
  ASSERT_TRUE(succeeded(schedule));
  ASSERT_EQ(schedule->ops.size(), 1u);
  const kf::OpSchedule &op = schedule->ops.front();
  EXPECT_EQ(op.vectorWidth, 4);
  EXPECT_EQ(op.threads, (SmallVector<int64_t>{4, 64}));
  EXPECT_EQ(op.blockTile, (SmallVector<int64_t>{4, 256}));
  EXPECT_TRUE(succeeded(kf::renderSchedule(
      cast<func::FuncOp>(module->getBody()->front()), *schedule)));

  // The trusted reference's naive default stays scalar.
  FailureOr<kf::Schedule> naive =
      scaleDefault(64, 1024, "(i, j)", kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_EQ(naive->ops.front().vectorWidth, 1);
}

TEST_F(DefaultScheduleTest, OtherOpsKeepTheScalarMapping) {
  // A transposing read is no contiguous elementwise op.
  FailureOr<kf::Schedule> transposed =
      scaleDefault(1024, 1024, "(j, i)", kf::DefaultSchedule::Tuned);
  ASSERT_TRUE(succeeded(transposed));
  EXPECT_EQ(transposed->ops.front().vectorWidth, 1);
  // 100 columns: static tiles would put 25 threads along them, warps
  // across rows.
  FailureOr<kf::Schedule> narrow =
      scaleDefault(16, 100, "(i, j)", kf::DefaultSchedule::Tuned);
  ASSERT_TRUE(succeeded(narrow));
  EXPECT_EQ(narrow->ops.front().vectorWidth, 1);
  EXPECT_EQ(narrow->ops.front().threads, (SmallVector<int64_t>{4, 64}));
  // 4 does not divide 1022 columns.
  FailureOr<kf::Schedule> odd =
      scaleDefault(16, 1022, "(i, j)", kf::DefaultSchedule::Tuned);
  ASSERT_TRUE(succeeded(odd));
  EXPECT_EQ(odd->ops.front().vectorWidth, 1);
}

TEST_F(DefaultScheduleTest, TransposingCopiesMoveFourByFourTiles) {
  // The output [2048, 512] runs along j (512), the input along i (2048):
  // 4 threads x 4 along j, 64 x 4 along i, 16-byte vectors.
  FailureOr<kf::Schedule> schedule = transposeDefault(512, 2048);
  ASSERT_TRUE(succeeded(schedule));
  ASSERT_EQ(schedule->ops.size(), 1u);
  const kf::OpSchedule &op = schedule->ops.front();
  EXPECT_EQ(op.vectorWidth, 4);
  EXPECT_EQ(op.blockTile, (SmallVector<int64_t>{256, 16}));
  EXPECT_EQ(op.threads, (SmallVector<int64_t>{64, 4}));
  EXPECT_TRUE(succeeded(kf::renderSchedule(
      cast<func::FuncOp>(module->getBody()->front()), *schedule)));
  // 128 but not 256 divides the input's rows' loop: 32 threads along it.
  FailureOr<kf::Schedule> narrow = transposeDefault(512, 384);
  ASSERT_TRUE(succeeded(narrow));
  EXPECT_EQ(narrow->ops.front().blockTile, (SmallVector<int64_t>{128, 16}));
  EXPECT_EQ(narrow->ops.front().threads, (SmallVector<int64_t>{32, 4}));
  // Neither: the generic mapping.
  FailureOr<kf::Schedule> odd = transposeDefault(512, 200);
  ASSERT_TRUE(succeeded(odd));
  EXPECT_EQ(odd->ops.front().vectorWidth, 1);
  // Nor an output row that 16 does not divide.
  FailureOr<kf::Schedule> shortRows = transposeDefault(8, 1024);
  ASSERT_TRUE(succeeded(shortRows));
  EXPECT_EQ(shortRows->ops.front().vectorWidth, 1);
}

} // namespace
