//===- Passes.td - Kernel Foundry schedule passes ----------*- tablegen -*-===//
//
// The pass that applies a schedule lives with the schedules: it builds the
// default schedule and applies scripts whose steps are kf's transform passes
// (kf/Transforms/Passes.td), so it sits above them.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SCHEDULE_PASSES_TD
#define KF_SCHEDULE_PASSES_TD

include "mlir/Pass/PassBase.td"

def KFApplySchedule : Pass<"kf-apply-schedule", "mlir::ModuleOp"> {
  let summary = "Reduce a problem to its reference and apply a schedule";
  let description = [{
    Extracts the problem's reference function (as `kf-extract-reference`)
    and applies a schedule to it with the transform interpreter: the script
    in the file named by `schedule`, or kf's default schedule when none is
    given. The result holds `gpu.launch` ops on memrefs, ready for
    `kf-lower-to-ptx`.
  }];
  let options = [
    Option<"problemName", "problem", "std::string", /*default=*/"\"\"",
           "The problem to schedule when the module holds several">,
    Option<"schedulePath", "schedule", "std::string", /*default=*/"\"\"",
           "A transform script (with @__transform_main); empty: the default "
           "schedule">,
  ];
  let dependentDialects = [
    "::kf::KFDialect", "::mlir::transform::TransformDialect",
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::affine::AffineDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::vector::VectorDialect", "::mlir::arith::ArithDialect",
  ];
}

#endif // KF_SCHEDULE_PASSES_TD
