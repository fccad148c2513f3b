//===- LLMClient.cpp - Chat completions over HTTP (libcurl) ---------------===//

#include "kf/Search/LLMClient.h"
#include "kf/Support/Redaction.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <curl/curl.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>
#include <tuple>

using namespace kf;

std::optional<LLMProvider> kf::parseLLMProvider(llvm::StringRef name) {
  if (name == "openai")
    return LLMProvider::OpenAI;
  if (name == "anthropic")
    return LLMProvider::Anthropic;
  return std::nullopt;
}

llvm::Error kf::checkBaseUrl(llvm::StringRef url) {
  auto error = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + url.str() + "' " + why.str());
  };
  for (char c : url)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return error("holds a space or a control character");
  llvm::StringRef rest = url;
  if (!rest.consume_front("http://") && !rest.consume_front("https://"))
    return error("must start with http:// or https://");
  llvm::StringRef authority =
      rest.take_until([](char c) { return c == '/' || c == '?' || c == '#'; });
  if (authority.contains('@'))
    return error("holds user information (user@host): give the API key "
                 "through api_key_env, never in the URL");
  llvm::StringRef host = authority, port;
  if (authority.starts_with("[")) {
    size_t close = authority.find(']');
    if (close == llvm::StringRef::npos)
      return error("opens an IPv6 address with '[' and never closes it");
    host = authority.take_front(close + 1);
    llvm::StringRef after = authority.drop_front(close + 1);
    if (!after.empty() && !after.consume_front(":"))
      return error("has '" + after + "' after its IPv6 address");
    port = after;
    if (host.size() == 2)
      return error("has an empty IPv6 address");
    if (host.drop_front().drop_back().find_first_not_of(
            "0123456789abcdefABCDEF:.") != llvm::StringRef::npos)
      return error("has an IPv6 address with characters other than hex "
                   "digits, ':' and '.'");
  } else {
    std::tie(host, port) = authority.split(':');
    if (authority.contains(':') && port.empty())
      return error("has an empty port after ':'");
  }
  if (host.empty())
    return error("has no host (e.g. http://127.0.0.1:8000/v1)");
  if (!port.empty()) {
    unsigned number = 0;
    if (port.getAsInteger(10, number) || number == 0 || number > 65535)
      return error("has port '" + port + "': give a number from 1 to 65535");
  }
  return llvm::Error::success();
}

llvm::Error LLMConfig::loadFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::createStringError(file.getError(), "cannot read %s: %s",
                                   path.str().c_str(),
                                   file.getError().message().c_str());
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*file)->getBuffer());
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                   path.str().c_str(),
                                   llvm::toString(value.takeError()).c_str());
  const llvm::json::Object *object = value->getAsObject();
  if (!object)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: expected a JSON object",
                                   path.str().c_str());
  static const char *const known[] = {"provider",
                                      "base_url",
                                      "model",
                                      "api_key_env",
                                      "temperature",
                                      "max_tokens",
                                      "timeout_seconds",
                                      "max_retries",
                                      "concurrency",
                                      "budget_tokens",
                                      "budget_usd",
                                      "price_input_per_mtok",
                                      "price_output_per_mtok"};
  for (const auto &entry : *object)
    if (!llvm::is_contained(known, entry.first.str()))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: unknown key \"%s\" (known: provider, base_url, model, "
          "api_key_env, temperature, max_tokens, timeout_seconds, "
          "max_retries, concurrency, budget_tokens, budget_usd, "
          "price_input_per_mtok, price_output_per_mtok)",
          path.str().c_str(), entry.first.str().c_str());
  // Each key mapped with its type into a copy: a value of the wrong type is
  // an error naming the key, never silently ignored, and leaves this
  // configuration as it was.
  LLMConfig loaded = *this;
  std::optional<std::string> providerName;
  std::optional<int64_t> tokens, retries, requests;
  llvm::json::Path::Root root("config");
  llvm::json::ObjectMapper mapper(*value, root);
  if (!mapper.mapOptional("provider", providerName) ||
      !mapper.mapOptional("base_url", loaded.baseUrl) ||
      !mapper.mapOptional("model", loaded.model) ||
      !mapper.mapOptional("api_key_env", loaded.apiKeyEnv) ||
      !mapper.mapOptional("temperature", loaded.temperature) ||
      !mapper.mapOptional("max_tokens", tokens) ||
      !mapper.mapOptional("timeout_seconds", loaded.timeoutSeconds) ||
      !mapper.mapOptional("max_retries", retries) ||
      !mapper.mapOptional("concurrency", requests) ||
      !mapper.mapOptional("budget_tokens", loaded.budgetTokens) ||
      !mapper.mapOptional("budget_usd", loaded.budgetDollars) ||
      !mapper.mapOptional("price_input_per_mtok",
                          loaded.inputPricePerMillion) ||
      !mapper.mapOptional("price_output_per_mtok",
                          loaded.outputPricePerMillion))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                   path.str().c_str(),
                                   llvm::toString(root.getError()).c_str());
  // The counts are unsigned fields: read as integers, checked, then set.
  for (auto [key, number, field] :
       {std::tuple{"max_tokens", tokens, &loaded.maxTokens},
        {"max_retries", retries, &loaded.maxRetries},
        {"concurrency", requests, &loaded.concurrency}}) {
    if (!number)
      continue;
    if (*number < 0 || *number > std::numeric_limits<int>::max())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(), "%s: %s = %lld is out of range",
          path.str().c_str(), key, (long long)*number);
    *field = *number;
  }
  if (providerName) {
    std::optional<LLMProvider> parsed = parseLLMProvider(*providerName);
    if (!parsed)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: provider \"%s\" is not openai or anthropic", path.str().c_str(),
          providerName->c_str());
    loaded.provider = *parsed;
  }
  *this = std::move(loaded);
  return llvm::Error::success();
}

