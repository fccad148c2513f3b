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
#include "kf/Search/CudaExpert.h"
#include "kf/Search/ExperienceLibrary.h"
#include "kf/Search/LLMExpert.h"
#include "kf/Search/OutputDirectory.h"
#include "kf/Search/Records.h"
#ifdef KF_ENABLE_LLM
#include "kf/Search/LLMClient.h"
#endif
#include "kf/Search/Report.h"
#include "kf/Search/Search.h"
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
#include "llvm/Support/SHA256.h"
#include "llvm/Support/Program.h"
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

#ifdef KF_ENABLE_MPI
/// The MPI job's ranks (--mpi), created by the first search and kept for
/// the next problems of the job.
static std::unique_ptr<kf::MpiCluster> mpiCluster;
#endif

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

/// The status of a candidate no evaluating rank could take (--mpi): not a
/// result, and never recorded.
constexpr const char *kLostStatus = "evaluator-lost";

/// Reports an error the way the MLIR tools do and returns 1.
int fail(const Twine &message) {
  WithColor::error(errs(), "kf-evolve") << kf::redactSecrets(message.str())
                                        << "\n";
  return 1;
}

struct LoadedProblem {
  OwningOpRef<ModuleOp> module;
  /// Null when the problem comes from the launch plan's "problem" section
  /// (a CUDA kernel with no problem file): the kernel as written is then
  /// the reference, and `reference` an external function with the
  /// problem's signature (kf::buildProblemSignature).
  kf::ProblemOp problem;
  func::FuncOp reference;
  kf::ProblemSpec spec;

  bool selfReferenced() const { return !problem; }
};

Expected<kf::CudaLaunchSpec> loadLaunchPlan(StringRef user);

/// A problem from the launch plan (no problem file): its inputs, outputs
/// and tolerance; named by the plan or after the first CUDA source.
std::optional<LoadedProblem> loadPlanProblem(MLIRContext &context) {
  Expected<kf::CudaLaunchSpec> plan =
      loadLaunchPlan("a CUDA kernel with no problem file");
  if (!plan) {
    fail(toString(plan.takeError()));
    return std::nullopt;
  }
  if (!plan->problem) {
    fail(launchPlanPath + ": no problem file was given and the plan has no "
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
    std::string stem = cudaPaths.empty()
                           ? std::string("problem")
                           : sys::path::stem(cudaPaths.front()).str();
    for (char &c : stem)
      if (!isAlnum(c) && c != '_')
        c = '_';
    loaded.spec.name = stem;
  }
  Expected<OwningOpRef<ModuleOp>> module =
      kf::buildProblemSignature(&context, loaded.spec);
  if (!module) {
    fail(launchPlanPath + ": " + toString(module.takeError()));
    return std::nullopt;
  }
  loaded.module = std::move(*module);
  loaded.reference = *loaded.module->getOps<func::FuncOp>().begin();
  return loaded;
}

/// Parses and verifies the problem file; diagnostics are printed with their
/// locations by the source manager handler. With no problem file, the
/// problem comes from the launch plan (loadPlanProblem).
std::optional<LoadedProblem> loadProblem(MLIRContext &context,
                                         SourceMgr &sourceMgr) {
  if (problemPath.empty())
    return loadPlanProblem(context);
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
  loaded.reference = problem->getReferenceFunc();
  loaded.spec = kf::buildProblemSpec(*problem);
  // A plan that also describes the problem: the problem file wins, and the
  // user is told that the plan's inputs and tolerance are not used.
  if (!launchPlanPath.empty()) {
    Expected<kf::CudaLaunchSpec> plan = loadLaunchPlan("a --cuda candidate");
    if (!plan)
      consumeError(plan.takeError()); // reported where the plan is used
    else if (plan->problem)
      WithColor::warning(errs(), "kf-evolve")
          << launchPlanPath << ": the plan's \"problem\" section is "
          << "ignored: " << problemPath
          << " is the problem (its reference, inputs and tolerance)\n";
  }
  return loaded;
}

kf::CompileOptions compileOptions();

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

/// Compiles a candidate given as text: a schedule for the problem, or a
/// rewritten kernel module (parsed first: a parse error fails at the
/// host-code stage). `bufferName` names the text in diagnostics. The one
/// place eval, compile, the compile worker and the search's winner compile
/// candidate text.
FailureOr<kf::CompiledCandidate>
compileText(MLIRContext &context, const LoadedProblem &problem,
            kf::CandidateKind kind, StringRef text, StringRef bufferName,
            kf::CompileStage &stage,
            SmallVectorImpl<kf::CheatFinding> *rejections = nullptr) {
  kf::CompileOptions options = compileOptions();
  if (kind == kf::CandidateKind::Schedule) {
    if (problem.selfReferenced()) {
      emitError(UnknownLoc::get(&context))
          << "a schedule transforms the problem's reference function, and "
             "this problem has none (the CUDA kernel as written is its "
             "reference): give a kernel candidate, or a problem file";
      stage = kf::CompileStage::Schedule;
      return failure();
    }
    return kf::compileCandidate(*problem.module, problemName, text, options,
                                &stage, rejections);
  }
  llvm::SourceMgr kernelSource;
  kernelSource.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(text, bufferName), SMLoc());
  OwningOpRef<ModuleOp> kernel =
      parseSourceFile<ModuleOp>(kernelSource, ParserConfig(&context));
  if (!kernel) {
    stage = kf::CompileStage::HostCode;
    return failure();
  }
  return kf::compileKernelCandidate(problem.reference, *kernel, options, &stage,
                                    rejections);
}

/// The CUDA import cache: --cuda-cache, else $KF_CUDA_CACHE, else none.
std::string cudaCache() {
  if (!cudaCacheDir.empty())
    return cudaCacheDir;
  return sys::Process::GetEnv("KF_CUDA_CACHE").value_or("");
}

/// How a CUDA candidate's source is imported: untrusted, for --chip,
/// through the import cache. One place, so that the cache --cache-all fills
/// is the one compile, eval and the search look in.
kf::CudaImportOptions candidateImportOptions() {
  kf::CudaImportOptions options;
  options.chip = chip;
  options.untrusted = true;
  options.cacheDir = cudaCache();
  return options;
}

