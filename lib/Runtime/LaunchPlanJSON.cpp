//===- LaunchPlanJSON.cpp - Launch plans as JSON --------------------------===//
//
// The JSON form of a launch plan: what `kf-evolve compile --emit=plan`
// prints, and, with the kernel images, how a compiled candidate travels from
// a compile worker to a measurement worker. Reading it back checks every
// index, so that a plan that does not hold together is refused here rather
// than faulting the process that runs it.
//
//===----------------------------------------------------------------------===//

#include "kf/Runtime/LaunchPlan.h"

#include "llvm/Support/Base64.h"

#include <cmath>
#include <limits>

using namespace kf;
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static json::Value argumentToJSON(const PlanArgument &arg) {
  switch (arg.kind) {
  case PlanArgument::Kind::Pointer:
    return json::Object{{"buffer", (int64_t)arg.buffer},
                        {"offset", arg.byteOffset}};
  case PlanArgument::Kind::Integer:
    // A bare number is a 64-bit integer; narrower ones say their width,
    // since the kernel reads exactly that many bytes.
    if (arg.bitWidth == 64)
      return arg.integer;
    return json::Object{{"integer", arg.integer},
                        {"bits", (int64_t)arg.bitWidth}};
  case PlanArgument::Kind::Float: {
    // Always tagged: JSON writes 2.0 as 2, which would read back as an
    // integer. JSON has no NaN or infinity, and -0.0 would read back as the
    // integer 0, so those are named.
    json::Value value = arg.floating;
    if (std::isnan(arg.floating))
      value = "nan";
    else if (std::isinf(arg.floating))
      value = arg.floating > 0 ? "inf" : "-inf";
    else if (arg.floating == 0 && std::signbit(arg.floating))
      value = "-0";
    return json::Object{{"float", std::move(value)},
                        {"bits", (int64_t)arg.bitWidth}};
  }
  }
  llvm_unreachable("unknown argument kind");
}

static json::Value stepToJSON(const PlanStep &step) {
  switch (step.kind) {
  case PlanStep::Kind::Allocate:
    return json::Object{{"allocate", (int64_t)step.buffer}};
  case PlanStep::Kind::Free:
    return json::Object{{"free", (int64_t)step.buffer}};
  case PlanStep::Kind::Copy: {
    json::Object copy{{"from", (int64_t)step.sourceBuffer},
                      {"to", (int64_t)step.buffer},
                      {"bytes", step.bytes}};
    if (step.sourceOffset)
      copy["from_offset"] = step.sourceOffset;
    if (step.destinationOffset)
      copy["to_offset"] = step.destinationOffset;
    return json::Object{{"copy", std::move(copy)}};
  }
  case PlanStep::Kind::Launch: {
    json::Array args;
    for (const PlanArgument &arg : step.arguments)
      args.push_back(argumentToJSON(arg));
    return json::Object{
        {"launch", step.module + "::" + step.kernel},
        {"grid", json::Array{step.grid[0], step.grid[1], step.grid[2]}},
        {"block", json::Array{step.block[0], step.block[1], step.block[2]}},
        {"shared", step.dynamicSharedBytes},
        {"args", std::move(args)}};
  }
  }
  llvm_unreachable("unknown step kind");
}

