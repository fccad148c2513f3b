//===- ExperienceLibrary.cpp - What worked, across runs and problems ------===//

#include "kf/Search/ExperienceLibrary.h"

#include "LibraryDatabase.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cmath>

using namespace kf;

namespace {

/// The curated rules (lib/Search/knowledge.json), embedded at build time so
/// that the portable binary needs no data files.
const char *const kKnowledgeJSON =
#include "Knowledge.inc"
    ;

constexpr int kSchemaVersion = 1;

/// A write transaction, rolled back unless committed.
class Transaction {
public:
  explicit Transaction(LibraryDatabase &db) : db(db) {}
  ~Transaction() {
    if (begun && !committed)
      db.rollback();
  }
  llvm::Error begin() {
    if (llvm::Error error = db.begin())
      return error;
    begun = true;
    return llvm::Error::success();
  }
  llvm::Error commit() {
    if (llvm::Error error = db.commit())
      return error;
    committed = true;
    return llvm::Error::success();
  }

private:
  LibraryDatabase &db;
  bool begun = false, committed = false;
};

/// Sorts rows by the text of `columns`, byte by byte: SQL's ORDER BY would
/// follow PostgreSQL's locale, and exports must not depend on the backend.
void sortRows(std::vector<SqlRow> &rows, llvm::ArrayRef<unsigned> columns) {
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const SqlRow &a, const SqlRow &b) {
                     for (unsigned column : columns)
                       if (a.text(column) != b.text(column))
                         return a.text(column) < b.text(column);
                     return false;
                   });
}

} // namespace

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

ExperienceLibrary::ExperienceLibrary(std::unique_ptr<LibraryDatabase> db)
    : db(std::move(db)) {}

ExperienceLibrary::~ExperienceLibrary() = default;

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

