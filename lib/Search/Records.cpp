//===- Records.cpp - A search's records: every candidate, as it completes -===//

#include "kf/Search/Records.h"
#include "kf/Search/OutputDirectory.h"
#include "kf/Support/Redaction.h"

#include "llvm/ADT/StringSet.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>

using namespace kf;

llvm::Expected<std::unique_ptr<CandidateRecords>>
CandidateRecords::open(llvm::StringRef directory, llvm::StringRef problem,
                       bool resume, const llvm::json::Object &identity,
                       bool replace) {
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
  std::string identityPath = pathOf("run.json");
  for (const std::string &path : {recordsPath, identityPath, pathOf("run-id")})
    if (llvm::sys::fs::is_symlink_file(path))
      return error(path + " is a symlink: kf neither reads records through "
                          "one nor writes through one; remove it");
  // An empty records file (a run that failed before its first candidate)
  // holds nothing to lose.
  uint64_t recordedBytes = 0;
  if (!resume && !replace &&
      !llvm::sys::fs::file_size(recordsPath, recordedBytes) &&
      recordedBytes > 0) {
    std::string owner = "another run";
    if (auto id = llvm::MemoryBuffer::getFile(pathOf("run-id")))
      owner = "run " + (*id)->getBuffer().trim().str();
    return error(directory + " holds the records of " + owner +
                 " (candidates.jsonl): continue it with --resume, replace "
                 "its records with --replace, or give another --output "
                 "directory");
  }
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
      Outcome outcome;
      if (!script || !status || !seconds ||
          !parseStatus(*status, outcome.status, outcome.stage)) {
        ++records->unreadable;
        continue;
      }
      outcome.seconds = *seconds;
      outcome.error = object->getString("error").value_or("").str();
      if (const llvm::json::Array *triggers = object->getArray("triggers"))
        for (const llvm::json::Value &trigger : *triggers)
          outcome.triggers.push_back(trigger.getAsString().value_or("").str());
      outcome.kernels = object->getInteger("kernels").value_or(0);
      outcome.globalBytes = object->getNumber("global_bytes").value_or(0);
      records->recorded[*script] = std::move(outcome);
      records->recordLines.push_back(line.str());
      if (std::optional<llvm::StringRef> evaluator =
              object->getString("evaluator"))
        records->evaluator = evaluator->str();
    }
    if (auto id = llvm::MemoryBuffer::getFile(pathOf("run-id")))
      records->runId = (*id)->getBuffer().trim().str();
    // The run must be the one recorded: same problem text, same schedule
    // space, same settings. Records from before run.json was kept are
    // resumed as they are.
    if (auto text = llvm::MemoryBuffer::getFile(identityPath)) {
      llvm::Expected<llvm::json::Value> recorded =
          llvm::json::parse((*text)->getBuffer());
      if (!recorded)
        return error("--resume: " + identityPath + ": " +
                     llvm::toString(recorded.takeError()));
      const llvm::json::Object *object = recorded->getAsObject();
      if (!object)
        return error("--resume: " + identityPath + " is not a JSON object");
      std::string differences;
      auto describe = [](const llvm::json::Value *value) {
        if (!value)
          return std::string("(none)");
        std::string text;
        llvm::raw_string_ostream(text) << *value;
        return text;
      };
      llvm::StringSet<> keys;
      for (const auto &entry : *object)
        keys.insert(entry.first);
      for (const auto &entry : identity)
        keys.insert(entry.first);
      std::vector<std::string> sorted;
      for (const auto &key : keys)
        sorted.push_back(key.getKey().str());
      llvm::sort(sorted);
      for (const std::string &key : sorted) {
        const llvm::json::Value *was = object->get(key);
        const llvm::json::Value *now = identity.get(key);
        if (was && now && *was == *now)
          continue;
        differences += llvm::formatv("\n  {0}: recorded {1}, given {2}", key,
                                     describe(was), describe(now))
                           .str();
      }
      if (!differences.empty())
        return error("--resume: " + directory + " holds run " + records->runId +
                     " of another search:" + differences +
                     "\nresume it with what it was started with, or start "
                     "a new run in another --output directory");
    }
  }
  if (records->runId.empty()) {
    records->runId =
        llvm::formatv(
            "{0}-{1}-{2}", problem,
            std::chrono::system_clock::now().time_since_epoch().count(),
            llvm::sys::Process::getProcessId())
            .str();
    if (llvm::Error failed =
            writeFileReplacing(pathOf("run-id"), records->runId + "\n"))
      return std::move(failed);
  }
  if (!resume || !llvm::sys::fs::exists(identityPath)) {
    std::string text;
    llvm::raw_string_ostream(text)
        << llvm::formatv("{0:2}",
                         llvm::json::Value(llvm::json::Object(identity)))
        << "\n";
    if (!identity.empty())
      if (llvm::Error failed = writeFileReplacing(identityPath, text))
        return std::move(failed);
  }
  llvm::Expected<int> fd =
      openForAppendNoFollow(recordsPath, /*create=*/true, /*truncate=*/!resume);
  if (!fd)
    return fd.takeError();
  records->out =
      std::make_unique<llvm::raw_fd_ostream>(*fd, /*shouldClose=*/true);
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
                         {"status", outcome.statusText()},
                         {"seconds", outcome.seconds},
                         {"triggers", outcome.triggers},
                         {"error", outcome.error},
                         {"kernels", (int64_t)outcome.kernels},
                         {"global_bytes", outcome.globalBytes},
                         {"evaluator", evaluatorName}});
  line = redactSecrets(line);
  *out << line << "\n";
  out->flush();
  recordLines.push_back(line);
  return line;
}
