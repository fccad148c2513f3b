//===- ContractionScheduleTest.cpp - The pipelined GEMM kernel kind -------===//

#include "kf/Schedule/ContractionSchedule.h"
#include "kf/Analysis/ConvolutionGemm.h"
#include "kf/Analysis/LoopRuns.h"
#include "kf/Schedule/Schedule.h"

#include "kf/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class ContractionScheduleTest : public ::testing::Test {
protected:
  ContractionScheduleTest() {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The last linalg op of `text` (a function), parsed into `module`.
  linalg::LinalgOp lastOp(const std::string &text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    linalg::LinalgOp last;
    module->walk([&](linalg::LinalgOp op) { last = op; });
    return last;
  }

  /// A function computing `body` (which uses %a, %b and %acc, a fill of
  /// zeros of type `out`).
  static std::string function(StringRef a, StringRef b, StringRef out,
                              StringRef body) {
    return (llvm::Twine("func.func @f(%a: ") + a + ", %b: " + b + ") -> " +
            out + " {\n  %zero = arith.constant 0.0 : f32\n" +
            "  %init = tensor.empty() : " + out + "\n" +
            "  %acc = linalg.fill ins(%zero : f32) outs(%init : " + out +
            ") -> " + out + "\n  %r = " + body + "\n  return %r : " + out +
            "\n}\n")
        .str();
  }

  /// A function computing A @ B.T (B as [N, K], as nn.Linear's weight)
  /// for an [M, K] A.
  static std::string transposedB(int64_t m, int64_t n, int64_t k) {
    std::string a = llvm::formatv("tensor<{0}x{1}xf32>", m, k);
    std::string b = llvm::formatv("tensor<{0}x{1}xf32>", n, k);
    std::string out = llvm::formatv("tensor<{0}x{1}xf32>", m, n);
    return function(a, b, out,
                    "linalg.matmul indexing_maps = [affine_map<(m, n, k) -> "
                    "(m, k)>, affine_map<(m, n, k) -> (n, k)>, "
                    "affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : " +
                        a + ", " + b + ") outs(%acc : " + out + ") -> " + out);
  }

  /// `schedule` written as JSON and read back (nullopt if it does not read).
  static std::optional<kf::Schedule> roundTrip(const kf::Schedule &schedule) {
    kf::Schedule copy;
    llvm::json::Path::Root root;
    if (!kf::fromJSON(kf::toJSON(schedule), copy, root))
      return std::nullopt;
    return copy;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ContractionScheduleTest, MatmulLoops) {
  linalg::LinalgOp op = lastOp(function(
      "tensor<512x256xf32>", "tensor<256x1024xf32>", "tensor<512x1024xf32>",
      "linalg.matmul ins(%a, %b : tensor<512x256xf32>, tensor<256x1024xf32>) "
      "outs(%acc : tensor<512x1024xf32>) -> tensor<512x1024xf32>"));
  FailureOr<kf::ContractionLoops> loops = kf::analyzeContraction(op);
  ASSERT_TRUE(succeeded(loops));
  EXPECT_EQ(loops->mLoop, 0u);
  EXPECT_EQ(loops->nLoop, 1u);
  EXPECT_EQ(loops->kLoop, 2u);
  EXPECT_EQ(loops->m, 512);
  EXPECT_EQ(loops->n, 1024);
  EXPECT_EQ(loops->k, 256);
  EXPECT_TRUE(loops->outerLoops.empty());
  // A is read along K, B along N.
  EXPECT_EQ(loops->aContiguousLoop, 2u);
  EXPECT_EQ(loops->bContiguousLoop, 1u);
}

TEST_F(ContractionScheduleTest, TransposedOperandAndBatch) {
  linalg::LinalgOp transposed = lastOp(function(
      "tensor<256x512xf32>", "tensor<1024x256xf32>", "tensor<512x1024xf32>",
      "linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, "
      "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] "
      "ins(%a, %b : tensor<256x512xf32>, tensor<1024x256xf32>) "
      "outs(%acc : tensor<512x1024xf32>) -> tensor<512x1024xf32>"));
  FailureOr<kf::ContractionLoops> loops = kf::analyzeContraction(transposed);
  ASSERT_TRUE(succeeded(loops));
  EXPECT_EQ(loops->aContiguousLoop, loops->mLoop);
  EXPECT_EQ(loops->bContiguousLoop, loops->kLoop);
  // B ([N, K]) is read down its tile's columns; A ([K, M]) is not.
  EXPECT_FALSE(loops->aRowsAlongK);
  EXPECT_TRUE(loops->bRowsAlongK);

  linalg::LinalgOp batch = lastOp(function(
      "tensor<8x128x64xf32>", "tensor<8x64x256xf32>", "tensor<8x128x256xf32>",
      "linalg.batch_matmul ins(%a, %b : tensor<8x128x64xf32>, "
      "tensor<8x64x256xf32>) outs(%acc : tensor<8x128x256xf32>) -> "
      "tensor<8x128x256xf32>"));
  loops = kf::analyzeContraction(batch);
  ASSERT_TRUE(succeeded(loops));
  ASSERT_EQ(loops->outerLoops.size(), 1u);
  EXPECT_EQ(loops->outerSizes[0], 8);
  EXPECT_EQ(loops->outputMDim, 1u);
  EXPECT_EQ(loops->outputNDim, 2u);
}

TEST_F(ContractionScheduleTest, RefusesWhatTheKernelCannotCompute) {
  // Two batch loops larger than 1: the grid has one dimension for them.
  std::string reason;
  linalg::LinalgOp twoBatches = lastOp(
      "func.func @f(%a: tensor<4x8x64x32xf32>, %b: tensor<32x128xf32>) -> "
      "tensor<4x8x64x128xf32> {\n"
      "  %zero = arith.constant 0.0 : f32\n"
      "  %init = tensor.empty() : tensor<4x8x64x128xf32>\n"
      "  %acc = linalg.fill ins(%zero : f32) outs(%init : "
      "tensor<4x8x64x128xf32>) -> tensor<4x8x64x128xf32>\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l, m) -> "
      "(i, j, k, m)>, affine_map<(i, j, k, l, m) -> (m, l)>, "
      "affine_map<(i, j, k, l, m) -> (i, j, k, l)>], iterator_types = "
      "[\"parallel\", \"parallel\", \"parallel\", \"parallel\", "
      "\"reduction\"]} ins(%a, %b : tensor<4x8x64x32xf32>, "
      "tensor<32x128xf32>) outs(%acc : tensor<4x8x64x128xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32, %z: f32):\n"
      "    %p = arith.mulf %x, %y : f32\n"
      "    %s = arith.addf %z, %p : f32\n"
      "    linalg.yield %s : f32\n"
      "  } -> tensor<4x8x64x128xf32>\n"
      "  return %r : tensor<4x8x64x128xf32>\n}\n");
  EXPECT_TRUE(failed(kf::analyzeContraction(twoBatches, &reason)));
  EXPECT_NE(reason.find("batch loop"), std::string::npos) << reason;

  // An output that is not zeroed by a fill (it accumulates into an input).
  linalg::LinalgOp noFill =
      lastOp("func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: "
             "tensor<64x64xf32>) -> tensor<64x64xf32> {\n"
             "  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, "
             "tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> "
             "tensor<64x64xf32>\n  return %r : tensor<64x64xf32>\n}\n");
  EXPECT_TRUE(failed(kf::analyzeContraction(noFill, &reason)));
  EXPECT_NE(reason.find("linalg.fill"), std::string::npos) << reason;
}

/// Loops of a plain M x N x K matmul.
kf::ContractionLoops matmulLoops(int64_t m, int64_t n, int64_t k) {
  kf::ContractionLoops loops;
  loops.numLoops = 3;
  loops.mLoop = 0;
  loops.nLoop = 1;
  loops.kLoop = 2;
  loops.m = m;
  loops.n = n;
  loops.k = k;
  loops.aContiguousLoop = 2;
  loops.bContiguousLoop = 1;
  loops.aRowLength = k;
  loops.bRowLength = n;
  return loops;
}

TEST_F(ContractionScheduleTest, TileChecks) {
  kf::ContractionLoops loops = matmulLoops(4096, 4096, 4096);
  kf::ContractionTile tile{128, 128, 16, 8, 8, 3};
  EXPECT_FALSE(kf::checkContractionTile(loops, tile).has_value());
  EXPECT_EQ(tile.numThreads(), 256);
  EXPECT_EQ(tile.sharedBytes(), 48 * 1024);

  kf::ContractionTile tooDeep = tile;
  tooDeep.stages = 4; // 64 KB: more than static shared memory holds
  ASSERT_TRUE(kf::checkContractionTile(loops, tooDeep).has_value());
  EXPECT_NE(kf::checkContractionTile(loops, tooDeep)->find("shared memory"),
            std::string::npos);

  kf::ContractionLoops odd = loops;
  odd.n = 4095;
  ASSERT_TRUE(kf::checkContractionTile(odd, tile).has_value());
  EXPECT_NE(kf::checkContractionTile(odd, tile)->find("does not divide"),
            std::string::npos);

  kf::ContractionLoops shortK = loops;
  shortK.k = 32; // two K steps of 16 cannot fill 3 stages
  EXPECT_TRUE(kf::checkContractionTile(shortK, tile).has_value());

  // Rows of 4098 floats: every other row starts 8 bytes off 16.
  kf::ContractionLoops misaligned = loops;
  misaligned.aRowLength = 4098;
  ASSERT_TRUE(kf::checkContractionTile(misaligned, tile).has_value());
  EXPECT_NE(kf::checkContractionTile(misaligned, tile)->find("aligned"),
            std::string::npos);
}

TEST_F(ContractionScheduleTest, ModelFillsTheSMs) {
  kf::ContractionLoops square = matmulLoops(4096, 4096, 4096);
  std::optional<kf::ContractionTile> tile = kf::defaultContractionTile(square);
  ASSERT_TRUE(tile);
  // 128x64: two blocks share an SM (128x128 holds one: too few warps to
  // hide latency; measured 5% slower on the H200), four stages in 48 KB.
  EXPECT_EQ(tile->blockM, 128);
  EXPECT_EQ(tile->blockN, 64);
  EXPECT_EQ(tile->blockK, 16);
  EXPECT_EQ(tile->stages, 4);

  // A 256x256 output is 8 blocks of 128x64 for 132 SMs: split-K fills
  // them (128x64 was also the fastest split tile on the H200: 2.61 ms
  // against 64x64's 2.88 and 128x128's 5.23).
  kf::ContractionLoops small = matmulLoops(256, 256, 524288);
  tile = kf::defaultContractionTile(small);
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->blockM * tile->blockN, 128 * 64);
  EXPECT_GT(kf::splitKFactor(small, *tile), 1);

  // K = 32: a K step of 8 keeps 3 stages.
  kf::ContractionLoops skinny = matmulLoops(32768, 32768, 32);
  tile = kf::defaultContractionTile(skinny);
  ASSERT_TRUE(tile);
  EXPECT_FALSE(kf::checkContractionTile(skinny, *tile).has_value());

  // Every alternative is valid, and none repeats.
  llvm::SmallVector<kf::ContractionTile> tiles =
      kf::alternativeContractionTiles(square);
  EXPECT_GE(tiles.size(), 3u);
  for (auto [i, a] : llvm::enumerate(tiles)) {
    EXPECT_FALSE(kf::checkContractionTile(square, a).has_value());
    for (const kf::ContractionTile &b : llvm::drop_begin(tiles, i + 1))
      EXPECT_FALSE(a == b);
  }

  // Nothing divides a prime.
  kf::ContractionLoops prime = matmulLoops(4099, 4099, 4099);
  EXPECT_FALSE(kf::defaultContractionTile(prime).has_value());
}

