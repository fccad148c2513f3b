//===- ExperienceLibrary.cpp - What worked, across runs and problems ------===//

#include "kf/Search/ExperienceLibrary.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <sqlite3.h>

#include <cmath>

using namespace kf;

namespace {

/// The curated rules (lib/Search/knowledge.json), embedded at build time so
/// that the portable binary needs no data files.
const char *const kKnowledgeJSON =
#include "Knowledge.inc"
    ;

constexpr int kSchemaVersion = 1;

llvm::Error sqliteError(sqlite3 *db, llvm::StringRef what) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(), "experience library: %s: %s",
      what.str().c_str(), db ? sqlite3_errmsg(db) : "cannot allocate");
}

/// A prepared statement, finalized when it goes out of scope.
class Statement {
public:
  Statement(sqlite3 *db, llvm::StringRef sql) : db(db) {
    if (sqlite3_prepare_v2(db, sql.data(), sql.size(), &statement, nullptr) !=
        SQLITE_OK)
      statement = nullptr;
  }
  ~Statement() { sqlite3_finalize(statement); }
  explicit operator bool() const { return statement; }

  Statement &bind(int index, llvm::StringRef text) {
    sqlite3_bind_text(statement, index, text.data(), text.size(),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(int index, int64_t value) {
    sqlite3_bind_int64(statement, index, value);
    return *this;
  }
  Statement &bind(int index, double value) {
    sqlite3_bind_double(statement, index, value);
    return *this;
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(statement); }
  std::string text(int column) {
    const unsigned char *value = sqlite3_column_text(statement, column);
    return value ? reinterpret_cast<const char *>(value) : "";
  }
  int64_t integer(int column) {
    return sqlite3_column_int64(statement, column);
  }
  double real(int column) { return sqlite3_column_double(statement, column); }

private:
  sqlite3 *db;
  sqlite3_stmt *statement = nullptr;
};

/// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed: a writer takes
/// the lock up front, so two runs never deadlock upgrading read locks.
class Transaction {
public:
  explicit Transaction(sqlite3 *db) : db(db) {
    begun = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) ==
            SQLITE_OK;
  }
  ~Transaction() {
    if (begun && !committed)
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  bool ok() const { return begun; }
  llvm::Error commit() {
    if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
      return sqliteError(db, "cannot commit");
    committed = true;
    return llvm::Error::success();
  }

private:
  sqlite3 *db;
  bool begun = false, committed = false;
};

} // namespace

//===----------------------------------------------------------------------===//
// Problem features and similarity
//===----------------------------------------------------------------------===//

std::string ProblemFeatures::signature() const {
  std::string text = elementType;
  for (const OpShape &op : ops) {
    text += "|";
    for (auto [index, size] : llvm::enumerate(op.parallelSizes))
      text += (index ? "x" : "") + std::to_string(size);
    if (op.reductionLoops)
      text +=
          llvm::formatv("/r{0}:{1}", op.reductionLoops, op.innerReductionSize)
              .str();
  }
  return text;
}

llvm::json::Value ProblemFeatures::toJSON() const {
  llvm::json::Array opsJSON;
  for (const OpShape &op : ops)
    opsJSON.push_back(
        llvm::json::Object{{"parallel", llvm::json::Array(op.parallelSizes)},
                           {"reduction_loops", op.reductionLoops},
                           {"inner_reduction", op.innerReductionSize}});
  return llvm::json::Object{{"problem", problem},
                            {"element_type", elementType},
                            {"ops", std::move(opsJSON)}};
}

std::optional<ProblemFeatures>
ProblemFeatures::fromJSON(const llvm::json::Value &value) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return std::nullopt;
  ProblemFeatures features;
  features.problem = object->getString("problem").value_or("").str();
  features.elementType = object->getString("element_type").value_or("").str();
  const llvm::json::Array *ops = object->getArray("ops");
  if (!ops)
    return std::nullopt;
  for (const llvm::json::Value &opValue : *ops) {
    const llvm::json::Object *op = opValue.getAsObject();
    const llvm::json::Array *parallel = op ? op->getArray("parallel") : nullptr;
    if (!parallel)
      return std::nullopt;
    OpShape shape;
    for (const llvm::json::Value &size : *parallel)
      shape.parallelSizes.push_back(size.getAsInteger().value_or(0));
    shape.reductionLoops = op->getInteger("reduction_loops").value_or(0);
    shape.innerReductionSize = op->getInteger("inner_reduction").value_or(0);
    features.ops.push_back(std::move(shape));
  }
  return features;
}

