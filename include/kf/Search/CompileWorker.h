//===- CompileWorker.h - The worker side of kf::CompilePool ---------------===//
//
// kf-evolve compile-worker: compiles one candidate per request line for the
// search, so that a compiler crash or a compile that never ends costs a
// worker process, not the search.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_COMPILEWORKER_H
#define KF_SEARCH_COMPILEWORKER_H

#include "kf/Search/ProblemInput.h"

#include "mlir/IR/MLIRContext.h"

#include <istream>

namespace kf {

/// Loads the problem of `options`, then answers each request line of
/// `requests` ({"kind": "schedule" | "kernel", "text"}) with one
/// CompileReply line on stdout, the launch plan with its kernel images
/// included when `emitPlan` (the GPU workers measure it). Returns the exit
/// status: 1 when the problem does not load, else 0 at the end of the
/// requests.
int runCompileWorker(mlir::MLIRContext &context,
                     const ProblemInputOptions &options, bool emitPlan,
                     std::istream &requests);

} // namespace kf

#endif // KF_SEARCH_COMPILEWORKER_H