llvm::Expected<std::unique_ptr<ExperienceLibrary>>
ExperienceLibrary::open(llvm::StringRef location) {
  bool postgres = LibraryDatabase::isPostgresLocation(location);
  // Another URL would otherwise name a SQLite file ("mysql://host/db" made
  // the folders "mysql:" and "host"). The location is not repeated: it may
  // hold a password.
  if (llvm::StringRef scheme = LibraryDatabase::urlScheme(location);
      !postgres && !scheme.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "experience library: a %s:// URL; the library lives in a SQLite file "
        "(give its path) or in PostgreSQL (postgresql://user@host/db)",
        scheme.str().c_str());
  auto unusable = [&](llvm::Error error) -> llvm::Error {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "%s (%s)",
        llvm::toString(std::move(error)).c_str(),
        postgres ? "check the URL and that the server runs, or pass another "
                   "--db"
                 : "move the file away, or pass another --db");
  };
  llvm::Expected<std::unique_ptr<LibraryDatabase>> opened =
      LibraryDatabase::open(location);
  if (!opened)
    return unusable(opened.takeError());
  LibraryDatabase &db = **opened;
  std::unique_ptr<ExperienceLibrary> library(
      new ExperienceLibrary(std::move(*opened)));
  // One schema for SQLite and PostgreSQL (BIGINT and DOUBLE PRECISION are
  // INTEGER and REAL to SQLite), created under the writers' lock so that
  // two runs opening a new library at once do not race.
  {
    Transaction transaction(db);
    if (llvm::Error error = transaction.begin())
      return unusable(std::move(error));
    if (llvm::Error error = db.execute(R"sql(
      CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
      CREATE TABLE IF NOT EXISTS action_stats(
        trigger TEXT NOT NULL, action TEXT NOT NULL,
        prior_tries BIGINT NOT NULL DEFAULT 0,
        prior_successes BIGINT NOT NULL DEFAULT 0,
        tries BIGINT NOT NULL DEFAULT 0, successes BIGINT NOT NULL DEFAULT 0,
        speedup_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
        rule TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT '',
        PRIMARY KEY(trigger, action));
      CREATE TABLE IF NOT EXISTS observations(
        run TEXT NOT NULL, candidate BIGINT NOT NULL,
        PRIMARY KEY(run, candidate));
      CREATE TABLE IF NOT EXISTS best_schedules(
        signature TEXT NOT NULL, evaluator TEXT NOT NULL,
        problem TEXT NOT NULL, features TEXT NOT NULL, schedule TEXT NOT NULL,
        seconds DOUBLE PRECISION NOT NULL, speedup DOUBLE PRECISION NOT NULL,
        run TEXT NOT NULL,
        PRIMARY KEY(signature, evaluator));
      CREATE TABLE IF NOT EXISTS runs(
        run TEXT PRIMARY KEY, problem TEXT NOT NULL, snapshot TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS candidate_records(
        run TEXT NOT NULL, ordinal BIGINT NOT NULL, record TEXT NOT NULL,
        PRIMARY KEY(run, ordinal));)sql"))
      return unusable(std::move(error));
    llvm::Expected<int64_t> marked = db.change(
        "INSERT INTO meta VALUES('schema_version', ?1) ON CONFLICT DO NOTHING",
        {std::to_string(kSchemaVersion)});
    if (!marked)
      return unusable(marked.takeError());
    if (llvm::Error error = transaction.commit())
      return unusable(std::move(error));
  }
  llvm::Expected<std::vector<SqlRow>> version =
      db.query("SELECT value FROM meta WHERE key='schema_version'");
  if (!version)
    return unusable(version.takeError());
  std::string found = version->empty() ? "?" : version->front().text(0);
  if (found != std::to_string(kSchemaVersion))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "experience library %s has schema version %s; this kf reads version "
        "%d: %s",
        db.name().c_str(), found.c_str(), kSchemaVersion,
        postgres ? "pass another --db (or another database)"
                 : "move the file away (or pass another --db)");
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
  Transaction transaction(*db);
  if (llvm::Error error = transaction.begin())
    return error;
  llvm::Expected<std::vector<SqlRow>> current =
      db->query("SELECT value FROM meta WHERE key='knowledge'");
  if (!current)
    return current.takeError();
  if (!current->empty() && current->front().text(0) == version)
    return llvm::Error::success(); // up to date; the transaction rolls back
  // Priors, rules and sources come from the file; observations stay.
  for (const llvm::json::Value &ruleValue : *rules) {
    const llvm::json::Object *rule = ruleValue.getAsObject();
    if (!rule)
      continue;
    llvm::Expected<int64_t> upserted = db->change(
        R"sql(
      INSERT INTO action_stats(trigger, action, prior_tries, prior_successes,
                               rule, source)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6)
      ON CONFLICT(trigger, action) DO UPDATE SET
        prior_tries=excluded.prior_tries,
        prior_successes=excluded.prior_successes,
        rule=excluded.rule, source=excluded.source)sql",
        {rule->getString("trigger").value_or("").str(),
         rule->getString("action").value_or("").str(),
         rule->getInteger("tries").value_or(0),
         rule->getInteger("successes").value_or(0),
         rule->getString("rule").value_or("").str(),
         rule->getString("source").value_or("").str()});
    if (!upserted)
      return upserted.takeError();
  }
  llvm::Expected<int64_t> marked =
      db->change("INSERT INTO meta VALUES('knowledge', ?1) ON CONFLICT(key) "
                 "DO UPDATE SET value=excluded.value",
                 {version});
  if (!marked)
    return marked.takeError();
  return transaction.commit();
}

llvm::Expected<std::vector<ActionStats>> ExperienceLibrary::actionStats() {
  llvm::Expected<std::vector<SqlRow>> rows = db->query(R"sql(
    SELECT trigger, action, prior_tries, prior_successes, tries, successes,
           speedup_sum, rule, source
    FROM action_stats)sql");
  if (!rows)
    return rows.takeError();
  sortRows(*rows, {0, 1});
  std::vector<ActionStats> stats;
  for (const SqlRow &row : *rows)
    stats.push_back({row.text(0), row.text(1), row.integer(2), row.integer(3),
                     row.integer(4), row.integer(5), row.real(6), row.text(7),
                     row.text(8)});
  return stats;
}

