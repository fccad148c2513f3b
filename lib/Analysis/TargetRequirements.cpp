//===- TargetRequirements.cpp - What a module needs of its NVPTX target ---===//

#include "kf/Analysis/TargetRequirements.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMRequiresSMTraits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <mutex>

using namespace mlir;

namespace {

/// The NVPTX backend's subtarget table (processors and features), read once
/// through the target registry: kf accepts exactly what the backend knows.
struct NVPTXTables {
  std::vector<std::string> processors;
  std::vector<unsigned> ptxVersions;
};

const NVPTXTables &tables() {
  static const NVPTXTables result = [] {
    NVPTXTables tables;
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return tables;
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!info)
      return tables;
    for (const llvm::SubtargetSubTypeKV &processor :
         info->getAllProcessorDescriptions())
      tables.processors.push_back(processor.Key);
    for (const llvm::SubtargetFeatureKV &feature :
         info->getAllProcessorFeatures()) {
      llvm::StringRef name(feature.Key);
      unsigned version = 0;
      if (name.consume_front("ptx") && !name.getAsInteger(10, version))
        tables.ptxVersions.push_back(version);
    }
    llvm::sort(
        tables.processors, [](const std::string &a, const std::string &b) {
          std::optional<unsigned> x = kf::smNumber(a), y = kf::smNumber(b);
          if (x && y && *x != *y)
            return *x < *y;
          return a < b;
        });
    llvm::sort(tables.ptxVersions);
    return tables;
  }();
  return result;
}

/// Requirements by operation name prefix, most specific first. The SM
/// numbers are where the PTX ISA introduces the instructions these lower
/// to; the NVPTX backend cannot select them on older chips.
struct PrefixRequirement {
  llvm::StringLiteral prefix;
  unsigned sm;
  bool archSpecific;
  llvm::StringLiteral feature;
};
constexpr PrefixRequirement prefixRequirements[] = {
    {"gpu.subgroup_mma_", 70, false, "wmma (gpu.subgroup_mma)"},
    {"nvvm.wmma.", 70, false, "wmma"},
    {"nvvm.ldmatrix", 75, false, "ldmatrix"},
    {"nvgpu.ldmatrix", 75, false, "ldmatrix"},
    {"nvvm.stmatrix", 90, false, "stmatrix"},
    {"nvgpu.mma.", 80, false, "mma.sync"},
    {"nvvm.cp.async.bulk", 90, false, "cp.async.bulk"},
    {"nvvm.cp.async.", 80, false, "cp.async"},
    {"nvgpu.device_async_", 80, false, "cp.async"},
    {"nvgpu.tma.", 90, false, "cp.async.bulk (TMA)"},
    {"nvvm.wgmma.", 90, true, "wgmma"},
    {"nvgpu.warpgroup.", 90, true, "wgmma"},
    {"nvvm.setmaxregister", 90, true, "setmaxnreg"},
    {"nvgpu.mbarrier.", 80, false, "mbarrier"},
    {"nvvm.mbarrier.", 80, false, "mbarrier"},
    {"nvvm.cluster.", 90, false, "thread block clusters"},
    {"nvvm.read.ptx.sreg.cluster", 90, false, "thread block clusters"},
    {"nvvm.read.ptx.sreg.nclusterid", 90, false, "thread block clusters"},
    {"nvvm.mapa", 90, false, "distributed shared memory (mapa)"},
    {"nvvm.fence.proxy", 90, false, "proxy fences"},
    {"nvvm.elect.sync", 90, false, "elect.sync"},
    {"gpu.cluster_", 90, false, "thread block clusters"},
    {"nvvm.redux.sync", 80, false, "redux.sync"},
    {"nvvm.shfl.sync", 30, false, "shfl.sync"},
    {"nvvm.vote.sync", 30, false, "vote.sync"},
    {"gpu.shuffle", 30, false, "shfl.sync (gpu.shuffle)"},
};

} // namespace

std::vector<std::string> kf::nvptxProcessors() { return tables().processors; }

std::vector<unsigned> kf::nvptxPTXVersions() { return tables().ptxVersions; }

