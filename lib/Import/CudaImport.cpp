//===- CudaImport.cpp - CUDA device code into MLIR ------------------------===//

#include "kf/Import/CudaImport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Import.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>
#include <set>

using namespace mlir;

namespace {

llvm::Error importError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// A temporary file removed when it goes out of scope.
struct TemporaryFile {
  llvm::SmallString<128> path;
  ~TemporaryFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

std::string defaultClang() {
  if (std::optional<std::string> clang = llvm::sys::Process::GetEnv("KF_CLANG"))
    return *clang;
#ifdef KF_CLANG_EXECUTABLE
  if (llvm::sys::fs::can_execute(KF_CLANG_EXECUTABLE))
    return KF_CLANG_EXECUTABLE;
#endif
  for (const char *name : {"clang++-22", "clang++"})
    if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name))
      return *found;
  return "";
}

std::string defaultCudaPath() {
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    return *home;
#ifdef KF_CUDA_PATH
  return KF_CUDA_PATH;
#else
  return "/usr/local/cuda";
#endif
}

/// The import cache's key for `source` (the text of `sourcePath`) imported
/// with `options`: a SHA-256 in hex.
std::string cudaImportKey(llvm::StringRef sourcePath, llvm::StringRef source,
                          const kf::CudaImportOptions &options) {
  llvm::SHA256 hash;
  // What an import depends on, in version 3 of the import (bump the
  // version whenever importCuda's output changes: cached entries must not
  // outlive it). The file's stem names the gpu.module.
  hash.update("kf-cuda-import-3\n");
  hash.update(llvm::sys::path::stem(sourcePath).str() + "\n");
  for (const std::string &role : options.pointerRoles)
    hash.update("role " + role + "\n");
  hash.update(options.chip + "\n");
  hash.update(options.untrusted ? "untrusted\n" : "trusted\n");
  std::vector<std::pair<std::string, std::string>> defines = options.defines;
  llvm::sort(defines);
  for (const auto &[name, value] : defines)
    hash.update("-D" + name + "=" + value + "\n");
  hash.update(source);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

/// "file.cu:LINE" for an imported op's location, else the file.
std::string locationText(Location location, llvm::StringRef sourcePath) {
  std::string text = sourcePath.str();
  location->walk([&](Location nested) {
    if (auto file = dyn_cast<FileLineColLoc>(nested)) {
      text = (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

/// What a clang run gave: its exit status (negative when it could not run
/// or was stopped: then `executeError` says why) and its output (stdout and
/// stderr together).
struct ClangRun {
  int status = 0;
  std::string output, executeError;
  /// Why it failed: clang's exit status, or what stopped it.
  std::string failure() const {
    return status < 0 ? executeError
                      : "clang exit status " + std::to_string(status);
  }
};

/// Runs clang on `sourcePath` with `arguments` (the driver first), then the
/// import's preprocessor definitions and the source, in a subprocess under
/// the import's time limit and, for untrusted source, its memory limit
/// (setrlimit through ExecuteAndWait: a macro that doubles 41 times must
/// end in an error, not take the machine's memory).
llvm::Expected<ClangRun> runClang(llvm::StringRef clang,
                                  std::vector<std::string> arguments,
                                  llvm::StringRef sourcePath,
                                  const kf::CudaImportOptions &options) {
  for (const auto &[name, value] : options.defines)
    arguments.push_back("-D" + name + "=" + value);
  arguments.push_back(sourcePath.str());
  TemporaryFile output;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("kf-cuda", "stderr", output.path))
    return importError("cannot create a temporary file: " + error.message());
  llvm::SmallVector<llvm::StringRef> argv(arguments.begin(), arguments.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""),
                                                llvm::StringRef(output.path),
                                                llvm::StringRef(output.path)};
  ClangRun run;
  unsigned memoryLimitMB = options.untrusted ? options.memoryLimitMB : 0;
  run.status = llvm::sys::ExecuteAndWait(clang, argv, std::nullopt, redirects,
                                         options.timeoutSeconds, memoryLimitMB,
                                         &run.executeError);
  if (auto text = llvm::MemoryBuffer::getFile(output.path))
    run.output = (*text)->getBuffer().str();
  return run;
}

/// Compiles `sourcePath` with clang in `mode` (--cuda-device-only or
/// --cuda-host-only) to LLVM IR, in a subprocess with a time limit. Code
/// that does not compile fails with clang's diagnostics.
llvm::Expected<std::unique_ptr<llvm::Module>>
compileCudaToIR(llvm::StringRef clang, llvm::StringRef cudaPath,
                llvm::StringRef sourcePath, llvm::StringRef mode,
                const kf::CudaImportOptions &options,
                llvm::LLVMContext &llvmContext) {
  TemporaryFile ir;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("kf-cuda", "ll", ir.path))
    return importError("cannot create a temporary file: " + error.message());
  std::vector<std::string> arguments = {
      clang.str(), "-x", "cuda", mode.str(), "--cuda-gpu-arch=" + options.chip,
      "--cuda-path=" + cudaPath.str(),
      // CUDA 13 is newer than clang 22 knows; it works (design.md).
      "-Wno-unknown-cuda-version", "-O3",
      // Line tables only: the imported ops then carry .cu locations, so
      // findings point at the CUDA source.
      "-gline-tables-only", "-S", "-emit-llvm", "-o", std::string(ir.path),
      // A crash leaves no reproducer files (source and preprocessed text)
      // in the temporary directory.
      "-fno-crash-diagnostics"};
  llvm::Expected<ClangRun> run =
      runClang(clang, std::move(arguments), sourcePath, options);
  if (!run)
    return run.takeError();
  if (run->status != 0)
    return importError(
        llvm::formatv("{0} does not compile as CUDA {1} code ({2}):\n{3}",
                      sourcePath,
                      mode == "--cuda-host-only" ? "host" : "device",
                      run->failure(), llvm::StringRef(run->output).trim())
            .str());
  llvm::SMDiagnostic parseError;
  std::unique_ptr<llvm::Module> module =
      llvm::parseIRFile(ir.path, parseError, llvmContext);
  if (!module)
    return importError("cannot read clang's LLVM IR: " +
                       parseError.getMessage());
  return std::move(module);
}

/// The files `sourcePath` reaches that it may not: clang preprocesses it
/// (-M: every file the preprocessor opened, whatever the spelling:
/// #include, %:include, #import, line splices, #embed, __has_include) and
/// every file must be the source itself or lie, after resolving links and
/// "..", under the CUDA toolkit or a directory of clang's own search list
/// for system headers (<...>), all public and read-only. Preprocessing
/// alone never compiles the included text, so clang cannot quote a host
/// file it was pointed at in an error message.
llvm::Expected<std::vector<std::string>>
filesOutsideSystemHeaders(llvm::StringRef clang, llvm::StringRef cudaPath,
                          llvm::StringRef sourcePath,
                          const kf::CudaImportOptions &options) {
  TemporaryFile dependencies;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("kf-cuda", "d", dependencies.path))
    return importError("cannot create a temporary file: " + error.message());
  std::vector<std::string> arguments = {
      clang.str(), "-x", "cuda", "--cuda-device-only",
      "--cuda-gpu-arch=" + options.chip, "--cuda-path=" + cudaPath.str(),
      "-Wno-unknown-cuda-version", "-fno-crash-diagnostics",
      // -v prints the search list, -M the files opened.
      "-v", "-M", "-MF", std::string(dependencies.path)};
  llvm::Expected<ClangRun> run =
      runClang(clang, std::move(arguments), sourcePath, options);
  if (!run)
    return run.takeError();
  const std::string &output = run->output;
  if (run->status != 0) {
    // Only clang's diagnostics, not the -v banner and command lines.
    std::string errors;
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(output).split(lines, '\n');
    for (llvm::StringRef line : lines)
      if (line.contains("error:"))
        errors += line.str() + "\n";
    return importError(
        llvm::formatv("{0} does not preprocess as CUDA device code ({1}):\n{2}",
                      sourcePath, run->failure(),
                      llvm::StringRef(errors).trim())
            .str());
  }

  auto realPath = [](llvm::StringRef path) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      return std::string();
    return std::string(real);
  };
  // The system search list, between "#include <...> search starts here:"
  // and "End of search list.".
  std::vector<std::string> roots;
  if (std::string cuda = realPath(cudaPath); !cuda.empty())
    roots.push_back(cuda);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(output).split(lines, '\n');
  bool inSystemList = false;
  for (llvm::StringRef line : lines) {
    if (line.starts_with("#include <...> search starts here:")) {
      inSystemList = true;
      continue;
    }
    if (line.starts_with("End of search list."))
      inSystemList = false;
    if (inSystemList && line.starts_with(" "))
      if (std::string root = realPath(line.trim()); !root.empty())
        roots.push_back(root);
  }

  // The dependency file: "target: file file \\\n file ...", spaces in
  // names escaped with a backslash.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(dependencies.path);
  if (!text)
    return importError("cannot read clang's dependency list: " +
                       text.getError().message());
  llvm::StringRef list = (*text)->getBuffer();
  size_t colon = list.find(": ");
  list = colon == llvm::StringRef::npos ? "" : list.drop_front(colon + 2);
  std::vector<std::string> files;
  std::string current;
  for (size_t i = 0; i < list.size(); ++i) {
    char c = list[i];
    if (c == '\\' && i + 1 < list.size() && list[i + 1] == ' ') {
      current += ' ';
      ++i;
    } else if (c == '\\' && i + 1 < list.size() && list[i + 1] == '\n') {
      ++i;
    } else if (c == ' ' || c == '\n' || c == '\t') {
      if (!current.empty())
        files.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty())
    files.push_back(std::move(current));

  std::string source = realPath(sourcePath);
  std::vector<std::string> reasons;
  for (const std::string &file : files) {
    std::string real = realPath(file);
    if (!real.empty() && real == source)
      continue;
    bool system =
        !real.empty() && llvm::any_of(roots, [&](const std::string &root) {
          return llvm::StringRef(real).starts_with(root) &&
                 (real.size() == root.size() || real[root.size()] == '/');
        });
    if (!system)
      reasons.push_back(
          llvm::formatv("{0}: reaches {1}: a candidate may include only the "
                        "CUDA toolkit's and the system's headers",
                        sourcePath, real.empty() ? file : real)
              .str());
  }
  return reasons;
}

/// Host functions defined by the host side of a CUDA source, other than
/// what clang generates for it: each kernel's launch stub (its demangled
/// name is the kernel's with __device_stub__ before the name) and the
/// module's registration. "file:line: host code: NAME ...".
std::vector<std::string> hostCodeIn(const llvm::Module &host,
                                    const llvm::Module &device,
                                    llvm::StringRef sourcePath) {
  std::set<std::string> kernels;
  for (const llvm::Function &function : device)
    if (function.getCallingConv() == llvm::CallingConv::PTX_Kernel)
      kernels.insert(llvm::demangle(function.getName()));
  static const char *const registration[] = {
      "__cuda_register_globals", "__cuda_module_ctor", "__cuda_module_dtor"};
  std::vector<std::string> reasons;
  for (const llvm::Function &function : host) {
    if (function.isDeclaration())
      continue;
    std::string name = llvm::demangle(function.getName());
    if (llvm::is_contained(registration, name))
      continue;
    std::string kernel = name;
    size_t stub = kernel.find("__device_stub__");
    if (stub != std::string::npos) {
      kernel.erase(stub, std::strlen("__device_stub__"));
      if (kernels.count(kernel))
        continue;
    }
    unsigned line = 0;
    if (const llvm::DISubprogram *subprogram = function.getSubprogram())
      line = subprogram->getLine();
    reasons.push_back(llvm::formatv("{0}:{1}: host code ({2}) is not accepted "
                                    "from candidates: kf runs the host side; "
                                    "describe launches in the launch plan",
                                    sourcePath, line, name)
                          .str());
  }
  return reasons;
}

} // namespace

std::vector<std::string> kf::checkUntrustedCuda(llvm::StringRef source,
                                                llvm::StringRef name) {
  // A first look at the text, for a clear early message: inline PTX
  // bypasses every analysis kf makes on IR. It is not the guarantee (a
  // macro can hide it): the imported IR is checked for llvm.inline_asm.
  // What files the source reaches is decided by clang's dependency list.
  std::vector<std::string> reasons;
  llvm::SmallVector<llvm::StringRef> lines;
  source.split(lines, '\n');
  for (auto [index, rawLine] : llvm::enumerate(lines)) {
    llvm::StringRef line = rawLine.trim();
    unsigned number = index + 1;
    if (line.starts_with("#"))
      continue;
    for (llvm::StringRef keyword : {"asm(", "asm (", "asm volatile"})
      if (line.contains(keyword)) {
        reasons.push_back(
            llvm::formatv("{0}:{1}: inline PTX ({2}) is not accepted from "
                          "candidates",
                          name, number, keyword.rtrim("( "))
                .str());
        break;
      }
  }
  return reasons;
}

llvm::Expected<OwningOpRef<ModuleOp>>
kf::importCuda(llvm::StringRef sourcePath, MLIRContext *context,
               const CudaImportOptions &options) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> source =
      llvm::MemoryBuffer::getFile(sourcePath);
  if (!source)
    return importError("cannot read " + sourcePath + ": " +
                       source.getError().message());
  if (options.untrusted) {
    std::vector<std::string> reasons =
        checkUntrustedCuda((*source)->getBuffer(), sourcePath);
    if (!reasons.empty())
      return importError("refused: " + llvm::join(reasons, "\nrefused: "));
  }
  llvm::SmallString<256> cached;
  std::string cacheProblem;
  if (!options.cacheDir.empty()) {
    cached = options.cacheDir;
    llvm::sys::path::append(
        cached,
        cudaImportKey(sourcePath, (*source)->getBuffer(), options) + ".mlir");
    if (llvm::sys::fs::exists(cached)) {
      // Imports are printed with their .cu locations and parse back as
      // they were; a damaged entry is recompiled.
      std::string parseErrors;
      ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
        parseErrors += diagnostic.str() + "\n";
        return success();
      });
      OwningOpRef<ModuleOp> module =
          parseSourceFile<ModuleOp>(cached, ParserConfig(context));
      if (module)
        return std::move(module);
      cacheProblem = ("the cache entry " + cached +
                      " does not parse (written by another kf?): " +
                      llvm::StringRef(parseErrors).trim())
                         .str();
    }
  }
  std::string clang = options.clang.empty() ? defaultClang() : options.clang;
  if (clang.empty())
    return importError(
        "no clang++ found to compile CUDA (install clang-22, or set "
        "$KF_CLANG)" +
        llvm::Twine(options.cacheDir.empty()
                        ? ""
                        : "; and " + sourcePath +
                              " with these parameters is not in the import "
                              "cache " +
                              options.cacheDir +
                              " (fill it where clang is: kf-evolve import "
                              "--cache-all)"));
  std::string cudaPath =
      options.cudaPath.empty() ? defaultCudaPath() : options.cudaPath;
  if (options.untrusted) {
    llvm::Expected<std::vector<std::string>> outside =
        filesOutsideSystemHeaders(clang, cudaPath, sourcePath, options);
    if (!outside)
      return outside.takeError();
    if (!outside->empty())
      return importError("refused: " + llvm::join(*outside, "\nrefused: "));
  }
  llvm::LLVMContext llvmContext;
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule = compileCudaToIR(
      clang, cudaPath, sourcePath, "--cuda-device-only", options, llvmContext);
  if (!llvmModule)
    return llvmModule.takeError();
  if (options.untrusted) {
    // Host code never runs (kf owns the host side), but a candidate that
    // brings some says something is off: refuse it, naming the functions.
    llvm::LLVMContext hostContext;
    llvm::Expected<std::unique_ptr<llvm::Module>> host = compileCudaToIR(
        clang, cudaPath, sourcePath, "--cuda-host-only", options, hostContext);
    if (!host)
      return host.takeError();
    std::vector<std::string> reasons =
        hostCodeIn(**host, **llvmModule, sourcePath);
    if (!reasons.empty())
      return importError("refused: " + llvm::join(reasons, "\nrefused: "));
  }
  // The importer warns about data-layout tokens and module flags it does
  // not model (harmless, design.md); only its errors matter here.
  std::string importErrors;
  OwningOpRef<ModuleOp> imported;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
        importErrors += diagnostic.str() + "\n";
      return success();
    });
    imported = translateLLVMIRToModule(std::move(*llvmModule), context,
                                       /*emitExpensiveWarnings=*/false);
  }
  if (!imported)
    return importError("cannot import clang's LLVM IR into MLIR:\n" +
                       importErrors);

  // The common level: a gpu.module holding the llvm + nvvm ops, with an
  // NVVM target so the usual pipeline serializes it to PTX.
  OpBuilder builder(context);
  Location location = FileLineColLoc::get(context, sourcePath, 0, 0);
  OwningOpRef<ModuleOp> result = ModuleOp::create(location);
  result->getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                                  builder.getUnitAttr());
  builder.setInsertionPointToEnd(result->getBody());
  auto target = NVVM::NVVMTargetAttr::get(
      context, /*optLevel=*/3, "nvptx64-nvidia-cuda", options.chip, "+ptx80");
  std::string name = llvm::sys::path::stem(sourcePath).str();
  for (char &c : name)
    if (!llvm::isAlnum(c))
      c = '_';
  auto gpuModule = gpu::GPUModuleOp::create(builder, location, name,
                                            builder.getArrayAttr({target}));
  Block &body = gpuModule.getBodyRegion().front();
  for (Operation &op : llvm::make_early_inc_range(*imported->getBody()))
    op.moveBefore(&body, body.without_terminator().end());

  // Kernels are what gpu.launch_func may launch.
  for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>())
    if (func.getCConv() == LLVM::CConv::PTX_Kernel)
      func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    builder.getUnitAttr());

  // Roles of each kernel's pointer parameters, for the cheat checks.
  if (!options.pointerRoles.empty())
    for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
      if (func.getCConv() != LLVM::CConv::PTX_Kernel)
        continue;
      unsigned pointer = 0;
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        if (!isa<LLVM::LLVMPointerType>(func.getArgument(i).getType()))
          continue;
        if (pointer < options.pointerRoles.size())
          func.setArgAttr(i, "kf.role",
                          builder.getStringAttr(options.pointerRoles[pointer]));
        ++pointer;
      }
    }
  if (options.untrusted) {
    // What clang made of the source decides, not its text: inline assembly
    // written through a macro or as __asm__ __volatile__ is in the IR.
    std::vector<std::string> reasons;
    gpuModule.walk([&](LLVM::InlineAsmOp op) {
      reasons.push_back(
          llvm::formatv("{0}: inline assembly (llvm.inline_asm) is not "
                        "accepted from candidates, however it is written",
                        locationText(op->getLoc(), sourcePath))
              .str());
    });
    if (!reasons.empty())
      return importError("refused: " + llvm::join(reasons, "\nrefused: "));
    // The cheat checks refuse inline assembly in untrusted modules too
    // (also in cache entries written by an older kf).
    gpuModule->setAttr("kf.untrusted", builder.getUnitAttr());
  }
  if (failed(verify(*result)))
    return importError("the imported module does not verify");
  if (!cached.empty()) {
    // Written to a temporary file and renamed: a concurrent reader never
    // sees half an entry. A cache that cannot be written costs speed only.
    if (!llvm::sys::fs::create_directories(options.cacheDir)) {
      llvm::SmallString<256> temporary;
      int fd;
      if (!llvm::sys::fs::createUniqueFile(cached + ".%%%%%%.tmp", fd,
                                           temporary)) {
        bool written;
        {
          llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
          result->print(os, OpPrintingFlags().enableDebugInfo(
                                /*enable=*/true, /*prettyForm=*/false));
          os.close();
          written = !os.has_error();
          // A failed write is this function's to handle, not the stream
          // destructor's (which would end the process).
          os.clear_error();
        }
        if (!written) {
          llvm::sys::fs::remove(temporary);
        } else if (llvm::sys::fs::rename(temporary, cached))
          llvm::sys::fs::remove(temporary);
      }
    }
  }
  return std::move(result);
}
