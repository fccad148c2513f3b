# -*- Python -*-
# lit configuration for Kernel Foundry.

import glob
import os
import sys
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "KF"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".cu"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kf_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%kf_src_root", config.kf_src_root))
config.substitutions.append(("%examples", os.path.join(config.kf_src_root, "examples")))
config.substitutions.append(("%bench", os.path.join(config.kf_src_root, "bench")))

llvm_config.use_default_substitutions()

# A sanitizer build (-DKF_SANITIZE=...): a finding fails the test with the
# report on stderr. LLVM and MLIR keep some allocations until exit on
# purpose (ManagedStatic, the driver's never-deleted state), so leaks are
# not reported.
if getattr(config, "kf_sanitize", ""):
    config.available_features.add("sanitizer")
    config.environment["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    # Ranks on another host start with a bare environment: mpirun passes
    # these on (without, LeakSanitizer reports Open MPI's allocations there
    # and the rank exits with 1).
    mpirun_sanitizer_env = "-x ASAN_OPTIONS -x UBSAN_OPTIONS"
    # AddressSanitizer refuses to start when another library is preloaded
    # before its runtime: tests that preload a hook (a rank that dies, a
    # call that stalls) put the runtime first.
    import subprocess
    try:
        asan_runtime = subprocess.check_output(
            ["gcc", "-print-file-name=libasan.so"], text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        asan_runtime = ""
    preload_first = asan_runtime + ":" if os.path.isabs(asan_runtime) else ""
else:
    mpirun_sanitizer_env = ""
    preload_first = ""
config.substitutions.append(("%mpirun_sanitizer_env", mpirun_sanitizer_env))
# LD_PRELOAD=%preload_first<hook.so>: the sanitizer runtime, when there is
# one, before the hook.
config.substitutions.append(("%preload_first", preload_first))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# kf-evolve runs without --db never touch the user's experience library.
config.environment["KF_EXPERIENCE_DB"] = os.path.join(
    config.test_exec_root, "experience-library-of-the-tests.sqlite")

tool_dirs = [config.kf_tools_dir, config.llvm_tools_dir]
tools = ["kf-opt", "kf-evolve"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# The kf-evolve binary itself, for scripts that wrap it.
config.substitutions.append(
    ("%kf_evolve_path", os.path.join(config.kf_tools_dir, "kf-evolve")))
config.substitutions.append(
    ("%kf_opt_path", os.path.join(config.kf_tools_dir, "kf-opt")))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# FileCheck variables do not leak across CHECK-LABEL blocks.
config.substitutions.insert(0, ("FileCheck ", "FileCheck --enable-var-scope "))

# mlir-runner: upstream's CPU runner and its support libraries, for tests
# that run a rewrite's result on the CPU.
runner_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
runner_utils = os.path.join(runner_lib_dir, "libmlir_runner_utils.so")
c_runner_utils = os.path.join(runner_lib_dir, "libmlir_c_runner_utils.so")
if (shutil.which("mlir-runner", path=config.llvm_tools_dir)
        and os.path.exists(runner_utils) and os.path.exists(c_runner_utils)):
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%mlir_runner_utils", runner_utils))
    config.substitutions.append(("%mlir_c_runner_utils", c_runner_utils))

# cuda-import: clang and the CUDA headers were found (CUDA input works).
if config.kf_cuda_import.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("cuda-import")

# llm: the tools were built with the LLM experts (libcurl).
if config.kf_enable_llm.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("llm")
config.substitutions.append(("%python", sys.executable))

# mpi: kf-evolve --mpi was built and mpirun is here. %mpirun runs as root
# too (CI does) and lets the ranks outnumber the cores.
mpirun = shutil.which("mpirun")
if config.kf_enable_mpi.upper() in ("ON", "1", "TRUE", "YES") and mpirun:
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpirun", mpirun + " --allow-run-as-root --oversubscribe"
         " --enable-recovery --mca btl self,tcp --mca btl_tcp_if_include lo"))
    # The same without --enable-recovery: a rank's MPI_Abort ends the job,
    # and mpirun exits with its error code (with recovery it exits 0).
    config.substitutions.append(
        ("%mpiabort", mpirun + " --allow-run-as-root --oversubscribe"
         " --mca btl self,tcp --mca btl_tcp_if_include lo"))
    # With recovery, without the transports chosen: for jobs over several
    # hosts, whose links with-second-host.sh chooses.
    config.substitutions.append(
        ("%mpihosts", mpirun + " --allow-run-as-root --oversubscribe"
         " --enable-recovery " + mpirun_sanitizer_env))

# mount-namespace: files can be hidden from one command (unshare -m, as
# root), e.g. the system's Open MPI from the bundle's.
def can_unshare_mounts():
    import subprocess
    unshare = shutil.which("unshare")
    if not unshare or os.geteuid() != 0:
        return False
    try:
        return subprocess.run([unshare, "-m", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
if can_unshare_mounts():
    config.available_features.add("mount-namespace")

# network-namespace: a second host for MPI can be made on this one (a
# network namespace joined by a veth pair; ip netns, as root):
# Search/Inputs/with-second-host.sh.
def can_make_hosts():
    import subprocess
    ip = shutil.which("ip")
    if not ip or not shutil.which("unshare") or os.geteuid() != 0:
        return False
    name = "kfprobe%d" % os.getpid()
    try:
        made = subprocess.run([ip, "netns", "add", name], capture_output=True,
                              timeout=10).returncode == 0
        if not made:
            return False
        linked = subprocess.run(
            [ip, "link", "add", name + "a", "type", "veth", "peer", "name",
             name + "b"], capture_output=True, timeout=10).returncode == 0
        subprocess.run([ip, "link", "del", name + "a"], capture_output=True,
                       timeout=10)
        subprocess.run([ip, "netns", "del", name], capture_output=True,
                       timeout=10)
        return linked
    except (OSError, subprocess.SubprocessError):
        return False
if can_make_hosts():
    config.available_features.add("network-namespace")

# slurm: a Slurm cluster of one node can be started here (Slurm's and
# MUNGE's daemons, as root): Search/Inputs/with-slurm.
if os.geteuid() == 0 and all(shutil.which(program) for program in
        ("slurmctld", "slurmd", "srun", "sinfo", "munged", "mungekey")):
    config.available_features.add("slurm")

# ptxas: PTX is assembled in tests when the CUDA toolkit is present.
if config.ptxas_executable and os.path.exists(config.ptxas_executable):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas_executable))

# A CUDA driver (libcuda.so.1) means GPU tests can run here.
def have_cuda_driver():
    import ctypes
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    if lib.cuInit(0) != 0 or lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0

if have_cuda_driver():
    config.available_features.add("cuda")
else:
    config.available_features.add("no-cuda")

# postgres: kf-evolve was built with libpq and PostgreSQL's server programs
# are here (Debian: postgresql-15, which scripts/bootstrap installs); tests
# start their own server with %with-postgres.
postgres_bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
if config.kf_enable_postgresql.upper() in ("ON", "1", "TRUE", "YES") and postgres_bins:
    config.available_features.add("postgres")
    config.substitutions.append(
        ("%with-postgres", os.path.join(config.kf_src_root, "test", "Search",
                                        "Inputs", "with-postgres") + " " +
         os.path.dirname(postgres_bins[-1])))
