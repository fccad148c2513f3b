//===- ProblemOpTest.cpp - kf.problem C++ API -----------------------------===//

#include "kf/Dialect/KF/KFOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class ProblemOpTest : public ::testing::Test {
protected:
  ProblemOpTest() {
    context.loadDialect<kf::KFDialect, func::FuncDialect, arith::ArithDialect,
                        linalg::LinalgDialect, tensor::TensorDialect,
                        math::MathDialect>();
  }

  /// Parses `source`, collecting diagnostics instead of printing them.
  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  MLIRContext context;
};

constexpr const char *kTwoInputs = R"mlir(
  kf.problem @add reference(@add_ref) tolerance(<atol = 0.0, rtol = 1.0e-06>)
  func.func @add_ref(%a: tensor<8xf32>, %b: tensor<8xi32>) -> tensor<8xf32> {
    return %a : tensor<8xf32>
  }
)mlir";

TEST_F(ProblemOpTest, DefaultDistributionsIncludeNegativeValues) {
  OwningOpRef<ModuleOp> module = parse(kTwoInputs);
  ASSERT_TRUE(module);
  FailureOr<kf::ProblemOp> problem = kf::lookupProblem(*module);
  ASSERT_TRUE(succeeded(problem));

  auto floatInput = dyn_cast<kf::UniformAttr>(problem->getInputDistribution(0));
  ASSERT_TRUE(floatInput);
  EXPECT_LT(floatInput.getLoValue(), 0.0);
  EXPECT_GT(floatInput.getHiValue(), 0.0);

  auto intInput = dyn_cast<kf::IntRangeAttr>(problem->getInputDistribution(1));
  ASSERT_TRUE(intInput);
  EXPECT_LT(intInput.getLo(), 0);
}

TEST_F(ProblemOpTest, ExplicitDistributionsAreReturnedAsWritten) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    kf.problem @p reference(@r) inputs([#kf.normal<2.0, 0.5>])
        tolerance(<atol = 1.0e-04, rtol = 1.0e-04>)
    func.func @r(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  FailureOr<kf::ProblemOp> problem = kf::lookupProblem(*module);
  ASSERT_TRUE(succeeded(problem));
  auto normal = dyn_cast<kf::NormalAttr>(problem->getInputDistribution(0));
  ASSERT_TRUE(normal);
  EXPECT_EQ(normal.getMeanValue(), 2.0);
  EXPECT_EQ(normal.getStdValue(), 0.5);
  EXPECT_EQ(problem->getTolerance().getAtolValue(), 1.0e-4);
  EXPECT_EQ(problem->getReferenceFunc().getSymName(), "r");
}

TEST_F(ProblemOpTest, LookupFailsWithoutProblem) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(kf::lookupProblem(*module)));
  EXPECT_NE(message.find("holds no kf.problem"), std::string::npos) << message;
}

TEST_F(ProblemOpTest, LookupByNameAmongSeveral) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    kf.problem @a reference(@r) tolerance(<atol = 0.0, rtol = 0.0>)
    kf.problem @b reference(@r) tolerance(<atol = 1.0, rtol = 0.0>)
    func.func @r(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  ScopedDiagnosticHandler handler(&context,
                                  [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(kf::lookupProblem(*module)));
  FailureOr<kf::ProblemOp> b = kf::lookupProblem(*module, "b");
  ASSERT_TRUE(succeeded(b));
  EXPECT_EQ(b->getTolerance().getAtolValue(), 1.0);
  EXPECT_TRUE(failed(kf::lookupProblem(*module, "c")));
}

} // namespace
