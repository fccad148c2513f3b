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

#endif // KF_TRANSFORMS_PASSES_TD
