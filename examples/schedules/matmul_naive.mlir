// The naive mapping of examples/problems/matmul.mlir, as the trusted
// reference runs it (kf::DefaultSchedule::Naive): the fill and the matmul
// are two kernels of 64x4 threads, each thread computing one output with a
// sequential K loop that accumulates through memory. The default schedule
// of a candidate is the pipelined GEMM kernel instead.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %ops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %fill, %mm = transform.split_handle %ops : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill_block, %fill_forall = transform.structured.tile_using_forall %fill tile_sizes [4, 64]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill_thread, %fill_tforall = transform.structured.tile_using_forall %fill_block num_threads [4, 64]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %block, %forall = transform.structured.tile_using_forall %mm tile_sizes [4, 64, 0]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %thread, %tforall = transform.structured.tile_using_forall %block num_threads [4, 64, 0]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %bufferized = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true,
        function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    %foralls = transform.structured.match ops{["scf.forall"]} in %func : (!transform.any_op) -> !transform.any_op
    %t0, %b0, %t1, %b1 = transform.split_handle %foralls
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %launch0 = transform.gpu.map_forall_to_blocks %b0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %mapped0 = transform.gpu.map_nested_forall_to_threads %launch0 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    %launch1 = transform.gpu.map_forall_to_blocks %b1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %mapped1 = transform.gpu.map_nested_forall_to_threads %launch1 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
