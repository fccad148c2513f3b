//===- CompilerTest.cpp - Problem + schedule -> PTX -----------------------===//

#include "kf/Pipelines/Compiler.h"

#include "kf/Analysis/CheatDetection.h"
#include "kf/Pipelines/CpuReference.h"

#include "kf/Dialect/KF/KFOps.h"
#include "kf/InitAll.h"
#include "kf/Runtime/RuntimeKernels.h"
#include "kf/Schedule/Schedule.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;

namespace {

class CompilerTest : public ::testing::Test {
protected:
  CompilerTest() {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

constexpr const char *kScale = R"mlir(
  kf.problem @scale reference(@scale_ref) tolerance(<atol = 0.0, rtol = 0.0>)
  func.func @scale_ref(%x: tensor<16x100xf32>) -> tensor<16x100xf32> {
    %two = arith.constant 2.0 : f32
    %init = tensor.empty() : tensor<16x100xf32>
    %y = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<16x100xf32>) outs(%init : tensor<16x100xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.mulf %in, %two : f32
      linalg.yield %r : f32
    } -> tensor<16x100xf32>
    return %y : tensor<16x100xf32>
  }
)mlir";

TEST_F(CompilerTest, DefaultScheduleGivesOneLaunchWithBoundArguments) {
  OwningOpRef<ModuleOp> problem = parseSourceString<ModuleOp>(kScale, &context);
  ASSERT_TRUE(problem);
  FailureOr<kf::CompiledCandidate> compiled =
      kf::compileCandidate(*problem, "", std::nullopt, kf::CompileOptions());
  ASSERT_TRUE(succeeded(compiled));
  const kf::LaunchPlan &plan = compiled->plan;
  EXPECT_EQ(plan.numArguments, 2u);
  ASSERT_EQ(plan.numLaunches(), 1u);
  const kf::PlanStep &launch = plan.steps.back();
  // 100 columns in blocks of 64, 16 rows in blocks of 4.
  EXPECT_EQ(launch.grid[0], 2);
  EXPECT_EQ(launch.grid[1], 4);
  EXPECT_EQ(launch.block[0], 64);
  EXPECT_EQ(launch.block[1], 4);
  ASSERT_EQ(launch.arguments.size(), 2u);
  EXPECT_EQ(launch.arguments[0].kind, kf::PlanArgument::Kind::Pointer);
  // Arguments are bound through the launch: input first, then output.
  EXPECT_EQ(plan.buffers[launch.arguments[0].buffer].argumentIndex, 0u);
  EXPECT_EQ(plan.buffers[launch.arguments[1].buffer].argumentIndex, 1u);
  ASSERT_EQ(plan.modules.size(), 1u);
  EXPECT_NE(plan.modules.begin()->second.image.find(".target sm_90"),
            std::string::npos);
  // The problem module is left as it was.
  EXPECT_EQ(std::distance(problem->getOps().begin(), problem->getOps().end()),
            2);
}

TEST_F(CompilerTest, ChipAndPTXVersionAreHonoured) {
  OwningOpRef<ModuleOp> problem = parseSourceString<ModuleOp>(kScale, &context);
  ASSERT_TRUE(problem);
  kf::CompileOptions options;
  options.chip = "sm_80";
  FailureOr<kf::CompiledCandidate> compiled =
      kf::compileCandidate(*problem, "", std::nullopt, options);
  ASSERT_TRUE(succeeded(compiled));
  const std::string &ptx = compiled->plan.modules.begin()->second.image;
  EXPECT_NE(ptx.find(".version 7.0"), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_80"), std::string::npos);
  EXPECT_EQ(kf::minimumPTXVersion("sm_90"), 80u);
  EXPECT_EQ(kf::minimumPTXVersion("sm_42"), 0u);
}

TEST_F(CompilerTest, BrokenScheduleFailsAtTheTransformStage) {
  OwningOpRef<ModuleOp> problem = parseSourceString<ModuleOp>(kScale, &context);
  ASSERT_TRUE(problem);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  // Asks for more threads than the forall has iterations mapped.
  const char *schedule = R"mlir(
    module attributes {transform.with_named_sequence} {
      transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
        %op = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
        %t, %f = transform.structured.tile_using_forall %op tile_sizes [1, 1] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
        %b = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true} : (!transform.any_op) -> !transform.any_op
        %func = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
        %l = transform.gpu.map_forall_to_blocks %func generate_gpu_launch : (!transform.any_op) -> !transform.any_op
        transform.yield
      }
    })mlir";
  kf::CompileStage stage;
  FailureOr<kf::CompiledCandidate> compiled = kf::compileCandidate(
      *problem, "", llvm::StringRef(schedule), kf::CompileOptions(), &stage);
  EXPECT_TRUE(failed(compiled));
  EXPECT_EQ(stage, kf::CompileStage::Transform);
  EXPECT_FALSE(diagnostics.empty());
}

