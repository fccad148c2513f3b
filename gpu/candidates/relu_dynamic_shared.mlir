// A correct candidate for examples/small/relu.mlir that stages every value
// through 100 KB of dynamic shared memory (above the 48 KB a kernel gets
// without opting in: the runtime must set
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) and a static shared
// buffer beside it. Each thread writes x to the static buffer, -x to the
// start of the dynamic buffer and x near its end (byte 98304); after a
// barrier it reads the three values of the mirrored thread and stores
// relu(a + b + c), which is relu(x) exactly only when the three locations
// are distinct. Were the dynamic buffer laid over the static one (LLVM 22
// without kf-extern-dynamic-shared-memory), a and b would share a location
// and the result would be wrong; were the opt-in missing, the launch would
// fail.
module {
  func.func @relu_dynamic_shared(%x: memref<64x1000xf32>,
                                 %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %bytes = arith.constant 102400 : i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %bytes
               workgroup(%static : memref<1000xf32, #gpu.address_space<workgroup>>) {
      %c0 = arith.constant 0 : index
      %c999 = arith.constant 999 : index
      %high_offset = arith.constant 98304 : index
      %zero = arith.constant 0.0 : f32
      %dynamic = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %low = memref.view %dynamic[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1000xf32, #gpu.address_space<workgroup>>
      %high = memref.view %dynamic[%high_offset][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1000xf32, #gpu.address_space<workgroup>>
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %neg = arith.negf %v : f32
      memref.store %v, %static[%tx] : memref<1000xf32, #gpu.address_space<workgroup>>
      memref.store %neg, %low[%tx] : memref<1000xf32, #gpu.address_space<workgroup>>
      memref.store %v, %high[%tx] : memref<1000xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %mirror = arith.subi %c999, %tx : index
      %a = memref.load %static[%mirror] : memref<1000xf32, #gpu.address_space<workgroup>>
      %b = memref.load %low[%mirror] : memref<1000xf32, #gpu.address_space<workgroup>>
      %c = memref.load %high[%mirror] : memref<1000xf32, #gpu.address_space<workgroup>>
      %ab = arith.addf %a, %b : f32
      %abc = arith.addf %ab, %c : f32
      %r = arith.maximumf %abc, %zero : f32
      memref.store %r, %y[%bx, %mirror] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
