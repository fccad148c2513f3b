//===- Redaction.cpp - Secrets never reach a file -------------------------===//

#include "kf/Support/Redaction.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace {
std::mutex &secretsMutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<std::string> &secrets() {
  static std::vector<std::string> registered;
  return registered;
}
} // namespace

void kf::registerSecret(llvm::StringRef secret) {
  secret = secret.trim();
  if (secret.size() < 4)
    return;
  std::lock_guard<std::mutex> lock(secretsMutex());
  std::vector<std::string> &all = secrets();
  if (std::find(all.begin(), all.end(), secret.str()) != all.end())
    return;
  all.push_back(secret.str());
  // Longest first, so that a secret containing another is replaced whole.
  std::sort(all.begin(), all.end(),
            [](const std::string &a, const std::string &b) {
              return a.size() > b.size();
            });
}

std::string kf::redactSecrets(llvm::StringRef text) {
  std::lock_guard<std::mutex> lock(secretsMutex());
  std::string result = text.str();
  for (const std::string &secret : secrets()) {
    size_t at = 0;
    while ((at = result.find(secret, at)) != std::string::npos) {
      result.replace(at, secret.size(), "[redacted]");
      at += 10;
    }
  }
  return result;
}
