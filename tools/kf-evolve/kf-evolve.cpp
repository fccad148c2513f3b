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
#include "kf/Import/CudaImport.h"
#include "kf/Import/CudaLaunch.h"
#include "kf/InitAll.h"
#include "kf/Pipelines/Compiler.h"
#include "kf/Pipelines/CpuReference.h"
#include "kf/Runtime/Evaluator.h"
#include "kf/Runtime/ProblemSpec.h"
#include "kf/Runtime/Worker.h"
#ifdef KF_ENABLE_MPI
#include "kf/Runtime/MpiCluster.h"
#endif
#include "kf/Search/CompilePool.h"
#include "kf/Search/CompileWorker.h"
#include "kf/Search/CudaExpert.h"
#include "kf/Search/ExperienceLibrary.h"
#include "kf/Search/LLMExpert.h"
#include "kf/Search/OutputDirectory.h"
#include "kf/Search/ProblemInput.h"
#include "kf/Search/Records.h"
#ifdef KF_ENABLE_LLM
#include "kf/Search/LLMClient.h"
#endif
#include "kf/Search/Report.h"
#include "kf/Search/Search.h"
#include "kf/Search/SearchConfig.h"
#include "kf/Support/Redaction.h"
#include "kf/Transforms/Schedules.h"
#include "kf/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <iostream>
#include <mutex>
#include <numeric>

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
static cl::SubCommand checkProblemCommand(
    "check-problem",
    "Run the degenerate-problem check on the CPU (small shapes): the "
    "reference on inputs drawn from the declared distributions against "
    "trivial kernels; --dump writes the first trial as NumPy files");
static cl::SubCommand
    workerCommand("worker", "Internal: the isolated GPU measurement process");
static cl::SubCommand importCommand(
    "import", "Compile CUDA device code with clang and import it into MLIR: "
              "a gpu.module of llvm + nvvm kernels (docs/cuda-input.md)");
static cl::SubCommand searchCommand(
    "search", "Search for a faster verified schedule: islands of rule-based "
              "experts, evaluated on the GPU (or, without one, ranked by the "
              "static cost model)");

static cl::SubCommand compileWorkerCommand(
    "compile-worker",
    "Internal: the isolated compile process of the search (one JSON request "
    "per line on stdin, one reply per line on stdout)");
static cl::SubCommand
    libraryCommand("library",
                   "Print the experience library as JSON (curated rules with "
                   "their statistics, best schedules, counted candidates) "
                   "after checking its integrity; with --import, fill a new "
                   "library from such a file first");

static cl::OptionCategory category("kf-evolve options");

static cl::opt<std::string>
    problemPath(cl::Positional, cl::desc("<problem.mlir>"),
                cl::sub(compileCommand), cl::sub(evalCommand),
                cl::sub(searchCommand), cl::sub(checkReferenceCommand),
                cl::sub(checkProblemCommand), cl::sub(compileWorkerCommand),
                cl::cat(category));
static cl::list<std::string> moreProblemPaths(
    cl::Positional, cl::ZeroOrMore,
    cl::desc("[more problems: searched one after another, each into "
             "OUTPUT/<name>/, on the same ranks with --mpi]"),
    cl::sub(searchCommand), cl::cat(category));
static cl::list<std::string> schedulePaths(
    "schedule",
    cl::desc("A candidate given as a transform script (default: kf's default "
             "schedule); eval takes several, in order"),
    cl::value_desc("file"), cl::sub(compileCommand), cl::sub(evalCommand),
    cl::cat(category));
static cl::list<std::string> kernelPaths(
    "kernel",
    cl::desc("A candidate given as kernel IR: a module whose host function "
             "takes the inputs then outputs as memrefs and launches kernels"),
    cl::value_desc("file"), cl::sub(compileCommand), cl::sub(evalCommand),
    cl::cat(category));
