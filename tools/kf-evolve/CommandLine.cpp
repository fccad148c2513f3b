//===- CommandLine.cpp - kf-evolve's command line, parsed -----------------===//
//
// Every flag of every subcommand, and the config structs they fill. No
// work is done here: kf-evolve.cpp dispatches to the library.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"

#include "kf/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;
using namespace kf_evolve;

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
using kf::EmitKind;
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
    emitPlan("emit-plan",
             cl::desc("Internal: include the launch plan, with its kernel "
                      "images, in each reply"),
             cl::init(false), cl::sub(compileWorkerCommand), cl::cat(category));
static cl::opt<std::string>
    ceilingsPath("ceilings",
                 cl::desc("Measured ceilings (JSON); default: H200"),
                 cl::value_desc("file"), cl::sub(evalCommand),
                 cl::sub(searchCommand), cl::cat(category));

namespace {

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

/// The candidates in command-line order; the default schedule when none.
std::vector<kf::CandidateFile> candidateFiles() {
  std::vector<std::pair<unsigned, kf::CandidateFile>> ordered;
  for (unsigned i = 0; i < schedulePaths.size(); ++i)
    ordered.push_back({schedulePaths.getPosition(i),
                       {kf::CandidateFile::Kind::Schedule, schedulePaths[i]}});
  for (unsigned i = 0; i < kernelPaths.size(); ++i)
    ordered.push_back({kernelPaths.getPosition(i),
                       {kf::CandidateFile::Kind::Kernel, kernelPaths[i]}});
  for (unsigned i = 0; i < cudaPaths.size(); ++i)
    ordered.push_back({cudaPaths.getPosition(i),
                       {kf::CandidateFile::Kind::Cuda, cudaPaths[i]}});
  llvm::sort(ordered,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<kf::CandidateFile> sources;
  for (auto &entry : ordered)
    sources.push_back(entry.second);
  if (sources.empty())
    sources.push_back(kf::CandidateFile());
  return sources;
}

/// The launch-plan tuning of the command line (--param, --launch-bounds,
/// --max-registers).
kf::CudaTuningFlags cudaTuningFromFlags() {
  kf::CudaTuningFlags flags;
  for (StringRef assignment : launchParameters) {
    auto [name, value] = assignment.split('=');
    int64_t number;
    if (name.empty() || value.getAsInteger(10, number)) {
      flags.error = ("--param " + assignment + ": expected NAME=INTEGER").str();
      return flags;
    }
    flags.tuning.parameters[name.str()] = number;
  }
  flags.tuning.launchBounds = launchBounds;
  if (maxRegisters != 0 && (maxRegisters < 16 || maxRegisters > 255)) {
    flags.error = ("--max-registers " + Twine(maxRegisters) +
                   ": a register cap is 16 to 255 per thread (0: none)")
                      .str();
    return flags;
  }
  flags.tuning.maxRegisters = maxRegisters;
  return flags;
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

/// This kf-evolve: the workers it starts are it.
std::string executable(const char *argv0) {
  return sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&parseCommandLine));
}

/// The problem checks' settings as the command line gives them.
kf::ProblemCheckConfig problemCheckFromFlags(const char *argv0) {
  kf::ProblemCheckConfig config;
  config.input = inputOptions();
  config.eval = evalConfigFromFlags();
  config.timeoutSeconds = timeoutSeconds;
  config.executable = executable(argv0);
  config.dumpDirectory = dumpDirectory;
  return config;
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
  config.executable = executable(argv0);
  return config;
}

} // namespace

Invocation kf_evolve::parseCommandLine(int argc, char **argv) {
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

  Invocation invocation;
  const char *argv0 = argv[0];
  invocation.input = inputOptions();
  invocation.compile = {inputOptions(), candidateFiles(), cudaTuningFromFlags(),
                        emit, outputPath};
  invocation.eval = {inputOptions(),        candidateFiles(),
                     cudaTuningFromFlags(), evalConfigFromFlags(),
                     timeoutSeconds,        ceilingsPath,
                     executable(argv0)};
  invocation.search = searchConfigFromFlags(argv0);
  invocation.check = problemCheckFromFlags(argv0);
  invocation.library = {libraryPath, listRuns, printRun, libraryImport};
  ImportSettings &import = invocation.import;
  import.cudaSource = cudaSource;
  import.outputPath = importOutput;
  import.options.chip = chip;
  import.options.untrusted = untrustedCuda;
  // --cuda-cache, else $KF_CUDA_CACHE, else none.
  import.options.cacheDir = kf::candidateImportOptions(inputOptions()).cacheDir;
  import.pointerRoles = pointerRoles;
  import.cacheAll = cacheAllVariants;
  invocation.emitPlan = emitPlan;
  invocation.command = compileCommand          ? Command::Compile
                       : evalCommand           ? Command::Eval
                       : searchCommand         ? Command::Search
                       : checkReferenceCommand ? Command::CheckReference
                       : checkProblemCommand   ? Command::CheckProblem
                       : workerCommand         ? Command::Worker
                       : compileWorkerCommand  ? Command::CompileWorker
                       : importCommand         ? Command::Import
                       : libraryCommand        ? Command::Library
                                               : Command::None;
  return invocation;
}
