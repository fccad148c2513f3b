//===- EvaluatorTest.cpp - Host-side logic of the evaluator ---------------===//

#include "kf/Runtime/Evaluator.h"
#include "kf/Runtime/ProblemSpec.h"
#include "kf/Runtime/RuntimeKernels.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <set>

using namespace kf;

namespace {

TEST(SummarizeTimes, MedianQuantilesAndExtremes) {
  TimingStats stats = summarizeTimes({5.0, 1.0, 3.0, 2.0, 4.0});
  EXPECT_EQ(stats.runs, 5u);
  EXPECT_DOUBLE_EQ(stats.medianMs, 3.0);
  EXPECT_DOUBLE_EQ(stats.minMs, 1.0);
  EXPECT_DOUBLE_EQ(stats.maxMs, 5.0);
  EXPECT_DOUBLE_EQ(stats.p10Ms, 1.4);
  EXPECT_DOUBLE_EQ(stats.p90Ms, 4.6);
}

TEST(SummarizeTimes, EvenCountInterpolatesAndEmptyIsZero) {
  EXPECT_DOUBLE_EQ(summarizeTimes({1.0, 2.0, 3.0, 10.0}).medianMs, 2.5);
  EXPECT_EQ(summarizeTimes({}).runs, 0u);
}

TEST(EvalResultJSON, RoundTripsEveryField) {
  EvalResult result;
  result.status = CandidateStatus::Incorrect;
  result.message = "wrong result";
  result.errors.push_back({1, 100, 3, 17, 0.5, 2.0});
  result.candidateTime = summarizeTimes({1.0, 2.0, 3.0});
  result.kernels.push_back({"kernels::k", 32, 1024, 0, 1024, 256, 0});
  result.deviceName = "NVIDIA H200";
  result.driverVersion = 13000;
  result.contextLost = true;
  result.problemCheck = "passed";

  llvm::json::Value json = toJSON(result);
  EvalResult parsed;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(json, parsed, root));
  EXPECT_EQ(parsed.status, CandidateStatus::Incorrect);
  EXPECT_EQ(parsed.message, "wrong result");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].firstMismatch, 17);
  EXPECT_EQ(parsed.errors[0].maxRelError, 2.0);
  ASSERT_TRUE(parsed.candidateTime);
  EXPECT_EQ(parsed.candidateTime->medianMs, 2.0);
  EXPECT_FALSE(parsed.referenceTime);
  ASSERT_EQ(parsed.kernels.size(), 1u);
  EXPECT_EQ(parsed.kernels[0].registers, 32);
  EXPECT_TRUE(parsed.contextLost);
  EXPECT_EQ(parsed.problemCheck, "passed");
}

TEST(EvalResultJSON, RejectsUnknownStatus) {
  // "compiled" is a status, but not one the evaluator gives.
  for (const char *status : {"great", "compiled"}) {
    llvm::json::Value json =
        llvm::json::Object{{"status", status}, {"message", ""}};
    EvalResult parsed;
    llvm::json::Path::Root root;
    EXPECT_FALSE(fromJSON(json, parsed, root)) << status;
  }
  EXPECT_FALSE(isEvaluatorStatus(CandidateStatus::CompileCrash));
  EXPECT_TRUE(isEvaluatorStatus(CandidateStatus::Cheating));
}

TEST(CandidateStatus, NamesRoundTripAndAreUnique) {
  std::set<std::string> names;
  for (int i = 0; i <= (int)CandidateStatus::EvaluatorLost; ++i) {
    auto status = (CandidateStatus)i;
    llvm::StringRef name = stringifyCandidateStatus(status);
    EXPECT_TRUE(names.insert(name.str()).second) << name.str();
    EXPECT_EQ(symbolizeCandidateStatus(name), status);
  }
  EXPECT_EQ(symbolizeCandidateStatus("great"), std::nullopt);
  EXPECT_EQ(stringifyCandidateStatus(CandidateStatus::Fault), "runtime-fault");
}

TEST(Distribution, NegateMirrorsThroughZero) {
  Distribution uniform{Distribution::Kind::Uniform, 0.0, 1.0};
  Distribution negated = negate(uniform);
  EXPECT_EQ(negated.a, -1.0);
  EXPECT_EQ(negated.b, 0.0);
  Distribution normal{Distribution::Kind::Normal, 1.0, 0.1};
  EXPECT_EQ(negate(normal).a, -1.0);
  EXPECT_EQ(negate(normal).b, 0.1);
  Distribution ints{Distribution::Kind::IntRange, 0.0, 10.0};
  EXPECT_EQ(negate(ints).a, 0.0);
  EXPECT_EQ(negate(ints).b, 10.0);
}

TEST(EvalConfigJSON, NewChecksDefaultOnAndRoundTrip) {
  EvalConfig config;
  EXPECT_TRUE(config.negatedTrial);
  EXPECT_TRUE(config.heavyTailedTrial);
  EXPECT_TRUE(config.checkProblem);
  config.negatedTrial = false;
  EvalConfig parsed;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(config), parsed, root));
  EXPECT_FALSE(parsed.negatedTrial);
  EXPECT_TRUE(parsed.checkProblem);
}