TEST_F(CompilerTest, RejectionsOutliveTheCompiledModule) {
  // A kernel candidate storing a constant: rejected at the cheat-check
  // stage. The findings are read after compileKernelCandidate has erased the
  // module they were found in (kf-evolve eval printed them from freed
  // memory, and crashed on the GPU host now and then): they carry their
  // location as text and no pointer into it.
  OwningOpRef<ModuleOp> problem = parseSourceString<ModuleOp>(kScale, &context);
  ASSERT_TRUE(problem);
  OwningOpRef<ModuleOp> kernel = parseSourceString<ModuleOp>(R"mlir(
    module {
      func.func @scale(%x: memref<16x100xf32>, %y: memref<16x100xf32>) {
        %c1 = arith.constant 1 : index
        %c16 = arith.constant 16 : index
        %c100 = arith.constant 100 : index
        %two = arith.constant 2.0 : f32
        gpu.launch blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c1, %gz = %c1)
                   threads(%tx, %ty, %tz) in (%sx = %c100, %sy = %c1, %sz = %c1) {
          memref.store %two, %y[%bx, %tx] : memref<16x100xf32>
          gpu.terminator
        }
        return
      }
    })mlir",
                                                             &context);
  ASSERT_TRUE(kernel);
  ScopedDiagnosticHandler handler(&context,
                                  [](Diagnostic &) { return success(); });
  kf::CompileStage stage;
  SmallVector<kf::CheatFinding> rejections;
  FailureOr<kf::CompiledCandidate> compiled = kf::compileKernelCandidate(
      *problem, "", *kernel, kf::CompileOptions(), &stage, &rejections);
  EXPECT_TRUE(failed(compiled));
  EXPECT_EQ(stage, kf::CompileStage::CheatCheck);
  ASSERT_EQ(rejections.size(), 1u);
  EXPECT_EQ(rejections[0].code, "output-independent-of-inputs");
  EXPECT_EQ(rejections[0].op, nullptr);
  // The gpu.launch (line 8 of the kernel text, which starts with a newline).
  EXPECT_EQ(rejections[0].location, "-:8:9");
  EXPECT_NE(kf::formatRejection(rejections[0]).find(rejections[0].location),
            std::string::npos);
}

TEST_F(CompilerTest, RuntimeKernelsCompileForTheChip) {
  FailureOr<kf::PlanModule> kernels =
      kf::compileRuntimeKernels(&context, kf::CompileOptions());
  ASSERT_TRUE(succeeded(kernels));
  EXPECT_EQ(kernels->format, kf::PlanModule::Format::PTX);
  for (llvm::StringRef name :
       {"fill_uniform_f32", "fill_normal_bf16", "fill_int_i8", "compare_f64",
        "compare_i1", "count_diff_i32"})
    EXPECT_NE(kernels->image.find((".entry " + name + "(").str()),
              std::string::npos)
        << name.str();
  // Normal draws need log and cos: libdevice was linked in, nothing is left
  // unresolved.
  EXPECT_EQ(kernels->image.find(".extern .func __nv_"), std::string::npos);
}

} // namespace

