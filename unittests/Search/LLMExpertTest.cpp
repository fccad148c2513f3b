//===- LLMExpertTest.cpp - LLM prompts, answers and request bodies --------===//

#include "kf/Search/LLMExpert.h"
#ifdef KF_ENABLE_LLM
#include "kf/Search/LLMClient.h"
#endif

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cmath>
#include <functional>

using namespace kf;

namespace {

const char *kScript = "module attributes {transform.with_named_sequence} {\n"
                      "  transform.named_sequence @__transform_main(%root: "
                      "!transform.any_op {transform.consumed}) {\n"
                      "    transform.yield\n  }\n}\n";

TEST(ParseLLMAnswer, TakesTheFirstMLIRBlockAndTheProseBeforeIt) {
  std::string answer = "Vectorize the loads.\nMore words.\n\n```python\n"
                       "print('not this')\n```\nThen:\n```mlir\n" +
                       std::string(kScript) + "```\n";
  llvm::Expected<ParsedLLMAnswer> parsed = parseLLMAnswer(answer);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->kind, CandidateKind::Schedule);
  EXPECT_EQ(parsed->text, kScript);
  EXPECT_EQ(parsed->summary, "Vectorize the loads.");
}

TEST(ParseLLMAnswer, AcceptsCRLFUntaggedAndUnclosedFences) {
  llvm::Expected<ParsedLLMAnswer> crlf =
      parseLLMAnswer("Kernel:\r\n```\r\nmodule {\r\n  func.func @f() "
                     "{ return }\r\n}\r\n```\r\n");
  ASSERT_TRUE(bool(crlf)) << llvm::toString(crlf.takeError());
  EXPECT_EQ(crlf->kind, CandidateKind::Kernel);
  EXPECT_EQ(crlf->text.find('\r'), std::string::npos);

  // A model cut off by its token limit: the block runs to the end.
  llvm::Expected<ParsedLLMAnswer> cut =
      parseLLMAnswer(std::string("```mlir\n") + kScript);
  ASSERT_TRUE(bool(cut)) << llvm::toString(cut.takeError());
  EXPECT_EQ(cut->summary, "(no explanation)");
}

TEST(ParseLLMAnswer, SaysWhyThereIsNoCandidate) {
  llvm::Expected<ParsedLLMAnswer> prose =
      parseLLMAnswer("I would vectorize the loads.");
  ASSERT_FALSE(bool(prose));
  EXPECT_EQ(llvm::toString(prose.takeError()),
            "the answer has no code block (28 characters of prose)");
  llvm::Expected<ParsedLLMAnswer> other =
      parseLLMAnswer("```cuda\n__global__ void f() {}\n```");
  ASSERT_FALSE(bool(other));
  EXPECT_EQ(llvm::toString(other.takeError()),
            "the answer has no ```mlir block holding a module");
}

TEST(BuildLLMPrompts, CarryTheRulesTheParentAndTheError) {
  LLMPromptInput input;
  input.focus = ExpertFocus::Compute;
  input.repair = true;
  input.problem = "kf.problem @relu ...";
  input.parentKind = CandidateKind::Schedule;
  input.parentText = kScript;
  input.parentStatus = CandidateStatus::CompileError;
  input.parentStage = "transform";
  input.parentError = "op 'transform.structured.tile_using_forallx' unknown";
  input.experiences = {"after latency-bound, split-reduction helped in 67% "
                       "of tries"};
  input.nearby = {"#3 llm:compute: tiles -> correct 1.0 ms"};
  auto [system, user] = buildLLMPrompts(input);
  EXPECT_NE(system.find("repair"), std::string::npos);
  EXPECT_NE(system.find("Cheating is rejected"), std::string::npos);
  EXPECT_NE(system.find("```mlir"), std::string::npos);
  EXPECT_NE(user.find("kf.problem @relu"), std::string::npos);
  EXPECT_NE(user.find("## Candidate to repair (schedule)"), std::string::npos);
  EXPECT_NE(user.find(input.parentError), std::string::npos);
  EXPECT_NE(user.find("split-reduction helped"), std::string::npos);
  EXPECT_NE(user.find("#3 llm:compute"), std::string::npos);
  EXPECT_EQ(llmExpertName(ExpertFocus::Compute, true), "llm:repair");
  EXPECT_EQ(llmExpertName(ExpertFocus::Memory, false), "llm:memory");
}