/// What a CUDA candidate is built from: its source, bound to the problem
/// `spec` by `plan`, imported as candidateImportOptions says.
kf::CudaExpertSetup cudaSetup(MLIRContext &context, const kf::ProblemSpec &spec,
                              StringRef cudaPath,
                              const kf::CudaLaunchSpec &plan) {
  kf::CudaExpertSetup setup;
  setup.context = &context;
  setup.sourcePath = cudaPath.str();
  setup.plan = plan;
  setup.spec = spec;
  setup.importOptions = candidateImportOptions();
  setup.seed = seed;
  return setup;
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

/// A CUDA candidate as kernel-candidate text: the device code imported as
/// untrusted (only CUDA's headers, no inline PTX, no host code) with the
/// tuning's parameters as macros (the plan's values where the tuning has
/// none), bound to `problem` by the launch plan of --launch.
Expected<std::string> cudaCandidateText(MLIRContext &context,
                                        const LoadedProblem &problem,
                                        StringRef cudaPath,
                                        const kf::CudaTuning &tuning) {
  Expected<kf::CudaLaunchSpec> plan = loadLaunchPlan("a --cuda candidate");
  if (!plan)
    return plan.takeError();
  return kf::renderCudaCandidate(
      cudaSetup(context, problem.spec, cudaPath, *plan), tuning);
}

/// The launch plan of --launch; `user` says who needs it.
Expected<kf::CudaLaunchSpec> loadLaunchPlan(StringRef user) {
  if (launchPlanPath.empty())
    return createStringError(user + " needs --launch plan.json: the "
                                    "launches that bind the CUDA kernels to "
                                    "the problem (docs/cuda-input.md)");
  std::string error;
  auto file = openInputFile(launchPlanPath, &error);
  if (!file)
    return createStringError(error);
  return kf::parseCudaLaunchSpec(file->getBuffer(), launchPlanPath);
}

/// Compiles one candidate; diagnostics go to the source manager handler.
FailureOr<kf::CompiledCandidate>
compileSource(MLIRContext &context, SourceMgr &sourceMgr,
              const LoadedProblem &problem, const CandidateSource &source,
              kf::CompileStage &stage,
              SmallVectorImpl<kf::CheatFinding> *rejections = nullptr) {
  if (source.kind == CandidateSource::Kind::Default)
    return kf::compileCandidate(*problem.module, problemName, std::nullopt,
                                compileOptions(), &stage, rejections);
  if (source.kind == CandidateSource::Kind::Cuda) {
    Expected<kf::CudaTuning> tuning = cudaTuningFromFlags();
    Expected<std::string> text =
        tuning ? cudaCandidateText(context, problem, source.path, *tuning)
               : Expected<std::string>(tuning.takeError());
    if (!text) {
      emitError(UnknownLoc::get(&context)) << toString(text.takeError());
      stage = kf::CompileStage::Cuda;
      return failure();
    }
    return compileText(context, problem, kf::CandidateKind::Kernel, *text,
                       source.path, stage, rejections);
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
          << source.path << ": not a schedule genome: "
          << toString(root.getError()) << "\n"
          << message;
      return failure();
    }
    if (problem.selfReferenced())
      return compileText(context, problem, kf::CandidateKind::Schedule, "",
                         source.path, stage, rejections);
    FailureOr<std::string> text = kf::renderSchedule(problem.reference, genome);
    if (failed(text))
      return failure();
    return compileText(context, problem, kf::CandidateKind::Schedule, *text,
                       source.path, stage, rejections);
  }
  return compileText(context, problem,
                     source.kind == CandidateSource::Kind::Schedule
                         ? kf::CandidateKind::Schedule
                         : kf::CandidateKind::Kernel,
                     file->getBuffer(), source.path, stage, rejections);
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
  if (loaded.selfReferenced()) {
    // No problem file: the first CUDA source as written (the plan's
    // parameter values, no launch bounds, no register cap) is the
    // reference.
    MLIRContext &context = *loaded.module->getContext();
    Expected<std::string> text =
        cudaCandidateText(context, loaded, cudaPaths.front(), kf::CudaTuning());
    if (!text) {
      fail("the CUDA kernel as written (the reference): " +
           toString(text.takeError()));
      return failure();
    }
    FailureOr<kf::CompiledCandidate> reference =
        compileText(context, loaded, kf::CandidateKind::Kernel, *text,
                    cudaPaths.front(), stage);
    if (failed(reference))
      fail("the CUDA kernel as written (the reference) does not compile (" +
           kf::stringifyCompileStage(stage) + " stage)");
    return reference;
  }
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
      return writeOutput(
          formatv("{0:2}\n", kf::toJSON(*schedule)).str());
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
    return writeOutput(printModule(*compiled->lowered));
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

  FailureOr<kf::CompiledCandidate> reference = compileReference(*loaded);
  if (failed(reference))
    return 1;
  std::string referenceText = printModule(*reference->lowered);
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
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  std::string firstError;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
        firstError.empty())
      firstError = diagnostic.str();
    return success();
  });
  std::string line;
  while (std::getline(std::cin, line)) {
    kf::CompileReply reply;
    Expected<json::Value> request = json::parse(line);
    kf::CandidateSource candidate;
    json::Path::Root root;
    if (!request)
      consumeError(request.takeError());
    if (!request || !kf::fromJSON(*request, candidate, root)) {
      reply.status = "compile-error:request";
      reply.error = "a request is a JSON object with \"kind\" (schedule or "
                    "kernel) and \"text\"";
    } else {
      firstError.clear();
      kf::CompileStage stage = kf::CompileStage::Schedule;
      SmallVector<kf::CheatFinding> rejections;
      FailureOr<kf::CompiledCandidate> compiled =
          compileText(context, *loaded, candidate.kind, candidate.text,
                      "candidate-kernel.mlir", stage, &rejections);
      if (failed(compiled)) {
        reply.status =
            rejections.empty()
                ? ("compile-error:" + kf::stringifyCompileStage(stage)).str()
                : "rejected";
        reply.error = firstError;
      } else {
        reply.status = "compiled";
        reply.predictedSeconds = compiled->predictedSeconds;
        reply.triggers = kf::diagnosisTriggers(*compiled);
        if (emitLowered)
          reply.lowered = printModule(*compiled->lowered);
      }
    }
    outs() << reply.toJSON() << "\n";
    outs().flush();
  }
  return 0;
}

/// A candidate's diagnosis as the report shows it.
kf::DiagnosisSummary summarizeDiagnosis(const kf::CompiledCandidate &compiled) {
  kf::DiagnosisSummary summary;
  summary.bottleneck = compiled.predictedBottleneck;
  summary.kernels = compiled.diagnosis.size();
  for (const json::Value &kernel : compiled.diagnosis)
    if (const json::Object *object = kernel.getAsObject())
      if (const json::Array *findings = object->getArray("findings"))
        for (const json::Value &finding : *findings)
          summary.findings.push_back(finding);
  return summary;
}

/// kf-evolve search: the evolutionary loop (lib/Search) with a GPU or
/// cost-model evaluator, weighted and seeded by the experience library;
/// writes the best schedule, its PTX, result.json and the report.
#ifdef KF_ENABLE_MPI
/// The job's ranks, created by the first search that needs them and kept
/// for the next problems of the job.
Expected<kf::MpiCluster *> jobCluster() {
  if (!mpiCluster) {
    kf::MpiCluster::Limits limits;
    limits.silence =
        std::chrono::milliseconds((int64_t)(mpiSilence.getValue() * 1000));
    limits.depth = mpiDepth;
    limits.groups = mpiGroups;
    Expected<std::unique_ptr<kf::MpiCluster>> created =
        kf::MpiCluster::create(limits);
    if (!created)
      return created.takeError();
    mpiCluster = std::move(*created);
  }
  return mpiCluster.get();
}
#endif

int runSearchCommand(MLIRContext &context, const char *argv0) {
  // --mpi: rank 0 drives the search and evaluates nothing itself; every
  // other rank evaluates (compiles, checks, measures) what it is sent.
  // Every rank loads the problem; only rank 0 reports what is wrong with it
  // (several ranks writing one error at once interleave it on the job's
  // stderr).
#ifdef KF_ENABLE_MPI
  kf::MpiCluster *cluster = nullptr;
  if (useMpi) {
    Expected<kf::MpiCluster *> job = jobCluster();
    if (!job)
      return fail(toString(job.takeError()));
    cluster = *job;
    // A call on the work channel that never returns (none should: this is
    // a last resort) ends this rank with an error instead of a hang. Rank 0
    // records candidates as they come back, so --resume goes on.
    std::chrono::milliseconds limit(
        (int64_t)(std::max(10.0, 2 * mpiSilence.getValue()) * 1000));
    cluster->watchForStalls(limit, [limit, rank = cluster->rank()] {
      errs() << formatv(
          "kf-evolve: error: rank {0}'s calls on the work channel have not "
          "returned for {1} s (a stall the channel should never have; "
          "docs/search.md): {2}\n",
          rank, limit.count() / 1000,
          rank == 0 ? "the job ends; what was evaluated is recorded in the "
                      "output directory: run the same command with --resume "
                      "to go on"
                    : "this rank ends");
      errs().flush();
    });
  }
  bool evaluatingRank = cluster && cluster->rank() != 0;
  bool drivingRank = cluster && cluster->rank() == 0;
#else
  if (useMpi)
    return fail("--mpi: this kf-evolve was built without MPI "
                "(KF_ENABLE_MPI=OFF, as in the portable build); build it "
                "where an MPI is installed (Debian: libopenmpi-dev)");
  bool evaluatingRank = false, drivingRank = false;
#endif
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                     evaluatingRank ? nulls() : errs());
  std::optional<LoadedProblem> loaded = loadProblem(context, sourceMgr);
  if (!loaded)
    return 1;
  // A CUDA kernel with no problem file is its own reference: there is no
  // reference function to schedule, so no default schedule, no rule
  // experts and no library seeds; the kernel as written is candidate 0.
  bool selfReferenced = loaded->selfReferenced();
  func::FuncOp reference = loaded->reference;
  kf::Schedule defaultSchedule;
  kf::ProblemFeatures features;
  features.problem = loaded->spec.name;
  if (!loaded->spec.inputs.empty())
    features.elementType = loaded->spec.inputs.front().elementType;
  if (!selfReferenced) {
    FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
    if (failed(schedule))
      return 1;
    defaultSchedule = std::move(*schedule);
    FailureOr<SmallVector<kf::OpShape>> shapes = kf::describeOps(reference);
    if (failed(shapes))
      return 1;
    features.ops = *shapes;
  }

  // A CUDA kernel to evolve (--cuda, or kf-evolve kernel.cu --problem):
  // by default only the CUDA experts propose.
  if (cudaPaths.size() > 1)
    return fail("search evolves one CUDA source (one --cuda)");
  bool cudaSearch = !cudaPaths.empty();
  bool ruleExperts = expertKinds.empty() && !cudaSearch;
  bool llmExperts = false, cudaExperts = expertKinds.empty() && cudaSearch;
  for (const std::string &kind : expertKinds) {
    if (kind == "rules")
      ruleExperts = true;
    else if (kind == "llm")
      llmExperts = true;
    else if (kind == "cuda")
      cudaExperts = true;
    else
      return fail("--experts: unknown expert kind '" + kind +
                  "' (known: rules, llm, cuda)");
  }
  if (cudaExperts && !cudaSearch)
    return fail("--experts cuda needs a CUDA kernel (--cuda file.cu and "
                "--launch plan.json)");
  if (selfReferenced && ruleExperts)
    return fail("--experts rules: the rule experts schedule a problem's "
                "reference function, and this CUDA kernel has no problem file "
                "(its output as written is the reference); give --problem "
                "p.mlir to let them compete");
  if (cudaSearch && !cudaExperts)
    return fail("--experts " +
                llvm::join(expertKinds.begin(), expertKinds.end(), ",") +
                " leaves the CUDA kernel untouched: add cuda (e.g. --experts "
                "cuda,rules)");
  if (cudaExperts && llmExperts)
    return fail("--experts: cuda and llm experts cannot share a search yet; "
                "choose one");

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

  kf::SearchCallbacks callbacks;
  callbacks.render =
      [&](const kf::Schedule &genome) -> std::optional<std::string> {
    FailureOr<std::string> text =
        quiet([&] { return kf::renderSchedule(reference, genome); });
    if (failed(text))
      return std::nullopt;
    return *text;
  };
  callbacks.restructure =
      [&](const kf::Schedule &genome) -> std::optional<kf::Restructured> {
    if (selfReferenced)
      return std::nullopt; // no genome fits a problem with no reference
    FailureOr<kf::Restructured> restructured =
        quiet([&] { return kf::restructure(reference, genome); });
    if (failed(restructured))
      return std::nullopt;
    return std::move(*restructured);
  };

