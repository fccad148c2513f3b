//===- KnownDivisor.cpp - Powers of two an index is a multiple of ---------===//

#include "kf/Analysis/KnownDivisor.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <functional>
#include <numeric>

using namespace mlir;

/// knownDivisor, `depth` ops down the chain that computes the value (a
/// bound for long chains).
static int64_t divisorOf(Value value, unsigned depth) {
  constexpr int64_t kLimit = int64_t(1) << 30;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    int64_t c = constant.getSExtValue();
    return c == 0 ? 0 : std::min(kLimit, c & -c);
  }
  Operation *op = value.getDefiningOp();
  if (!op || depth > 16)
    return 1;
  auto gcd = [](int64_t a, int64_t b) { return std::gcd(a, b); };
  auto operand = [&](unsigned i) {
    return divisorOf(op->getOperand(i), depth + 1);
  };
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return gcd(operand(0), operand(1));
  if (isa<arith::MulIOp>(op)) {
    int64_t a = operand(0), b = operand(1);
    if (a == 0 || b == 0)
      return 0;
    return std::min(kLimit, a * b);
  }
  if (isa<arith::ShLIOp>(op)) {
    APInt shift;
    if (matchPattern(op->getOperand(1), m_ConstantInt(&shift)) &&
        shift.getSExtValue() < 30)
      return std::min(kLimit, operand(0) << shift.getSExtValue());
    return 1;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return operand(0);
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    unsigned numDims = map.getNumDims();
    std::function<int64_t(AffineExpr)> divisor = [&](AffineExpr e) -> int64_t {
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        return c.getValue() == 0
                   ? 0
                   : std::min(kLimit, c.getValue() & -c.getValue());
      if (auto d = dyn_cast<AffineDimExpr>(e))
        return divisorOf(apply.getOperand(d.getPosition()), depth + 1);
      if (auto s = dyn_cast<AffineSymbolExpr>(e))
        return divisorOf(apply.getOperand(numDims + s.getPosition()),
                         depth + 1);
      auto binary = cast<AffineBinaryOpExpr>(e);
      int64_t l = divisor(binary.getLHS()), r = divisor(binary.getRHS());
      switch (e.getKind()) {
      case AffineExprKind::Add:
        return gcd(l, r);
      case AffineExprKind::Mul:
        return l == 0 || r == 0 ? 0 : std::min(kLimit, l * r);
      case AffineExprKind::Mod:
        // x mod m = x - m * floor(x / m): a multiple of gcd(d(x), d(m)).
        return gcd(l, r);
      default:
        return 1;
      }
    };
    return divisor(map.getResult(0));
  }
  return 1;
}

int64_t kf::knownDivisor(Value value) { return divisorOf(value, 0); }
