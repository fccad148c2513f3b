//===- LibraryDatabase.cpp - SQLite backend and backend selection ---------===//

#include "LibraryDatabase.h"

#include "kf/Support/Redaction.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <sqlite3.h>

#include <cstdlib>

using namespace kf;

std::vector<SqlValue>
kf::redactedParameters(llvm::ArrayRef<SqlValue> parameters) {
  std::vector<SqlValue> redacted(parameters.begin(), parameters.end());
  for (SqlValue &value : redacted)
    if (auto *text = std::get_if<std::string>(&value))
      *text = redactSecrets(*text);
  return redacted;
}

int64_t SqlRow::integer(unsigned column) const {
  return std::strtoll(columns[column].c_str(), nullptr, 10);
}

double SqlRow::real(unsigned column) const {
  return std::strtod(columns[column].c_str(), nullptr);
}

llvm::Error LibraryDatabase::error(llvm::StringRef message) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "experience library %s: %s",
                                 displayName.c_str(), message.str().c_str());
}

llvm::StringRef LibraryDatabase::urlScheme(llvm::StringRef location) {
  size_t end = location.find("://");
  if (end == llvm::StringRef::npos || end == 0)
    return "";
  llvm::StringRef scheme = location.take_front(end);
  bool valid = llvm::all_of(scheme, [](char c) {
    return llvm::isAlnum(c) || c == '+' || c == '-' || c == '.';
  });
  return valid ? scheme : "";
}

bool LibraryDatabase::isPostgresLocation(llvm::StringRef location) {
  llvm::StringRef scheme = urlScheme(location);
  return scheme == "postgresql" || scheme == "postgres";
}

std::string LibraryDatabase::redact(llvm::StringRef location) {
  if (!isPostgresLocation(location))
    return location.str();
  // As libpq reads a URL: the user info runs from "://" to the first '@'
  // before any '/', whatever it holds ('?' included); its password is what
  // follows its first ':'. Then any password=... parameter of the query.
  size_t authority = location.find("://") + 3;
  std::string text = location.str();
  size_t end = location.find_first_of("@/", authority);
  if (end != llvm::StringRef::npos && location[end] == '@') {
    size_t colon = location.find(':', authority);
    if (colon < end)
      text = (location.take_front(colon) + location.drop_front(end)).str();
  }
  llvm::StringRef rest(text);
  size_t hostStart = rest.find('@', authority);
  size_t query = rest.find('?', hostStart == llvm::StringRef::npos ? authority
                                                                   : hostStart);
  if (query == llvm::StringRef::npos)
    return text;
  llvm::SmallVector<llvm::StringRef> parameters;
  rest.drop_front(query + 1).split(parameters, '&');
  std::string redacted = rest.take_front(query + 1).str();
  for (auto [index, parameter] : llvm::enumerate(parameters)) {
    if (index)
      redacted += '&';
    // libpq decodes percent-escapes in keys too ("pass%77ord").
    llvm::StringRef key = parameter.split('=').first;
    bool password =
        llvm::StringRef(key.lower()).contains("pass") || key.contains('%');
    redacted += password ? key.str() + "=***" : parameter.str();
  }
  return redacted;
}

#ifndef KF_ENABLE_POSTGRESQL
llvm::Expected<std::unique_ptr<LibraryDatabase>>
kf::openPostgresDatabase(llvm::StringRef url) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "experience library %s: this kf-evolve was built without PostgreSQL "
      "support (the portable bundle is); pass a SQLite file to --db, or "
      "build with libpq (scripts/bootstrap installs it)",
      LibraryDatabase::redact(url).c_str());
}
#endif

namespace {

class SqliteDatabase final : public LibraryDatabase {
public:
  SqliteDatabase(sqlite3 *db, std::string path)
      : LibraryDatabase(std::move(path)), db(db) {}
  ~SqliteDatabase() override { sqlite3_close(db); }

  llvm::Error execute(llvm::StringRef sql) override {
    char *message = nullptr;
    if (sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &message) ==
        SQLITE_OK)
      return llvm::Error::success();
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    return error(text);
  }