/// `loops` with A given K-major ([K, M]: its contiguous loop is M).
kf::ContractionLoops withKMajorA(kf::ContractionLoops loops) {
  loops.aContiguousLoop = loops.mLoop;
  loops.aRowLength = loops.m;
  return loops;
}

TEST_F(ContractionScheduleTest, ModelTakesEightByEightOnKMajorA) {
  // A's tile K-major (A's contiguous loop is M: a transposed A, or its
  // K-outer copy): 128x128x8 with 8x8 outputs per thread and two blocks per
  // SM (2.806 ms against 128x64x16's 2.985 on the H100 at 4096^3).
  kf::ContractionLoops kMajor = withKMajorA(matmulLoops(4096, 4096, 4096));
  std::optional<kf::ContractionTile> tile = kf::defaultContractionTile(kMajor);
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->blockM, 128);
  EXPECT_EQ(tile->blockN, 128);
  EXPECT_EQ(tile->blockK, 8);
  EXPECT_EQ(tile->threadM, 8);
  EXPECT_EQ(tile->threadN, 8);
  EXPECT_EQ(tile->minBlocksPerSM, 2);
  EXPECT_FALSE(kf::checkContractionTile(kMajor, *tile).has_value());

  // A short K (the output's writes dominate): the model is left as it was.
  kf::ContractionLoops shortK = matmulLoops(32768, 32768, 64);
  std::optional<kf::ContractionTile> plain = kf::defaultContractionTile(shortK);
  tile = kf::defaultContractionTile(withKMajorA(shortK));
  ASSERT_TRUE(plain && tile);
  EXPECT_TRUE(*plain == *tile);
}

