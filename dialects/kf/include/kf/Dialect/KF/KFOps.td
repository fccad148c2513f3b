//===- KFOps.td - KF operations ----------------------------*- tablegen -*-===//

#ifndef KF_DIALECT_KF_KFOPS_TD
#define KF_DIALECT_KF_KFOPS_TD

include "kf/Dialect/KF/KFDialect.td"
include "kf/Dialect/KF/KFAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

class KF_Op<string mnemonic, list<Trait> traits = []>
    : Op<KF_Dialect, mnemonic, traits>;

def KF_DistributionArrayAttr
    : TypedArrayAttrBase<KF_DistributionAttrInterface,
                         "array of input distributions">;

def KF_ProblemOp : KF_Op<"problem", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The contract of an optimization problem";
  let description = [{
    Names the reference function (the ground truth), states for each of its
    arguments how test inputs are drawn, and gives the output tolerance.
    `inputs` may be omitted: every floating-point input is then drawn from
    `#kf.uniform<-1.0, 1.0>` and every integer input from
    `#kf.int_range<-100, 100>` (negative values included on purpose: many
    activations collapse to the identity on non-negative inputs).

    ```mlir
    kf.problem @relu reference(@relu_ref)
        inputs([#kf.normal<0.0, 1.0>])
        tolerance(<atol = 1.0e-05, rtol = 1.0e-05>)
    func.func @relu_ref(%x: tensor<4096x393216xf32>) -> tensor<4096x393216xf32>
    ```

    The reference must be a `func.func` with ranked, statically shaped tensor
    arguments and results of a supported element type (f16, bf16, f32, f64,
    i1, i8, i16, i32, i64), whose body uses only func, linalg, tensor, arith
    and math operations.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$reference,
                       OptionalAttr<KF_DistributionArrayAttr>:$inputs,
                       KF_ToleranceAttr:$tolerance);
  let assemblyFormat = [{
    $sym_name `reference` `(` $reference `)`
    (`inputs` `(` $inputs^ `)`)?
    `tolerance` `(` $tolerance `)` attr-dict
  }];
  let extraClassDeclaration = [{
    /// The reference function; null if the symbol does not resolve (the
    /// verifier rejects that).
    ::mlir::func::FuncOp getReferenceFunc();
    /// The distribution for argument `index` of the reference, with the
    /// documented defaults filled in when `inputs` is omitted.
    ::kf::DistributionAttr getInputDistribution(unsigned index);
  }];
}

#endif // KF_DIALECT_KF_KFOPS_TD
