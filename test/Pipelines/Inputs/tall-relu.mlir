// A ReLU over 262,144 rows of 16: a tall op whose rows, one block each,
// are more than the 65,535 blocks the grid's y takes.
kf.problem @tall_relu reference(@tall_relu_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 0.0, rtol = 0.0>)

func.func @tall_relu_ref(%x: tensor<262144x16xf32>) -> tensor<262144x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<262144x16xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<262144x16xf32>) outs(%init : tensor<262144x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<262144x16xf32>
  return %y : tensor<262144x16xf32>
}
