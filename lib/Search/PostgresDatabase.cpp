//===- PostgresDatabase.cpp - The experience library on PostgreSQL --------===//
//
// A team's shared library: many runs on many hosts write to one database.
// Every write transaction takes one transaction-scoped advisory lock, so
// writers queue as SQLite's BEGIN IMMEDIATE makes them queue, and the same
// read-then-write sequences stay atomic; readers are never blocked.
//
//===----------------------------------------------------------------------===//

#include "LibraryDatabase.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <libpq-fe.h>

#include <mutex>

using namespace kf;

namespace {

/// The advisory lock key every kf writer takes ("kf" in ASCII).
constexpr int64_t kWriterLock = 0x6b66;

/// `sql` with SQLite's ?N parameters written as PostgreSQL's $N (the
/// library's SQL has no question marks elsewhere).
std::string toPostgresParameters(llvm::StringRef sql) {
  std::string text;
  for (size_t i = 0; i < sql.size(); ++i) {
    if (sql[i] == '?' && i + 1 < sql.size() && llvm::isDigit(sql[i + 1]))
      text += '$';
    else
      text += sql[i];
  }
  return text;
}

/// libpq's multi-line message (with a tab-indented hint) as one line.
std::string oneLine(llvm::StringRef message) {
  std::string text;
  for (char c : message.trim())
    if (c == '\n' || c == '\t') {
      if (!text.empty() && text.back() != ' ')
        text += ' ';
    } else {
      text += c;
    }
  return text;
}

class PostgresDatabase final : public LibraryDatabase {
public:
  PostgresDatabase(PGconn *connection, std::string name)
      : LibraryDatabase(std::move(name)), connection(connection) {}
  ~PostgresDatabase() override { PQfinish(connection); }

  llvm::Error execute(llvm::StringRef sql) override {
    std::lock_guard<std::mutex> lock(mutex);
    return checked(PQexec(connection, sql.str().c_str())).takeError();
  }

  llvm::Expected<std::vector<SqlRow>>
  query(llvm::StringRef sql, llvm::ArrayRef<SqlValue> parameters) override {
    std::lock_guard<std::mutex> lock(mutex);
    llvm::Expected<Result> result = checked(run(sql, parameters));
    if (!result)
      return result.takeError();
    PGresult *rowsOf = result->get();
    std::vector<SqlRow> rows;
    for (int row = 0, e = PQntuples(rowsOf); row < e; ++row) {
      SqlRow values;
      for (int column = 0, n = PQnfields(rowsOf); column < n; ++column)
        values.columns.push_back(PQgetisnull(rowsOf, row, column)
                                     ? ""
                                     : PQgetvalue(rowsOf, row, column));
      rows.push_back(std::move(values));
    }
    return rows;
  }

  llvm::Expected<int64_t> change(llvm::StringRef sql,
                                 llvm::ArrayRef<SqlValue> parameters) override {
    std::lock_guard<std::mutex> lock(mutex);
    llvm::Expected<Result> result =
        checked(run(sql, redactedParameters(parameters)));
    if (!result)
      return result.takeError();
    return std::strtoll(PQcmdTuples(result->get()), nullptr, 10);
  }

  // READ COMMITTED: each statement sees what writers committed before
  // this one took the lock (a server defaulting to REPEATABLE READ would
  // snapshot before the lock wait).
  llvm::Error begin() override {
    llvm::Error failure =
        execute(llvm::formatv("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT "
                              "pg_advisory_xact_lock({0});",
                              kWriterLock)
                    .str());
    if (failure)
      rollback(); // the lock wait failed inside an open transaction
    return failure;
  }
  llvm::Error commit() override { return execute("COMMIT"); }
  void rollback() override { llvm::consumeError(execute("ROLLBACK")); }

  /// PostgreSQL guards its own pages; what can go wrong is the library's
  /// meaning: a statistic with more successes than tries, or negative
  /// counts (lost or doubled updates would show there).
  llvm::Expected<std::string> integrityCheck() override {
    llvm::Expected<std::vector<SqlRow>> rows =
        query("SELECT count(*) FROM action_stats WHERE tries < 0 OR "
              "successes < 0 OR successes > tries OR prior_successes > "
              "prior_tries",
              {});
    if (!rows)
      return rows.takeError();
    int64_t bad = rows->empty() ? 0 : rows->front().integer(0);
    if (bad)
      return llvm::formatv("{0} action statistics with impossible counts", bad)
          .str();
    return std::string("ok");
  }

private:
  PGresult *run(llvm::StringRef sql, llvm::ArrayRef<SqlValue> parameters) {
    std::vector<std::string> texts;
    for (const SqlValue &value : parameters) {
      if (auto *integer = std::get_if<int64_t>(&value))
        texts.push_back(std::to_string(*integer));
      else if (auto *real = std::get_if<double>(&value))
        texts.push_back(llvm::formatv("{0:e16}", *real).str());
      else
        texts.push_back(std::get<std::string>(value));
    }
    std::vector<const char *> pointers;
    for (const std::string &text : texts)
      pointers.push_back(text.c_str());
    return PQexecParams(connection, toPostgresParameters(sql).c_str(),
                        pointers.size(), /*paramTypes=*/nullptr,
                        pointers.data(), /*paramLengths=*/nullptr,
                        /*paramFormats=*/nullptr, /*resultFormat=*/0);
  }

  /// A result, cleared when it goes out of scope.
  using Result = std::unique_ptr<PGresult, void (*)(PGresult *)>;

  /// `raw` when its statement succeeded; its error otherwise.
  llvm::Expected<Result> checked(PGresult *raw) const {
    Result result(raw, PQclear);
    ExecStatusType status = PQresultStatus(raw);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
      return std::move(result);
    llvm::StringRef message =
        raw ? PQresultErrorMessage(raw) : PQerrorMessage(connection);
    return error(oneLine(message));
  }

  PGconn *connection;
  std::mutex mutex;
};

} // namespace

llvm::Expected<std::unique_ptr<LibraryDatabase>>
kf::openPostgresDatabase(llvm::StringRef url) {
  std::string name = LibraryDatabase::redact(url);
  // An unreachable host fails in 10 s unless the URL sets connect_timeout
  // (later keywords override the ones expanded from the URL).
  std::string text = url.str();
  const char *keywords[] = {"connect_timeout", "dbname", nullptr};
  const char *values[] = {"10", text.c_str(), nullptr};
  PGconn *connection = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (!connection || PQstatus(connection) != CONNECTION_OK) {
    std::string message = connection ? PQerrorMessage(connection)
                                     : "cannot allocate a connection";
    PQfinish(connection);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "experience library: cannot connect to %s: %s", name.c_str(),
        oneLine(message).c_str());
  }
  // The library's messages are its own; the server's notices (such as
  // "relation already exists, skipping") are noise on stderr.
  PQsetNoticeProcessor(
      connection, [](void *, const char *) {}, nullptr);
  auto database =
      std::make_unique<PostgresDatabase>(connection, std::move(name));
  // Doubles come back as text: with 3 extra digits they round-trip exactly
  // whatever the server's default.
  if (llvm::Error error = database->execute("SET extra_float_digits = 3"))
    return std::move(error);
  return std::move(database);
}