double kf::similarity(const ProblemFeatures &a, const ProblemFeatures &b) {
  if (a.ops.size() != b.ops.size() || a.elementType != b.elementType)
    return 0;
  // Sum of |log2 ratio| of every loop range: 0 for identical shapes.
  double distance = 0;
  auto logRatio = [](int64_t x, int64_t y) {
    return std::fabs(std::log2(double(std::max<int64_t>(x, 1))) -
                     std::log2(double(std::max<int64_t>(y, 1))));
  };
  for (auto [x, y] : llvm::zip_equal(a.ops, b.ops)) {
    if (x.parallelSizes.size() != y.parallelSizes.size() ||
        x.reductionLoops != y.reductionLoops)
      return 0;
    for (auto [p, q] : llvm::zip_equal(x.parallelSizes, y.parallelSizes))
      distance += logRatio(p, q);
    distance += logRatio(x.innerReductionSize, y.innerReductionSize);
  }
  return 1 / (1 + distance / 4);
}

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

ExperienceLibrary::~ExperienceLibrary() { sqlite3_close(db); }

std::string ExperienceLibrary::defaultPath() {
  if (std::optional<std::string> path =
          llvm::sys::Process::GetEnv("KF_EXPERIENCE_DB"))
    return *path;
  llvm::SmallString<256> path;
  if (std::optional<std::string> cache =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      cache && !cache->empty()) {
    path = *cache;
  } else if (llvm::sys::path::home_directory(path)) {
    llvm::sys::path::append(path, ".cache");
  } else {
    path = ".";
  }
  llvm::sys::path::append(path, "kf", "experience.sqlite");
  return std::string(path);
}

llvm::Error ExperienceLibrary::execute(llvm::StringRef sql) {
  char *message = nullptr;
  if (sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &message) ==
      SQLITE_OK)
    return llvm::Error::success();
  std::string text = message ? message : "unknown error";
  sqlite3_free(message);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "experience library %s: %s", path.c_str(),
                                 text.c_str());
}

llvm::Expected<std::unique_ptr<ExperienceLibrary>>
ExperienceLibrary::open(llvm::StringRef path) {
  llvm::StringRef directory = llvm::sys::path::parent_path(path);
  if (!directory.empty())
    if (std::error_code error = llvm::sys::fs::create_directories(directory))
      return llvm::createStringError(error, "cannot create %s: %s",
                                     directory.str().c_str(),
                                     error.message().c_str());
  sqlite3 *db = nullptr;
  if (sqlite3_open_v2(path.str().c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                          SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    llvm::Error error = sqliteError(db, "cannot open " + path.str());
    sqlite3_close(db);
    return std::move(error);
  }
  std::unique_ptr<ExperienceLibrary> library(
      new ExperienceLibrary(db, path.str()));
  // Concurrent runs wait for each other's short transactions instead of
  // failing; WAL lets readers proceed while one writes.
  sqlite3_busy_timeout(db, 30000);
  auto unusable = [&](llvm::Error error) -> llvm::Error {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s (move the file away, or pass another --db)",
        llvm::toString(std::move(error)).c_str());
  };
  if (llvm::Error error = library->execute(
          "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"))
    return unusable(std::move(error));
  if (llvm::Error error = library->execute(R"sql(
    BEGIN IMMEDIATE;
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE IF NOT EXISTS action_stats(
      trigger TEXT NOT NULL, action TEXT NOT NULL,
      prior_tries INTEGER NOT NULL DEFAULT 0,
      prior_successes INTEGER NOT NULL DEFAULT 0,
      tries INTEGER NOT NULL DEFAULT 0, successes INTEGER NOT NULL DEFAULT 0,
      speedup_sum REAL NOT NULL DEFAULT 0,
      rule TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT '',
      PRIMARY KEY(trigger, action));
    CREATE TABLE IF NOT EXISTS observations(
      run TEXT NOT NULL, candidate INTEGER NOT NULL,
      PRIMARY KEY(run, candidate));
    CREATE TABLE IF NOT EXISTS best_schedules(
      signature TEXT NOT NULL, evaluator TEXT NOT NULL,
      problem TEXT NOT NULL, features TEXT NOT NULL, schedule TEXT NOT NULL,
      seconds REAL NOT NULL, speedup REAL NOT NULL, run TEXT NOT NULL,
      PRIMARY KEY(signature, evaluator));
    INSERT OR IGNORE INTO meta VALUES('schema_version', ')sql" +
                                           std::to_string(kSchemaVersion) +
                                           R"sql(');
    COMMIT;)sql")) {
    llvm::consumeError(library->execute("ROLLBACK"));
    return unusable(std::move(error));
  }
  Statement version(db, "SELECT value FROM meta WHERE key='schema_version'");
  if (!version || version.step() != SQLITE_ROW ||
      version.text(0) != std::to_string(kSchemaVersion))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "experience library %s has schema version %s; this kf reads version "
        "%d: move the file away (or pass another --db)",
        path.str().c_str(), version ? version.text(0).c_str() : "?",
        kSchemaVersion);
  if (llvm::Error error = library->seedKnowledge())
    return std::move(error);
  return std::move(library);
}