namespace {

TEST_F(CompilerTest, CpuReferenceComputesTheReference) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    kf.problem @softmax reference(@softmax_ref) tolerance(<atol = 0.0, rtol = 1.0e-06>)
    func.func @softmax_ref(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
      %zero = arith.constant 0.0 : f32
      %init = tensor.empty() : tensor<2x3xf32>
      %e = linalg.generic {
          indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
          iterator_types = ["parallel", "parallel"]}
          ins(%x : tensor<2x3xf32>) outs(%init : tensor<2x3xf32>) {
      ^bb0(%in: f32, %out: f32):
        %v = math.exp %in : f32
        linalg.yield %v : f32
      } -> tensor<2x3xf32>
      %rinit = tensor.empty() : tensor<2xf32>
      %acc = linalg.fill ins(%zero : f32) outs(%rinit : tensor<2xf32>) -> tensor<2xf32>
      %s = linalg.generic {
          indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
          iterator_types = ["parallel", "reduction"]}
          ins(%e : tensor<2x3xf32>) outs(%acc : tensor<2xf32>) {
      ^bb0(%in: f32, %out: f32):
        %v = arith.addf %in, %out : f32
        linalg.yield %v : f32
      } -> tensor<2xf32>
      return %e, %s : tensor<2x3xf32>, tensor<2xf32>
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);
  FailureOr<kf::ProblemOp> problem = kf::lookupProblem(*module);
  ASSERT_TRUE(succeeded(problem));
  std::vector<float> x = {0.0f, 1.0f, -1.0f, 2.0f, 0.5f, -3.0f};
  std::string bytes(reinterpret_cast<const char *>(x.data()), 6 * 4);
  llvm::Expected<std::vector<std::string>> outputs =
      kf::runReferenceOnCPU(*problem, {bytes});
  ASSERT_TRUE(!!outputs) << llvm::toString(outputs.takeError());
  ASSERT_EQ(outputs->size(), 2u);
  const float *e = reinterpret_cast<const float *>((*outputs)[0].data());
  const float *s = reinterpret_cast<const float *>((*outputs)[1].data());
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(e[i], std::exp(x[i]), 1e-6f * std::exp(x[i]));
  EXPECT_NEAR(s[0], std::exp(0.0f) + std::exp(1.0f) + std::exp(-1.0f), 1e-5f);
  EXPECT_NEAR(s[1], std::exp(2.0f) + std::exp(0.5f) + std::exp(-3.0f), 1e-5f);
}

TEST_F(CompilerTest, CpuReferenceRejectsWrongInputSizes) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kScale, &context);
  ASSERT_TRUE(module);
  FailureOr<kf::ProblemOp> problem = kf::lookupProblem(*module);
  ASSERT_TRUE(succeeded(problem));
  llvm::Expected<std::vector<std::string>> outputs =
      kf::runReferenceOnCPU(*problem, {std::string(12, '\0')});
  ASSERT_FALSE(!!outputs);
  EXPECT_NE(llvm::toString(outputs.takeError()).find("expected 6400"),
            std::string::npos);
}