llvm::Error LLMConfig::validate() const {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  if (baseUrl.empty())
    return error("LLM experts need --llm-base-url (e.g. "
                 "http://127.0.0.1:8000/v1 for a local server, "
                 "https://api.openai.com/v1 or https://api.anthropic.com/v1)");
  if (llvm::Error invalid = checkBaseUrl(baseUrl))
    return error("base URL " + llvm::toString(std::move(invalid)));
  if (model.empty())
    return error("LLM experts need --llm-model (the model name the endpoint "
                 "serves)");
  if (maxTokens == 0 || !(timeoutSeconds > 0) || concurrency == 0)
    return error("LLM max tokens, timeout and concurrency must be positive");
  // NaN would be sent as invalid JSON, an infinite timeout or budget is no
  // limit at all, and a negative budget or price means nothing.
  auto finite = [&](llvm::StringRef name, double value,
                    bool positive) -> llvm::Error {
    if (!std::isfinite(value) || value < 0 || (positive && value == 0)) {
      char text[32];
      snprintf(text, sizeof(text), "%g", value);
      return error(llvm::formatv("LLM {0} = {1}: give a finite number{2}", name,
                                 text,
                                 positive ? " greater than 0" : " of 0 or more")
                       .str());
    }
    return llvm::Error::success();
  };
  if (llvm::Error bad = finite("temperature", temperature, false))
    return bad;
  if (llvm::Error bad = finite("timeout_seconds", timeoutSeconds, true))
    return bad;
  if (llvm::Error bad = finite("budget_usd", budgetDollars, false))
    return bad;
  if (llvm::Error bad =
          finite("price_input_per_mtok", inputPricePerMillion, false))
    return bad;
  if (llvm::Error bad =
          finite("price_output_per_mtok", outputPricePerMillion, false))
    return bad;
  if (budgetTokens < 0)
    return error(llvm::formatv("LLM budget_tokens = {0}: give 0 (no limit) "
                               "or more",
                               budgetTokens)
                     .str());
  return llvm::Error::success();
}

llvm::json::Value kf::toJSON(const LLMUsage &usage) {
  return llvm::json::Object{{"requests", usage.requests},
                            {"cached_answers", usage.cachedAnswers},
                            {"failed_requests", usage.failedRequests},
                            {"input_tokens", usage.inputTokens},
                            {"output_tokens", usage.outputTokens},
                            {"dollars", usage.dollars}};
}

namespace {

/// curl_global_init is not thread-safe; run it once, first.
void initCurl() {
  static bool done = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)done;
}

struct Received {
  std::string body;
  size_t limit = 0;
  bool tooLarge = false;
  std::optional<double> retryAfter;
};

size_t writeBody(char *data, size_t size, size_t count, void *user) {
  auto *received = static_cast<Received *>(user);
  size_t bytes = size * count;
  if (received->body.size() + bytes > received->limit) {
    received->tooLarge = true;
    return 0; // makes curl fail with CURLE_WRITE_ERROR
  }
  received->body.append(data, bytes);
  return bytes;
}

size_t readHeader(char *data, size_t size, size_t count, void *user) {
  auto *received = static_cast<Received *>(user);
  llvm::StringRef line(data, size * count);
  if (line.starts_with_insensitive("retry-after:")) {
    double seconds;
    if (!line.drop_front(12).trim().getAsDouble(seconds))
      received->retryAfter = seconds;
  }
  return size * count;
}

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

} // namespace

LLMClient::LLMClient(LLMConfig config) : config(std::move(config)) {
  std::string env = this->config.apiKeyEnv;
  if (env.empty())
    env = this->config.provider == LLMProvider::Anthropic ? "ANTHROPIC_API_KEY"
                                                          : "OPENAI_API_KEY";
  apiKey = llvm::sys::Process::GetEnv(env).value_or("");
  // A server may echo the key back (in an answer, in an error message):
  // nothing kf writes may hold it.
  registerSecret(apiKey);
}