llvm::Error ExperienceLibrary::seedKnowledge() {
  llvm::Expected<llvm::json::Value> knowledge =
      llvm::json::parse(kKnowledgeJSON);
  if (!knowledge)
    return knowledge.takeError();
  const llvm::json::Object *object = knowledge->getAsObject();
  const llvm::json::Array *rules = object ? object->getArray("rules") : nullptr;
  std::string version =
      std::to_string(object ? object->getInteger("version").value_or(0) : 0);
  if (!rules)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "knowledge.json has no rules");
  Transaction transaction(db);
  if (!transaction.ok())
    return sqliteError(db, "cannot lock " + path);
  Statement current(db, "SELECT value FROM meta WHERE key='knowledge'");
  if (current && current.step() == SQLITE_ROW && current.text(0) == version)
    return llvm::Error::success(); // up to date; the transaction rolls back
  // Priors, rules and sources come from the file; observations stay.
  for (const llvm::json::Value &ruleValue : *rules) {
    const llvm::json::Object *rule = ruleValue.getAsObject();
    if (!rule)
      continue;
    Statement upsert(db, R"sql(
      INSERT INTO action_stats(trigger, action, prior_tries, prior_successes,
                               rule, source)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6)
      ON CONFLICT(trigger, action) DO UPDATE SET
        prior_tries=excluded.prior_tries,
        prior_successes=excluded.prior_successes,
        rule=excluded.rule, source=excluded.source)sql");
    upsert.bind(1, rule->getString("trigger").value_or(""))
        .bind(2, rule->getString("action").value_or(""))
        .bind(3, rule->getInteger("tries").value_or(0))
        .bind(4, rule->getInteger("successes").value_or(0))
        .bind(5, rule->getString("rule").value_or(""))
        .bind(6, rule->getString("source").value_or(""));
    if (upsert.step() != SQLITE_DONE)
      return sqliteError(db, "cannot seed the curated rules");
  }
  Statement mark(db, "INSERT OR REPLACE INTO meta VALUES('knowledge', ?1)");
  mark.bind(1, llvm::StringRef(version));
  if (mark.step() != SQLITE_DONE)
    return sqliteError(db, "cannot seed the curated rules");
  return transaction.commit();
}

llvm::Expected<std::vector<ActionStats>> ExperienceLibrary::actionStats() {
  Statement query(db, R"sql(
    SELECT trigger, action, prior_tries, prior_successes, tries, successes,
           speedup_sum, rule, source
    FROM action_stats ORDER BY trigger, action)sql");
  if (!query)
    return sqliteError(db, "cannot read the action statistics");
  std::vector<ActionStats> stats;
  int status;
  while ((status = query.step()) == SQLITE_ROW)
    stats.push_back({query.text(0), query.text(1), query.integer(2),
                     query.integer(3), query.integer(4), query.integer(5),
                     query.real(6), query.text(7), query.text(8)});
  if (status != SQLITE_DONE)
    return sqliteError(db, "cannot read the action statistics");
  return stats;
}