// The mean of many draws is nearly the same on every trial: under a loose
// tolerance a kernel writing one fixed value passes, under a tight one it
// does not. The constant comes from the first trial and is judged on the
// others (judged on its own trial, every scalar output would pass).
constexpr const char *kMean = R"mlir(
  kf.problem @mean reference(@mean_ref) inputs([#kf.uniform<-1.0, 3.0>])
      tolerance(<atol = 0.0, rtol = RTOL>)
  func.func @mean_ref(%x: tensor<4096xf32>) -> tensor<f32> {
    %zero = arith.constant 0.0 : f32
    %n = arith.constant 4096.0 : f32
    %init = tensor.empty() : tensor<f32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
    %s = linalg.generic {
        indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
        iterator_types = ["reduction"]}
        ins(%x : tensor<4096xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.addf %in, %out : f32
      linalg.yield %v : f32
    } -> tensor<f32>
    %m = linalg.generic {
        indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
        iterator_types = []}
        ins(%s : tensor<f32>) outs(%init : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.divf %in, %n : f32
      linalg.yield %v : f32
    } -> tensor<f32>
    return %m : tensor<f32>
  }
)mlir";

TEST_F(CompilerTest, HostProblemCheckJudgesTheConstantOnLaterTrials) {
  auto check = [&](llvm::StringRef rtol, unsigned trials) {
    std::string text = kMean;
    text.replace(text.find("RTOL"), 4, rtol.str());
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    FailureOr<kf::ProblemOp> problem = kf::lookupProblem(*module);
    EXPECT_TRUE(succeeded(problem));
    llvm::Expected<kf::HostProblemCheck> result =
        kf::checkProblemOnCPU(*problem, trials, /*seed=*/1);
    EXPECT_TRUE(!!result) << llvm::toString(result.takeError());
    std::string found =
        result->degenerate ? result->degenerate->describe() : "passed";
    // The first trial's draw and output come back for independent checks.
    EXPECT_EQ(result->inputs.size(), 1u);
    EXPECT_EQ(result->inputs[0].size(), 4096u * 4);
    EXPECT_EQ(result->outputs[0].size(), 4u);
    return found;
  };
  EXPECT_EQ(check("0.5", 4), "a constant");
  EXPECT_EQ(check("1.0e-06", 4), "passed");
  // With one trial the constant is never judged.
  EXPECT_EQ(check("0.5", 1), "passed");
}

} // namespace

namespace {

class ScheduleGenomeTest : public CompilerTest {
protected:
  /// Renders `schedule` for the problem's reference and compiles it.
  FailureOr<kf::CompiledCandidate> compileWith(ModuleOp problem,
                                               const kf::Schedule &schedule) {
    func::FuncOp reference =
        (*problem.getOps<kf::ProblemOp>().begin()).getReferenceFunc();
    FailureOr<std::string> text = kf::renderSchedule(reference, schedule);
    if (failed(text))
      return failure();
    return kf::compileCandidate(problem, "", StringRef(*text),
                                kf::CompileOptions());
  }
  static std::string ptxOf(const kf::CompiledCandidate &compiled) {
    std::string ptx;
    for (const auto &entry : compiled.plan.modules)
      ptx += entry.second.image;
    return ptx;
  }
};

TEST_F(ScheduleGenomeTest, VectorWidthGivesSixteenByteAccesses) {
  OwningOpRef<ModuleOp> problem = parseSourceString<ModuleOp>(kScale, &context);
  ASSERT_TRUE(problem);
  kf::Schedule schedule;
  kf::OpSchedule op;
  op.blockTile = {4, 100};
  op.threads = {4, 25};
  op.vectorWidth = 4;
  schedule.ops.push_back(op);
  FailureOr<kf::CompiledCandidate> compiled = compileWith(*problem, schedule);
  ASSERT_TRUE(succeeded(compiled));
  std::string ptx = ptxOf(*compiled);
  EXPECT_NE(ptx.find("ld.global.v4.b32"), std::string::npos);
  EXPECT_NE(ptx.find("st.global.v4.b32"), std::string::npos);
  EXPECT_EQ(compiled->plan.steps.back().block[0], 25);
}

TEST_F(ScheduleGenomeTest, VectorWidthMustTileTheBlockExactly) {
  OwningOpRef<ModuleOp> problem = parseSourceString<ModuleOp>(kScale, &context);
  ASSERT_TRUE(problem);
  kf::Schedule schedule;
  kf::OpSchedule op;
  op.blockTile = {4, 64}; // 64 does not divide 100
  op.threads = {4, 16};
  op.vectorWidth = 4;
  schedule.ops.push_back(op);
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  EXPECT_TRUE(failed(compileWith(*problem, schedule)));
  EXPECT_NE(diagnostic.find("64 does not divide 100"), std::string::npos)
      << diagnostic;
}

constexpr const char *kMatmul = R"mlir(
  kf.problem @mm reference(@mm_ref) tolerance(<atol = 1.0e-4, rtol = 1.0e-4>)
  func.func @mm_ref(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<128x256xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<128x256xf32>) -> tensor<128x256xf32>
    %c = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>)
                       outs(%acc : tensor<128x256xf32>) -> tensor<128x256xf32>
    return %c : tensor<128x256xf32>
  }
)mlir";

