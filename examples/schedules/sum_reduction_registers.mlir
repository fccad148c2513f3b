// A hand-written schedule for examples/problems/sum_reduction.mlir
// (128x4096x4095, summed over dim 1): a thread per output column, 315
// consecutive columns per block (4095 = 13 x 315, so no partial tiles), and
// the reduction loop tiled by 8 and vectorized, so each step issues 8
// independent loads 4095 elements apart and the running sum stays in a
// register (transform.loop.hoist_loop_invariant_subsets) instead of going
// through the output in global memory on every step.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %ops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %fill, %red = transform.split_handle %ops : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b0, %f0 = transform.structured.tile_using_forall %fill tile_sizes [4, 64]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t0, %g0 = transform.structured.tile_using_forall %b0 num_threads [4, 64]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b1, %f1 = transform.structured.tile_using_forall %red tile_sizes [1, 0, 315]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t1, %g1 = transform.structured.tile_using_forall %b1 tile_sizes [0, 0, 1]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k, %loop = transform.structured.tile_using_for %t1 tile_sizes [0, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %vectorized = transform.structured.vectorize_children_and_apply_patterns %func : (!transform.any_op) -> !transform.any_op
    %kloop = transform.structured.match ops{["scf.for"]} in %vectorized : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %kloop : !transform.any_op
    %bufferized = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true,
        function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %bfunc = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %bfunc {
      transform.apply_patterns.memref.fold_memref_alias_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_patterns to %bfunc {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.memref.fold_memref_alias_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %foralls = transform.structured.match ops{["scf.forall"]} in %bfunc : (!transform.any_op) -> !transform.any_op
    %tf0, %bf0, %tf1, %bf1 = transform.split_handle %foralls
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %l0 = transform.gpu.map_forall_to_blocks %bf0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l0 block_dims = [64, 4, 1] : (!transform.any_op) -> !transform.any_op
    %l1 = transform.gpu.map_forall_to_blocks %bf1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l1 block_dims = [315, 1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
