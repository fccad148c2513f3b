//===- CudaLaunch.cpp - Launch plans bind CUDA kernels to problems --------===//

#include "kf/Import/CudaLaunch.h"

#include "kf/Runtime/RuntimeKernels.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir;
using llvm::Expected;
using llvm::StringRef;

namespace {

llvm::Error planError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Recursive descent over
///   expr   := term (('+' | '-') term)*
///   term   := factor (('*' | '/' | '%') factor)*
///   factor := integer | name | name '(' expr ',' expr ')' | '(' expr ')'
///           | '-' factor
/// Written by hand: a dozen lines of grammar, and the error must say which
/// name is unknown and what is known.
class ExpressionParser {
public:
  ExpressionParser(StringRef text, const llvm::StringMap<int64_t> &symbols)
      : text(text), symbols(symbols) {}

  Expected<int64_t> parse() {
    Expected<int64_t> value = parseSum();
    if (!value)
      return value;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected '" + text.substr(pos, 1) + "'");
    return value;
  }

private:
  llvm::Error fail(const llvm::Twine &message) {
    return planError("in '" + text + "' at column " + llvm::Twine(pos + 1) +
                     ": " + message);
  }
  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  Expected<int64_t> parseSum() {
    Expected<int64_t> left = parseProduct();
    if (!left)
      return left;
    int64_t value = *left;
    while (true) {
      bool plus = consume('+');
      if (!plus && !consume('-'))
        return value;
      Expected<int64_t> right = parseProduct();
      if (!right)
        return right;
      if (plus ? llvm::AddOverflow(value, *right, value)
               : llvm::SubOverflow(value, *right, value))
        return overflow();
    }
  }

  Expected<int64_t> parseProduct() {
    Expected<int64_t> left = parseFactor();
    if (!left)
      return left;
    int64_t value = *left;
    while (true) {
      char op = 0;
      for (char c : {'*', '/', '%'})
        if (consume(c)) {
          op = c;
          break;
        }
      if (!op)
        return value;
      Expected<int64_t> right = parseFactor();
      if (!right)
        return right;
      if (op == '*') {
        if (llvm::MulOverflow(value, *right, value))
          return overflow();
        continue;
      }
      if (*right <= 0 || value < 0)
        return fail("division of " + llvm::Twine(value) + " by " +
                    llvm::Twine(*right) +
                    ": only non-negative operands and positive divisors");
      value = op == '/' ? value / *right : value % *right;
    }
  }

  Expected<int64_t> parseFactor() {
    skipSpace();
    // Nesting is bounded: a plan is small, and recursion must not run out
    // of stack on a hostile one.
    if (++depth > 256)
      return fail("nested too deeply");
    auto leave = llvm::make_scope_exit([&] { --depth; });
    if (consume('-')) {
      Expected<int64_t> value = parseFactor();
      if (!value)
        return value;
      if (*value == std::numeric_limits<int64_t>::min())
        return overflow();
      return -*value;
    }
    if (consume('(')) {
      Expected<int64_t> value = parseSum();
      if (!value)
        return value;
      if (!consume(')'))
        return fail("expected ')'");
      return value;
    }
    if (pos < text.size() && llvm::isDigit(text[pos])) {
      size_t start = pos;
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.slice(start, pos).getAsInteger(10, value))
        return fail("integer out of range");
      return value;
    }
    if (pos < text.size() && (llvm::isAlpha(text[pos]) || text[pos] == '_')) {
      size_t start = pos;
      while (pos < text.size() &&
             (llvm::isAlnum(text[pos]) || text[pos] == '_' || text[pos] == '.'))
        ++pos;
      StringRef name = text.slice(start, pos);
      if (consume('('))
        return parseCall(name);
      auto it = symbols.find(name);
      if (it == symbols.end()) {
        std::vector<std::string> known;
        for (const auto &entry : symbols)
          known.push_back(entry.getKey().str());
        llvm::sort(known);
        return fail("unknown name '" + name +
                    "' (known: " + llvm::join(known, ", ") + ")");
      }
      return it->second;
    }
    if (pos == text.size())
      return fail("expression ends early");
    return fail("unexpected '" + text.substr(pos, 1) + "'");
  }

