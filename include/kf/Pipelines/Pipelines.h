//===- Pipelines.h - kf pass pipelines --------------------------*- C++ -*-===//

#ifndef KF_PIPELINES_PIPELINES_H
#define KF_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace kf {

/// Options of kf-lower-to-ptx.
struct LowerToPTXOptions : public mlir::PassPipelineOptions<LowerToPTXOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target GPU, e.g. sm_90"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<unsigned> ptxVersion{
      *this, "ptx-version",
      llvm::cl::desc("PTX ISA version times ten (e.g. 80); 0 picks the "
                     "oldest version that supports the chip"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("NVPTX backend optimization level"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Output: isa (PTX text, needs no CUDA toolkit) or bin "
                     "(cubin, needs ptxas on PATH)"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose libdevice provides math functions "
                     "(default: $KF_CUDA_PATH, $CUDA_HOME, $CUDA_PATH, "
                     "/usr/local/cuda, or the toolkit of ptxas on PATH)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> contract{
      *this, "contract",
      llvm::cl::desc("Allow fused multiply-add in kernels, as nvcc does by "
                     "default (kf-contract-float-ops); false rounds every "
                     "multiply and add on its own"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> serialize{
      *this, "serialize",
      llvm::cl::desc("End with gpu-module-to-binary (false: stop at the llvm + "
                     "nvvm kernels, what kf-diagnose and kf-detect-cheats "
                     "read)"),
      llvm::cl::init(true)};
};

/// The CUDA toolkit kf links libdevice from, or "" when none is found (see
/// LowerToPTXOptions::cudaPath).
std::string findCUDAToolkit();

/// The oldest PTX ISA version (times ten) that supports `chip`, or 0 when
/// the chip is not known.
unsigned minimumPTXVersion(llvm::StringRef chip);

/// Builds kf-lower-to-ptx: from a scheduled module (gpu.launch ops on
/// memrefs, as a schedule leaves it) to host code that only allocates,
/// copies and launches, plus gpu.binary ops holding PTX or cubin.
/// Without `serialize`, stops before gpu-module-to-binary: the kernels are
/// then llvm + nvvm functions (what kf's analyses read); see
/// buildSerializePipeline for the last step.
void buildLowerToPTXPipeline(mlir::OpPassManager &pm,
                             const LowerToPTXOptions &options,
                             bool serialize = true);

/// The last step of kf-lower-to-ptx: gpu-module-to-binary.
void buildSerializePipeline(mlir::OpPassManager &pm,
                            const LowerToPTXOptions &options);

/// The device half of kf-lower-to-ptx: attaches the NVVM target to every
/// gpu.module, lowers the kernels to NVVM and serializes them. With
/// `barePointers`, statically shaped memref arguments become plain pointers
/// (how candidates are launched); otherwise memrefs are passed as
/// descriptors (kf's own runtime kernels take dynamic sizes).
void buildDeviceLoweringPipeline(mlir::OpPassManager &pm,
                                 const LowerToPTXOptions &options,
                                 bool barePointers, bool serialize = true);

/// Registers kf-lower-to-ptx with the pass registry.
void registerKFPipelines();

} // namespace kf

#endif // KF_PIPELINES_PIPELINES_H
