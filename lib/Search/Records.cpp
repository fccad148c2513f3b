//===- Records.cpp - A search's records: every candidate, as it completes -===//

#include "kf/Search/Records.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>

using namespace kf;

llvm::Expected<std::unique_ptr<CandidateRecords>>
CandidateRecords::open(llvm::StringRef directory, llvm::StringRef problem,
                       bool resume) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return error("cannot create " + directory + ": " + ec.message());
  auto pathOf = [&](llvm::StringRef name) {
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, name);
    return std::string(path);
  };
  std::string recordsPath = pathOf("candidates.jsonl");
  std::unique_ptr<CandidateRecords> records(new CandidateRecords());
  // A kill may have cut the last line: the next record starts a new one.
  bool cutLine = false;
  if (resume) {
    auto file = llvm::MemoryBuffer::getFile(recordsPath);
    if (!file)
      return error("--resume: cannot read " + recordsPath + ": " +
                   file.getError().message());
    llvm::StringRef text = (*file)->getBuffer();
    cutLine = !text.empty() && !text.ends_with("\n");
    llvm::SmallVector<llvm::StringRef> lines;
    text.split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef line : lines) {
      llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
      const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
      if (!value)
        llvm::consumeError(value.takeError());
      std::optional<llvm::StringRef> script =
          object ? object->getString("script") : std::nullopt;
      std::optional<llvm::StringRef> status =
          object ? object->getString("status") : std::nullopt;
      std::optional<double> seconds =
          object ? object->getNumber("seconds") : std::nullopt;
      if (!script || !status || !seconds) {
        ++records->unreadable;
        continue;
      }
      Outcome outcome{status->str(),
                      *seconds,
                      {},
                      object->getString("error").value_or("").str()};
      if (const llvm::json::Array *triggers = object->getArray("triggers"))
        for (const llvm::json::Value &trigger : *triggers)
          outcome.triggers.push_back(trigger.getAsString().value_or("").str());
      records->recorded[*script] = std::move(outcome);
      records->recordLines.push_back(line.str());
      if (std::optional<llvm::StringRef> evaluator =
              object->getString("evaluator"))
        records->evaluator = evaluator->str();
    }
    if (auto id = llvm::MemoryBuffer::getFile(pathOf("run-id")))
      records->runId = (*id)->getBuffer().trim().str();
  }
  if (records->runId.empty()) {
    records->runId =
        llvm::formatv(
            "{0}-{1}-{2}", problem,
            std::chrono::system_clock::now().time_since_epoch().count(),
            llvm::sys::Process::getProcessId())
            .str();
    std::error_code ec;
    llvm::raw_fd_ostream id(pathOf("run-id"), ec);
    if (ec)
      return error("cannot write " + pathOf("run-id") + ": " + ec.message());
    id << records->runId << "\n";
  }
  std::error_code ec;
  records->out = std::make_unique<llvm::raw_fd_ostream>(
      recordsPath, ec,
      resume ? llvm::sys::fs::OF_Append : llvm::sys::fs::OF_None);
  if (ec)
    return error("cannot write " + recordsPath + ": " + ec.message());
  if (cutLine)
    *records->out << "\n";
  return std::move(records);
}

std::optional<Outcome> CandidateRecords::lookup(llvm::StringRef text) const {
  auto it = recorded.find(text);
  if (it == recorded.end())
    return std::nullopt;
  return it->second;
}

std::string CandidateRecords::append(const CandidateSource &candidate,
                                     const Outcome &outcome,
                                     llvm::StringRef evaluatorName) {
  std::string line;
  llvm::raw_string_ostream(line) << llvm::json::Value(
      llvm::json::Object{{"script", candidate.text},
                         {"kind", stringifyCandidateKind(candidate.kind)},
                         {"status", outcome.status},
                         {"seconds", outcome.seconds},
                         {"triggers", outcome.triggers},
                         {"error", outcome.error},
                         {"evaluator", evaluatorName}});
  *out << line << "\n";
  out->flush();
  recordLines.push_back(line);
  return line;
}