TEST_F(ContractionScheduleTest, TwoStagesHoldingAllOfKAreNotPenalised) {
  // L1-9 (32768 x 32768 x 32): two K steps of 16 fill a two-stage ring
  // buffer; 128x64x16 ran 1.93 ms on the H100 against 3.21 for the
  // 128x128x8 four-stage tile a shallow-pipeline penalty used to choose.
  std::optional<kf::ContractionTile> tile =
      kf::defaultContractionTile(matmulLoops(32768, 32768, 32));
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->blockM, 128);
  EXPECT_EQ(tile->blockN, 64);
  EXPECT_EQ(tile->blockK, 16);
  EXPECT_EQ(tile->stages, 2);
}

TEST_F(ContractionScheduleTest, ScheduleJSONKeepsTheTile) {
  kf::Schedule schedule;
  schedule.ops.resize(2);
  schedule.ops[1].contraction = {128, 64, 8, 8, 4, 4, 2};
  llvm::json::Value value = kf::toJSON(schedule);
  kf::Schedule copy;
  llvm::json::Path::Root root;
  ASSERT_TRUE(kf::fromJSON(value, copy, root));
  EXPECT_FALSE(copy.ops[0].contraction.isSet());
  EXPECT_TRUE(copy.ops[1].contraction == schedule.ops[1].contraction);
  EXPECT_EQ(copy.kOuterCopies, kf::KOuterCopies::None);
  EXPECT_FALSE(value.getAsObject()->get("transpose"));
}

TEST_F(ContractionScheduleTest, BlockGroupGene) {
  // The block order travels in the genome ("group"; absent means the
  // grid's own order) and takes 0 to 64 tile rows.
  kf::Schedule schedule;
  schedule.ops.resize(2);
  schedule.ops[1].contraction = {128, 64, 16, 8, 4, 4, 0, 8};
  std::optional<kf::Schedule> copy = roundTrip(schedule);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->ops[1].contraction.blockGroup, 8);
  EXPECT_TRUE(copy->ops[1].contraction == schedule.ops[1].contraction);
  schedule.ops[1].contraction.blockGroup = 0;
  EXPECT_EQ(kf::toJSON(schedule.ops[1].contraction).getAsObject()->get("group"),
            nullptr);

  kf::ContractionLoops loops = matmulLoops(4096, 4096, 4096);
  kf::ContractionTile tile{128, 64, 16, 8, 4, 4, 0, 8};
  EXPECT_FALSE(kf::checkContractionTile(loops, tile).has_value());
  tile.blockGroup = 65;
  ASSERT_TRUE(kf::checkContractionTile(loops, tile).has_value());
  EXPECT_NE(kf::checkContractionTile(loops, tile)->find("block group"),
            std::string::npos);
  tile.blockGroup = -1;
  EXPECT_TRUE(kf::checkContractionTile(loops, tile).has_value());
  // Grid order and groups are different tiles to the search.
  kf::ContractionTile grid{128, 64, 16, 8, 4, 4, 0, 0};
  kf::ContractionTile grouped{128, 64, 16, 8, 4, 4, 0, 8};
  EXPECT_FALSE(grid == grouped);
}

