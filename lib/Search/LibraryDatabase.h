//===- LibraryDatabase.h - The experience library's SQL backends -*- C++
//-*-===//
//
// The experience library keeps its tables in an embedded SQLite file or, for
// a team, in a PostgreSQL database (`--db postgresql://...`). Both take the
// same SQL (standard upserts, ?N parameters, BIGINT and DOUBLE PRECISION
// columns); what differs, opening, locking and the integrity check, lives
// behind this interface.
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_SEARCH_LIBRARYDATABASE_H
#define KF_LIB_SEARCH_LIBRARYDATABASE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace kf {

using SqlValue = std::variant<int64_t, double, std::string>;

/// `parameters` with every string passed through kf::redactSecrets: what a
/// statement stores never holds a configured secret.
std::vector<SqlValue> redactedParameters(llvm::ArrayRef<SqlValue> parameters);

/// One result row, every column as text (SQL NULL as "").
struct SqlRow {
  std::vector<std::string> columns;
  const std::string &text(unsigned column) const { return columns[column]; }
  int64_t integer(unsigned column) const;
  double real(unsigned column) const;
};

class LibraryDatabase {
public:
  virtual ~LibraryDatabase() = default;

  /// Opens `location`: a PostgreSQL connection URL (postgresql:// or
  /// postgres://) or else a SQLite file, created with its directory when
  /// missing.
  static llvm::Expected<std::unique_ptr<LibraryDatabase>>
  open(llvm::StringRef location);

  /// The scheme of `location` when it is a URL ("postgresql" of
  /// "postgresql://host/db"), otherwise "" (a SQLite file's path).
  static llvm::StringRef urlScheme(llvm::StringRef location);

  /// Whether `location` names a PostgreSQL database.
  static bool isPostgresLocation(llvm::StringRef location);

  /// `location` fit for messages and exports: a URL's password left out.
  static std::string redact(llvm::StringRef location);

  /// Runs statements without parameters or results.
  virtual llvm::Error execute(llvm::StringRef sql) = 0;
  /// Runs one statement with parameters ?1 ... ?N; returns its rows.
  virtual llvm::Expected<std::vector<SqlRow>>
  query(llvm::StringRef sql, llvm::ArrayRef<SqlValue> parameters = {}) = 0;
  /// Runs one statement; returns how many rows it inserted or changed.
  virtual llvm::Expected<int64_t>
  change(llvm::StringRef sql, llvm::ArrayRef<SqlValue> parameters = {}) = 0;

  /// A write transaction: concurrent writers (other runs, other hosts) wait
  /// for each other, so read-then-write sequences inside it are atomic.
  virtual llvm::Error begin() = 0;
  virtual llvm::Error commit() = 0;
  virtual void rollback() = 0;

  /// "ok" when the stored data is sound, otherwise what is wrong.
  virtual llvm::Expected<std::string> integrityCheck() = 0;

  /// The location, redacted.
  const std::string &name() const { return displayName; }

protected:
  explicit LibraryDatabase(std::string displayName)
      : displayName(std::move(displayName)) {}
  /// An error "experience library NAME: message".
  llvm::Error error(llvm::StringRef message) const;

private:
  std::string displayName;
};

/// Connects to the PostgreSQL database at `url` (PostgresDatabase.cpp);
/// built without libpq, an error that says so.
llvm::Expected<std::unique_ptr<LibraryDatabase>>
openPostgresDatabase(llvm::StringRef url);

} // namespace kf

#endif // KF_LIB_SEARCH_LIBRARYDATABASE_H
