//===- InitAll.h - Register what the kf tools use ---------------*- C++ -*-===//
//
// One place that lists the upstream dialects, interfaces, passes and LLVM IR
// translations kf uses, plus KF's own. Both tools call it. The list is
// explicit (not mlir::registerAllDialects) so that the portable static build
// links only what kf needs.
//
//===----------------------------------------------------------------------===//

#ifndef KF_INITALL_H
#define KF_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kf {

/// Dialects, their external interface models, transform-dialect extensions
/// and LLVM IR translations.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Upstream passes and pipelines kf uses, and every kf pass and pipeline.
void registerAllPasses();

} // namespace kf

#endif // KF_INITALL_H