TEST(ProblemSpecJSON, RoundTrips) {
  ProblemSpec spec;
  spec.name = "p";
  spec.inputs.push_back({"f32", {4, 8}, {Distribution::Kind::Normal, 0, 2}});
  spec.inputs.push_back({"i32", {3}, {Distribution::Kind::IntRange, -5, 5}});
  spec.outputs.push_back({"f16", {4}, {}});
  spec.atol = 1e-3;
  spec.rtol = 1e-4;
  ProblemSpec parsed;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(spec), parsed, root));
  ASSERT_EQ(parsed.inputs.size(), 2u);
  EXPECT_EQ(parsed.inputs[0].numElements(), 32);
  EXPECT_EQ(parsed.inputs[0].bytes(), 128);
  EXPECT_EQ(parsed.inputs[1].distribution.kind, Distribution::Kind::IntRange);
  EXPECT_EQ(parsed.inputs[1].distribution.a, -5);
  EXPECT_EQ(parsed.outputs[0].bytes(), 8);
  EXPECT_TRUE(parsed.outputs[0].isFloat());
  EXPECT_FALSE(parsed.inputs[1].isFloat());
  EXPECT_EQ(parsed.rtol, 1e-4);
}

TEST(EvalConfigJSON, DefaultsSurviveMissingFields) {
  EvalConfig config;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(llvm::json::Object{{"trials", 7}}, config, root));
  EXPECT_EQ(config.trials, 7u);
  EXPECT_EQ(config.inputSets, EvalConfig().inputSets);
}

TEST(SplitMix64, MatchesTheReferenceSequence) {
  // SplitMix64 from seed 0 (Vigna's reference): the state advances by the
  // golden gamma; element i of seed s hashes i + (s + 1) * gamma.
  EXPECT_EQ(splitMix64(0, 0), 0xE220A8397B1DCDAFull);
  EXPECT_NE(splitMix64(1, 0), splitMix64(0, 1));
  EXPECT_EQ(splitMix64(12345, 7), splitMix64(12345, 7));
}

TEST(DrawOnHost, UniformMatchesTheGpuFormulaBitForBit) {
  TensorSpec tensor{"f32", {3, 5}, {Distribution::Kind::Uniform, -2.0, 6.0}};
  std::string bytes = drawOnHost(tensor, 42);
  ASSERT_EQ((int64_t)bytes.size(), tensor.bytes());
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    float value;
    std::memcpy(&value, &bytes[i * 4], 4);
    // fill_uniform: the top 24 bits of the hash, scaled into [lo, hi).
    double u = (double)(splitMix64(i, 42) >> 40) / 16777216.0;
    EXPECT_EQ(value, (float)(-2.0 + u * 8.0)) << i;
    EXPECT_GE(value, -2.0f);
    EXPECT_LT(value, 6.0f);
  }
  EXPECT_EQ(drawOnHost(tensor, 42), bytes);
  EXPECT_NE(drawOnHost(tensor, 43), bytes);
}

TEST(DrawOnHost, IntegersStayInRangeAndBooleansAreBits) {
  TensorSpec ints{"i64", {1000}, {Distribution::Kind::IntRange, -3.0, 4.0}};
  std::string bytes = drawOnHost(ints, 7);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < 1000; ++i) {
    int64_t value;
    std::memcpy(&value, &bytes[i * 8], 8);
    EXPECT_GE(value, -3);
    EXPECT_LT(value, 4);
    seen.insert(value);
  }
  EXPECT_EQ(seen.size(), 7u);
  TensorSpec bits{"i1", {1000}, {Distribution::Kind::IntRange, 0.0, 2.0}};
  std::string mask = drawOnHost(bits, 7);
  ASSERT_EQ(mask.size(), 1000u);
  int ones = 0;
  for (char byte : mask) {
    EXPECT_TRUE(byte == 0 || byte == 1);
    ones += byte;
  }
  EXPECT_GT(ones, 400);
  EXPECT_LT(ones, 600);
}

TEST(DrawOnHost, NormalHasTheDeclaredMoments) {
  TensorSpec tensor{"f64", {20000}, {Distribution::Kind::Normal, 3.0, 0.5}};
  std::string bytes = drawOnHost(tensor, 1);
  double sum = 0, squares = 0;
  for (int64_t i = 0; i < 20000; ++i) {
    double value;
    std::memcpy(&value, &bytes[i * 8], 8);
    sum += value;
    squares += value * value;
  }
  double mean = sum / 20000, variance = squares / 20000 - mean * mean;
  EXPECT_NEAR(mean, 3.0, 0.02);
  EXPECT_NEAR(std::sqrt(variance), 0.5, 0.02);
}

