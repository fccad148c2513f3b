// Host code around launches, as kernel candidates and other tools leave it:
// launch_func with scalars of every width, f16 and vector constants,
// asynchronous launches, scalar and memref results, host loops, dynamic
// shapes, no host function at all.

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<16xf32>, %i: i32, %f: f32, %d: f64, %b: i1) kernel {
      gpu.return
    }
  }
  func.func @scalars(%a: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %i = arith.constant 7 : i32
    %f = arith.constant 0.5 : f32
    %d = arith.constant 0.25 : f64
    %b = arith.constant true
    %h = arith.constant 1.0 : f16
    %v = arith.constant dense<1.0> : vector<4xf32>
    %big = arith.constant 1 : i128
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %i : i32, %f : f32, %d : f64, %b : i1)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<16xf16>, %h: f16) kernel {
      gpu.return
    }
  }
  func.func @f16_argument(%a: memref<16xf16>) {
    %c1 = arith.constant 1 : index
    %h = arith.constant 1.0 : f16
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf16>, %h : f16)
    return
  }
}

// -----

func.func @async(%a: memref<16xf32>) -> i32 {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : i32
  %t = gpu.wait async
  %t2 = gpu.launch async [%t] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  gpu.wait [%t2]
  return %c0 : i32
}

// -----

func.func @host_loop(%a: memref<16x16xf16>) -> memref<16x16xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f16
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %one, %a[%i, %c0] : memref<16x16xf16>
  }
  %b = memref.alloc() : memref<16x16xf16>
  memref.copy %a, %b : memref<16x16xf16> to memref<16x16xf16>
  %cast = memref.cast %b : memref<16x16xf16> to memref<?x16xf16>
  return %b : memref<16x16xf16>
}

// -----

func.func private @only_a_declaration(memref<4xf32>)

// -----

func.func @dynamic_sizes(%a: memref<?xf32>, %n: index) {
  %b = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %b : memref<?xf32> to memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return
}

// -----

// Nested modules and a function on tensors with scalar arguments.
module {
  module @inner {
    func.func @twice(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %y = linalg.generic {
          indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
          iterator_types = ["parallel"]}
          ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %m = arith.mulf %in, %s : f32
        linalg.yield %m : f32
      } -> tensor<4xf32>
      return %y : tensor<4xf32>
    }
  }
}

// -----

// Nothing at all.
module {
}
