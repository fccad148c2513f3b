//===- CudaLaunchTest.cpp - Launch-plan expressions and parsing -----------===//

#include "kf/Import/CudaLaunch.h"

#include "gtest/gtest.h"

using namespace kf;

namespace {

int64_t evaluate(llvm::StringRef text,
                 const llvm::StringMap<int64_t> &symbols = {}) {
  llvm::Expected<int64_t> value = evaluateLaunchExpression(text, symbols);
  EXPECT_TRUE(!!value) << llvm::toString(value.takeError());
  return value ? *value : -1;
}

std::string error(llvm::StringRef text,
                  const llvm::StringMap<int64_t> &symbols = {}) {
  llvm::Expected<int64_t> value = evaluateLaunchExpression(text, symbols);
  if (value)
    return "no error, value " + std::to_string(*value);
  return llvm::toString(value.takeError());
}

TEST(LaunchExpression, ArithmeticPrecedenceAndFunctions) {
  llvm::StringMap<int64_t> symbols{{"in0.d0", 4096}, {"BLOCK", 256}};
  EXPECT_EQ(evaluate("1 + 2 * 3"), 7);
  EXPECT_EQ(evaluate("(1 + 2) * 3"), 9);
  EXPECT_EQ(evaluate("10 - 4 - 3"), 3);
  EXPECT_EQ(evaluate("17 / 5 % 2"), 1);
  EXPECT_EQ(evaluate("-3 + 5"), 2);
  EXPECT_EQ(evaluate("ceildiv(in0.d0 + 1, BLOCK)", symbols), 17);
  EXPECT_EQ(evaluate("min(BLOCK, 128) * max(2, 3)", symbols), 384);
  EXPECT_EQ(evaluate("  in0.d0/BLOCK  ", symbols), 16);
}

TEST(LaunchExpression, ErrorsSayWhatAndWhere) {
  llvm::StringMap<int64_t> symbols{{"N", 8}, {"M", 2}};
  EXPECT_EQ(error("N * K", symbols),
            "in 'N * K' at column 6: unknown name 'K' (known: M, N)");
  EXPECT_EQ(error("N / 0", symbols),
            "in 'N / 0' at column 6: division of 8 by 0: only non-negative "
            "operands and positive divisors");
  EXPECT_EQ(error("(N + 1", symbols), "in '(N + 1' at column 7: expected ')'");
  EXPECT_EQ(error("N +", symbols),
            "in 'N +' at column 4: expression ends early");
  EXPECT_EQ(error("pow(N, 2)", symbols),
            "in 'pow(N, 2)' at column 5: unknown function 'pow' (known: "
            "ceildiv, min, max)");
  EXPECT_EQ(error("N N", symbols), "in 'N N' at column 3: unexpected 'N'");
  EXPECT_EQ(error("99999999999999999999"),
            "in '99999999999999999999' at column 21: integer out of range");
}

TEST(LaunchExpression, OverflowAndDeepNestingAreErrors) {
  llvm::StringMap<int64_t> symbols{{"BIG", int64_t(1) << 62}};
  EXPECT_EQ(error("BIG * 4", symbols),
            "in 'BIG * 4' at column 8: overflows 64-bit integers");
  EXPECT_EQ(error("BIG + BIG + BIG", symbols),
            "in 'BIG + BIG + BIG' at column 11: overflows 64-bit integers");
  // -2^62 - 2^62 is the smallest int64; one more is too much.
  EXPECT_EQ(error("-BIG - BIG - BIG", symbols),
            "in '-BIG - BIG - BIG' at column 17: overflows 64-bit integers");
  // ceildiv at the top of the range (2^63 - 1) does not wrap.
  EXPECT_EQ(evaluate("ceildiv(BIG + (BIG - 1), 2)", symbols), int64_t(1) << 62);
  std::string deep(300, '(');
  deep += "1" + std::string(300, ')');
  EXPECT_NE(error(deep).find("nested too deeply"), std::string::npos);
  std::string negations(300, '-');
  EXPECT_NE(error(negations + "1").find("nested too deeply"),
            std::string::npos);
}

TEST(LaunchPlan, ParsesEveryField) {
  llvm::Expected<CudaLaunchSpec> plan = parseCudaLaunchSpec(R"json({
    "parameters": {"BLOCK": {"value": 128, "choices": [64, 128]}, "UNROLL": 4},
    "scratch": [{"name": "partial", "type": "f64", "elements": "in0.d0"}],
    "launches": [
      {"kernel": "k1", "grid": ["in0.d0", 2], "block": "BLOCK",
       "shared_bytes": "BLOCK * 4", "args": ["in0", "partial", 3, 0.5]},
      {"kernel": "k2", "args": []}
    ]})json",
                                                            "plan.json");
  ASSERT_TRUE(!!plan) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->parameters.size(), 2u);
  EXPECT_EQ(plan->parameters[0].name, "BLOCK");
  EXPECT_EQ(plan->parameters[0].choices, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(plan->parameters[1].name, "UNROLL");
  EXPECT_EQ(plan->parameters[1].value, 4);
  ASSERT_EQ(plan->scratch.size(), 1u);
  EXPECT_EQ(plan->scratch[0].elementType, "f64");
  ASSERT_EQ(plan->launches.size(), 2u);
  const CudaLaunch &first = plan->launches[0];
  EXPECT_EQ(first.grid[0], "in0.d0");
  EXPECT_EQ(first.grid[1], "2");
  EXPECT_EQ(first.grid[2], "1");
  EXPECT_EQ(first.block[0], "BLOCK");
  EXPECT_EQ(first.sharedBytes, "BLOCK * 4");
  ASSERT_EQ(first.arguments.size(), 4u);
  EXPECT_FALSE(first.arguments[1].isNumber);
  EXPECT_TRUE(first.arguments[2].isNumber);
  EXPECT_EQ(first.arguments[3].number, 0.5);
  EXPECT_EQ(plan->launches[1].sharedBytes, "0");

  ProblemSpec spec;
  spec.inputs = {{"f32", {32, 1000}, {}}};
  spec.outputs = {{"f32", {32}, {}}};
  llvm::StringMap<int64_t> symbols =
      launchSymbols(spec, *plan, {{"BLOCK", 64}});
  EXPECT_EQ(symbols.lookup("in0.d1"), 1000);
  EXPECT_EQ(symbols.lookup("in0.size"), 32000);
  EXPECT_EQ(symbols.lookup("out0.d0"), 32);
  EXPECT_EQ(symbols.lookup("BLOCK"), 64);
  EXPECT_EQ(symbols.lookup("UNROLL"), 4);
}