TEST_F(ContractionScheduleTest, InterleaveGene) {
  // Interleaved operand tiles are the default; the genome names only the
  // exception.
  kf::Schedule schedule;
  schedule.ops.resize(2);
  schedule.ops[1].contraction = {128, 128, 8, 8, 8, 4, 2, 0};
  EXPECT_TRUE(schedule.ops[1].contraction.interleave);
  EXPECT_EQ(
      kf::toJSON(schedule.ops[1].contraction).getAsObject()->get("interleave"),
      nullptr);
  schedule.ops[1].contraction.interleave = false;
  std::optional<kf::Schedule> copy = roundTrip(schedule);
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->ops[1].contraction.interleave);
  kf::ContractionTile interleaved{128, 128, 8, 8, 8, 4, 2, 0};
  EXPECT_FALSE(interleaved == schedule.ops[1].contraction);
}

TEST_F(ContractionScheduleTest, ScheduleJSONKeepsTheKOuterCopies) {
  for (kf::KOuterCopies copies : {kf::KOuterCopies::B, kf::KOuterCopies::AB}) {
    kf::Schedule schedule;
    schedule.kOuterCopies = copies;
    std::optional<kf::Schedule> copy = roundTrip(schedule);
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->kOuterCopies, copies);
  }
  // An unknown spelling is an error, not "none".
  llvm::json::Value bad = llvm::json::Object{{"fuse", false},
                                             {"collapse", false},
                                             {"transpose", "ba"},
                                             {"splits", llvm::json::Array{}},
                                             {"ops", llvm::json::Array{}}};
  kf::Schedule copy;
  llvm::json::Path::Root root;
  EXPECT_FALSE(kf::fromJSON(bad, copy, root));
}

TEST_F(ContractionScheduleTest, DefaultCopiesBWhenItsRowsRunAlongK) {
  // A @ B.T: the default gives B a K-outer copy, a kernel of its own before
  // the GEMM kernel, which then reads B as [K, N].
  lastOp(transposedB(512, 1024, 256));
  auto reference = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_EQ(schedule->kOuterCopies, kf::KOuterCopies::B);
  // The transpose, the fill and the GEMM kernel.
  ASSERT_EQ(schedule->ops.size(), 3u);
  EXPECT_FALSE(schedule->ops[0].contraction.isSet());
  EXPECT_TRUE(schedule->ops[2].contraction.isSet());
  FailureOr<kf::Restructured> structure = kf::restructure(reference, *schedule);
  ASSERT_TRUE(succeeded(structure));
  ASSERT_TRUE(structure->shapes[2].contraction.has_value());
  EXPECT_EQ(structure->shapes[2].contraction->bContiguousLoop,
            structure->shapes[2].contraction->nLoop);
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));

  // The naive default (the trusted reference's) rewrites nothing.
  FailureOr<kf::Schedule> naive =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_EQ(naive->kOuterCopies, kf::KOuterCopies::None);
  EXPECT_EQ(naive->ops.size(), 2u);
}

TEST_F(ContractionScheduleTest, DefaultTransposesAShortProduct) {
  // x @ W.T with 128 rows (L2 55, 56, 59 at a shorter K): computed as the
  // transpose of W x^T, the weight read as the GEMM kernel's A as given, x
  // (now its B, rows along K) copied K-outer, the product copied back
  // transposed. (The [16384, 128] product fills the SMs without a split
  // of K, which would make the operands 3-D.)
  lastOp(transposedB(128, 16384, 2048));
  auto reference = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->transposeProducts);
  EXPECT_EQ(schedule->kOuterCopies, kf::KOuterCopies::B);
  FailureOr<kf::Restructured> structure = kf::restructure(reference, *schedule);
  ASSERT_TRUE(succeeded(structure));
  const kf::ContractionLoops *loops = nullptr;
  for (const kf::OpShape &shape : structure->shapes)
    if (shape.contraction)
      loops = &*shape.contraction;
  ASSERT_NE(loops, nullptr);
  // The kernel's M is the weight's 16384 rows, its N x's 128.
  EXPECT_TRUE(schedule->splitFactors.empty());
  EXPECT_EQ(loops->m, 16384);
  EXPECT_EQ(loops->n, 128);
  EXPECT_TRUE(loops->aRowsAlongK);
  EXPECT_FALSE(loops->bRowsAlongK);
  EXPECT_TRUE(kf::defaultContractionTile(*loops).has_value());
  std::optional<kf::Schedule> copy = roundTrip(*schedule);
  ASSERT_TRUE(copy);
  EXPECT_TRUE(copy->transposeProducts);
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));

  // With 1024 rows the weight's copy is the cheaper way (L2-9's shape).
  lastOp(transposedB(1024, 4096, 2048));
  FailureOr<kf::Schedule> wide =
      kf::buildDefaultSchedule(cast<func::FuncOp>(module->getBody()->front()));
  ASSERT_TRUE(succeeded(wide));
  EXPECT_FALSE(wide->transposeProducts);
  EXPECT_EQ(wide->kOuterCopies, kf::KOuterCopies::AB);
}