#ifdef KF_ENABLE_MPI
  // Per problem, rank 0 releases the others once and each of them serves
  // once, whatever happens on the way, so that all go on to the next
  // problem together. A rank that could not set the problem up answers
  // every request with that.
  bool served = false;
  llvm::scope_exit inStep([&] {
    if (!cluster)
      return;
    if (cluster->rank() == 0) {
      // A rank that died holding no candidate is found only here, when it
      // does not answer the stop: the search lost nothing, but the user is
      // told (deaths found earlier were said after their dispatch).
      unsigned deadBefore = cluster->deadServers();
      cluster->releaseServers();
      if (unsigned dead = cluster->deadServers(); dead > deadBefore)
        WithColor::warning(errs(), "kf-evolve")
            << dead - deadBefore
            << " evaluating rank(s) stopped answering while they held no "
               "candidate; none was lost ("
            << cluster->liveServers() << " left)\n";
    } else if (!served) {
      std::string reply;
      raw_string_ostream(reply) << json::Value(json::Object{
          {"outcome",
           kf::toJSON(kf::Outcome{"compile-error:rank",
                                  0,
                                  {},
                                  "this rank could not set the problem up"})},
          {"evaluator", ""}});
      cluster->serve([&](StringRef) { return reply; },
                     std::chrono::seconds(600), /*evaluator=*/"");
    }
  });
#endif

  // The GPUs: the reference and one measurement worker per GPU (--gpus),
  // each its own process and context.
  bool useGpu = evaluatorKind != EvaluatorKind::CostModel && !drivingRank;
  std::unique_ptr<kf::WorkerPool> gpus;
  std::string referenceText;
  const kf::ProblemSpec &spec = loaded->spec;
  kf::EvalConfig config = evalConfigFromFlags();
  config.timeReference = false; // the default is a candidate like the others
  config.timeIncorrect = false;
  // What this process evaluates with, as an evaluating rank tells rank 0:
  // its GPU's model, or the cost model's target chip (predictions for
  // another chip are another model too).
  std::string measuredOn = "cost model for " + chip;
  if (useGpu) {
    std::vector<int> devices = {device};
    // The host's GPUs, asked once. Without a driver or a device the first
    // measurement says so and falls back to the cost model (--gpus with
    // --evaluator gpu fails here).
    Expected<std::vector<kf::GpuInfo>> listed = kf::listGpus();
    bool haveList = bool(listed);
    std::vector<kf::GpuInfo> available;
    if (haveList) {
      available = std::move(*listed);
    } else if (!gpuSelection.empty() && evaluatorKind == EvaluatorKind::Gpu) {
      return fail("--gpus: " + toString(listed.takeError()));
    } else {
      consumeError(listed.takeError());
    }
#ifdef KF_ENABLE_MPI
    if (evaluatingRank && gpuSelection.empty() && !available.empty()) {
      // One GPU per evaluating rank: the evaluating ranks of a host take
      // its GPUs in the order of their ranks.
      devices = {
          available[cluster->hostEvaluatorIndex() % available.size()].ordinal};
    }
#endif
    if (!gpuSelection.empty() && haveList) {
      Expected<std::vector<kf::GpuInfo>> chosen =
          kf::selectGpus(gpuSelection, available);
      if (!chosen)
        return fail(toString(chosen.takeError()));
      devices.clear();
      for (const kf::GpuInfo &gpu : *chosen)
        devices.push_back(gpu.ordinal);
    }
    for (const kf::GpuInfo &gpu : available)
      if (gpu.ordinal == devices.front())
        measuredOn = "gpu (" + gpu.name + ")";
    FailureOr<kf::CompiledCandidate> compiledReference =
        compileReference(*loaded);
    if (failed(compiledReference))
      return 1;
    referenceText = printModule(*compiledReference->lowered);
    gpus = std::make_unique<kf::WorkerPool>(measurementWorkerCommand(argv0),
                                            devices);
  }

  // What ranked the candidates: the cost model or a GPU model (set by the
  // first evaluation; a resumed run starts from what its records say).
  std::string evaluatorName;
  // Evaluation threads name it while the search's thread reads it.
  std::mutex evaluatorNameMutex;
  auto nameEvaluator = [&](std::string name) {
    std::lock_guard<std::mutex> lock(evaluatorNameMutex);
    evaluatorName = std::move(name);
  };
  auto currentEvaluatorName = [&] {
    std::lock_guard<std::mutex> lock(evaluatorNameMutex);
    return evaluatorName;
  };
  // Candidates compile in worker processes, several at once; the GPU
  // measures each as soon as it is compiled.
  std::string executable =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&fail));
  std::vector<std::string> workerCommand = {executable, "compile-worker",
                                            "--chip=" + chip,
                                            "--format=" + binaryFormat};
  // The worker reads the problem as this process did: the problem file, or
  // the launch plan's "problem" section.
  workerCommand.push_back(selfReferenced ? "--launch=" + launchPlanPath
                                         : problemPath.getValue());
  if (!problemName.empty())
    workerCommand.push_back("--problem-name=" + problemName);
  if (useGpu)
    workerCommand.push_back("--emit-lowered");
  unsigned jobs =
      compileJobs
          ? compileJobs.getValue()
          : std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  kf::CompilePool pool(
      workerCommand, jobs,
      std::chrono::milliseconds((int64_t)(compileTimeout * 1000)));
  // Measurements finish on the GPU workers' threads, several at once:
  // what they write is guarded by one lock.
  std::mutex measured;
  // Each outcome says what ranked it, as its record will: with rounds that
  // overlap, the run's evaluator may change (no GPU answers) before an
  // earlier round is recorded.
  const std::string costModelName = "cost-model (predictions)";
  auto outcomeOf = [&](const kf::EvalResult &result,
                       const kf::CompileReply &reply) -> kf::Outcome {
    // Once a worker found no GPU, the run ranks by the cost model only:
    // measurements still in flight on other workers are not mixed in.
    if (!useGpu)
      return {"correct", reply.predictedSeconds, reply.triggers, "",
              costModelName};
    if (result.status == kf::EvalStatus::NoDevice &&
        evaluatorKind == EvaluatorKind::Auto) {
      // No GPU answers: rank by the cost model from here on.
      // One write: other threads may be writing to stderr too.
      errs() << ("kf-evolve: warning: no CUDA device (" + result.message +
                 "); ranking candidates with the static cost model: the "
                 "times are predictions, not measurements\n");
      useGpu = false;
      nameEvaluator(costModelName);
      return {"correct", reply.predictedSeconds, reply.triggers, "",
              costModelName};
    }
    if (result.status != kf::EvalStatus::Correct || !result.candidateTime)
      return {kf::stringifyEvalStatus(result.status).str(), 0, reply.triggers,
              result.message, currentEvaluatorName()};
    std::string gpuName = "gpu (" + result.deviceName + ")";
    nameEvaluator(gpuName);
    return {"correct", result.candidateTime->medianMs / 1e3, reply.triggers, "",
            gpuName};
  };
  // Compiles and evaluates `candidates` in this process: each goes to the
  // next free GPU as soon as it is compiled, while the others still
  // compile.
  auto evaluateHere = [&](ArrayRef<kf::CandidateSource> candidates) {
    std::vector<kf::Outcome> outcomes(candidates.size());
    if (candidates.empty())
      return outcomes;
    std::vector<std::shared_future<void>> measurements;
    pool.compile(candidates, [&](size_t index, kf::CompileReply reply) {
      std::unique_lock<std::mutex> lock(measured);
      if (reply.status != "compiled") {
        outcomes[index] = {
            reply.status, 0, {}, reply.error, currentEvaluatorName()};
        return;
      }
      if (!useGpu) {
        nameEvaluator(costModelName);
        outcomes[index] = {"correct", reply.predictedSeconds, reply.triggers,
                           "", costModelName};
        return;
      }
      lock.unlock();
      std::string lowered = std::move(reply.lowered);
      measurements.push_back(gpus->evaluate(
          spec, referenceText, std::move(lowered), config,
          std::chrono::milliseconds((int64_t)(timeoutSeconds * 1000)),
          [&, index, reply = std::move(reply)](kf::EvalResult result, double) {
            std::lock_guard<std::mutex> guard(measured);
            outcomes[index] = outcomeOf(result, reply);
          }));
    });
    // This batch's measurements only: another round may be measuring too.
    for (const std::shared_future<void> &measurement : measurements)
      measurement.wait();
    return outcomes;
  };