unsigned kf::backendMinimumPTXVersion(llvm::StringRef chip) {
  // Measured with llc-22 (-mcpu=CHIP -mattr=+ptxNN on an empty kernel): the
  // lowest version it accepts. LLVM keeps this table inside NVPTXSubtarget,
  // which no public API exposes, and reports a miss with report_fatal_error.
  return llvm::StringSwitch<unsigned>(chip)
      .Cases({"sm_20", "sm_21", "sm_30", "sm_35"}, 32)
      .Cases({"sm_32", "sm_50"}, 40)
      .Cases({"sm_37", "sm_52"}, 41)
      .Case("sm_53", 42)
      .Cases({"sm_60", "sm_61", "sm_62"}, 50)
      .Case("sm_70", 60)
      .Case("sm_72", 61)
      .Case("sm_75", 63)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_87", 74)
      .Cases({"sm_89", "sm_90"}, 78)
      .Case("sm_90a", 80)
      .Cases({"sm_100", "sm_100a", "sm_101", "sm_101a"}, 86)
      .Cases({"sm_120", "sm_120a"}, 87)
      .Cases({"sm_100f", "sm_101f", "sm_103", "sm_103a", "sm_103f"}, 88)
      .Cases({"sm_120f", "sm_121", "sm_121a", "sm_121f"}, 88)
      .Cases({"sm_88", "sm_110", "sm_110a", "sm_110f"}, 90)
      .Default(0);
}

std::optional<unsigned> kf::smNumber(llvm::StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  chip = chip.take_while(llvm::isDigit);
  unsigned number = 0;
  if (chip.empty() || chip.getAsInteger(10, number))
    return std::nullopt;
  return number;
}

std::string kf::TargetRequirement::describe() const {
  if (!archSpecific)
    return "sm_" + std::to_string(sms.front()) + " or newer";
  return llvm::join(
      llvm::map_range(
          sms, [](unsigned sm) { return "sm_" + std::to_string(sm) + "a"; }),
      " or ");
}

std::optional<kf::TargetRequirement> kf::requirementOf(Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  // Upstream's own annotation of NVVM ops (NVVMRequiresSM traits), which
  // the gpu.module verifier checks only once the ops are NVVM already.
  if (auto annotated = dyn_cast<NVVM::RequiresSMInterface>(op)) {
    NVVM::NVVMCheckSMVersion version = annotated.getRequiredMinSMVersion();
    TargetRequirement requirement;
    requirement.archSpecific = version.archAccelerated;
    for (int sm : version.smVersionList)
      requirement.sms.push_back(sm);
    requirement.feature = name.str();
    return requirement;
  }
  // Launches and kernels of thread block clusters.
  if (auto launch = dyn_cast<gpu::LaunchOp>(op);
      launch && launch.hasClusterSize())
    return TargetRequirement{{90}, false, "thread block clusters"};
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
      launch && launch.hasClusterSize())
    return TargetRequirement{{90}, false, "thread block clusters"};
  if (auto func = dyn_cast<gpu::GPUFuncOp>(op);
      func && func.getKnownClusterSizeAttr())
    return TargetRequirement{{90}, false, "thread block clusters"};
  if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
    // m8n8k4 (f16) is Volta's; m16n8k8 f16 Turing's; the rest Ampere's.
    NVVM::MMAShapeAttr shape = mma.getShapeAttr();
    if (shape.getM() == 8 && shape.getN() == 8 && shape.getK() == 4)
      return TargetRequirement{{70}, false, "mma.sync m8n8k4"};
    if (shape.getM() == 16 && shape.getN() == 8 && shape.getK() == 8)
      return TargetRequirement{{75}, false, "mma.sync m16n8k8"};
    return TargetRequirement{{80}, false, "mma.sync"};
  }
  for (const PrefixRequirement &entry : prefixRequirements)
    if (name.starts_with(entry.prefix))
      return TargetRequirement{
          {entry.sm}, entry.archSpecific, entry.feature.str()};
  return std::nullopt;
}

bool kf::chipSatisfies(llvm::StringRef chip,
                       const TargetRequirement &requirement) {
  std::optional<unsigned> sm = smNumber(chip);
  if (!sm)
    return false;
  if (requirement.archSpecific)
    return chip.ends_with("a") && llvm::is_contained(requirement.sms, *sm);
  return *sm >= requirement.sms.front();
}

