// KernelBench level 1, problem 47 (Sum reduction over a dimension):
// torch.sum(x, dim=1, keepdim=True) for x of shape 128x4096x4095 fp32.
kf.problem @sum_reduction reference(@sum_reduction_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-03, rtol = 1.0e-04>)

func.func @sum_reduction_ref(%x: tensor<128x4096x4095xf32>) -> tensor<128x1x4095xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<128x4095xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<128x4095xf32>) -> tensor<128x4095xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(b, k, n) -> (b, k, n)>, affine_map<(b, k, n) -> (b, n)>],
      iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<128x4096x4095xf32>) outs(%acc : tensor<128x4095xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<128x4095xf32>
  %y = tensor.expand_shape %sum [[0], [1, 2]] output_shape [128, 1, 4095]
      : tensor<128x4095xf32> into tensor<128x1x4095xf32>
  return %y : tensor<128x1x4095xf32>
}
