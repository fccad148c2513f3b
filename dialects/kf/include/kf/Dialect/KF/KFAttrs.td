//===- KFAttrs.td - KF attributes --------------------------*- tablegen -*-===//

#ifndef KF_DIALECT_KF_KFATTRS_TD
#define KF_DIALECT_KF_KFATTRS_TD

include "kf/Dialect/KF/KFDialect.td"
include "mlir/IR/AttrTypeBase.td"

//===----------------------------------------------------------------------===//
// Distribution interface
//===----------------------------------------------------------------------===//

def KF_DistributionAttrInterface : AttrInterface<"DistributionAttr"> {
  let cppNamespace = "::kf";
  let description = [{
    How the values of one problem input are drawn for correctness runs and
    timing. The runtime's GPU-side generator implements each kind.
  }];
  let methods = [
    InterfaceMethod<"Whether values can be drawn for elements of `type`",
      "bool", "isCompatibleWith", (ins "::mlir::Type":$type)>,
    InterfaceMethod<"A short name of the kind, e.g. `uniform`",
      "::llvm::StringRef", "getKindName", (ins)>,
  ];
}

// A double-precision parameter written as a plain number (`1.5`, `-2.0`,
// `1e-4`) or as the hex bits of an f32 or f64 (kf::parseKFDouble). Stored as APFloat (f64 semantics) so that it hashes and compares
// bitwise; read it with convertToDouble().
def KF_DoubleParameter : APFloatParameter<"a floating-point number"> {
  let parser = [{ ::kf::parseKFDouble($_parser) }];
  let printer = [{ $_printer.printFloat($_self) }];
}

class KF_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<KF_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def KF_UniformAttr : KF_Attr<"Uniform", "uniform",
    [DeclareAttrInterfaceMethods<KF_DistributionAttrInterface>]> {
  let summary = "Floats drawn uniformly from [lo, hi)";
  let parameters = (ins KF_DoubleParameter:$lo, KF_DoubleParameter:$hi);
  let assemblyFormat = "`<` $lo `,` $hi `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "double":$lo, "double":$hi), [{
      return $_get($_ctxt, ::llvm::APFloat(lo), ::llvm::APFloat(hi));
    }]>
  ];
  let extraClassDeclaration = [{
    double getLoValue() const { return getLo().convertToDouble(); }
    double getHiValue() const { return getHi().convertToDouble(); }
  }];
}

def KF_NormalAttr : KF_Attr<"Normal", "normal",
    [DeclareAttrInterfaceMethods<KF_DistributionAttrInterface>]> {
  let summary = "Floats drawn from a normal distribution N(mean, std^2)";
  let parameters = (ins KF_DoubleParameter:$mean, KF_DoubleParameter:$std);
  let assemblyFormat = "`<` $mean `,` $std `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "double":$mean, "double":$std), [{
      return $_get($_ctxt, ::llvm::APFloat(mean), ::llvm::APFloat(std));
    }]>
  ];
  let extraClassDeclaration = [{
    double getMeanValue() const { return getMean().convertToDouble(); }
    double getStdValue() const { return getStd().convertToDouble(); }
  }];
}

def KF_IntRangeAttr : KF_Attr<"IntRange", "int_range",
    [DeclareAttrInterfaceMethods<KF_DistributionAttrInterface>]> {
  let summary = "Integers drawn uniformly from [lo, hi)";
  let parameters = (ins "int64_t":$lo, "int64_t":$hi);
  let assemblyFormat = "`<` $lo `,` $hi `>`";
  let genVerifyDecl = 1;
}

def KF_ToleranceAttr : KF_Attr<"Tolerance", "tolerance"> {
  let summary = "How close an output must be: |out - ref| <= atol + rtol * |ref|";
  let parameters = (ins KF_DoubleParameter:$atol, KF_DoubleParameter:$rtol);
  let assemblyFormat = "`<` `atol` `=` $atol `,` `rtol` `=` $rtol `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "double":$atol, "double":$rtol), [{
      return $_get($_ctxt, ::llvm::APFloat(atol), ::llvm::APFloat(rtol));
    }]>
  ];
  let extraClassDeclaration = [{
    double getAtolValue() const { return getAtol().convertToDouble(); }
    double getRtolValue() const { return getRtol().convertToDouble(); }
  }];
}

#endif // KF_DIALECT_KF_KFATTRS_TD
