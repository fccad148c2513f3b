//===- ProblemSpec.cpp - A problem's I/O contract as plain data -----------===//

#include "kf/Runtime/ProblemSpec.h"

#include "kf/Dialect/KF/KFOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <unistd.h>

using namespace mlir;

llvm::Expected<uint64_t> kf::hostBytes(const ProblemSpec &spec,
                                       unsigned outputCopies) {
  uint64_t total = 0;
  auto add = [&](const TensorSpec &tensor, StringRef kind, size_t index,
                 uint64_t copies) -> llvm::Error {
    uint64_t bytes = tensor.elementBytes();
    for (int64_t size : tensor.shape)
      if (size < 0 || __builtin_mul_overflow(bytes, (uint64_t)size, &bytes))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv("{0} {1} ({2} of shape [{3}]) is too large: its "
                          "size in bytes does not fit in 64 bits",
                          kind, index, tensor.elementType,
                          llvm::make_range(tensor.shape.begin(),
                                           tensor.shape.end()))
                .str());
    if (__builtin_mul_overflow(bytes, copies, &bytes) ||
        __builtin_add_overflow(total, bytes, &total))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("the problem's tensors are too large: their size in "
                        "bytes does not fit in 64 bits (at {0} {1})",
                        kind, index)
              .str());
    return llvm::Error::success();
  };
  for (auto [index, input] : llvm::enumerate(spec.inputs))
    if (llvm::Error error = add(input, "input", index, 1))
      return std::move(error);
  for (auto [index, output] : llvm::enumerate(spec.outputs))
    if (llvm::Error error = add(output, "output", index, outputCopies))
      return std::move(error);
  return total;
}

uint64_t kf::physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return (uint64_t)pages * (uint64_t)pageSize;
}

llvm::Error kf::checkHostMemory(const ProblemSpec &spec,
                                unsigned outputCopies, uint64_t memoryBytes,
                                StringRef what) {
  llvm::Expected<uint64_t> bytes = hostBytes(spec, outputCopies);
  if (!bytes)
    return bytes.takeError();
  if (memoryBytes && *bytes > memoryBytes / 2)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} would hold {1} bytes of the problem's tensors "
                      "(each input once, each output {2} times), more than "
                      "half of this machine's {3} bytes of memory: refused "
                      "before allocating; check a smaller instance of the "
                      "problem",
                      what, *bytes, outputCopies, memoryBytes)
            .str());
  return llvm::Error::success();
}

int64_t kf::TensorSpec::numElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

unsigned kf::TensorSpec::elementBytes() const {
  if (elementType == "f64" || elementType == "i64")
    return 8;
  if (elementType == "f32" || elementType == "i32")
    return 4;
  if (elementType == "f16" || elementType == "bf16" || elementType == "i16")
    return 2;
  return 1;
}

bool kf::TensorSpec::isFloat() const {
  return elementType[0] == 'f' || elementType == "bf16";
}

static std::string spellType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

kf::ProblemSpec kf::buildProblemSpec(ProblemOp problem) {
  ProblemSpec spec;
  spec.name = problem.getSymName().str();
  func::FuncOp reference = problem.getReferenceFunc();
  for (auto [index, type] : llvm::enumerate(reference.getArgumentTypes())) {
    auto tensor = cast<RankedTensorType>(type);
    TensorSpec input;
    input.elementType = spellType(tensor.getElementType());
    input.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    DistributionAttr distribution = problem.getInputDistribution(index);
    if (auto uniform = dyn_cast<UniformAttr>(distribution))
      input.distribution = {Distribution::Kind::Uniform, uniform.getLoValue(),
                            uniform.getHiValue()};
    else if (auto normal = dyn_cast<NormalAttr>(distribution))
      input.distribution = {Distribution::Kind::Normal, normal.getMeanValue(),
                            normal.getStdValue()};
    else if (auto range = dyn_cast<IntRangeAttr>(distribution))
      input.distribution = {Distribution::Kind::IntRange, (double)range.getLo(),
                            (double)range.getHi()};
    spec.inputs.push_back(std::move(input));
  }
  for (Type type : reference.getResultTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    TensorSpec output;
    output.elementType = spellType(tensor.getElementType());
    output.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    spec.outputs.push_back(std::move(output));
  }
  spec.atol = problem.getTolerance().getAtolValue();
  spec.rtol = problem.getTolerance().getRtolValue();
  return spec;
}

static llvm::StringRef kindName(kf::Distribution::Kind kind) {
  switch (kind) {
  case kf::Distribution::Kind::Uniform:
    return "uniform";
  case kf::Distribution::Kind::Normal:
    return "normal";
  case kf::Distribution::Kind::IntRange:
    return "int_range";
  }
  llvm_unreachable("unknown distribution");
}

static llvm::json::Value toJSON(const kf::TensorSpec &tensor) {
  return llvm::json::Object{
      {"type", tensor.elementType},
      {"shape", llvm::json::Array(tensor.shape)},
      {"distribution",
       llvm::json::Object{{"kind", kindName(tensor.distribution.kind)},
                          {"a", tensor.distribution.a},
                          {"b", tensor.distribution.b}}}};
}

