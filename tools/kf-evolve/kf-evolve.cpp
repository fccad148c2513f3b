//===- kf-evolve.cpp - Kernel Foundry's search and evaluation tool --------===//
//
// Subcommands:
//   kf-evolve compile PROBLEM [--schedule S] [-o FILE] [--emit ...]
//   kf-evolve eval PROBLEM [--schedule S] [...]     (needs a CUDA GPU)
//   kf-evolve worker                                (internal: GPU process)
// Argument parsing and output only; the work lives in lib/.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/Bottleneck.h"
#include "kf/Analysis/ProblemAnalysis.h"
#include "kf/Dialect/KF/KFOps.h"
#include "kf/InitAll.h"
#include "kf/Pipelines/Compiler.h"
#include "kf/Pipelines/CpuReference.h"
#include "kf/Runtime/Evaluator.h"
#include "kf/Runtime/ProblemSpec.h"
#include "kf/Runtime/Worker.h"
#include "kf/Search/Search.h"
#include "kf/Transforms/Schedules.h"
#include "kf/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir;

static cl::SubCommand
    compileCommand("compile", "Compile a problem with a schedule to PTX");
static cl::SubCommand
    evalCommand("eval",
                "Evaluate one candidate on the GPU and print a JSON result");
static cl::SubCommand checkReferenceCommand(
    "check-reference",
    "Cross-check the GPU reference (default schedule) against the reference "
    "run on the CPU with MLIR's ExecutionEngine, on the same inputs");
static cl::SubCommand
    workerCommand("worker", "Internal: the isolated GPU measurement process");
static cl::SubCommand searchCommand(
    "search", "Search for a faster verified schedule: islands of rule-based "
              "experts, evaluated on the GPU (or, without one, ranked by the "
              "static cost model)");

static cl::OptionCategory category("kf-evolve options");

static cl::opt<std::string>
    problemPath(cl::Positional, cl::desc("<problem.mlir>"),
                cl::sub(compileCommand), cl::sub(evalCommand),
                cl::sub(searchCommand), cl::sub(checkReferenceCommand),
                cl::cat(category));
static cl::list<std::string> schedulePaths(
    "schedule",
    cl::desc("A candidate given as a transform script (default: kf's default "
             "schedule); eval takes several, in order"),
    cl::value_desc("file"), cl::sub(compileCommand), cl::sub(evalCommand),
    cl::sub(searchCommand), cl::cat(category));
static cl::list<std::string> kernelPaths(
    "kernel",
    cl::desc("A candidate given as kernel IR: a module whose host function "
             "takes the inputs then outputs as memrefs and launches kernels"),
    cl::value_desc("file"), cl::sub(compileCommand), cl::sub(evalCommand),
    cl::cat(category));
static cl::opt<std::string>
    problemName("problem-name",
                cl::desc("Which kf.problem to use when the "
                         "file holds several"),
                cl::sub(compileCommand), cl::sub(evalCommand),
                cl::sub(searchCommand), cl::sub(checkReferenceCommand),
                cl::cat(category));
static cl::opt<std::string> chip("chip", cl::desc("Target GPU"),
                                 cl::init("sm_90"), cl::sub(compileCommand),
                                 cl::sub(evalCommand), cl::sub(searchCommand),
                                 cl::sub(workerCommand),
                                 cl::sub(checkReferenceCommand),
                                 cl::cat(category));