json::Value kf::toJSON(const LaunchPlan &plan, PlanImages images) {
  json::Array buffers, steps;
  for (const PlanBuffer &buffer : plan.buffers) {
    json::Object object{{"bytes", buffer.bytes}};
    if (buffer.kind == PlanBuffer::Kind::Argument)
      object["argument"] = (int64_t)buffer.argumentIndex;
    else
      object["temporary"] = true;
    buffers.push_back(std::move(object));
  }
  for (const PlanStep &step : plan.steps)
    steps.push_back(stepToJSON(step));
  json::Object object{{"function", plan.function},
                      {"arguments", (int64_t)plan.numArguments},
                      {"buffers", std::move(buffers)},
                      {"steps", std::move(steps)}};
  if (images == PlanImages::Include) {
    json::Object modules;
    for (const auto &entry : plan.modules) {
      const PlanModule &module = entry.second;
      json::Object image{{"chip", module.chip}};
      // PTX is text; a cubin is binary, which JSON strings cannot hold.
      if (module.format == PlanModule::Format::PTX) {
        image["format"] = "ptx";
        image["image"] = module.image;
      } else {
        image["format"] = "cubin";
        image["image_base64"] = llvm::encodeBase64(module.image);
      }
      // An owned key: a StringRef key would borrow from the plan.
      modules[entry.first().str()] = std::move(image);
    }
    object["modules"] = std::move(modules);
  }
  return object;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

/// Above these, sizes would not survive the driver's 32-bit launch
/// parameters or the evaluator's rounding of buffer sizes.
constexpr int64_t kMaxCount = std::numeric_limits<uint32_t>::max();
constexpr int64_t kMaxBytes = int64_t(1) << 50;

/// Reads one plan, checking each index against what it refers to.
class PlanReader {
public:
  PlanReader(LaunchPlan &plan, json::Path path) : plan(plan), path(path) {}

  bool read(const json::Value &value) {
    json::ObjectMapper mapper(value, path);
    int64_t arguments = 0;
    const json::Object *object = value.getAsObject();
    if (!mapper || !mapper.map("function", plan.function) ||
        !mapper.map("arguments", arguments))
      return false;
    if (arguments < 0 || arguments > kMaxCount)
      return fail(path.field("arguments"), "expected a count of arguments");
    plan.numArguments = arguments;
    // Modules first: launches name them.
    if (const json::Value *modules = object->get("modules")) {
      if (!readModules(*modules, path.field("modules")))
        return false;
    } else {
      path.field("modules").report("expected the kernel images");
      return false;
    }
    const json::Array *buffers = object->getArray("buffers");
    const json::Array *steps = object->getArray("steps");
    if (!buffers)
      return fail(path.field("buffers"), "expected an array");
    if (!steps)
      return fail(path.field("steps"), "expected an array");
    for (auto [index, buffer] : llvm::enumerate(*buffers))
      if (!readBuffer(buffer, path.field("buffers").index(index)))
        return false;
    for (auto [index, step] : llvm::enumerate(*steps))
      if (!readStep(step, path.field("steps").index(index)))
        return false;
    return true;
  }

private:
  static bool fail(json::Path at, llvm::StringLiteral message) {
    at.report(message);
    return false;
  }

  bool readModules(const json::Value &value, json::Path at) {
    const json::Object *modules = value.getAsObject();
    if (!modules)
      return fail(at, "expected an object");
    for (const auto &[name, entry] : *modules) {
      json::Path here = at.field(name);
      json::ObjectMapper mapper(entry, here);
      std::string format;
      PlanModule module;
      if (!mapper || !mapper.map("format", format) ||
          !mapper.map("chip", module.chip))
        return false;
      if (format == "ptx") {
        module.format = PlanModule::Format::PTX;
        if (!mapper.map("image", module.image))
          return false;
      } else if (format == "cubin") {
        module.format = PlanModule::Format::Cubin;
        std::string encoded;
        std::vector<char> bytes;
        if (!mapper.map("image_base64", encoded))
          return false;
        if (llvm::Error error = llvm::decodeBase64(encoded, bytes)) {
          llvm::consumeError(std::move(error));
          return fail(here.field("image_base64"), "is not base64");
        }
        module.image.assign(bytes.begin(), bytes.end());
      } else {
        return fail(here.field("format"), "expected \"ptx\" or \"cubin\"");
      }
      plan.modules[name.str()] = std::move(module);
    }
    return true;
  }

  bool readBuffer(const json::Value &value, json::Path at) {
    json::ObjectMapper mapper(value, at);
    PlanBuffer buffer;
    std::optional<int64_t> argument;
    if (!mapper || !mapper.map("bytes", buffer.bytes) ||
        !mapper.mapOptional("argument", argument))
      return false;
    if (buffer.bytes < 0 || buffer.bytes > kMaxBytes)
      return fail(at.field("bytes"), "expected a byte size");
    if (argument) {
      if (*argument < 0 || *argument >= plan.numArguments)
        return fail(at.field("argument"), "is not an argument of the plan");
      buffer.kind = PlanBuffer::Kind::Argument;
      buffer.argumentIndex = *argument;
    }
    plan.buffers.push_back(buffer);
    return true;
  }

  bool readBufferIndex(const json::Value *value, unsigned &buffer,
                       json::Path at) {
    std::optional<int64_t> index = value ? value->getAsInteger() : std::nullopt;
    if (!index || *index < 0 || *index >= (int64_t)plan.buffers.size())
      return fail(at, "expected the index of a buffer of the plan");
    buffer = *index;
    return true;
  }

  /// Checks that [offset, offset + bytes) lies inside `buffer`.
  bool inside(unsigned buffer, int64_t offset, int64_t bytes, json::Path at) {
    if (offset < 0 || bytes < 0 || offset > plan.buffers[buffer].bytes ||
        bytes > plan.buffers[buffer].bytes - offset)
      return fail(at, "reaches outside its buffer");
    return true;
  }

  bool readStep(const json::Value &value, json::Path at) {
    const json::Object *object = value.getAsObject();
    if (!object)
      return fail(at, "expected an object");
    PlanStep step;
    if (const json::Value *buffer = object->get("allocate")) {
      step.kind = PlanStep::Kind::Allocate;
      if (!readBufferIndex(buffer, step.buffer, at.field("allocate")))
        return false;
    } else if (const json::Value *buffer = object->get("free")) {
      step.kind = PlanStep::Kind::Free;
      if (!readBufferIndex(buffer, step.buffer, at.field("free")))
        return false;
    } else if (const json::Object *copy = object->getObject("copy")) {
      step.kind = PlanStep::Kind::Copy;
      json::Path here = at.field("copy");
      json::ObjectMapper mapper(*object->get("copy"), here);
      if (!readBufferIndex(copy->get("from"), step.sourceBuffer,
                           here.field("from")) ||
          !readBufferIndex(copy->get("to"), step.buffer, here.field("to")) ||
          !mapper.map("bytes", step.bytes) ||
          !mapper.mapOptional("from_offset", step.sourceOffset) ||
          !mapper.mapOptional("to_offset", step.destinationOffset) ||
          !inside(step.sourceBuffer, step.sourceOffset, step.bytes,
                  here.field("from")) ||
          !inside(step.buffer, step.destinationOffset, step.bytes,
                  here.field("to")))
        return false;
    } else if (object->get("launch")) {
      if (!readLaunch(*object, step, at))
        return false;
    } else {
      return fail(at, "expected allocate, free, copy or launch");
    }
    plan.steps.push_back(std::move(step));
    return true;
  }

  bool readLaunch(const json::Object &object, PlanStep &step, json::Path at) {
    step.kind = PlanStep::Kind::Launch;
    std::optional<llvm::StringRef> name = object.getString("launch");
    // Kernel names (C identifiers or mangled C++ names) hold no "::".
    auto [module, kernel] = name
                                ? name->rsplit("::")
                                : std::pair<llvm::StringRef, llvm::StringRef>();
    if (!name || kernel.empty() || module == *name)
      return fail(at.field("launch"), "expected \"module::kernel\"");
    if (!plan.modules.count(module))
      return fail(at.field("launch"), "names a module the plan does not hold");
    step.module = module.str();
    step.kernel = kernel.str();
    for (auto [field, sizes] :
         {std::pair{"grid", step.grid}, std::pair{"block", step.block}}) {
      const json::Array *array = object.getArray(field);
      if (!array || array->size() != 3)
        return fail(at.field(field), "expected three sizes");
      for (unsigned d = 0; d < 3; ++d) {
        std::optional<int64_t> size = (*array)[d].getAsInteger();
        if (!size || *size < 1 || *size > kMaxCount)
          return fail(at.field(field).index(d), "expected a positive size");
        sizes[d] = *size;
      }
    }
    std::optional<int64_t> shared = object.getInteger("shared");
    if (!shared || *shared < 0)
      return fail(at.field("shared"), "expected a byte count");
    step.dynamicSharedBytes = *shared;
    const json::Array *args = object.getArray("args");
    if (!args)
      return fail(at.field("args"), "expected an array");
    for (auto [index, arg] : llvm::enumerate(*args)) {
      PlanArgument argument;
      if (!readArgument(arg, argument, at.field("args").index(index)))
        return false;
      step.arguments.push_back(argument);
    }
    return true;
  }

  bool readArgument(const json::Value &value, PlanArgument &arg,
                    json::Path at) {
    if (std::optional<int64_t> integer = value.getAsInteger()) {
      arg.kind = PlanArgument::Kind::Integer;
      arg.integer = *integer;
      arg.bitWidth = 64;
      return true;
    }
    const json::Object *object = value.getAsObject();
    if (!object)
      return fail(at, "expected a buffer, an integer or a float");
    if (object->get("buffer")) {
      arg.kind = PlanArgument::Kind::Pointer;
      json::ObjectMapper mapper(value, at);
      return readBufferIndex(object->get("buffer"), arg.buffer,
                             at.field("buffer")) &&
             mapper.map("offset", arg.byteOffset) &&
             inside(arg.buffer, arg.byteOffset, 0, at.field("offset"));
    }
    std::optional<int64_t> bits = object->getInteger("bits");
    if (const json::Value *integer = object->get("integer")) {
      arg.kind = PlanArgument::Kind::Integer;
      std::optional<int64_t> parsed = integer->getAsInteger();
      if (!parsed)
        return fail(at.field("integer"), "expected an integer");
      if (!bits || *bits < 1 || *bits > 64)
        return fail(at.field("bits"), "expected a width of 1 to 64 bits");
      arg.integer = *parsed;
      arg.bitWidth = *bits;
      return true;
    }
    if (const json::Value *floating = object->get("float")) {
      arg.kind = PlanArgument::Kind::Float;
      if (!bits || (*bits != 32 && *bits != 64))
        return fail(at.field("bits"), "expected 32 or 64");
      arg.bitWidth = *bits;
      std::optional<llvm::StringRef> named = floating->getAsString();
      if (named == "nan")
        arg.floating = NAN;
      else if (named == "inf")
        arg.floating = INFINITY;
      else if (named == "-inf")
        arg.floating = -INFINITY;
      else if (named == "-0")
        arg.floating = -0.0;
      else if (std::optional<double> number = floating->getAsNumber())
        arg.floating = *number;
      else
        return fail(at.field("float"),
                    "expected a number, nan, inf, -inf or -0");
      return true;
    }
    return fail(at, "expected a buffer, an integer or a float");
  }

  LaunchPlan &plan;
  json::Path path;
};

} // namespace

bool kf::fromJSON(const json::Value &value, LaunchPlan &plan, json::Path path) {
  plan = LaunchPlan();
  return PlanReader(plan, path).read(value);
}
