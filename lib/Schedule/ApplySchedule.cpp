//===- ApplySchedule.cpp - Apply a schedule to a problem ------------------===//

#include "kf/Dialect/KF/KFOps.h"
#include "kf/Schedule/Passes.h"
#include "kf/Schedule/Schedule.h"

#include "llvm/Support/MemoryBuffer.h"

namespace kf {
#define GEN_PASS_DEF_KFAPPLYSCHEDULE
#include "kf/Schedule/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFApplySchedulePass
    : kf::impl::KFApplyScheduleBase<KFApplySchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> extracted =
        kf::extractReference(module, problemName);
    if (failed(extracted))
      return signalPassFailure();
    func::FuncOp reference = *extracted;

    std::string scriptText;
    std::string bufferName = schedulePath;
    if (schedulePath.empty()) {
      FailureOr<kf::Schedule> schedule = kf::buildDefaultSchedule(reference);
      if (failed(schedule))
        return signalPassFailure();
      FailureOr<std::string> text = kf::renderSchedule(reference, *schedule);
      if (failed(text))
        return signalPassFailure();
      scriptText = std::move(*text);
      bufferName = "<default schedule>";
    } else {
      auto file = llvm::MemoryBuffer::getFile(schedulePath);
      if (!file) {
        module.emitError() << "cannot read schedule '" << schedulePath
                           << "': " << file.getError().message();
        return signalPassFailure();
      }
      scriptText = (*file)->getBuffer().str();
    }
    OwningOpRef<ModuleOp> script =
        kf::parseSchedule(scriptText, bufferName, &getContext());
    if (!script) {
      module.emitError() << "schedule '" << bufferName
                         << "' is not a transform script with a "
                            "@__transform_main entry point";
      return signalPassFailure();
    }
    if (failed(kf::applySchedule(module, *script)))
      return signalPassFailure();
  }
};
} // namespace