llvm::Error ExperienceLibrary::recordTry(llvm::StringRef run,
                                         unsigned candidate,
                                         llvm::ArrayRef<std::string> triggers,
                                         llvm::StringRef action, bool success,
                                         double speedup) {
  Transaction transaction(*db);
  if (llvm::Error error = transaction.begin())
    return error;
  llvm::Expected<int64_t> observed =
      db->change("INSERT INTO observations(run, candidate) VALUES(?1, ?2) "
                 "ON CONFLICT DO NOTHING",
                 {run.str(), int64_t(candidate)});
  if (!observed)
    return observed.takeError();
  if (*observed == 0)
    return llvm::Error::success(); // already counted (a resumed run)
  for (const std::string &trigger : triggers) {
    llvm::Expected<int64_t> updated = db->change(
        R"sql(
      INSERT INTO action_stats(trigger, action, tries, successes, speedup_sum)
      VALUES(?1, ?2, 1, ?3, ?4)
      ON CONFLICT(trigger, action) DO UPDATE SET
        tries=action_stats.tries + 1,
        successes=action_stats.successes + excluded.successes,
        speedup_sum=action_stats.speedup_sum + excluded.speedup_sum)sql",
        {trigger, action.str(), int64_t(success ? 1 : 0),
         success ? speedup : 0.0});
    if (!updated)
      return updated.takeError();
  }
  return transaction.commit();
}

llvm::Error ExperienceLibrary::recordRunStart(llvm::StringRef run,
                                              llvm::StringRef problem,
                                              llvm::StringRef snapshot) {
  llvm::Expected<int64_t> inserted =
      db->change("INSERT INTO runs(run, problem, snapshot) VALUES(?1, ?2, ?3) "
                 "ON CONFLICT DO NOTHING",
                 {run.str(), problem.str(), snapshot.str()});
  return inserted ? llvm::Error::success() : inserted.takeError();
}

/// Keeps one record (see ExperienceLibrary::recordCandidate); the caller
/// holds the transaction, if any.
static llvm::Error insertCandidateRecord(LibraryDatabase &database,
                                         llvm::StringRef run, unsigned ordinal,
                                         llvm::StringRef record) {
  llvm::Expected<int64_t> inserted = database.change(
      "INSERT INTO candidate_records(run, ordinal, record) VALUES(?1, ?2, ?3) "
      "ON CONFLICT DO NOTHING",
      {run.str(), int64_t(ordinal), record.str()});
  if (!inserted)
    return inserted.takeError();
  if (*inserted)
    return llvm::Error::success();
  // Already there (a resumed run filling in): it must be the same record,
  // or two continuations of one run are writing different histories.
  llvm::Expected<std::vector<SqlRow>> stored = database.query(
      "SELECT record FROM candidate_records WHERE run=?1 AND ordinal=?2",
      {run.str(), int64_t(ordinal)});
  if (!stored)
    return stored.takeError();
  if (!stored->empty() && stored->front().text(0) != record)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "record %u of run '%s' differs from the one the library holds: the "
        "run was continued twice in different ways (use a new output "
        "directory and a fresh run, or continue only one copy)",
        ordinal, run.str().c_str());
  return llvm::Error::success();
}

llvm::Error ExperienceLibrary::recordCandidate(llvm::StringRef run,
                                               unsigned ordinal,
                                               llvm::StringRef record) {
  return insertCandidateRecord(*db, run, ordinal, record);
}

llvm::Error
ExperienceLibrary::recordCandidates(llvm::StringRef run, unsigned firstOrdinal,
                                    llvm::ArrayRef<std::string> records) {
  // One transaction: a resumed run fills in thousands of records at once,
  // and a commit each would wait for the disk (or the server) as often.
  Transaction transaction(*db);
  if (llvm::Error error = transaction.begin())
    return error;
  for (auto [index, record] : llvm::enumerate(records))
    if (llvm::Error error =
            insertCandidateRecord(*db, run, firstOrdinal + index, record))
      return error;
  return transaction.commit();
}