  llvm::Expected<std::vector<SqlRow>>
  query(llvm::StringRef sql, llvm::ArrayRef<SqlValue> parameters) override {
    std::vector<SqlRow> rows;
    if (llvm::Error failure = run(sql, parameters, &rows))
      return std::move(failure);
    return rows;
  }

  llvm::Expected<int64_t> change(llvm::StringRef sql,
                                 llvm::ArrayRef<SqlValue> parameters) override {
    if (llvm::Error failure = run(sql, redactedParameters(parameters), nullptr))
      return std::move(failure);
    return sqlite3_changes(db);
  }

  // IMMEDIATE takes the write lock at once: two runs never both read
  // before either writes (the busy timeout makes the second wait).
  llvm::Error begin() override { return execute("BEGIN IMMEDIATE"); }
  llvm::Error commit() override { return execute("COMMIT"); }
  void rollback() override { llvm::consumeError(execute("ROLLBACK")); }

  llvm::Expected<std::string> integrityCheck() override {
    llvm::Expected<std::vector<SqlRow>> rows =
        query("PRAGMA integrity_check", {});
    if (!rows)
      return rows.takeError();
    if (rows->empty())
      return error("cannot check integrity");
    return rows->front().text(0);
  }

private:
  llvm::Error run(llvm::StringRef sql, llvm::ArrayRef<SqlValue> parameters,
                  std::vector<SqlRow> *rows) {
    sqlite3_stmt *statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.data(), sql.size(), &statement, nullptr) !=
        SQLITE_OK)
      return error(sqlite3_errmsg(db));
    for (auto [index, value] : llvm::enumerate(parameters)) {
      int position = index + 1;
      if (auto *integer = std::get_if<int64_t>(&value))
        sqlite3_bind_int64(statement, position, *integer);
      else if (auto *real = std::get_if<double>(&value))
        sqlite3_bind_double(statement, position, *real);
      else {
        const std::string &text = std::get<std::string>(value);
        sqlite3_bind_text(statement, position, text.data(), text.size(),
                          SQLITE_TRANSIENT);
      }
    }
    int status;
    while ((status = sqlite3_step(statement)) == SQLITE_ROW) {
      if (!rows)
        continue;
      SqlRow row;
      for (int column = 0, e = sqlite3_column_count(statement); column < e;
           ++column) {
        // SQLite renders a REAL as text with 15 digits; 17 round-trip.
        if (sqlite3_column_type(statement, column) == SQLITE_FLOAT) {
          row.columns.push_back(
              llvm::formatv("{0:e16}", sqlite3_column_double(statement, column))
                  .str());
          continue;
        }
        const unsigned char *text = sqlite3_column_text(statement, column);
        row.columns.push_back(text ? reinterpret_cast<const char *>(text) : "");
      }
      rows->push_back(std::move(row));
    }
    sqlite3_finalize(statement);
    if (status != SQLITE_DONE)
      return error(sqlite3_errmsg(db));
    return llvm::Error::success();
  }

  sqlite3 *db;
};

llvm::Expected<std::unique_ptr<LibraryDatabase>>
openSqliteDatabase(llvm::StringRef path) {
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
    llvm::Error error = llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "experience library: cannot open %s: %s", path.str().c_str(),
        db ? sqlite3_errmsg(db) : "cannot allocate");
    sqlite3_close(db);
    return std::move(error);
  }
  auto database = std::make_unique<SqliteDatabase>(db, path.str());
  // Concurrent runs wait for each other's short transactions instead of
  // failing; WAL lets readers proceed while one writes.
  sqlite3_busy_timeout(db, 30000);
  if (llvm::Error error = database->execute(
          "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"))
    return std::move(error);
  return std::move(database);
}

} // namespace

llvm::Expected<std::unique_ptr<LibraryDatabase>>
LibraryDatabase::open(llvm::StringRef location) {
  if (isPostgresLocation(location))
    return openPostgresDatabase(location);
  return openSqliteDatabase(location);
}
