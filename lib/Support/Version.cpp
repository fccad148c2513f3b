//===- Version.cpp - kf version string ------------------------------------===//

#include "kf/Version.h"

#include "VersionInfo.h"

void kf::printVersion(llvm::raw_ostream &os) {
  os << "Kernel Foundry (kf) " << KF_VERSION_STRING << "\n"
     << "  built with LLVM/MLIR " << KF_LLVM_VERSION_STRING << "\n";
}