TEST_F(ContractionScheduleTest, DefaultCollapsesTheMLoopsOfATensorTimesMatrix) {
  // A[b, i, j, k] * B[k, l]: three M loops, two of them larger than 1, which
  // the GEMM kernel refuses; collapsed, a 4096 x 256 x 128 GEMM.
  linalg::LinalgOp op = lastOp(
      "func.func @f(%a: tensor<4x8x128x128xf32>, %b: tensor<128x256xf32>) -> "
      "tensor<4x8x128x256xf32> {\n"
      "  %zero = arith.constant 0.0 : f32\n"
      "  %init = tensor.empty() : tensor<4x8x128x256xf32>\n"
      "  %acc = linalg.fill ins(%zero : f32) outs(%init : "
      "tensor<4x8x128x256xf32>) -> tensor<4x8x128x256xf32>\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l, m) -> "
      "(i, j, k, m)>, affine_map<(i, j, k, l, m) -> (m, l)>, "
      "affine_map<(i, j, k, l, m) -> (i, j, k, l)>], iterator_types = "
      "[\"parallel\", \"parallel\", \"parallel\", \"parallel\", "
      "\"reduction\"]} ins(%a, %b : tensor<4x8x128x128xf32>, "
      "tensor<128x256xf32>) outs(%acc : tensor<4x8x128x256xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
      "    %p = arith.mulf %x, %y : f32\n"
      "    %s = arith.addf %o, %p : f32\n"
      "    linalg.yield %s : f32\n"
      "  } -> tensor<4x8x128x256xf32>\n"
      "  return %r : tensor<4x8x128x256xf32>\n}\n");
  EXPECT_TRUE(failed(kf::analyzeContraction(op)));
  SmallVector<ReassociationIndices> runs = kf::collapsibleContractionLoops(op);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], (ReassociationIndices{0, 1, 2}));

  auto reference = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->collapseContractionLoops);
  EXPECT_EQ(schedule->kOuterCopies, kf::KOuterCopies::None);
  FailureOr<kf::Restructured> structure = kf::restructure(reference, *schedule);
  ASSERT_TRUE(succeeded(structure));
  ASSERT_EQ(structure->shapes.size(), 2u);
  ASSERT_TRUE(structure->shapes[1].contraction.has_value());
  EXPECT_EQ(structure->shapes[1].contraction->m, 4 * 8 * 128);
  EXPECT_TRUE(schedule->ops[1].contraction.isSet());
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));
  std::optional<kf::Schedule> copy = roundTrip(*schedule);
  ASSERT_TRUE(copy);
  EXPECT_TRUE(copy->collapseContractionLoops);
}

TEST_F(ContractionScheduleTest, DefaultFusesTheEpilogueIntoTheGemmKernel) {
  // A matmul, then a bias add and a ReLU: the default makes them one
  // epilogue computing in place on the matmul's result, fused into the GEMM
  // kernel (no kernel of its own).
  lastOp("func.func @f(%a: tensor<512x256xf32>, %b: tensor<256x1024xf32>, "
         "%bias: tensor<1024xf32>) -> tensor<512x1024xf32> {\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %init = tensor.empty() : tensor<512x1024xf32>\n"
         "  %acc = linalg.fill ins(%zero : f32) outs(%init : "
         "tensor<512x1024xf32>) -> tensor<512x1024xf32>\n"
         "  %mm = linalg.matmul ins(%a, %b : tensor<512x256xf32>, "
         "tensor<256x1024xf32>) outs(%acc : tensor<512x1024xf32>) -> "
         "tensor<512x1024xf32>\n"
         "  %e = tensor.empty() : tensor<512x1024xf32>\n"
         "  %biased = linalg.generic {indexing_maps = [affine_map<(i, j) -> "
         "(i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], "
         "iterator_types = [\"parallel\", \"parallel\"]} ins(%mm, %bias : "
         "tensor<512x1024xf32>, tensor<1024xf32>) outs(%e : "
         "tensor<512x1024xf32>) {\n"
         "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
         "    %s = arith.addf %x, %y : f32\n"
         "    linalg.yield %s : f32\n"
         "  } -> tensor<512x1024xf32>\n"
         "  %e2 = tensor.empty() : tensor<512x1024xf32>\n"
         "  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, "
         "j)>, affine_map<(i, j) -> (i, j)>], iterator_types = "
         "[\"parallel\", \"parallel\"]} ins(%biased : tensor<512x1024xf32>) "
         "outs(%e2 : tensor<512x1024xf32>) {\n"
         "  ^bb0(%x: f32, %o: f32):\n"
         "    %z = arith.constant 0.0 : f32\n"
         "    %m = arith.maximumf %x, %z : f32\n"
         "    linalg.yield %m : f32\n"
         "  } -> tensor<512x1024xf32>\n"
         "  return %r : tensor<512x1024xf32>\n}\n");
  auto reference = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->fuseEpilogues);
  FailureOr<kf::Restructured> structure = kf::restructure(reference, *schedule);
  ASSERT_TRUE(succeeded(structure));
  // The fill, the GEMM and its one epilogue.
  ASSERT_EQ(structure->shapes.size(), 3u);
  ASSERT_TRUE(structure->shapes[1].contraction.has_value());
  EXPECT_EQ(structure->shapes[1].epilogue, std::optional<unsigned>(2));
  FailureOr<std::string> script = kf::renderSchedule(reference, *schedule);
  ASSERT_TRUE(succeeded(script));
  // One launch: the epilogue's block tiles hold the GEMM.
  EXPECT_EQ(StringRef(*script).count("generate_gpu_launch"), 1u);
  EXPECT_NE(script->find("fuse_into_containing_op %op1 into %ebforall1"),
            std::string::npos);
  std::optional<kf::Schedule> copy = roundTrip(*schedule);
  ASSERT_TRUE(copy);
  EXPECT_TRUE(copy->fuseEpilogues);

  // Without the gene: the two elementwise ops keep their kernels.
  kf::Schedule separate = *schedule;
  separate.fuseEpilogues = false;
  structure = kf::restructure(reference, separate);
  ASSERT_TRUE(succeeded(structure));
  ASSERT_EQ(structure->shapes.size(), 4u);
  EXPECT_FALSE(structure->shapes[1].epilogue.has_value());
  separate.ops = structure->defaults;
  script = kf::renderSchedule(reference, separate);
  ASSERT_TRUE(succeeded(script));
  EXPECT_EQ(StringRef(*script).count("generate_gpu_launch"), 3u);

  // The naive default (the trusted reference's) fuses nothing.
  FailureOr<kf::Schedule> naive =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_FALSE(naive->fuseEpilogues);
}

