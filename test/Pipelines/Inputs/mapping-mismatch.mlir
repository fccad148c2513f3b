// The sum schedule with a one-entry mapping for a three-dimension tiling:
// LLVM 22's map_forall_to_blocks crashes on the forall this builds.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %ops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %fill, %red = transform.split_handle %ops : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %init, %pfill, %partial, %combine = transform.structured.split_reduction %red
        { split_factor = 8, insert_split_dimension = 1 }
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    // Partial sums [b, s, k', n] -> [b, s, n].
    %pb, %pbf = transform.structured.tile_using_forall %partial tile_sizes [1, 1, 0, 819]
        (mapping = [#gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %pfb, %pbf2 = transform.structured.fuse_into_containing_op %pfill into %pbf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %pt, %ptf = transform.structured.tile_using_forall %pb tile_sizes [0, 0, 0, 1]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %pft, %ptf2 = transform.structured.fuse_into_containing_op %pfb into %ptf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %pk, %ploop = transform.structured.tile_using_for %pt tile_sizes [0, 0, 8, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // Combine [b, s, n] -> [b, n]: a thread per output adds its 8 partials.
    %cb, %cbf = transform.structured.tile_using_forall %combine tile_sizes [1, 0, 819]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %cfb, %cbf2 = transform.structured.fuse_into_containing_op %fill into %cbf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ct, %ctf = transform.structured.tile_using_forall %cb tile_sizes [0, 0, 1]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %cft, %ctf2 = transform.structured.fuse_into_containing_op %cfb into %ctf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %vectorized = transform.structured.vectorize_children_and_apply_patterns %func : (!transform.any_op) -> !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %vectorized : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    %bufferized = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true,
        function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %bfunc = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    // No fold_memref_alias_ops: in LLVM 22 it folds the expand_shape of the
    // split into multi-dimensional transfer_reads with the wrong dimensions.
    transform.apply_patterns to %bfunc {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %foralls = transform.structured.match ops{["scf.forall"]} in %bfunc : (!transform.any_op) -> !transform.any_op
    %t0, %b0, %t1, %b1 = transform.split_handle %foralls
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %l0 = transform.gpu.map_forall_to_blocks %b0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l0 block_dims = [819, 1, 1] : (!transform.any_op) -> !transform.any_op
    %l1 = transform.gpu.map_forall_to_blocks %b1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l1 block_dims = [819, 1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