llvm::Expected<RunRecords> ExperienceLibrary::runRecords(llvm::StringRef run) {
  llvm::Expected<std::vector<SqlRow>> start =
      db->query("SELECT problem, snapshot FROM runs WHERE run=?1", {run.str()});
  if (!start)
    return start.takeError();
  if (start->empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "experience library %s has no run '%s' (`kf-evolve library --runs` "
        "lists them)",
        db->name().c_str(), run.str().c_str());
  RunRecords records{
      run.str(), start->front().text(0), start->front().text(1), {}};
  llvm::Expected<std::vector<SqlRow>> rows =
      db->query("SELECT ordinal, record FROM candidate_records WHERE run=?1 "
                "ORDER BY ordinal",
                {run.str()});
  if (!rows)
    return rows.takeError();
  for (const SqlRow &row : *rows) {
    // Ordinals are consecutive from 0: a gap is a record that never
    // reached the database (a kill between the file and the database).
    if (row.integer(0) != int64_t(records.records.size()))
      break;
    records.records.push_back(row.text(1));
  }
  return records;
}

llvm::Expected<std::vector<RunSummary>> ExperienceLibrary::listRuns() {
  llvm::Expected<std::vector<SqlRow>> rows =
      db->query("SELECT run, problem FROM runs");
  if (!rows)
    return rows.takeError();
  sortRows(*rows, {0});
  // Counted as runRecords gives them back, up to the first gap, from the
  // ordinals alone (not the records' text).
  llvm::Expected<std::vector<SqlRow>> ordinals =
      db->query("SELECT run, ordinal FROM candidate_records ORDER BY ordinal");
  if (!ordinals)
    return ordinals.takeError();
  llvm::StringMap<int64_t> consecutive;
  for (const SqlRow &row : *ordinals) {
    int64_t &count = consecutive[row.text(0)];
    if (row.integer(1) == count)
      ++count;
  }
  std::vector<RunSummary> runs;
  for (const SqlRow &row : *rows)
    runs.push_back({row.text(0), row.text(1), consecutive.lookup(row.text(0))});
  return runs;
}

llvm::Error ExperienceLibrary::recordBest(const ProblemFeatures &features,
                                          llvm::StringRef evaluator,
                                          const Schedule &schedule,
                                          double seconds, double speedup,
                                          llvm::StringRef run) {
  std::string featuresText, scheduleText;
  llvm::raw_string_ostream(featuresText) << toJSON(features);
  llvm::raw_string_ostream(scheduleText) << toJSON(schedule);
  Transaction transaction(*db);
  if (llvm::Error error = transaction.begin())
    return error;
  llvm::Expected<int64_t> upserted = db->change(
      R"sql(
    INSERT INTO best_schedules(signature, evaluator, problem, features,
                               schedule, seconds, speedup, run)
    VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
    ON CONFLICT(signature, evaluator) DO UPDATE SET
      problem=excluded.problem, features=excluded.features,
      schedule=excluded.schedule, seconds=excluded.seconds,
      speedup=excluded.speedup, run=excluded.run
    WHERE excluded.seconds < best_schedules.seconds)sql",
      {features.signature(), evaluator.str(), features.problem, featuresText,
       scheduleText, seconds, speedup, run.str()});
  if (!upserted)
    return upserted.takeError();
  return transaction.commit();
}

