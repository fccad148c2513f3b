//===- Compiler.cpp - Problem + schedule -> lowered module ----------------===//

#include "kf/Pipelines/Compiler.h"

#include "kf/Analysis/Bottleneck.h"
#include "kf/Analysis/CostModel.h"

#include "kf/Analysis/KernelAnalysis.h"
#include "kf/Dialect/KF/KFOps.h"
#include "kf/Runtime/RuntimeKernels.h"
#include "kf/Schedule/Schedule.h"

#include "mlir/Parser/Parser.h"

#include "kf/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

#include <set>

using namespace mlir;

llvm::StringRef kf::stringifyCompileStage(CompileStage stage) {
  switch (stage) {
  case CompileStage::Schedule:
    return "schedule";
  case CompileStage::Transform:
    return "transform";
  case CompileStage::Lowering:
    return "lowering";
  case CompileStage::CheatCheck:
    return "cheat-check";
  case CompileStage::HostCode:
    return "host-code";
  case CompileStage::Cuda:
    return "cuda";
  }
  llvm_unreachable("unknown compile stage");
}

/// Records where a compilation failed (when the caller asked) and fails.
static LogicalResult failAt(kf::CompileStage stage,
                            kf::CompileStage *failedStage) {
  if (failedStage)
    *failedStage = stage;
  return failure();
}

/// Fails with an error when a kernel still calls a libdevice function: no
/// CUDA toolkit with libdevice was found to link it from.
static LogicalResult checkLibDeviceResolved(ModuleOp lowered) {
  for (auto binary : lowered.getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      StringRef ptx = object.getObject().getValue();
      size_t pos = ptx.find(".extern .func");
      if (pos == StringRef::npos)
        continue;
      StringRef rest = ptx.drop_front(pos);
      size_t name = rest.find("__nv_");
      StringRef function = name == StringRef::npos
                               ? StringRef("an external function")
                               : rest.drop_front(name).take_until([](char c) {
                                   return !isalnum(c) && c != '_';
                                 });
      return binary.emitError()
             << "the kernels call " << function
             << " from CUDA's libdevice, but no CUDA toolkit with "
                "nvvm/libdevice was found to link it; set CUDA_HOME (or "
                "KF_CUDA_PATH) to a CUDA toolkit";
    }
  return success();
}

static void setPipelineOptions(kf::LowerToPTXOptions &lowering,
                               const kf::CompileOptions &options);

/// Runs kf-lower-to-ptx on `payload`, taking the kernel diagnosis and the
/// static cheat checks just before serialization.
static LogicalResult
lowerAndDiagnose(ModuleOp payload, unsigned numInputs,
                 const kf::ProblemAnalysis &problem,
                 const kf::CompileOptions &options,
                 llvm::json::Array &diagnosis, double &predictedSeconds,
                 double &globalBytes, kf::CompileStage *failedStage,
                 SmallVectorImpl<kf::CheatFinding> *rejections) {
  kf::LowerToPTXOptions lowering;
  setPipelineOptions(lowering, options);
  PassManager pm(payload.getContext());
  kf::buildLowerToPTXPipeline(pm, lowering, /*serialize=*/false);
  if (failed(pm.run(payload)))
    return failAt(kf::CompileStage::Lowering, failedStage);
  std::vector<kf::KernelAnalysis> analyses;
  for (Operation *kernel : kf::KernelAnalysis::findKernels(payload)) {
    const kf::KernelAnalysis &analysis = analyses.emplace_back(kernel);
    diagnosis.push_back(kf::toJSON(analysis, kf::diagnoseKernel(analysis)));
  }
  kf::CostPrediction cost = kf::predictCost(analyses, problem, kf::Ceilings());
  predictedSeconds = cost.seconds;
  globalBytes = 0;
  for (const kf::KernelCost &kernel : cost.kernels)
    globalBytes += kernel.bytes;
  kf::CheatCheckOptions cheatOptions;
  cheatOptions.numInputs = numInputs;
  SmallVector<kf::CheatFinding> cheats =
      kf::detectCheats(payload, cheatOptions);
  if (!cheats.empty()) {
    for (const kf::CheatFinding &finding : cheats)
      (finding.op ? finding.op : payload.getOperation())->emitError()
          << kf::formatRejection(finding);
    // The findings outlive `payload` (the caller erases it): they keep
    // their locations as text, and no pointer into it.
    if (rejections)
      for (kf::CheatFinding &finding : cheats) {
        finding.op = nullptr;
        rejections->push_back(std::move(finding));
      }
    return failAt(kf::CompileStage::CheatCheck, failedStage);
  }
  // Roles served the cheat checks; LLVM IR has no place for them.
  payload.walk([](LLVM::LLVMFuncOp func) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, "kf.role");
  });
  PassManager serialize(payload.getContext());
  kf::buildSerializePipeline(serialize, lowering);
  if (failed(serialize.run(payload)))
    return failAt(kf::CompileStage::Lowering, failedStage);
  return success();
}

