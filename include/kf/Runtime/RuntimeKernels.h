//===- RuntimeKernels.h - kf's own GPU kernels ------------------*- C++ -*-===//
//
// The runtime needs a few kernels of its own: filling inputs from their
// distributions on the GPU (inputs are gigabytes; generating them on the
// host would dominate evaluation), and comparing outputs with the trusted
// reference on the GPU. They are written in the gpu dialect and lowered by
// kf's own NVVM pipeline, like every candidate: one path to PTX.
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_RUNTIMEKERNELS_H
#define KF_RUNTIME_RUNTIMEKERNELS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kf {

/// Element types the runtime kernels are instantiated for, as MLIR spells
/// them.
llvm::ArrayRef<llvm::StringRef> runtimeElementTypes();

/// MLIR source of a module with one gpu.module, @kf_runtime, holding for
/// each element type T of runtimeElementTypes():
///   fill_uniform_T(out, n, seed, lo, hi)      floats
///   fill_normal_T(out, n, seed, mean, std)    floats
///   scale_outliers_T(out, n, seed, factor)    floats: one element in 64
///                                             (by hash) times factor
///   fill_int_T(out, n, seed, lo, span)        integers
///   compare_T(out, ref, n, atol, rtol, stats) every type
/// and count_diff_i32(a, b, n, stats) for exact comparison of raw words.
/// Buffers are memref<?xT> (passed as descriptors: allocated and aligned
/// pointers, offset, size, stride); n, seed, lo and span are i64; lo, hi,
/// mean, std, atol and rtol are f64. `stats` is memref<?xi64> of four
/// entries: mismatch count, first mismatching index (initialize to n), and
/// the bit patterns of the largest finite absolute and relative errors
/// (doubles; initialize to 0).
std::string runtimeKernelsSource();

/// The kernel name for an operation and element type, e.g. fill_uniform_f32.
std::string runtimeKernelName(llvm::StringRef operation,
                              llvm::StringRef elementType);

/// Random values are a function of (seed, element index) only: a SplitMix64
/// hash. Exposed so that unit tests check the generator against the host.
uint64_t splitMix64(uint64_t index, uint64_t seed);

struct TensorSpec;

/// The values fill_uniform_T, fill_normal_T and fill_int_T write for
/// `tensor` (its declared distribution) and `seed`, drawn on the host as raw
/// little-endian bytes. The same formulas as the GPU kernels: uniform and
/// integer draws are bit for bit those of the GPU; normal draws may differ
/// in the last bits, as the host's log and cos round differently.
std::string drawOnHost(const TensorSpec &tensor, uint64_t seed);

} // namespace kf

#endif // KF_RUNTIME_RUNTIMEKERNELS_H
