//===- CommandLine.h - kf-evolve's command line, parsed --------*- C++ -*-===//
//
// The subcommands and their flags (CommandLine.cpp), turned into the
// library's config structs: kf-evolve.cpp only dispatches on the result.
//
//===----------------------------------------------------------------------===//

#ifndef KF_TOOLS_KF_EVOLVE_COMMANDLINE_H
#define KF_TOOLS_KF_EVOLVE_COMMANDLINE_H

#include "kf/Import/CudaImport.h"
#include "kf/Search/Commands.h"
#include "kf/Search/SearchConfig.h"

#include <string>
#include <vector>

namespace kf_evolve {

enum class Command {
  None,
  Compile,
  Eval,
  Search,
  CheckReference,
  CheckProblem,
  Worker,
  CompileWorker,
  Import,
  Library
};

/// kf-evolve import: a CUDA source as a gpu.module of llvm + nvvm ops.
struct ImportSettings {
  std::string cudaSource;
  std::string outputPath = "-";
  kf::CudaImportOptions options;
  /// --roles as given, checked by the import command.
  std::vector<std::string> pointerRoles;
  /// Import every combination of the launch plan's parameters into the
  /// cache instead (--cache-all).
  bool cacheAll = false;
};

/// What the command line asks for: the subcommand, and every subcommand's
/// settings as the flags give them (only the chosen one's are used).
struct Invocation {
  Command command = Command::None;
  kf::ProblemInputOptions input;
  kf::CompileCommandConfig compile;
  kf::EvalCommandConfig eval;
  kf::SearchConfig search;
  kf::ProblemCheckConfig check;
  kf::LibraryCommandConfig library;
  ImportSettings import;
  /// compile-worker: include the launch plan in each reply.
  bool emitPlan = false;
};

/// Parses argv (exits on a malformed command line, as cl does). A first
/// argument ending in .mlir or .cu means `search`.
Invocation parseCommandLine(int argc, char **argv);

} // namespace kf_evolve

#endif // KF_TOOLS_KF_EVOLVE_COMMANDLINE_H
