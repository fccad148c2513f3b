//===- Redaction.h - Secrets never reach a file -----------------*- C++ -*-===//
//
// The one redaction every string passes through before kf writes it to a
// file (records, reports, caches, the experience library, logs): secrets
// the process was configured with (API keys read from the environment) are
// registered once, and every occurrence of one is replaced by
// "[redacted]", also where a server echoed the key back in an answer or an
// error message.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SUPPORT_REDACTION_H
#define KF_SUPPORT_REDACTION_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kf {

/// Registers a secret (thread-safe). Secrets shorter than 4 characters are
/// not registered: redacting them would mangle ordinary text.
void registerSecret(llvm::StringRef secret);

/// `text` with every registered secret replaced by "[redacted]".
std::string redactSecrets(llvm::StringRef text);

} // namespace kf

#endif // KF_SUPPORT_REDACTION_H
