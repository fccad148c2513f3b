//===- SharedMemoryBanks.cpp - How a warp's shared access is served -------===//

#include "kf/Analysis/SharedMemoryBanks.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <array>

using namespace kf;

static constexpr unsigned kBanks = 32, kWarp = 32, kBankBytes = 4;
/// The widest access one instruction makes per thread (ld.shared.v4.f32).
static constexpr unsigned kMaxInstructionBytes = 16;

std::optional<SharedWavefronts> kf::sharedWavefronts(int64_t strideXBytes,
                                                     int64_t strideYBytes,
                                                     int64_t blockDimX,
                                                     unsigned accessBytes) {
  if (accessBytes == 0 || accessBytes % kBankBytes != 0 || accessBytes > 256 ||
      strideXBytes % kBankBytes != 0 || strideYBytes % kBankBytes != 0)
    return std::nullopt;
  unsigned instructionBytes = std::min(accessBytes, kMaxInstructionBytes);
  // Vector accesses narrower than 16 bytes that are not a power of two
  // (vector<3xf32>) become several instructions; count them as 4-byte ones.
  if (instructionBytes & (instructionBytes - 1))
    instructionBytes = kBankBytes;
  unsigned lanesPerPass = kWarp * kBankBytes / instructionBytes;
  unsigned wordsPerLane = instructionBytes / kBankBytes;
  bool oneRowPerWarp = blockDimX <= 0 || blockDimX >= kWarp;

  SharedWavefronts result;
  result.instructions = accessBytes / instructionBytes;
  for (unsigned instruction = 0; instruction < result.instructions;
       ++instruction) {
    llvm::DenseSet<int64_t> warpWords;
    for (unsigned first = 0; first < kWarp; first += lanesPerPass) {
      llvm::DenseSet<int64_t> words;
      for (unsigned lane = first; lane < first + lanesPerPass; ++lane) {
        int64_t tx = oneRowPerWarp ? lane : lane % blockDimX;
        int64_t ty = oneRowPerWarp ? 0 : lane / blockDimX;
        int64_t address = strideXBytes * tx + strideYBytes * ty +
                          int64_t(instruction) * instructionBytes;
        for (unsigned w = 0; w < wordsPerLane; ++w)
          words.insert(address / kBankBytes + w);
      }
      std::array<unsigned, kBanks> perBank{};
      for (int64_t word : words)
        ++perBank[((word % kBanks) + kBanks) % kBanks];
      result.wavefronts += *std::max_element(perBank.begin(), perBank.end());
      warpWords.insert(words.begin(), words.end());
    }
    result.distinctWords =
        std::max<unsigned>(result.distinctWords, warpWords.size());
    result.passes += kWarp / lanesPerPass;
  }
  return result;
}
