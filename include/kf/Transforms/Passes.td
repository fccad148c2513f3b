//===- Passes.td - Kernel Foundry passes -------------------*- tablegen -*-===//

#ifndef KF_TRANSFORMS_PASSES_TD
#define KF_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KFExtractReference : Pass<"kf-extract-reference", "mlir::ModuleOp"> {
  let summary = "Reduce a problem module to its reference function";
  let description = [{
    Finds the module's `kf.problem` (the one named by `problem`, or the only
    one), keeps its reference function and removes every other top-level
    operation, the `kf.problem` op included. The result is a plain
    linalg-on-tensors module: the input to the default schedule, to a
    candidate's schedule, and to the CPU reference run. Fails with a located
    error when the module holds no problem.
  }];
  let options = [
    Option<"problemName", "problem", "std::string", /*default=*/"\"\"",
           "The problem to extract when the module holds several">,
  ];
  let dependentDialects = ["::kf::KFDialect"];
}

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

def KFCheckHostCode : Pass<"kf-check-host-code", "mlir::ModuleOp"> {
  let summary = "Check that the host side of a scheduled module is a launch plan";
  let description = [{
    kf's runtime executes the host side of a lowered module itself (there is
    no CPU code generation): host functions may only allocate and free
    buffers, copy between them, reshape views, launch kernels and return.
    This pass reports any other host operation with a located error, so a
    schedule that leaves computation on the host fails early and clearly.
  }];
}

#endif // KF_TRANSFORMS_PASSES_TD
