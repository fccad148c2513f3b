//===- Version.h - kf version string ----------------------------*- C++ -*-===//

#ifndef KF_VERSION_H
#define KF_VERSION_H

#include "llvm/Support/raw_ostream.h"

namespace kf {

/// Prints "Kernel Foundry (kf) <version>" and the LLVM/MLIR version it was
/// built against; used as the tools' --version printer.
void printVersion(llvm::raw_ostream &os);

} // namespace kf

#endif // KF_VERSION_H
