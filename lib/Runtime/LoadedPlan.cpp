//===- LoadedPlan.cpp - A launch plan loaded on a device ------------------===//

#include "LoadedPlan.h"

#include "EvalFailure.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace kf;
using llvm::Error;
using llvm::Expected;

Error kf::checkBufferCount(const LaunchPlan &plan, const ProblemSpec &spec,
                           llvm::StringRef role) {
  if (plan.numArguments == spec.inputs.size() + spec.outputs.size())
    return Error::success();
  return evalError(CandidateStatus::LoadError,
                   llvm::formatv("the {0} takes {1} buffers; the problem "
                                 "has {2} inputs and {3} outputs",
                                 role, plan.numArguments, spec.inputs.size(),
                                 spec.outputs.size()));
}

LoadedPlan::~LoadedPlan() {
  for (CUmodule module : modules)
    driver.cuModuleUnload(module);
}

Expected<std::unique_ptr<LoadedPlan>>
LoadedPlan::load(CudaDriver &driver, const LaunchPlan &plan,
                 const DeviceInfo &device, llvm::StringRef role,
                 llvm::SmallVectorImpl<KernelResources> &report) {
  std::unique_ptr<LoadedPlan> loaded(new LoadedPlan(driver, plan));
  llvm::StringMap<CUmodule> byName;
  for (const auto &entry : plan.modules) {
    const PlanModule &module = entry.second;
    std::string image = module.image;
    if (module.format == PlanModule::Format::PTX)
      image.push_back('\0'); // the driver reads PTX as a C string
    char errorLog[8192] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog, (void *)(uintptr_t)sizeof(errorLog)};
    CUmodule handle = nullptr;
    CUresult result =
        driver.cuModuleLoadDataEx(&handle, image.data(), 2, options, values);
    if (result != CUDA_SUCCESS)
      return evalError(
          CandidateStatus::LoadError,
          llvm::Twine(role) + " module @" + entry.first() + " does not load: " +
              llvm::toString(driver.check(result, "cuModuleLoadDataEx")) +
              (errorLog[0] ? llvm::Twine("\n") + errorLog : llvm::Twine("")));
    loaded->modules.push_back(handle);
    byName[entry.first()] = handle;
  }

  loaded->temporaries.resize(plan.buffers.size());
  for (auto [index, buffer] : llvm::enumerate(plan.buffers)) {
    if (buffer.kind != PlanBuffer::Kind::Temporary)
      continue;
    Expected<DeviceBuffer> allocation =
        DeviceBuffer::allocate(driver, roundUp(buffer.bytes, 256));
    if (!allocation)
      return withStatus(allocation.takeError(), CandidateStatus::ResourceLimit);
    loaded->temporaries[index] = std::move(*allocation);
  }

  loaded->functions.resize(plan.steps.size(), nullptr);
  for (auto [index, step] : llvm::enumerate(plan.steps)) {
    if (step.kind != PlanStep::Kind::Launch)
      continue;
    CUfunction function = nullptr;
    if (Error error = driver.check(
            driver.cuModuleGetFunction(&function, byName[step.module],
                                       step.kernel.c_str()),
            "cuModuleGetFunction(" + step.kernel + ")"))
      return withStatus(std::move(error), CandidateStatus::LoadError);
    loaded->functions[index] = function;

    KernelResources resources;
    resources.name = step.module + "::" + step.kernel;
    driver.cuFuncGetAttribute(&resources.registers, CU_FUNC_ATTRIBUTE_NUM_REGS,
                              function);
    driver.cuFuncGetAttribute(&resources.staticSharedBytes,
                              CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
    driver.cuFuncGetAttribute(&resources.localBytes,
                              CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function);
    driver.cuFuncGetAttribute(&resources.maxThreadsPerBlock,
                              CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                              function);
    resources.threadsPerBlock = step.block[0] * step.block[1] * step.block[2];
    resources.dynamicSharedBytes = step.dynamicSharedBytes;
    report.push_back(resources);

    // Resource limits, checked before anything launches.
    if (resources.threadsPerBlock > resources.maxThreadsPerBlock)
      return evalError(
          CandidateStatus::ResourceLimit,
          llvm::formatv("{0} kernel {1} launches {2} threads per "
                        "block; with {3} registers per thread "
                        "it can run at most {4}",
                        role, resources.name, resources.threadsPerBlock,
                        resources.registers, resources.maxThreadsPerBlock));
    int64_t shared = resources.staticSharedBytes + step.dynamicSharedBytes;
    if (shared > device.maxSharedMemPerBlockOptin)
      return evalError(CandidateStatus::ResourceLimit,
                       llvm::formatv("{0} kernel {1} needs {2} bytes of shared "
                                     "memory; the device allows {3} per block",
                                     role, resources.name, shared,
                                     device.maxSharedMemPerBlockOptin));
    // Above 48 KB of shared memory per block (static and dynamic
    // together), the dynamic part needs an explicit opt-in. The attribute
    // belongs to the function: only raise it, for a kernel launched by
    // several steps with different sizes.
    int optedIn = 0;
    if (step.dynamicSharedBytes > 0 && shared > 48 * 1024 &&
        (driver.cuFuncGetAttribute(
             &optedIn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
             function) != CUDA_SUCCESS ||
         optedIn < step.dynamicSharedBytes)) {
      if (Error error = driver.check(
              driver.cuFuncSetAttribute(
                  function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                  (int)step.dynamicSharedBytes),
              llvm::formatv("cuFuncSetAttribute({0}, max dynamic shared "
                            "memory {1} bytes)",
                            resources.name, step.dynamicSharedBytes)
                  .str()))
        return withStatus(std::move(error), CandidateStatus::ResourceLimit);
    }
  }
  return std::move(loaded);
}