static bool fromJSON(const llvm::json::Value &value, kf::TensorSpec &tensor,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  std::vector<int64_t> shape;
  if (!mapper || !mapper.map("type", tensor.elementType) ||
      !mapper.map("shape", shape))
    return false;
  tensor.shape.assign(shape.begin(), shape.end());
  const llvm::json::Object *object = value.getAsObject();
  const llvm::json::Object *distribution = object->getObject("distribution");
  if (!distribution) {
    path.field("distribution").report("expected an object");
    return false;
  }
  std::optional<llvm::StringRef> kind = distribution->getString("kind");
  if (kind == "uniform")
    tensor.distribution.kind = kf::Distribution::Kind::Uniform;
  else if (kind == "normal")
    tensor.distribution.kind = kf::Distribution::Kind::Normal;
  else if (kind == "int_range")
    tensor.distribution.kind = kf::Distribution::Kind::IntRange;
  else {
    path.field("distribution").report("unknown kind");
    return false;
  }
  tensor.distribution.a = distribution->getNumber("a").value_or(0);
  tensor.distribution.b = distribution->getNumber("b").value_or(0);
  return true;
}

llvm::json::Value kf::toJSON(const ProblemSpec &spec) {
  llvm::json::Array inputs, outputs;
  for (const TensorSpec &tensor : spec.inputs)
    inputs.push_back(::toJSON(tensor));
  for (const TensorSpec &tensor : spec.outputs)
    outputs.push_back(::toJSON(tensor));
  return llvm::json::Object{{"name", spec.name},
                            {"inputs", std::move(inputs)},
                            {"outputs", std::move(outputs)},
                            {"atol", spec.atol},
                            {"rtol", spec.rtol}};
}

bool kf::fromJSON(const llvm::json::Value &value, ProblemSpec &spec,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  if (!mapper || !mapper.map("name", spec.name) ||
      !mapper.map("atol", spec.atol) || !mapper.map("rtol", spec.rtol))
    return false;
  const llvm::json::Object *object = value.getAsObject();
  for (auto [field, list] : {std::pair{"inputs", &spec.inputs},
                             std::pair{"outputs", &spec.outputs}}) {
    const llvm::json::Array *array = object->getArray(field);
    if (!array) {
      path.field(field).report("expected an array");
      return false;
    }
    list->clear();
    for (auto [index, element] : llvm::enumerate(*array)) {
      TensorSpec tensor;
      if (!::fromJSON(element, tensor, path.field(field).index(index)))
        return false;
      list->push_back(std::move(tensor));
    }
  }
  return true;
}

std::string kf::TrivialKernel::describe() const {
  switch (kind) {
  case Kind::Zeros:
    return "zeros";
  case Kind::Constant:
    return "a constant";
  case Kind::CopyOfInput:
    return ("a copy of input " + llvm::Twine(input)).str();
  }
  llvm_unreachable("unknown trivial kernel");
}

llvm::SmallVector<kf::TrivialKernel>
kf::trivialKernels(const ProblemSpec &spec) {
  llvm::SmallVector<TrivialKernel> trivials;
  for (auto [o, output] : llvm::enumerate(spec.outputs)) {
    if (!output.isFloat())
      continue;
    trivials.push_back({TrivialKernel::Kind::Zeros, (unsigned)o});
    if (output.elementBytes() == 4)
      trivials.push_back({TrivialKernel::Kind::Constant, (unsigned)o});
    for (auto [i, input] : llvm::enumerate(spec.inputs))
      if (input.elementType == output.elementType &&
          input.bytes() == output.bytes())
        trivials.push_back(
            {TrivialKernel::Kind::CopyOfInput, (unsigned)o, (unsigned)i});
  }
  return trivials;
}

kf::TrivialKernelVerdicts::TrivialKernelVerdicts(const ProblemSpec &spec) {
  for (const TrivialKernel &kernel : trivialKernels(spec))
    verdicts.push_back({kernel});
}

std::optional<kf::TrivialKernel> kf::TrivialKernelVerdicts::degenerate() const {
  for (const Verdict &verdict : verdicts)
    if (verdict.passes && verdict.judged > 0)
      return verdict.kernel;
  return std::nullopt;
}

std::string kf::degenerateProblemMessage(const ProblemSpec &spec,
                                         const TrivialKernel &kernel) {
  return llvm::formatv(
      "the problem is degenerate: a kernel writing {0} to output {1} "
      "passes its tolerance (atol {2:e}, rtol {3:e}) on every trial with "
      "the declared input distributions, so passing it proves "
      "nothing; tighten the tolerance or widen the distributions "
      "(e.g. include negative values)",
      kernel.describe(), kernel.output, spec.atol, spec.rtol);
}

kf::Distribution kf::negate(const Distribution &distribution) {
  Distribution result = distribution;
  switch (distribution.kind) {
  case Distribution::Kind::Uniform:
    result.a = -distribution.b;
    result.b = -distribution.a;
    break;
  case Distribution::Kind::Normal:
    result.a = -distribution.a;
    break;
  case Distribution::Kind::IntRange:
    break;
  }
  return result;
}
