//===- RuntimeKernels.cpp - kf's own GPU kernels --------------------------===//

#include "kf/Runtime/RuntimeKernels.h"
#include "kf/Runtime/ProblemSpec.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <array>
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace kf;

ArrayRef<StringRef> kf::runtimeElementTypes() {
  static const StringRef types[] = {"f32", "f16", "bf16", "f64", "i1",
                                    "i8",  "i16", "i32",  "i64"};
  return types;
}

std::string kf::runtimeKernelName(StringRef operation, StringRef elementType) {
  return (operation + "_" + elementType).str();
}

uint64_t kf::splitMix64(uint64_t index, uint64_t seed) {
  uint64_t z = index + seed * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string kf::drawOnHost(const TensorSpec &tensor, uint64_t seed) {
  int64_t n = tensor.numElements();
  unsigned width = tensor.elementBytes();
  std::string bytes(n * width, '\0');
  StringRef type = tensor.elementType;
  const Distribution &distribution = tensor.distribution;
  auto storeFloat = [&](int64_t i, double value) {
    if (type == "f64") {
      std::memcpy(&bytes[i * 8], &value, 8);
    } else if (type == "f32") {
      float narrow = (float)value;
      std::memcpy(&bytes[i * 4], &narrow, 4);
    } else {
      // arith.truncf rounds to nearest even, as APFloat does.
      llvm::APFloat narrow(value);
      bool losesInfo;
      narrow.convert(type == "f16" ? llvm::APFloat::IEEEhalf()
                                   : llvm::APFloat::BFloat(),
                     llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      uint16_t bits = narrow.bitcastToAPInt().getZExtValue();
      std::memcpy(&bytes[i * 2], &bits, 2);
    }
  };
  for (int64_t i = 0; i < n; ++i) {
    uint64_t h = splitMix64(i, seed);
    switch (distribution.kind) {
    case Distribution::Kind::Uniform: {
      double u = (double)(h >> 40) * 5.9604644775390625E-8;
      storeFloat(i, distribution.a + u * (distribution.b - distribution.a));
      break;
    }
    case Distribution::Kind::Normal: {
      // Box-Muller in f32, as fill_normal_T computes it.
      float u1 = ((float)(h >> 40) + 1.0f) * 5.96046448E-8f;
      float u2 = (float)(h & 16777215) * 5.96046448E-8f;
      float r = std::sqrt(std::log(u1) * -2.0f);
      float z = r * std::cos(u2 * 6.28318548f);
      storeFloat(i, distribution.a + (double)z * distribution.b);
      break;
    }
    case Distribution::Kind::IntRange: {
      auto span = (uint64_t)(int64_t)(distribution.b - distribution.a);
      int64_t value = (int64_t)distribution.a + (int64_t)((h >> 1) % span);
      // arith.trunci keeps the low bytes (i1: the low bit).
      if (type == "i1")
        value &= 1;
      std::memcpy(&bytes[i * width], &value, width);
      break;
    }
    }
  }
  return bytes;
}

namespace {

/// Replaces every `{KEY}` in `text`.
std::string substitute(StringRef text,
                       ArrayRef<std::pair<StringRef, std::string>> values) {
  std::string result = text.str();
  for (const auto &[key, value] : values) {
    std::string marker = ("{" + key + "}").str();
    size_t pos = 0;
    while ((pos = result.find(marker, pos)) != std::string::npos) {
      result.replace(pos, marker.size(), value);
      pos += value.size();
    }
  }
  return result;
}

// The grid-stride prologue and the SplitMix64 hash of (index, seed), as in
// kf::splitMix64. Defines %i64 (the index as i64) and %h (the hash).
constexpr StringLiteral kHash = R"mlir(
        %i64 = arith.index_cast %i : index to i64
        %g = arith.constant -7046029254386353131 : i64
        %sg = arith.muli %seed, %g : i64
        %x0 = arith.addi %i64, %sg : i64
        %z0 = arith.addi %x0, %g : i64
        %c30 = arith.constant 30 : i64
        %c27 = arith.constant 27 : i64
        %c31 = arith.constant 31 : i64
        %m1 = arith.constant -4658895280553007687 : i64
        %m2 = arith.constant -7723592293110705685 : i64
        %s1 = arith.shrui %z0, %c30 : i64
        %x1 = arith.xori %z0, %s1 : i64
        %z1 = arith.muli %x1, %m1 : i64
        %s2 = arith.shrui %z1, %c27 : i64
        %x2 = arith.xori %z1, %s2 : i64
        %z2 = arith.muli %x2, %m2 : i64
        %s3 = arith.shrui %z2, %c31 : i64
        %h = arith.xori %z2, %s3 : i64
)mlir";

constexpr StringLiteral kLoopBegin = R"mlir(
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %gdim = gpu.grid_dim x
      %first = arith.muli %bid, %bdim : index
      %start = arith.addi %first, %tid : index
      %stride = arith.muli %bdim, %gdim : index
      %count = arith.index_cast %n : i64 to index
)mlir";

// Uniform in [lo, hi) from the top 24 bits (exact in f32).
constexpr StringLiteral kFillUniform = R"mlir(
    gpu.func @fill_uniform_{T}(%out: memref<?x{T}>, %n: i64, %seed: i64, %lo: f64, %hi: f64) kernel {
{LOOP}
      %span = arith.subf %hi, %lo : f64
      scf.for %i = %start to %count step %stride {
{HASH}
        %c40 = arith.constant 40 : i64
        %bits = arith.shrui %h, %c40 : i64
        %bf = arith.uitofp %bits : i64 to f64
        %scale = arith.constant 5.9604644775390625E-8 : f64
        %u = arith.mulf %bf, %scale : f64
        %su = arith.mulf %u, %span : f64
        %v64 = arith.addf %lo, %su : f64
{FROM_F64}
        memref.store {V}, %out[%i] : memref<?x{T}>
      }
      gpu.return
    }
)mlir";

