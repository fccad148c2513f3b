// A schedule the search proposed for examples/problems/sum_reduction.mlir: the
// 3-D sum split 32 ways, with register steps. Lowering its kernels' vector
// operations never reached a fixpoint: before kf bounded the rewrites, the
// compile ran into the search's 30 s compile timeout (tens of minutes alone).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %sops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %s0, %s1 = transform.split_handle %sops : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %s1_init, %s1_fill, %s1_partial, %s1_combine = transform.structured.split_reduction %s1 { split_factor = 32, insert_split_dimension = 2, inner_parallel } : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %ops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %op0, %op1, %op2, %op3 = transform.split_handle %ops : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %block0, %bforall0 = transform.structured.tile_using_forall %op0 tile_sizes [4, 64] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %thread0, %tforall0 = transform.structured.tile_using_forall %block0 num_threads [4, 64] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %block1, %bforall1 = transform.structured.tile_using_forall %op1 tile_sizes [1, 4, 32] (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %thread1, %tforall1 = transform.structured.tile_using_forall %block1 num_threads [1, 4, 32] (mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %block2, %bforall2 = transform.structured.tile_using_forall %op2 tile_sizes [1, 0, 32, 1] (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %stage2, %stageloop2 = transform.structured.tile_using_for %block2 tile_sizes [0, 16, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %stage2 "kf.staged2" : !transform.any_op
    %block3, %bforall3 = transform.structured.tile_using_forall %op3 tile_sizes [64, 1, 0] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %stage3, %stageloop3 = transform.structured.tile_using_for %block3 tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %stage3 "kf.staged3" : !transform.any_op
    %bufferized = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true, function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    %staged2 = transform.structured.match attributes{kf.staged2} in %func : (!transform.any_op) -> !transform.any_op
    %promoted2 = transform.structured.promote %staged2 {operands_to_promote = [0], mapping = [#gpu.memory_space<workgroup>]} : (!transform.any_op) -> !transform.any_op
    %sthread2, %stforall2 = transform.structured.tile_using_forall %promoted2 tile_sizes [1, 0, 1, 1] (mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %sstep2, %ssteploop2 = transform.structured.tile_using_for %sthread2 tile_sizes [0, 4, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.structured.vectorize %sstep2 : !transform.any_op
    %staged3 = transform.structured.match attributes{kf.staged3} in %func : (!transform.any_op) -> !transform.any_op
    %promoted3 = transform.structured.promote %staged3 {operands_to_promote = [0], mapping = [#gpu.memory_space<workgroup>]} : (!transform.any_op) -> !transform.any_op
    %sthread3, %stforall3 = transform.structured.tile_using_forall %promoted3 tile_sizes [2, 1, 0] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %sstep3, %ssteploop3 = transform.structured.tile_using_for %sthread3 tile_sizes [0, 0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.structured.vectorize %sstep3 : !transform.any_op
    %wgallocs = transform.structured.match ops{["memref.alloc"]} in %func : (!transform.any_op) -> !transform.any_op
    %wgpadding = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.annotate %wgallocs "kf.workgroup_padding" = %wgpadding : !transform.any_op, !transform.param<i64>
    %foralls = transform.structured.match ops{["scf.forall"]} in %func : (!transform.any_op) -> !transform.any_op
    %t0, %b0, %t1, %b1, %t2, %b2, %t3, %b3 = transform.split_handle %foralls : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %launch0 = transform.gpu.map_forall_to_blocks %b0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %mapped0 = transform.gpu.map_nested_forall_to_threads %launch0 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    %launch1 = transform.gpu.map_forall_to_blocks %b1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %mapped1 = transform.gpu.map_nested_forall_to_threads %launch1 block_dims = [32, 4, 1] : (!transform.any_op) -> !transform.any_op
    %launch2 = transform.gpu.map_forall_to_blocks %b2 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %mapped2 = transform.gpu.map_nested_forall_to_threads %launch2 block_dims = [1, 32, 1] : (!transform.any_op) -> !transform.any_op
    transform.annotate %mapped2 "kf.hoist_accumulators" : !transform.any_op
    %launch3 = transform.gpu.map_forall_to_blocks %b3 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %mapped3 = transform.gpu.map_nested_forall_to_threads %launch3 block_dims = [1, 32, 1] : (!transform.any_op) -> !transform.any_op
    transform.annotate %mapped3 "kf.hoist_accumulators" : !transform.any_op
    transform.yield
  }
}