/// The chips `op` will be compiled for: the option's chip, and those of the
/// #nvvm.target attributes its gpu.module already carries (nvvm-attach-target
/// adds the option's target beside them; all are compiled).
static SmallVector<std::string> chipsFor(Operation *op, llvm::StringRef chip) {
  SmallVector<std::string> chips{chip.str()};
  auto module = isa<gpu::GPUModuleOp>(op)
                    ? cast<gpu::GPUModuleOp>(op)
                    : op->getParentOfType<gpu::GPUModuleOp>();
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
    module = dyn_cast_or_null<gpu::GPUModuleOp>(SymbolTable::lookupSymbolIn(
        launch->getParentOfType<ModuleOp>(), launch.getKernelModuleName()));
  if (!module)
    return chips;
  if (ArrayAttr targets = module.getTargetsAttr())
    for (Attribute target : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
        if (!llvm::is_contained(chips, nvvm.getChip().str()))
          chips.push_back(nvvm.getChip().str());
  return chips;
}

/// The PTX version named by a target's features ("+ptx80" -> 80), 0 when
/// none.
static unsigned ptxOfFeatures(llvm::StringRef features) {
  unsigned version = 0;
  SmallVector<llvm::StringRef> parts;
  features.split(parts, ',', -1, false);
  for (llvm::StringRef part : parts) {
    unsigned value = 0;
    part = part.trim();
    if (part.consume_front("+ptx") && !part.getAsInteger(10, value))
      version = std::max(version, value);
  }
  return version;
}

/// Checks one (chip, PTX version) pair; `at` locates the error.
static LogicalResult checkChipAndPTX(Location at, llvm::StringRef chip,
                                     unsigned ptxVersion,
                                     llvm::StringRef where) {
  std::vector<std::string> processors = kf::nvptxProcessors();
  if (!llvm::is_contained(processors, chip)) {
    InFlightDiagnostic diag = emitError(at)
                              << where << "chip '" << chip
                              << "' is not a processor of LLVM's NVPTX "
                                 "backend; it knows ";
    diag << llvm::join(processors, ", ");
    return diag;
  }
  if (!ptxVersion)
    return success();
  std::vector<unsigned> versions = kf::nvptxPTXVersions();
  auto text = [](unsigned version) {
    return std::to_string(version / 10) + "." + std::to_string(version % 10);
  };
  if (!llvm::is_contained(versions, ptxVersion)) {
    InFlightDiagnostic diag = emitError(at)
                              << where << "PTX version " << ptxVersion
                              << " is not one LLVM's NVPTX backend emits; "
                                 "it knows ";
    diag << llvm::join(
        llvm::map_range(versions, [](unsigned v) { return std::to_string(v); }),
        ", ");
    diag << " (the version times ten)";
    return diag;
  }
  unsigned minimum = kf::backendMinimumPTXVersion(chip);
  if (ptxVersion < minimum)
    return emitError(at) << where << "PTX version " << text(ptxVersion) << " ("
                         << ptxVersion << ") does not support " << chip
                         << "; it needs PTX " << text(minimum) << " ("
                         << minimum
                         << ") or newer, or leave ptx-version at 0 to pick "
                            "the chip's default";
  return success();
}

LogicalResult kf::checkTargetRequirements(ModuleOp module, llvm::StringRef chip,
                                          unsigned ptxVersion) {
  if (failed(checkChipAndPTX(module.getLoc(), chip, ptxVersion,
                             "kf-lower-to-ptx option: ")))
    return failure();
  bool ok = true;
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    ArrayAttr targets = gpuModule.getTargetsAttr();
    if (!targets)
      return;
    for (Attribute target : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target)) {
        llvm::StringRef features = nvvm.getFeatures();
        if (failed(checkChipAndPTX(gpuModule.getLoc(), nvvm.getChip(),
                                   ptxOfFeatures(features),
                                   "the module's #nvvm.target: ")))
          ok = false;
      }
  });
  if (!ok)
    return failure();
  module.walk([&](Operation *op) {
    std::optional<TargetRequirement> requirement = requirementOf(op);
    if (!requirement)
      return;
    for (const std::string &target : chipsFor(op, chip)) {
      if (chipSatisfies(target, *requirement))
        continue;
      InFlightDiagnostic diag = op->emitError()
                                << "uses " << requirement->feature
                                << ", which needs " << requirement->describe()
                                << "; the kernels are compiled for " << target;
      ok = false;
      break;
    }
  });
  return success(ok);
}
