//===- kf-evolve.cpp - Kernel Foundry's search and evaluation tool --------===//
//
// Subcommands:
//   kf-evolve [search] PROBLEM... [--budget-evals N] [--output DIR] [...]
//   kf-evolve KERNEL.cu --problem PROBLEM --launch PLAN.json [...]
//   kf-evolve compile PROBLEM [--schedule S] [-o FILE] [--emit ...]
//   kf-evolve eval PROBLEM [--schedule S] [...]     (needs a CUDA GPU)
//   kf-evolve check-reference PROBLEM | check-problem PROBLEM
//   kf-evolve import KERNEL.cu | library
//   kf-evolve worker | compile-worker               (internal processes)
// The command line is parsed in CommandLine.cpp into the library's config
// structs; each subcommand's work is in lib/ (kf/Search/SearchConfig.h,
// kf/Search/Commands.h). Called as kf-opt (the portable bundle's link), it
// is kf-opt.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"

#include "kf/InitAll.h"
#include "kf/Search/CompileWorker.h"
#include "kf/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <iostream>

using namespace llvm;
using namespace mlir;
using namespace kf_evolve;

namespace {

int fail(const Twine &message) { return kf::reportError(message); }

/// kf-evolve import: the module printed with its locations, so that
/// findings on it point at the CUDA source lines.
int runImportCommand(MLIRContext &context, const Invocation &invocation) {
  const ImportSettings &import = invocation.import;
  if (import.cacheAll)
    return kf::runCacheAllVariantsCommand(context, invocation.input,
                                          import.cudaSource);
  kf::CudaImportOptions options = import.options;
  for (const std::string &role : import.pointerRoles) {
    if (role != "input" && role != "output" && role != "scratch")
      return fail("--roles: '" + role +
                  "' is not a role (input, output or scratch)");
    options.pointerRoles.push_back(role);
  }
  Expected<OwningOpRef<ModuleOp>> imported =
      kf::importCuda(import.cudaSource, &context, options);
  if (!imported)
    return fail(toString(imported.takeError()));
  std::string error;
  auto output = openOutputFile(import.outputPath, &error);
  if (!output)
    return fail(error);
  (*imported)->print(output->os(), OpPrintingFlags().enableDebugInfo(
                                       /*enable=*/true, /*prettyForm=*/false));
  output->os() << "\n";
  output->keep();
  return 0;
}

} // namespace

int main(int argc, char **argv) {
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
  Invocation invocation = parseCommandLine(argc, argv);

  DialectRegistry registry;
  kf::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors point at the user's source; the generic op dump only adds noise.
  context.printOpOnDiagnostic(false);

  // With no problem file, a --cuda candidate's launch plan may describe
  // the problem; the first CUDA source as written is then the reference.
  const kf::ProblemInputOptions &input = invocation.input;
  bool noProblem = input.problemPath.empty();
  bool planProblem = noProblem && !input.cudaPaths.empty();
  switch (invocation.command) {
  case Command::Compile:
    return noProblem && !planProblem
               ? fail("compile needs a problem file")
               : kf::runCompileCommand(context, invocation.compile);
  case Command::Eval:
    return noProblem && !planProblem
               ? fail("eval needs a problem file")
               : kf::runEvalCommand(context, invocation.eval);
  case Command::Search:
    return noProblem && !planProblem
               ? fail("search needs a problem file")
               : kf::runSearches(context, invocation.search);
  case Command::CheckReference:
    return noProblem ? fail("check-reference needs a problem file")
                     : kf::runCheckReferenceCommand(context, invocation.check);
  case Command::CheckProblem:
    return noProblem ? fail("check-problem needs a problem file")
                     : kf::runCheckProblemCommand(context, invocation.check);
  case Command::Worker:
    return kf::runMeasurementWorkerCommand(context, input.chip);
  case Command::Library:
    return kf::runLibraryCommand(invocation.library);
  case Command::Import:
    return invocation.import.cudaSource.empty()
               ? fail("import needs a .cu file")
               : runImportCommand(context, invocation);
  case Command::CompileWorker:
    return noProblem && input.launchPlanPath.empty()
               ? fail("compile-worker needs a problem file (or --launch "
                      "plan.json with a \"problem\" section)")
               : kf::runCompileWorker(context, input, invocation.emitPlan,
                                      std::cin);
  case Command::None:
    break;
  }
  return fail("give a subcommand: compile, eval (see --help)");
}