llvm::Expected<std::vector<Experience>>
ExperienceLibrary::retrieve(const ProblemFeatures &features, unsigned limit) {
  llvm::Expected<std::vector<SqlRow>> rows =
      db->query("SELECT features, schedule, evaluator, seconds, speedup, "
                "signature "
                "FROM best_schedules");
  if (!rows)
    return rows.takeError();
  sortRows(*rows, {5, 2});
  std::vector<Experience> found;
  for (const SqlRow &row : *rows) {
    llvm::Expected<llvm::json::Value> featuresJSON =
        llvm::json::parse(row.text(0));
    llvm::Expected<llvm::json::Value> scheduleJSON =
        llvm::json::parse(row.text(1));
    if (!featuresJSON || !scheduleJSON) {
      // A row another kf version wrote: not usable, not fatal.
      llvm::consumeError(featuresJSON.takeError());
      llvm::consumeError(scheduleJSON.takeError());
      continue;
    }
    Experience experience;
    llvm::json::Path::Root root;
    if (!fromJSON(*featuresJSON, experience.features, root) ||
        !fromJSON(*scheduleJSON, experience.schedule, root))
      continue;
    experience.similarity = similarity(features, experience.features);
    if (experience.similarity <= 0)
      continue;
    experience.evaluator = row.text(2);
    experience.seconds = row.real(3);
    experience.speedup = row.real(4);
    found.push_back(std::move(experience));
  }
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
  return db->integrityCheck();
}

const std::string &ExperienceLibrary::name() const { return db->name(); }

llvm::Expected<llvm::json::Value> ExperienceLibrary::exportJSON() {
  // One consistent picture while other runs write: the writers' lock is
  // held over the three reads (and released without writing).
  Transaction reading(*db);
  if (llvm::Error error = reading.begin())
    return std::move(error);
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
        {"speedup_sum", s.speedupSum},
        {"mean_speedup", s.successes ? s.speedupSum / s.successes : 0.0},
        {"expected_success", s.expectedSuccess()},
        {"rule", s.rule},
        {"source", s.source}});
  llvm::Expected<std::vector<SqlRow>> rows =
      db->query("SELECT problem, signature, evaluator, schedule, seconds, "
                "speedup, features, run FROM best_schedules");
  if (!rows)
    return rows.takeError();
  sortRows(*rows, {0, 1, 2});
  // Unparsable JSON (another kf version's) is kept as text.
  auto parsed = [](const std::string &text) -> llvm::json::Value {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
    if (value)
      return std::move(*value);
    llvm::consumeError(value.takeError());
    return text;
  };
  llvm::json::Array best;
  for (const SqlRow &row : *rows)
    best.push_back(llvm::json::Object{{"problem", row.text(0)},
                                      {"signature", row.text(1)},
                                      {"evaluator", row.text(2)},
                                      {"schedule", parsed(row.text(3))},
                                      {"seconds", row.real(4)},
                                      {"speedup", row.real(5)},
                                      {"features", parsed(row.text(6))},
                                      {"run", row.text(7)}});
  llvm::Expected<std::vector<SqlRow>> observed =
      db->query("SELECT run, candidate FROM observations");
  if (!observed)
    return observed.takeError();
  std::stable_sort(observed->begin(), observed->end(),
                   [](const SqlRow &a, const SqlRow &b) {
                     if (a.text(0) != b.text(0))
                       return a.text(0) < b.text(0);
                     return a.integer(1) < b.integer(1);
                   });
  llvm::json::Array observations;
  for (const SqlRow &row : *observed)
    observations.push_back(llvm::json::Object{{"run", row.text(0)},
                                              {"candidate", row.integer(1)}});
  // The runs and their candidate records (for --resume --run-id), records
  // as the text they are stored as, each with its ordinal: a gap left by a
  // kill stays a gap.
  llvm::Expected<std::vector<SqlRow>> runRows =
      db->query("SELECT run, problem, snapshot FROM runs");
  if (!runRows)
    return runRows.takeError();
  sortRows(*runRows, {0});
  llvm::Expected<std::vector<SqlRow>> recordRows = db->query(
      "SELECT run, ordinal, record FROM candidate_records ORDER BY ordinal");
  if (!recordRows)
    return recordRows.takeError();
  llvm::StringMap<llvm::json::Array> recordsByRun;
  for (const SqlRow &row : *recordRows)
    recordsByRun[row.text(0)].push_back(llvm::json::Object{
        {"ordinal", row.integer(1)}, {"record", row.text(2)}});
  llvm::json::Array runs;
  for (const SqlRow &row : *runRows)
    runs.push_back(
        llvm::json::Object{{"run", row.text(0)},
                           {"problem", row.text(1)},
                           {"snapshot", row.text(2)},
                           {"records", std::move(recordsByRun[row.text(0)])}});
  return llvm::json::Object{{"path", db->name()},
                            {"action_stats", std::move(statsJSON)},
                            {"best_schedules", std::move(best)},
                            {"observations", std::move(observations)},
                            {"runs", std::move(runs)}};
}