TEST(LaunchPlan, RejectsMalformedPlans) {
  auto reason = [](llvm::StringRef text) {
    llvm::Expected<CudaLaunchSpec> plan = parseCudaLaunchSpec(text, "p.json");
    return plan ? std::string("parsed") : llvm::toString(plan.takeError());
  };
  EXPECT_EQ(reason("[]"), "p.json: a launch plan is a JSON object");
  EXPECT_EQ(reason("{}"), "p.json: needs \"launches\": a non-empty array");
  EXPECT_EQ(reason(R"({"launches": [{"args": []}]})"),
            "p.json: launches[0]: needs \"kernel\": the kernel's name");
  EXPECT_EQ(reason(R"({"launches": [{"kernel": "k"}]})"),
            "p.json: launches[0]: needs \"args\": one entry per kernel "
            "parameter");
  EXPECT_EQ(
      reason(
          R"({"launches": [{"kernel": "k", "args": [], "grid": [1, 2, 3, 4]}]})"),
      "p.json: launches[0].grid: expected an expression or an array of "
      "one to three expressions");
  EXPECT_EQ(
      reason(
          R"({"parameters": {"2x": 1}, "launches": [{"kernel": "k", "args": []}]})"),
      "p.json: parameters.2x: a parameter name is letters, digits and "
      "'_', not starting with a digit");
  EXPECT_EQ(
      reason(R"({"launches": [{"kernel": "k", "args": [], "blocks": 4}]})"),
      "p.json: launches[0]: unknown key 'blocks' (allowed: kernel, "
      "grid, block, shared_bytes, args)");
}

TEST(LaunchPlan, ReadsTheProblemOfAKernelWithNoProblemFile) {
  llvm::Expected<CudaLaunchSpec> plan = parseCudaLaunchSpec(R"({
    "launches": [{"kernel": "k", "args": ["in0", "in1", "out0"]}],
    "problem": {
      "name": "scaled_rows",
      "inputs": [
        {"shape": [64, 128], "type": "f32", "distribution": {"normal": [0, 2]}},
        {"shape": [], "type": "i32"}
      ],
      "outputs": [{"shape": [64, 128], "type": "f16"}],
      "tolerance": {"atol": 1e-3, "rtol": 0}
    }})",
                                                            "p.json");
  ASSERT_TRUE(!!plan) << llvm::toString(plan.takeError());
  ASSERT_TRUE(plan->problem.has_value());
  const ProblemSpec &spec = *plan->problem;
  EXPECT_EQ(spec.name, "scaled_rows");
  ASSERT_EQ(spec.inputs.size(), 2u);
  EXPECT_EQ(spec.inputs[0].elementType, "f32");
  EXPECT_EQ(spec.inputs[0].shape, (llvm::SmallVector<int64_t>{64, 128}));
  EXPECT_EQ(spec.inputs[0].distribution.kind, Distribution::Kind::Normal);
  EXPECT_EQ(spec.inputs[0].distribution.b, 2.0);
  // Defaults as in kf.problem: integers from [-100, 100).
  EXPECT_TRUE(spec.inputs[1].shape.empty());
  EXPECT_EQ(spec.inputs[1].distribution.kind, Distribution::Kind::IntRange);
  EXPECT_EQ(spec.inputs[1].distribution.a, -100.0);
  ASSERT_EQ(spec.outputs.size(), 1u);
  EXPECT_EQ(spec.outputs[0].elementType, "f16");
  EXPECT_EQ(spec.atol, 1e-3);
  EXPECT_EQ(spec.rtol, 0.0);

  // Without a problem section there is none.
  llvm::Expected<CudaLaunchSpec> bare = parseCudaLaunchSpec(
      R"({"launches": [{"kernel": "k", "args": []}]})", "p.json");
  ASSERT_TRUE(!!bare) << llvm::toString(bare.takeError());
  EXPECT_FALSE(bare->problem.has_value());
}

