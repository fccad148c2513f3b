//===- kf-opt.cpp - Kernel Foundry optimizer driver -----------------------===//
//
// An mlir-opt-style driver: the upstream dialects and passes kf uses plus
// kf's own. Registration lives in lib/Registration; this file only wires it
// to MlirOptMain.
//
//===----------------------------------------------------------------------===//

#include "kf/InitAll.h"
#include "kf/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kf::registerAllDialects(registry);
  kf::registerAllPasses();
  llvm::cl::AddExtraVersionPrinter(kf::printVersion);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Kernel Foundry optimizer driver\n", registry));
}