  Expected<int64_t> parseCall(StringRef name) {
    if (name != "ceildiv" && name != "min" && name != "max")
      return fail("unknown function '" + name + "' (known: ceildiv, min, max)");
    Expected<int64_t> a = parseSum();
    if (!a)
      return a;
    if (!consume(','))
      return fail("expected ',' in " + name + "(a, b)");
    Expected<int64_t> b = parseSum();
    if (!b)
      return b;
    if (!consume(')'))
      return fail("expected ')' after " + name + "(a, b");
    if (name == "min")
      return std::min(*a, *b);
    if (name == "max")
      return std::max(*a, *b);
    if (*b <= 0 || *a < 0)
      return fail("ceildiv needs a non-negative dividend and a positive "
                  "divisor");
    return *a / *b + (*a % *b != 0);
  }

  llvm::Error overflow() { return fail("overflows 64-bit integers"); }

  StringRef text;
  const llvm::StringMap<int64_t> &symbols;
  size_t pos = 0;
  unsigned depth = 0;
};

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// An expression given as a JSON string or integer.
std::optional<std::string> expressionOf(const llvm::json::Value &value) {
  if (std::optional<StringRef> text = value.getAsString())
    return text->str();
  if (std::optional<int64_t> number = value.getAsInteger())
    return std::to_string(*number);
  return std::nullopt;
}

llvm::Error checkKeys(const llvm::json::Object &object,
                      llvm::ArrayRef<StringRef> allowed,
                      const llvm::Twine &where) {
  for (const auto &entry : object)
    if (!llvm::is_contained(allowed, StringRef(entry.first)))
      return planError(where + ": unknown key '" + StringRef(entry.first) +
                       "' (allowed: " + llvm::join(allowed, ", ") + ")");
  return llvm::Error::success();
}

/// grid/block: one expression or an array of one to three.
llvm::Error readDims(const llvm::json::Value *value, std::string (&dims)[3],
                     const llvm::Twine &where) {
  if (!value)
    return llvm::Error::success();
  if (std::optional<std::string> single = expressionOf(*value)) {
    dims[0] = *single;
    return llvm::Error::success();
  }
  const llvm::json::Array *array = value->getAsArray();
  if (!array || array->empty() || array->size() > 3)
    return planError(where + ": expected an expression or an array of one "
                             "to three expressions");
  for (auto [i, element] : llvm::enumerate(*array)) {
    std::optional<std::string> text = expressionOf(element);
    if (!text)
      return planError(where + "[" + llvm::Twine(i) +
                       "]: expected an expression (a string or an integer)");
    dims[i] = *text;
  }
  return llvm::Error::success();
}