/// The fill's default mapping and a matmul staged in shared memory: 64x64
/// outputs per block, 16x16 threads with 4x4 outputs each, the reduction in
/// tiles of 16 and steps of 4.
kf::Schedule stagedMatmul(int64_t stage) {
  kf::Schedule schedule;
  kf::OpSchedule fill;
  fill.blockTile = {4, 64};
  fill.threads = {4, 64};
  schedule.ops.push_back(fill);
  kf::OpSchedule matmul;
  matmul.blockTile = {64, 64};
  matmul.threads = {16, 16};
  matmul.stageTile = stage;
  matmul.reductionStep = 4;
  schedule.ops.push_back(matmul);
  return schedule;
}

TEST_F(ScheduleGenomeTest, StagedMatmulReadsSharedMemoryAndWritesOnce) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kMatmul, &context);
  ASSERT_TRUE(problem);
  FailureOr<kf::CompiledCandidate> compiled =
      compileWith(*problem, stagedMatmul(16));
  ASSERT_TRUE(succeeded(compiled));
  std::string ptx = ptxOf(*compiled);
  size_t matmulKernel = ptx.find(".entry mm_ref_kernel_0");
  ASSERT_NE(matmulKernel, std::string::npos) << ptx;
  std::string kernel = ptx.substr(matmulKernel);
  // Tiles come from shared memory, four elements at a time, between
  // barriers; multiplies and adds fuse.
  EXPECT_NE(kernel.find(".shared"), std::string::npos);
  EXPECT_NE(kernel.find("ld.shared.v4"), std::string::npos);
  EXPECT_NE(kernel.find("bar.sync"), std::string::npos);
  EXPECT_NE(kernel.find("fma.rn.f32"), std::string::npos);
  // Each thread's 4x4 outputs stay in registers across all tiles: read
  // and written once, before and after the loops (kf-hoist-accumulators),
  // not once per tile: every store comes after the last branch back. Its
  // four rows are written as four 16-byte vectors (the device pipeline
  // lowers the unrolled transfers to aligned vector stores).
  kernel = kernel.substr(0, kernel.find(".entry", 1));
  size_t stores = 0, vectorStores = 0;
  for (size_t at = kernel.find("st.global"); at != std::string::npos;
       at = kernel.find("st.global", at + 1)) {
    ++stores;
    vectorStores += kernel.compare(at, 12, "st.global.v4") == 0;
  }
  EXPECT_EQ(stores, 4u) << kernel;
  EXPECT_EQ(vectorStores, 4u) << kernel;
  EXPECT_GT(kernel.find("st.global"), kernel.rfind("bra")) << kernel;
  EXPECT_EQ(compiled->plan.steps.back().block[0], 16);
  EXPECT_EQ(compiled->plan.steps.back().block[1], 16);
}

TEST_F(ScheduleGenomeTest, StageTileMustDivideTheReduction) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kMatmul, &context);
  ASSERT_TRUE(problem);
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  EXPECT_TRUE(failed(compileWith(*problem, stagedMatmul(24))));
  EXPECT_NE(diagnostic.find("the stage tile 24 does not divide the reduction "
                            "loop of 64"),
            std::string::npos)
      << diagnostic;
}