llvm::Error ExperienceLibrary::recordTry(llvm::StringRef run,
                                         unsigned candidate,
                                         llvm::ArrayRef<std::string> triggers,
                                         llvm::StringRef action, bool success,
                                         double speedup) {
  Transaction transaction(db);
  if (!transaction.ok())
    return sqliteError(db, "cannot lock " + path);
  Statement observe(
      db, "INSERT OR IGNORE INTO observations(run, candidate) VALUES(?1, ?2)");
  observe.bind(1, run).bind(2, int64_t(candidate));
  if (observe.step() != SQLITE_DONE)
    return sqliteError(db, "cannot record an observation");
  if (sqlite3_changes(db) == 0)
    return llvm::Error::success(); // already counted (a resumed run)
  for (const std::string &trigger : triggers) {
    Statement update(db, R"sql(
      INSERT INTO action_stats(trigger, action, tries, successes, speedup_sum)
      VALUES(?1, ?2, 1, ?3, ?4)
      ON CONFLICT(trigger, action) DO UPDATE SET
        tries=tries + 1, successes=successes + excluded.successes,
        speedup_sum=speedup_sum + excluded.speedup_sum)sql");
    update.bind(1, llvm::StringRef(trigger))
        .bind(2, action)
        .bind(3, int64_t(success ? 1 : 0))
        .bind(4, success ? speedup : 0.0);
    if (update.step() != SQLITE_DONE)
      return sqliteError(db, "cannot update the action statistics");
  }
  return transaction.commit();
}

llvm::Error ExperienceLibrary::recordBest(const ProblemFeatures &features,
                                          llvm::StringRef evaluator,
                                          const Schedule &schedule,
                                          double seconds, double speedup,
                                          llvm::StringRef run) {
  Transaction transaction(db);
  if (!transaction.ok())
    return sqliteError(db, "cannot lock " + path);
  std::string featuresText, scheduleText;
  llvm::raw_string_ostream(featuresText) << features.toJSON();
  llvm::raw_string_ostream(scheduleText) << toJSON(schedule);
  Statement upsert(db, R"sql(
    INSERT INTO best_schedules(signature, evaluator, problem, features,
                               schedule, seconds, speedup, run)
    VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
    ON CONFLICT(signature, evaluator) DO UPDATE SET
      problem=excluded.problem, features=excluded.features,
      schedule=excluded.schedule, seconds=excluded.seconds,
      speedup=excluded.speedup, run=excluded.run
    WHERE excluded.seconds < best_schedules.seconds)sql");
  upsert.bind(1, llvm::StringRef(features.signature()))
      .bind(2, evaluator)
      .bind(3, llvm::StringRef(features.problem))
      .bind(4, llvm::StringRef(featuresText))
      .bind(5, llvm::StringRef(scheduleText))
      .bind(6, seconds)
      .bind(7, speedup)
      .bind(8, run);
  if (upsert.step() != SQLITE_DONE)
    return sqliteError(db, "cannot record the best schedule");
  return transaction.commit();
}

llvm::Expected<std::vector<Experience>>
ExperienceLibrary::retrieve(const ProblemFeatures &features, unsigned limit) {
  Statement query(db, "SELECT features, schedule, evaluator, seconds, speedup "
                      "FROM best_schedules ORDER BY signature, evaluator");
  if (!query)
    return sqliteError(db, "cannot read the best schedules");
  std::vector<Experience> found;
  int status;
  while ((status = query.step()) == SQLITE_ROW) {
    llvm::Expected<llvm::json::Value> featuresJSON =
        llvm::json::parse(query.text(0));
    llvm::Expected<llvm::json::Value> scheduleJSON =
        llvm::json::parse(query.text(1));
    if (!featuresJSON || !scheduleJSON) {
      // A row another kf version wrote: not usable, not fatal.
      llvm::consumeError(featuresJSON.takeError());
      llvm::consumeError(scheduleJSON.takeError());
      continue;
    }
    Experience experience;
    std::optional<ProblemFeatures> other =
        ProblemFeatures::fromJSON(*featuresJSON);
    llvm::json::Path::Root root;
    if (!other || !fromJSON(*scheduleJSON, experience.schedule, root))
      continue;
    experience.features = std::move(*other);
    experience.similarity = similarity(features, experience.features);
    if (experience.similarity <= 0)
      continue;
    experience.evaluator = query.text(2);
    experience.seconds = query.real(3);
    experience.speedup = query.real(4);
    found.push_back(std::move(experience));
  }
  if (status != SQLITE_DONE)
    return sqliteError(db, "cannot read the best schedules");
  std::stable_sort(found.begin(), found.end(),
                   [](const Experience &a, const Experience &b) {
                     if (a.similarity != b.similarity)
                       return a.similarity > b.similarity;
                     return a.speedup > b.speedup;
                   });
  if (found.size() > limit)
    found.resize(limit);
  return found;
}