/// One tensor of a plan's "problem" section: {"shape": [...], "type": T}
/// and, for inputs, an optional "distribution": {"uniform": [a, b]},
/// {"normal": [mean, stddev]} or {"int_range": [a, b]} (defaults as in
/// kf.problem: uniform [-1, 1) for floats, [-100, 100) for integers).
Expected<kf::TensorSpec> readTensor(const llvm::json::Value &value,
                                    bool isInput, const std::string &where) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return planError(where + ": expected {\"shape\": [...], \"type\": ...}");
  if (llvm::Error error = checkKeys(
          *object,
          isInput ? llvm::ArrayRef<StringRef>{"shape", "type", "distribution"}
                  : llvm::ArrayRef<StringRef>{"shape", "type"},
          where))
    return std::move(error);
  kf::TensorSpec tensor;
  std::optional<StringRef> type = object->getString("type");
  if (!type || !llvm::is_contained(kf::runtimeElementTypes(), *type))
    return planError(where + ".type: expected one of " +
                     llvm::join(kf::runtimeElementTypes(), ", "));
  tensor.elementType = type->str();
  const llvm::json::Array *shape = object->getArray("shape");
  if (!shape)
    return planError(where + ": needs \"shape\": an array of positive "
                             "integers ([] for a scalar)");
  int64_t elements = 1;
  for (const llvm::json::Value &dim : *shape) {
    std::optional<int64_t> size = dim.getAsInteger();
    if (!size || *size <= 0)
      return planError(where + ".shape: dimensions are positive integers");
    if (llvm::MulOverflow(elements, *size, elements) ||
        elements > (int64_t(1) << 40))
      return planError(where + ".shape: more than 2^40 elements");
    tensor.shape.push_back(*size);
  }
  bool isFloat = tensor.isFloat();
  tensor.distribution.kind = isFloat ? kf::Distribution::Kind::Uniform
                                     : kf::Distribution::Kind::IntRange;
  tensor.distribution.a = isFloat ? -1.0 : -100.0;
  tensor.distribution.b = isFloat ? 1.0 : 100.0;
  const llvm::json::Value *distribution = object->get("distribution");
  if (!distribution)
    return tensor;
  std::string at = where + ".distribution";
  const llvm::json::Object *choice = distribution->getAsObject();
  const llvm::json::Array *bounds = choice && choice->size() == 1
                                        ? choice->begin()->second.getAsArray()
                                        : nullptr;
  std::optional<double> a =
      bounds && bounds->size() == 2 ? (*bounds)[0].getAsNumber() : std::nullopt;
  std::optional<double> b =
      bounds && bounds->size() == 2 ? (*bounds)[1].getAsNumber() : std::nullopt;
  if (!a || !b)
    return planError(at + ": expected {\"uniform\": [a, b]}, "
                          "{\"normal\": [mean, stddev]} or "
                          "{\"int_range\": [a, b]}");
  StringRef kind = choice->begin()->first;
  if (!std::isfinite(*a) || !std::isfinite(*b))
    return planError(at + ": bounds must be finite numbers");
  tensor.distribution.a = *a;
  tensor.distribution.b = *b;
  if (kind == "uniform" || kind == "normal") {
    if (!isFloat)
      return planError(at + ": " + kind + " is for floating-point inputs; " +
                       tensor.elementType + " takes int_range");
    tensor.distribution.kind = kind == "uniform"
                                   ? kf::Distribution::Kind::Uniform
                                   : kf::Distribution::Kind::Normal;
    if (kind == "uniform" ? !(*a < *b) : !(*b > 0))
      return planError(at + ": " +
                       (kind == "uniform" ? "uniform needs a < b"
                                          : "normal needs stddev > 0"));
  } else if (kind == "int_range") {
    tensor.distribution.kind = kf::Distribution::Kind::IntRange;
    // Draws are computed in int64 (and the bounds held in doubles).
    constexpr double limit = double(int64_t(1) << 53);
    if (*a != std::floor(*a) || *b != std::floor(*b) || !(*a < *b) ||
        std::fabs(*a) > limit || std::fabs(*b) > limit)
      return planError(at + ": int_range needs integers a < b, each within "
                            "+-2^53");
  } else {
    return planError(at + ": unknown distribution '" + kind +
                     "' (known: uniform, normal, int_range)");
  }
  return tensor;
}

/// A plan's "problem" section (see CudaLaunchSpec::problem).
Expected<kf::ProblemSpec> readProblem(const llvm::json::Value &value,
                                      const std::string &where) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return planError(where + ": expected {name, inputs, outputs, tolerance}");
  if (llvm::Error error =
          checkKeys(*object, {"name", "inputs", "outputs", "tolerance"}, where))
    return std::move(error);
  kf::ProblemSpec spec;
  if (const llvm::json::Value *name = object->get("name")) {
    std::optional<StringRef> text = name->getAsString();
    if (!text || text->empty() ||
        text->find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
                                "RSTUVWXYZ0123456789_") != StringRef::npos)
      return planError(where + ".name: letters, digits and '_'");
    spec.name = text->str();
  }
  for (bool inputs : {true, false}) {
    StringRef key = inputs ? "inputs" : "outputs";
    const llvm::json::Array *tensors = object->getArray(key);
    if (!tensors || (!inputs && tensors->empty()))
      return planError(where + ": needs \"" + key + "\": an array of " +
                       (inputs ? "" : "at least one ") +
                       "{\"shape\", \"type\"}");
    for (auto [i, tensor] : llvm::enumerate(*tensors)) {
      Expected<kf::TensorSpec> read =
          readTensor(tensor, inputs,
                     (where + "." + key + "[" + llvm::Twine(i) + "]").str());
      if (!read)
        return read.takeError();
      (inputs ? spec.inputs : spec.outputs).push_back(std::move(*read));
    }
  }
  // No default: what counts as "the same results" is the user's call.
  const llvm::json::Object *tolerance = object->getObject("tolerance");
  if (!tolerance)
    return planError(where + ": needs \"tolerance\": {\"atol\": A, "
                             "\"rtol\": R} (|out - ref| <= A + R * |ref| "
                             "against the kernel as written)");
  if (llvm::Error error =
          checkKeys(*tolerance, {"atol", "rtol"}, where + ".tolerance"))
    return std::move(error);
  std::optional<double> atol = tolerance->getNumber("atol");
  std::optional<double> rtol = tolerance->getNumber("rtol");
  // As #kf.tolerance: an infinite tolerance would accept any output.
  if (!atol || !rtol || !std::isfinite(*atol) || !std::isfinite(*rtol) ||
      *atol < 0 || *rtol < 0)
    return planError(where + ".tolerance: needs finite, non-negative numbers "
                             "\"atol\" and \"rtol\"");
  spec.atol = *atol;
  spec.rtol = *rtol;
  return spec;
}