static cl::opt<std::string>
    binaryFormat("format", cl::desc("isa (PTX) or bin (cubin, needs ptxas)"),
                 cl::init("isa"), cl::sub(compileCommand), cl::sub(evalCommand),
                 cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string>
    outputPath("o", cl::desc("Output file"), cl::value_desc("file"),
               cl::init("-"), cl::sub(compileCommand), cl::sub(evalCommand),
               cl::sub(searchCommand), cl::cat(category));
enum class EmitKind { PTX, Lowered, Schedule, Plan, Diagnosis };
static cl::opt<EmitKind> emit(
    "emit", cl::desc("What compile writes"), cl::init(EmitKind::PTX),
    cl::values(clEnumValN(EmitKind::PTX, "ptx", "the kernels' PTX (or cubin)"),
               clEnumValN(EmitKind::Lowered, "lowered",
                          "the lowered module (host launch code + binaries)"),
               clEnumValN(EmitKind::Schedule, "schedule",
                          "the transform script that was applied"),
               clEnumValN(EmitKind::Plan, "plan", "the launch plan as JSON"),
               clEnumValN(EmitKind::Diagnosis, "diagnosis",
                          "the kernels' diagnosis and the predicted "
                          "bottleneck as JSON (docs/diagnosis.md)")),
    cl::sub(compileCommand), cl::cat(category));

static cl::opt<unsigned> trials("trials",
                                cl::desc("Correctness trials on fresh inputs"),
                                cl::init(3), cl::sub(evalCommand),
                                cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> maxRuns("runs", cl::desc("Most timed runs"),
                                 cl::init(50), cl::sub(evalCommand),
                                 cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> minRuns("min-runs", cl::desc("Fewest timed runs"),
                                 cl::init(5), cl::sub(evalCommand),
                                 cl::sub(searchCommand), cl::cat(category));
static cl::opt<double>
    timeBudgetMs("time-budget-ms",
                 cl::desc("GPU time spent on timed runs per kernel"),
                 cl::init(1000), cl::sub(evalCommand), cl::sub(searchCommand),
                 cl::cat(category));
static cl::opt<unsigned> seed("seed",
                              cl::desc("Seed of the input generator and of "
                                       "the search"),
                              cl::init(1), cl::sub(evalCommand),
                              cl::sub(searchCommand),
                              cl::sub(checkReferenceCommand),
                              cl::cat(category));
static cl::opt<int> device("device", cl::desc("CUDA device ordinal"),
                           cl::init(0), cl::sub(evalCommand),
                           cl::sub(searchCommand),
                           cl::sub(checkReferenceCommand), cl::cat(category));
static cl::opt<double>
    timeoutSeconds("timeout",
                   cl::desc("Seconds before an evaluation counts as hung"),
                   cl::init(120), cl::sub(evalCommand), cl::sub(searchCommand),
                   cl::sub(checkReferenceCommand), cl::cat(category));
static cl::opt<bool> timeReference(
    "time-reference",
    cl::desc("Also time the reference (default schedule) for the speedup"),
    cl::init(true), cl::sub(evalCommand), cl::cat(category));
static cl::opt<bool> negatedTrial(
    "negated-trial",
    cl::desc("Draw the second correctness trial's inputs from the negated "
             "distributions"),
    cl::init(true), cl::sub(evalCommand), cl::sub(searchCommand),
    cl::cat(category));
static cl::opt<bool> heavyTailedTrial(
    "heavy-tailed-trial",
    cl::desc("Give the third correctness trial's float inputs heavy tails "
             "(one element in 64 multiplied by 8)"),
    cl::init(true), cl::sub(evalCommand), cl::sub(searchCommand),
    cl::cat(category));
static cl::opt<bool> checkProblem(
    "check-problem",
    cl::desc("Reject a degenerate problem: one that a trivial kernel (zeros, "
             "a constant, a copy of an input) passes"),
    cl::init(true), cl::sub(evalCommand), cl::sub(searchCommand),
    cl::cat(category));
static cl::opt<bool> timeIncorrect(
    "time-incorrect",
    cl::desc("Time candidates even when their results are wrong (they stay "
             "incorrect): to measure what limits them"),
    cl::init(false), cl::sub(evalCommand), cl::cat(category));
static cl::opt<bool> resumeSearch(
    "resume",
    cl::desc("Continue the search recorded in the output directory: recorded "
             "candidates are replayed from candidates.jsonl, not evaluated "
             "again, so a killed run resumed with the same seed and budget "
             "reaches the same result"),
    cl::init(false), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned>
    budgetEvals("budget-evals", cl::desc("Candidates to compile and evaluate"),
                cl::init(40), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> islandCount("islands",
                                     cl::desc("Islands of the search"),
                                     cl::init(4), cl::sub(searchCommand),
                                     cl::cat(category));
static cl::opt<double> targetSpeedup(
    "target-speedup",
    cl::desc("Stop once the best is this many times faster than the default "
             "schedule (0: use the whole budget)"),
    cl::init(0), cl::sub(searchCommand), cl::cat(category));
enum class EvaluatorKind { Auto, Gpu, CostModel };
static cl::opt<EvaluatorKind> evaluatorKind(
    "evaluator", cl::desc("How candidates are evaluated"),
    cl::values(clEnumValN(EvaluatorKind::Auto, "auto",
                          "the GPU when a CUDA device answers, else the cost "
                          "model"),
               clEnumValN(EvaluatorKind::Gpu, "gpu", "the GPU only"),
               clEnumValN(EvaluatorKind::CostModel, "cost-model",
                          "the static cost model (predictions)")),
    cl::init(EvaluatorKind::Auto), cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string>
    outputDir("output",
              cl::desc("Directory for the best kernel and result.json"),
              cl::init("kf-out"), cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string>
    ceilingsPath("ceilings",
                 cl::desc("Measured ceilings (JSON); default: H200"),
                 cl::value_desc("file"), cl::sub(evalCommand),
                 cl::sub(searchCommand), cl::cat(category));

namespace {

/// Reports an error the way the MLIR tools do and returns 1.
int fail(const Twine &message) {
  WithColor::error(errs(), "kf-evolve") << message << "\n";
  return 1;
}

struct LoadedProblem {
  OwningOpRef<ModuleOp> module;
  kf::ProblemOp problem;
};

/// Parses and verifies the problem file; diagnostics are printed with their
/// locations by the source manager handler.
std::optional<LoadedProblem> loadProblem(MLIRContext &context,
                                         SourceMgr &sourceMgr) {
  std::string error;
  auto file = openInputFile(problemPath, &error);
  if (!file) {
    fail(error);
    return std::nullopt;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  LoadedProblem loaded;
  loaded.module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!loaded.module)
    return std::nullopt;
  FailureOr<kf::ProblemOp> problem =
      kf::lookupProblem(*loaded.module, problemName);
  if (failed(problem))
    return std::nullopt;
  loaded.problem = *problem;
  return loaded;
}

kf::CompileOptions compileOptions();

/// One candidate of the command line: a schedule, a kernel module, or the
/// default schedule.
struct CandidateSource {
  enum class Kind { Default, Schedule, Kernel };
  Kind kind = Kind::Default;
  std::string path;
  std::string label() const {
    return kind == Kind::Default ? std::string("default schedule") : path;
  }
};

/// The candidates in command-line order; the default schedule when none.
std::vector<CandidateSource> candidateSources() {
  std::vector<std::pair<unsigned, CandidateSource>> ordered;
  for (unsigned i = 0; i < schedulePaths.size(); ++i)
    ordered.push_back({schedulePaths.getPosition(i),
                       {CandidateSource::Kind::Schedule, schedulePaths[i]}});
  for (unsigned i = 0; i < kernelPaths.size(); ++i)
    ordered.push_back({kernelPaths.getPosition(i),
                       {CandidateSource::Kind::Kernel, kernelPaths[i]}});
  llvm::sort(ordered,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<CandidateSource> sources;
  for (auto &entry : ordered)
    sources.push_back(entry.second);
  if (sources.empty())
    sources.push_back(CandidateSource());
  return sources;
}

/// Compiles one candidate; diagnostics go to the source manager handler.
FailureOr<kf::CompiledCandidate>
compileSource(MLIRContext &context, SourceMgr &sourceMgr, ModuleOp problem,
              const CandidateSource &source, kf::CompileStage &stage,
              SmallVectorImpl<kf::CheatFinding> *rejections = nullptr) {
  kf::CompileOptions options = compileOptions();
  if (source.kind == CandidateSource::Kind::Default)
    return kf::compileCandidate(problem, problemName, std::nullopt, options,
                                &stage, rejections);
  std::string error;
  auto file = openInputFile(source.path, &error);
  if (!file) {
    emitError(UnknownLoc::get(&context)) << error;
    stage = kf::CompileStage::Schedule;
    return failure();
  }
  if (source.kind == CandidateSource::Kind::Schedule) {
    std::string text = file->getBuffer().str();
    return kf::compileCandidate(problem, problemName, StringRef(text), options,
                                &stage, rejections);
  }
  OwningOpRef<ModuleOp> kernel =
      parseSourceFile<ModuleOp>(source.path, ParserConfig(&context));
  if (!kernel) {
    stage = kf::CompileStage::HostCode;
    return failure();
  }
  return kf::compileKernelCandidate(problem, problemName, *kernel, options,
                                    &stage, rejections);
}

kf::CompileOptions compileOptions() {
  kf::CompileOptions options;
  options.chip = chip;
  options.format = binaryFormat;
  return options;
}

std::string printModule(ModuleOp module) {
  std::string text;
  raw_string_ostream os(text);
  module.print(os);
  return text;
}

int writeOutput(StringRef text) {
  std::string error;
  auto output = openOutputFile(outputPath, &error);
  if (!output)
    return fail(error);
  output->os() << text;
  output->keep();
  return 0;
}

/// The trusted reference: the reference function, its reductions
/// accumulating in f64, under the default schedule. Reports a failure
/// itself.
FailureOr<kf::CompiledCandidate> compileReference(LoadedProblem &loaded) {
  kf::CompileStage stage;
  kf::CompileOptions options = compileOptions();
  options.widenAccumulators = true;
  FailureOr<kf::CompiledCandidate> reference = kf::compileCandidate(
      *loaded.module, problemName, std::nullopt, options, &stage);
  if (failed(reference))
    fail("the reference does not compile (" + kf::stringifyCompileStage(stage) +
         " stage)");
  return reference;
}

/// The evaluation settings of the command line (eval and search).
kf::EvalConfig evalConfigFromFlags() {
  kf::EvalConfig config;
  config.device = device;
  config.trials = trials;
  config.seed = seed;
  config.minTimedRuns = minRuns;
  config.maxTimedRuns = std::max<unsigned>(maxRuns, minRuns);
  config.timeBudgetMs = timeBudgetMs;
  config.timeReference = timeReference;
  config.negatedTrial = negatedTrial;
  config.heavyTailedTrial = heavyTailedTrial;
  config.checkProblem = checkProblem;
  config.timeIncorrect = timeIncorrect;
  return config;
}

/// A client for a measurement worker run by this same executable.
kf::WorkerClient makeWorker(const char *argv0) {
  std::string executable =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&fail));
  return kf::WorkerClient({executable, "worker", "--chip=" + chip});
}

int runCompile(MLIRContext &context) {
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  std::vector<CandidateSource> sources = candidateSources();
  if (sources.size() != 1)
    return fail("compile takes one candidate (one --schedule or --kernel)");
  kf::CompileStage stage;
  FailureOr<kf::CompiledCandidate> compiled = compileSource(
      context, sourceMgr, *loaded->module, sources.front(), stage);
  if (failed(compiled))
    return fail("compilation failed at the " +
                kf::stringifyCompileStage(stage) + " stage");
  switch (emit) {
  case EmitKind::PTX:
    return writeOutput(kf::collectKernelImages(*compiled->lowered));
  case EmitKind::Lowered:
    return writeOutput(printModule(*compiled->lowered));
  case EmitKind::Schedule:
    return writeOutput(compiled->schedule);
  case EmitKind::Plan: {
    std::string text;
    raw_string_ostream os(text);
    os << formatv("{0:2}", json::Value(kf::toJSON(compiled->plan))) << "\n";
    return writeOutput(text);
  }
  case EmitKind::Diagnosis: {
    kf::Ceilings ceilings;
    kf::ProblemAnalysis analysis =
        kf::analyzeProblem(loaded->problem.getReferenceFunc(), ceilings);
    kf::Bottleneck predicted =
        kf::predictBottleneck(analysis, ceilings, compiled->diagnosis);
    std::string text;
    raw_string_ostream os(text);
    os << formatv("{0:2}",
                  json::Value(json::Object{
                      {"version", 1},
                      {"problem", kf::toJSON(analysis, ceilings)},
                      {"kernels", json::Array(compiled->diagnosis)},
                      {"predicted_ms", compiled->predictedSeconds * 1e3},
                      {"bottleneck",
                       json::Object{{"predicted", predicted.kind},
                                    {"predicted_because", predicted.reason}}}}))
       << "\n";
    return writeOutput(text);
  }
  }
  return 0;
}

int runEval(MLIRContext &context, const char *argv0) {
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  kf::Ceilings ceilings;
  if (!ceilingsPath.empty()) {
    Expected<kf::Ceilings> loadedCeilings = kf::Ceilings::load(ceilingsPath);
    if (!loadedCeilings)
      return fail(toString(loadedCeilings.takeError()));
    ceilings = *loadedCeilings;
  }

  FailureOr<kf::CompiledCandidate> reference = compileReference(*loaded);
  if (failed(reference))
    return 1;
  std::string referenceText = printModule(*reference->lowered);
  kf::ProblemAnalysis analysis =
      kf::analyzeProblem(loaded->problem.getReferenceFunc(), ceilings);
  kf::ProblemSpec spec = kf::buildProblemSpec(loaded->problem);

  kf::WorkerClient worker = makeWorker(argv0);
  kf::CompileStage stage;
  kf::EvalConfig config = evalConfigFromFlags();

  json::Array results;
  bool allCorrect = true, noDevice = false;
  for (const CandidateSource &source : candidateSources()) {
    json::Object output{{"problem", loaded->problem.getSymName()},
                        {"candidate", source.label()},
                        {"analysis", kf::toJSON(analysis, ceilings)}};
    SmallVector<kf::CheatFinding> rejections;
    FailureOr<kf::CompiledCandidate> candidate = compileSource(
        context, sourceMgr, *loaded->module, source, stage, &rejections);
    if (failed(candidate) && !rejections.empty()) {
      // Static cheat checks: one readable line per reason.
      output["status"] = "rejected";
      output["category"] = "cheating";
      output["message"] = kf::formatRejection(rejections.front());
      json::Array reasons;
      for (const kf::CheatFinding &finding : rejections)
        reasons.push_back(kf::toJSON(finding));
      output["rejections"] = std::move(reasons);
      results.push_back(std::move(output));
      allCorrect = false;
      continue;
    }
    if (failed(candidate)) {
      output["status"] = "compile-error";
      output["category"] = kf::stringifyCompileStage(stage);
      output["message"] =
          ("the candidate failed at the " + kf::stringifyCompileStage(stage) +
           " stage; the diagnostics are on stderr")
              .str();
      results.push_back(std::move(output));
      allCorrect = false;
      continue;
    }
    kf::EvalResult result = worker.evaluate(
        spec, referenceText, printModule(*candidate->lowered), config,
        std::chrono::milliseconds((int64_t)(timeoutSeconds * 1000)));
    json::Value resultJSON = kf::toJSON(result);
    for (auto &entry : *resultJSON.getAsObject())
      output[entry.first] = entry.second;
    kf::Bottleneck predicted =
        kf::predictBottleneck(analysis, ceilings, candidate->diagnosis);
    json::Object bottleneck{{"predicted", predicted.kind},
                            {"predicted_because", predicted.reason}};
    if (result.candidateTime && result.candidateTime->medianMs > 0) {
      kf::Bottleneck measured = kf::classifyMeasurement(
          analysis, ceilings, result.candidateTime->medianMs,
          candidate->plan.numLaunches());
      bottleneck["measured"] = measured.kind;
      bottleneck["measured_because"] = measured.reason;
    }
    output["bottleneck"] = std::move(bottleneck);
    output["diagnosis"] = json::Array(candidate->diagnosis);
    output["predicted_ms"] = candidate->predictedSeconds * 1e3;
    if (result.candidateTime && result.candidateTime->medianMs > 0) {
      double seconds = result.candidateTime->medianMs / 1e3;
      // Bytes the computation as written must move (floor_bytes), per
      // second: comparable with the copy bandwidth.
      output["achieved_gb_per_s"] = analysis.floorBytes / seconds / 1e9;
      output["achieved_tflop_per_s"] = analysis.flops / seconds / 1e12;
      output["fraction_of_floor"] = analysis.floorSeconds(ceilings) / seconds;
      if (result.referenceTime && result.referenceTime->medianMs > 0)
        output["speedup_over_default"] =
            result.referenceTime->medianMs / result.candidateTime->medianMs;
    }
    output["worker_starts"] = worker.starts();
    results.push_back(std::move(output));
    allCorrect &= result.status == kf::EvalStatus::Correct;
    if (result.status == kf::EvalStatus::NoDevice) {
      WithColor::error(errs(), "kf-evolve")
          << "no usable CUDA GPU: " << result.message << "\n";
      noDevice = true;
      break;
    }
  }
  if (results.size() == 1)
    outs() << formatv("{0:2}", json::Value(std::move(results[0]))) << "\n";
  else
    outs() << formatv("{0:2}", json::Value(std::move(results))) << "\n";
  if (noDevice)
    return 3;
  return allCorrect ? 0 : 2;
}

int runCheckReference(MLIRContext &context, const char *argv0) {
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  FailureOr<kf::CompiledCandidate> reference = compileReference(*loaded);
  if (failed(reference))
    return 1;
  kf::ProblemSpec spec = kf::buildProblemSpec(loaded->problem);
  kf::WorkerClient worker = makeWorker(argv0);
  kf::EvalConfig config;
  config.device = device;
  config.seed = seed;
  Expected<kf::PlanIO> gpu = worker.runForIO(
      spec, printModule(*reference->lowered), config,
      /*maxBytes=*/int64_t(1) << 28,
      std::chrono::milliseconds((int64_t)(timeoutSeconds * 1000)));
  if (!gpu)
    return fail("the GPU reference did not run: " + toString(gpu.takeError()));
  Expected<std::vector<std::string>> cpu =
      kf::runReferenceOnCPU(loaded->problem, gpu->inputs);
  if (!cpu)
    return fail("the CPU reference did not run: " + toString(cpu.takeError()));

  json::Array outputs;
  bool agree = true;
  for (auto [index, output] : llvm::enumerate(spec.outputs)) {
    kf::OutputErrors errors = kf::compareOnHost(
        output, gpu->outputs[index], (*cpu)[index], spec.atol, spec.rtol);
    agree &= errors.mismatches == 0;
    outputs.push_back(json::Object{{"output", (int64_t)index},
                                   {"elements", errors.elements},
                                   {"mismatches", errors.mismatches},
                                   {"first_mismatch", errors.firstMismatch},
                                   {"max_abs_error", errors.maxAbsError},
                                   {"max_rel_error", errors.maxRelError}});
  }
  outs() << formatv("{0:2}", json::Value(json::Object{
                                 {"problem", loaded->problem.getSymName()},
                                 {"status", agree ? "agree" : "disagree"},
                                 {"seed", (int64_t)seed},
                                 {"outputs", std::move(outputs)}}))
         << "\n";
  return agree ? 0 : 2;
}

int runWorkerCommand(MLIRContext &context) {
  return kf::runWorker(context, [&]() -> Expected<kf::PlanModule> {
    kf::CompileOptions options;
    options.chip = chip;
    std::string errors;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      errors += diag.str() + "\n";
      return success();
    });
    FailureOr<kf::PlanModule> kernels =
        kf::compileRuntimeKernels(&context, options);
    if (failed(kernels))
      return createStringError(inconvertibleErrorCode(), errors);
    return *kernels;
  });
}

/// kf-evolve search: the evolutionary loop (lib/Search) with a GPU or
/// cost-model evaluator; writes the best schedule, its PTX and result.json.
int runSearchCommand(MLIRContext &context, const char *argv0) {
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  func::FuncOp reference = loaded->problem.getReferenceFunc();
  FailureOr<SmallVector<kf::OpShape>> shapes = kf::describeOps(reference);
  FailureOr<kf::Schedule> defaultSchedule = kf::buildDefaultSchedule(reference);
  if (failed(shapes) || failed(defaultSchedule))
    return 1;

  // Candidates' own diagnostics (a tile that does not divide, a schedule
  // the transform rejects) are outcomes of the search, not errors of the
  // command: keep the first line of each as the candidate's reason.
  std::string lastError;
  auto quiet = [&](auto &&body) {
    ScopedDiagnosticHandler swallow(&context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
          lastError.empty())
        lastError = diagnostic.str();
      return success();
    });
    return body();
  };

  kf::RenderFn render =
      [&](const kf::Schedule &genome) -> std::optional<std::string> {
    FailureOr<std::string> text =
        quiet([&] { return kf::renderSchedule(reference, genome); });
    if (failed(text))
      return std::nullopt;
    return *text;
  };

  // The GPU: the reference and a worker, as in eval.
  bool useGpu = evaluatorKind != EvaluatorKind::CostModel;
  std::optional<kf::WorkerClient> worker;
  std::string referenceText;
  kf::ProblemSpec spec = kf::buildProblemSpec(loaded->problem);
  kf::EvalConfig config = evalConfigFromFlags();
  config.timeReference = false; // the default is a candidate like the others
  config.timeIncorrect = false;
  if (useGpu) {
    FailureOr<kf::CompiledCandidate> compiledReference =
        compileReference(*loaded);
    if (failed(compiledReference))
      return 1;
    referenceText = printModule(*compiledReference->lowered);
    worker.emplace(makeWorker(argv0));
  }

  // Records: one JSON line per evaluated candidate, flushed as it completes
  // (a line cut by a kill is ignored on resume). Resuming replays them.
  if (std::error_code error = sys::fs::create_directories(outputDir))
    return fail("cannot create " + outputDir + ": " + error.message());
  SmallString<256> recordsPath(outputDir);
  sys::path::append(recordsPath, "candidates.jsonl");
  StringMap<kf::Outcome> recorded;
  std::string recordedEvaluator;
  // A kill may have cut the last line: the next record starts a new one.
  bool cutLine = false;
  if (resumeSearch) {
    auto file = MemoryBuffer::getFile(recordsPath);
    if (!file)
      return fail("--resume: cannot read " + recordsPath.str().str() + ": " +
                  file.getError().message());
    cutLine =
        !(*file)->getBuffer().empty() && !(*file)->getBuffer().ends_with("\n");
    SmallVector<StringRef> lines;
    (*file)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
    unsigned unreadable = 0;
    for (StringRef line : lines) {
      Expected<json::Value> value = json::parse(line);
      const json::Object *object = value ? value->getAsObject() : nullptr;
      std::optional<StringRef> script =
          object ? object->getString("script") : std::nullopt;
      std::optional<StringRef> status =
          object ? object->getString("status") : std::nullopt;
      std::optional<double> seconds =
          object ? object->getNumber("seconds") : std::nullopt;
      if (!value)
        consumeError(value.takeError());
      if (!script || !status || !seconds) {
        ++unreadable;
        continue;
      }
      recorded[*script] = {status->str(), *seconds};
      if (std::optional<StringRef> evaluator = object->getString("evaluator"))
        recordedEvaluator = evaluator->str();
    }
    errs() << "kf-evolve: resuming: " << recorded.size()
           << " recorded candidates";
    if (unreadable)
      errs() << " (" << unreadable << " unreadable line(s) ignored)";
    errs() << "\n";
  }
  std::error_code recordError;
  raw_fd_ostream records(recordsPath, recordError,
                         resumeSearch ? sys::fs::OF_Append : sys::fs::OF_None);
  if (recordError)
    return fail("cannot write " + recordsPath.str().str() + ": " +
                recordError.message());
  if (cutLine)
    records << "\n";

  std::string evaluatorName = recordedEvaluator;
  std::function<kf::Outcome(const std::string &)> measure;
  kf::EvaluateFn evaluate = [&](const std::string &script) -> kf::Outcome {
    if (auto it = recorded.find(script); it != recorded.end())
      return it->second;
    kf::Outcome outcome = measure(script);
    records << json::Value(json::Object{{"script", script},
                                        {"status", outcome.status},
                                        {"seconds", outcome.seconds},
                                        {"evaluator", evaluatorName}})
            << "\n";
    records.flush();
    return outcome;
  };
  measure = [&](const std::string &script) -> kf::Outcome {
    lastError.clear();
    kf::CompileStage stage;
    SmallVector<kf::CheatFinding> rejections;
    FailureOr<kf::CompiledCandidate> compiled = quiet([&] {
      return kf::compileCandidate(*loaded->module, problemName,
                                  StringRef(script), compileOptions(), &stage,
                                  &rejections);
    });
    if (failed(compiled))
      return {rejections.empty()
                  ? ("compile-error:" + kf::stringifyCompileStage(stage)).str()
                  : "rejected",
              0};
    if (useGpu) {
      kf::EvalResult result = worker->evaluate(
          spec, referenceText, printModule(*compiled->lowered), config,
          std::chrono::milliseconds((int64_t)(timeoutSeconds * 1000)));
      if (result.status == kf::EvalStatus::NoDevice &&
          evaluatorKind == EvaluatorKind::Auto) {
        // No GPU answers: rank by the cost model from here on.
        errs() << "kf-evolve: warning: no CUDA device (" << result.message
               << "); ranking candidates with the static cost model: the "
                  "times are predictions, not measurements\n";
        useGpu = false;
      } else {
        if (result.status != kf::EvalStatus::Correct || !result.candidateTime)
          return {kf::stringifyEvalStatus(result.status).str(), 0};
        evaluatorName = "gpu (" + result.deviceName + ")";
        return {"correct", result.candidateTime->medianMs / 1e3};
      }
    }
    evaluatorName = "cost-model (predictions)";
    return {"correct", compiled->predictedSeconds};
  };

  kf::SearchOptions options;
  options.seed = seed;
  options.islands = islandCount;
  options.budgetEvals = budgetEvals;
  options.targetSpeedup = targetSpeedup;
  auto started = std::chrono::steady_clock::now();
  kf::ProgressFn progress = [&](const kf::SearchCandidate &candidate,
                                const kf::SearchResult &result) {
    double elapsed = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - started)
                         .count();
    const kf::SearchCandidate &first = result.candidates[result.defaultIndex];
    std::string best = "none yet";
    if (result.bestIndex) {
      const kf::Outcome &b = result.candidates[*result.bestIndex].outcome;
      best = formatv("{0:F3} ms", b.seconds * 1e3).str();
      if (first.outcome.status == "correct" && b.seconds > 0)
        best += formatv(", {0:F2}x over the default",
                        first.outcome.seconds / b.seconds)
                    .str();
    }
    errs()
        << formatv("[{0}/{1}] {2:F1} evals/s  island {3} {4}: {5} -> {6}",
                   result.candidates.size(), budgetEvals,
                   result.candidates.size() / std::max(elapsed, 1e-3),
                   candidate.island, candidate.expert,
                   candidate.change.empty() ? "default schedule"
                                            : candidate.change,
                   candidate.outcome.status)
        << (candidate.outcome.status == "correct"
                ? formatv(" {0:F3} ms", candidate.outcome.seconds * 1e3).str()
                : "")
        << "  (best " << best << ")\n";
  };
  kf::SearchResult result = kf::runSearch(*defaultSchedule, *shapes, render,
                                          evaluate, options, progress);
  if (result.candidates.empty())
    return fail("the default schedule does not render: " + lastError);
  if (!result.bestIndex)
    return fail("no candidate evaluated as correct (the default schedule: " +
                result.candidates[result.defaultIndex].outcome.status + ")");

  const kf::SearchCandidate &best = result.candidates[*result.bestIndex];
  const kf::SearchCandidate &first = result.candidates[result.defaultIndex];
  auto write = [&](StringRef name, StringRef text) -> bool {
    SmallString<256> path(outputDir);
    sys::path::append(path, name);
    std::string error;
    auto file = openOutputFile(path, &error);
    if (!file) {
      fail(error);
      return false;
    }
    file->os() << text;
    file->keep();
    return true;
  };
  FailureOr<kf::CompiledCandidate> bestCompiled = kf::compileCandidate(
      *loaded->module, problemName, StringRef(best.script), compileOptions());
  if (failed(bestCompiled))
    return fail("the best candidate no longer compiles");
  json::Array candidates;
  for (const kf::SearchCandidate &candidate : result.candidates)
    candidates.push_back(kf::toJSON(candidate));
  json::Object summary{
      {"problem", loaded->problem.getSymName()},
      {"evaluator", evaluatorName},
      {"seed", (int64_t)seed},
      {"evaluations", (int64_t)result.candidates.size()},
      {"duplicates_skipped", result.duplicatesSkipped},
      {"best", json::Object{{"id", best.id},
                            {"genome", kf::describeGenome(best.genome)},
                            {"seconds", best.outcome.seconds},
                            {"schedule_file", "best.schedule.mlir"}}},
      {"default_seconds", first.outcome.seconds},
      {"speedup_over_default",
       first.outcome.status == "correct"
           ? first.outcome.seconds / best.outcome.seconds
           : 0.0},
      {"candidates", std::move(candidates)}};
  std::string json;
  raw_string_ostream os(json);
  os << formatv("{0:2}", json::Value(std::move(summary))) << "\n";
  if (!write("best.schedule.mlir", best.script) ||
      !write("best.ptx", kf::collectKernelImages(*bestCompiled->lowered)) ||
      !write("result.json", json))
    return 1;
  outs() << formatv(
      "best: candidate {0} ({1}), {2:F3} ms{3}; {4} "
      "evaluations; written to {5}\n",
      best.id, kf::describeGenome(best.genome), best.outcome.seconds * 1e3,
      evaluatorName.rfind("cost-model", 0) == 0 ? " predicted" : "",
      result.candidates.size(), outputDir);
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  // The portable bundle ships one binary: called as kf-opt, it is kf-opt.
  if (sys::path::stem(argv[0]) == "kf-opt") {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    kf::registerAllPasses();
    cl::AddExtraVersionPrinter(kf::printVersion);
    return asMainReturnCode(
        MlirOptMain(argc, argv, "Kernel Foundry optimizer driver\n", registry));
  }
  InitLLVM initLLVM(argc, argv);
  // Schedules may run registered passes (transform.apply_registered_pass).
  kf::registerAllPasses();
  cl::AddExtraVersionPrinter(kf::printVersion);
  cl::HideUnrelatedOptions(category);
  // The main job needs no subcommand: `kf-evolve problem.mlir [options]`
  // is `kf-evolve search problem.mlir [options]`.
  SmallVector<const char *> arguments(argv, argv + argc);
  if (argc > 1 && StringRef(argv[1]).ends_with(".mlir"))
    arguments.insert(arguments.begin() + 1, "search");
  cl::ParseCommandLineOptions(
      arguments.size(), arguments.data(),
      "Kernel Foundry: evaluate and search GPU kernels for a problem\n\n"
      "  kf-evolve PROBLEM [--budget-evals N] [--seed N] [--output DIR] "
      "(= kf-evolve search)\n"
      "  kf-evolve compile PROBLEM [--schedule S] [-o out.ptx]\n"
      "  kf-evolve eval PROBLEM [--schedule S | --kernel K]...\n"
      "  kf-evolve check-reference PROBLEM\n");

  DialectRegistry registry;
  kf::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors point at the user's source; the generic op dump only adds noise.
  context.printOpOnDiagnostic(false);

  if (compileCommand)
    return problemPath.empty() ? fail("compile needs a problem file")
                               : runCompile(context);
  if (evalCommand)
    return problemPath.empty() ? fail("eval needs a problem file")
                               : runEval(context, argv[0]);
  if (searchCommand)
    return problemPath.empty() ? fail("search needs a problem file")
                               : runSearchCommand(context, argv[0]);
  if (checkReferenceCommand)
    return problemPath.empty() ? fail("check-reference needs a problem file")
                               : runCheckReference(context, argv[0]);
  if (workerCommand)
    return runWorkerCommand(context);
  return fail("give a subcommand: compile, eval (see --help)");
}
