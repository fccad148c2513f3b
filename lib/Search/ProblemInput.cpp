//===- ProblemInput.cpp - A problem and its candidates, read and compiled -===//

#include "kf/Search/ProblemInput.h"

#include "kf/Support/Redaction.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir;

namespace kf {

int reportError(const Twine &message) {
  WithColor::error(errs(), "kf-evolve") << redactSecrets(message.str()) << "\n";
  return 1;
}

/// A problem from the launch plan (no problem file): its inputs, outputs
/// and tolerance; named by the plan or after the first CUDA source.
static std::optional<LoadedProblem>
loadPlanProblem(MLIRContext &context, const ProblemInputOptions &options) {
  Expected<CudaLaunchSpec> plan =
      loadLaunchPlan(options, "a CUDA kernel with no problem file");
  if (!plan) {
    reportError(toString(plan.takeError()));
    return std::nullopt;
  }
  if (!plan->problem) {
    reportError(options.launchPlanPath +
                ": no problem file was given and the plan has no "
                "\"problem\" section: give the problem the kernel "
                "solves (--problem p.mlir, or the problem file of "
                "compile and eval), or describe its inputs, outputs "
                "and tolerance in the plan, making the kernel as "
                "written the reference (docs/cuda-input.md)");
    return std::nullopt;
  }
  LoadedProblem loaded;
  loaded.spec = *plan->problem;
  if (loaded.spec.name.empty()) {
    std::string stem = options.cudaPaths.empty()
                           ? std::string("problem")
                           : sys::path::stem(options.cudaPaths.front()).str();
    for (char &c : stem)
      if (!isAlnum(c) && c != '_')
        c = '_';
    loaded.spec.name = stem;
  }
  Expected<OwningOpRef<ModuleOp>> module =
      buildProblemSignature(&context, loaded.spec);
  if (!module) {
    reportError(options.launchPlanPath + ": " + toString(module.takeError()));
    return std::nullopt;
  }
  loaded.module = std::move(*module);
  loaded.reference = *loaded.module->getOps<func::FuncOp>().begin();
  return loaded;
}

std::optional<LoadedProblem> loadProblem(MLIRContext &context,
                                         SourceMgr &sourceMgr,
                                         const ProblemInputOptions &options) {
  if (options.problemPath.empty())
    return loadPlanProblem(context, options);
  std::string error;
  auto file = openInputFile(options.problemPath, &error);
  if (!file) {
    reportError(error);
    return std::nullopt;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  LoadedProblem loaded;
  loaded.module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!loaded.module)
    return std::nullopt;
  FailureOr<ProblemOp> problem =
      lookupProblem(*loaded.module, options.problemName);
  if (failed(problem))
    return std::nullopt;
  loaded.problem = *problem;
  loaded.reference = problem->getReferenceFunc();
  loaded.spec = buildProblemSpec(*problem);
  // A plan that also describes the problem: the problem file wins, and the
  // user is told that the plan's inputs and tolerance are not used.
  if (!options.launchPlanPath.empty()) {
    Expected<CudaLaunchSpec> plan =
        loadLaunchPlan(options, "a --cuda candidate");
    if (!plan)
      consumeError(plan.takeError()); // reported where the plan is used
    else if (plan->problem)
      WithColor::warning(errs(), "kf-evolve")
          << options.launchPlanPath << ": the plan's \"problem\" section is "
          << "ignored: " << options.problemPath
          << " is the problem (its reference, inputs and tolerance)\n";
  }
  return loaded;
}

Expected<CudaLaunchSpec> loadLaunchPlan(const ProblemInputOptions &options,
                                        StringRef user) {
  if (options.launchPlanPath.empty())
    return createStringError(user + " needs --launch plan.json: the "
                                    "launches that bind the CUDA kernels to "
                                    "the problem (docs/cuda-input.md)");
  std::string error;
  auto file = openInputFile(options.launchPlanPath, &error);
  if (!file)
    return createStringError(error);
  return parseCudaLaunchSpec(file->getBuffer(), options.launchPlanPath);
}

CompileOptions compileOptions(const ProblemInputOptions &options) {
  CompileOptions compile;
  compile.chip = options.chip;
  compile.format = options.format;
  return compile;
}

CudaImportOptions candidateImportOptions(const ProblemInputOptions &options) {
  CudaImportOptions import;
  import.chip = options.chip;
  import.untrusted = true;
  import.cacheDir = !options.cudaCacheDir.empty()
                        ? options.cudaCacheDir
                        : sys::Process::GetEnv("KF_CUDA_CACHE").value_or("");
  return import;
}

CudaExpertSetup cudaSetup(MLIRContext &context,
                          const ProblemInputOptions &options,
                          const ProblemSpec &spec, StringRef cudaPath,
                          const CudaLaunchSpec &plan) {
  CudaExpertSetup setup;
  setup.context = &context;
  setup.sourcePath = cudaPath.str();
  setup.plan = plan;
  setup.spec = spec;
  setup.importOptions = candidateImportOptions(options);
  setup.seed = options.seed;
  return setup;
}

Expected<std::string> cudaCandidateText(const ProblemInputOptions &options,
                                        const LoadedProblem &problem,
                                        StringRef cudaPath,
                                        const CudaTuning &tuning) {
  Expected<CudaLaunchSpec> plan = loadLaunchPlan(options, "a --cuda candidate");
  if (!plan)
    return plan.takeError();
  return renderCudaCandidate(cudaSetup(*problem.module.get()->getContext(),
                                       options, problem.spec, cudaPath, *plan),
                             tuning);
}

FailureOr<CompiledCandidate>
compileText(const ProblemInputOptions &options, const LoadedProblem &problem,
            CandidateKind kind, StringRef text, StringRef bufferName,
            CompileStage &stage, SmallVectorImpl<CheatFinding> *rejections) {
  MLIRContext &context = *problem.module.get()->getContext();
  if (kind == CandidateKind::Schedule) {
    if (problem.selfReferenced()) {
      emitError(UnknownLoc::get(&context))
          << "a schedule transforms the problem's reference function, and "
             "this problem has none (the CUDA kernel as written is its "
             "reference): give a kernel candidate, or a problem file";
      stage = CompileStage::Schedule;
      return failure();
    }
    return compileCandidate(problem.module.get(), options.problemName, text,
                            compileOptions(options), &stage, rejections);
  }
  SourceMgr kernelSource;
  kernelSource.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(text, bufferName), SMLoc());
  OwningOpRef<ModuleOp> kernel =
      parseSourceFile<ModuleOp>(kernelSource, ParserConfig(&context));
  if (!kernel) {
    stage = CompileStage::HostCode;
    return failure();
  }
  return compileKernelCandidate(problem.reference, *kernel,
                                compileOptions(options), &stage, rejections);
}