/// The source-level name of a kernel: "softmax_rows" for
/// _Z12softmax_rowsPKfPfii, the name itself for extern "C" kernels.
std::string baseName(StringRef symbol) {
  // The demangler keeps pointing into the mangled name: keep it alive.
  std::string mangled = symbol.str();
  llvm::ItaniumPartialDemangler demangler;
  if (demangler.partialDemangle(mangled.c_str()) || !demangler.isFunction())
    return mangled;
  size_t size = 0;
  char *name = demangler.getFunctionBaseName(nullptr, &size);
  if (!name)
    return mangled;
  std::string result(name);
  std::free(name);
  return result;
}

} // namespace

Expected<int64_t>
kf::evaluateLaunchExpression(StringRef expression,
                             const llvm::StringMap<int64_t> &symbols) {
  return ExpressionParser(expression, symbols).parse();
}

Expected<kf::CudaLaunchSpec> kf::parseCudaLaunchSpec(StringRef text,
                                                     StringRef fileName) {
  Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return planError(fileName +
                     ": not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return planError(fileName + ": a launch plan is a JSON object");
  if (llvm::Error error = checkKeys(
          *root, {"parameters", "scratch", "launches", "problem"}, fileName))
    return std::move(error);

  CudaLaunchSpec plan;
  if (const llvm::json::Value *problem = root->get("problem")) {
    Expected<ProblemSpec> spec =
        readProblem(*problem, (fileName + ": problem").str());
    if (!spec)
      return spec.takeError();
    plan.problem = std::move(*spec);
  }
  if (const llvm::json::Value *parameters = root->get("parameters")) {
    const llvm::json::Object *object = parameters->getAsObject();
    if (!object)
      return planError(fileName + ": parameters: expected an object of "
                                  "name: value or name: {value, choices}");
    for (const auto &entry : *object) {
      CudaLaunchParameter parameter;
      parameter.name = StringRef(entry.first).str();
      std::string where = (fileName + ": parameters." + parameter.name).str();
      if (std::optional<int64_t> value = entry.second.getAsInteger()) {
        parameter.value = *value;
      } else if (const llvm::json::Object *spec = entry.second.getAsObject()) {
        if (llvm::Error error = checkKeys(*spec, {"value", "choices"}, where))
          return std::move(error);
        std::optional<int64_t> value = spec->getInteger("value");
        if (!value)
          return planError(where + ": needs an integer \"value\"");
        parameter.value = *value;
        if (const llvm::json::Array *choices = spec->getArray("choices"))
          for (const llvm::json::Value &choice : *choices) {
            std::optional<int64_t> number = choice.getAsInteger();
            if (!number)
              return planError(where + ": choices must be integers");
            parameter.choices.push_back(*number);
          }
      } else {
        return planError(where + ": expected an integer or {value, choices}");
      }
      if (parameter.name.empty() || llvm::isDigit(parameter.name[0]) ||
          parameter.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHI"
                                           "JKLMNOPQRSTUVWXYZ0123456789_") !=
              std::string::npos)
        return planError(where + ": a parameter name is letters, digits and "
                                 "'_', not starting with a digit");
      plan.parameters.push_back(std::move(parameter));
    }
    llvm::sort(plan.parameters,
               [](const auto &a, const auto &b) { return a.name < b.name; });
  }

  if (const llvm::json::Value *scratch = root->get("scratch")) {
    const llvm::json::Array *array = scratch->getAsArray();
    if (!array)
      return planError(fileName + ": scratch: expected an array");
    for (auto [i, element] : llvm::enumerate(*array)) {
      std::string where =
          (fileName + ": scratch[" + llvm::Twine(i) + "]").str();
      const llvm::json::Object *object = element.getAsObject();
      if (!object)
        return planError(where + ": expected {name, type, elements}");
      if (llvm::Error error =
              checkKeys(*object, {"name", "type", "elements"}, where))
        return std::move(error);
      CudaScratch buffer;
      std::optional<StringRef> name = object->getString("name");
      const llvm::json::Value *elements = object->get("elements");
      std::optional<std::string> count =
          elements ? expressionOf(*elements) : std::nullopt;
      if (!name || !count)
        return planError(where + ": needs \"name\" and \"elements\"");
      buffer.name = name->str();
      buffer.elements = *count;
      if (std::optional<StringRef> type = object->getString("type")) {
        if (!llvm::is_contained(runtimeElementTypes(), *type))
          return planError(where + ".type: '" + *type +
                           "' is not an element type kf's runtime handles (" +
                           llvm::join(runtimeElementTypes(), ", ") + ")");
        buffer.elementType = type->str();
      }
      plan.scratch.push_back(std::move(buffer));
    }
  }

  const llvm::json::Array *launches = root->getArray("launches");
  if (!launches || launches->empty())
    return planError(fileName + ": needs \"launches\": a non-empty array");
  for (auto [i, element] : llvm::enumerate(*launches)) {
    std::string where = (fileName + ": launches[" + llvm::Twine(i) + "]").str();
    const llvm::json::Object *object = element.getAsObject();
    if (!object)
      return planError(where + ": expected an object");
    if (llvm::Error error = checkKeys(
            *object, {"kernel", "grid", "block", "shared_bytes", "args"},
            where))
      return std::move(error);
    CudaLaunch launch;
    std::optional<StringRef> kernel = object->getString("kernel");
    if (!kernel)
      return planError(where + ": needs \"kernel\": the kernel's name");
    launch.kernel = kernel->str();
    if (llvm::Error error =
            readDims(object->get("grid"), launch.grid, where + ".grid"))
      return std::move(error);
    if (llvm::Error error =
            readDims(object->get("block"), launch.block, where + ".block"))
      return std::move(error);
    if (const llvm::json::Value *shared = object->get("shared_bytes")) {
      std::optional<std::string> text = expressionOf(*shared);
      if (!text)
        return planError(where + ".shared_bytes: expected an expression");
      launch.sharedBytes = *text;
    }
    const llvm::json::Array *args = object->getArray("args");
    if (!args)
      return planError(where + ": needs \"args\": one entry per kernel "
                               "parameter");
    for (const llvm::json::Value &arg : *args) {
      CudaLaunchArgument argument;
      if (std::optional<StringRef> text = arg.getAsString()) {
        argument.text = text->str();
      } else if (std::optional<int64_t> integer = arg.getAsInteger()) {
        argument.text = std::to_string(*integer);
        argument.isNumber = true;
        argument.number = (double)*integer;
      } else if (std::optional<double> number = arg.getAsNumber()) {
        // As JSON writes it (1.5, not 1.50): errors quote the plan.
        llvm::raw_string_ostream(argument.text) << llvm::json::Value(*number);
        argument.isNumber = true;
        argument.number = *number;
      } else {
        return planError(where + ".args: each is a buffer name, an expression "
                                 "or a number");
      }
      launch.arguments.push_back(std::move(argument));
    }
    plan.launches.push_back(std::move(launch));
  }
  return std::move(plan);
}