static cl::list<std::string> cudaPaths(
    "cuda",
    cl::desc("A candidate given as CUDA device code, bound to the problem by "
             "the launch plan (--launch; docs/cuda-input.md)"),
    cl::value_desc("file.cu"), cl::sub(compileCommand), cl::sub(evalCommand),
    cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string> launchPlanPath(
    "launch", cl::desc("The launch plan (JSON) of the --cuda candidates"),
    cl::value_desc("plan.json"), cl::sub(compileCommand), cl::sub(evalCommand),
    cl::sub(searchCommand), cl::sub(importCommand),
    cl::sub(compileWorkerCommand), cl::cat(category));
static cl::opt<std::string> cudaProblemPath(
    "problem",
    cl::desc("With a .cu file in place of the problem (kf-evolve kernel.cu "
             "--problem p.mlir --launch plan.json): the problem it solves"),
    cl::value_desc("problem.mlir"), cl::sub(searchCommand), cl::cat(category));
static cl::list<std::string>
    launchParameters("param",
                     cl::desc("NAME=VALUE: a launch-plan parameter's value "
                              "for the --cuda candidates"),
                     cl::value_desc("NAME=VALUE"), cl::sub(compileCommand),
                     cl::sub(evalCommand), cl::cat(category));
static cl::opt<bool> launchBounds(
    "launch-bounds",
    cl::desc("Give the --cuda kernels __launch_bounds__ of their blocks"),
    cl::sub(compileCommand), cl::sub(evalCommand), cl::cat(category));
static cl::opt<unsigned>
    maxRegisters("max-registers",
                 cl::desc("Cap the --cuda kernels' registers per thread"),
                 cl::init(0), cl::sub(compileCommand), cl::sub(evalCommand),
                 cl::cat(category));
static cl::opt<std::string>
    problemName("problem-name",
                cl::desc("Which kf.problem to use when the "
                         "file holds several"),
                cl::sub(compileCommand), cl::sub(evalCommand),
                cl::sub(searchCommand), cl::sub(checkReferenceCommand),
                cl::sub(checkProblemCommand), cl::sub(compileWorkerCommand),
                cl::cat(category));
static cl::opt<std::string> chip("chip", cl::desc("Target GPU"),
                                 cl::init("sm_90"), cl::sub(compileCommand),
                                 cl::sub(evalCommand), cl::sub(searchCommand),
                                 cl::sub(workerCommand),
                                 cl::sub(checkReferenceCommand),
                                 cl::sub(compileWorkerCommand),
                                 cl::sub(importCommand), cl::cat(category));
static cl::opt<std::string>
    binaryFormat("format", cl::desc("isa (PTX) or bin (cubin, needs ptxas)"),
                 cl::init("isa"), cl::sub(compileCommand), cl::sub(evalCommand),
                 cl::sub(searchCommand), cl::sub(compileWorkerCommand),
                 cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::sub(compileCommand),
                                       cl::sub(evalCommand), cl::cat(category));
enum class EmitKind { PTX, Lowered, Schedule, Genome, Plan, Diagnosis };
static cl::opt<EmitKind> emit(
    "emit", cl::desc("What compile writes"), cl::init(EmitKind::PTX),
    cl::values(clEnumValN(EmitKind::PTX, "ptx", "the kernels' PTX (or cubin)"),
               clEnumValN(EmitKind::Lowered, "lowered",
                          "the lowered module (host launch code + binaries)"),
               clEnumValN(EmitKind::Schedule, "schedule",
                          "the transform script that was applied"),
               clEnumValN(EmitKind::Genome, "genome",
                          "the default schedule's genes as JSON (what "
                          "--schedule reads: a start for a hand schedule)"),
               clEnumValN(EmitKind::Plan, "plan", "the launch plan as JSON"),
               clEnumValN(EmitKind::Diagnosis, "diagnosis",
                          "the kernels' diagnosis and the predicted "
                          "bottleneck as JSON (docs/diagnosis.md)")),
    cl::sub(compileCommand), cl::cat(category));

static cl::opt<unsigned>
    trials("trials", cl::desc("Correctness trials on fresh inputs"),
           cl::init(4), cl::sub(evalCommand), cl::sub(searchCommand),
           cl::sub(checkProblemCommand), cl::cat(category));
static cl::opt<std::string>
    dumpDirectory("dump",
                  cl::desc("Write the first trial's inputs and reference "
                           "outputs to this directory as input<i>.npy and "
                           "output<i>.npy"),
                  cl::value_desc("dir"), cl::sub(checkProblemCommand),
                  cl::cat(category));
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
                              cl::sub(checkProblemCommand), cl::cat(category));
static cl::opt<std::string> gpuSelection(
    "gpus",
    cl::desc("Measure on several GPUs at once: all, or ordinals such as 0,2 "
             "(one measurement worker each; one GPU model per run; default: "
             "--device)"),
    cl::value_desc("all|0,1,..."), cl::sub(searchCommand), cl::cat(category));
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
static cl::opt<bool> useMpi(
    "mpi",
    cl::desc("Run as an MPI job (mpirun -n N, or srun): rank 0 drives the "
             "search, every other rank evaluates candidates on its GPU"),
    cl::sub(searchCommand), cl::cat(category));