std::string LLMClient::endpoint() const {
  llvm::StringRef base = llvm::StringRef(config.baseUrl).rtrim('/');
  return (base + (config.provider == LLMProvider::Anthropic
                      ? "/messages"
                      : "/chat/completions"))
      .str();
}

std::string LLMClient::requestBody(llvm::StringRef system,
                                   llvm::StringRef user) const {
  llvm::json::Object body{{"model", config.model},
                          {"max_tokens", config.maxTokens},
                          {"temperature", config.temperature}};
  if (config.provider == LLMProvider::Anthropic) {
    body["system"] = system;
    body["messages"] = llvm::json::Array{
        llvm::json::Object{{"role", "user"}, {"content", user}}};
  } else {
    body["messages"] = llvm::json::Array{
        llvm::json::Object{{"role", "system"}, {"content", system}},
        llvm::json::Object{{"role", "user"}, {"content", user}}};
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(body));
  return text;
}

std::string LLMClient::cachePath(const std::string &body) const {
  // The key covers what determines the answer: the wire format and the
  // body (model, prompts, temperature, token limit); not the host (a
  // replay may point elsewhere) and never the API key.
  llvm::SHA256 hash;
  hash.update(config.provider == LLMProvider::Anthropic ? "anthropic\n"
                                                        : "openai\n");
  hash.update(body);
  std::array<uint8_t, 32> digest = hash.final();
  llvm::SmallString<256> path(config.cacheDir);
  llvm::sys::path::append(path,
                          llvm::toHex(digest, /*LowerCase=*/true) + ".json");
  return std::string(path);
}

LLMUsage LLMClient::usage() const {
  std::lock_guard<std::mutex> lock(mutex);
  return spent;
}

/// Reads an answer out of a provider's response body.
static llvm::Expected<LLMAnswer> parseAnswer(LLMProvider provider,
                                             llvm::StringRef body) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(body);
  if (!value)
    return failure("the answer is not JSON (" +
                   llvm::toString(value.takeError()) +
                   "): " + body.take_front(200));
  const llvm::json::Object *object = value->getAsObject();
  LLMAnswer answer;
  if (!object)
    return failure("the answer is not a JSON object");
  if (provider == LLMProvider::Anthropic) {
    const llvm::json::Array *content = object->getArray("content");
    if (!content)
      return failure("the answer has no \"content\" array");
    for (const llvm::json::Value &block : *content)
      if (const llvm::json::Object *b = block.getAsObject())
        if (b->getString("type").value_or("text") == "text")
          answer.text += b->getString("text").value_or("").str();
    if (const llvm::json::Object *usage = object->getObject("usage")) {
      answer.inputTokens = usage->getInteger("input_tokens").value_or(0);
      answer.outputTokens = usage->getInteger("output_tokens").value_or(0);
    }
    return answer;
  }
  const llvm::json::Array *choices = object->getArray("choices");
  const llvm::json::Object *first =
      choices && !choices->empty() ? (*choices)[0].getAsObject() : nullptr;
  const llvm::json::Object *message =
      first ? first->getObject("message") : nullptr;
  std::optional<llvm::StringRef> content =
      message ? message->getString("content") : std::nullopt;
  if (!content)
    return failure("the answer has no choices[0].message.content");
  answer.text = content->str();
  if (const llvm::json::Object *usage = object->getObject("usage")) {
    answer.inputTokens = usage->getInteger("prompt_tokens").value_or(0);
    answer.outputTokens = usage->getInteger("completion_tokens").value_or(0);
  }
  return answer;
}

