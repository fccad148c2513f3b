//===- KFOps.cpp - KF operations ------------------------------------------===//

#include "kf/Dialect/KF/KFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace kf;

#define GET_OP_CLASSES
#include "kf/Dialect/KF/KFOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ProblemOp
//===----------------------------------------------------------------------===//

func::FuncOp ProblemOp::getReferenceFunc() {
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(getOperation(),
                                                            getReferenceAttr());
}

DistributionAttr ProblemOp::getInputDistribution(unsigned index) {
  if (std::optional<ArrayAttr> inputs = getInputs())
    return cast<DistributionAttr>((*inputs)[index]);
  func::FuncOp ref = getReferenceFunc();
  Type elementType =
      cast<ShapedType>(ref.getArgumentTypes()[index]).getElementType();
  if (isa<IntegerType>(elementType))
    return IntRangeAttr::get(getContext(), -100, 100);
  return UniformAttr::get(getContext(), -1.0, 1.0);
}

/// Element types the runtime can generate, compare and time.
static bool isSupportedElementType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth()) &&
           !intType.isUnsigned();
  return false;
}

/// Checks one argument or result type of the reference; `what` names it in
/// the message (e.g. "argument 2").
static LogicalResult verifyReferenceType(ProblemOp op, Type type,
                                         const Twine &what) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return op.emitOpError()
           << "reference " << what << " has type " << type
           << ": problems take and return ranked tensors (use tensor<1xT> "
              "for a scalar)";
  if (!tensorType.hasStaticShape())
    return op.emitOpError()
           << "reference " << what << " has dynamic shape " << type
           << ": problems need static shapes; write the "
              "sizes to optimize for";
  if (tensorType.getEncoding())
    return op.emitOpError() << "reference " << what << " has encoded tensor "
                            << type << ": encodings are not supported";
  if (!isSupportedElementType(tensorType.getElementType()))
    return op.emitOpError()
           << "reference " << what << " has element type "
           << tensorType.getElementType()
           << ", which is not supported (use f16, bf16, f32, f64, i1, i8, "
              "i16, i32 or i64)";
  return success();
}

LogicalResult ProblemOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol =
      symbolTable.lookupNearestSymbolFrom(getOperation(), getReferenceAttr());
  if (!symbol)
    return emitOpError() << "reference " << getReferenceAttr()
                         << " does not name a function in this module";
  auto ref = dyn_cast<func::FuncOp>(symbol);
  if (!ref)
    return emitOpError() << "reference " << getReferenceAttr() << " names a '"
                         << symbol->getName() << "', expected a 'func.func'";
  if (ref.isExternal())
    return emitOpError() << "reference " << getReferenceAttr()
                         << " is a declaration; the reference needs a body";
  if (ref.getNumResults() == 0)
    return emitOpError() << "reference " << getReferenceAttr()
                         << " returns nothing; its results are the problem's "
                            "outputs";

  for (auto [index, type] : llvm::enumerate(ref.getArgumentTypes()))
    if (failed(verifyReferenceType(*this, type, "argument " + Twine(index))))
      return failure();
  for (auto [index, type] : llvm::enumerate(ref.getResultTypes()))
    if (failed(verifyReferenceType(*this, type, "result " + Twine(index))))
      return failure();

  if (std::optional<ArrayAttr> inputs = getInputs()) {
    if (inputs->size() != ref.getNumArguments())
      return emitOpError() << "states " << inputs->size()
                           << " input distributions but reference "
                           << getReferenceAttr() << " takes "
                           << ref.getNumArguments()
                           << " arguments; give one per argument";
    for (auto [index, attr] : llvm::enumerate(*inputs)) {
      auto distribution = cast<DistributionAttr>(attr);
      Type elementType =
          cast<ShapedType>(ref.getArgumentTypes()[index]).getElementType();
      if (!distribution.isCompatibleWith(elementType))
        return emitOpError()
               << "input " << index << " has distribution " << attr
               << ", which cannot produce " << elementType
               << " values (use #kf.uniform or #kf.normal for floats, "
                  "#kf.int_range for integers)";
    }
  }

  // The reference is the ground truth and must stay analysable: only the
  // value-semantics dialects that kf lowers are allowed in it.
  WalkResult walk = ref.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<func::CallOp>(op)) {
      op->emitOpError() << "is not allowed in the reference of problem "
                        << getSymNameAttr() << ": inline the callee";
      return WalkResult::interrupt();
    }
    StringRef dialect = op->getName().getDialectNamespace();
    if (llvm::is_contained({"func", "linalg", "tensor", "arith", "math"},
                           dialect))
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitOpError()
                              << "is not allowed in the reference of problem "
                              << getSymNameAttr()
                              << ": a reference uses only func, linalg, "
                                 "tensor, arith and math operations";
    diag.attachNote(getLoc()) << "problem declared here";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// lookupProblem
//===----------------------------------------------------------------------===//

FailureOr<ProblemOp> kf::lookupProblem(ModuleOp module, StringRef name) {
  SmallVector<ProblemOp> problems(module.getOps<ProblemOp>());
  if (!name.empty()) {
    for (ProblemOp problem : problems)
      if (problem.getSymName() == name)
        return problem;
    return module.emitError()
           << "no kf.problem named @" << name << " in this module";
  }
  if (problems.empty())
    return module.emitError()
           << "this module holds no kf.problem op: a problem file needs one "
              "naming the reference function (see docs/problem-format.md)";
  if (problems.size() > 1) {
    InFlightDiagnostic diag = module.emitError()
                              << "this module holds " << problems.size()
                              << " kf.problem ops; name the one to use";
    for (ProblemOp problem : problems)
      diag.attachNote(problem.getLoc()) << "problem @" << problem.getSymName();
    return diag;
  }
  return problems.front();
}

FailureOr<func::FuncOp> kf::extractReference(ModuleOp module, StringRef name) {
  FailureOr<ProblemOp> problem = lookupProblem(module, name);
  if (failed(problem))
    return failure();
  func::FuncOp reference = problem->getReferenceFunc();
  for (Operation &op : llvm::make_early_inc_range(module.getOps()))
    if (&op != reference.getOperation())
      op.erase();
  return reference;
}