#ifdef KF_ENABLE_MPI
  if (evaluatingRank) {
    // Rank 0 may leave an evaluating rank idle for a round's slowest
    // candidate or while it writes the report; far longer means it died.
    std::chrono::milliseconds idleLimit(
        (int64_t)(std::max(600.0, 20 * mpiSilence.getValue()) * 1000));
    // Requests and replies are JSON: {"kind", "text"} and {"outcome",
    // "evaluator", "rank", "host", with GPUs "gpus" and "gpu_busy_seconds"}.
    served = true;
    std::string host = cluster->hostName();
    bool stopped = cluster->serve(
        [&](StringRef request) -> std::string {
          kf::CandidateSource candidate;
          Expected<json::Value> parsed = json::parse(request);
          json::Path::Root root;
          if (!parsed)
            consumeError(parsed.takeError());
          kf::Outcome outcome{
              "compile-error:request", 0, {}, "malformed request"};
          if (parsed && kf::fromJSON(*parsed, candidate, root))
            outcome = evaluateHere({candidate}).front();
          json::Object object{{"outcome", kf::toJSON(outcome)},
                              {"evaluator", outcome.evaluator.empty()
                                                ? currentEvaluatorName()
                                                : outcome.evaluator},
                              {"rank", cluster->rank()},
                              {"host", host}};
          // How long this rank's GPUs have measured so far: rank 0 reports
          // each rank's busy fraction.
          if (gpus && useGpu) {
            std::vector<double> busy = gpus->busySeconds();
            object["gpus"] = json::Array(gpus->getDevices());
            object["gpu_busy_seconds"] =
                std::accumulate(busy.begin(), busy.end(), 0.0);
          }
          std::string reply;
          raw_string_ostream(reply) << json::Value(std::move(object));
          return reply;
        },
        idleLimit, measuredOn);
    if (!stopped)
      return fail(formatv("rank {0}: {1}; rank 0 is taken for dead and the "
                          "job ends",
                          cluster->rank(), cluster->abandonReason())
                      .str());
    return 0;
  }
  // Rank 0: each candidate goes to an evaluating rank with room
  // (--mpi-depth); a rank silent for --mpi-silence is dead and its
  // candidates go to others. --rounds-in-flight rounds may be dispatched at
  // once; each rank found dead is said once. What the replies say of the ranks
  // (deaths said, GPU use) is shared by the dispatching threads under
  // ranksMutex.
  std::mutex ranksMutex;
  unsigned deathsSaid = 0;
  bool exclusionsSaid = false;
  // Where each evaluating rank runs, how many candidates it answered, and
  // what its GPUs measured, as its replies last said.
  struct RankUse {
    std::string host;
    int64_t evaluations = 0;
    json::Array gpus;
    std::optional<double> busySeconds;
  };
  std::map<int64_t, RankUse> rankUses;
  auto evaluateOnRanks = [&](ArrayRef<kf::CandidateSource> candidates) {
    std::vector<std::string> requests;
    for (const kf::CandidateSource &candidate : candidates) {
      std::string text;
      raw_string_ostream(text) << kf::toJSON(candidate);
      requests.push_back(std::move(text));
    }
    std::vector<std::optional<std::string>> replies =
        cluster->dispatch(requests);
    {
      std::lock_guard<std::mutex> lock(ranksMutex);
      unsigned dead = cluster->deadServers();
      if (dead > deathsSaid)
        WithColor::warning(errs(), "kf-evolve")
            << dead - deathsSaid
            << " evaluating rank(s) stopped answering; their candidates "
               "went to the others ("
            << cluster->liveServers() << " left)\n";
      deathsSaid = std::max(deathsSaid, dead);
      // Ranks that evaluate with another GPU model (or chip) than the job's
      // get no work: said once, when the job's evaluator is settled.
      if (!exclusionsSaid)
        if (std::optional<std::string> chosen = cluster->jobEvaluator()) {
          exclusionsSaid = true;
          for (auto &[rank, other] : cluster->excludedServers())
            WithColor::warning(errs(), "kf-evolve")
                << "evaluating rank " << rank << " evaluates with "
                << (other.empty() ? "nothing (it could not set the problem "
                                    "up)"
                                  : other)
                << ", the job with " << *chosen
                << " (most ranks): it gets no candidates, so that results "
                   "are not compared across GPU models\n";
        }
    }
    std::vector<kf::Outcome> outcomes;
    for (const std::optional<std::string> &reply : replies) {
      kf::Outcome outcome{kLostStatus, 0, {}, "no evaluating rank is alive"};
      Expected<json::Value> parsed =
          reply ? json::parse(*reply) : Expected<json::Value>(nullptr);
      if (!parsed) {
        outcome.error = "unreadable reply: " + toString(parsed.takeError());
      } else if (const json::Object *object = parsed->getAsObject()) {
        if (std::optional<int64_t> rank = object->getInteger("rank")) {
          std::lock_guard<std::mutex> lock(ranksMutex);
          RankUse &use = rankUses[*rank];
          ++use.evaluations;
          if (std::optional<StringRef> host = object->getString("host"))
            use.host = host->str();
          if (std::optional<double> busy =
                  object->getNumber("gpu_busy_seconds"))
            use.busySeconds = std::max(use.busySeconds.value_or(0), *busy);
          if (const json::Array *devices = object->getArray("gpus"))
            use.gpus = *devices;
        }
        json::Path::Root root;
        const json::Value *value = object->get("outcome");
        if (value && kf::fromJSON(*value, outcome, root))
          if (std::optional<StringRef> name = object->getString("evaluator"))
            if (!name->empty()) {
              nameEvaluator(name->str());
              outcome.evaluator = name->str();
            }
      }
      outcomes.push_back(std::move(outcome));
    }
    return outcomes;
  };