static cl::opt<double> mpiSilence(
    "mpi-silence",
    cl::desc("With --mpi: seconds an evaluating rank may stay silent before "
             "it is taken for dead and its candidate goes to another rank"),
    cl::init(30), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> mpiDepth(
    "mpi-depth",
    cl::desc("With --mpi: candidates each evaluating rank holds at once, so "
             "that it compiles the next while its GPU measures one"),
    cl::init(2), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> mpiGroups(
    "mpi-groups",
    cl::desc("With --mpi and several problems: split the job's ranks into "
             "this many groups of consecutive ranks, each with its own "
             "driving rank, and deal the problems to them in turn (problem "
             "i to group i mod N), so that several searches run at once"),
    cl::init(1), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> roundSize(
    "round-size",
    cl::desc("Proposals per round of the search (default: one per island "
             "per GPU, or per evaluating rank with --mpi); a run is "
             "reproducible for the same seed and round size"),
    cl::sub(searchCommand), cl::cat(category));
static cl::opt<bool> overlapRounds(
    "overlap-rounds",
    cl::desc("Propose and compile the next round while the current one is "
             "measured (default: on; =false makes each round wait for the "
             "one before). Part of what makes a run reproducible, with the "
             "seed and the round size"),
    cl::init(true), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> roundsInFlight(
    "rounds-in-flight",
    cl::desc("With overlapping rounds: how many rounds are compiled and "
             "measured at once (default 2; more keeps several GPUs fed "
             "across a round's end, with proposals one round further "
             "behind). Part of what makes a run reproducible"),
    cl::init(2), cl::sub(searchCommand), cl::cat(category));
static cl::opt<bool> resumeSearch(
    "resume",
    cl::desc("Continue the search recorded in the output directory: recorded "
             "candidates are replayed from candidates.jsonl, not evaluated "
             "again, so a killed run resumed with the same seed and budget "
             "reaches the same result"),
    cl::init(false), cl::sub(searchCommand), cl::cat(category));
static cl::opt<bool> replaceOutput(
    "replace",
    cl::desc("Start a new run in an output directory that holds another "
             "run's records, replacing them (without it such a directory is "
             "refused)"),
    cl::init(false), cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string> resumeRunId(
    "run-id",
    cl::desc("With --resume: continue run ID from the records the experience "
             "library (--db) keeps, e.g. on another host, into an output "
             "directory that holds no records yet"),
    cl::value_desc("ID"), cl::sub(searchCommand), cl::cat(category));
static cl::opt<bool> listRuns(
    "runs",
    cl::desc("List the runs whose records the library keeps (id, problem, "
             "candidates) instead of printing the library"),
    cl::init(false), cl::sub(libraryCommand), cl::cat(category));
static cl::opt<std::string> printRun(
    "records",
    cl::desc("Print run ID's candidate records, one JSON line each, as its "
             "candidates.jsonl holds them"),
    cl::value_desc("ID"), cl::sub(libraryCommand), cl::cat(category));
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
using kf::EvaluatorKind;
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
static cl::opt<double> budgetTime(
    "budget-time",
    cl::desc("Stop the search after this many seconds (0: no limit); a run "
             "cut by time is not reproducible evaluation for evaluation"),
    cl::init(0), cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string> libraryPath(
    "db",
    cl::desc("The experience library, shared across runs: a SQLite file or a "
             "PostgreSQL URL (postgresql://user@host/database) shared by a "
             "team; default: $KF_EXPERIENCE_DB, else "
             "$XDG_CACHE_HOME/kf/experience.sqlite, else "
             "~/.cache/kf/experience.sqlite"),
    cl::value_desc("path or URL"), cl::sub(searchCommand),
    cl::sub(libraryCommand), cl::cat(category));
static cl::opt<std::string> libraryImport(
    "import",
    cl::desc("Fill the (new) library given by --db from a file that "
             "`kf-evolve library` wrote, e.g. to move a SQLite library to "
             "PostgreSQL, then print it"),
    cl::value_desc("library.json"), cl::sub(libraryCommand), cl::cat(category));
static cl::opt<bool> noLibrary(
    "no-library",
    cl::desc("Neither read nor update the experience library (the curated "
             "rules' priors still weight the experts)"),
    cl::init(false), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> compileJobs(
    "compile-jobs",
    cl::desc("Candidates compiled at once, each in its own worker process "
             "(default: the CPU's hardware threads)"),
    cl::init(0), cl::sub(searchCommand), cl::cat(category));
static cl::opt<double> compileTimeout(
    "compile-timeout",
    cl::desc("Seconds one candidate may take to compile; a candidate over "
             "the limit is recorded as compile-timeout"),
    cl::init(30), cl::sub(searchCommand), cl::cat(category));
static cl::list<std::string> expertKinds(
    "experts",
    cl::desc("Which experts propose candidates, comma-separated: rules (the "
             "built-in rule-based experts; the default), llm (LLMs over "
             "HTTP; docs/llm.md), cuda (tuning a --cuda kernel; the default "
             "with one; docs/cuda-input.md)"),
    cl::CommaSeparated, cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string>
    llmConfigPath("llm-config",
                  cl::desc("JSON file with the LLM endpoint's settings "
                           "(flags override it; docs/llm.md)"),
                  cl::value_desc("file"), cl::sub(searchCommand),
                  cl::cat(category));
static cl::opt<std::string>
    llmProvider("llm-provider",
                cl::desc("openai (any OpenAI-compatible chat "
                         "completions server) or anthropic"),
                cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string> llmBaseUrl(
    "llm-base-url",
    cl::desc("The endpoint's base URL, as in the providers' SDKs, e.g. "
             "http://127.0.0.1:8000/v1 (/chat/completions or /messages is "
             "appended)"),
    cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string> llmModel("llm-model", cl::desc("The model name"),
                                     cl::sub(searchCommand), cl::cat(category));
static cl::opt<double> llmTemperature("llm-temperature",
                                      cl::desc("Sampling temperature"),
                                      cl::sub(searchCommand),
                                      cl::cat(category));
static cl::opt<unsigned> llmMaxTokens("llm-max-tokens",
                                      cl::desc("Tokens per answer at most"),
                                      cl::sub(searchCommand),
                                      cl::cat(category));
static cl::opt<double> llmTimeout("llm-timeout",
                                  cl::desc("Seconds one request may take"),
                                  cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> llmConcurrency("llm-concurrency",
                                        cl::desc("Requests in flight at once"),
                                        cl::sub(searchCommand),
                                        cl::cat(category));
static cl::opt<int64_t> llmBudgetTokens(
    "llm-budget-tokens",
    cl::desc("Stop asking the LLM after this many tokens (0: no limit)"),
    cl::sub(searchCommand), cl::cat(category));
static cl::opt<double> llmBudgetUsd(
    "llm-budget-usd",
    cl::desc("Stop asking the LLM after this many US dollars, at the "
             "config's prices (0: no limit)"),
    cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string> llmCacheDir(
    "llm-cache",
    cl::desc("Directory of cached LLM answers (default: llm-cache in the "
             "output directory)"),
    cl::value_desc("dir"), cl::sub(searchCommand), cl::cat(category));
static cl::opt<bool> llmReplay(
    "llm-replay",
    cl::desc("Answer LLM requests from the cache only, never from the "
             "network (a request not cached is a failed proposal)"),
    cl::init(false), cl::sub(searchCommand), cl::cat(category));
static cl::opt<unsigned> llmRepairRounds(
    "llm-repair-rounds",
    cl::desc("Times an LLM candidate that fails to compile goes back to the "
             "LLM with the error"),
    cl::init(1), cl::sub(searchCommand), cl::cat(category));
static cl::opt<std::string> cudaSource(cl::Positional, cl::desc("<kernel.cu>"),
                                       cl::sub(importCommand),
                                       cl::cat(category));
static cl::list<std::string> pointerRoles(
    "roles",
    cl::desc("Roles of each kernel's pointer parameters in order (input, "
             "output, scratch), recorded as kf.role for the cheat checks"),
    cl::CommaSeparated, cl::sub(importCommand), cl::cat(category));
static cl::opt<bool> untrustedCuda(
    "untrusted",
    cl::desc("Treat the source as a candidate: only CUDA's own headers may "
             "be included, and inline PTX is refused"),
    cl::init(false), cl::sub(importCommand), cl::cat(category));
static cl::opt<std::string> cudaCacheDir(
    "cuda-cache",
    cl::desc("A directory of CUDA imports (default: $KF_CUDA_CACHE): hits "
             "need no clang, every import is stored (docs/cuda-input.md)"),
    cl::value_desc("dir"), cl::sub(importCommand), cl::sub(compileCommand),
    cl::sub(evalCommand), cl::sub(searchCommand), cl::cat(category));
static cl::opt<bool> cacheAllVariants(
    "cache-all",
    cl::desc("With --launch and --cuda-cache: import the source as a "
             "candidate with every combination of the plan's parameter "
             "choices into the cache (for a machine without clang)"),
    cl::init(false), cl::sub(importCommand), cl::cat(category));
static cl::opt<std::string> importOutput("o", cl::desc("Output file"),
                                         cl::value_desc("file"), cl::init("-"),
                                         cl::sub(importCommand),
                                         cl::cat(category));
static cl::opt<bool>
    emitLowered("emit-lowered",
                cl::desc("Internal: include the lowered module in each reply"),
                cl::init(false), cl::sub(compileWorkerCommand),
                cl::cat(category));
static cl::opt<std::string>
    ceilingsPath("ceilings",
                 cl::desc("Measured ceilings (JSON); default: H200"),
                 cl::value_desc("file"), cl::sub(evalCommand),
                 cl::sub(searchCommand), cl::cat(category));

namespace {

/// Reports an error the way the MLIR tools do and returns 1.
int fail(const Twine &message) { return kf::reportError(message); }

using kf::LoadedProblem;

/// Where the problem and the --cuda candidates come from, as the command
/// line says.
kf::ProblemInputOptions inputOptions() {
  kf::ProblemInputOptions options;
  options.problemPath = problemPath;
  options.problemName = problemName;
  options.launchPlanPath = launchPlanPath;
  options.cudaPaths = cudaPaths;
  options.chip = chip;
  options.format = binaryFormat;
  options.cudaCacheDir = cudaCacheDir;
  options.seed = seed;
  return options;
}

std::optional<LoadedProblem> loadProblem(MLIRContext &context,
                                         SourceMgr &sourceMgr) {
  return kf::loadProblem(context, sourceMgr, inputOptions());
}

/// One candidate of the command line: a schedule, a kernel module, or the
/// default schedule.
struct CandidateSource {
  enum class Kind { Default, Schedule, Kernel, Cuda };
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
  for (unsigned i = 0; i < cudaPaths.size(); ++i)
    ordered.push_back({cudaPaths.getPosition(i),
                       {CandidateSource::Kind::Cuda, cudaPaths[i]}});
  llvm::sort(ordered,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<CandidateSource> sources;
  for (auto &entry : ordered)
    sources.push_back(entry.second);
  if (sources.empty())
    sources.push_back(CandidateSource());
  return sources;
}

/// The CUDA import cache: --cuda-cache, else $KF_CUDA_CACHE, else none.
std::string cudaCache() {
  return kf::candidateImportOptions(inputOptions()).cacheDir;
}

/// The launch-plan tuning of the command line (--param, --launch-bounds,
/// --max-registers).
Expected<kf::CudaTuning> cudaTuningFromFlags() {
  kf::CudaTuning tuning;
  for (StringRef assignment : launchParameters) {
    auto [name, value] = assignment.split('=');
    int64_t number;
    if (name.empty() || value.getAsInteger(10, number))
      return createStringError("--param " + assignment +
                               ": expected NAME=INTEGER");
    tuning.parameters[name.str()] = number;
  }
  tuning.launchBounds = launchBounds;
  if (maxRegisters != 0 && (maxRegisters < 16 || maxRegisters > 255))
    return createStringError("--max-registers " + Twine(maxRegisters) +
                             ": a register cap is 16 to 255 per thread (0: "
                             "none)");
  tuning.maxRegisters = maxRegisters;
  return tuning;
}

/// Compiles one candidate; diagnostics go to the source manager handler.
FailureOr<kf::CompiledCandidate>
compileSource(MLIRContext &context, SourceMgr &sourceMgr,
              const LoadedProblem &problem, const CandidateSource &source,
              kf::CompileStage &stage,
              SmallVectorImpl<kf::CheatFinding> *rejections = nullptr) {
  if (source.kind == CandidateSource::Kind::Default)
    return kf::compileCandidate(*problem.module, problemName, std::nullopt,
                                kf::compileOptions(inputOptions()), &stage,
                                rejections);
  if (source.kind == CandidateSource::Kind::Cuda) {
    Expected<kf::CudaTuning> tuning = cudaTuningFromFlags();
    Expected<std::string> text =
        tuning ? kf::cudaCandidateText(inputOptions(), problem, source.path,
                                       *tuning)
               : Expected<std::string>(tuning.takeError());
    if (!text) {
      emitError(UnknownLoc::get(&context)) << toString(text.takeError());
      stage = kf::CompileStage::Cuda;
      return failure();
    }
    return kf::compileText(inputOptions(), problem, kf::CandidateKind::Kernel,
                           *text, source.path, stage, rejections);
  }
  std::string error;
  auto file = openInputFile(source.path, &error);
  if (!file) {
    emitError(UnknownLoc::get(&context)) << error;
    stage = kf::CompileStage::Schedule;
    return failure();
  }
  // A schedule given as a genome (the JSON the experience library keeps,
  // docs/search.md) is rendered for the problem first.
  if (source.kind == CandidateSource::Kind::Schedule &&
      StringRef(source.path).ends_with(".json")) {
    stage = kf::CompileStage::Schedule;
    Expected<json::Value> value = json::parse(file->getBuffer());
    kf::Schedule genome;
    json::Path::Root root("genome");
    if (!value) {
      emitError(UnknownLoc::get(&context))
          << source.path << ": not JSON: " << toString(value.takeError());
      return failure();
    }
    if (!kf::fromJSON(*value, genome, root)) {
      std::string message;
      raw_string_ostream os(message);
      root.printErrorContext(*value, os);
      emitError(UnknownLoc::get(&context))
          << source.path
          << ": not a schedule genome: " << toString(root.getError()) << "\n"
          << message;
      return failure();
    }
    if (problem.selfReferenced())
      return kf::compileText(inputOptions(), problem,
                             kf::CandidateKind::Schedule, "", source.path,
                             stage, rejections);
    FailureOr<std::string> text = kf::renderSchedule(problem.reference, genome);
    if (failed(text))
      return failure();
    return kf::compileText(inputOptions(), problem, kf::CandidateKind::Schedule,
                           *text, source.path, stage, rejections);
  }
  return kf::compileText(inputOptions(), problem,
                         source.kind == CandidateSource::Kind::Schedule
                             ? kf::CandidateKind::Schedule
                             : kf::CandidateKind::Kernel,
                         file->getBuffer(), source.path, stage, rejections);
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

/// The command of a measurement worker: this same executable.
std::vector<std::string> measurementWorkerCommand(const char *argv0) {
  std::string executable =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&fail));
  return {executable, "worker", "--chip=" + chip};
}

/// A client for one measurement worker.
kf::WorkerClient makeWorker(const char *argv0) {
  return kf::WorkerClient(measurementWorkerCommand(argv0));
}

int runCompile(MLIRContext &context) {
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  std::vector<CandidateSource> sources = candidateSources();
  if (sources.size() != 1)
    return fail("compile takes one candidate (one --schedule, --kernel or "
                "--cuda)");
  // The default schedule is printed as rendered, or as its genes, without
  // compiling it: what to read (or to start a hand schedule from) when it
  // does not compile.
  if (emit == EmitKind::Genome &&
      sources.front().kind != CandidateSource::Kind::Default)
    return fail("--emit=genome prints the default schedule's genes: give no "
                "--schedule, --kernel or --cuda");
  if ((emit == EmitKind::Schedule || emit == EmitKind::Genome) &&
      sources.front().kind == CandidateSource::Kind::Default) {
    FailureOr<kf::Schedule> schedule =
        kf::buildDefaultSchedule(loaded->reference);
    if (failed(schedule))
      return 1;
    if (emit == EmitKind::Genome)
      return writeOutput(formatv("{0:2}\n", kf::toJSON(*schedule)).str());
    FailureOr<std::string> text =
        kf::renderSchedule(loaded->reference, *schedule);
    if (failed(text))
      return 1;
    return writeOutput(*text);
  }
  kf::CompileStage stage;
  FailureOr<kf::CompiledCandidate> compiled =
      compileSource(context, sourceMgr, *loaded, sources.front(), stage);
  if (failed(compiled))
    return fail("compilation failed at the " +
                kf::stringifyCompileStage(stage) + " stage");
  switch (emit) {
  case EmitKind::PTX:
    return writeOutput(kf::collectKernelImages(*compiled->lowered));
  case EmitKind::Lowered:
    return writeOutput(kf::printModule(*compiled->lowered));
  case EmitKind::Schedule:
    return writeOutput(compiled->schedule);
  case EmitKind::Genome: // handled above
    return 1;
  case EmitKind::Plan: {
    std::string text;
    raw_string_ostream os(text);
    os << formatv("{0:2}", json::Value(kf::toJSON(compiled->plan))) << "\n";
    return writeOutput(text);
  }
  case EmitKind::Diagnosis: {
    kf::Ceilings ceilings;
    kf::ProblemAnalysis analysis =
        kf::analyzeProblem(loaded->reference, ceilings);
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

  FailureOr<kf::CompiledCandidate> reference =
      kf::compileReference(inputOptions(), *loaded);
  if (failed(reference))
    return 1;
  std::string referenceText = kf::printModule(*reference->lowered);
  kf::ProblemAnalysis analysis =
      kf::analyzeProblem(loaded->reference, ceilings);
  const kf::ProblemSpec &spec = loaded->spec;

  kf::WorkerClient worker = makeWorker(argv0);
  kf::CompileStage stage;
  kf::EvalConfig config = evalConfigFromFlags();

  json::Array results;
  bool allCorrect = true, noDevice = false;
  for (const CandidateSource &source : candidateSources()) {
    json::Object output{
        {"problem", spec.name},
        {"reference", loaded->selfReferenced() ? "cuda-as-written" : "problem"},
        {"candidate", source.label()},
        {"analysis", kf::toJSON(analysis, ceilings)}};
    SmallVector<kf::CheatFinding> rejections;
    FailureOr<kf::CompiledCandidate> candidate =
        compileSource(context, sourceMgr, *loaded, source, stage, &rejections);
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
        spec, referenceText, kf::printModule(*candidate->lowered), config,
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
  FailureOr<kf::CompiledCandidate> reference =
      kf::compileReference(inputOptions(), *loaded);
  if (failed(reference))
    return 1;
  kf::ProblemSpec spec = kf::buildProblemSpec(loaded->problem);
  kf::WorkerClient worker = makeWorker(argv0);
  kf::EvalConfig config;
  config.device = device;
  config.seed = seed;
  Expected<kf::PlanIO> gpu = worker.runForIO(
      spec, kf::printModule(*reference->lowered), config,
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

/// Writes `bytes` of `tensor` as a NumPy .npy file (format version 1.0: a
/// magic string, a header dict, raw little-endian data). Hand-written: the
/// format is a dozen lines and no dependency we have writes it. bf16, which
/// NumPy lacks, is written as its raw 16-bit words ('<u2').
static Error writeNpy(StringRef path, const kf::TensorSpec &tensor,
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
int runCheckProblem(MLIRContext &context) {
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  if (trials < 2)
    return fail("check-problem needs --trials 2 or more: the constant kernel "
                "is taken from one trial and judged on the others");
  Expected<kf::HostProblemCheck> check =
      kf::checkProblemOnCPU(loaded->problem, trials, seed);
  if (!check)
    return fail("the CPU reference did not run: " +
                toString(check.takeError()));
  kf::ProblemSpec spec = kf::buildProblemSpec(loaded->problem);
  json::Object result{
      {"problem", loaded->problem.getSymName()},
      {"problem_check", check->degenerate ? "degenerate" : "passed"},
      {"trials", (int64_t)trials},
      {"seed", (int64_t)seed}};
  if (check->degenerate)
    result["message"] = kf::degenerateProblemMessage(spec, *check->degenerate);
  if (!dumpDirectory.empty()) {
    if (std::error_code error = sys::fs::create_directories(dumpDirectory))
      return fail("cannot create " + dumpDirectory + ": " + error.message());
    auto dump = [&](StringRef prefix, ArrayRef<kf::TensorSpec> tensors,
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
      return fail(toString(std::move(error)));
    if (Error error = dump("output", spec.outputs, check->outputs, outputs))
      return fail(toString(std::move(error)));
    result["inputs"] = std::move(inputs);
    result["outputs"] = std::move(outputs);
  }
  outs() << formatv("{0:2}", json::Value(std::move(result))) << "\n";
  return check->degenerate ? 2 : 0;
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

/// kf-evolve compile-worker: compiles one schedule per request line for the
/// search (kf::CompilePool), so that a compiler crash or a compile that
/// never ends costs a worker, not the search.
int runCompileWorkerCommand(MLIRContext &context) {
  return kf::runCompileWorker(context, inputOptions(), emitLowered, std::cin);
}

/// kf-evolve import: CUDA device code as a gpu.module of llvm + nvvm ops.
/// kf-evolve import --cache-all: the source imported as a candidate (as the
/// CUDA experts import it) for every combination of the plan's parameter
/// choices, into the import cache.
int runCacheAllVariants(MLIRContext &context) {
  std::string cache = cudaCache();
  if (cache.empty())
    return fail("--cache-all needs --cuda-cache DIR");
  Expected<kf::CudaLaunchSpec> plan =
      kf::loadLaunchPlan(inputOptions(), "--cache-all");
  if (!plan)
    return fail(toString(plan.takeError()));
  std::vector<std::vector<std::pair<std::string, int64_t>>> assignments = {{}};
  for (const kf::CudaLaunchParameter &parameter : plan->parameters) {
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
      return fail("the plan's choices make more than 4096 combinations; "
                  "cache fewer");
  }
  unsigned failures = 0;
  for (const auto &assignment : assignments) {
    kf::CudaImportOptions options = kf::candidateImportOptions(inputOptions());
    std::string described;
    for (const auto &[name, value] : assignment) {
      options.defines.push_back({name, std::to_string(value)});
      described += " " + name + "=" + std::to_string(value);
    }
    Expected<OwningOpRef<ModuleOp>> imported =
        kf::importCuda(cudaSource, &context, options);
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
                    cudaSource.getValue(), cache);
  return failures == assignments.size() ? 1 : 0;
}

int runImportCommand(MLIRContext &context) {
  if (cacheAllVariants)
    return runCacheAllVariants(context);
  kf::CudaImportOptions options;
  options.chip = chip;
  options.untrusted = untrustedCuda;
  options.cacheDir = cudaCache();
  for (const std::string &role : pointerRoles) {
    if (role != "input" && role != "output" && role != "scratch")
      return fail("--roles: '" + role +
                  "' is not a role (input, output or scratch)");
    options.pointerRoles.push_back(role);
  }
  Expected<OwningOpRef<ModuleOp>> imported =
      kf::importCuda(cudaSource, &context, options);
  if (!imported)
    return fail(toString(imported.takeError()));
  std::string error;
  auto output = openOutputFile(importOutput, &error);
  if (!output)
    return fail(error);
  // With locations: findings on the imported module then point at the
  // CUDA source lines.
  (*imported)->print(output->os(), OpPrintingFlags().enableDebugInfo(
                                       /*enable=*/true, /*prettyForm=*/false));
  output->os() << "\n";
  output->keep();
  return 0;
}

/// The search's settings as the command line gives them.
kf::SearchConfig searchConfigFromFlags(const char *argv0) {
  kf::SearchConfig config;
  config.input = inputOptions();
  config.moreProblemPaths = moreProblemPaths;
  config.cudaProblemPath = cudaProblemPath;
  config.outputDir = outputDir;
  config.resume = resumeSearch;
  config.replace = replaceOutput;
  config.resumeRunId = resumeRunId;
  config.eval = evalConfigFromFlags();
  // checkSearchConfig compares --min-runs with --runs as given.
  config.eval.maxTimedRuns = maxRuns;
  config.timeoutSeconds = timeoutSeconds;
  config.evaluator = evaluatorKind;
  config.gpuSelection = gpuSelection;
  config.compileJobs = compileJobs;
  config.compileTimeout = compileTimeout;
  config.budgetEvals = budgetEvals;
  config.islands = islandCount;
  config.budgetTime = budgetTime;
  config.targetSpeedup = targetSpeedup;
  if (roundSize.getNumOccurrences())
    config.roundSize = roundSize;
  config.overlapRounds = overlapRounds;
  if (roundsInFlight.getNumOccurrences())
    config.roundsInFlight = roundsInFlight;
  config.experts = expertKinds;
  kf::LLMSettings &llm = config.llm;
  llm.configPath = llmConfigPath;
  auto given = [](auto &option, auto &setting) {
    if (option.getNumOccurrences())
      setting = option.getValue();
  };
  given(llmProvider, llm.provider);
  given(llmBaseUrl, llm.baseUrl);
  given(llmModel, llm.model);
  given(llmTemperature, llm.temperature);
  given(llmTimeout, llm.timeoutSeconds);
  given(llmBudgetUsd, llm.budgetUsd);
  given(llmMaxTokens, llm.maxTokens);
  given(llmConcurrency, llm.concurrency);
  given(llmBudgetTokens, llm.budgetTokens);
  llm.cacheDir = llmCacheDir;
  llm.replay = llmReplay;
  llm.repairRounds = llmRepairRounds;
  config.libraryPath = libraryPath;
  config.noLibrary = noLibrary;
  config.useMpi = useMpi;
  config.mpiSilence = mpiSilence;
  config.mpiDepth = mpiDepth;
  config.mpiGroups = mpiGroups;
  config.executable =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&fail));
  return config;
}

/// kf-evolve library: the experience library as JSON, after an integrity
/// check.
int runLibraryCommand() {
  std::string path = libraryPath.empty() ? kf::ExperienceLibrary::defaultPath()
                                         : libraryPath.getValue();
  Expected<std::unique_ptr<kf::ExperienceLibrary>> library =
      kf::ExperienceLibrary::open(path);
  if (!library)
    return fail(toString(library.takeError()));
  if ((listRuns || !printRun.empty()) && !libraryImport.empty())
    return fail("--runs and --records print records; --import fills a "
                "library: give one of them");
  if (listRuns && !printRun.empty())
    return fail("--runs lists the runs, --records prints one: give one of "
                "them");
  if (!libraryImport.empty()) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> text =
        MemoryBuffer::getFileOrSTDIN(libraryImport);
    if (!text)
      return fail("--import " + libraryImport + ": " +
                  text.getError().message());
    Expected<json::Value> exported = json::parse((*text)->getBuffer());
    if (!exported)
      return fail("--import " + libraryImport + ": " +
                  toString(exported.takeError()));
    if (Error error = (*library)->importJSON(*exported))
      return fail("--import " + libraryImport + ": " +
                  toString(std::move(error)));
  }
  if (listRuns || !printRun.empty()) {
    if (!printRun.empty()) {
      Expected<kf::RunRecords> stored = (*library)->runRecords(printRun);
      if (!stored)
        return fail("--records: " + toString(stored.takeError()));
      for (const std::string &line : stored->records)
        outs() << line << "\n";
      return 0;
    }
    Expected<std::vector<kf::RunSummary>> runs = (*library)->listRuns();
    if (!runs)
      return fail(toString(runs.takeError()));
    json::Array array;
    for (const kf::RunSummary &run : *runs)
      array.push_back(json::Object{{"run", run.run},
                                   {"problem", run.problem},
                                   {"candidates", run.candidates}});
    outs() << formatv("{0:2}", json::Value(std::move(array))) << "\n";
    return 0;
  }
  Expected<std::string> integrity = (*library)->integrityCheck();
  if (!integrity)
    return fail(toString(integrity.takeError()));
  if (*integrity != "ok")
    return fail("experience library " + (*library)->name() +
                " is damaged: " + *integrity);
  Expected<json::Value> exported = (*library)->exportJSON();
  if (!exported)
    return fail(toString(exported.takeError()));
  outs() << formatv("{0:2}", *exported) << "\n";
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
  if (argc > 1 && (StringRef(argv[1]).ends_with(".mlir") ||
                   StringRef(argv[1]).ends_with(".cu")))
    arguments.insert(arguments.begin() + 1, "search");
  cl::ParseCommandLineOptions(
      arguments.size(), arguments.data(),
      "Kernel Foundry: evaluate and search GPU kernels for a problem\n\n"
      "  kf-evolve PROBLEM [--budget-evals N] [--seed N] [--output DIR] "
      "(= kf-evolve search)\n"
      "  kf-evolve KERNEL.cu --problem PROBLEM --launch PLAN.json [...]\n"
      "  kf-evolve compile PROBLEM [--schedule S] [-o out.ptx]\n"
      "  kf-evolve eval PROBLEM [--schedule S | --kernel K]...\n"
      "  kf-evolve check-reference PROBLEM\n");

  DialectRegistry registry;
  kf::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors point at the user's source; the generic op dump only adds noise.
  context.printOpOnDiagnostic(false);

  // With no problem file, a --cuda candidate's launch plan may describe
  // the problem; the first CUDA source as written is then the reference.
  bool planProblem = problemPath.empty() && !cudaPaths.empty();
  if (compileCommand)
    return problemPath.empty() && !planProblem
               ? fail("compile needs a problem file")
               : runCompile(context);
  if (evalCommand)
    return problemPath.empty() && !planProblem
               ? fail("eval needs a problem file")
               : runEval(context, argv[0]);
  if (searchCommand) {
    if (problemPath.empty() && !planProblem)
      return fail("search needs a problem file");
    return kf::runSearches(context, searchConfigFromFlags(argv[0]));
  }
  if (checkReferenceCommand)
    return problemPath.empty() ? fail("check-reference needs a problem file")
                               : runCheckReference(context, argv[0]);
  if (checkProblemCommand)
    return problemPath.empty() ? fail("check-problem needs a problem file")
                               : runCheckProblem(context);
  if (workerCommand)
    return runWorkerCommand(context);
  if (libraryCommand)
    return runLibraryCommand();
  if (importCommand)
    return cudaSource.empty() ? fail("import needs a .cu file")
                              : runImportCommand(context);
  if (compileWorkerCommand)
    return problemPath.empty() && launchPlanPath.empty()
               ? fail("compile-worker needs a problem file (or --launch "
                      "plan.json with a \"problem\" section)")
               : runCompileWorkerCommand(context);
  return fail("give a subcommand: compile, eval (see --help)");
}