TEST_F(ContractionScheduleTest, DefaultSumsThroughTheContraction) {
  // sum_j (A B)[i, j] / 2: the default computes it as two matrix-vector
  // products (no contraction left for the GEMM kernel); the naive default
  // (the trusted reference's) keeps the GEMM.
  lastOp("func.func @f(%a: tensor<512x256xf32>, %b: tensor<256x1024xf32>) "
         "-> tensor<512xf32> {\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %init = tensor.empty() : tensor<512x1024xf32>\n"
         "  %acc = linalg.fill ins(%zero : f32) outs(%init : "
         "tensor<512x1024xf32>) -> tensor<512x1024xf32>\n"
         "  %mm = linalg.matmul ins(%a, %b : tensor<512x256xf32>, "
         "tensor<256x1024xf32>) outs(%acc : tensor<512x1024xf32>) -> "
         "tensor<512x1024xf32>\n"
         "  %e = tensor.empty() : tensor<512x1024xf32>\n"
         "  %half = linalg.generic {indexing_maps = [affine_map<(i, j) -> "
         "(i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = "
         "[\"parallel\", \"parallel\"]} ins(%mm : tensor<512x1024xf32>) "
         "outs(%e : tensor<512x1024xf32>) {\n"
         "  ^bb0(%x: f32, %o: f32):\n"
         "    %two = arith.constant 2.0 : f32\n"
         "    %d = arith.divf %x, %two : f32\n"
         "    linalg.yield %d : f32\n"
         "  } -> tensor<512x1024xf32>\n"
         "  %e2 = tensor.empty() : tensor<512xf32>\n"
         "  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<512xf32>) -> "
         "tensor<512xf32>\n"
         "  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, "
         "j)>, affine_map<(i, j) -> (i)>], iterator_types = [\"parallel\", "
         "\"reduction\"]} ins(%half : tensor<512x1024xf32>) outs(%z : "
         "tensor<512xf32>) {\n"
         "  ^bb0(%x: f32, %o: f32):\n"
         "    %s = arith.addf %x, %o : f32\n"
         "    linalg.yield %s : f32\n"
         "  } -> tensor<512xf32>\n"
         "  return %r : tensor<512xf32>\n}\n");
  auto reference = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->commuteSums);
  FailureOr<kf::Restructured> structure = kf::restructure(reference, *schedule);
  ASSERT_TRUE(succeeded(structure));
  EXPECT_TRUE(llvm::none_of(structure->shapes, [](const kf::OpShape &shape) {
    return shape.contraction.has_value();
  }));
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));
  std::optional<kf::Schedule> copy = roundTrip(*schedule);
  ASSERT_TRUE(copy);
  EXPECT_TRUE(copy->commuteSums);

  FailureOr<kf::Schedule> naive =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_FALSE(naive->commuteSums);
}

TEST_F(ContractionScheduleTest, PaddingGivesOddContractionsATile) {
  // L1-8: no tile divides 8205 x 5921 x 2949, and its rows of 2949 floats
  // are not 16-byte aligned; padded to 8320 x 6016 x 2960 (3.4% more
  // multiply-adds) the model finds a tile.
  kf::ContractionLoops odd = matmulLoops(8205, 5921, 2949);
  EXPECT_FALSE(kf::defaultContractionTile(odd).has_value());
  std::optional<kf::ContractionLoops> padded = kf::paddedContractionLoops(odd);
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->m, 8320);
  EXPECT_EQ(padded->n, 6016);
  EXPECT_EQ(padded->k, 2960);
  EXPECT_EQ(padded->aRowLength, 2960);
  EXPECT_EQ(padded->bRowLength, 6016);
  EXPECT_TRUE(kf::defaultContractionTile(*padded).has_value());
  // Below 1024, sides go to multiples of 64.
  padded = kf::paddedContractionLoops(matmulLoops(1000, 4096, 4096));
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->m, 1024);
  EXPECT_EQ(padded->n, 4096);
  // Sizes tiles divide need none; a matrix-vector product's N of 1 would
  // cost 64 times the work, past the allowance.
  EXPECT_FALSE(kf::paddedContractionLoops(matmulLoops(4096, 4096, 4096)));
  EXPECT_FALSE(kf::paddedContractionLoops(matmulLoops(2048, 1, 1048576)));
  EXPECT_FALSE(kf::paddedContractionLoops(odd, /*maxOverhead=*/0.01));
}

