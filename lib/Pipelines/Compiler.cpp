//===- Compiler.cpp - Problem + schedule -> lowered module ----------------===//

#include "kf/Pipelines/Compiler.h"

#include "kf/Dialect/KF/KFOps.h"
#include "kf/Runtime/RuntimeKernels.h"
#include "kf/Transforms/Schedules.h"

#include "mlir/Parser/Parser.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

llvm::StringRef kf::stringifyCompileStage(CompileStage stage) {
  switch (stage) {
  case CompileStage::Schedule:
    return "schedule";
  case CompileStage::Transform:
    return "transform";
  case CompileStage::Lowering:
    return "lowering";
  case CompileStage::HostCode:
    return "host-code";
  }
  llvm_unreachable("unknown compile stage");
}

static void setPipelineOptions(kf::LowerToPTXOptions &lowering,
                               const kf::CompileOptions &options) {
  lowering.chip = options.chip;
  lowering.ptxVersion = options.ptxVersion;
  lowering.optLevel = options.optLevel;
  lowering.format = options.format;
}

FailureOr<kf::CompiledCandidate>
kf::compileCandidate(ModuleOp problem, StringRef problemName,
                     std::optional<StringRef> schedule,
                     const CompileOptions &options, CompileStage *failedStage) {
  auto fail = [&](CompileStage stage) {
    if (failedStage)
      *failedStage = stage;
    return failure();
  };
  FailureOr<ProblemOp> problemOp = lookupProblem(problem, problemName);
  if (failed(problemOp))
    return fail(CompileStage::Schedule);
  func::FuncOp reference = problemOp->getReferenceFunc();

  // Work on a module holding a copy of the reference only.
  MLIRContext *context = problem.getContext();
  OwningOpRef<ModuleOp> payload = ModuleOp::create(problem.getLoc());
  payload->getBody()->push_back(reference->clone());
  func::FuncOp payloadReference = *payload->getOps<func::FuncOp>().begin();

  CompiledCandidate result;
  if (schedule) {
    result.schedule = schedule->str();
  } else {
    FailureOr<Schedule> defaultSchedule = buildDefaultSchedule(payloadReference);
    if (failed(defaultSchedule))
      return fail(CompileStage::Schedule);
    FailureOr<std::string> text =
        renderSchedule(payloadReference, *defaultSchedule);
    if (failed(text))
      return fail(CompileStage::Schedule);
    result.schedule = std::move(*text);
  }
  OwningOpRef<ModuleOp> script =
      parseSchedule(result.schedule, "schedule", context);
  if (!script) {
    emitError(problem.getLoc())
        << "the schedule is not a transform script with a @__transform_main "
           "entry point";
    return fail(CompileStage::Schedule);
  }
  if (failed(applySchedule(*payload, *script)))
    return fail(CompileStage::Transform);

  PassManager pm(context);
  LowerToPTXOptions lowering;
  setPipelineOptions(lowering, options);
  buildLowerToPTXPipeline(pm, lowering);
  if (failed(pm.run(*payload)))
    return fail(CompileStage::Lowering);

  FailureOr<LaunchPlan> plan = buildLaunchPlan(*payload);
  if (failed(plan))
    return fail(CompileStage::HostCode);
  result.plan = std::move(*plan);
  result.lowered = std::move(payload);
  return result;
}

std::string kf::collectKernelImages(ModuleOp lowered) {
  std::string images;
  for (auto binary : lowered.getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        images += object.getObject().getValue().str();
  return images;
}

FailureOr<kf::PlanModule>
kf::compileRuntimeKernels(MLIRContext *context, const CompileOptions &options) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(runtimeKernelsSource(), context,
                                  "<kf runtime kernels>");
  if (!module)
    return failure();
  PassManager pm(context);
  LowerToPTXOptions lowering;
  setPipelineOptions(lowering, options);
  buildDeviceLoweringPipeline(pm, lowering, /*barePointers=*/false);
  if (failed(pm.run(*module)))
    return failure();
  auto binary = *module->getOps<gpu::BinaryOp>().begin();
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  PlanModule result;
  result.format = object.getFormat() == gpu::CompilationTarget::Binary
                      ? PlanModule::Format::Cubin
                      : PlanModule::Format::PTX;
  result.chip = options.chip;
  result.image = object.getObject().getValue().str();
  return result;
}
