// A deliberately wrong schedule for sum_reduction: it splits the reduction
// loop over threads that all accumulate into the same outputs without
// synchronization (a data race: updates get lost).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %red = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %fb, %ff = transform.structured.tile_using_forall %fill tile_sizes [1, 64] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ft, %fft = transform.structured.tile_using_forall %fb num_threads [0, 64] (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %rb, %rf = transform.structured.tile_using_forall %red tile_sizes [1, 0, 64] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %rt, %rft = transform.structured.tile_using_forall %rb num_threads [0, 8, 64] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true, function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
    %foralls = transform.structured.match ops{["scf.forall"]} in %func : (!transform.any_op) -> !transform.any_op
    %t0, %b0, %t1, %b1 = transform.split_handle %foralls : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %l0 = transform.gpu.map_forall_to_blocks %b0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l0 block_dims = [64, 1, 1] : (!transform.any_op) -> !transform.any_op
    %l1 = transform.gpu.map_forall_to_blocks %b1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l1 block_dims = [64, 8, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