TEST(LLMScriptExperts, AskOncePerRequestAndKeepEveryFailure) {
  // A stand-in LLM: answers the memory expert with a script, the compute
  // expert with prose, and fails for the others.
  std::atomic<int> asked{0};
  LLMAskFn ask = [&](llvm::StringRef system,
                     llvm::StringRef user) -> llvm::Expected<std::string> {
    ++asked;
    EXPECT_NE(user.find("kf.problem @p"), llvm::StringRef::npos);
    if (system.contains("memory-access expert")) {
      EXPECT_NE(user.find("## Parent candidate (schedule)"),
                llvm::StringRef::npos);
      return "Wider loads.\n```mlir\n" + std::string(kScript) + "```\n";
    }
    if (system.contains("GPU compute expert"))
      return std::string("No code today.");
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "HTTP 500");
  };
  std::string problem = "kf.problem @p ...";
  ActionWeights weights;
  LLMFailureLog failures;
  ScriptExpertFn experts =
      makeLLMScriptExperts(ask, /*concurrency=*/3, problem, weights, failures);
  SearchResult sofar;
  SearchCandidate first;
  first.expert = "default";
  first.script = kScript;
  first.outcome = {CandidateStatus::Correct, 1e-3, {"memory-bound"}, ""};
  sofar.candidates.push_back(first);
  std::vector<ScriptRequest> requests = {
      {0, ExpertFocus::Memory, 0u, false},
      {1, ExpertFocus::Compute, std::nullopt, false},
      {2, ExpertFocus::Parallelism, std::nullopt, false}};
  std::vector<std::optional<ScriptProposal>> answers = experts(requests, sofar);
  EXPECT_EQ(asked.load(), 3);
  ASSERT_EQ(answers.size(), 3u);
  ASSERT_TRUE(answers[0]);
  EXPECT_EQ(answers[0]->expert, "llm:memory");
  EXPECT_EQ(answers[0]->change, "Wider loads.");
  EXPECT_EQ(answers[0]->kind, CandidateKind::Schedule);
  EXPECT_FALSE(answers[1]);
  EXPECT_FALSE(answers[2]);
  std::vector<std::string> logged = failures.all();
  ASSERT_EQ(logged.size(), 2u);
  llvm::sort(logged);
  EXPECT_EQ(logged[0], "llm:compute (island 1): the answer has no code block "
                       "(14 characters of prose)");
  EXPECT_EQ(logged[1], "llm:parallelism (island 2): HTTP 500");
}

#ifdef KF_ENABLE_LLM
/// Loads `text` as an --llm-config file; "" on success, else the error.
std::string loadConfig(LLMConfig &config, llvm::StringRef text) {
  llvm::SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("kf-llm-config", "json", fd, path))
    return "cannot create a temporary file";
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
  }
  llvm::Error error = config.loadFile(path);
  llvm::sys::fs::remove(path);
  if (!error)
    return "";
  std::string message = llvm::toString(std::move(error));
  // The temporary path is not part of what the tests compare.
  return message.substr(message.find(": ") + 2);
}

TEST(LLMConfig, LoadsEveryKeyAndRefusesWrongTypes) {
  LLMConfig config;
  EXPECT_EQ(loadConfig(config, R"json({"provider": "anthropic",
      "base_url": "http://127.0.0.1:9", "model": "m", "api_key_env": "K",
      "temperature": 0.5, "max_tokens": 100, "timeout_seconds": 7.5,
      "max_retries": 2, "concurrency": 3, "budget_tokens": 1000,
      "budget_usd": 1.25, "price_input_per_mtok": 3,
      "price_output_per_mtok": 15})json"),
            "");
  EXPECT_EQ(config.provider, LLMProvider::Anthropic);
  EXPECT_EQ(config.baseUrl, "http://127.0.0.1:9");
  EXPECT_EQ(config.maxTokens, 100u);
  EXPECT_EQ(config.concurrency, 3u);
  EXPECT_DOUBLE_EQ(config.timeoutSeconds, 7.5);
  EXPECT_DOUBLE_EQ(config.outputPricePerMillion, 15);

  // A value of the wrong type names its key instead of being ignored.
  LLMConfig other;
  EXPECT_EQ(loadConfig(other, R"({"max_tokens": "100"})"),
            "expected integer at config.max_tokens");
  EXPECT_EQ(other.maxTokens, LLMConfig().maxTokens);
  EXPECT_EQ(loadConfig(other, R"({"concurrency": -1})"),
            "concurrency = -1 is out of range");
  EXPECT_EQ(loadConfig(other, R"({"model": 3})"),
            "expected string at config.model");
  EXPECT_EQ(loadConfig(other, R"({"provider": "gemini"})"),
            "provider \"gemini\" is not openai or anthropic");
  EXPECT_NE(
      loadConfig(other, R"({"modle": "m"})").find("unknown key \"modle\""),
      std::string::npos);
}