TEST_F(ScheduleGenomeTest, StagedTilesMustFitStaticSharedMemory) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kMatmul, &context);
  ASSERT_TRUE(problem);
  // 128 x (64 + 4) + 64 x (128 + 4) floats: 68608 bytes, over ptxas's 48 KB.
  kf::Schedule schedule = stagedMatmul(64);
  schedule.ops[1].blockTile = {128, 128};
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  EXPECT_TRUE(failed(compileWith(*problem, schedule)));
  EXPECT_NE(diagnostic.find("the staged tiles need 68608 bytes of shared "
                            "memory; a block may declare at most 49152"),
            std::string::npos)
      << diagnostic;
}

constexpr const char *kScaledRowSum = R"mlir(
  kf.problem @scaled_sum reference(@scaled_sum_ref) tolerance(<atol = 1.0e-4, rtol = 1.0e-5>)
  func.func @scaled_sum_ref(%x: tensor<64x256xf32>) -> tensor<64xf32> {
    %two = arith.constant 2.0 : f32
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<64x256xf32>
    %scaled = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<64x256xf32>) outs(%empty : tensor<64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.mulf %in, %two : f32
      linalg.yield %r : f32
    } -> tensor<64x256xf32>
    %init = tensor.empty() : tensor<64xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64xf32>) -> tensor<64xf32>
    %s = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
        iterator_types = ["parallel", "reduction"]}
        ins(%scaled : tensor<64x256xf32>) outs(%acc : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.addf %in, %out : f32
      linalg.yield %r : f32
    } -> tensor<64xf32>
    return %s : tensor<64xf32>
  }
)mlir";

// Schedules run kf's passes (fusion here) through
// transform.apply_registered_pass; they apply in a program that registered
// no pass, as this test is.
TEST_F(ScheduleGenomeTest, StructureGenesApplyWithoutRegisteredPasses) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kScaledRowSum, &context);
  ASSERT_TRUE(problem);
  func::FuncOp reference =
      (*problem->getOps<kf::ProblemOp>().begin()).getReferenceFunc();
  kf::Schedule schedule;
  schedule.fuseElementwise = true;
  FailureOr<kf::Restructured> fused = kf::restructure(reference, schedule);
  ASSERT_TRUE(succeeded(fused));
  // The scaling is fused into the sum: a fill and the sum are left.
  EXPECT_EQ(fused->shapes.size(), 2u);
  schedule.ops = fused->defaults;
  // The default shares the row among a warp's lanes; a thread per row with
  // register steps instead.
  EXPECT_EQ(schedule.ops[1].reductionLanes, 32);
  schedule.ops[1].reductionLanes = 0;
  schedule.ops[1].reductionStep = 8;
  schedule.ops[1].blockTile = schedule.ops[1].threads = {64};
  FailureOr<kf::CompiledCandidate> compiled = compileWith(*problem, schedule);
  ASSERT_TRUE(succeeded(compiled));
  EXPECT_EQ(compiled->plan.numLaunches(), 2u);
}

constexpr const char *kRowSum = R"mlir(
  kf.problem @row_sum reference(@row_sum_ref) tolerance(<atol = 1.0e-4, rtol = 1.0e-5>)
  func.func @row_sum_ref(%x: tensor<64x256xf32>) -> tensor<64xf32> {
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<64xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64xf32>) -> tensor<64xf32>
    %s = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
        iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<64x256xf32>) outs(%acc : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.addf %in, %out : f32
      linalg.yield %r : f32
    } -> tensor<64xf32>
    return %s : tensor<64xf32>
  }
)mlir";