llvm::Error ExperienceLibrary::importJSON(const llvm::json::Value &exported) {
  auto invalid = [](llvm::StringRef what) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "not an exported experience library: %s (write one with `kf-evolve "
        "library --db SOURCE > FILE`)",
        what.str().c_str());
  };
  const llvm::json::Object *object = exported.getAsObject();
  const llvm::json::Array *stats =
      object ? object->getArray("action_stats") : nullptr;
  const llvm::json::Array *best =
      object ? object->getArray("best_schedules") : nullptr;
  const llvm::json::Array *observations =
      object ? object->getArray("observations") : nullptr;
  if (!stats || !best || !observations)
    return invalid("expected an object with \"action_stats\", "
                   "\"best_schedules\" and \"observations\" arrays");
  // Exports from before runs were kept have none.
  const llvm::json::Array *runs = object->getArray("runs");
  if (object->get("runs") && !runs)
    return invalid("\"runs\" is not an array");

  Transaction transaction(*db);
  if (llvm::Error error = transaction.begin())
    return error;
  // Counts are not merged: importing into a library that has learned
  // something would count experience twice, or lose it.
  llvm::Expected<std::vector<SqlRow>> learned =
      db->query("SELECT (SELECT count(*) FROM observations) + "
                "(SELECT count(*) FROM best_schedules) + "
                "(SELECT count(*) FROM runs)");
  if (!learned)
    return learned.takeError();
  if (!learned->empty() && learned->front().integer(0) > 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "experience library %s already holds observations, best "
        "schedules or runs; import into a new library",
        db->name().c_str());
  for (auto [index, value] : llvm::enumerate(*stats)) {
    const llvm::json::Object *stat = value.getAsObject();
    std::optional<llvm::StringRef> trigger =
        stat ? stat->getString("trigger") : std::nullopt;
    std::optional<llvm::StringRef> action =
        stat ? stat->getString("action") : std::nullopt;
    if (!trigger || !action)
      return invalid(llvm::formatv("action_stats[{0}] has no trigger and "
                                   "action",
                                   index)
                         .str());
    int64_t priorTries = stat->getInteger("prior_tries").value_or(0),
            priorSuccesses = stat->getInteger("prior_successes").value_or(0),
            tries = stat->getInteger("tries").value_or(0),
            successes = stat->getInteger("successes").value_or(0);
    if (priorSuccesses < 0 || priorSuccesses > priorTries || successes < 0 ||
        successes > tries)
      return invalid(llvm::formatv("action_stats[{0}] has impossible counts "
                                   "(successes must be between 0 and tries)",
                                   index)
                         .str());
    llvm::Expected<int64_t> upserted = db->change(
        R"sql(
      INSERT INTO action_stats(trigger, action, prior_tries, prior_successes,
                               tries, successes, speedup_sum, rule, source)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
      ON CONFLICT(trigger, action) DO UPDATE SET
        prior_tries=excluded.prior_tries,
        prior_successes=excluded.prior_successes, tries=excluded.tries,
        successes=excluded.successes, speedup_sum=excluded.speedup_sum,
        rule=excluded.rule, source=excluded.source)sql",
        {trigger->str(), action->str(), priorTries, priorSuccesses, tries,
         successes, stat->getNumber("speedup_sum").value_or(0.0),
         stat->getString("rule").value_or("").str(),
         stat->getString("source").value_or("").str()});
    if (!upserted)
      return upserted.takeError();
  }
  for (auto [index, value] : llvm::enumerate(*best)) {
    const llvm::json::Object *entry = value.getAsObject();
    const llvm::json::Value *schedule =
        entry ? entry->get("schedule") : nullptr;
    const llvm::json::Value *features =
        entry ? entry->get("features") : nullptr;
    if (!entry || !schedule || !features || !entry->getString("signature") ||
        !entry->getString("evaluator") || !entry->getNumber("seconds"))
      return invalid(llvm::formatv("best_schedules[{0}] lacks a signature, "
                                   "evaluator, schedule, features or seconds",
                                   index)
                         .str());
    auto text = [](const llvm::json::Value &value) {
      if (std::optional<llvm::StringRef> string = value.getAsString())
        return string->str();
      std::string out;
      llvm::raw_string_ostream(out) << value;
      return out;
    };
    llvm::Expected<int64_t> inserted = db->change(
        R"sql(
      INSERT INTO best_schedules(signature, evaluator, problem, features,
                                 schedule, seconds, speedup, run)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql",
        {entry->getString("signature")->str(),
         entry->getString("evaluator")->str(),
         entry->getString("problem").value_or("").str(), text(*features),
         text(*schedule), *entry->getNumber("seconds"),
         entry->getNumber("speedup").value_or(0.0),
         entry->getString("run").value_or("").str()});
    if (!inserted)
      return inserted.takeError();
  }
  for (auto [index, value] : llvm::enumerate(*observations)) {
    const llvm::json::Object *entry = value.getAsObject();
    if (!entry || !entry->getString("run") || !entry->getInteger("candidate"))
      return invalid(
          llvm::formatv("observations[{0}] lacks a run or candidate", index)
              .str());
    llvm::Expected<int64_t> inserted = db->change(
        "INSERT INTO observations(run, candidate) VALUES(?1, ?2)",
        {entry->getString("run")->str(), *entry->getInteger("candidate")});
    if (!inserted)
      return inserted.takeError();
  }
  static const llvm::json::Array noRuns;
  for (auto [index, value] : llvm::enumerate(runs ? *runs : noRuns)) {
    const llvm::json::Object *entry = value.getAsObject();
    const llvm::json::Array *records =
        entry ? entry->getArray("records") : nullptr;
    if (!entry || !entry->getString("run") || !entry->getString("problem") ||
        !entry->getString("snapshot") || !records)
      return invalid(llvm::formatv("runs[{0}] lacks a run, problem, snapshot "
                                   "or records",
                                   index)
                         .str());
    std::string run = entry->getString("run")->str();
    llvm::Expected<int64_t> inserted = db->change(
        "INSERT INTO runs(run, problem, snapshot) VALUES(?1, ?2, ?3)",
        {run, entry->getString("problem")->str(),
         entry->getString("snapshot")->str()});
    if (!inserted)
      return inserted.takeError();
    for (auto [position, recordValue] : llvm::enumerate(*records)) {
      const llvm::json::Object *record = recordValue.getAsObject();
      std::optional<int64_t> ordinal =
          record ? record->getInteger("ordinal") : std::nullopt;
      if (!ordinal || *ordinal < 0 || !record->getString("record"))
        return invalid(llvm::formatv("runs[{0}].records[{1}] lacks an "
                                     "ordinal or a record",
                                     index, position)
                           .str());
      llvm::Expected<int64_t> stored =
          db->change("INSERT INTO candidate_records(run, ordinal, record) "
                     "VALUES(?1, ?2, ?3)",
                     {run, *ordinal, record->getString("record")->str()});
      if (!stored)
        return stored.takeError();
    }
  }
  // The imported priors stand; the curated rules' version mark stays, so
  // opening the library again does not overwrite them.
  return transaction.commit();
}