TEST_F(ContractionScheduleTest, DefaultPadsOddContractionsToTheTiles) {
  lastOp(function("tensor<1000x250xf32>", "tensor<250x1020xf32>",
                  "tensor<1000x1020xf32>",
                  "linalg.matmul ins(%a, %b : tensor<1000x250xf32>, "
                  "tensor<250x1020xf32>) outs(%acc : tensor<1000x1020xf32>) "
                  "-> tensor<1000x1020xf32>"));
  auto reference = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->padContractions);
  // The padded operands' copies, their fill, the GEMM kernel and the copy
  // back out of it.
  EXPECT_EQ(llvm::count_if(schedule->ops,
                           [](const kf::OpSchedule &op) {
                             return op.contraction.isSet();
                           }),
            1);
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));
  std::optional<kf::Schedule> copy = roundTrip(*schedule);
  ASSERT_TRUE(copy);
  EXPECT_TRUE(copy->padContractions);

  FailureOr<kf::Schedule> naive =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_FALSE(naive->padContractions);
}

TEST_F(ContractionScheduleTest, ConvolutionGemmPadsToTheTiles) {
  // A strided, dilated 2-D convolution: M = 24 filters (padded to 64),
  // K = 3 * 3 * 3 = 27 taps (to 32), N = 2 * 15 * 13 = 390 pixels (to 512).
  linalg::LinalgOp conv = lastOp(
      "func.func @f(%x: tensor<2x3x31x17xf32>, %w: tensor<24x3x3x3xf32>, "
      "%init: tensor<2x24x15x13xf32>) -> tensor<2x24x15x13xf32> {\n"
      "  %y = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : "
      "tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : "
      "tensor<2x3x31x17xf32>, tensor<24x3x3x3xf32>) outs(%init : "
      "tensor<2x24x15x13xf32>) -> tensor<2x24x15x13xf32>\n"
      "  return %y : tensor<2x24x15x13xf32>\n}\n");
  FailureOr<kf::ConvolutionGemm> gemm = kf::analyzeConvolutionGemm(conv);
  ASSERT_TRUE(succeeded(gemm));
  EXPECT_EQ(gemm->spatialRank, 2u);
  EXPECT_EQ(gemm->filters, 24);
  EXPECT_EQ(gemm->paddedFilters, 64);
  EXPECT_EQ(gemm->taps, 27);
  EXPECT_EQ(gemm->paddedTaps, 32);
  EXPECT_EQ(gemm->pixels, 390);
  EXPECT_EQ(gemm->paddedPixels, 512);
  EXPECT_EQ(gemm->strides, (SmallVector<int64_t, 3>{2, 1}));
  EXPECT_EQ(gemm->dilations, (SmallVector<int64_t, 3>{1, 2}));
  EXPECT_EQ(gemm->columnBytes(), 32 * 512 * 4);
  // Over the memory allowed, with the reason.
  std::string why;
  EXPECT_TRUE(failed(kf::analyzeConvolutionGemm(conv, 1000, &why)));
  EXPECT_NE(why.find("65536 bytes"), std::string::npos) << why;
  // Not a convolution.
  linalg::LinalgOp matmul = lastOp(function(
      "tensor<64x32xf32>", "tensor<32x64xf32>", "tensor<64x64xf32>",
      "linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) "
      "outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>"));
  EXPECT_TRUE(failed(kf::analyzeConvolutionGemm(matmul)));
}

/// ConvTranspose1d(3, 4, 3, stride=2, padding=1) as bench/suite/nn.py
/// writes it: a gather that inserts a zero between the inputs and pads by
/// one (element z holds x[(z - 1) / 2] at odd z), then a stride-1
/// convolution; `padValue` is what the gather writes elsewhere.
static std::string transposedConvolution(StringRef padValue) {
  return (R"mlir(
func.func @f(%x: tensor<2x3x5xf32>, %w: tensor<4x3x3xf32>, %init: tensor<2x4x9xf32>) -> tensor<2x4x9xf32> {
  %e = tensor.empty() : tensor<2x3x11xf32>
  %xz = linalg.generic {indexing_maps = [affine_map<(n, c, z) -> (n, c, z)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x3x11xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %z = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %j = arith.subi %z, %c1 : index
    %r = arith.remsi %j, %c2 : index
    %on = arith.cmpi eq, %r, %c0 : index
    %q = arith.divsi %j, %c2 : index
    %ge = arith.cmpi sge, %q, %c0 : index
    %le = arith.cmpi sle, %q, %c4 : index
    %q0 = arith.maxsi %q, %c0 : index
    %q1 = arith.minsi %q0, %c4 : index
    %v = tensor.extract %x[%n, %c, %q1] : tensor<2x3x5xf32>
    %a = arith.andi %on, %ge : i1
    %b = arith.andi %a, %le : i1
    %pad = arith.constant )mlir" +
          padValue + R"mlir( : f32
    %s = arith.select %b, %v, %pad : f32
    linalg.yield %s : f32
  } -> tensor<2x3x11xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%xz, %w : tensor<2x3x11xf32>, tensor<4x3x3xf32>) outs(%init : tensor<2x4x9xf32>) -> tensor<2x4x9xf32>
  return %y : tensor<2x4x9xf32>
}
)mlir")
      .str();
}

