//===- ProblemCommands.cpp - kf-evolve check-*, import --cache-all, library
//===//

#include "kf/Search/Commands.h"

#include "kf/Import/CudaImport.h"
#include "kf/Pipelines/CpuReference.h"
#include "kf/Runtime/Worker.h"
#include "kf/Search/ExperienceLibrary.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir;

namespace kf {

int runCheckReferenceCommand(MLIRContext &context,
                             const ProblemCheckConfig &config) {
  OpenedProblem opened(context, config.input);
  std::optional<LoadedProblem> &loaded = opened.loaded;
  if (!loaded)
    return 1;
  FailureOr<CompiledCandidate> reference =
      compileReference(config.input, *loaded);
  if (failed(reference))
    return 1;
  ProblemSpec spec = buildProblemSpec(loaded->problem);
  WorkerClient worker(
      measurementWorkerCommand(config.executable, config.input.chip));
  EvalConfig evalConfig;
  evalConfig.device = config.eval.device;
  evalConfig.seed = config.eval.seed;
  Expected<PlanIO> gpu = worker.runForIO(
      spec, reference->plan, evalConfig,
      /*maxBytes=*/int64_t(1) << 28,
      std::chrono::milliseconds((int64_t)(config.timeoutSeconds * 1000)));
  if (!gpu)
    return reportError("the GPU reference did not run: " +
                       toString(gpu.takeError()));
  Expected<std::vector<std::string>> cpu =
      runReferenceOnCPU(loaded->problem, gpu->inputs);
  if (!cpu)
    return reportError("the CPU reference did not run: " +
                       toString(cpu.takeError()));

  json::Array outputs;
  bool agree = true;
  for (auto [index, output] : llvm::enumerate(spec.outputs)) {
    OutputErrors errors = compareOnHost(output, gpu->outputs[index],
                                        (*cpu)[index], spec.atol, spec.rtol);
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
                                 {"seed", (int64_t)config.eval.seed},
                                 {"outputs", std::move(outputs)}}))
         << "\n";
  return agree ? 0 : 2;
}

/// Writes `bytes` of `tensor` as a NumPy .npy file (format version 1.0: a
/// magic string, a header dict, raw little-endian data). Hand-written: the
/// format is a dozen lines and no dependency we have writes it. bf16, which
/// NumPy lacks, is written as its raw 16-bit words ('<u2').
static Error writeNpy(StringRef path, const TensorSpec &tensor,
                      StringRef bytes) {
  StringRef descr = llvm::StringSwitch<StringRef>(tensor.elementType)
                        .Case("f64", "<f8")
                        .Case("f32", "<f4")
                        .Case("f16", "<f2")
                        .Case("bf16", "<u2")
                        .Case("i64", "<i8")
                        .Case("i32", "<i4")
                        .Case("i16", "<i2")
                        .Case("i8", "|i1")
                        .Case("i1", "|b1")
                        .Default("");
  if (descr.empty())
    return createStringError("cannot write element type " + tensor.elementType +
                             " as NumPy");
  std::string shape;
  for (int64_t size : tensor.shape)
    shape += std::to_string(size) + ", ";
  std::string header = formatv("{{'descr': '{0}', 'fortran_order': False, "
                               "'shape': ({1}), }",
                               descr, shape);
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a
  // multiple of 64 and ended by a newline.
  size_t total = alignTo(10 + header.size() + 1, 64);
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::error_code error;
  raw_fd_ostream os(path, error);
  if (error)
    return createStringError("cannot write " + path + ": " + error.message());
  os << "\x93NUMPY" << '\x01' << '\x00';
  os << (char)(header.size() & 0xff) << (char)(header.size() >> 8);
  os << header << bytes;
  return Error::success();
}

/// kf-evolve check-problem: the degenerate-problem check on the CPU, for
/// machines without a GPU (and the benchmark suite's CPU checks).
int runCheckProblemCommand(MLIRContext &context,
                           const ProblemCheckConfig &config) {
  OpenedProblem opened(context, config.input);
  std::optional<LoadedProblem> &loaded = opened.loaded;
  if (!loaded)
    return 1;
  unsigned trials = config.eval.trials;
  uint64_t seed = config.eval.seed;
  const std::string &dumpDirectory = config.dumpDirectory;
  if (trials < 2)
    return reportError(
        "check-problem needs --trials 2 or more: the constant kernel "
        "is taken from one trial and judged on the others");
  Expected<HostProblemCheck> check =
      checkProblemOnCPU(loaded->problem, trials, seed);
  if (!check)
    return reportError("the CPU reference did not run: " +
                       toString(check.takeError()));
  ProblemSpec spec = buildProblemSpec(loaded->problem);
  json::Object result{
      {"problem", loaded->problem.getSymName()},
      {"problem_check", check->degenerate ? "degenerate" : "passed"},
      {"trials", (int64_t)trials},
      {"seed", (int64_t)seed}};
  if (check->degenerate)
    result["message"] = degenerateProblemMessage(spec, *check->degenerate);
  if (!dumpDirectory.empty()) {
    if (std::error_code error = sys::fs::create_directories(dumpDirectory))
      return reportError("cannot create " + dumpDirectory + ": " +
                         error.message());
    auto dump = [&](StringRef prefix, ArrayRef<TensorSpec> tensors,
                    const std::vector<std::string> &values,
                    json::Array &files) -> Error {
      for (auto [index, tensor] : llvm::enumerate(tensors)) {
        std::string name = (prefix + Twine(index) + ".npy").str();
        SmallString<256> path(dumpDirectory);
        sys::path::append(path, name);
        if (Error error = writeNpy(path, tensor, values[index]))
          return error;
        files.push_back(json::Object{{"file", name},
                                     {"type", tensor.elementType},
                                     {"shape", json::Array(tensor.shape)}});
      }
      return Error::success();
    };
    json::Array inputs, outputs;
    if (Error error = dump("input", spec.inputs, check->inputs, inputs))
      return reportError(toString(std::move(error)));
    if (Error error = dump("output", spec.outputs, check->outputs, outputs))
      return reportError(toString(std::move(error)));
    result["inputs"] = std::move(inputs);
    result["outputs"] = std::move(outputs);
  }
  outs() << formatv("{0:2}", json::Value(std::move(result))) << "\n";
  return check->degenerate ? 2 : 0;
}