// Heavy tails for a float buffer already filled: one element in 64 (chosen
// by the hash of its index and the seed) is multiplied by `factor`.
constexpr StringLiteral kScaleOutliers = R"mlir(
    gpu.func @scale_outliers_{T}(%out: memref<?x{T}>, %n: i64, %seed: i64, %factor: f64) kernel {
{LOOP}
      scf.for %i = %start to %count step %stride {
{HASH}
        %c63 = arith.constant 63 : i64
        %zero = arith.constant 0 : i64
        %low = arith.andi %h, %c63 : i64
        %pick = arith.cmpi eq, %low, %zero : i64
        scf.if %pick {
          %old = memref.load %out[%i] : memref<?x{T}>
{TO_F64}
          %v64 = arith.mulf %o64, %factor : f64
{FROM_F64}
          memref.store {V}, %out[%i] : memref<?x{T}>
        }
      }
      gpu.return
    }
)mlir";

// Box-Muller from two 24-bit uniforms: u1 in (0, 1], u2 in [0, 1).
constexpr StringLiteral kFillNormal = R"mlir(
    gpu.func @fill_normal_{T}(%out: memref<?x{T}>, %n: i64, %seed: i64, %mean: f64, %std: f64) kernel {
{LOOP}
      scf.for %i = %start to %count step %stride {
{HASH}
        %c40 = arith.constant 40 : i64
        %mask = arith.constant 16777215 : i64
        %b1 = arith.shrui %h, %c40 : i64
        %b2 = arith.andi %h, %mask : i64
        %one = arith.constant 1.0 : f32
        %scale = arith.constant 5.96046448E-8 : f32
        %f1 = arith.uitofp %b1 : i64 to f32
        %f1p = arith.addf %f1, %one : f32
        %u1 = arith.mulf %f1p, %scale : f32
        %f2 = arith.uitofp %b2 : i64 to f32
        %u2 = arith.mulf %f2, %scale : f32
        %lg = math.log %u1 : f32
        %minus2 = arith.constant -2.0 : f32
        %r2 = arith.mulf %lg, %minus2 : f32
        %r = math.sqrt %r2 : f32
        %tau = arith.constant 6.28318548 : f32
        %a = arith.mulf %u2, %tau : f32
        %c = math.cos %a : f32
        %z32 = arith.mulf %r, %c : f32
        %z = arith.extf %z32 : f32 to f64
        %sz = arith.mulf %z, %std : f64
        %v64 = arith.addf %mean, %sz : f64
{FROM_F64}
        memref.store {V}, %out[%i] : memref<?x{T}>
      }
      gpu.return
    }
)mlir";

