//===- CompileWorker.cpp - The worker side of kf::CompilePool -------------===//

#include "kf/Search/CompileWorker.h"

#include "kf/Search/CompilePool.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

using namespace llvm;
using namespace mlir;

namespace kf {

int runCompileWorker(MLIRContext &context, const ProblemInputOptions &options,
                     bool emitPlan, std::istream &requests) {
  OpenedProblem opened(context, options);
  std::optional<LoadedProblem> &loaded = opened.loaded;
  if (!loaded)
    return 1;
  // A candidate's first error is its reason, sent back in its reply.
  std::string firstError;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
        firstError.empty())
      firstError = diagnostic.str();
    return success();
  });
  std::string line;
  while (std::getline(requests, line)) {
    CompileReply reply;
    Expected<json::Value> request = json::parse(line);
    CandidateSource candidate;
    json::Path::Root root;
    if (!request)
      consumeError(request.takeError());
    if (!request || !fromJSON(*request, candidate, root)) {
      reply.status = CandidateStatus::CompileError;
      reply.stage = "request";
      reply.error = "a request is a JSON object with \"kind\" (schedule or "
                    "kernel) and \"text\"";
    } else {
      firstError.clear();
      CompileStage stage = CompileStage::Schedule;
      SmallVector<CheatFinding> rejections;
      FailureOr<CompiledCandidate> compiled =
          compileText(options, *loaded, candidate.kind, candidate.text,
                      "candidate-kernel.mlir", stage, &rejections);
      if (failed(compiled)) {
        reply.status = rejections.empty() ? CandidateStatus::CompileError
                                          : CandidateStatus::Rejected;
        if (rejections.empty())
          reply.stage = stringifyCompileStage(stage).str();
        reply.error = firstError;
      } else {
        reply.status = CandidateStatus::Compiled;
        reply.predictedSeconds = compiled->predictedSeconds;
        reply.triggers = diagnosisTriggers(*compiled);
        reply.kernels = compiled->plan.numLaunches();
        reply.globalBytes = compiled->globalBytes;
        if (emitPlan)
          reply.plan = std::move(compiled->plan);
      }
    }
    outs() << toJSON(reply) << "\n";
    outs().flush();
  }
  return 0;
}

} // namespace kf