/// kf-evolve import: CUDA device code as a gpu.module of llvm + nvvm ops.
/// kf-evolve import --cache-all: the source imported as a candidate (as the
/// CUDA experts import it) for every combination of the plan's parameter
/// choices, into the import cache.
int runCacheAllVariantsCommand(MLIRContext &context,
                               const ProblemInputOptions &input,
                               StringRef cudaSource) {
  std::string cache = candidateImportOptions(input).cacheDir;
  if (cache.empty())
    return reportError("--cache-all needs --cuda-cache DIR");
  Expected<CudaLaunchSpec> plan = loadLaunchPlan(input, "--cache-all");
  if (!plan)
    return reportError(toString(plan.takeError()));
  std::vector<std::vector<std::pair<std::string, int64_t>>> assignments = {{}};
  for (const CudaLaunchParameter &parameter : plan->parameters) {
    std::vector<int64_t> values = parameter.choices;
    if (!llvm::is_contained(values, parameter.value))
      values.push_back(parameter.value);
    std::vector<std::vector<std::pair<std::string, int64_t>>> next;
    for (const auto &assignment : assignments)
      for (int64_t value : values) {
        next.push_back(assignment);
        next.back().push_back({parameter.name, value});
      }
    assignments = std::move(next);
    if (assignments.size() > 4096)
      return reportError("the plan's choices make more than 4096 combinations; "
                         "cache fewer");
  }
  unsigned failures = 0;
  for (const auto &assignment : assignments) {
    CudaImportOptions options = candidateImportOptions(input);
    std::string described;
    for (const auto &[name, value] : assignment) {
      options.defines.push_back({name, std::to_string(value)});
      described += " " + name + "=" + std::to_string(value);
    }
    Expected<OwningOpRef<ModuleOp>> imported =
        importCuda(cudaSource, &context, options);
    if (!imported) {
      // The search would skip such a tuning too.
      ++failures;
      WithColor::warning(errs(), "kf-evolve")
          << "not cached (" << StringRef(described).ltrim()
          << "): " << toString(imported.takeError()) << "\n";
    }
  }
  outs() << formatv("cached {0} of {1} parameter combinations of {2} in {3}\n",
                    assignments.size() - failures, assignments.size(),
                    cudaSource, cache);
  return failures == assignments.size() ? 1 : 0;
}

/// kf-evolve library: the experience library as JSON, after an integrity
/// check.
int runLibraryCommand(const LibraryCommandConfig &config) {
  std::string path = config.libraryPath.empty()
                         ? ExperienceLibrary::defaultPath()
                         : config.libraryPath;
  Expected<std::unique_ptr<ExperienceLibrary>> library =
      ExperienceLibrary::open(path);
  if (!library)
    return reportError(toString(library.takeError()));
  if ((config.listRuns || !config.printRun.empty()) &&
      !config.importPath.empty())
    return reportError("--runs and --records print records; --import fills a "
                       "library: give one of them");
  if (config.listRuns && !config.printRun.empty())
    return reportError(
        "--runs lists the runs, --records prints one: give one of "
        "them");
  if (!config.importPath.empty()) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> text =
        MemoryBuffer::getFileOrSTDIN(config.importPath);
    if (!text)
      return reportError("--import " + config.importPath + ": " +
                         text.getError().message());
    Expected<json::Value> exported = json::parse((*text)->getBuffer());
    if (!exported)
      return reportError("--import " + config.importPath + ": " +
                         toString(exported.takeError()));
    if (Error error = (*library)->importJSON(*exported))
      return reportError("--import " + config.importPath + ": " +
                         toString(std::move(error)));
  }
  if (config.listRuns || !config.printRun.empty()) {
    if (!config.printRun.empty()) {
      Expected<RunRecords> stored = (*library)->runRecords(config.printRun);
      if (!stored)
        return reportError("--records: " + toString(stored.takeError()));
      for (const std::string &line : stored->records)
        outs() << line << "\n";
      return 0;
    }
    Expected<std::vector<RunSummary>> runs = (*library)->listRuns();
    if (!runs)
      return reportError(toString(runs.takeError()));
    json::Array array;
    for (const RunSummary &run : *runs)
      array.push_back(json::Object{{"run", run.run},
                                   {"problem", run.problem},
                                   {"candidates", run.candidates}});
    outs() << formatv("{0:2}", json::Value(std::move(array))) << "\n";
    return 0;
  }
  Expected<std::string> integrity = (*library)->integrityCheck();
  if (!integrity)
    return reportError(toString(integrity.takeError()));
  if (*integrity != "ok")
    return reportError("experience library " + (*library)->name() +
                       " is damaged: " + *integrity);
  Expected<json::Value> exported = (*library)->exportJSON();
  if (!exported)
    return reportError(toString(exported.takeError()));
  outs() << formatv("{0:2}", *exported) << "\n";
  return 0;
}

} // namespace kf