TEST_F(ScheduleGenomeTest, ReductionStepKeepsTheAccumulatorInRegisters) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kRowSum, &context);
  ASSERT_TRUE(problem);
  kf::Schedule schedule;
  kf::OpSchedule fill;
  fill.blockTile = {32};
  fill.threads = {32};
  kf::OpSchedule sum;
  sum.blockTile = {32};
  sum.threads = {32};
  sum.reductionStep = 8;
  schedule.ops = {fill, sum};
  FailureOr<kf::CompiledCandidate> compiled = compileWith(*problem, schedule);
  ASSERT_TRUE(succeeded(compiled));
  std::string ptx = ptxOf(*compiled);
  // The sum kernel: 8 loads per step and a single store after the loop.
  size_t kernel = ptx.find(".entry row_sum_ref_kernel_0");
  ASSERT_NE(kernel, std::string::npos) << ptx;
  std::string body = ptx.substr(kernel);
  size_t stores = 0;
  for (size_t at = body.find("st.global"); at != std::string::npos;
       at = body.find("st.global", at + 1))
    ++stores;
  EXPECT_EQ(stores, 1u) << body;
  size_t loads = 0;
  for (size_t at = body.find("ld.global"); at != std::string::npos;
       at = body.find("ld.global", at + 1))
    ++loads;
  EXPECT_GE(loads, 3u) << body; // the initial value and vectorized steps
}

TEST_F(ScheduleGenomeTest, ReductionStepMustDivideTheLoop) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kRowSum, &context);
  ASSERT_TRUE(problem);
  kf::Schedule schedule;
  kf::OpSchedule fill;
  fill.blockTile = {32};
  fill.threads = {32};
  kf::OpSchedule sum = fill;
  sum.reductionStep = 24;
  schedule.ops = {fill, sum};
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  EXPECT_TRUE(failed(compileWith(*problem, schedule)));
  EXPECT_NE(diagnostic.find("does not divide the reduction loop of 256"),
            std::string::npos)
      << diagnostic;
}

} // namespace

namespace {

TEST_F(ScheduleGenomeTest, CostModelRanksRegisterAccumulationFirst) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kRowSum, &context);
  ASSERT_TRUE(problem);
  kf::Schedule schedule;
  kf::OpSchedule fill;
  fill.blockTile = {32};
  fill.threads = {32};
  kf::OpSchedule sum = fill;
  schedule.ops = {fill, sum};
  FailureOr<kf::CompiledCandidate> plain = compileWith(*problem, schedule);
  ASSERT_TRUE(succeeded(plain));
  schedule.ops[1].reductionStep = 8;
  FailureOr<kf::CompiledCandidate> accumulated =
      compileWith(*problem, schedule);
  ASSERT_TRUE(succeeded(accumulated));
  EXPECT_GT(plain->predictedSeconds, 0);
  EXPECT_LT(accumulated->predictedSeconds, plain->predictedSeconds);
}

} // namespace

namespace {

// Regression: vectorizing a whole untiled reduction made vectors of its
// full extent, and LLVM's instruction selection then overflowed the stack
// (kf-evolve search crashed on softmax). Such tiles are refused.
TEST_F(ScheduleGenomeTest, HugeVectorizedThreadTilesAreRefused) {
  OwningOpRef<ModuleOp> problem =
      parseSourceString<ModuleOp>(kRowSum, &context);
  ASSERT_TRUE(problem);
  kf::Schedule schedule;
  kf::OpSchedule fill;
  fill.blockTile = {32};
  fill.threads = {32};
  kf::OpSchedule sum;
  sum.blockTile = {64};
  sum.threads = {32};
  sum.vectorWidth = 2; // 2 outputs x all 256 reduction iterations
  schedule.ops = {fill, sum};
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  EXPECT_TRUE(failed(compileWith(*problem, schedule)));
  EXPECT_NE(diagnostic.find("a vectorized thread tile of 512 elements is too "
                            "large"),
            std::string::npos)
      << diagnostic;
}

} // namespace

