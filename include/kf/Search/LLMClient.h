//===- LLMClient.h - Chat completions over HTTP (libcurl) --------*- C++
//-*-===//
//
// The transport of the LLM experts: one request = a system prompt and a user
// prompt, one answer = the model's text and its token counts. Two wire
// formats: OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp's
// server, Ollama: POST {base_url}/chat/completions) and Anthropic Messages
// (POST {base_url}/messages). What a real endpoint does is expected:
// 429 and 5xx answers, timeouts and dropped connections are retried with
// exponential backoff (Retry-After honoured); bodies over a size limit are
// refused; a budget of tokens and money stops requests once spent. Every
// answer is cached on disk under a hash of the request, so a run can be
// replayed offline (replay mode never opens a connection). API keys come
// from the environment only and are never written anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_LLMCLIENT_H
#define KF_SEARCH_LLMCLIENT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace kf {

enum class LLMProvider { OpenAI, Anthropic };

struct LLMConfig {
  LLMProvider provider = LLMProvider::OpenAI;
  /// As in the providers' SDKs, e.g. http://127.0.0.1:8000/v1 or
  /// https://api.anthropic.com/v1; the client appends /chat/completions or
  /// /messages.
  std::string baseUrl;
  std::string model;
  /// The environment variable holding the API key (default OPENAI_API_KEY or
  /// ANTHROPIC_API_KEY). Without a key, no authorization header is sent
  /// (local servers need none).
  std::string apiKeyEnv;
  double temperature = 0.7;
  unsigned maxTokens = 4096;
  double timeoutSeconds = 120;
  unsigned maxRetries = 4;
  /// Requests in flight at once (the experts of one round ask in parallel).
  unsigned concurrency = 4;
  /// Largest answer body accepted.
  size_t maxResponseBytes = 4 << 20;
  /// Stop sending requests once this many tokens (input + output) or this
  /// many US dollars are spent (0: no limit).
  int64_t budgetTokens = 0;
  double budgetDollars = 0;
  /// Prices in US dollars per million tokens (0: unknown, cost not counted).
  double inputPricePerMillion = 0, outputPricePerMillion = 0;
  /// Where answers are cached (empty: no cache).
  std::string cacheDir;
  /// Answer from the cache only; a request not in it is an error.
  bool replay = false;

  /// Reads a JSON config file's fields over the defaults (keys:
  /// provider, base_url, model, api_key_env, temperature, max_tokens,
  /// timeout_seconds, max_retries, concurrency, budget_tokens, budget_usd,
  /// price_input_per_mtok, price_output_per_mtok).
  llvm::Error loadFile(llvm::StringRef path);
  /// The problems a user must fix before any request (no base URL, ...).
  llvm::Error validate() const;
};

std::optional<LLMProvider> parseLLMProvider(llvm::StringRef name);

/// Checks a base URL when it is given rather than on every request:
/// http:// or https://, a host (an IPv6 address in closed brackets), a port
/// from 1 to 65535 if one is given, no spaces or control characters.
llvm::Error checkBaseUrl(llvm::StringRef url);

struct LLMAnswer {
  std::string text;
  int64_t inputTokens = 0, outputTokens = 0;
  /// Served from the cache (no request was sent).
  bool cached = false;
  /// Attempts it took (retries + 1; 0 when cached).
  unsigned attempts = 0;
};

/// What the client has spent so far.
struct LLMUsage {
  int64_t requests = 0, cachedAnswers = 0, failedRequests = 0;
  int64_t inputTokens = 0, outputTokens = 0;
  double dollars = 0;
};
llvm::json::Value toJSON(const LLMUsage &usage);

class LLMClient {
public:
  explicit LLMClient(LLMConfig config);

  /// Asks for one completion. Thread-safe. Errors say what went wrong
  /// (HTTP status and the start of the body, a timeout after N attempts,
  /// an over-large body, a spent budget, a replay cache miss).
  llvm::Expected<LLMAnswer> complete(llvm::StringRef system,
                                     llvm::StringRef user);

  LLMUsage usage() const;
  const LLMConfig &getConfig() const { return config; }

  /// The request body as sent (for tests and the cache key).
  std::string requestBody(llvm::StringRef system, llvm::StringRef user) const;
  /// The endpoint URL the client posts to.
  std::string endpoint() const;

private:
  llvm::Expected<LLMAnswer> send(const std::string &body);
  std::string cachePath(const std::string &body) const;

  LLMConfig config;
  std::string apiKey;
  mutable std::mutex mutex;
  LLMUsage spent;
};

} // namespace kf

#endif // KF_SEARCH_LLMCLIENT_H