FailureOr<CompiledCandidate>
compileReference(const ProblemInputOptions &options,
                 const LoadedProblem &problem) {
  CompileStage stage;
  if (problem.selfReferenced()) {
    // No problem file: the first CUDA source as written (the plan's
    // parameter values, no launch bounds, no register cap) is the
    // reference.
    const std::string &source = options.cudaPaths.front();
    Expected<std::string> text =
        cudaCandidateText(options, problem, source, CudaTuning());
    if (!text) {
      reportError("the CUDA kernel as written (the reference): " +
                  toString(text.takeError()));
      return failure();
    }
    FailureOr<CompiledCandidate> reference = compileText(
        options, problem, CandidateKind::Kernel, *text, source, stage);
    if (failed(reference))
      reportError("the CUDA kernel as written (the reference) does not "
                  "compile (" +
                  stringifyCompileStage(stage) + " stage)");
    return reference;
  }
  CompileOptions compile = compileOptions(options);
  compile.widenAccumulators = true;
  FailureOr<CompiledCandidate> reference = compileCandidate(
      problem.module.get(), options.problemName, std::nullopt, compile, &stage);
  if (failed(reference))
    reportError("the reference does not compile (" +
                stringifyCompileStage(stage) + " stage)");
  return reference;
}

std::string printModule(ModuleOp module) {
  std::string text;
  raw_string_ostream os(text);
  module.print(os);
  return text;
}

std::vector<std::string> measurementWorkerCommand(StringRef executable,
                                                  StringRef chip) {
  return {executable.str(), "worker", ("--chip=" + chip).str()};
}

} // namespace kf