#endif

  // One writer per output directory, for as long as this run lasts.
  if (resumeSearch && replaceOutput)
    return fail("--resume continues the records in " + outputDir +
                " and --replace starts new ones: give one of them");
  Expected<std::unique_ptr<kf::OutputDirectoryLock>> outputLock =
      kf::OutputDirectoryLock::acquire(outputDir);
  if (!outputLock)
    return fail(toString(outputLock.takeError()));
  auto inOutput = [&](StringRef name) {
    SmallString<256> path(outputDir);
    sys::path::append(path, name);
    return std::string(path);
  };
  // Create and rename: never through a symlink planted in the directory,
  // never a half-written file.
  auto write = [&](StringRef name, StringRef text) -> bool {
    if (Error error = kf::writeFileReplacing(inOutput(name), text)) {
      fail(toString(std::move(error)));
      return false;
    }
    return true;
  };

  // The experience library: in memory (curated rules only) with
  // --no-library.
  std::string dbPath =
      noLibrary ? ":memory:"
                : (libraryPath.empty() ? kf::ExperienceLibrary::defaultPath()
                                       : libraryPath.getValue());
  Expected<std::unique_ptr<kf::ExperienceLibrary>> library =
      kf::ExperienceLibrary::open(dbPath);
  if (!library)
    return fail(toString(library.takeError()));

  // --resume --run-id: the output directory is rebuilt from the records the
  // library keeps, then resumed as if the run had been killed there.
  if (!resumeRunId.empty()) {
    if (!resumeSearch)
      return fail("--run-id continues a run: give --resume too");
    if (noLibrary)
      return fail("--run-id reads the run's records from the experience "
                  "library: drop --no-library and give the --db that holds "
                  "them");
    if (sys::fs::exists(inOutput("candidates.jsonl")))
      return fail("--run-id: " + outputDir +
                  " already holds records (candidates.jsonl); give an empty "
                  "--output directory, or --resume alone to continue it");
    Expected<kf::RunRecords> stored = (*library)->runRecords(resumeRunId);
    if (!stored)
      return fail("--run-id: " + toString(stored.takeError()));
    if (stored->problem != features.problem)
      return fail("--run-id: run " + resumeRunId + " searched problem '" +
                  stored->problem + "', not '" + features.problem + "'");
    std::string lines;
    for (const std::string &line : stored->records)
      lines += line + "\n";
    if (!write("run-id", resumeRunId + "\n") ||
        !write("library-snapshot.json", stored->snapshot + "\n") ||
        !write("candidates.jsonl", lines))
      return 1;
  }

  // Records: every candidate as it completes; --resume replays them
  // (lib/Search/Records.cpp). The library keeps a copy.
  // What the run searches, which a resumed run must search again: the
  // problem's text, the schedule space (the experts and a CUDA source),
  // and what decides each candidate's outcome.
  auto hashOfFile = [](StringRef path) -> std::string {
    if (path.empty())
      return "";
    auto file = MemoryBuffer::getFile(path);
    if (!file)
      return "unreadable";
    return toHex(SHA256::hash(arrayRefFromStringRef((*file)->getBuffer())),
                 /*LowerCase=*/true);
  };
  std::string space =
      llvm::join(ArrayRef<std::string>(
                     {ruleExperts ? "rules" : "", llmExperts ? "llm" : "",
                      cudaExperts ? "cuda" : ""}),
                 ",");
  json::Object identity{
      {"problem", features.problem},
      {"problem_sha256", hashOfFile(problemPath)},
      {"problem_name_option", problemName.getValue()},
      {"schedule_space",
       json::Object{{"experts", space},
                    {"cuda_sha256",
                     cudaPaths.empty() ? "" : hashOfFile(cudaPaths.front())},
                    {"launch_plan_sha256", hashOfFile(launchPlanPath)}}},
      {"chip", chip.getValue()},
      {"format", binaryFormat.getValue()},
      {"trials", (int64_t)trials},
      {"evaluator", (int64_t)evaluatorKind.getValue()}};
  Expected<std::unique_ptr<kf::CandidateRecords>> records =
      kf::CandidateRecords::open(outputDir, features.problem, resumeSearch,
                                 identity, replaceOutput);
  if (!records)
    return fail(toString(records.takeError()));
  std::string runId = (*records)->getRunId();
  evaluatorName = (*records)->getRecordedEvaluator();
  // What decides the search besides the problem and the library: a resumed
  // run must be given what the run started with. Every GPU (or evaluating
  // rank) gets about one proposal per island per round, unless
  // --round-size says otherwise.
  // Rounds overlap only where the search lets them (not for script experts
  // with repair rounds): what is kept is what happens.
  kf::SearchSettings settings{
      seed, std::max(1u, islandCount.getValue()), roundSize,
      overlapRounds && !((cudaExperts || llmExperts) && llmRepairRounds > 0),
      roundsInFlight};
  if (!roundSize.getNumOccurrences()) {
    if (gpus)
      settings.roundSize = islandCount * gpus->size();
#ifdef KF_ENABLE_MPI
    else if (cluster)
      settings.roundSize = islandCount * (cluster->size() - 1);
#endif
  }
  std::optional<kf::LibrarySnapshot> snapshot;
  if (resumeSearch) {
    errs() << "kf-evolve: resuming: " << (*records)->numRecorded()
           << " recorded candidates";
    if ((*records)->numUnreadable())
      errs() << " (" << (*records)->numUnreadable()
             << " unreadable line(s) ignored)";
    errs() << "\n";
    if (auto text = MemoryBuffer::getFile(inOutput("library-snapshot.json"))) {
      Expected<json::Value> value = json::parse((*text)->getBuffer());
      if (!value)
        return fail("--resume: library-snapshot.json: " +
                    toString(value.takeError()));
      snapshot = kf::LibrarySnapshot::fromJSON(*value);
      if (!snapshot)
        return fail("--resume: library-snapshot.json is not a library "
                    "snapshot kf wrote");
      // A run started before the settings were kept had rounds that did
      // not overlap: it goes on that way.
      if (!snapshot->settings && settings.overlapRounds) {
        errs() << "kf-evolve: --resume: this run predates overlapping "
                  "rounds; it continues without them\n";
        settings.overlapRounds = false;
      }
      if (snapshot->settings)
        if (std::optional<std::string> difference =
                snapshot->settings->differenceFrom(settings))
          return fail("--resume: run " + (*records)->getRunId() +
                      " was started with other search settings: give " +
                      *difference +
                      " to continue the same search, or start a new run in "
                      "another --output directory");
    }
  }

  if (!snapshot) {
    Expected<kf::LibrarySnapshot> taken = kf::LibrarySnapshot::take(
        **library, features, callbacks.restructure, /*limit=*/3);
    if (!taken)
      return fail(toString(taken.takeError()));
    snapshot = std::move(*taken);
    snapshot->settings = settings;
    std::string text;
    raw_string_ostream(text) << formatv("{0:2}", snapshot->toJSON()) << "\n";
    if (!write("library-snapshot.json", text))
      return 1;
  }
  // The library keeps the run's start and a copy of its records, for
  // `--resume --run-id` elsewhere. A resumed run first fills in records a
  // kill kept from reaching it. When the library fails, the run goes on
  // without it (the records file stays complete).
  bool libraryWorks = true;
  auto libraryFailed = [&](Error error) {
    WithColor::warning(errs(), "kf-evolve")
        << "experience library " << (*library)->name() << ": "
        << toString(std::move(error))
        << "; the rest of this run does not update the library\n";
    libraryWorks = false;
  };
  {
    std::string snapshotText;
    raw_string_ostream(snapshotText) << snapshot->toJSON();
    Error error =
        (*library)->recordRunStart(runId, features.problem, snapshotText);
    if (!error)
      error = (*library)->recordCandidates(runId, 0, (*records)->lines());
    if (error)
      libraryFailed(std::move(error));
  }
  std::vector<std::pair<std::string, kf::Schedule>> seeds = snapshot->seeds;
  if (!selfReferenced)
    for (auto &seed : kf::expertSeeds(defaultSchedule, callbacks.restructure))
      seeds.push_back({"expert:" + seed.first, std::move(seed.second)});
  callbacks.weight = [&](ArrayRef<std::string> triggers,
                         kf::MutationAction action) {
    return snapshot->weights.weight(triggers,
                                    kf::stringifyMutationAction(action));
  };

  // Candidates not evaluated before (records), compiled and evaluated here
  // or, with --mpi, on the evaluating ranks; recorded as they come back.
  // Two rounds may be evaluated at once (SearchOptions::overlapRounds), each
  // on its own thread, while the search's thread learns from what came
  // back: the records, the library and the evaluator's name are touched
  // under `storeMutex` only.
  std::mutex storeMutex;
  callbacks.evaluate = [&](ArrayRef<kf::CandidateSource> candidates) {
    std::vector<kf::Outcome> outcomes(candidates.size());
    std::vector<kf::CandidateSource> fresh;
    std::vector<size_t> positions;
    std::unique_lock<std::mutex> store(storeMutex);
    for (auto [index, candidate] : llvm::enumerate(candidates)) {
      if (std::optional<kf::Outcome> outcome =
              (*records)->lookup(candidate.text))
        outcomes[index] = std::move(*outcome);
      else {
        fresh.push_back(candidate);
        positions.push_back(index);
      }
    }
    store.unlock();
#ifdef KF_ENABLE_MPI
    std::vector<kf::Outcome> evaluated =
        cluster ? evaluateOnRanks(fresh) : evaluateHere(fresh);
#else
    std::vector<kf::Outcome> evaluated = evaluateHere(fresh);
#endif
    for (auto [index, outcome] : llvm::enumerate(evaluated))
      outcomes[positions[index]] = std::move(outcome);
    return outcomes;
  };
  // Each candidate goes to the records (and the library's copy) as the
  // search records it: in the search's order, which overlapping rounds
  // would not give if each evaluation thread wrote what it got back, so
  // two continuations of one run write the same record numbers. Replayed
  // candidates are there already; one no rank could evaluate is not
  // recorded, so that --resume evaluates it again.
  auto appendRecord = [&](const kf::SearchCandidate &candidate) {
    std::lock_guard<std::mutex> store(storeMutex);
    if (candidate.outcome.status == kLostStatus ||
        (*records)->lookup(candidate.script))
      return;
    std::string line = (*records)->append(
        {candidate.kind, candidate.script}, candidate.outcome,
        candidate.outcome.evaluator.empty() ? currentEvaluatorName()
                                            : candidate.outcome.evaluator);
    if (libraryWorks)
      if (Error error = (*library)->recordCandidate(
              runId, unsigned((*records)->lines().size() - 1), line))
        libraryFailed(std::move(error));
  };

  // Each failed proposal is said as it happens.
  auto sayFailure = [](const std::string &failure) {
    WithColor::warning(errs(), "kf-evolve")
        << "no candidate from " << failure << "\n";
  };
  if (cudaExperts) {
    Expected<kf::CudaLaunchSpec> plan = loadLaunchPlan("a --cuda candidate");
    if (!plan)
      return fail(toString(plan.takeError()));
    Expected<kf::ScriptExpertFn> experts = kf::makeCudaScriptExperts(
        cudaSetup(context, spec, cudaPaths.front(), *plan), sayFailure);
    if (!experts)
      return fail(toString(experts.takeError()));
    callbacks.scriptExperts = std::move(*experts);
  }
  kf::LLMFailureLog llmFailures(sayFailure);
  std::function<json::Value()> llmUsage;
  std::string llmDescription;