namespace {

TEST_F(CompilerTest, DescribeOpsSaysWhatTheVectorizerTakes) {
  // A transposed convolution's weight flip (reversed indices: not a
  // projected permutation) and an argmax (two outputs folded by a compare
  // and selects) are refused by upstream's vectorizer; an elementwise op
  // and a padded gather (tensor.extract, vectorize_nd_extract) are taken.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @ops(%w: tensor<8x4x3x3xf32>, %x: tensor<16x64xf32>)
        -> (tensor<4x8x3x3xf32>, tensor<16xf32>, tensor<16xi64>, tensor<16x64xf32>, tensor<16x66xf32>) {
      %e0 = tensor.empty() : tensor<4x8x3x3xf32>
      %flip = linalg.generic {
          indexing_maps = [affine_map<(o, i, h, v) -> (i, o, 2 - h, 2 - v)>,
                           affine_map<(o, i, h, v) -> (o, i, h, v)>],
          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
          ins(%w : tensor<8x4x3x3xf32>) outs(%e0 : tensor<4x8x3x3xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<4x8x3x3xf32>
      %ninf = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0 : i64
      %e1 = tensor.empty() : tensor<16xf32>
      %e2 = tensor.empty() : tensor<16xi64>
      %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
      %i0 = linalg.fill ins(%zero : i64) outs(%e2 : tensor<16xi64>) -> tensor<16xi64>
      %max:2 = linalg.generic {
          indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (r)>,
                           affine_map<(r, c) -> (r)>],
          iterator_types = ["parallel", "reduction"]}
          ins(%x : tensor<16x64xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi64>) {
      ^bb0(%in: f32, %best: f32, %at: i64):
        %c = linalg.index 1 : index
        %ci = arith.index_cast %c : index to i64
        %gt = arith.cmpf ogt, %in, %best : f32
        %v = arith.select %gt, %in, %best : f32
        %j = arith.select %gt, %ci, %at : i64
        linalg.yield %v, %j : f32, i64
      } -> (tensor<16xf32>, tensor<16xi64>)
      %e3 = tensor.empty() : tensor<16x64xf32>
      %twice = linalg.generic {
          indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (r, c)>],
          iterator_types = ["parallel", "parallel"]}
          ins(%x : tensor<16x64xf32>) outs(%e3 : tensor<16x64xf32>) {
      ^bb0(%in: f32, %out: f32):
        %d = arith.addf %in, %in : f32
        linalg.yield %d : f32
      } -> tensor<16x64xf32>
      %e4 = tensor.empty() : tensor<16x66xf32>
      %padded = linalg.generic {
          indexing_maps = [affine_map<(r, c) -> (r, c)>],
          iterator_types = ["parallel", "parallel"]}
          outs(%e4 : tensor<16x66xf32>) {
      ^bb0(%out: f32):
        %r = linalg.index 0 : index
        %c = linalg.index 1 : index
        %c1 = arith.constant 1 : index
        %c63 = arith.constant 63 : index
        %s = arith.subi %c, %c1 : index
        %z = arith.constant 0 : index
        %lo = arith.maxsi %s, %z : index
        %in = arith.minsi %lo, %c63 : index
        %v = tensor.extract %x[%r, %in] : tensor<16x64xf32>
        linalg.yield %v : f32
      } -> tensor<16x66xf32>
      return %flip, %max#0, %max#1, %twice, %padded
          : tensor<4x8x3x3xf32>, tensor<16xf32>, tensor<16xi64>, tensor<16x64xf32>, tensor<16x66xf32>
    }
  )mlir",
                                                             &context);
  ASSERT_TRUE(module);
  auto function = *module->getOps<func::FuncOp>().begin();
  FailureOr<SmallVector<kf::OpShape>> shapes = kf::describeOps(function);
  ASSERT_TRUE(succeeded(shapes));
  // flip, the two fills, argmax, twice, padded.
  ASSERT_EQ(shapes->size(), 6u);
  EXPECT_FALSE((*shapes)[0].vectorizable);
  EXPECT_TRUE((*shapes)[1].vectorizable);
  EXPECT_FALSE((*shapes)[3].vectorizable);
  EXPECT_TRUE((*shapes)[4].vectorizable);
  EXPECT_TRUE((*shapes)[5].vectorizable);
}

} // namespace