Expected<OwningOpRef<ModuleOp>>
kf::buildProblemSignature(MLIRContext *context, const ProblemSpec &spec) {
  auto tensorOf = [&](const TensorSpec &tensor) -> Type {
    Type element = parseType(tensor.elementType, context);
    return element ? RankedTensorType::get(tensor.shape, element) : Type();
  };
  SmallVector<Type> inputs, outputs;
  for (const TensorSpec &tensor : spec.inputs)
    inputs.push_back(tensorOf(tensor));
  for (const TensorSpec &tensor : spec.outputs)
    outputs.push_back(tensorOf(tensor));
  if (llvm::is_contained(inputs, Type()) || llvm::is_contained(outputs, Type()))
    return planError("the problem has an element type MLIR does not parse");
  OpBuilder builder(context);
  Location location = UnknownLoc::get(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(location);
  builder.setInsertionPointToEnd(module->getBody());
  auto function = func::FuncOp::create(
      builder, location, spec.name.empty() ? "problem" : spec.name,
      builder.getFunctionType(inputs, outputs));
  function.setPrivate();
  return std::move(module);
}

llvm::StringMap<int64_t>
kf::launchSymbols(const ProblemSpec &spec, const CudaLaunchSpec &plan,
                  const std::map<std::string, int64_t> &overrides) {
  llvm::StringMap<int64_t> symbols;
  auto addTensors = [&](StringRef prefix, llvm::ArrayRef<TensorSpec> tensors) {
    for (auto [i, tensor] : llvm::enumerate(tensors)) {
      std::string name = (prefix + llvm::Twine(i)).str();
      symbols[name + ".size"] = tensor.numElements();
      for (auto [d, size] : llvm::enumerate(tensor.shape))
        symbols[name + ".d" + std::to_string(d)] = size;
    }
  };
  addTensors("in", spec.inputs);
  addTensors("out", spec.outputs);
  for (const CudaLaunchParameter &parameter : plan.parameters)
    symbols[parameter.name] = parameter.value;
  for (const auto &[name, value] : overrides)
    symbols[name] = value;
  return symbols;
}

std::string kf::CudaTuning::describe() const {
  std::vector<std::string> parts;
  for (const auto &[name, value] : parameters)
    parts.push_back(name + "=" + std::to_string(value));
  if (launchBounds)
    parts.push_back("launch_bounds");
  if (maxRegisters)
    parts.push_back("maxnreg=" + std::to_string(maxRegisters));
  return parts.empty() ? "as written" : llvm::join(parts, " ");
}

Expected<OwningOpRef<ModuleOp>>
kf::buildCudaCandidate(OwningOpRef<ModuleOp> imported, const ProblemSpec &spec,
                       const CudaLaunchSpec &plan, const CudaTuning &tuning) {
  MLIRContext *context = imported->getContext();
  auto gpuModules = llvm::to_vector(imported->getOps<gpu::GPUModuleOp>());
  if (gpuModules.size() != 1)
    return planError("expected one gpu.module of imported CUDA kernels");
  gpu::GPUModuleOp gpuModule = gpuModules.front();
  llvm::StringMap<int64_t> symbols =
      launchSymbols(spec, plan, tuning.parameters);
  for (const auto &[name, value] : tuning.parameters)
    if (!llvm::any_of(plan.parameters,
                      [&](const auto &p) { return p.name == name; }))
      return planError("the plan has no parameter '" + name + "'");

  // Kernels by their mangled and their source-level names.
  llvm::StringMap<llvm::SmallVector<LLVM::LLVMFuncOp, 1>> kernels;
  for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
    if (!func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
      continue;
    kernels[func.getSymName()].push_back(func);
    std::string base = baseName(func.getSymName());
    if (base != func.getSymName())
      kernels[base].push_back(func);
  }

  Location location = imported->getLoc();
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(imported->getBody());
  SmallVector<Type> argumentTypes;
  auto memrefOf = [&](const TensorSpec &tensor) -> Expected<MemRefType> {
    Type element = parseType(tensor.elementType, context);
    if (!element)
      return planError("unknown element type " + tensor.elementType);
    return MemRefType::get(tensor.shape, element);
  };
  for (const TensorSpec &tensor :
       llvm::concat<const TensorSpec>(spec.inputs, spec.outputs)) {
    Expected<MemRefType> type = memrefOf(tensor);
    if (!type)
      return type.takeError();
    argumentTypes.push_back(*type);
  }
  auto host = func::FuncOp::create(builder, location, "kf_cuda_host",
                                   builder.getFunctionType(argumentTypes, {}));
  Block *entry = host.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  llvm::StringMap<Value> buffers;
  llvm::StringMap<StringRef> roles;
  for (unsigned i = 0; i < spec.inputs.size(); ++i) {
    buffers["in" + std::to_string(i)] = entry->getArgument(i);
    roles["in" + std::to_string(i)] = "input";
  }
  for (unsigned i = 0; i < spec.outputs.size(); ++i) {
    buffers["out" + std::to_string(i)] =
        entry->getArgument(spec.inputs.size() + i);
    roles["out" + std::to_string(i)] = "output";
  }
  SmallVector<Value> scratchBuffers;
  for (const CudaScratch &scratch : plan.scratch) {
    std::string where = "scratch '" + scratch.name + "'";
    if (buffers.count(scratch.name))
      return planError(where + ": the name is taken");
    Expected<int64_t> elements =
        evaluateLaunchExpression(scratch.elements, symbols);
    if (!elements)
      return planError(where + ": elements " +
                       llvm::toString(elements.takeError()));
    if (*elements <= 0)
      return planError(where + ": " + llvm::Twine(*elements) +
                       " elements; a scratch buffer needs at least one");
    Expected<MemRefType> type =
        memrefOf(TensorSpec{scratch.elementType, {*elements}, {}});
    if (!type)
      return planError(where + ": " + llvm::toString(type.takeError()));
    Value buffer = memref::AllocOp::create(builder, location, *type);
    buffers[scratch.name] = buffer;
    roles[scratch.name] = "scratch";
    scratchBuffers.push_back(buffer);
  }

  // Each kernel's largest block, for its launch bounds.
  llvm::DenseMap<Operation *, std::array<int64_t, 3>> largestBlock;
  for (auto [index, launch] : llvm::enumerate(plan.launches)) {
    std::string where =
        "launch " + std::to_string(index) + " (" + launch.kernel + ")";
    auto found = kernels.find(launch.kernel);
    if (found == kernels.end() || found->second.empty()) {
      std::vector<std::string> names;
      for (const auto &entry : kernels)
        names.push_back(entry.getKey().str());
      llvm::sort(names);
      return planError(where + ": no kernel of that name (kernels: " +
                       llvm::join(names, ", ") + ")");
    }
    if (found->second.size() > 1)
      return planError(where + ": several kernels have that name; give the "
                               "mangled name");
    LLVM::LLVMFuncOp kernel = found->second.front();

    auto evaluate = [&](StringRef text,
                        const llvm::Twine &field) -> Expected<int64_t> {
      Expected<int64_t> value = evaluateLaunchExpression(text, symbols);
      if (!value)
        return planError(where + ": " + field + " " +
                         llvm::toString(value.takeError()));
      return value;
    };
    int64_t grid[3], block[3];
    for (int d = 0; d < 3; ++d) {
      Expected<int64_t> g =
          evaluate(launch.grid[d], "grid[" + llvm::Twine(d) + "]");
      if (!g)
        return g.takeError();
      Expected<int64_t> b =
          evaluate(launch.block[d], "block[" + llvm::Twine(d) + "]");
      if (!b)
        return b.takeError();
      if (*g < 1 || *b < 1)
        return planError(where +
                         ": grid and block sizes must be positive "
                         "(grid[" +
                         llvm::Twine(d) + "] = " + llvm::Twine(*g) +
                         ", block[" + llvm::Twine(d) +
                         "] = " + llvm::Twine(*b) + ")");
      grid[d] = *g;
      block[d] = *b;
    }
    Expected<int64_t> shared = evaluate(launch.sharedBytes, "shared_bytes");
    if (!shared)
      return shared.takeError();
    if (*shared < 0 || *shared > std::numeric_limits<int32_t>::max())
      return planError(where + ": shared_bytes = " + llvm::Twine(*shared) +
                       " is out of range");
    std::array<int64_t, 3> &largest = largestBlock[kernel];
    for (int d = 0; d < 3; ++d)
      largest[d] = std::max(largest[d], block[d]);

    ArrayRef<Type> parameterTypes = kernel.getArgumentTypes();
    if (parameterTypes.size() != launch.arguments.size())
      return planError(
          where + ": the kernel takes " + llvm::Twine(parameterTypes.size()) +
          " arguments, the plan gives " + llvm::Twine(launch.arguments.size()));
    SmallVector<Value> operands;
    for (auto [a, parameterType] : llvm::enumerate(parameterTypes)) {
      const CudaLaunchArgument &argument = launch.arguments[a];
      std::string field = "argument " + std::to_string(a);
      if (isa<LLVM::LLVMPointerType>(parameterType)) {
        auto buffer = buffers.find(argument.text);
        if (argument.isNumber || buffer == buffers.end())
          return planError(where + ": " + field +
                           " is a pointer: give a buffer (in0.., out0.. or a "
                           "scratch name), not '" +
                           argument.text + "'");
        operands.push_back(buffer->second);
        // The binding gives the parameter its role for the cheat checks;
        // one role per parameter across all launches of the kernel.
        StringRef role = roles.lookup(argument.text);
        if (auto previous = kernel.getArgAttrOfType<StringAttr>(a, "kf.role");
            previous && previous.getValue() != role)
          return planError(where + ": " + field + " is bound to an " + role +
                           " here and to an " + previous.getValue() +
                           " by an earlier launch of the kernel: a parameter "
                           "keeps one role (input, output or scratch)");
        kernel.setArgAttr(a, "kf.role", builder.getStringAttr(role));
      } else if (auto integer = dyn_cast<IntegerType>(parameterType)) {
        if (buffers.count(argument.text))
          return planError(where + ": " + field + " is an i" +
                           llvm::Twine(integer.getWidth()) + ", not a buffer");
        if (argument.isNumber && argument.number != std::floor(argument.number))
          return planError(where + ": " + field + " is an i" +
                           llvm::Twine(integer.getWidth()) +
                           ": give an integer, not " + argument.text);
        Expected<int64_t> value = evaluate(argument.text, field);
        if (!value)
          return value.takeError();
        if (integer.getWidth() < 64 &&
            !llvm::isIntN(integer.getWidth(), *value) &&
            !llvm::isUIntN(integer.getWidth(), *value))
          return planError(where + ": " + field + " = " + llvm::Twine(*value) +
                           " does not fit an i" +
                           llvm::Twine(integer.getWidth()));
        operands.push_back(arith::ConstantOp::create(
            builder, location, builder.getIntegerAttr(integer, *value)));
      } else if (auto floating = dyn_cast<FloatType>(parameterType)) {
        double value = argument.number;
        if (!argument.isNumber) {
          Expected<int64_t> integer = evaluate(argument.text, field);
          if (!integer)
            return integer.takeError();
          value = (double)*integer;
        }
        operands.push_back(arith::ConstantOp::create(
            builder, location, builder.getFloatAttr(floating, value)));
      } else {
        std::string type;
        llvm::raw_string_ostream os(type);
        os << parameterType;
        return planError(where + ": " + field + " has type " + type +
                         ", which a launch plan cannot pass (pointers, "
                         "integers and floats only)");
      }
    }
    auto index3 = [&](int64_t(&values)[3]) {
      return gpu::KernelDim3{
          arith::ConstantIndexOp::create(builder, location, values[0]),
          arith::ConstantIndexOp::create(builder, location, values[1]),
          arith::ConstantIndexOp::create(builder, location, values[2])};
    };
    Value sharedValue;
    if (*shared > 0)
      sharedValue = arith::ConstantOp::create(
          builder, location, builder.getI32IntegerAttr((int32_t)*shared));
    auto symbol =
        SymbolRefAttr::get(gpuModule.getNameAttr(),
                           {FlatSymbolRefAttr::get(kernel.getSymNameAttr())});
    gpu::LaunchFuncOp::create(builder, location, symbol, index3(grid),
                              index3(block), sharedValue, operands);
  }
  for (Value buffer : scratchBuffers)
    memref::DeallocOp::create(builder, location, buffer);
  func::ReturnOp::create(builder, location);

  // __launch_bounds__ and register caps, as the NVVM attributes clang would
  // write for them.
  for (auto &[op, block] : largestBlock) {
    if (tuning.launchBounds)
      op->setAttr(
          NVVM::NVVMDialect::getMaxntidAttrName(),
          builder.getDenseI32ArrayAttr(
              {(int32_t)block[0], (int32_t)block[1], (int32_t)block[2]}));
    if (tuning.maxRegisters)
      op->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  builder.getI32IntegerAttr(tuning.maxRegisters));
  }
  if (failed(verify(*imported)))
    return planError("the candidate built from the launch plan does not "
                     "verify");
  return std::move(imported);
}
