//===- LaunchPlanJSONTest.cpp - Launch plans written and read back --------===//

#include "kf/Runtime/LaunchPlan.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace kf;

namespace {

PlanArgument scalar(PlanArgument::Kind kind, unsigned bits,
                    double floating = 0) {
  PlanArgument argument;
  argument.kind = kind;
  argument.bitWidth = bits;
  argument.floating = floating;
  return argument;
}

/// A plan with every kind of step and argument, a PTX and a cubin module.
LaunchPlan samplePlan() {
  LaunchPlan plan;
  plan.function = "forward";
  plan.numArguments = 2;
  plan.buffers.push_back({PlanBuffer::Kind::Argument, 0, 4096});
  plan.buffers.push_back({PlanBuffer::Kind::Argument, 1, 4096});
  plan.buffers.push_back({PlanBuffer::Kind::Temporary, 0, 1024});
  plan.modules["ptx_module"] = {PlanModule::Format::PTX, "sm_90",
                                ".version 8.0\n.target sm_90\n\"quoted\"\n"};
  // A cubin is binary: zero bytes and bytes that are not UTF-8.
  plan.modules["cubin_module"] = {PlanModule::Format::Cubin, "sm_90",
                                  std::string("\x7f"
                                              "ELF\0\xff\xfe",
                                              7)};

  PlanStep allocate;
  allocate.kind = PlanStep::Kind::Allocate;
  allocate.buffer = 2;
  plan.steps.push_back(allocate);

  PlanStep copy;
  copy.kind = PlanStep::Kind::Copy;
  copy.sourceBuffer = 0;
  copy.buffer = 2;
  copy.sourceOffset = 512;
  copy.destinationOffset = 256;
  copy.bytes = 512;
  plan.steps.push_back(copy);

  PlanStep launch;
  launch.kind = PlanStep::Kind::Launch;
  launch.module = "cubin_module";
  launch.kernel = "_Z6kernelPfS_i";
  launch.grid[0] = 7;
  launch.block[0] = 128;
  launch.block[1] = 2;
  launch.dynamicSharedBytes = 65536;
  PlanArgument pointer;
  pointer.kind = PlanArgument::Kind::Pointer;
  pointer.buffer = 2;
  pointer.byteOffset = 64;
  PlanArgument wide = scalar(PlanArgument::Kind::Integer, 64);
  wide.integer = -(int64_t(1) << 40);
  PlanArgument narrow = scalar(PlanArgument::Kind::Integer, 32);
  narrow.integer = 4096;
  PlanArgument whole = scalar(PlanArgument::Kind::Float, 32, 2.0);
  PlanArgument fraction = scalar(PlanArgument::Kind::Float, 64, 0.1);
  PlanArgument notANumber = scalar(PlanArgument::Kind::Float, 64, NAN);
  PlanArgument infinity = scalar(PlanArgument::Kind::Float, 32, -INFINITY);
  PlanArgument negativeZero = scalar(PlanArgument::Kind::Float, 32, -0.0);
  launch.arguments = {pointer,  wide,       narrow,   whole,
                      fraction, notANumber, infinity, negativeZero};
  plan.steps.push_back(launch);

  PlanStep launchPtx;
  launchPtx.kind = PlanStep::Kind::Launch;
  launchPtx.module = "ptx_module";
  launchPtx.kernel = "main_kernel";
  plan.steps.push_back(launchPtx);

  PlanStep free;
  free.kind = PlanStep::Kind::Free;
  free.buffer = 2;
  plan.steps.push_back(free);
  return plan;
}

/// Writes `plan` with its images as text and reads it back, as it travels
/// between processes.
std::optional<LaunchPlan> roundTrip(const LaunchPlan &plan,
                                    std::string *error = nullptr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(toJSON(plan, PlanImages::Include));
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    if (error)
      *error = llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  LaunchPlan read;
  llvm::json::Path::Root root("plan");
  if (!fromJSON(*parsed, read, root)) {
    if (error)
      *error = llvm::toString(root.getError());
    return std::nullopt;
  }
  return read;
}

TEST(LaunchPlanJSON, RoundTripKeepsEveryField) {
  LaunchPlan plan = samplePlan();
  std::string error;
  std::optional<LaunchPlan> read = roundTrip(plan, &error);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(read->function, "forward");
  EXPECT_EQ(read->numArguments, 2u);
  ASSERT_EQ(read->buffers.size(), 3u);
  EXPECT_EQ(read->buffers[1].kind, PlanBuffer::Kind::Argument);
  EXPECT_EQ(read->buffers[1].argumentIndex, 1u);
  EXPECT_EQ(read->buffers[2].kind, PlanBuffer::Kind::Temporary);
  EXPECT_EQ(read->buffers[2].bytes, 1024);

  ASSERT_EQ(read->modules.size(), 2u);
  EXPECT_EQ(read->modules["ptx_module"].image,
            plan.modules["ptx_module"].image);
  EXPECT_EQ(read->modules["cubin_module"].format, PlanModule::Format::Cubin);
  EXPECT_EQ(read->modules["cubin_module"].image,
            plan.modules["cubin_module"].image);
  EXPECT_EQ(read->modules["cubin_module"].chip, "sm_90");

  ASSERT_EQ(read->steps.size(), 5u);
  EXPECT_EQ(read->steps[0].kind, PlanStep::Kind::Allocate);
  const PlanStep &copy = read->steps[1];
  EXPECT_EQ(copy.kind, PlanStep::Kind::Copy);
  EXPECT_EQ(copy.sourceOffset, 512);
  EXPECT_EQ(copy.destinationOffset, 256);
  EXPECT_EQ(copy.bytes, 512);
  const PlanStep &launch = read->steps[2];
  EXPECT_EQ(launch.module, "cubin_module");
  EXPECT_EQ(launch.kernel, "_Z6kernelPfS_i");
  EXPECT_EQ(launch.grid[0], 7);
  EXPECT_EQ(launch.block[1], 2);
  EXPECT_EQ(launch.block[2], 1);
  EXPECT_EQ(launch.dynamicSharedBytes, 65536);
  ASSERT_EQ(launch.arguments.size(), 8u);
  EXPECT_EQ(launch.arguments[0].kind, PlanArgument::Kind::Pointer);
  EXPECT_EQ(launch.arguments[0].byteOffset, 64);
  EXPECT_EQ(launch.arguments[1].integer, -(int64_t(1) << 40));
  EXPECT_EQ(launch.arguments[1].bitWidth, 64u);
  // A 32-bit integer stays 32 bits: the kernel reads four bytes.
  EXPECT_EQ(launch.arguments[2].kind, PlanArgument::Kind::Integer);
  EXPECT_EQ(launch.arguments[2].bitWidth, 32u);
  // A float that JSON writes as "2" stays a float.
  EXPECT_EQ(launch.arguments[3].kind, PlanArgument::Kind::Float);
  EXPECT_EQ(launch.arguments[3].floating, 2.0);
  EXPECT_EQ(launch.arguments[3].bitWidth, 32u);
  EXPECT_EQ(launch.arguments[4].floating, 0.1);
  EXPECT_EQ(launch.arguments[4].bitWidth, 64u);
  EXPECT_TRUE(std::isnan(launch.arguments[5].floating));
  EXPECT_EQ(launch.arguments[6].floating, -INFINITY);
  // -0.0 keeps its sign (JSON would read "-0" back as the integer 0).
  EXPECT_EQ(launch.arguments[7].kind, PlanArgument::Kind::Float);
  EXPECT_TRUE(std::signbit(launch.arguments[7].floating));
  EXPECT_EQ(read->steps[3].module, "ptx_module");
  EXPECT_EQ(read->steps[4].kind, PlanStep::Kind::Free);
  EXPECT_EQ(read->numLaunches(), 2u);
}

TEST(LaunchPlanJSON, WithoutImagesForReports) {
  llvm::json::Value json = toJSON(samplePlan());
  EXPECT_EQ(json.getAsObject()->get("modules"), nullptr);
  // Such a plan cannot be run, so it does not read back.
  LaunchPlan read;
  llvm::json::Path::Root root("plan");
  EXPECT_FALSE(fromJSON(json, read, root));
  EXPECT_EQ(llvm::toString(root.getError()),
            "expected the kernel images at plan.modules");
}

/// Reads `plan` after `edit` changed its JSON; the error, or "read".
std::string readEdited(llvm::function_ref<void(llvm::json::Object &)> edit) {
  llvm::json::Value json = toJSON(samplePlan(), PlanImages::Include);
  edit(*json.getAsObject());
  LaunchPlan read;
  llvm::json::Path::Root root("plan");
  if (fromJSON(json, read, root))
    return "read";
  return llvm::toString(root.getError());
}

llvm::json::Object &step(llvm::json::Object &plan, unsigned index) {
  return *(*plan.getArray("steps"))[index].getAsObject();
}

TEST(LaunchPlanJSON, RefusesPlansThatDoNotHoldTogether) {
  EXPECT_EQ(readEdited([](llvm::json::Object &) {}), "read");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              step(plan, 0)["allocate"] = 3;
            }),
            "expected the index of a buffer of the plan at "
            "plan.steps[0].allocate");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              step(plan, 1).getObject("copy")->operator[]("bytes") = 4000;
            }),
            "reaches outside its buffer at plan.steps[1].copy.from");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              step(plan, 2)["launch"] = "missing::kernel";
            }),
            "names a module the plan does not hold at plan.steps[2].launch");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              step(plan, 2)["launch"] = "kernel_only";
            }),
            "expected \"module::kernel\" at plan.steps[2].launch");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              (*step(plan, 2).getArray("grid"))[1] = 0;
            }),
            "expected a positive size at plan.steps[2].grid[1]");
  // The driver takes 32-bit sizes.
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              (*step(plan, 2).getArray("block"))[0] = int64_t(1) << 32;
            }),
            "expected a positive size at plan.steps[2].block[0]");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              (*step(plan, 2).getArray("args"))[0] =
                  llvm::json::Object{{"buffer", 2}, {"offset", 4096}};
            }),
            "reaches outside its buffer at plan.steps[2].args[0].offset");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              (*step(plan, 2).getArray("args"))[2] =
                  llvm::json::Object{{"integer", 1}, {"bits", 65}};
            }),
            "expected a width of 1 to 64 bits at plan.steps[2].args[2].bits");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              (*plan.getArray("buffers"))[1].getAsObject()->operator[](
                  "argument") = 2;
            }),
            "is not an argument of the plan at plan.buffers[1].argument");
  EXPECT_EQ(readEdited([](llvm::json::Object &plan) {
              plan.getObject("modules")
                  ->getObject("cubin_module")
                  ->
                  operator[]("image_base64") = "not base64!";
            }),
            "is not base64 at plan.modules.cubin_module.image_base64");
}

} // namespace