#ifdef KF_ENABLE_LLM
  std::optional<kf::LLMClient> llm;
  if (llmExperts) {
    kf::LLMConfig llmConfig;
    if (!llmConfigPath.empty())
      if (Error error = llmConfig.loadFile(llmConfigPath))
        return fail("--llm-config: " + toString(std::move(error)));
    if (llmProvider.getNumOccurrences()) {
      std::optional<kf::LLMProvider> provider =
          kf::parseLLMProvider(llmProvider);
      if (!provider)
        return fail("--llm-provider '" + llmProvider +
                    "' is not openai or anthropic");
      llmConfig.provider = *provider;
    }
    if (llmBaseUrl.getNumOccurrences())
      llmConfig.baseUrl = llmBaseUrl;
    if (llmModel.getNumOccurrences())
      llmConfig.model = llmModel;
    if (llmTemperature.getNumOccurrences())
      llmConfig.temperature = llmTemperature;
    if (llmMaxTokens.getNumOccurrences())
      llmConfig.maxTokens = llmMaxTokens;
    if (llmTimeout.getNumOccurrences())
      llmConfig.timeoutSeconds = llmTimeout;
    if (llmConcurrency.getNumOccurrences())
      llmConfig.concurrency = llmConcurrency;
    if (llmBudgetTokens.getNumOccurrences())
      llmConfig.budgetTokens = llmBudgetTokens;
    if (llmBudgetUsd.getNumOccurrences())
      llmConfig.budgetDollars = llmBudgetUsd;
    llmConfig.cacheDir =
        llmCacheDir.empty() ? inOutput("llm-cache") : llmCacheDir.getValue();
    llmConfig.replay = llmReplay;
    if (Error error = llmConfig.validate())
      return fail(toString(std::move(error)));
    llm.emplace(llmConfig);
    llmDescription =
        formatv("{0} {1} at {2}{3}",
                llmConfig.provider == kf::LLMProvider::Anthropic ? "anthropic"
                                                                 : "openai",
                llmConfig.model, llm->endpoint(),
                llmReplay ? " (replayed from the cache)" : "")
            .str();
    llmUsage = [&] { return llm->usage().toJSON(); };
  }
#else
  if (llmExperts)
    return fail("this kf-evolve was built without LLM experts "
                "(KF_ENABLE_LLM=OFF, as in the portable build); use a "
                "development build");
#endif
  std::string problemText;
  if (llmExperts) {
    auto file = MemoryBuffer::getFile(problemPath);
    if (file)
      problemText = (*file)->getBuffer().str();
  }
#ifdef KF_ENABLE_LLM
  if (llmExperts)
    callbacks.scriptExperts = kf::makeLLMScriptExperts(
        [&](StringRef system, StringRef user) -> Expected<std::string> {
          Expected<kf::LLMAnswer> answer = llm->complete(system, user);
          if (!answer)
            return answer.takeError();
          return std::move(answer->text);
        },
        llm->getConfig().concurrency, problemText, snapshot->weights,
        llmFailures);
#endif

  kf::SearchOptions options;
  options.seed = seed;
  options.islands = islandCount;
  options.budgetEvals = budgetEvals;
  options.budgetSeconds = budgetTime;
  options.targetSpeedup = targetSpeedup;
  options.seeds =
      ruleExperts ? seeds : std::vector<std::pair<std::string, kf::Schedule>>();
  options.ruleExperts = ruleExperts;
  options.baselineFromScriptExperts = selfReferenced;
  options.roundSize = settings.roundSize;
  options.repairRounds = llmRepairRounds;
  options.overlapRounds = settings.overlapRounds;
  options.roundsInFlight = settings.roundsInFlight;
  auto started = std::chrono::steady_clock::now();
  // On a terminal one progress line is redrawn; elsewhere (logs, CI) each
  // evaluation gets its own line.
  bool live = sys::Process::StandardErrIsDisplayed();
  std::optional<unsigned> recordedBest;
  auto learn = [&](const kf::SearchCandidate &candidate,
                   const kf::SearchResult &result) {
    std::lock_guard<std::mutex> store(storeMutex);
    if (!libraryWorks)
      return;
    Error error = Error::success();
    if (candidate.parent && candidate.action) {
      const kf::Outcome &parent = result.candidates[*candidate.parent].outcome;
      bool improved = candidate.outcome.status == "correct" &&
                      parent.status == "correct" &&
                      candidate.outcome.seconds < parent.seconds;
      error = (*library)->recordTry(
          runId, candidate.id, parent.triggers,
          kf::stringifyMutationAction(*candidate.action), improved,
          improved ? parent.seconds / candidate.outcome.seconds : 0);
    }
    if (!error && result.bestIndex && recordedBest != result.bestIndex &&
        result.candidates[*result.bestIndex].hasGenome) {
      recordedBest = result.bestIndex;
      const kf::SearchCandidate &best = result.candidates[*result.bestIndex];
      const kf::Outcome &first = result.candidates[result.defaultIndex].outcome;
      error = (*library)->recordBest(
          features, currentEvaluatorName(), best.genome, best.outcome.seconds,
          first.status == "correct" ? first.seconds / best.outcome.seconds : 0,
          runId);
    }
    // The search goes on; what it learned is lost, and said so.
    if (error)
      libraryFailed(std::move(error));
  };
  callbacks.progress = [&](const kf::SearchCandidate &candidate,
                           const kf::SearchResult &result) {
    appendRecord(candidate);
    learn(candidate, result);
    double elapsed = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - started)
                         .count();
    const kf::SearchCandidate &first = result.candidates[result.defaultIndex];
    std::string best = "none yet";
    if (result.bestIndex) {
      const kf::Outcome &b = result.candidates[*result.bestIndex].outcome;
      best = formatv("{0:F3} ms", b.seconds * 1e3).str();
      if (first.outcome.status == "correct" && b.seconds > 0)
        best +=
            formatv(", {0:F2}x over the {1}", first.outcome.seconds / b.seconds,
                    selfReferenced ? "kernel as written" : "default")
                .str();
    }
    std::string rate =
        formatv("[{0}/{1}] {2:F1} evals/s", result.candidates.size(),
                budgetEvals, result.candidates.size() / std::max(elapsed, 1e-3))
            .str();
    // What the LLM experts have cost so far.
    if (llmUsage) {
      json::Value usage = llmUsage();
      const json::Object *u = usage.getAsObject();
      rate += formatv("  llm {0} req, {1} tok, ${2:F3}",
                      u->getInteger("requests").value_or(0) +
                          u->getInteger("cached_answers").value_or(0),
                      u->getInteger("input_tokens").value_or(0) +
                          u->getInteger("output_tokens").value_or(0),
                      u->getNumber("dollars").value_or(0))
                  .str();
    }
    if (live) {
      // Each island's best, on one redrawn line.
      std::vector<double> islandBest(std::max(1u, islandCount.getValue()), 0);
      for (const kf::SearchCandidate &c : result.candidates)
        if (c.outcome.status == "correct") {
          double &b = islandBest[c.island % islandBest.size()];
          b = b == 0 ? c.outcome.seconds : std::min(b, c.outcome.seconds);
        }
      std::string islands;
      for (auto [index, b] : llvm::enumerate(islandBest))
        islands += b > 0 ? formatv(" {0}:{1:F3}", index, b * 1e3).str()
                         : formatv(" {0}:-", index).str();
      errs() << "\r\033[K" << rate << "  best " << best << "  islands (ms)"
             << islands;
      return;
    }
    errs()
        << formatv("{0}  island {1} {2}: {3} -> {4}", rate, candidate.island,
                   candidate.expert,
                   !candidate.change.empty()       ? candidate.change
                   : candidate.expert == "default" ? "default schedule"
                                                   : "as seeded",
                   candidate.outcome.status)
        << (candidate.outcome.status == "correct"
                ? formatv(" {0:F3} ms", candidate.outcome.seconds * 1e3).str()
                : "")
        << "  (best " << best << ")\n";
  };
  kf::SearchResult result = kf::runSearch(defaultSchedule, callbacks, options);
  if (live)
    errs() << "\n";
#ifdef KF_ENABLE_MPI
  if (cluster && cluster->liveServers() == 0)
    return fail("every evaluating rank stopped answering; what was evaluated "
                "is recorded in " +
                outputDir + ": continue with --resume");
