# The portable build: LLVM, MLIR, libstdc++ and libgcc linked statically, so
# that kf's tools run on another x86-64 Linux (glibc >= 2.36) with no LLVM
# installed, such as the GPU host.
#
# Debian's static MLIR archives are exported with "LLVM" (the shared
# libLLVM.so) in their link interface, because the packages were built with
# LLVM_LINK_LLVM_DYLIB. Here every such reference is replaced by the static
# LLVM component archives kf needs (the NVPTX target among them).

set(MLIR_LINK_MLIR_DYLIB OFF)
set(LLVM_LINK_LLVM_DYLIB OFF)

llvm_map_components_to_libnames(KF_STATIC_LLVM_LIBS
  Core Support IRReader IRPrinter BitReader BitWriter Passes TransformUtils
  Target TargetParser MC MCParser Object Linker AsmParser Analysis
  ScalarOpts InstCombine AggressiveInstCombine Instrumentation IPO Vectorize
  CodeGen SelectionDAG AsmPrinter GlobalISel FrontendOpenMP FrontendOffloading
  FrontendHLSL FrontendAtomic Coroutines ObjCARCOpts CFGuard HipStdPar
  NVPTXCodeGen NVPTXDesc NVPTXInfo
  OrcJIT OrcTargetProcess OrcShared JITLink RuntimeDyld ExecutionEngine
  PerfJITEvents X86CodeGen X86AsmParser X86Desc X86Info
  )

find_library(KF_STATIC_ZLIB libz.a REQUIRED)
find_library(KF_STATIC_ZSTD libzstd.a REQUIRED)

get_property(kf_imported_targets DIRECTORY ${PROJECT_SOURCE_DIR}
             PROPERTY IMPORTED_TARGETS)
foreach(target IN LISTS kf_imported_targets)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    continue()
  endif()
  get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    continue()
  endif()
  set(changed OFF)
  set(new_deps)
  foreach(dep IN LISTS deps)
    if(dep STREQUAL "LLVM")
      list(APPEND new_deps ${KF_STATIC_LLVM_LIBS})
      set(changed ON)
    elseif(dep STREQUAL "MLIR")
      # The shared libMLIR.so (MLIRExecutionEngine names it); the static
      # MLIR archives kf needs are linked by name instead.
      set(changed ON)
    elseif(dep MATCHES "^ZLIB::ZLIB$|zstd::libzstd_shared|libz\\.so|libzstd\\.so")
      list(APPEND new_deps ${KF_STATIC_ZLIB} ${KF_STATIC_ZSTD})
      set(changed ON)
    else()
      list(APPEND new_deps ${dep})
    endif()
  endforeach()
  if(changed)
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${new_deps}")
  endif()
endforeach()

# Everything the tools link comes from the archives above; the C++ runtime is
# linked in too. Unused sections are dropped to keep the binaries small.
add_link_options(-static-libstdc++ -static-libgcc -Wl,--gc-sections)