// Integers uniform in [lo, lo + span).
constexpr StringLiteral kFillInt = R"mlir(
    gpu.func @fill_int_{T}(%out: memref<?x{T}>, %n: i64, %seed: i64, %lo: i64, %span: i64) kernel {
{LOOP}
      scf.for %i = %start to %count step %stride {
{HASH}
        %c1 = arith.constant 1 : i64
        %pos = arith.shrui %h, %c1 : i64
        %off = arith.remui %pos, %span : i64
        %v64 = arith.addi %lo, %off : i64
{FROM_I64}
        memref.store {V}, %out[%i] : memref<?x{T}>
      }
      gpu.return
    }
)mlir";

// |out - ref| <= atol + rtol * |ref|, in f64; NaN matches only NaN, and
// equal values (infinities included) always match.
constexpr StringLiteral kCompare = R"mlir(
    gpu.func @compare_{T}(%out: memref<?x{T}>, %ref: memref<?x{T}>, %n: i64, %atol: f64, %rtol: f64, %stats: memref<?xi64>) kernel {
{LOOP}
      %zero = arith.constant 0 : i64
      %fzero = arith.constant 0.0 : f64
      %res:4 = scf.for %i = %start to %count step %stride
          iter_args(%bad = %zero, %firstbad = %n, %maxabs = %fzero, %maxrel = %fzero) -> (i64, i64, f64, f64) {
        %ot = memref.load %out[%i] : memref<?x{T}>
        %rt = memref.load %ref[%i] : memref<?x{T}>
{TO_F64_O}
{TO_F64_R}
        %onan = arith.cmpf uno, %o, %o : f64
        %rnan = arith.cmpf uno, %r, %r : f64
        %eq = arith.cmpf oeq, %o, %r : f64
        %diff = arith.subf %o, %r : f64
        %abs = math.absf %diff : f64
        %rabs = math.absf %r : f64
        %rt1 = arith.mulf %rtol, %rabs : f64
        %tol = arith.addf %atol, %rt1 : f64
        %within = arith.cmpf ole, %abs, %tol : f64
        %close = arith.ori %eq, %within : i1
        %bothnan = arith.andi %onan, %rnan : i1
        %ok = arith.ori %close, %bothnan : i1
        %true = arith.constant true
        %isbad = arith.xori %ok, %true : i1
        %one = arith.constant 1 : i64
        %inc = arith.select %isbad, %one, %zero : i64
        %bad2 = arith.addi %bad, %inc : i64
        %i64 = arith.index_cast %i : index to i64
        %cand = arith.select %isbad, %i64, %n : i64
        %first2 = arith.minsi %firstbad, %cand : i64
        %absok = arith.cmpf oge, %abs, %fzero : f64
        %abs2 = arith.select %absok, %abs, %fzero : f64
        %maxabs2 = arith.maxnumf %maxabs, %abs2 : f64
        // Relative errors only where the reference is not zero.
        %rnonzero = arith.cmpf ogt, %rabs, %fzero : f64
        %rel = arith.divf %abs2, %rabs : f64
        %relok = arith.cmpf oge, %rel, %fzero : f64
        %relkeep = arith.andi %relok, %rnonzero : i1
        %rel2 = arith.select %relkeep, %rel, %fzero : f64
        %maxrel2 = arith.maxnumf %maxrel, %rel2 : f64
        scf.yield %bad2, %first2, %maxabs2, %maxrel2 : i64, i64, f64, f64
      }
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %a0 = memref.atomic_rmw addi %res#0, %stats[%c0] : (i64, memref<?xi64>) -> i64
      %a1 = memref.atomic_rmw mins %res#1, %stats[%c1] : (i64, memref<?xi64>) -> i64
      // Non-negative doubles order like their bit patterns.
      %absbits = arith.bitcast %res#2 : f64 to i64
      %relbits = arith.bitcast %res#3 : f64 to i64
      %a2 = memref.atomic_rmw maxs %absbits, %stats[%c2] : (i64, memref<?xi64>) -> i64
      %a3 = memref.atomic_rmw maxs %relbits, %stats[%c3] : (i64, memref<?xi64>) -> i64
      gpu.return
    }
)mlir";

