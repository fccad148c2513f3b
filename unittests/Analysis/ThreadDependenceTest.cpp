//===- ThreadDependenceTest.cpp - Strides and divergence across threads ---===//

#include "kf/Analysis/ThreadDependence.h"

#include "kf/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class ThreadDependenceTest : public ::testing::Test {
protected:
  ThreadDependenceTest() {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The value named by the `kf.probe` attribute on its defining op, or the
  /// block argument `index` of the block holding the op tagged `kf.arg`.
  Value probe(ModuleOp module, StringRef name) {
    Value found;
    module.walk([&](Operation *op) {
      if (auto attr = op->getAttrOfType<StringAttr>("kf.probe"))
        if (attr.getValue() == name)
          found = op->getResult(0);
    });
    return found;
  }

  MLIRContext context;
};

TEST_F(ThreadDependenceTest, LoopCarriedIndexInLLVMForm) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    llvm.func @k(%p: !llvm.ptr) attributes {nvvm.kernel} {
      %one = llvm.mlir.constant(1 : index) : i64
      %zero = llvm.mlir.constant(0 : index) : i64
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %t = llvm.sext %tid {kf.probe = "t"} : i32 to i64
      llvm.br ^bb1(%zero : i64)
    ^bb1(%i: i64):
      %c = llvm.icmp "slt" %i, %one : i64
      llvm.cond_br %c, ^bb2, ^bb3
    ^bb2:
      %sum = llvm.add %t, %i {kf.probe = "sum"} : i64
      %next = llvm.add %i, %one : i64
      llvm.br ^bb1(%next : i64)
    ^bb3:
      llvm.return
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);
  kf::ThreadDependence threads;
  EXPECT_EQ(threads.strideX(probe(*module, "t")), 1);
  EXPECT_EQ(threads.strideX(probe(*module, "sum")), 1);
  EXPECT_TRUE(threads.isThreadDependent(probe(*module, "sum")));
}

TEST_F(ThreadDependenceTest, ArithmeticOnThreadIds) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    gpu.module @m {
      gpu.func @k(%n: index) kernel {
        %c4 = arith.constant 4 : index
        %tx = gpu.thread_id x
        %ty = gpu.thread_id y
        %bx = gpu.block_id x
        %a = arith.muli %tx, %c4 {kf.probe = "times4"} : index
        %b = arith.addi %a, %bx {kf.probe = "plusblock"} : index
        %c = arith.muli %tx, %n {kf.probe = "timesarg"} : index
        %d = arith.remui %tx, %c4 {kf.probe = "mod"} : index
        %e = arith.addi %bx, %n {kf.probe = "uniform"} : index
        %f = arith.addi %ty, %c4 {kf.probe = "ydep"} : index
        %g = affine.apply affine_map<(d0)[s0] -> (d0 * 8 + s0)>(%tx)[%bx] {kf.probe = "affine"}
        gpu.return
      }
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);
  kf::ThreadDependence threads;
  EXPECT_EQ(threads.strideX(probe(*module, "times4")), 4);
  EXPECT_EQ(threads.strideX(probe(*module, "plusblock")), 4);
  EXPECT_EQ(threads.strideX(probe(*module, "timesarg")), std::nullopt);
  EXPECT_EQ(threads.strideX(probe(*module, "mod")), std::nullopt);
  EXPECT_EQ(threads.strideX(probe(*module, "uniform")), 0);
  EXPECT_FALSE(threads.isThreadDependent(probe(*module, "uniform")));
  EXPECT_EQ(threads.strideX(probe(*module, "ydep")), 0);
  EXPECT_TRUE(threads.isThreadDependent(probe(*module, "ydep")));
  EXPECT_TRUE(threads.isThreadDependent(probe(*module, "mod")));
  EXPECT_EQ(threads.strideX(probe(*module, "affine")), 8);
  // Along y: thread x and block ids are constant.
  EXPECT_EQ(threads.strideY(probe(*module, "ydep")), 1);
  EXPECT_EQ(threads.strideY(probe(*module, "times4")), 0);
  EXPECT_EQ(threads.strideY(probe(*module, "plusblock")), 0);
  EXPECT_EQ(threads.stride(probe(*module, "ydep"), 2), 0);
}