TEST(LLMClient, SpeaksBothWireFormats) {
  LLMConfig config;
  config.baseUrl = "http://127.0.0.1:8000/v1/";
  config.model = "m";
  LLMClient openai(config);
  EXPECT_EQ(openai.endpoint(), "http://127.0.0.1:8000/v1/chat/completions");
  std::string body = openai.requestBody("sys", "user");
  EXPECT_NE(body.find(R"("role":"system")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("model":"m")"), std::string::npos) << body;

  config.provider = LLMProvider::Anthropic;
  LLMClient anthropic(config);
  EXPECT_EQ(anthropic.endpoint(), "http://127.0.0.1:8000/v1/messages");
  body = anthropic.requestBody("sys", "user");
  EXPECT_NE(body.find(R"("system":"sys")"), std::string::npos) << body;
  EXPECT_EQ(body.find(R"("role":"system")"), std::string::npos) << body;
}

TEST(LLMClient, ReplayNeverConnectsAndBudgetsStopRequests) {
  LLMConfig config;
  config.baseUrl = "http://127.0.0.1:9/v1"; // nothing listens there
  config.model = "m";
  config.replay = true;
  config.cacheDir = "/nonexistent-kf-cache";
  LLMClient replaying(config);
  llvm::Expected<LLMAnswer> answer = replaying.complete("s", "u");
  ASSERT_FALSE(bool(answer));
  EXPECT_NE(llvm::toString(answer.takeError()).find("not in the cache"),
            std::string::npos);
  EXPECT_EQ(replaying.usage().requests, 0);

  LLMConfig bad;
  llvm::Error noUrl = bad.validate();
  EXPECT_TRUE(bool(noUrl)) << "no base URL";
  llvm::consumeError(std::move(noUrl));
  bad.baseUrl = "ftp://x";
  bad.model = "m";
  llvm::Error error = bad.validate();
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("http://"),
            std::string::npos);
}
TEST(LLMClient, ChecksBaseUrlsWhenGiven) {
  for (const char *good :
       {"http://127.0.0.1:8000/v1", "https://api.openai.com/v1",
        "http://[::1]:8080/v1", "http://localhost"})
    EXPECT_FALSE(bool(checkBaseUrl(good))) << good;
  for (const char *bad :
       {"http://", "http://[::1", "http://127.0.0.1:99999/v1",
        "http://127.0.0.1:0/v1", "http://host:/v1", "ftp://host/v1",
        "http://a b/v1", "http://user:key@host/v1", "http://[]/v1"}) {
    llvm::Error error = checkBaseUrl(bad);
    EXPECT_TRUE(bool(error)) << bad;
    llvm::consumeError(std::move(error));
  }
}

TEST(LLMConfig, RefusesNumbersThatMeanNothing) {
  LLMConfig config;
  config.baseUrl = "http://127.0.0.1:8000/v1";
  config.model = "m";
  EXPECT_FALSE(bool(config.validate()));
  for (auto set : std::vector<std::function<void(LLMConfig &)>>{
           [](LLMConfig &c) { c.temperature = std::nan(""); },
           [](LLMConfig &c) { c.temperature = -1; },
           [](LLMConfig &c) { c.timeoutSeconds = INFINITY; },
           [](LLMConfig &c) { c.budgetDollars = -1; },
           [](LLMConfig &c) { c.budgetTokens = -5; },
           [](LLMConfig &c) { c.inputPricePerMillion = std::nan(""); }}) {
    LLMConfig changed = config;
    set(changed);
    llvm::Error error = changed.validate();
    EXPECT_TRUE(bool(error));
    llvm::consumeError(std::move(error));
  }
}
#endif

} // namespace
