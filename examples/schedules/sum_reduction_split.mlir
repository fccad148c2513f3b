// A hand-written schedule for examples/problems/sum_reduction.mlir (and its
// small version): the reduction over dim 1 is split 16 ways
// (transform.structured.split_reduction), so 16 times more threads each sum
// a sixteenth of the column into a partial, and a second kernel adds the 16
// partials. Every op is then mapped like the default schedule: x along the
// contiguous dimension (64 wide), y along the next (4), z along the third.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %red = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %partial_fill, %partial, %combine = transform.structured.split_reduction %red
        { split_factor = 16, insert_split_dimension = 1 }
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %ops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    // In order: the output fill, the partials' fill, the partial sums, the combine.
    %fill, %pfill, %psum, %comb = transform.split_handle %ops
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    // Output fill [b, n] and combine [b, s, n] (s reduced): blocks of 4 x 64.
    %b0, %f0 = transform.structured.tile_using_forall %fill tile_sizes [4, 64]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t0, %g0 = transform.structured.tile_using_forall %b0 num_threads [4, 64]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // Partials' fill [b, s, n]: blocks of 1 x 4 x 64.
    %b1, %f1 = transform.structured.tile_using_forall %pfill tile_sizes [1, 4, 64]
        (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t1, %g1 = transform.structured.tile_using_forall %b1 num_threads [0, 4, 64]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // Partial sums [b, s, k', n] (k' reduced): blocks of 1 x 4 x 64 outputs.
    %b2, %f2 = transform.structured.tile_using_forall %psum tile_sizes [1, 4, 0, 64]
        (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %g2 = transform.structured.tile_using_forall %b2 num_threads [0, 4, 0, 64]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b3, %f3 = transform.structured.tile_using_forall %comb tile_sizes [4, 0, 64]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t3, %g3 = transform.structured.tile_using_forall %b3 num_threads [4, 0, 64]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %bufferized = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true,
        function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    %foralls = transform.structured.match ops{["scf.forall"]} in %func : (!transform.any_op) -> !transform.any_op
    %tf0, %bf0, %tf1, %bf1, %tf2, %bf2, %tf3, %bf3 = transform.split_handle %foralls
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
                                  !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %l0 = transform.gpu.map_forall_to_blocks %bf0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l0 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    %l1 = transform.gpu.map_forall_to_blocks %bf1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l1 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    %l2 = transform.gpu.map_forall_to_blocks %bf2 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l2 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    %l3 = transform.gpu.map_forall_to_blocks %bf3 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l3 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
