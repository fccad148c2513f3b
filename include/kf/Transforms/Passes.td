//===- Passes.td - Kernel Foundry passes -------------------*- tablegen -*-===//

#ifndef KF_TRANSFORMS_PASSES_TD
#define KF_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KFExtractReference : Pass<"kf-extract-reference", "mlir::ModuleOp"> {
  let summary = "Reduce a problem module to its reference function";
  let description = [{
    Finds the module's `kf.problem` (the one named by `problem`, or the only
    one), keeps its reference function and removes every other top-level
    operation, the `kf.problem` op included. The result is a plain
    linalg-on-tensors module: the input to the default schedule, to a
    candidate's schedule, and to the CPU reference run. Fails with a located
    error when the module holds no problem.
  }];
  let options = [
    Option<"problemName", "problem", "std::string", /*default=*/"\"\"",
           "The problem to extract when the module holds several">,
  ];
  let dependentDialects = ["::kf::KFDialect"];
}

def KFMaterializeWorkgroupMemory
    : Pass<"kf-materialize-workgroup-memory", "mlir::func::FuncOp"> {
  let summary = "Turn promoted shared-memory buffers and copies into code that lowers";
  let description = [{
    `transform.structured.promote` with the workgroup memory space leaves a
    `memref.alloc` in address space 3 and `memref.copy` ops into it, which
    the NVVM path cannot lower (an alloca in address space 3, calls to
    `memrefCopy`). This pass
    - moves each workgroup-space allocation used by one `gpu.launch` into a
      workgroup attribution of that launch, padding its innermost dimension
      by the number of elements given in its `kf.workgroup_padding`
      attribute (against shared-memory bank conflicts; uses see a subview of
      the original shape);
    - rewrites every `memref.copy` in a launch that reads or writes
      workgroup memory into a loop distributed over all threads of the
      block, between two barriers, where the whole block reaches the copy
      (every enclosing loop and branch inside the launch depends only on
      block ids, sizes and values from outside the launch); a copy that
      only some threads reach (`if (threadIdx.x == 0)`) becomes a loop over
      all elements by each thread that reaches it, with no barrier.
    An allocation used outside launches or by several launches is an error.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numBuffers", "workgroup-buffers", "Allocations made workgroup attributions">,
    Statistic<"numCopies", "cooperative-copies", "Copies distributed over threads">,
  ];
}

def KFHoistAccumulators
    : Pass<"kf-hoist-accumulators", "mlir::func::FuncOp"> {
  let summary = "Keep a thread's accumulators in registers across the loops of a staged kernel";
  let description = [{
    A schedule that stages operand tiles in shared memory tiles the
    reduction loop at the block level, outside the threads; after mapping to
    threads, each thread's loop body reads its output tile, accumulates into
    it and writes it back on every iteration, through global memory. In each
    `gpu.launch` marked `kf.hoist_accumulators`, this pass moves every
    `vector.transfer_read` / `vector.transfer_write` pair of the same
    location out of the `scf.for` loops around it (innermost first): the
    value is read once before the loop, carried as an iteration argument
    and written once after it.

    A pair is hoisted when the buffer, indices and vector type are the same
    and defined outside the loop, the loop runs at least once (constant
    bounds), and no other operation in the loop touches the buffer the
    location belongs to (followed through views to its function argument or
    allocation; distinct arguments and allocations are distinct buffers, as
    kf's runtime allocates them). Barriers are allowed: the location is the
    thread's own. Operations with unknown memory effects stop the hoisting.

    Scalar `memref.load` / `memref.store` pairs are hoisted the same way
    (the pipeline runs the pass again after `convert-linalg-to-loops`: a
    naively mapped reduction, whose launch the schedule marks, stores its
    output element on every step otherwise), except in loops with a
    barrier and in workgroup memory, where the location may be another
    thread's to read between iterations.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numHoisted", "hoisted-pairs", "Read/write pairs moved out of a loop">,
  ];
}

def KFDistributeReductions
    : Pass<"kf-distribute-reductions", "mlir::func::FuncOp"> {
  let summary = "Share a marked reduction's loop among the lanes of a block";
  let description = [{
    The generic mapping runs a reduction loop sequentially in one thread.
    For every `linalg.generic` inside a `gpu.launch` that carries
    `kf.reduction_lanes = R` (a schedule's `lanes` gene), on buffers, with
    one output and one reduction loop, whose body folds each element into
    the output with one add, mul, max or min (f32 or i32), this pass writes
    the reduction out. The launch's block has R threads along x (the
    lanes) and G groups of them along y; group g computes the op's outputs
    g, g + G, ... (its parallel iterations, linearized). For each, lane t
    folds elements t, t + R, ... into four independent partials, the R
    lanes combine them with a `gpu.shuffle xor` butterfly (R a power of two
    up to 32) or `gpu.all_reduce` (R a multiple of 32 up to 1024, G = 1),
    and lane 0 folds the total into the output. Groups sharing a warp must
    get as many outputs each (the schedule checks it). Any marked op it
    cannot rewrite is an error.

    A marked reduction followed by other ops in its launch (a row group,
    `Schedule::fuseReductions`) ends with a barrier after lane 0's store.
    An all-parallel `linalg.generic` carrying `kf.row_lanes = R` (a row
    group's consumer) gets its innermost loop shared the same way: lane t
    computes elements t, t + R, ... (four per round), counted from the
    row's end (what the group's reductions read last); inputs that do not
    vary along the row are read once per row.

    Upstream's `tile_reduction_using_forall` gives each thread a contiguous
    chunk (uncoalesced) and combines partials serially, and MLIR 22 has no
    production lowering of `gpu.subgroup_reduce` to shuffles.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numDistributed", "distributed-reductions", "Reductions shared among lanes">,
    Statistic<"numRows", "distributed-rows", "Row-group consumers shared among lanes">,
  ];
}

def KFLowerScans : Pass<"kf-lower-scans", "mlir::func::FuncOp"> {
  let summary = "Run a marked scan (a masked reduction) as a scan over each row";
  let description = [{
    A scan written as a masked reduction (`kf::analyzeScan`:
    `out[k] = fold over l of select(l <= k, x[l], neutral)`, or <, >, >=)
    runs n^2 steps per row as written. For every such `linalg.generic`
    inside a `gpu.launch` that carries `kf.reduction_lanes = R` (R a power
    of two up to 32; the launch's block is R lanes along x and groups of
    lanes along y), on buffers, this pass writes one pass over each row:
    the lanes take 8 consecutive elements each per chunk (16-byte vectors
    where a row is contiguous with 32-bit elements), fold them, scan their
    totals with `gpu.shuffle up` (`down` for a reverse scan), and carry the
    fold of the earlier chunks; the elements past the last whole chunk go
    one per lane. Groups of lanes take the rows in turn. A neutral
    `linalg.fill` of the output just before the op is dropped (the scan
    writes every element). Marked ops that are not scans are left to
    `kf-distribute-reductions`. Upstream has no scan op or lowering.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numLowered", "lowered-scans", "Scans written out">,
  ];
}

def KFSinkIntoLaunches : Pass<"kf-sink-into-launches", "mlir::func::FuncOp"> {
  let summary = "Move constants and index computations used by a launch into it";
  let description = [{
    Like upstream's gpu-launch-sink-index-computations, but it also sinks
    every constant-like op (`ub.poison` padding values of vector transfers,
    vector constants), which the upstream pass leaves on the host. Anything
    left on the host and used in a launch becomes a kernel argument, and kf's
    runtime can pass only buffers and scalar constants.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def KFLowerVectorOps : Pass<"kf-lower-vector-ops", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the vector ops a schedule leaves to the 1-D forms NVVM takes";
  let description = [{
    Vectorized schedules leave multi-dimensional vector ops in kernels
    (`vector.multi_reduction` of a vectorized reduction, n-D broadcasts,
    shape casts, transposes, transfers with permutation maps), for which
    neither convert-vector-to-llvm nor convert-gpu-to-nvvm has conversion
    patterns. This pass rewrites them, with upstream's lowering patterns,
    into 1-D vector ops and `vector.reduction`; unit dimensions are dropped
    first so that a `vector<1x8x1xf32>` reduction becomes a 1-D one rather
    than an unrolled sequence of element extractions. Transfers are left to
    convert-vector-to-scf.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def KFUnrollElementwiseRows : Pass<"kf-unroll-elementwise-rows"> {
  let summary = "Compute chains of n-D elementwise vector ops row by row";
  let description = [{
    A GEMM kernel's fused epilogue is a chain of elementwise ops on the
    thread's whole accumulator tile (a `vector<8x8xf32>`); lowered as it
    stands, each op runs on the whole tile before the next one starts and
    every intermediate is live for all 64 elements at once (L2-86's GELU
    epilogue spilled 3176 bytes at 128 registers). In each block, the
    elementwise, effect-free ops whose result and operands are vectors of
    one shape of rank 2 or more are rewritten as ops on rows (the last
    dimension): each row's chain is placed right before the first op after
    the chain that extracts one of that row's results (its store), and row
    or element `vector.extract`s after the chain read the rows. An op whose
    result has any other use stays as it was. Elementwise ops of one row
    and 1-D vectors are left alone.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def KFExpandErf : Pass<"kf-expand-erf"> {
  let summary = "Compute f32 and f16 erf with upstream's branch-free rational approximation";
  let description = [{
    Replaces `math.erf` on f32 and f16 (scalars and vectors) with MLIR's
    polynomial approximation (`populatePolynomialApproximateErfPattern`:
    a ratio of degree-4 polynomials selected among three intervals, absolute
    error about 2.5e-7). libdevice's `__nv_erff`, which the NVVM conversion
    would call, branches on |x|; in a fused GELU epilogue that is one branch
    per accumulator, after which LLVM spreads the GEMM's last FMAs over the
    branches' blocks and the kernel spills. The device pipeline runs it on
    every kernel, the reference's included. f64 erf keeps libdevice's.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def KFContractFloatOps : Pass<"kf-contract-float-ops", "mlir::gpu::GPUModuleOp"> {
  let summary = "Allow fused multiply-add in kernels, as nvcc does by default";
  let description = [{
    Adds the `contract` fast-math flag to every operation in the kernels
    that carries fast-math flags (float `arith` and `math` operations,
    `vector.reduction`; it runs after kf-lower-vector-ops, which has turned
    n-D reductions into those), so that the NVPTX backend may fuse a multiply and the add that
    consumes it into one `fma.rn` (one rounding instead of two). Without the
    flag, LLVM emits `mul.rn` and `add.rn`, which ptxas may not fuse: a
    matmul or convolution then issues twice the instructions per
    multiply-add. This is what `nvcc` does by default (`--fmad=true`) and
    what PyTorch's kernels are built with; candidates are still checked
    against the trusted reference under the problem's tolerance. Other
    flags (reassociation, no-NaNs, ...) are left as they are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numContracted", "contracted-ops", "Float ops given the contract flag">,
  ];
}

def KFNumberAddressSpaces
    : Pass<"kf-number-address-spaces", "mlir::gpu::GPUModuleOp"> {
  let summary = "Replace #gpu.address_space attributes in kernels by NVVM's numbers";
  let description = [{
    Memrefs in shared memory carry `#gpu.address_space<workgroup>`, which
    only convert-gpu-to-nvvm knows how to lower. Vector accesses to shared
    memory (a staged schedule's reads of its tiles) are converted earlier,
    by convert-vector-to-llvm, which then fails. This pass rewrites every
    type and attribute in the kernels to NVVM's numbering (global 1,
    workgroup 3, private 0), the one convert-gpu-to-nvvm uses, which every conversion understands.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def KFLowerVectorTransfers : Pass<"kf-lower-vector-transfers"> {
  let summary = "What a vectorized schedule applies after bufferization, without the transform listener";
  let description = [{
    Applies, with a plain greedy rewrite, the patterns a vectorized
    schedule needs after bufferization: leading unit dimensions cast away,
    transfers of rank 1 lowered to vector loads and stores, permutation
    maps lowered, and canonicalization. Schedules call it through
    `transform.apply_registered_pass` instead of `transform.apply_patterns`:
    there, LLVM 22's tracking listener prints (and verifies) an operation
    on every failed match, which on a split 3-D reduction made a compile
    run for tens of minutes. The device pipeline runs it again on the
    kernels after convert-vector-to-scf has unrolled the n-D transfers a
    schedule left (a transposing copy's 4 x 4 tiles) into rank-1 ones, so
    that they become the vector loads and stores whose alignment
    kf-annotate-vector-alignment proves (left to convert-vector-to-llvm,
    they would be 4-byte aligned and split into scalar accesses); there it
    runs with `loads-and-stores-only`, which leaves every other op as it
    is.
  }];
  let options = [
    Option<"loadsAndStoresOnly", "loads-and-stores-only", "bool", "false",
           "Only lower in-bounds rank-1 transfers to vector loads and "
           "stores (no unit dimensions cast away, no permutation maps "
           "lowered, no canonicalization)">
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect"];
}

def KFForwardVectorTransfers
    : Pass<"kf-forward-vector-transfers", "mlir::func::FuncOp"> {
  let summary = "Forward vector stores to the loads that read them back, and drop stores that are overwritten";
  let description = [{
    Runs MLIR's transfer-op dataflow optimization
    (`vector::transferOpflowOpt`) on the function: a `vector.transfer_read`
    of exactly what a dominating `vector.transfer_write` to the same memref
    wrote, with no possibly aliasing write between them, takes the written
    vector instead, and a write overwritten before anything reads it is
    removed. Upstream exposes it only as a test pass
    (`-test-vector-transferop-opt`), so kf wraps it. The GEMM kernel's
    schedule applies it after the accumulators are hoisted: the zeros its
    fused fill wrote to the output, and their reload as the accumulators'
    initial value, disappear, so the output is written once.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def KFSwizzleBlockOrder
    : Pass<"kf-swizzle-block-order", "mlir::func::FuncOp"> {
  let summary = "Run a GEMM kernel's blocks in groups of output rows, for L2 reuse";
  let description = [{
    A `gpu.launch` marked `kf.block_group = G` (the GEMM kernel's `group`
    gene) computes output tile (row `by`, column `bx`) from block ids x and
    y. In the grid's row-major order, the blocks resident at once cover a
    few rows of output tiles and every column: the whole of B streams
    through L2 for each few rows of A. This pass renumbers the blocks, as
    Triton's grouped ordering does: with `pid = by * gx + bx`, each group
    of `G * gx` consecutive blocks covers G tile rows and runs down their
    columns (`m = first + (pid mod (G * gx)) mod rows`, `n = (pid mod (G *
    gx)) / rows`, where `rows = min(G, gy - first)` is the group's height),
    so the resident blocks share a compact patch of A's rows and B's
    columns. It is a bijection of the grid: every tile is still computed
    once. The block ids x and y (the `gpu.block_id` ops and the launch's
    block arguments) are replaced inside the launch; z (batches, split-K
    parts) is untouched. The grid's x and y sizes must be constants; G
    must be at least 1. The attribute is removed.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def KFInterleaveSharedColumns : Pass<"kf-interleave-shared-columns"> {
  let summary = "Store a shared buffer's 16-byte chunks interleaved, so that wide per-thread reads are conflict-free";
  let description = [{
    A workgroup `memref.alloc` marked `kf.interleave_columns = T` is read
    by thread groups of T 16-byte chunks (the GEMM kernel's B tile read by
    threads of 8 contiguous columns: T = 2). Read in place, the lanes of a
    quarter-warp pass start T x 16 bytes apart: a T-way bank conflict.
    This pass stores each row's chunks transposed: chunk q = g * T + j
    (thread group g, its j-th chunk) at position j * G + g, where G is the
    number of groups in a row, so that the j-th chunks of consecutive
    groups are adjacent. Every access of the buffer takes the permuted
    column `c' = ((c / s) mod T) * G * s + ((c / s) / T) * s + c mod s`
    (s: elements per chunk, as a composed `affine.apply`); accesses wider
    than a chunk (1-D `vector.load` and `vector.store`; transfers of any
    rank along their last dimension) become one per chunk. Supported
    accesses: `nvgpu.device_async_copy` into the buffer,
    `vector.load`/`store`, `vector.transfer_read`/`write` with a minor
    identity map, in bounds along the row and unmasked,
    `memref.load`/`store`, each provably within one
    chunk or on whole chunks (the column a known multiple: constants,
    sums, products, `affine.apply`). All or nothing: a buffer with any
    other use keeps its layout (counted in `num-skipped`). Rows that do not
    hold whole groups are left as they are. The attribute is removed.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numInterleaved", "num-interleaved", "Buffers interleaved">,
    Statistic<"numSkipped", "num-skipped",
              "Marked buffers left in place (an unsupported access, or rows that do not hold whole groups)">
  ];
}

def KFMergeAsyncCopyGroups : Pass<"kf-merge-async-copy-groups"> {
  let summary = "Issue a pipeline stage's cp.async copies as one group, without the barriers between them";
  let description = [{
    The GEMM kernel copies its A and B tiles with `cp.async` in two thread
    mappings, and `transform.gpu.map_nested_forall_to_threads` puts a
    barrier after each; `transform.nvgpu.create_async_groups` then makes
    two groups per K step. `transform.nvgpu.pipeline_shared_memory_copies`
    assumes one group per iteration (it waits with
    `cp.async.wait_group depth-1`): with two, each wait also waited for the
    next stage's copies, and the pipeline held about half the stages in
    flight that its ring buffer has room for, with three barriers per K
    step. Run between the two transforms, this pass gives it one group per
    stage. Upstream's `gpu-eliminate-barriers` keeps these barriers: it
    counts an asynchronous copy's shared-memory write as a write ordered by
    the barrier, and it cannot merge groups.

    1. A `gpu.barrier` is erased when every op between it and the barriers
       before and after it (in its block; across the back edge and the
       entry of an `scf.for` body) is free of memory effects except
       allocation, or is an `nvgpu.device_async_copy`,
       `nvgpu.device_async_create_group` or `nvgpu.device_async_wait`. Such
       a barrier orders nothing: no thread reads or writes memory
       synchronously in that stretch, and a copy's asynchronous write to
       shared memory becomes visible only through a wait and a later
       barrier, never through this one.
    2. Two `nvgpu.device_async_create_group` ops of one block with only
       copies and effect-free ops between them (and waits on the first
       group that wait for all groups, which a wait for all groups after
       the second replaces) become one group where the second was.
  }];
  let dependentDialects = ["::mlir::nvgpu::NVGPUDialect"];
  let statistics = [
    Statistic<"numBarriers", "erased-barriers", "Barriers erased between asynchronous copies">,
    Statistic<"numMerged", "merged-groups", "Groups of asynchronous copies merged into the next">,
  ];
}

def KFPipelineAsyncCopies : Pass<"kf-pipeline-async-copies"> {
  let summary = "Software-pipeline a K loop of cp.async copies into a ring buffer, with one barrier per stage";
  let description = [{
    Pipelines each `scf.for` marked `kf.pipeline_copies` (the mark is
    removed): a loop whose body issues `nvgpu.device_async_copy` ops into
    workgroup ring buffers of S slots (`memref.multibuffer`), commits them as
    a group, waits for that group, passes a barrier and computes on the
    slot. The copies and their operands' slice become stage 0, everything
    else the last stage, and the epilogue is peeled; each wait leaves the
    right number of groups in flight.

    Where it is safe, the pipelined body issues the copies of stage
    i + S - 1 right after the barrier that follows the wait for stage i, and
    the barrier that ended the body is erased: S - 1 stages are in flight
    during the compute, with one barrier per iteration. Safe means: the
    copies write the iteration's slot, `((iv - lb) floordiv step) mod S`,
    of buffers nothing else in the loop writes; every read of those buffers
    in the loop is of the same slot; and nothing else in the loop (but the
    copies' own operands) touches memory. A prologue that is not preceded by a
    barrier gets one. Otherwise the loop is pipelined as
    `transform.nvgpu.pipeline_shared_memory_copies` does (depth S, copies
    after the compute, the trailing barrier kept). A marked loop of another
    shape, or with S or fewer iterations, is an error.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
  let statistics = [
    Statistic<"numCopiesFirst", "copies-first", "Loops pipelined with their copies issued first and one barrier per stage">,
    Statistic<"numFallback", "fallback", "Loops pipelined in upstream's order (copies after the compute, two barriers)">,
  ];
}

def KFFuseElementwise : Pass<"kf-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise producers into all their consumers (recomputing them)";
  let description = [{
    Upstream's linalg-fuse-elementwise-ops fuses a producer only into its
    single consumer. For memory-bound chains the intermediate a producer
    writes costs more than recomputing it: softmax's `exp(x - max)` feeds
    both the row sum and the division, and materializing it is one extra
    write and one extra read of the whole tensor. This pass fuses every
    all-parallel `linalg.generic` producer into each consumer for which
    upstream's elementwise fusion is legal (`areElementwiseOpsFusable`),
    whatever its number of uses, except into a contraction (its body would
    stop being a multiply-add, which the GEMM kernel needs); a producer
    left without uses disappears. A named pooling op (`linalg.pooling_*`)
    that reads such a producer (its input's padded copy) is generalized
    first, so that the padding's gather fuses into its window. Schedules
    run it with `transform.apply_registered_pass "kf-fuse-elementwise"` on
    the function before tiling.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KFInterchangeToOutputOrder
    : Pass<"kf-interchange-to-output-order", "mlir::func::FuncOp"> {
  let summary = "Order an op's parallel loops as its output's dimensions, reductions last";
  let description = [{
    Schedules map the innermost parallel loop to the threads' x dimension:
    coalesced where the loops follow the operands' memory order.
    `linalg.depthwise_conv_2d_nchw_chw` iterates `(n, oh, ow, c, kh, kw)`
    over NCHW tensors, so consecutive threads would read channels a plane
    apart. For every linalg op on tensors whose output indexes each
    parallel loop once (a projected permutation) and whose full-size inputs
    vary fastest with the output's innermost loop too
    (`kf::outputOrderInterchange`), this pass generalizes the op and
    interchanges its loops into the output's order, reduction loops after
    them in their order. Ops already in that order, and transposes (an
    input and the output contiguous along different loops), are left as
    they are. Schedules run it with `transform.apply_registered_pass
    "kf-interchange-to-output-order"`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KFLinearizeBlockForalls
    : Pass<"kf-linearize-block-foralls", "mlir::func::FuncOp"> {
  let summary = "Map block foralls of linear block dimensions onto a one-dimensional grid";
  let description = [{
    The grid has three dimensions; a 5-D op (batch, channels, depth, rows,
    columns) has five parallel loops. Schedules tile such an op over blocks
    with `#gpu.block<linear_dim_k>` mappings (k counted from the innermost
    tiled loop), which MLIR 22's `transform.gpu.map_forall_to_blocks`
    linearizes wrongly: it sizes the grid from three of the loops (a
    5-D forall of 14,336 tiles got a 1x8x14 grid). This pass rewrites every
    bufferized `scf.forall` whose mapping is all linear block dimensions
    into a one-dimensional forall over the product of its trip counts,
    mapped to `#gpu.block<x>` (whose limit, 2^31-1 blocks, no suite problem
    nears), with the original indices recovered by
    `affine.delinearize_index` (linear_dim_0 fastest), so that
    `map_forall_to_blocks` then maps it as any other. Foralls with x/y/z
    mappings are left as they are. Schedules run it with
    `transform.apply_registered_pass "kf-linearize-block-foralls"` after
    bufferization.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def KFCollapseReductionDims
    : Pass<"kf-collapse-reduction-dims", "mlir::func::FuncOp"> {
  let summary = "Collapse runs of adjacent reduction dimensions of linalg.generic ops";
  let description = [{
    `transform.structured.split_reduction` splits one reduction dimension;
    a layer norm reduces over three. This pass collapses every run of two or
    more adjacent reduction loops that all indexing maps keep contiguous
    (upstream's `areDimSequencesPreserved`) into one loop, reshaping the
    operands with `tensor.collapse_shape` (upstream's
    `populateCollapseDimensions`). Schedules run it with
    `transform.apply_registered_pass "kf-collapse-reduction-dims"`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KFCollapseContractionDims
    : Pass<"kf-collapse-contraction-dims", "mlir::func::FuncOp"> {
  let summary = "Collapse a contraction's adjacent batch, M and N loops into one each";
  let description = [{
    The pipelined GEMM kernel tiles one M loop and one N loop over the
    grid, and one more loop over its z dimension. A 4-D tensor times a
    matrix (`A[b, i, j, k] * B[k, l]`) has three M loops, which A and the
    output keep adjacent and in order: they are one M loop of b*i*j rows;
    attention's batch and head loops are likewise one batch loop. For every
    contraction, this pass collapses each run of two or more batch loops,
    M loops or N loops that every indexing map keeps adjacent
    (`kf::collapsibleContractionLoops`; upstream's
    `populateCollapseDimensions`: `tensor.collapse_shape` on the operands,
    `tensor.expand_shape` on the result, views after bufferization), and
    moves the output's `linalg.fill` through the reshape so that the
    contraction keeps a fill of its own. Schedules run it as a structure
    gene before the K-outer operand copies.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KFTransposeContractionOperands
    : Pass<"kf-transpose-contraction-operands", "mlir::func::FuncOp"> {
  let summary = "Give the GEMM kernel's operands K-outer copies where their rows run along K";
  let description = [{
    The pipelined GEMM kernel stages its operand tiles in shared memory in
    the layout the operands have in global memory, then reads a column of
    TM elements of A's tile and a row of TN elements of B's tile at each k.
    An operand whose rows run along K (B as [N, K]: `A @ B.T`, and every
    `torch.nn.Linear` weight) is read down a column of its tile, with 16-way
    bank conflicts. For each contraction the GEMM kernel takes
    (`kf::analyzeContraction`) and each selected input whose last dimension
    is the K loop and whose next-to-last is its M or N loop, this pass
    inserts a `linalg.transpose` swapping those two dimensions and makes the
    contraction a `linalg.generic` that reads the copy: the transpose is a
    kernel of its own, one read and one write of the operand. Schedules run
    it as a structure gene after fusion, collapsing and decomposing.
  }];
  let options = [
    Option<"transposeA", "a", "bool", /*default=*/"false",
           "Transpose the first input (A as [M, K])">,
    Option<"transposeB", "b", "bool", /*default=*/"true",
           "Transpose the second input (B as [N, K])">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KFTransposeContractionProducts
    : Pass<"kf-transpose-contraction-products", "mlir::func::FuncOp"> {
  let summary = "Compute a short A @ B.T as the transpose of B @ A.T";
  let description = [{
    A contraction C = A B^T whose operands both have their rows along K
    (`x @ W.T`, every `torch.nn.Linear`: A as [M, K], B as [N, K]), with no
    batch loop, an M of at most `max-m` and an N of at least 16 M (so
    that the copies it adds stay small against B), becomes T = B A^T, a
    `linalg.generic` over (n, m, k) with the same body and an [N, M]
    output zeroed by its own fill, and a `linalg.transpose` of T that
    replaces C. The GEMM kernel then reads the weight B as its A, as
    given, where B's K-outer copy (kf-transpose-contraction-operands)
    would cost one read and one write of all N K elements; what gets
    copied instead is A (M K elements) and the product (M N). Schedules
    run it as the structure gene `transposeProducts` (genome key
    `"transpose_product"`), before the epilogues are fused (the
    transpose, not the contraction, is then what the epilogue reads).
  }];
  let options = [
    Option<"maxM", "max-m", "int64_t", /*default=*/"256",
           "The largest M rewritten">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KFPadContractions : Pass<"kf-pad-contractions", "mlir::func::FuncOp"> {
  let summary = "Pad contractions that no GEMM tile divides with zeros to tile multiples";
  let description = [{
    The pipelined GEMM kernel needs tiles that divide M, N and K, and
    operand rows that start 16-byte aligned. For each contraction the
    kernel could otherwise take (`kf::analyzeContraction`) whose M or N is
    not a multiple of 64 or whose K is not a multiple of 8, this pass pads
    M and N to multiples of 128 (64 below 1024) and K to a multiple of 16
    (`kf::paddedContractionLoops`): each operand whose shape changes is
    read through a zero-padding copy (a `linalg.generic` with
    `tensor.extract` at clamped indices), the contraction runs on the
    padded operands into a padded, filled output, and a `linalg.generic`
    copies the result out of the flattened product. The zero products
    leave every sum unchanged. Contractions that padding would make more
    than `max-overhead` larger (in multiply-adds) are left alone.
    Schedules run it as the structure gene `padContractions`, after the
    collapsing, epilogue and sum rewrites and before K-outer copies.
  }];
  let options = [
    Option<"maxOverhead", "max-overhead", "double", /*default=*/"0.125",
           "The largest fraction of multiply-adds the padding may add">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numPadded", "padded-contractions", "Contractions padded">,
  ];
}

def KFConvolutionToGemm
    : Pass<"kf-convolution-to-gemm", "mlir::func::FuncOp"> {
  let summary = "Compute convolutions as an explicit im2col and a GEMM";
  let description = [{
    Rewrites each `linalg.conv_1d_ncw_fcw`, `conv_2d_nchw_fchw` and
    `conv_3d_ncdhw_fcdhw` with static f32 operands
    (`kf::analyzeConvolutionGemm`) into: a `linalg.generic` gather writing
    the im2col matrix `col[(c, r...), (b, p...)]` into a tensor (zero in the
    rows and columns that pad it to the GEMM kernel's tiles); the weight as
    an `[F, C * R...]` matrix (a collapse_shape, or a zero-padded copy); a
    zero-filled `linalg.generic` contraction `out[f, m] = sum_k w[f, k] *
    col[k, m]` that the pipelined GEMM kernel computes; and an elementwise
    op adding the convolution's initial value (its bias) to the product,
    read back transposed (through an expand_shape as `[F, B, P...]`, or
    from the flattened product by a linearizing map when it is padded).
    A stride-1 convolution of a gather that inserts zeros between its
    source's elements (a transposed convolution, `kf::analyzeZeroInsertion`)
    is split by stride phase instead: the outputs `o = phase + stride * q`
    of each phase take only the taps that land on a source element, so the
    im2col matrices `col[phase, (c, t...), (b, q...)]` read the source, the
    weight rows are gathered per phase, the product is one batched GEMM,
    and no inserted zero is stored or multiplied. The im2col matrix costs
    `C * R... * B * P... * 4` bytes of global memory (per phase, with the
    phase's taps and outputs) and one write and read of it; convolutions
    whose matrix exceeds `max-column-bytes` are left alone. Schedules run
    it as the structure gene `convolutionsAsGemm` first, before elementwise
    fusion (which then fuses the bias and the
    ops after the convolution into the op that reads the product back).
  }];
  let options = [
    Option<"maxColumnBytes", "max-column-bytes", "int64_t",
           /*default=*/"kf::kDefaultMaxColumnBytes",
           "The largest im2col matrix, in bytes, the rewrite may write">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def KFFoldBlockedScans : Pass<"kf-fold-blocked-scans", "mlir::func::FuncOp"> {
  let summary = "Rewrite a scan written in blocks as one scan over the whole dimension";
  let description = [{
    A reference that must run in reasonable time writes a long scan in
    blocks (Level 1's cumsum family): on `x` expanded to `[.., J, B, ..]`,
    a masked-reduction scan within each block (T), the blocks' totals (S),
    an exclusive scan of the totals in the same direction (P), `T (+) P`
    broadcast over the block, collapsed back. This pass matches that chain
    (with the same add, mul, max or min throughout, fills of its neutral
    element, and the collapse undoing the expansion) and writes the scan it
    computes as one masked reduction over the unblocked dimension, with
    T's inclusiveness and direction, for `kf-lower-scans` to run in one
    pass. The blocked ops are erased where nothing else reads them. The
    fold runs in another order; the correctness trials judge the rounding.
    Schedules run it as the structure gene `foldScans`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numFolded", "folded-scans", "Blocked scans folded into one">,
  ];
}

def KFCommuteSumContraction
    : Pass<"kf-commute-sum-contraction", "mlir::func::FuncOp"> {
  let summary = "Compute the row sums of a GEMM's output as two matrix-vector products";
  let description = [{
    For a sum over N (a `linalg.generic` over (i, j) adding its [M, N]
    input into a zero-filled [M] output) of the output of a 2-D GEMM
    (`kf::analyzeContraction`, no batch loop), read directly or through
    one elementwise op that is affine in the GEMM's value (`a_j * c + b_j`:
    adds, subtracts, negations, multiplications and divisions by values
    independent of c; its other inputs indexed by N alone or scalars,
    computing in place or not), rewrites the sum as
    `y[i] = sum_k A[i, k] * w[k]` with `w[k] = sum_j a_j * B[j, k]`, plus
    `sum_j b_j` when the epilogue has an offset: (M + N) * K multiply-adds
    instead of M * N * K, and the GEMM's output is never formed. The GEMM,
    the epilogue and the sum are erased. The sums run in another order;
    the correctness trials judge the rounding as for any candidate.
    Schedules run it as the structure gene `commuteSums` after the
    epilogue fusion (which makes a chain of elementwise ops one op).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def KFGatherSelectedElements
    : Pass<"kf-gather-selected-elements", "mlir::func::FuncOp"> {
  let summary = "Compute a reduction output that picks the element at a given index as a gather";
  let description = [{
    An output of a `linalg.generic` with one reduction loop `d` that yields
    `select(index(d) == t, x, acc)` (`t` an input read once per output
    point, `x` an input indexed by `d`, `acc` the output's own value;
    `index(d)` is `linalg.index d` or its cast to a 64-bit integer) keeps,
    over the loop, `x` at `d = t` when `0 <= t < |d|` and its initial value
    otherwise: cross-entropy's pick of each row's logit at its target (L1-95).
    The pass computes that output as a parallel `linalg.generic` over the
    output's dimensions reading `x` at `t` with `tensor.extract`, and the
    reduction keeps its other outputs (a sum of exponentials, which then
    has one output and one combiner, as kf-distribute-reductions needs).
    The values are bitwise the same. Schedules run it as the structure gene
    `gatherSelections`, first among the rewrites.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def KFFuseContractionEpilogues
    : Pass<"kf-fuse-contraction-epilogues", "mlir::func::FuncOp"> {
  let summary = "Make the elementwise ops after a GEMM-kernel contraction one op computing in place on its result";
  let description = [{
    Elementwise `linalg.generic` ops (all loops parallel, identity output
    map, bodies of arith and math ops) that follow a contraction the GEMM
    kernel takes (`kf::analyzeContraction`), directly or through other
    such ops, are fused into their only reader when it is elementwise too
    (upstream's `fuseElementwiseOps`, confined to these ops): a chain, or
    a residual add of a stage and the value it was computed from, becomes
    one op. When the contraction's result is then read by one elementwise
    op alone, through the identity map, that op is rewritten to take the
    result as its init and read it there: the epilogue computes in
    place. The schedule tiles the epilogue over blocks and
    fuses the contraction into each tile through its destination, so the
    GEMM kernel's threads apply the epilogue to their accumulators before
    the single store (`Schedule::fuseEpilogues`). Contractions with another
    reader of their result are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KFDecomposeReductions
    : Pass<"kf-decompose-reductions", "mlir::func::FuncOp"> {
  let summary = "Split reductions over several loops into a partial and a combining reduction";
  let description = [{
    `transform.structured.split_reduction` splits one reduction loop, and
    `kf-collapse-reduction-dims` makes one loop only of reduction loops that
    every operand keeps adjacent. Batch norm over NCHW reduces over n and
    h*w with c between them: two loops remain, and one thread per channel
    sums 10^5-10^6 terms. This pass rewrites every `linalg.generic` that
    reduces over two or more loops, whose innermost reduction loop has at
    least `min-inner-range` iterations and whose body is one floating-point
    combiner with a neutral element (`arith.addf`, `mulf`, `maximumf`, ...),
    into

    - a `linalg.fill` of the neutral element,
    - a partial reduction over the innermost reduction loop only: the outer
      reduction loops become parallel and trailing dimensions of its result
      (batch norm: one partial sum per channel and sample), and
    - a reduction of those dimensions into the original output (so its
      initial value still counts).

    The partial op has one reduction loop, which a split can then divide.
    Schedules run it with `transform.apply_registered_pass
    "kf-decompose-reductions"` after collapsing. The threshold keeps it off
    reductions with short inner loops, such as a convolution's (c, kh, kw),
    whose partial results would be the size of the input.
  }];
  let options = [
    Option<"minInnerRange", "min-inner-range", "int64_t", /*default=*/"256",
           "Decompose only when the innermost reduction loop has at least "
           "this many iterations">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KFSplitSoftmaxStatistics
    : Pass<"kf-split-softmax-statistics", "mlir::func::FuncOp"> {
  let summary = "Compute a row's max and its sum of exponentials shifted by it per chunk, rescaling the chunks' sums";
  let description = [{
    A softmax (or log-softmax, or log-sum-exp) over a long row reads the
    row twice for its statistics: once for the max M, then once for
    sum(exp(x - M)), which needs M first. With rows of 1.5 MB (Level 1's
    4096 x 393216 softmax) the second read comes from DRAM again. Since
    exp(x - M) = exp(x - m_c) * exp(m_c - M) for any chunk maximum m_c,
    the statistics split into chunks that a block reads twice while they
    are still in cache:

    - m[.., c] = max over the chunk c of x, and
      s[.., c] = sum over the chunk of exp(x - m[.., c]),
      over x expanded to [.., C, K] (chunks of K elements);
    - M = max over c of m (into the original max's init), and
      S = sum over c of s[.., c] * exp(m[.., c] - M) (into the original
      sum's init), a chunk whose max is -inf contributing 0.

    The original max's uses read M and the sum's read S. Matched: a
    `linalg.generic` summing `exp(x - max)` (an `arith.addf` of a
    `math.exp` of an `arith.subf`, nothing else) over its innermost loop,
    the only reduction loop, where `x` is read through the identity map
    and `max` is the result of a `linalg.generic` taking the `arith.maximumf`
    of the same `x` over the same loop, read broadcast along it (as
    `kf-fuse-elementwise` leaves a softmax). The chunk is the largest
    divisor of the row's length between `chunk` / 2 and `chunk`; rows
    shorter than `min-chunks` chunks are left alone. The sums are
    reassociated: the correctness trials judge the rounding.
  }];
  let options = [
    Option<"chunk", "chunk", "int64_t", /*default=*/"16384",
           "Elements per chunk (at most; at least half of it)">,
    Option<"minChunks", "min-chunks", "int64_t", /*default=*/"4",
           "Split only rows of at least this many chunks">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KFWidenAccumulators : Pass<"kf-widen-accumulators", "mlir::func::FuncOp"> {
  let summary = "Accumulate f32 reductions in f64 (for the trusted reference)";
  let description = [{
    The trusted reference must be more accurate than the candidates it
    judges. A sequential f32 sum of millions of terms (a layer norm's
    variance over 4M elements) is off by about 1%, more than any sensible
    tolerance, while a candidate's split sum is accurate. This pass gives
    every `linalg.generic` reduction with an f32 accumulator an f64 one:
    the initial value is extended, the combiner (the one op that uses the
    accumulator and whose result is yielded: addf, mulf, maximumf, ...) runs
    in f64, and the result is truncated back to f32 for its users. kf-evolve
    applies it to the reference only; reductions of another shape are left
    alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numWidened", "widened-reductions", "Reductions given an f64 accumulator">,
  ];
}

def KFOutlineKernels : Pass<"kf-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Outline gpu.launch bodies into kernels, keeping the attributes a schedule gave each launch";
  let description = [{
    Runs upstream's `gpu-kernel-outlining`, which drops every attribute of
    a `gpu.launch`. A schedule that wants a kernel attribute (for example
    `nvvm.minctasm`, PTX's `.minnctapersm`, which caps the registers so
    that that many blocks fit on an SM) puts it in a dictionary attribute
    `kf.kernel_attrs` on the launch; this pass copies each entry onto the
    outlined `gpu.func`. Outlining replaces each launch in place by a
    `gpu.launch_func`, so launches and launch_funcs correspond in walk
    order.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def KFMergeKernelModules : Pass<"kf-merge-kernel-modules", "mlir::ModuleOp"> {
  let summary = "Put every outlined kernel into one gpu.module";
  let description = [{
    gpu-kernel-outlining makes one gpu.module per launch, each holding a
    kernel named after the function. This pass moves all kernels into a
    single `gpu.module @kernels`, naming each after the module it came from
    (unique by construction), and updates the launches. One module means one
    PTX file per candidate and one module load at run time.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def KFAnnotateVectorAlignment
    : Pass<"kf-annotate-vector-alignment", "mlir::gpu::GPUModuleOp"> {
  let summary = "Give vector loads and stores of kernel arguments their alignment";
  let description = [{
    Without alignment facts the NVPTX backend splits a vector<4xf32> access
    into four 32-bit accesses. kf's runtime passes every memref kernel
    argument as the start of a buffer aligned to 256 bytes, so the alignment
    of `vector.load`/`vector.store` on a kernel argument follows from the
    divisibility of its linearized offset, which this pass derives from the
    index arithmetic (constants, products, sums) and the static strides, and
    records in the op's `alignment` attribute.
  }];
  let statistics = [
    Statistic<"numAligned", "aligned-accesses", "Vector accesses given an alignment above their element's">,
  ];
}

def KFDiagnose : Pass<"kf-diagnose", "mlir::ModuleOp"> {
  let summary = "Attach a structured diagnosis to every GPU kernel";
  let description = [{
    Runs kf's kernel analyses on every kernel of the module (gpu.func
    kernels and llvm.func kernels with nvvm ops): the access pattern of each
    memory access across a warp, shared-memory footprint and bank
    conflicts, barriers, divergent branches, loops and the loads inside
    them, local memory, launch configuration and occupancy. When the module
    holds a kf.problem, the problem analysis (FLOPs, minimum bytes, roofline
    floor, fusion chances) too. Results are emitted as remarks (facts) and
    warnings (findings with a suggested action), and, with `json=FILE`, as
    the JSON document described in docs/diagnosis.md.
  }];
  let options = [
    Option<"jsonPath", "json", "std::string", /*default=*/"\"\"",
           "Also write the diagnosis as JSON to this file ('-' for stdout)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels diagnosed">,
    Statistic<"numFindings", "findings", "Findings reported">,
  ];
}

def KFPrintIndexRanges : Pass<"kf-print-index-ranges", "mlir::ModuleOp"> {
  let summary = "Remark the bytes each memory access of each kernel can reach";
  let description = [{
    The printer of kf::IndexRanges (include/kf/Analysis/IndexRanges.h), the
    analysis the cheat checks bound stores with: for every load and store of
    every kernel (gpu.func, or llvm.func with nvvm ops), a remark "reaches
    bytes [first, last] of its buffer" (offsets from the buffer's start,
    with the guards that dominate the access applied), or "reaches unknown
    bytes". Block and grid sizes come from the kernel's launches or known
    sizes.
  }];
}

def KFDetectCheats : Pass<"kf-detect-cheats", "mlir::ModuleOp"> {
  let summary = "Reject kernels that do not compute their outputs from their inputs";
  let description = [{
    Static cheat checks on every kernel of the module (gpu.func kernels and
    llvm.func kernels with nvvm ops): outputs never written, outputs that no
    input reaches (constant or zero outputs), outputs the store pattern
    provably covers only in part, writes to inputs, calls to anything but
    math functions, dynamic parallelism, device globals that keep state
    across launches, arithmetic narrower than the problem's precision, and
    memory reached through pointers not derived from the kernel's
    arguments. Roles of kernel arguments come from `kf.role` argument
    attributes or from the host launches (see docs/cheating.md). Each
    finding is an error "rejected [code]: ..." at the offending op; the pass
    fails when there is one.
  }];
  let options = [
    Option<"numInputs", "num-inputs", "int", /*default=*/"-1",
           "Host arguments below this index are inputs, the others outputs "
           "(default: from the module's kf.problem)">,
    Option<"minFloatBits", "min-float-bits", "unsigned", /*default=*/"32",
           "Floating-point arithmetic narrower than this is lower precision "
           "than the problem allows">,
    Option<"jsonPath", "json", "std::string", /*default=*/"\"\"",
           "Also write the findings as a JSON array to this file ('-' for stdout)">,
  ];
  let statistics = [
    Statistic<"numFindings", "findings", "Cheats found">,
  ];
}

def KFCheckHostCode : Pass<"kf-check-host-code", "mlir::ModuleOp"> {
  let summary = "Check that the host side of a scheduled module is a launch plan";
  let description = [{
    kf's runtime executes the host side of a lowered module itself (there is
    no CPU code generation): host functions may only allocate and free
    buffers, copy between them, reshape views, launch kernels and return.
    This pass reports any other host operation with a located error, so a
    schedule that leaves computation on the host fails early and clearly.
  }];
}

def KFCheckTarget : Pass<"kf-check-target", "mlir::ModuleOp"> {
  let summary = "Refuse, with located errors, what the NVPTX target cannot compile";
  let description = [{
    LLVM's NVPTX backend ends the whole process, without a location, when
    asked for a PTX version older than the chip ("PTX version 6.0 does not
    support target 'sm_90'"), when an instruction does not exist on the
    chip ("Cannot select: intrinsic %llvm.nvvm.wmma..." on sm_61), and, after
    a mere warning, on chips it does not know. kf-lower-to-ptx runs this
    pass first. It checks
    - the chip against the processors of the backend's subtarget table
      (read through LLVM's target registry), and the PTX version against
      the versions the backend emits and the chip's minimum;
    - the same for every #nvvm.target a gpu.module already carries;
    - every operation against the chips it will be compiled for: wmma
      (`gpu.subgroup_mma_*`, `nvvm.wmma.*`) from sm_70, ldmatrix from
      sm_75, `cp.async` (`nvgpu.device_async_*`, `nvvm.cp.async.*`),
      mbarriers and `mma.sync` from sm_80, thread block clusters (launches
      with clusters, `gpu.cluster_*`, `nvvm.cluster.*`, `mapa`) and
      `cp.async.bulk` / TMA from sm_90, wgmma on sm_90a only.
    Each refusal is an error at the operation (or, for an option, at the
    module).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The chip kf-lower-to-ptx compiles for">,
    Option<"ptxVersion", "ptx-version", "unsigned", /*default=*/"0",
           "PTX ISA version times ten; 0: the chip's default (not checked)">,
  ];
}

def KFExternDynamicSharedMemory
    : Pass<"kf-extern-dynamic-shared-memory", "mlir::gpu::GPUModuleOp"> {
  let summary = "Make the dynamic shared memory global an external declaration";
  let description = [{
    convert-gpu-to-nvvm lowers `gpu.dynamic_shared_memory` to an
    `llvm.mlir.global internal` zero-length array in address space 3. LLVM
    22's NVPTX backend emits an internal global as static storage: a
    1-byte `.shared .align 16 .b8 __dynamic_shmem__0;` that the kernel's
    static shared buffers follow, so the dynamic memory overlaps them.
    Dynamic shared memory in PTX is an external array without a size,
    `.extern .shared .align 16 .b8 NAME[];`, placed after all static
    buffers by the driver. This pass gives every zero-length array global
    in address space 3 external linkage (llvm-project PR 161940 made the
    same change for flang's CUDA lowering). Runs after convert-gpu-to-nvvm.
  }];
}

def KFSerializeKernels : Pass<"kf-serialize-kernels", "mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary, with backend crashes turned into errors";
  let description = [{
    Runs upstream's gpu-module-to-binary. The NVPTX backend reports what it
    cannot compile with report_fatal_error, which ends the process: kf-opt
    or kf-evolve would die with the candidate. This pass runs the
    serialization under an LLVM fatal-error handler and a crash recovery
    context (on a thread with a large stack), so that a backend failure
    becomes a located error on the module: that candidate fails to compile,
    the tool goes on. kf-check-target refuses the known causes earlier, with
    better messages; this is the safety net for the rest.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "isa (PTX), bin (cubin) or fatbin, as gpu-module-to-binary">,
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit path (libdevice, ptxas)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // KF_TRANSFORMS_PASSES_TD