constexpr StringLiteral kCountDiff = R"mlir(
    gpu.func @count_diff_i32(%a: memref<?xi32>, %b: memref<?xi32>, %n: i64, %stats: memref<?xi64>) kernel {
{LOOP}
      %zero = arith.constant 0 : i64
      %one = arith.constant 1 : i64
      %res = scf.for %i = %start to %count step %stride iter_args(%acc = %zero) -> (i64) {
        %x = memref.load %a[%i] : memref<?xi32>
        %y = memref.load %b[%i] : memref<?xi32>
        %ne = arith.cmpi ne, %x, %y : i32
        %inc = arith.select %ne, %one, %zero : i64
        %acc2 = arith.addi %acc, %inc : i64
        scf.yield %acc2 : i64
      }
      %c0 = arith.constant 0 : index
      %r = memref.atomic_rmw addi %res, %stats[%c0] : (i64, memref<?xi64>) -> i64
      gpu.return
    }
)mlir";

bool isFloatType(StringRef type) {
  return type.starts_with("f") || type == "bf16";
}

/// MLIR that converts %{name}t of `type` to %{name} (f64).
std::string toF64(StringRef type, StringRef name) {
  std::string in = ("%" + name + "t").str(), out = ("%" + name).str();
  if (type == "f64")
    return "        " + out + " = arith.addf " + in + ", %fzero : f64\n";
  if (isFloatType(type))
    return "        " + out + " = arith.extf " + in + " : " + type.str() +
           " to f64\n";
  if (type == "i1")
    return "        " + out + " = arith.uitofp " + in + " : i1 to f64\n";
  return "        " + out + " = arith.sitofp " + in + " : " + type.str() +
         " to f64\n";
}

} // namespace

std::string kf::runtimeKernelsSource() {
  std::string body;
  std::string loop = kLoopBegin.str(), hash = kHash.str();
  for (StringRef type : runtimeElementTypes()) {
    // Values are computed in 64 bits and narrowed to the element type.
    bool wide = type == "f64" || type == "i64";
    std::string value = wide ? "%v64" : "%v";
    if (isFloatType(type)) {
      std::string convert =
          wide ? ""
               : ("        %v = arith.truncf %v64 : f64 to " + type + "\n")
                     .str();
      for (StringRef text : {StringRef(kFillUniform), StringRef(kFillNormal)})
        body += substitute(text, {{"T", type.str()},
                                  {"LOOP", loop},
                                  {"HASH", hash},
                                  {"FROM_F64", convert},
                                  {"V", value}});
      std::string toF64 =
          // x + -0.0 is x exactly: the f64 kernel's "conversion".
          wide ? "          %negzero = arith.constant -0.0 : f64\n"
                 "          %o64 = arith.addf %old, %negzero : f64\n"
               : ("          %o64 = arith.extf %old : " + type + " to f64\n")
                     .str();
      body += substitute(kScaleOutliers, {{"T", type.str()},
                                          {"LOOP", loop},
                                          {"HASH", hash},
                                          {"TO_F64", toF64},
                                          {"FROM_F64", convert},
                                          {"V", value}});
    } else {
      std::string convert =
          wide ? ""
               : ("        %v = arith.trunci %v64 : i64 to " + type + "\n")
                     .str();
      body += substitute(kFillInt, {{"T", type.str()},
                                    {"LOOP", loop},
                                    {"HASH", hash},
                                    {"FROM_I64", convert},
                                    {"V", value}});
    }
    body += substitute(kCompare, {{"T", type.str()},
                                  {"LOOP", loop},
                                  {"TO_F64_O", toF64(type, "o")},
                                  {"TO_F64_R", toF64(type, "r")}});
  }
  body += substitute(kCountDiff, {{"LOOP", loop}});
  return "module attributes {gpu.container_module} {\n"
         "  gpu.module @kf_runtime {\n" +
         body + "  }\n}\n";
}
