//===- SharedMemoryBanks.h - Wavefronts of shared accesses -----*- C++ -*-===//
//
// The shared-memory model of kf's diagnosis: the SM serves shared memory
// from 32 banks of 4 bytes, one 128-byte wavefront per cycle. A warp-wide
// access of 4-byte words is served in one pass over its 32 lanes; 8-byte
// accesses in two passes of 16 lanes and 16-byte accesses in four passes of
// 8 lanes (the quarter-warp phases of NVIDIA's documentation). Within a
// pass, lanes reading the same word share it (broadcast) and distinct words
// in one bank serialize: the pass takes as many wavefronts as its busiest
// bank holds distinct words.
//
// Lanes map to threads along x first: lane l is thread (l mod X, l div X)
// of a block X threads wide, so blocks narrower than a warp put several
// thread rows into one warp, and the y stride of the address matters.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_SHAREDMEMORYBANKS_H
#define KF_ANALYSIS_SHAREDMEMORYBANKS_H

#include <cstdint>
#include <optional>

namespace kf {

struct SharedWavefronts {
  /// Warp-wide instructions the access becomes (a 64-byte vector per
  /// thread is four 16-byte loads).
  unsigned instructions = 0;
  /// Wavefronts over all of them, and the passes they are served in (the
  /// wavefronts without bank conflicts: one per pass).
  unsigned wavefronts = 0, passes = 0;
  /// Distinct words the warp touches per instruction, at most (1 = a
  /// broadcast).
  unsigned distinctWords = 0;
};

/// The wavefronts of one warp's access of `accessBytes` per thread (a
/// multiple of 4, at most 256) at byte address strideXBytes * tx +
/// strideYBytes * ty, for blocks `blockDimX` threads wide (0 or >= 32: one
/// thread row per warp). std::nullopt for accesses the model does not
/// cover (sizes that are not multiples of 4 bytes, addresses not 4-byte
/// aligned across lanes).
std::optional<SharedWavefronts> sharedWavefronts(int64_t strideXBytes,
                                                 int64_t strideYBytes,
                                                 int64_t blockDimX,
                                                 unsigned accessBytes);

} // namespace kf

#endif // KF_ANALYSIS_SHAREDMEMORYBANKS_H