llvm::Expected<std::string> ExperienceLibrary::integrityCheck() {
  Statement check(db, "PRAGMA integrity_check");
  if (!check || check.step() != SQLITE_ROW)
    return sqliteError(db, "cannot check integrity");
  return check.text(0);
}

llvm::Expected<llvm::json::Value> ExperienceLibrary::exportJSON() {
  llvm::Expected<std::vector<ActionStats>> stats = actionStats();
  if (!stats)
    return stats.takeError();
  llvm::json::Array statsJSON;
  for (const ActionStats &s : *stats)
    statsJSON.push_back(llvm::json::Object{
        {"trigger", s.trigger},
        {"action", s.action},
        {"prior_tries", s.priorTries},
        {"prior_successes", s.priorSuccesses},
        {"tries", s.tries},
        {"successes", s.successes},
        {"mean_speedup", s.successes ? s.speedupSum / s.successes : 0.0},
        {"expected_success", s.expectedSuccess()},
        {"rule", s.rule},
        {"source", s.source}});
  Statement query(db, "SELECT problem, signature, evaluator, schedule, "
                      "seconds, speedup FROM best_schedules ORDER BY problem, "
                      "signature, evaluator");
  if (!query)
    return sqliteError(db, "cannot read the best schedules");
  llvm::json::Array best;
  int status;
  while ((status = query.step()) == SQLITE_ROW) {
    llvm::Expected<llvm::json::Value> schedule =
        llvm::json::parse(query.text(3));
    if (!schedule) {
      llvm::consumeError(schedule.takeError());
      schedule = query.text(3);
    }
    best.push_back(llvm::json::Object{{"problem", query.text(0)},
                                      {"signature", query.text(1)},
                                      {"evaluator", query.text(2)},
                                      {"schedule", std::move(*schedule)},
                                      {"seconds", query.real(4)},
                                      {"speedup", query.real(5)}});
  }
  if (status != SQLITE_DONE)
    return sqliteError(db, "cannot read the best schedules");
  return llvm::json::Object{{"path", path},
                            {"action_stats", std::move(statsJSON)},
                            {"best_schedules", std::move(best)}};
}

//===----------------------------------------------------------------------===//
// Frozen weights
//===----------------------------------------------------------------------===//

ActionWeights::ActionWeights(llvm::ArrayRef<ActionStats> stats) {
  for (const ActionStats &s : stats)
    expected[{s.trigger, s.action}] = s.expectedSuccess();
}

double ActionWeights::weight(llvm::ArrayRef<std::string> triggers,
                             llvm::StringRef action) const {
  double sum = 0;
  unsigned count = 0;
  for (const std::string &trigger : triggers) {
    auto it = expected.find({trigger, action.str()});
    sum += it == expected.end() ? 0.5 : it->second;
    ++count;
  }
  return std::max(0.05, count ? sum / count : 0.5);
}

