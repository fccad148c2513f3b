//===- Worker.cpp - GPU evaluation in an isolated process -----------------===//

#include "kf/Runtime/Worker.h"

#include "kf/Runtime/LaunchPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <string>

using namespace kf;

namespace {

void reply(const EvalResult &result) {
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(toJSON(result));
  std::cout << line << "\n" << std::flush;
}

EvalResult failure(EvalStatus status, const llvm::Twine &message) {
  EvalResult result;
  result.status = status;
  result.message = message.str();
  return result;
}

/// Parses a lowered module and reads its launch plan; diagnostics go to
/// `errors`.
mlir::FailureOr<LaunchPlan> readPlan(mlir::MLIRContext &context,
                                     llvm::StringRef text,
                                     llvm::StringRef name,
                                     std::string &errors) {
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    llvm::raw_string_ostream os(errors);
    os << diag.getLocation() << ": " << diag.str() << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context, name);
  if (!module)
    return mlir::failure();
  return buildLaunchPlan(*module);
}

} // namespace

int kf::runWorker(
    mlir::MLIRContext &context,
    llvm::function_ref<llvm::Expected<PlanModule>()> compileRuntimeKernels) {
  std::unique_ptr<GpuEvaluator> evaluator;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    llvm::Expected<llvm::json::Value> request = llvm::json::parse(line);
    if (!request) {
      reply(failure(EvalStatus::InternalError,
                    "malformed request: " + llvm::toString(request.takeError())));
      continue;
    }
    const llvm::json::Object *object = request->getAsObject();
    ProblemSpec spec;
    EvalConfig config;
    llvm::json::Path::Root root("request");
    std::optional<llvm::StringRef> reference =
        object ? object->getString("reference") : std::nullopt;
    std::optional<llvm::StringRef> candidate =
        object ? object->getString("candidate") : std::nullopt;
    if (!object || object->getString("op") != "evaluate" ||
        !object->get("spec") || !fromJSON(*object->get("spec"), spec, root) ||
        !object->get("config") ||
        !fromJSON(*object->get("config"), config, root) || !reference ||
        !candidate) {
      reply(failure(EvalStatus::InternalError,
                    "malformed evaluate request (need op, spec, config, "
                    "reference, candidate)"));
      continue;
    }

    if (!evaluator) {
      llvm::Expected<PlanModule> kernels = compileRuntimeKernels();
      if (!kernels) {
        reply(failure(EvalStatus::InternalError,
                      "cannot compile kf's runtime kernels: " +
                          llvm::toString(kernels.takeError())));
        return 1;
      }
      llvm::Expected<std::unique_ptr<GpuEvaluator>> created =
          GpuEvaluator::create(config.device, *kernels);
      if (!created) {
        reply(failure(EvalStatus::NoDevice, llvm::toString(created.takeError())));
        return 4;
      }
      evaluator = std::move(*created);
    }

    std::string errors;
    mlir::FailureOr<LaunchPlan> referencePlan =
        readPlan(context, *reference, "reference", errors);
    mlir::FailureOr<LaunchPlan> candidatePlan =
        readPlan(context, *candidate, "candidate", errors);
    if (failed(referencePlan) || failed(candidatePlan)) {
      reply(failure(EvalStatus::LoadError,
                    "the worker cannot read the lowered modules: " + errors));
      continue;
    }
    EvalResult result =
        evaluator->evaluate(spec, *referencePlan, *candidatePlan, config);
    reply(result);
    if (result.contextLost)
      return 3;
  }
  return 0;
}

EvalResult WorkerClient::evaluate(const ProblemSpec &spec,
                                  llvm::StringRef reference,
                                  llvm::StringRef candidate,
                                  const EvalConfig &config,
                                  std::chrono::milliseconds timeout) {
  if (process && !process->isRunning())
    process.reset();
  if (!process) {
    llvm::Expected<std::unique_ptr<Subprocess>> spawned =
        Subprocess::spawn(command);
    if (!spawned)
      return failure(EvalStatus::InternalError,
                     "cannot start the measurement worker: " +
                         llvm::toString(spawned.takeError()));
    process = std::move(*spawned);
    ++numStarts;
  }
  llvm::json::Object request{{"op", "evaluate"},
                             {"spec", toJSON(spec)},
                             {"config", toJSON(config)},
                             {"reference", reference},
                             {"candidate", candidate}};
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(std::move(request));
  if (llvm::Error error = process->writeLine(line)) {
    std::string tail = process->stderrTail();
    process.reset();
    return failure(EvalStatus::Fault,
                   "the measurement worker stopped accepting work: " +
                       llvm::toString(std::move(error)) +
                       (tail.empty() ? "" : "\n" + tail));
  }
  llvm::Expected<std::string> answer = process->readLine(timeout);
  if (!answer) {
    EvalResult result;
    llvm::handleAllErrors(
        answer.takeError(),
        [&](const SubprocessTimeout &) {
          result = failure(
              EvalStatus::Timeout,
              llvm::formatv("the evaluation did not finish within {0} s (a "
                            "kernel that never ends?); the worker was killed "
                            "and will be restarted",
                            timeout.count() / 1000.0));
        },
        [&](const SubprocessExited &exited) {
          std::string tail = process->stderrTail();
          result = failure(EvalStatus::Fault,
                           "the measurement worker died: " + exited.message() +
                               (tail.empty() ? "" : "\n" + tail));
        },
        [&](const llvm::ErrorInfoBase &other) {
          result = failure(EvalStatus::InternalError, other.message());
        });
    process->kill();
    process.reset();
    return result;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(*answer);
  EvalResult result;
  llvm::json::Path::Root root("reply");
  if (!parsed || !fromJSON(*parsed, result, root)) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    process->kill();
    process.reset();
    return failure(EvalStatus::InternalError,
                   "the measurement worker sent a malformed reply");
  }
  if (result.contextLost || result.status == EvalStatus::NoDevice) {
    process->wait();
    process.reset();
  }
  return result;
}