TEST(LaunchPlan, RejectsMalformedProblems) {
  auto reason = [](llvm::StringRef problem) {
    std::string text =
        (R"({"launches": [{"kernel": "k", "args": []}], "problem": )" +
         problem + "}")
            .str();
    llvm::Expected<CudaLaunchSpec> plan = parseCudaLaunchSpec(text, "p.json");
    return plan ? std::string("parsed") : llvm::toString(plan.takeError());
  };
  const char *out = R"("outputs": [{"shape": [4], "type": "f32"}])";
  const char *tolerance = R"("tolerance": {"atol": 0, "rtol": 1e-5})";
  auto with = [&](llvm::StringRef inputs) {
    return ("{" + inputs + ", " + out + ", " + tolerance + "}").str();
  };
  EXPECT_EQ(reason(with(R"("inputs": [])")), "parsed");
  EXPECT_EQ(reason(R"({"inputs": [], "outputs": []})"),
            "p.json: problem: needs \"outputs\": an array of at least one "
            "{\"shape\", \"type\"}");
  EXPECT_EQ(reason(std::string(R"({"inputs": [], )") + out + "}"),
            "p.json: problem: needs \"tolerance\": {\"atol\": A, \"rtol\": "
            "R} (|out - ref| <= A + R * |ref| against the kernel as written)");
  EXPECT_EQ(reason(with(R"("inputs": [{"shape": [0], "type": "f32"}])")),
            "p.json: problem.inputs[0].shape: dimensions are positive "
            "integers");
  EXPECT_EQ(reason(with(R"("inputs": [{"shape": [4], "type": "f128"}])")),
            "p.json: problem.inputs[0].type: expected one of f32, f16, bf16, "
            "f64, i1, i8, i16, i32, i64");
  EXPECT_EQ(
      reason(with(
          R"("inputs": [{"shape": [4], "type": "f32", "distribution": {"uniform": [1, 1]}}])")),
      "p.json: problem.inputs[0].distribution: uniform needs a < b");
  EXPECT_EQ(
      reason(with(
          R"("inputs": [{"shape": [4], "type": "i32", "distribution": {"normal": [0, 1]}}])")),
      "p.json: problem.inputs[0].distribution: normal is for floating-point "
      "inputs; i32 takes int_range");
  EXPECT_EQ(
      reason(with(
          R"("inputs": [{"shape": [4], "type": "f32", "distribution": {"cauchy": [0, 1]}}])")),
      "p.json: problem.inputs[0].distribution: unknown distribution "
      "'cauchy' (known: uniform, normal, int_range)");
  EXPECT_EQ(
      reason(with(
          R"("inputs": [{"shape": [4], "type": "f32", "distribution": {"normal": [0, 1e999]}}])")),
      "p.json: problem.inputs[0].distribution: bounds must be finite numbers");
  EXPECT_EQ(
      reason(with(
          R"("inputs": [{"shape": [4], "type": "i64", "distribution": {"int_range": [0, 1e300]}}])")),
      "p.json: problem.inputs[0].distribution: int_range needs integers a < "
      "b, each within +-2^53");
  EXPECT_EQ(
      reason(with(R"("inputs": [{"shape": [4], "type": "f32", "dist": 1}])")),
      "p.json: problem.inputs[0]: unknown key 'dist' (allowed: shape, "
      "type, distribution)");
  EXPECT_EQ(reason(std::string(R"({"inputs": [], )") + out +
                   R"(, "tolerance": {"atol": 1e999, "rtol": 0}})"),
            "p.json: problem.tolerance: needs finite, non-negative numbers "
            "\"atol\" and \"rtol\"");
  EXPECT_EQ(reason(with(R"("inputs": [], "name": "a-b")")),
            "p.json: problem.name: letters, digits and '_'");
}

TEST(CudaTuning, DescribesItself) {
  CudaTuning tuning;
  EXPECT_EQ(tuning.describe(), "as written");
  tuning.parameters = {{"BLOCK", 128}, {"A", 2}};
  tuning.launchBounds = true;
  tuning.maxRegisters = 64;
  EXPECT_EQ(tuning.describe(), "A=2 BLOCK=128 launch_bounds maxnreg=64");
}

} // namespace