TEST_F(ContractionScheduleTest, TransposedConvolutionSplitsIntoStridePhases) {
  linalg::LinalgOp conv = lastOp(transposedConvolution("0.0"));
  FailureOr<kf::ZeroInsertion> insertion =
      kf::analyzeZeroInsertion(conv->getOperand(0));
  ASSERT_TRUE(succeeded(insertion));
  EXPECT_EQ(insertion->source,
            conv->getParentOfType<func::FuncOp>().getArgument(0));
  EXPECT_EQ(insertion->stride, (SmallVector<int64_t, 3>{2}));
  EXPECT_EQ(insertion->low, (SmallVector<int64_t, 3>{1}));

  // Output o = phase + 2q reads element o + k of the gather, which holds
  // x[q + offset] when phase + k - 1 is even: phase 0 only through tap 1
  // (x[q]), phase 1 through taps 0 (x[q]) and 2 (x[q + 1]).
  FailureOr<kf::ConvolutionGemm> gemm = kf::analyzeConvolutionGemm(conv);
  ASSERT_TRUE(succeeded(gemm));
  ASSERT_TRUE(gemm->zeroInsertion.has_value());
  EXPECT_EQ(gemm->phases, 2);
  ASSERT_EQ(gemm->tapsOfPhase.size(), 1u);
  ASSERT_EQ(gemm->tapsOfPhase[0].size(), 2u);
  auto taps = [](ArrayRef<kf::PhaseTap> phaseTaps) {
    return llvm::map_to_vector(phaseTaps, [](const kf::PhaseTap &tap) {
      return std::make_pair(tap.kernelIndex, tap.sourceOffset);
    });
  };
  using Pairs = SmallVector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(taps(gemm->tapsOfPhase[0][0]), (Pairs{{1, 0}}));
  EXPECT_EQ(taps(gemm->tapsOfPhase[0][1]), (Pairs{{0, 0}, {2, 1}}));
  EXPECT_EQ(gemm->phaseTaps, (SmallVector<int64_t, 3>{2}));
  EXPECT_EQ(gemm->phasePixels, (SmallVector<int64_t, 3>{5}));
  // K = 3 channels * 2 taps, N = 2 images * 5 outputs per phase.
  EXPECT_EQ(gemm->taps, 6);
  EXPECT_EQ(gemm->pixels, 10);
  EXPECT_EQ(gemm->columnBytes(), 2 * 16 * 128 * 4);

  // A gather that writes ones outside the source is no zero insertion:
  // the convolution stays one GEMM over the gather's result.
  linalg::LinalgOp padded = lastOp(transposedConvolution("1.0"));
  std::string why;
  EXPECT_TRUE(failed(kf::analyzeZeroInsertion(padded->getOperand(0), &why)));
  EXPECT_NE(why.find("not zero"), std::string::npos) << why;
  FailureOr<kf::ConvolutionGemm> direct = kf::analyzeConvolutionGemm(padded);
  ASSERT_TRUE(succeeded(direct));
  EXPECT_FALSE(direct->zeroInsertion.has_value());
  EXPECT_EQ(direct->taps, 9);
  EXPECT_EQ(direct->pixels, 18);
}

TEST_F(ContractionScheduleTest, DefaultComputesConvolutionsAsGemms) {
  // The default sets the im2col gene; after the rewrite the product is a
  // contraction with the GEMM kernel's tile. The naive default (the
  // trusted reference's) keeps the direct convolution.
  lastOp("func.func @f(%x: tensor<4x8x34x34xf32>, %w: tensor<64x8x3x3xf32>, "
         "%init: tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32> {\n"
         "  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : "
         "tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : "
         "tensor<4x8x34x34xf32>, tensor<64x8x3x3xf32>) outs(%init : "
         "tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>\n"
         "  return %y : tensor<4x64x32x32xf32>\n}\n");
  auto reference = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
  ASSERT_TRUE(succeeded(schedule));
  EXPECT_TRUE(schedule->convolutionsAsGemm);
  FailureOr<kf::Restructured> structure = kf::restructure(reference, *schedule);
  ASSERT_TRUE(succeeded(structure));
  unsigned gemms = 0;
  for (auto [op, shape] : llvm::zip_equal(schedule->ops, structure->shapes)) {
    if (!shape.contraction)
      continue;
    ++gemms;
    EXPECT_EQ(shape.contraction->m, 64);
    EXPECT_EQ(shape.contraction->n, 4096);
    EXPECT_EQ(shape.contraction->k, 80);
    EXPECT_TRUE(op.contraction.isSet());
  }
  EXPECT_EQ(gemms, 1u);
  EXPECT_TRUE(succeeded(kf::renderSchedule(reference, *schedule)));
  std::optional<kf::Schedule> copy = roundTrip(*schedule);
  ASSERT_TRUE(copy);
  EXPECT_TRUE(copy->convolutionsAsGemm);

  FailureOr<kf::Schedule> naive =
      kf::buildDefaultSchedule(reference, kf::DefaultSchedule::Naive);
  ASSERT_TRUE(succeeded(naive));
  EXPECT_FALSE(naive->convolutionsAsGemm);
}

TEST_F(ContractionScheduleTest, PreservedLoopRuns) {
  // x[n, c, h, w] read by a reduction over (c, n, h, w) into [c]: of the
  // loops 1, 2, 3 (n, h, w) every map keeps only h, w together.
  MLIRContext *ctx = &context;
  auto d = [&](unsigned position) { return getAffineDimExpr(position, ctx); };
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {d(1), d(0), d(2), d(3)}, ctx),
      AffineMap::get(4, 0, {d(0)}, ctx)};
  SmallVector<ReassociationIndices> runs =
      kf::preservedLoopRuns(maps, {1, 2, 3});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], (ReassociationIndices{2, 3}));
  // Loops that are not consecutive never form a run.
  EXPECT_TRUE(kf::preservedLoopRuns(maps, {0, 2}).empty());
  // A map that is not a projected permutation (a pooling window's h + kh):
  // no run at all.
  SmallVector<AffineMap> window = {AffineMap::get(2, 0, {d(0) + d(1)}, ctx),
                                   AffineMap::get(2, 0, {d(0), d(1)}, ctx)};
  EXPECT_TRUE(kf::preservedLoopRuns(window, {0, 1}).empty());
}

} // namespace