Error LoadedPlan::enqueue(CUstream stream,
                          llvm::ArrayRef<CUdeviceptr> arguments) {
  auto address = [&](unsigned buffer) -> CUdeviceptr {
    const PlanBuffer &info = plan.buffers[buffer];
    if (info.kind == PlanBuffer::Kind::Argument)
      return arguments[info.argumentIndex];
    return temporaries[buffer].get();
  };
  for (auto [index, step] : llvm::enumerate(plan.steps)) {
    switch (step.kind) {
    case PlanStep::Kind::Allocate:
    case PlanStep::Kind::Free:
      // Temporaries live as long as the loaded plan.
      break;
    case PlanStep::Kind::Copy:
      if (Error error = driver.check(
              driver.cuMemcpyDtoD(
                  address(step.buffer) + step.destinationOffset,
                  address(step.sourceBuffer) + step.sourceOffset, step.bytes),
              "cuMemcpyDtoD"))
        return error;
      break;
    case PlanStep::Kind::Launch: {
      KernelArguments args;
      for (const PlanArgument &arg : step.arguments) {
        switch (arg.kind) {
        case PlanArgument::Kind::Pointer:
          args.addPointer(address(arg.buffer) + arg.byteOffset);
          break;
        case PlanArgument::Kind::Integer:
          if (arg.bitWidth > 32)
            args.addI64(arg.integer);
          else if (arg.bitWidth > 16)
            args.addI32((int32_t)arg.integer);
          else if (arg.bitWidth > 8)
            args.addI16((int16_t)arg.integer);
          else
            args.addI8((int8_t)arg.integer);
          break;
        case PlanArgument::Kind::Float:
          if (arg.bitWidth == 64)
            args.addF64(arg.floating);
          else
            args.addF32((float)arg.floating);
          break;
        }
      }
      CUresult result = driver.cuLaunchKernel(
          functions[index], step.grid[0], step.grid[1], step.grid[2],
          step.block[0], step.block[1], step.block[2], step.dynamicSharedBytes,
          stream, args.pointers(), nullptr);
      if (result != CUDA_SUCCESS)
        return evalError(isFaultCode(result) ? CandidateStatus::Fault
                                             : CandidateStatus::LoadError,
                         llvm::toString(driver.check(
                             result, "cuLaunchKernel(" + step.kernel + ")")));
      break;
    }
    }
  }
  return Error::success();
}