#endif
  std::string baseline =
      selfReferenced ? "CUDA kernel as written" : "default schedule";
  if (result.candidates.empty())
    return fail("the " + baseline + " does not render: " + lastError);
  const kf::Outcome &baselineOutcome =
      result.candidates[result.defaultIndex].outcome;
  // The kernel as written is judged against its own earlier output: if it
  // fails, the kernel depends on what its outputs held or is not
  // deterministic within the tolerance, and no tuning can be judged.
  std::string selfCheck =
      selfReferenced && baselineOutcome.status != "correct"
          ? "; the kernel as written must give its own results again on "
            "fresh runs: kf poisons the outputs before every run, so it must "
            "write every output element, and its results may vary only "
            "within the plan's tolerance (docs/cuda-input.md)"
          : "";
  if (!result.bestIndex)
    return fail("no candidate evaluated as correct (the " + baseline + ": " +
                baselineOutcome.status + ")" + selfCheck);
  if (!selfCheck.empty())
    WithColor::warning(errs(), "kf-evolve")
        << "the " << baseline << " was " << baselineOutcome.status << selfCheck
        << "\n";

  const kf::SearchCandidate &best = result.candidates[*result.bestIndex];
  const kf::SearchCandidate &first = result.candidates[result.defaultIndex];
  auto describeBest = [](const kf::SearchCandidate &candidate) {
    if (candidate.hasGenome)
      return kf::describeGenome(candidate.genome);
    return candidate.expert + " " +
           kf::stringifyCandidateKind(candidate.kind).str() + ": " +
           candidate.change;
  };
  std::string bestFile = best.kind == kf::CandidateKind::Schedule
                             ? "best.schedule.mlir"
                             : "best.kernel.mlir";
  kf::CompileStage bestStage;
  FailureOr<kf::CompiledCandidate> bestCompiled =
      compileText(context, *loaded, best.kind, best.script,
                  "best-candidate.mlir", bestStage);
  if (failed(bestCompiled))
    return fail("the best candidate no longer compiles");
  json::Array candidates;
  for (const kf::SearchCandidate &candidate : result.candidates)
    candidates.push_back(kf::toJSON(candidate));
  json::Value bestSchedule = nullptr;
  if (best.hasGenome)
    bestSchedule = kf::toJSON(best.genome);
  json::Object summary{
      {"problem", loaded->spec.name},
      {"reference", selfReferenced ? "cuda-as-written" : "problem"},
      {"evaluator", evaluatorName},
      {"seed", (int64_t)seed},
      {"evaluations", (int64_t)result.candidates.size()},
      {"stop_reason", result.stopReason},
      {"duplicates_skipped", result.duplicatesSkipped},
      {"stagnation_migrations", result.stagnationMigrations},
      {"best", json::Object{{"id", best.id},
                            {"expert", best.expert},
                            {"kind", kf::stringifyCandidateKind(best.kind)},
                            {"genome", describeBest(best)},
                            {"schedule", bestSchedule},
                            {"seconds", best.outcome.seconds},
                            {"schedule_file", bestFile}}},
      {"default_status", first.outcome.status},
      {"default_seconds", first.outcome.seconds},
      {"speedup_over_default",
       first.outcome.status == "correct"
           ? first.outcome.seconds / best.outcome.seconds
           : 0.0},
      {"candidates", std::move(candidates)}};
  if (cudaExperts) {
    // The CUDA kernel as the user wrote it is the baseline that matters.
    json::Object cuda{{"source", cudaPaths.front()},
                      {"launch_plan", launchPlanPath.getValue()}};
    for (const kf::SearchCandidate &candidate : result.candidates)
      if (StringRef(candidate.change).starts_with("as written")) {
        cuda["as_written_id"] = candidate.id;
        cuda["as_written_status"] = candidate.outcome.status;
        if (candidate.outcome.status == "correct") {
          cuda["as_written_seconds"] = candidate.outcome.seconds;
          cuda["speedup_over_as_written"] =
              candidate.outcome.seconds / best.outcome.seconds;
        }
        break;
      }
    summary["cuda"] = std::move(cuda);
  }
  std::string json;
  raw_string_ostream os(json);
  os << formatv("{0:2}", json::Value(std::move(summary))) << "\n";

  // The report: the default schedule's diagnosis next to the winner's.
  kf::ReportInput report;
  report.problem = loaded->spec.name;
  report.baseline = baseline;
  report.evaluator = evaluatorName;
  report.seed = seed;
  report.islands = islandCount;
  report.result = &result;
  report.bestDiagnosis = summarizeDiagnosis(*bestCompiled);
  FailureOr<kf::CompiledCandidate> defaultCompiled = quiet([&] {
    kf::CompileStage stage;
    return compileText(context, *loaded, first.kind, first.script,
                       "default-candidate.mlir", stage);
  });
  if (succeeded(defaultCompiled))
    report.defaultDiagnosis = summarizeDiagnosis(*defaultCompiled);
  report.seedNotes = snapshot->notes;
  report.llmDescription = llmDescription;
  if (llmUsage)
    report.llmUsage = llmUsage();
  report.llmFailures = llmFailures.all();
  if (!write(bestFile, best.script) ||
      !write("best.ptx", kf::collectKernelImages(*bestCompiled->lowered)) ||
      !write("result.json", json) ||
      !write("progress.svg", kf::renderProgressSVG(result, islandCount)) ||
      !write("report.md", kf::renderReport(report)))
    return 1;
  if (llmExperts) {
    // What the LLM experts cost and why proposals failed; not in
    // result.json, so that a replayed run's result stays identical.
    std::string text;
    raw_string_ostream(text)
        << formatv("{0:2}", json::Value(json::Object{
                                {"endpoint", llmDescription},
                                {"usage", report.llmUsage},
                                {"failures", json::Array(llmFailures.all())}}))
        << "\n";
    if (!write("llm.json", text))
      return 1;
  }
  {
    // Throughput: evaluations per second and how busy each GPU was. A file
    // of its own, so that result.json stays identical across reruns.
    double wall = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - started)
                      .count();
    json::Object throughput{
        {"wall_seconds", wall},
        {"evaluations", (int64_t)result.candidates.size()},
        {"evaluations_per_second", result.candidates.size() / wall},
        {"compile_jobs", (int64_t)jobs},
        {"compile_worker_starts", (int64_t)pool.starts()}};
    std::string line =
        formatv("{0:F2} evaluations/s",
                throughput.getNumber("evaluations_per_second").value_or(0))
            .str();
    if (gpus && useGpu) {
      json::Array busy, devices;
      std::vector<double> seconds = gpus->busySeconds();
      for (auto [index, ordinal] : llvm::enumerate(gpus->getDevices())) {
        devices.push_back(ordinal);
        busy.push_back(seconds[index] / wall);
        line += formatv("; GPU {0} busy {1:P0}", ordinal, seconds[index] / wall)
                    .str();
      }
      throughput["gpus"] = std::move(devices);
      throughput["gpu_busy_fraction"] = std::move(busy);
      throughput["measurement_worker_starts"] = (int64_t)gpus->starts();
      // The span in which any GPU measured: before it, the run compiles its
      // first candidates; after it, it writes its results.
      if (auto span = gpus->measuringSpan()) {
        double from =
            std::chrono::duration<double>(span->first - started).count();
        double to =
            std::chrono::duration<double>(span->second - started).count();
        throughput["measuring_from_seconds"] = from;
        throughput["measuring_to_seconds"] = to;
        line += formatv("; GPUs measured from {0:F1} s to {1:F1} s of {2:F1} s",
                        from, to, wall)
                    .str();
      }
    }
#ifdef KF_ENABLE_MPI
    // With --mpi the evaluating ranks evaluate: where each one ran, how
    // many candidates it answered, and with GPUs which ones and how busy
    // they were over this rank's run.
    if (drivingRank) {
      std::lock_guard<std::mutex> lock(ranksMutex);
      json::Array ranks;
      for (auto &[rank, use] : rankUses) {
        json::Object entry{{"rank", rank},
                           {"host", use.host},
                           {"evaluations", use.evaluations}};
        line += formatv("; rank {0} on {1}: {2} evaluations", rank, use.host,
                        use.evaluations)
                    .str();
        if (use.busySeconds) {
          entry["gpus"] = json::Array(use.gpus);
          entry["busy_fraction"] = *use.busySeconds / wall;
          std::string gpuList;
          for (const json::Value &gpu : use.gpus)
            gpuList += (gpuList.empty() ? "" : ",") +
                       std::to_string(gpu.getAsInteger().value_or(-1));
          line +=
              formatv(", GPU {0} busy {1:P0}", gpuList, *use.busySeconds / wall)
                  .str();
        }
        ranks.push_back(std::move(entry));
      }
      if (!ranks.empty())
        throughput["ranks"] = std::move(ranks);
    }
#endif
    std::string text;
    raw_string_ostream(text)
        << formatv("{0:2}", json::Value(std::move(throughput))) << "\n";
    if (!write("throughput.json", text))
      return 1;
    errs() << "kf-evolve: throughput: " << line << "\n";
  }
  // One write: with --mpi-groups, other processes of the job write to the
  // same stdout.
  outs() << formatv("best: candidate {0} ({1}), {2:F3} ms{3}; {4} "
                    "evaluations; written to {5}\n",
                    best.id, describeBest(best), best.outcome.seconds * 1e3,
                    evaluatorName.rfind("cost-model", 0) == 0 ? " predicted"
                                                              : "",
                    result.candidates.size(), outputDir)
                .str();
  outs().flush();
  return 0;
}

