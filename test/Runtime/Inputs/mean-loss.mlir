// A scalar output: the mean of 4096 draws from U(-1, 3) is about 1 on
// every trial. Under rtol 0.05 a kernel writing one fixed value passes
// (degenerate); check-problem.test tightens the tolerance with sed.
kf.problem @mean_loss reference(@mean_loss_ref)
    inputs([#kf.uniform<-1.0, 3.0>])
    tolerance(<atol = 0.0, rtol = 0.05>)

func.func @mean_loss_ref(%x: tensor<4096xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 4096.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
      iterator_types = ["reduction"]}
      ins(%x : tensor<4096xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %mean = linalg.generic {
      indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
      iterator_types = []}
      ins(%sum : tensor<f32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %n : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %mean : tensor<f32>
}
