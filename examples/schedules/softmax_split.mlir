// A hand-written schedule for examples/problems/softmax.mlir (4096 rows of
// 393216). exp(x - max) is recomputed where it is used
// (kf-fuse-elementwise) instead of being stored, so x is read three times
// and y written once: the floor of the computation as written. Both row
// reductions are split 256 ways with the split innermost (inner_parallel):
// a block per row, thread t sums elements t, t + 256, ... (consecutive
// threads read consecutive addresses), 8 loads in flight, the running
// value in a register; then a thread per row combines its 256 partials.
// The last pass computes exp(x - max) / sum on 16-byte vectors.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %fused = transform.apply_registered_pass "kf-fuse-elementwise" to %func : (!transform.any_op) -> !transform.any_op
    %ops = transform.structured.match interface{LinalgOp} in %fused : (!transform.any_op) -> !transform.any_op
    %max_fill, %max, %sum_fill, %sum, %div = transform.split_handle %ops
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %m_init, %m_pfill, %m_partial, %m_combine = transform.structured.split_reduction %max
        { split_factor = 256, insert_split_dimension = 1, inner_parallel }
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %s_init, %s_pfill, %s_partial, %s_combine = transform.structured.split_reduction %sum
        { split_factor = 256, insert_split_dimension = 1, inner_parallel }
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)

    // Partial reductions [row, j, t] -> [row, t]: a block per row, a thread
    // per t (consecutive addresses), 8 rows of j per loop step.
    %mp_b, %mp_bf = transform.structured.tile_using_forall %m_partial tile_sizes [1, 0, 256]
        (mapping = [#gpu.block<x>, #gpu.block<y>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mpf_b, %mp_bf2 = transform.structured.fuse_into_containing_op %m_pfill into %mp_bf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mp_t, %mp_tf = transform.structured.tile_using_forall %mp_b tile_sizes [0, 0, 1]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mpf_t, %mp_tf2 = transform.structured.fuse_into_containing_op %mpf_b into %mp_tf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mp_k, %mp_loop = transform.structured.tile_using_for %mp_t tile_sizes [0, 8, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)

    %sp_b, %sp_bf = transform.structured.tile_using_forall %s_partial tile_sizes [1, 0, 256]
        (mapping = [#gpu.block<x>, #gpu.block<y>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %spf_b, %sp_bf2 = transform.structured.fuse_into_containing_op %s_pfill into %sp_bf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %sp_t, %sp_tf = transform.structured.tile_using_forall %sp_b tile_sizes [0, 0, 1]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %spf_t, %sp_tf2 = transform.structured.fuse_into_containing_op %spf_b into %sp_tf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %sp_k, %sp_loop = transform.structured.tile_using_for %sp_t tile_sizes [0, 8, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)

    // Combines [row, t] -> [row]: a thread per row, 8 partials per step.
    %mc_b, %mc_bf = transform.structured.tile_using_forall %m_combine tile_sizes [64, 0]
        (mapping = [#gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mcf_b, %mc_bf2 = transform.structured.fuse_into_containing_op %max_fill into %mc_bf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mc_t, %mc_tf = transform.structured.tile_using_forall %mc_b tile_sizes [1, 0]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mcf_t, %mc_tf2 = transform.structured.fuse_into_containing_op %mcf_b into %mc_tf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mc_k, %mc_loop = transform.structured.tile_using_for %mc_t tile_sizes [0, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)

    %sc_b, %sc_bf = transform.structured.tile_using_forall %s_combine tile_sizes [64, 0]
        (mapping = [#gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %scf_b, %sc_bf2 = transform.structured.fuse_into_containing_op %sum_fill into %sc_bf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %sc_t, %sc_tf = transform.structured.tile_using_forall %sc_b tile_sizes [1, 0]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %scf_t, %sc_tf2 = transform.structured.fuse_into_containing_op %scf_b into %sc_tf
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %sc_k, %sc_loop = transform.structured.tile_using_for %sc_t tile_sizes [0, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)

    // exp(x - max) / sum: like the vectorized relu, 4 elements per thread.
    %d_b, %d_bf = transform.structured.tile_using_forall %div tile_sizes [1, 4096]
        (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %d_t, %d_tf = transform.structured.tile_using_forall %d_b tile_sizes [0, 4]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)

    %vfunc = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %vectorized = transform.structured.vectorize_children_and_apply_patterns %vfunc : (!transform.any_op) -> !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %vectorized : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    %bufferized = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true,
        function_boundary_type_conversion = 1 : i32} : (!transform.any_op) -> !transform.any_op
    %bfunc = transform.structured.match ops{["func.func"]} in %bufferized : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %bfunc {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %foralls = transform.structured.match ops{["scf.forall"]} in %bfunc : (!transform.any_op) -> !transform.any_op
    %t0, %b0, %t1, %b1, %t2, %b2, %t3, %b3, %t4, %b4 = transform.split_handle %foralls
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
                                  !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %l0 = transform.gpu.map_forall_to_blocks %b0 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l0 block_dims = [256, 1, 1] : (!transform.any_op) -> !transform.any_op
    %l1 = transform.gpu.map_forall_to_blocks %b1 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l1 block_dims = [64, 1, 1] : (!transform.any_op) -> !transform.any_op
    %l2 = transform.gpu.map_forall_to_blocks %b2 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l2 block_dims = [256, 1, 1] : (!transform.any_op) -> !transform.any_op
    %l3 = transform.gpu.map_forall_to_blocks %b3 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l3 block_dims = [64, 1, 1] : (!transform.any_op) -> !transform.any_op
    %l4 = transform.gpu.map_forall_to_blocks %b4 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %l4 block_dims = [1024, 1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