std::vector<std::string>
ActionWeights::describe(llvm::ArrayRef<std::string> triggers,
                        unsigned limit) const {
  std::vector<std::pair<double, std::string>> lines;
  for (const auto &[key, value] : expected)
    if (llvm::is_contained(triggers, key.first))
      lines.push_back(
          {value, llvm::formatv("after {0}, {1} helped in {2:F0}% of tries",
                                key.first, key.second, value * 100)
                      .str()});
  std::stable_sort(
      lines.begin(), lines.end(),
      [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<std::string> result;
  for (auto &line : lines)
    if (result.size() < limit)
      result.push_back(std::move(line.second));
  return result;
}

llvm::json::Value ActionWeights::toJSON() const {
  llvm::json::Array entries;
  for (const auto &[key, value] : expected)
    entries.push_back(llvm::json::Object{
        {"trigger", key.first}, {"action", key.second}, {"expected", value}});
  return entries;
}

std::optional<ActionWeights>
ActionWeights::fromJSON(const llvm::json::Value &value) {
  const llvm::json::Array *entries = value.getAsArray();
  if (!entries)
    return std::nullopt;
  ActionWeights weights;
  for (const llvm::json::Value &entry : *entries) {
    const llvm::json::Object *object = entry.getAsObject();
    if (!object)
      return std::nullopt;
    std::optional<llvm::StringRef> trigger = object->getString("trigger");
    std::optional<llvm::StringRef> action = object->getString("action");
    std::optional<double> expected = object->getNumber("expected");
    if (!trigger || !action || !expected)
      return std::nullopt;
    weights.expected[{trigger->str(), action->str()}] = *expected;
  }
  return weights;
}

//===----------------------------------------------------------------------===//
// Snapshots
//===----------------------------------------------------------------------===//

llvm::Expected<LibrarySnapshot>
LibrarySnapshot::take(ExperienceLibrary &library,
                      const ProblemFeatures &features,
                      const RestructureFn &restructure, unsigned limit) {
  LibrarySnapshot snapshot;
  llvm::Expected<std::vector<ActionStats>> stats = library.actionStats();
  if (!stats)
    return stats.takeError();
  snapshot.weights = ActionWeights(*stats);
  llvm::Expected<std::vector<Experience>> similar =
      library.retrieve(features, limit);
  if (!similar)
    return similar.takeError();
  for (const Experience &experience : *similar) {
    std::optional<Schedule> adapted =
        adaptGenome(experience.schedule, restructure);
    if (!adapted)
      continue;
    std::string name = "library:" + experience.features.problem;
    snapshot.seeds.push_back({name, *adapted});
    snapshot.notes.push_back(
        llvm::formatv("{0}: the best schedule of {1} ({2}, {3:F2}x over its "
                      "default; similarity {4:F2})",
                      name, experience.features.problem, experience.evaluator,
                      experience.speedup, experience.similarity)
            .str());
  }
  return snapshot;
}

llvm::json::Value LibrarySnapshot::toJSON() const {
  llvm::json::Array seedsJSON;
  for (const auto &[name, genome] : seeds)
    seedsJSON.push_back(
        llvm::json::Object{{"name", name}, {"schedule", kf::toJSON(genome)}});
  return llvm::json::Object{{"weights", weights.toJSON()},
                            {"seeds", std::move(seedsJSON)},
                            {"notes", llvm::json::Array(notes)}};
}

std::optional<LibrarySnapshot>
LibrarySnapshot::fromJSON(const llvm::json::Value &value) {
  const llvm::json::Object *object = value.getAsObject();
  const llvm::json::Value *weights = object ? object->get("weights") : nullptr;
  const llvm::json::Array *seeds = object ? object->getArray("seeds") : nullptr;
  const llvm::json::Array *notes = object ? object->getArray("notes") : nullptr;
  if (!weights || !seeds || !notes)
    return std::nullopt;
  LibrarySnapshot snapshot;
  std::optional<ActionWeights> parsed = ActionWeights::fromJSON(*weights);
  if (!parsed)
    return std::nullopt;
  snapshot.weights = std::move(*parsed);
  for (const llvm::json::Value &seed : *seeds) {
    const llvm::json::Object *seedObject = seed.getAsObject();
    const llvm::json::Value *schedule =
        seedObject ? seedObject->get("schedule") : nullptr;
    Schedule genome;
    llvm::json::Path::Root root;
    if (!schedule || !kf::fromJSON(*schedule, genome, root))
      return std::nullopt;
    snapshot.seeds.push_back(
        {seedObject->getString("name").value_or("").str(), genome});
  }
  for (const llvm::json::Value &note : *notes)
    snapshot.notes.push_back(note.getAsString().value_or("").str());
  return snapshot;
}
