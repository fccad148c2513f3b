//===- CandidateCommands.cpp - kf-evolve compile and eval -----------------===//

#include "kf/Search/Commands.h"

#include "kf/Analysis/Bottleneck.h"
#include "kf/Analysis/KernelAnalysis.h"
#include "kf/Analysis/ProblemAnalysis.h"
#include "kf/Runtime/Worker.h"
#include "kf/Schedule/Schedule.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir;

namespace kf {

static int writeOutput(StringRef path, StringRef text) {
  std::string error;
  auto output = openOutputFile(path, &error);
  if (!output)
    return reportError(error);
  output->os() << text;
  output->keep();
  return 0;
}

/// Reads a schedule genome (docs/search.md) from `text`, the contents of
/// `path`; errors name the file and the offending field.
static FailureOr<Schedule> parseGenome(StringRef text, StringRef path,
                                       MLIRContext &context) {
  Expected<json::Value> value = json::parse(text);
  if (!value) {
    emitError(UnknownLoc::get(&context))
        << path << ": not JSON: " << toString(value.takeError());
    return failure();
  }
  Schedule genome;
  json::Path::Root root("genome");
  if (!fromJSON(*value, genome, root)) {
    std::string message;
    raw_string_ostream os(message);
    root.printErrorContext(*value, os);
    emitError(UnknownLoc::get(&context))
        << path << ": not a schedule genome: " << toString(root.getError())
        << "\n"
        << message;
    return failure();
  }
  return genome;
}

static FailureOr<Schedule> readGenomeFile(StringRef path,
                                          MLIRContext &context) {
  std::string error;
  auto file = openInputFile(path, &error);
  if (!file) {
    emitError(UnknownLoc::get(&context)) << error;
    return failure();
  }
  return parseGenome(file->getBuffer(), path, context);
}

FailureOr<CompiledCandidate>
compileCandidateFile(const ProblemInputOptions &options,
                     const LoadedProblem &problem, const CandidateFile &source,
                     const CudaTuningFlags &cuda, CompileStage &stage,
                     SmallVectorImpl<CheatFinding> *rejections) {
  MLIRContext &context = *problem.module.get()->getContext();
  if (source.kind == CandidateFile::Kind::Default)
    return compileCandidate(problem.module.get(), options.problemName,
                            std::nullopt, compileOptions(options), &stage,
                            rejections);
  if (source.kind == CandidateFile::Kind::Cuda) {
    Expected<std::string> text =
        cuda.error.empty()
            ? cudaCandidateText(options, problem, source.path, cuda.tuning)
            : Expected<std::string>(createStringError(cuda.error));
    if (!text) {
      emitError(UnknownLoc::get(&context)) << toString(text.takeError());
      stage = CompileStage::Cuda;
      return failure();
    }
    return compileText(options, problem, CandidateKind::Kernel, *text,
                       source.path, stage, rejections);
  }
  std::string error;
  auto file = openInputFile(source.path, &error);
  if (!file) {
    emitError(UnknownLoc::get(&context)) << error;
    stage = CompileStage::Schedule;
    return failure();
  }
  // A schedule given as a genome (the JSON the experience library keeps,
  // docs/search.md) is rendered for the problem first.
  if (source.kind == CandidateFile::Kind::Schedule &&
      StringRef(source.path).ends_with(".json")) {
    stage = CompileStage::Schedule;
    FailureOr<Schedule> genome =
        parseGenome(file->getBuffer(), source.path, context);
    if (failed(genome))
      return failure();
    if (problem.selfReferenced())
      return compileText(options, problem, CandidateKind::Schedule, "",
                         source.path, stage, rejections);
    FailureOr<std::string> text = renderSchedule(problem.reference, *genome);
    if (failed(text))
      return failure();
    return compileText(options, problem, CandidateKind::Schedule, *text,
                       source.path, stage, rejections);
  }
  return compileText(options, problem,
                     source.kind == CandidateFile::Kind::Schedule
                         ? CandidateKind::Schedule
                         : CandidateKind::Kernel,
                     file->getBuffer(), source.path, stage, rejections);
}

int runCompileCommand(MLIRContext &context,
                      const CompileCommandConfig &config) {
  OpenedProblem opened(context, config.input);
  std::optional<LoadedProblem> &loaded = opened.loaded;
  if (!loaded)
    return 1;
  const std::vector<CandidateFile> &sources = config.candidates;
  if (sources.size() != 1)
    return reportError(
        "compile takes one candidate (one --schedule, --kernel or "
        "--cuda)");
  // The default schedule is printed as rendered, or as its genes, without
  // compiling it: what to read (or to start a hand schedule from) when it
  // does not compile.
  bool genomeFile = sources.front().kind == CandidateFile::Kind::Schedule &&
                    StringRef(sources.front().path).ends_with(".json");
  if (config.emit == EmitKind::Genome &&
      sources.front().kind != CandidateFile::Kind::Default && !genomeFile)
    return reportError(
        "--emit=genome prints the default schedule's genes, or a genome's "
        "with its ops completed: give no --schedule, or a genome (.json)");
  // A genome, perhaps without ops (structure genes only), printed with
  // every op's schedule: where to start a hand genome for a structure.
  if (config.emit == EmitKind::Genome && genomeFile) {
    FailureOr<Schedule> genome = readGenomeFile(sources.front().path, context);
    if (failed(genome))
      return 1;
    FailureOr<Schedule> completed =
        completeSchedule(loaded->reference, *genome);
    if (failed(completed))
      return 1;
    return writeOutput(config.outputPath,
                       formatv("{0:2}\n", toJSON(*completed)).str());
  }
  if ((config.emit == EmitKind::Schedule || config.emit == EmitKind::Genome) &&
      sources.front().kind == CandidateFile::Kind::Default) {
    FailureOr<Schedule> schedule = buildDefaultSchedule(loaded->reference);
    if (failed(schedule))
      return 1;
    if (config.emit == EmitKind::Genome)
      return writeOutput(config.outputPath,
                         formatv("{0:2}\n", toJSON(*schedule)).str());
    FailureOr<std::string> text = renderSchedule(loaded->reference, *schedule);
    if (failed(text))
      return 1;
    return writeOutput(config.outputPath, *text);
  }
  CompileStage stage;
  FailureOr<CompiledCandidate> compiled = compileCandidateFile(
      config.input, *loaded, sources.front(), config.cuda, stage);
  if (failed(compiled))
    return reportError("compilation failed at the " +
                       stringifyCompileStage(stage) + " stage");
  switch (config.emit) {
  case EmitKind::PTX:
    return writeOutput(config.outputPath,
                       collectKernelImages(*compiled->lowered));
  case EmitKind::Lowered:
    return writeOutput(config.outputPath, printModule(*compiled->lowered));
  case EmitKind::Schedule:
    return writeOutput(config.outputPath, compiled->schedule);
  case EmitKind::Genome: // handled above
    return 1;
  case EmitKind::Plan: {
    std::string text;
    raw_string_ostream os(text);
    os << formatv("{0:2}", json::Value(toJSON(compiled->plan))) << "\n";
    return writeOutput(config.outputPath, text);
  }
  case EmitKind::Diagnosis: {
    Ceilings ceilings;
    ProblemAnalysis analysis = analyzeProblem(loaded->reference, ceilings);
    Bottleneck predicted =
        predictBottleneck(analysis, ceilings, compiled->diagnosis);
    std::string text;
    raw_string_ostream os(text);
    os << formatv("{0:2}",
                  json::Value(json::Object{
                      {"version", 1},
                      {"problem", toJSON(analysis, ceilings)},
                      {"kernels", json::Array(compiled->diagnosis)},
                      {"predicted_ms", compiled->predictedSeconds * 1e3},
                      {"bottleneck",
                       json::Object{{"predicted", predicted.kind},
                                    {"predicted_because", predicted.reason}}}}))
       << "\n";
    return writeOutput(config.outputPath, text);
  }
  }
  return 0;
}

int runEvalCommand(MLIRContext &context, const EvalCommandConfig &config) {
  OpenedProblem opened(context, config.input);
  std::optional<LoadedProblem> &loaded = opened.loaded;
  if (!loaded)
    return 1;
  Ceilings ceilings;
  if (!config.ceilingsPath.empty()) {
    Expected<Ceilings> loadedCeilings = Ceilings::load(config.ceilingsPath);
    if (!loadedCeilings)
      return reportError(toString(loadedCeilings.takeError()));
    ceilings = *loadedCeilings;
  }

  FailureOr<CompiledCandidate> reference =
      compileReference(config.input, *loaded);
  if (failed(reference))
    return 1;
  ProblemAnalysis analysis = analyzeProblem(loaded->reference, ceilings);
  const ProblemSpec &spec = loaded->spec;

  WorkerClient worker(
      measurementWorkerCommand(config.executable, config.input.chip));
  CompileStage stage;

  json::Array results;
  bool allCorrect = true, noDevice = false;
  for (const CandidateFile &source : config.candidates) {
    json::Object output{
        {"problem", spec.name},
        {"reference", loaded->selfReferenced() ? "cuda-as-written" : "problem"},
        {"candidate", source.label()},
        {"analysis", toJSON(analysis, ceilings)}};
    SmallVector<CheatFinding> rejections;
    FailureOr<CompiledCandidate> candidate = compileCandidateFile(
        config.input, *loaded, source, config.cuda, stage, &rejections);
    if (failed(candidate) && !rejections.empty()) {
      // Static cheat checks: one readable line per reason.
      output["status"] = stringifyCandidateStatus(CandidateStatus::Rejected);
      output["category"] = "cheating";
      output["message"] = formatRejection(rejections.front());
      json::Array reasons;
      for (const CheatFinding &finding : rejections)
        reasons.push_back(toJSON(finding));
      output["rejections"] = std::move(reasons);
      results.push_back(std::move(output));
      allCorrect = false;
      continue;
    }
    if (failed(candidate)) {
      output["status"] =
          stringifyCandidateStatus(CandidateStatus::CompileError);
      output["category"] = stringifyCompileStage(stage);
      output["message"] =
          ("the candidate failed at the " + stringifyCompileStage(stage) +
           " stage; the diagnostics are on stderr")
              .str();
      results.push_back(std::move(output));
      allCorrect = false;
      continue;
    }
    EvalResult result = worker.evaluate(
        spec, reference->plan, candidate->plan, config.eval,
        std::chrono::milliseconds((int64_t)(config.timeoutSeconds * 1000)));
    json::Value resultJSON = toJSON(result);
    for (auto &entry : *resultJSON.getAsObject())
      output[entry.first] = entry.second;
    Bottleneck predicted =
        predictBottleneck(analysis, ceilings, candidate->diagnosis);
    json::Object bottleneck{{"predicted", predicted.kind},
                            {"predicted_because", predicted.reason}};
    if (result.candidateTime && result.candidateTime->medianMs > 0) {
      Bottleneck measured = classifyMeasurement(analysis, ceilings,
                                                result.candidateTime->medianMs,
                                                candidate->plan.numLaunches());
      bottleneck["measured"] = measured.kind;
      bottleneck["measured_because"] = measured.reason;
    }
    output["bottleneck"] = std::move(bottleneck);
    // The compiled kernels' resources tell what the IR cannot: registers
    // ptxas spilled.
    json::Array diagnosis(candidate->diagnosis);
    SmallVector<CompiledKernel> compiled;
    for (const KernelResources &kernel : result.kernels)
      compiled.push_back({kernel.name, kernel.registers, kernel.localBytes});
    addCompiledKernelFindings(diagnosis, compiled);
    output["diagnosis"] = std::move(diagnosis);
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
    allCorrect &= result.status == CandidateStatus::Correct;
    if (result.status == CandidateStatus::NoDevice) {
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

int runMeasurementWorkerCommand(MLIRContext &context, StringRef chip) {
  return runWorker([&]() -> Expected<PlanModule> {
    CompileOptions options;
    options.chip = chip.str();
    std::string errors;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      errors += diag.str() + "\n";
      return success();
    });
    FailureOr<PlanModule> kernels = compileRuntimeKernels(&context, options);
    if (failed(kernels))
      return createStringError(inconvertibleErrorCode(), errors);
    return *kernels;
  });
}

} // namespace kf