/// kf-evolve import: CUDA device code as a gpu.module of llvm + nvvm ops.
/// kf-evolve import --cache-all: the source imported as a candidate (as the
/// CUDA experts import it) for every combination of the plan's parameter
/// choices, into the import cache.
int runCacheAllVariants(MLIRContext &context) {
  std::string cache = cudaCache();
  if (cache.empty())
    return fail("--cache-all needs --cuda-cache DIR");
  Expected<kf::CudaLaunchSpec> plan = loadLaunchPlan("--cache-all");
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
    kf::CudaImportOptions options = candidateImportOptions();
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

/// kf-evolve P1.mlir P2.mlir ...: the searches one after another, each
/// into OUTPUT/<problem file's stem>/; with --mpi on the same ranks. Goes
/// on after a problem fails; exits 1 if any did.
int runSeveralSearches(MLIRContext &context, const char *argv0) {
  std::vector<std::string> problems = {problemPath.getValue()};
  problems.insert(problems.end(), moreProblemPaths.begin(),
                  moreProblemPaths.end());
  if (!resumeRunId.empty())
    return fail("--run-id names one problem's run: give that problem alone");
  StringMap<std::string> byName;
  for (const std::string &problem : problems) {
    if (StringRef(problem).ends_with(".cu"))
      return fail(problem + ": a CUDA kernel is searched on its own (one "
                            "problem per run)");
    auto [it, inserted] = byName.try_emplace(sys::path::stem(problem), problem);
    if (!inserted)
      return fail(it->second + " and " + problem +
                  " have the same name: their outputs would share " +
                  outputDir + "/" + it->first() + "; rename one");
  }
  bool sayProblems = true;
  // With --mpi-groups, each group searches the problems dealt to it.
  unsigned group = 0, groups = 1;
#ifdef KF_ENABLE_MPI
  if (useMpi) {
    Expected<kf::MpiCluster *> job = jobCluster();
    if (!job)
      return fail(toString(job.takeError()));
    sayProblems = (*job)->rank() == 0;
    group = (*job)->group();
    groups = (*job)->groups();
  }
#endif
  std::string base = outputDir;
  int status = 0;
  for (auto [index, problem] : llvm::enumerate(problems)) {
    if (index % groups != group)
      continue;
    problemPath.setValue(problem);
    SmallString<256> output(base);
    sys::path::append(output, sys::path::stem(problem));
    outputDir.setValue(std::string(output));
    if (sayProblems)
      errs() << "kf-evolve: "
             << (groups > 1 ? formatv("group {0}: ", group).str() : "")
             << "searching " << problem << " into " << output << "\n";
    if (runSearchCommand(context, argv0) != 0)
      status = 1;
  }
  return status;
}

/// Why a number given for `--name` is not usable, or "" when it is: NaN
/// and infinities are never usable, `positive` excludes 0 and `atLeast`
/// gives the smallest value.
std::string checkNumber(StringRef name, double value, double atLeast,
                        bool positive, StringRef meaning) {
  if (!std::isfinite(value) || value < atLeast ||
      (positive && !(value > 0))) {
    char text[32];
    snprintf(text, sizeof(text), "%g", value);
    return formatv("--{0} {1}: {2}", name, text, meaning).str();
  }
  return "";
}

/// The search's numbers, checked before anything runs: a value that means
/// nothing (NaN, an infinite or negative time, zero islands) is refused
/// with what would be right, rather than silently meaning "no limit" or
/// "one evaluation".
int checkSearchNumbers() {
  if (islandCount == 0)
    return fail("--islands 0: the search needs 1 island or more");
  if (budgetEvals == 0)
    return fail("--budget-evals 0: the search needs 1 evaluation or more");
  if (maxRuns == 0)
    return fail("--runs 0: give 1 timed run or more");
  if (minRuns.getValue() > maxRuns.getValue())
    return fail(formatv("--min-runs {0} is more than --runs {1}",
                        minRuns.getValue(), maxRuns.getValue())
                    .str());
  struct Number {
    StringRef name;
    double value;
    double atLeast;
    bool positive;
    StringRef meaning;
  };
  for (const Number &number :
       {Number{"budget-time", budgetTime, 0, false,
               "give a finite number of seconds, or 0 for no limit"},
        Number{"compile-timeout", compileTimeout, 0, true,
               "give a finite number of seconds greater than 0"},
        Number{"timeout", timeoutSeconds, 0, true,
               "give a finite number of seconds greater than 0"},
        Number{"time-budget-ms", timeBudgetMs, 0, true,
               "give a finite number of milliseconds greater than 0"},
        Number{"target-speedup", targetSpeedup, 0, false,
               "give a finite speedup, or 0 to use the whole budget"}})
    if (std::string why = checkNumber(number.name, number.value,
                                      number.atLeast, number.positive,
                                      number.meaning);
        !why.empty())
      return fail(why);
  if (llmTemperature.getNumOccurrences())
    if (std::string why =
            checkNumber("llm-temperature", llmTemperature, 0, false,
                        "give a finite temperature of 0 or more");
        !why.empty())
      return fail(why);
  if (llmTimeout.getNumOccurrences())
    if (std::string why =
            checkNumber("llm-timeout", llmTimeout, 0, true,
                        "give a finite number of seconds greater than 0");
        !why.empty())
      return fail(why);
  if (llmBudgetUsd.getNumOccurrences())
    if (std::string why =
            checkNumber("llm-budget-usd", llmBudgetUsd, 0, false,
                        "give a finite amount of US dollars, or 0 for no "
                        "limit");
        !why.empty())
      return fail(why);
  if (llmBudgetTokens < 0)
    return fail(formatv("--llm-budget-tokens {0}: give a number of tokens, "
                        "or 0 for no limit",
                        llmBudgetTokens.getValue())
                    .str());
#ifdef KF_ENABLE_LLM
  if (llmBaseUrl.getNumOccurrences())
    if (Error error = kf::checkBaseUrl(llmBaseUrl))
      return fail("--llm-base-url: " + toString(std::move(error)));
#endif
  return 0;
}

/// The search subcommand (also the main job): one problem, several, or a
/// CUDA kernel to evolve.
int runSearches(MLIRContext &context, const char *argv0) {
  // The options that go together or not, checked once for every problem.
  if (int status = checkSearchNumbers())
    return status;
  if (mpiDepth == 0)
    return fail("--mpi-depth 0 would send no rank any candidate: give 1 or "
                "more");
  if (mpiGroups == 0)
    return fail("--mpi-groups 0: give 1 group or more");
  // A full evaluating rank says it is alive every 0.5 s (MpiCluster.cpp).
  if (!(mpiSilence >= 1)) // NaN too
    return fail(formatv("--mpi-silence {0}: evaluating ranks say they are "
                        "alive every 0.5 s, so a shorter silence would take "
                        "live ranks for dead; give 1 second or more",
                        mpiSilence.getValue())
                    .str());
  // --gpus is checked here, where no GPU is needed, so that a typo fails
  // on every machine rather than only where GPUs measure.
  if (!gpuSelection.empty()) {
    if (auto parsed = kf::parseGpuSelection(gpuSelection); !parsed)
      return fail(toString(parsed.takeError()));
    if (evaluatorKind == EvaluatorKind::CostModel)
      return fail("--gpus " + gpuSelection +
                  " chooses GPUs to measure on, and --evaluator cost-model "
                  "measures on none: drop one of them");
  }
  if (roundsInFlight < 2)
    return fail("--rounds-in-flight " + std::to_string(roundsInFlight) +
                ": overlapping rounds hold 2 or more at once; for one round "
                "at a time give --overlap-rounds=false");
  if (roundsInFlight.getNumOccurrences() && !overlapRounds)
    return fail("--rounds-in-flight goes with overlapping rounds; drop it "
                "or --overlap-rounds=false");
  if (mpiGroups > 1) {
    if (!useMpi)
      return fail("--mpi-groups splits the ranks of an MPI job: give --mpi "
                  "too");
    if (mpiGroups > moreProblemPaths.size() + 1)
      return fail(formatv("--mpi-groups {0} with {1} problem(s): a group "
                          "would have nothing to search; give at most {1} "
                          "groups",
                          mpiGroups.getValue(), moreProblemPaths.size() + 1)
                      .str());
  }
  if (!moreProblemPaths.empty())
    return runSeveralSearches(context, argv0);
  // kf-evolve kernel.cu --problem p.mlir: the CUDA kernel is the
  // candidate to evolve, the problem says what it must compute.
  if (StringRef(problemPath).ends_with(".cu")) {
    // Without --problem, the launch plan describes the problem and the
    // kernel as written is the reference (loadPlanProblem says what is
    // missing otherwise).
    if (launchPlanPath.empty())
      return fail(problemPath + " is CUDA: give its launch plan with "
                                "--launch plan.json, and the problem it "
                                "solves with --problem p.mlir or in the "
                                "plan's \"problem\" section");
    cudaPaths.push_back(problemPath);
    problemPath.setValue(cudaProblemPath);
    return runSearchCommand(context, argv0);
  }
  if (!cudaProblemPath.empty())
    return fail("--problem goes with a .cu file in place of the problem");
  return runSearchCommand(context, argv0);
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
    int status = runSearches(context, argv[0]);
#ifdef KF_ENABLE_MPI
    // MPI ends here, not among static destructors; the job's first rank
    // exits with the worst status of every group.
    if (mpiCluster)
      status = mpiCluster->finish(status);
    mpiCluster.reset();
#endif
    return status;
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
