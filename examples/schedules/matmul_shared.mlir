// A hand-written schedule for examples/problems/matmul.mlir that stages
// tiles of A and B in shared memory: 64x64 output tiles per block, a K loop
// in steps of 16 whose A (64x16) and B (16x64) tiles are promoted to
// workgroup memory (each row padded by one element against bank
// conflicts), and 16x16 threads computing 4x4 outputs each. The fill of C
// is its own kernel.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %fill_block, %fill_forall = transform.structured.tile_using_forall %fill tile_sizes [64, 64]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill_thread, %fill_tforall = transform.structured.tile_using_forall %fill_block num_threads [16, 16]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %block, %forall = transform.structured.tile_using_forall %mm tile_sizes [64, 64]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ktile, %kloop = transform.structured.tile_using_for %block tile_sizes [0, 0, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %bufferized = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true,
        function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %mm_buffers = transform.structured.match ops{["linalg.matmul"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    %promoted = transform.structured.promote %mm_buffers {operands_to_promote = [0, 1],
        mapping = [#gpu.memory_space<workgroup>]} : (!transform.any_op) -> !transform.any_op
    %shared = transform.structured.match ops{["memref.alloc"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    %padding = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.annotate %shared "kf.workgroup_padding" = %padding : !transform.any_op, !transform.param<i64>
    %thread, %tforall = transform.structured.tile_using_forall %promoted num_threads [16, 16]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    %foralls = transform.structured.match ops{["scf.forall"]} in %func : (!transform.any_op) -> !transform.any_op
    %t0, %b0, %t1, %b1 = transform.split_handle %foralls
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %launch0 = transform.gpu.map_forall_to_blocks %b0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %launch0 block_dims = [16, 16, 1] : (!transform.any_op) -> !transform.any_op
    %launch1 = transform.gpu.map_forall_to_blocks %b1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %launch1 block_dims = [16, 16, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
