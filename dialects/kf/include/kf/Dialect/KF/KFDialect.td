//===- KFDialect.td - Kernel Foundry dialect ---------------*- tablegen -*-===//
//
// The KF dialect carries what the optimizer needs beside upstream IR: the
// problem contract (which function is the ground truth, how test inputs are
// drawn, how close an answer must be).
//
//===----------------------------------------------------------------------===//

#ifndef KF_DIALECT_KF_KFDIALECT_TD
#define KF_DIALECT_KF_KFDIALECT_TD

include "mlir/IR/OpBase.td"

def KF_Dialect : Dialect {
  let name = "kf";
  let summary = "Kernel Foundry: problem contracts for GPU kernel search";
  let description = [{
    A *problem* is a reference computation (a `func.func` in
    linalg/tensor/arith/math on static shapes, whose results are the outputs)
    plus a `kf.problem` op that names it and states how test inputs are drawn
    and how close a candidate's outputs must be. See docs/problem-format.md.
  }];
  let cppNamespace = "::kf";
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

#endif // KF_DIALECT_KF_KFDIALECT_TD
