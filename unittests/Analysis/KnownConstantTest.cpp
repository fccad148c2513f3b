//===- KnownConstantTest.cpp - Values whose every bit is known ------------===//

#include "kf/Analysis/IndexRanges.h"

#include "kf/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class KnownConstantTest : public ::testing::Test {
protected:
  KnownConstantTest() {
    DialectRegistry registry;
    kf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Whether the value of the op tagged kf.probe = `name` is known.
  bool known(ModuleOp module, StringRef name) {
    Value found;
    module.walk([&](Operation *op) {
      if (auto attr = op->getAttrOfType<StringAttr>("kf.probe"))
        if (attr.getValue() == name)
          found = op->getResult(0);
    });
    EXPECT_TRUE(found) << name.str();
    return found && kf::isKnownConstant(found);
  }

  MLIRContext context;
};

TEST_F(KnownConstantTest, BitsShiftedOrMaskedOut) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    llvm.func @k(%p: !llvm.ptr) {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %c16 = llvm.mlir.constant(16 : i32) : i32
      %c31 = llvm.mlir.constant(31 : i32) : i32
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %one = llvm.mlir.constant(1065353216 : i32) : i32
      %v = llvm.load %p : !llvm.ptr -> f32
      %b = llvm.bitcast %v {kf.probe = "bits"} : f32 to i32
      %s = llvm.lshr %b, %c16 {kf.probe = "half"} : i32
      %t = llvm.lshr %s, %c16 {kf.probe = "none"} : i32
      %m = llvm.and %b, %c0 {kf.probe = "masked"} : i32
      %u = llvm.shl %b, %c31 : i32
      %w = llvm.shl %u, %c1 {kf.probe = "shifted"} : i32
      %o = llvm.or %w, %one {kf.probe = "or"} : i32
      %f = llvm.bitcast %o {kf.probe = "float"} : i32 to f32
      %g = llvm.fadd %f, %v {kf.probe = "sum"} : f32
      %x = llvm.xor %b, %b {kf.probe = "xor"} : i32
      %a = llvm.add %s, %c1 {kf.probe = "add"} : i32
      llvm.return
    }
  )mlir",
                                                             &context);
  ASSERT_TRUE(module);
  EXPECT_FALSE(known(*module, "bits"));
  EXPECT_FALSE(known(*module, "half"));
  EXPECT_TRUE(known(*module, "none"));
  EXPECT_TRUE(known(*module, "masked"));
  EXPECT_TRUE(known(*module, "shifted"));
  EXPECT_TRUE(known(*module, "or"));
  EXPECT_TRUE(known(*module, "float"));
  EXPECT_FALSE(known(*module, "sum"));
  // x ^ x is zero, but known bits of one unknown value xor'ed with itself
  // are not known bit by bit: not claimed (conservative).
  EXPECT_FALSE(known(*module, "xor"));
  EXPECT_FALSE(known(*module, "add"));
}

TEST_F(KnownConstantTest, ArithForms) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @k(%x: i64, %y: i1) -> () {
      %c0 = arith.constant 0 : i64
      %c63 = arith.constant 63 : i64
      %c1 = arith.constant 1 : i64
      %m = arith.muli %x, %c0 {kf.probe = "times-zero"} : i64
      %s = arith.shrui %x, %c63 : i64
      %s2 = arith.shrui %s, %c1 {kf.probe = "shifted"} : i64
      %t = arith.trunci %x {kf.probe = "trunc"} : i64 to i32
      %e = arith.select %y, %c0, %m {kf.probe = "select"} : i64
      %f = arith.select %y, %c0, %x {kf.probe = "select-unknown"} : i64
      return
    }
  )mlir",
                                                             &context);
  ASSERT_TRUE(module);
  EXPECT_TRUE(known(*module, "times-zero"));
  EXPECT_TRUE(known(*module, "shifted"));
  EXPECT_FALSE(known(*module, "trunc"));
  EXPECT_TRUE(known(*module, "select"));
  EXPECT_FALSE(known(*module, "select-unknown"));
}

} // namespace

#include "kf/Analysis/KnownDivisor.h"

namespace {

TEST_F(KnownConstantTest, KnownDivisors) {
  // Powers of two an index is a multiple of: the column of a thread's
  // 8-wide tile (8), a copy's column (4, through a mod by 32), an offset by
  // one (1), a constant zero (0: every power of two).
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    gpu.module @m {
      gpu.func @k(%n: index) kernel {
        %c0 = arith.constant {kf.probe = "c0"} 0 : index
        %c12 = arith.constant 12 : index
        %tx = gpu.thread_id x
        %a = affine.apply affine_map<(d0) -> (d0 * 8)>(%tx) {kf.probe = "tile"}
        %b = affine.apply affine_map<(d0) -> ((d0 mod 32) * 4)>(%tx) {kf.probe = "copy"}
        %c = affine.apply affine_map<(d0) -> (d0 * 8 + 1)>(%tx) {kf.probe = "odd"}
        %d = arith.muli %tx, %c12 {kf.probe = "times12"} : index
        %e = arith.addi %d, %n {kf.probe = "plusarg"} : index
        %f = arith.addi %c0, %a {kf.probe = "zero"} : index
        gpu.return
      }
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);
  auto divisor = [&](StringRef name) {
    Value found;
    module->walk([&](Operation *op) {
      if (auto attr = op->getAttrOfType<StringAttr>("kf.probe"))
        if (attr.getValue() == name)
          found = op->getResult(0);
    });
    return kf::knownDivisor(found);
  };
  EXPECT_EQ(divisor("tile"), 8);
  EXPECT_EQ(divisor("copy"), 4);
  EXPECT_EQ(divisor("odd"), 1);
  EXPECT_EQ(divisor("times12"), 4);
  EXPECT_EQ(divisor("plusarg"), 1);
  EXPECT_EQ(divisor("zero"), 8);
  EXPECT_EQ(divisor("c0"), 0);
  Value zero;
  module->walk([&](Operation *op) {
    if (auto attr = op->getAttrOfType<StringAttr>("kf.probe");
        attr && attr.getValue() == "c0")
      zero = op->getResult(0);
  });
  EXPECT_TRUE(kf::isKnownMultipleOf(zero, 16));
}

} // namespace