llvm::Expected<LLMAnswer> LLMClient::complete(llvm::StringRef system,
                                              llvm::StringRef user) {
  std::string body = requestBody(system, user);
  std::string cached = config.cacheDir.empty() ? "" : cachePath(body);
  if (!cached.empty()) {
    if (auto file = llvm::MemoryBuffer::getFile(cached)) {
      llvm::Expected<llvm::json::Value> value =
          llvm::json::parse((*file)->getBuffer());
      const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
      if (!value)
        llvm::consumeError(value.takeError());
      if (object && object->getString("text")) {
        LLMAnswer answer;
        answer.text = redactSecrets(*object->getString("text"));
        answer.inputTokens = object->getInteger("input_tokens").value_or(0);
        answer.outputTokens = object->getInteger("output_tokens").value_or(0);
        answer.cached = true;
        std::lock_guard<std::mutex> lock(mutex);
        ++spent.cachedAnswers;
        return answer;
      }
    }
  }
  if (config.replay)
    return failure("--llm-replay: this request is not in the cache " +
                   config.cacheDir +
                   " (the run asked something the "
                   "recorded run did not)");
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (config.budgetTokens > 0 &&
        spent.inputTokens + spent.outputTokens >= config.budgetTokens)
      return failure(llvm::formatv("the LLM token budget of {0} is spent",
                                   config.budgetTokens)
                         .str());
    if (config.budgetDollars > 0 && spent.dollars >= config.budgetDollars)
      return failure(llvm::formatv("the LLM budget of ${0:F2} is spent",
                                   config.budgetDollars)
                         .str());
  }
  llvm::Expected<LLMAnswer> answer = send(body);
  std::lock_guard<std::mutex> lock(mutex);
  if (!answer) {
    ++spent.failedRequests;
    // Error messages quote the server's body, which may echo the key.
    return failure(redactSecrets(llvm::toString(answer.takeError())));
  }
  // What the server says enters kf here, redacted before anything (the
  // cache, the records, the report) keeps it.
  answer->text = redactSecrets(answer->text);
  ++spent.requests;
  spent.inputTokens += answer->inputTokens;
  spent.outputTokens += answer->outputTokens;
  spent.dollars += (answer->inputTokens * config.inputPricePerMillion +
                    answer->outputTokens * config.outputPricePerMillion) /
                   1e6;
  if (!cached.empty()) {
    // Written to a temporary file and renamed: a reader never sees half an
    // entry, and a kill leaves at most a stray temporary file.
    llvm::sys::fs::create_directories(config.cacheDir);
    std::string temporary =
        cached + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
    std::error_code error;
    {
      llvm::raw_fd_ostream out(temporary, error);
      if (!error)
        out << llvm::json::Value(
            llvm::json::Object{{"text", answer->text},
                               {"input_tokens", answer->inputTokens},
                               {"output_tokens", answer->outputTokens}});
    }
    if (!error)
      llvm::sys::fs::rename(temporary, cached);
  }
  return answer;
}

llvm::Expected<LLMAnswer> LLMClient::send(const std::string &body) {
  initCurl();
  std::string url = endpoint();
  std::string lastError;
  unsigned attempts = 0;
  for (unsigned attempt = 0; attempt <= config.maxRetries; ++attempt) {
    ++attempts;
    CURL *curl = curl_easy_init();
    if (!curl)
      return failure("cannot create a libcurl handle");
    Received received;
    received.limit = config.maxResponseBytes;
    struct curl_slist *headers = nullptr;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    std::string auth;
    if (config.provider == LLMProvider::Anthropic) {
      headers = curl_slist_append(headers, "anthropic-version: 2023-06-01");
      if (!apiKey.empty())
        auth = "x-api-key: " + apiKey;
    } else if (!apiKey.empty()) {
      auth = "Authorization: Bearer " + apiKey;
    }
    if (!auth.empty())
      headers = curl_slist_append(headers, auth.c_str());
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)body.size());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, writeBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &received);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, readHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &received);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                     (long)(config.timeoutSeconds * 1000));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L); // threads
    CURLcode code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);

    bool retry = false;
    if (received.tooLarge)
      return failure(llvm::formatv("the answer from {0} is larger than {1} "
                                   "bytes; refused",
                                   url, config.maxResponseBytes)
                         .str());
    if (code != CURLE_OK) {
      lastError = llvm::formatv("{0}: {1}", url, curl_easy_strerror(code));
      // Timeouts and connections that fail or drop are worth another try.
      retry = code == CURLE_OPERATION_TIMEDOUT ||
              code == CURLE_COULDNT_CONNECT || code == CURLE_GOT_NOTHING ||
              code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR ||
              code == CURLE_PARTIAL_FILE;
    } else if (status == 200) {
      llvm::Expected<LLMAnswer> answer =
          parseAnswer(config.provider, received.body);
      if (answer)
        answer->attempts = attempt + 1;
      return answer;
    } else {
      lastError = llvm::formatv("{0} answered HTTP {1}: {2}", url, status,
                                llvm::StringRef(received.body).take_front(300))
                      .str();
      retry = status == 429 || status >= 500;
      if (status == 401 || status == 403)
        lastError +=
            " (check the API key in $" +
            (config.apiKeyEnv.empty()
                 ? std::string(config.provider == LLMProvider::Anthropic
                                   ? "ANTHROPIC_API_KEY"
                                   : "OPENAI_API_KEY")
                 : config.apiKeyEnv) +
            ")";
    }
    if (!retry || attempt == config.maxRetries)
      break;
    // Exponential backoff from 0.5 s, capped at 8 s; Retry-After wins
    // (capped at 30 s).
    double wait = std::min(8.0, 0.5 * double(1u << attempt));
    if (received.retryAfter)
      wait = std::min(30.0, *received.retryAfter);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
  return failure(lastError +
                 llvm::formatv(" (after {0} attempt(s))", attempts).str());
}