TEST(TrivialKernels, ZerosConstantAndSameSizedCopiesOfFloatOutputs) {
  ProblemSpec spec;
  spec.inputs = {{"f32", {4, 8}, {}}, {"f32", {8}, {}}, {"i32", {4, 8}, {}}};
  spec.outputs = {{"f32", {4, 8}, {}}, {"i64", {4}, {}}, {"f64", {2}, {}}};
  llvm::SmallVector<TrivialKernel> kernels = trivialKernels(spec);
  std::vector<std::string> described;
  for (const TrivialKernel &kernel : kernels)
    described.push_back(std::to_string(kernel.output) + ": " +
                        kernel.describe());
  // Integer outputs get none; the constant needs 4-byte elements; only
  // input 0 has output 0's type and size.
  EXPECT_EQ(described,
            (std::vector<std::string>{"0: zeros", "0: a constant",
                                      "0: a copy of input 0", "2: zeros"}));
  EXPECT_NE(degenerateProblemMessage(spec, kernels[2])
                .find("a kernel writing a copy of input 0 to output 0"),
            std::string::npos);
}

TEST(TrivialKernelVerdicts, DegenerateOnlyWhenJudgedAndPassing) {
  ProblemSpec spec;
  spec.inputs = {{"f32", {}, {}}};
  spec.outputs = {{"f32", {}, {}}};
  TrivialKernelVerdicts verdicts(spec);
  ASSERT_EQ(verdicts.verdicts.size(), 3u); // zeros, constant, copy
  for (auto &verdict : verdicts.verdicts)
    verdict.passes = verdict.kernel.kind != TrivialKernel::Kind::Zeros;
  // Passing but never judged (the constant on its own trial) is no verdict.
  EXPECT_FALSE(verdicts.degenerate());
  verdicts.verdicts[1].judged = 1;
  ASSERT_TRUE(verdicts.degenerate());
  EXPECT_EQ(verdicts.degenerate()->describe(), "a constant");
}

TEST(RuntimeKernels, SourceNamesEveryKernel) {
  std::string source = runtimeKernelsSource();
  for (llvm::StringRef type : runtimeElementTypes()) {
    EXPECT_NE(source.find("@" + runtimeKernelName("compare", type) + "("),
              std::string::npos)
        << type.str();
    bool isFloat = type.starts_with("f") || type == "bf16";
    EXPECT_EQ(source.find("@" + runtimeKernelName("fill_uniform", type) +
                          "(") != std::string::npos,
              isFloat)
        << type.str();
    EXPECT_EQ(source.find("@" + runtimeKernelName("fill_int", type) + "(") !=
                  std::string::npos,
              !isFloat)
        << type.str();
    EXPECT_EQ(source.find("@" + runtimeKernelName("scale_outliers", type) +
                          "(") != std::string::npos,
              isFloat)
        << type.str();
  }
  EXPECT_NE(source.find("@count_diff_i32("), std::string::npos);
}

} // namespace

namespace {

TEST(CompareOnHost, ToleranceNaNAndRelativeErrors) {
  TensorSpec tensor{"f32", {5}, {}};
  float out[] = {1.0f, 2.0f, NAN, 0.5f, 3.0f};
  float ref[] = {1.0f, 2.1f, NAN, 0.0f, NAN};
  llvm::StringRef outBytes(reinterpret_cast<const char *>(out), sizeof(out));
  llvm::StringRef refBytes(reinterpret_cast<const char *>(ref), sizeof(ref));
  OutputErrors errors = compareOnHost(tensor, outBytes, refBytes, 0.01, 0.01);
  // 2.0 vs 2.1 is outside 0.01 + 0.021; 0.5 vs 0 is outside 0.01; 3 vs NaN.
  EXPECT_EQ(errors.mismatches, 3);
  EXPECT_EQ(errors.firstMismatch, 1);
  EXPECT_NEAR(errors.maxAbsError, 0.5, 1e-6);
  // The zero reference does not count towards the relative error.
  EXPECT_NEAR(errors.maxRelError, 0.1 / 2.1, 1e-6);
  EXPECT_EQ(compareOnHost(tensor, outBytes, outBytes, 0, 0).mismatches, 0);
}

TEST(CompareOnHost, IntegersAndHalves) {
  TensorSpec ints{"i32", {3}, {}};
  int32_t a[] = {1, -2, 3}, b[] = {1, -2, 4};
  EXPECT_EQ(
      compareOnHost(ints, llvm::StringRef(reinterpret_cast<char *>(a), 12),
                    llvm::StringRef(reinterpret_cast<char *>(b), 12), 0, 0)
          .mismatches,
      1);
  TensorSpec halves{"f16", {2}, {}};
  uint16_t one[] = {0x3C00, 0x7E00}; // 1.0, NaN
  EXPECT_EQ(
      compareOnHost(halves, llvm::StringRef(reinterpret_cast<char *>(one), 4),
                    llvm::StringRef(reinterpret_cast<char *>(one), 4), 0, 0)
          .mismatches,
      0);
}

} // namespace