/// The common tail of both kinds of candidate: lower `payload` (scheduled
/// or kernel IR) to PTX, diagnose its kernels, and read the launch plan.
static LogicalResult
finishCompile(OwningOpRef<ModuleOp> payload, func::FuncOp reference,
              const kf::CompileOptions &options, kf::CompiledCandidate &result,
              kf::CompileStage *failedStage,
              SmallVectorImpl<kf::CheatFinding> *rejections) {
  auto fail = [&](kf::CompileStage stage) {
    return failAt(stage, failedStage);
  };
  kf::ProblemAnalysis problem = kf::analyzeProblem(reference);
  if (failed(lowerAndDiagnose(*payload, reference.getNumArguments(), problem,
                              options, result.diagnosis,
                              result.predictedSeconds, result.globalBytes,
                              failedStage, rejections)))
    return failure();
  result.predictedBottleneck =
      kf::predictBottleneck(problem, kf::Ceilings(), result.diagnosis).kind;
  if (failed(checkLibDeviceResolved(*payload)))
    return fail(kf::CompileStage::Lowering);
  FailureOr<kf::LaunchPlan> plan = kf::buildLaunchPlan(*payload);
  if (failed(plan))
    return fail(kf::CompileStage::HostCode);
  result.plan = std::move(*plan);
  result.lowered = std::move(payload);
  return success();
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
                     const CompileOptions &options, CompileStage *failedStage,
                     SmallVectorImpl<CheatFinding> *rejections) {
  auto fail = [&](CompileStage stage) { return failAt(stage, failedStage); };
  FailureOr<ProblemOp> problemOp = lookupProblem(problem, problemName);
  if (failed(problemOp))
    return fail(CompileStage::Schedule);
  func::FuncOp reference = problemOp->getReferenceFunc();

  // Work on a module holding a copy of the reference only.
  MLIRContext *context = problem.getContext();
  OwningOpRef<ModuleOp> payload = ModuleOp::create(problem.getLoc());
  payload->getBody()->push_back(reference->clone());
  func::FuncOp payloadReference = *payload->getOps<func::FuncOp>().begin();

  if (options.widenAccumulators) {
    PassManager widen(context);
    widen.addNestedPass<func::FuncOp>(kf::createKFWidenAccumulators());
    if (failed(widen.run(*payload)))
      return fail(CompileStage::Schedule);
    payloadReference = *payload->getOps<func::FuncOp>().begin();
  }

  CompiledCandidate result;
  if (schedule) {
    result.schedule = schedule->str();
  } else {
    // The trusted reference (widened accumulators) is mapped naively: it
    // must not share the GEMM kernel generator with the candidates.
    FailureOr<Schedule> defaultSchedule = buildDefaultSchedule(
        payloadReference, options.widenAccumulators ? DefaultSchedule::Naive
                                                    : DefaultSchedule::Tuned);
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
  if (failed(finishCompile(std::move(payload), reference, options, result,
                           failedStage, rejections)))
    return failure();
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

FailureOr<kf::CompiledCandidate>
kf::compileKernelCandidate(ModuleOp problem, StringRef problemName,
                           ModuleOp kernel, const CompileOptions &options,
                           CompileStage *failedStage,
                           SmallVectorImpl<CheatFinding> *rejections) {
  FailureOr<ProblemOp> problemOp = lookupProblem(problem, problemName);
  if (failed(problemOp))
    return failAt(CompileStage::Schedule, failedStage);
  return compileKernelCandidate(problemOp->getReferenceFunc(), kernel, options,
                                failedStage, rejections);
}

FailureOr<kf::CompiledCandidate> kf::compileKernelCandidate(
    func::FuncOp reference, ModuleOp kernel, const CompileOptions &options,
    CompileStage *failedStage, SmallVectorImpl<CheatFinding> *rejections) {
  auto fail = [&](CompileStage stage) { return failAt(stage, failedStage); };
  SmallVector<func::FuncOp> hosts;
  for (auto function : kernel.getOps<func::FuncOp>())
    if (function.isPublic() && !function.isExternal())
      hosts.push_back(function);
  if (hosts.size() != 1) {
    emitError(kernel.getLoc())
        << "a kernel candidate needs exactly one public host function, found "
        << hosts.size();
    return fail(CompileStage::HostCode);
  }
  // The host function's signature is the problem's, on buffers.
  func::FuncOp host = hosts.front();
  SmallVector<Type> expected;
  for (Type type : llvm::concat<const Type>(reference.getArgumentTypes(),
                                            reference.getResultTypes())) {
    auto tensor = cast<RankedTensorType>(type);
    expected.push_back(
        MemRefType::get(tensor.getShape(), tensor.getElementType()));
  }
  if (host.getNumResults() != 0 ||
      !llvm::equal(host.getArgumentTypes(), expected)) {
    InFlightDiagnostic diag = host.emitError()
                              << "the host function must take the problem's "
                                 "inputs then outputs as memrefs (";
    llvm::interleaveComma(expected, diag);
    diag << ") and return nothing";
    return fail(CompileStage::HostCode);
  }

  CompiledCandidate result;
  if (failed(finishCompile(cast<ModuleOp>(kernel->clone()), reference, options,
                           result, failedStage, rejections)))
    return failure();
  return result;
}

FailureOr<kf::PlanModule>
kf::compileRuntimeKernels(MLIRContext *context, const CompileOptions &options) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      runtimeKernelsSource(), context, "<kf runtime kernels>");
  if (!module)
    return failure();
  PassManager pm(context);
  LowerToPTXOptions lowering;
  setPipelineOptions(lowering, options);
  buildDeviceLoweringPipeline(pm, lowering, /*barePointers=*/false);
  if (failed(pm.run(*module)) || failed(checkLibDeviceResolved(*module)))
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

std::vector<std::string>
kf::diagnosisTriggers(const CompiledCandidate &candidate) {
  std::set<std::string> triggers;
  if (!candidate.predictedBottleneck.empty())
    triggers.insert(candidate.predictedBottleneck);
  for (const llvm::json::Value &kernel : candidate.diagnosis) {
    const llvm::json::Object *object = kernel.getAsObject();
    const llvm::json::Array *findings =
        object ? object->getArray("findings") : nullptr;
    if (!findings)
      continue;
    for (const llvm::json::Value &finding : *findings)
      if (const llvm::json::Object *f = finding.getAsObject())
        if (std::optional<llvm::StringRef> kind = f->getString("kind"))
          triggers.insert(kind->str());
  }
  return {triggers.begin(), triggers.end()};
}