TEST_F(ThreadDependenceTest, TwoDimensionalIndex) {
  // The row of a 16-wide block's thread tile: 8 rows per thread along y,
  // 4 columns per thread along x (the GEMM kernel's register tile).
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    gpu.module @m {
      gpu.func @k() kernel {
        %tx = gpu.thread_id x
        %ty = gpu.thread_id y
        %g = affine.apply affine_map<(d0, d1) -> (d1 * 1024 + d0 * 4)>(%tx, %ty) {kf.probe = "address"}
        gpu.return
      }
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);
  kf::ThreadDependence threads;
  Value address = probe(*module, "address");
  EXPECT_EQ(threads.strideX(address), 4);
  EXPECT_EQ(threads.strideY(address), 1024);
  // The caches of the two dimensions are separate.
  EXPECT_EQ(threads.strideX(address), 4);
}

} // namespace

#include "kf/Analysis/Bottleneck.h"

namespace {

TEST(Bottleneck, MeasuredClasses) {
  kf::ProblemAnalysis copy;
  copy.minBytes = copy.floorBytes = 4270000000; // 1 ms at the copy ceiling
  copy.flops = 1000;
  kf::Ceilings ceilings;
  EXPECT_EQ(kf::classifyMeasurement(copy, ceilings, 1.1, 1).kind,
            "memory-bound");
  EXPECT_EQ(kf::classifyMeasurement(copy, ceilings, 10.0, 1).kind,
            "latency-bound");
  kf::ProblemAnalysis gemm;
  gemm.minBytes = gemm.floorBytes = 1000;
  gemm.flops = 50900000000; // 1 ms at the fp32 rate
  EXPECT_EQ(kf::classifyMeasurement(gemm, ceilings, 1.5, 1).kind,
            "compute-bound");
  kf::ProblemAnalysis tiny;
  tiny.minBytes = tiny.floorBytes = 1000;
  tiny.flops = 1000;
  EXPECT_EQ(kf::classifyMeasurement(tiny, ceilings, 0.004, 1).kind,
            "launch-bound");
}

TEST(Bottleneck, PredictionFollowsFindingsThenIntensity) {
  kf::Ceilings ceilings;
  kf::ProblemAnalysis tiny;
  tiny.minBytes = tiny.floorBytes = 8;
  tiny.flops = 1;
  EXPECT_EQ(kf::predictBottleneck(tiny, ceilings, llvm::json::Array()).kind,
            "launch-bound");
  kf::ProblemAnalysis elementwise;
  elementwise.minBytes = elementwise.floorBytes = 8000000000;
  elementwise.flops = 1000000000;
  llvm::json::Array none;
  EXPECT_EQ(kf::predictBottleneck(elementwise, ceilings, none).kind,
            "memory-bound");
  kf::ProblemAnalysis gemm;
  gemm.minBytes = gemm.floorBytes = 1000000;
  gemm.flops = 1000000000000;
  EXPECT_EQ(kf::predictBottleneck(gemm, ceilings, none).kind, "compute-bound");
  llvm::json::Array lowParallelism{llvm::json::Object{
      {"findings",
       llvm::json::Array{llvm::json::Object{{"kind", "low-parallelism"},
                                            {"location", "k.mlir:1:1"},
                                            {"message", "few threads"}}}}}};
  kf::Bottleneck predicted =
      kf::predictBottleneck(gemm, ceilings, lowParallelism);
  EXPECT_EQ(predicted.kind, "latency-bound");
  EXPECT_EQ(predicted.reason, "k.mlir:1:1: few threads");
}

} // namespace
