#if SQLite
  import CSQLite
  import Flowchart

  /// A run store in one SQLite database: a table of runs with their status in columns, so a
  /// server can ask which runs wait for input at a state without reading any snapshot.
  ///
  /// Available with the package's `SQLite` trait (off by default, so that building the
  /// package needs no SQLite headers): in your package,
  /// `.package(url: "…/Flowchart.git", from: "…", traits: ["SQLite"])`; in this one,
  /// `swift build --traits SQLite`. It uses the system's SQLite: the Apple SDKs have it; on
  /// Linux install `libsqlite3-dev`.
  ///
  /// The database is in WAL mode (readers do not block the writer) with `synchronous=FULL`:
  /// each save is a transaction of its own, on the disk once ``save(_:)`` returns, and a
  /// process killed in the middle of one leaves the run as it was before. Other processes
  /// may use the same database; a call waits up to ``busyTimeout`` for another's lock.
  ///
  /// ## The table, version 1
  ///
  /// ```sql
  /// CREATE TABLE runs (
  ///   id TEXT PRIMARY KEY NOT NULL,   -- the run's id
  ///   status TEXT NOT NULL,           -- RunStatus.name: running, waitingForInput, …
  ///   state TEXT,                     -- the state where it waits, or that failed it
  ///   until INTEGER,                  -- waitingUntil's time, in ns since 1970 UTC
  ///   reason TEXT,                    -- a failure's reason
  ///   chart TEXT NOT NULL,            -- the chart's identity
  ///   fingerprint TEXT NOT NULL,      -- the chart's structural fingerprint
  ///   updated INTEGER NOT NULL,       -- when it was saved, in ns since 1970 UTC
  ///   snapshot BLOB NOT NULL          -- the snapshot's bytes, as given
  /// );
  /// CREATE INDEX runs_by_status ON runs (status, state);
  /// ```
  ///
  /// The database's `user_version` is the format's version (1); a database of a newer one is
  /// refused with ``RunStoreError/Kind/newerFormat(version:)``. A row whose columns do not
  /// make a summary (a status no version wrote, an id that is not a `RunID`) is a
  /// ``RunStoreError`` on ``load(_:)``, and a problem of ``listing(matching:)``.
  ///
  /// One connection serves the store, its statements prepared once; calls from many tasks
  /// take turns on it, blocking their thread for the database's time.
  public final class SQLiteRunStore: RunStore {
    /// The database file's path, as given.
    public let path: String
    /// How long a call waits for another connection's lock before it fails.
    public static let busyTimeout: Duration = .seconds(10)
    /// The version of the table this library writes, and the newest it reads.
    public static let formatVersion: Int32 = 1

    private let connection: Lock<Connection>

    /// A store over the database at `path`, created with its table when it does not exist.
    ///
    /// - Throws: ``RunStoreError`` when the database cannot be opened or created, is not a
    ///   database, or is of a newer format.
    public init(path: String) throws(RunStoreError) {
      self.path = path
      connection = Lock(try Connection(path: path))
    }

    /// Saves `run` in one transaction, replacing the row of its id.
    ///
    /// - Throws: ``RunStoreError`` when SQLite fails (a full disk, a lock held longer than
    ///   ``busyTimeout``); the previous row is then untouched.
    public func save(_ run: StoredRun) async throws {
      try write(run)
    }

    /// Saves `run` synchronously: ``save(_:)`` without the `async`.
    public func write(_ run: StoredRun) throws(RunStoreError) {
      try connection.withLock { connection throws(RunStoreError) in try connection.save(run) }
    }

    /// The run saved under `id`, or `nil` when there is none.
    ///
    /// - Throws: ``RunStoreError`` when SQLite fails or the row does not make a run.
    public func load(_ id: RunID) async throws -> StoredRun? {
      try read(id)
    }

    /// Loads the run `id` synchronously: ``load(_:)`` without the `async`.
    public func read(_ id: RunID) throws(RunStoreError) -> StoredRun? {
      try connection.withLock { connection throws(RunStoreError) in try connection.load(id) }
    }

    /// The summaries of the runs that match `filter`, in the order of their ids (a query on
    /// the summary's columns; the snapshots are not read). A row that does not make a summary
    /// is left out (``listing(matching:)`` reports it).
    public func list(matching filter: RunFilter) async throws -> [RunSummary] {
      try scan(matching: filter).runs
    }

    /// The summaries of the runs that match `filter`, and a problem for each row that does
    /// not make a summary.
    public func listing(matching filter: RunFilter) async throws -> RunListing {
      try scan(matching: filter)
    }

    /// Lists synchronously: ``listing(matching:)`` without the `async`.
    public func scan(matching filter: RunFilter = .all) throws(RunStoreError) -> RunListing {
      try connection.withLock { connection throws(RunStoreError) in
        try connection.list(filter)
      }
    }

    /// Removes the run's row; returns whether there was one.
    @discardableResult
    public func delete(_ id: RunID) async throws -> Bool {
      try remove(id)
    }

    /// Deletes synchronously: ``delete(_:)`` without the `async`.
    @discardableResult
    public func remove(_ id: RunID) throws(RunStoreError) -> Bool {
      try connection.withLock { connection throws(RunStoreError) in try connection.delete(id) }
    }
  }

  /// One SQLite connection and its prepared statements. Used only inside the store's lock.
  final class Connection {
    let path: String
    private let database: OpaquePointer
    private let upsert: OpaquePointer
    private let select: OpaquePointer
    private let remove: OpaquePointer
    private let begin: OpaquePointer
    private let commit: OpaquePointer
    private let rollback: OpaquePointer

    static let schema = """
      CREATE TABLE IF NOT EXISTS runs (
        id TEXT PRIMARY KEY NOT NULL,
        status TEXT NOT NULL,
        state TEXT,
        until INTEGER,
        reason TEXT,
        chart TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        updated INTEGER NOT NULL,
        snapshot BLOB NOT NULL
      );
      CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status, state);
      """
    static let summaryColumns = "id, status, state, until, reason, chart, fingerprint, updated"

    init(path: String) throws(RunStoreError) {
      self.path = path
      var handle: OpaquePointer?
      let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
      let opened = sqlite3_open_v2(path, &handle, flags, nil)
      guard opened == SQLITE_OK, let handle else {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
        sqlite3_close_v2(handle)
        throw RunStoreError(
          .database(code: opened), path: path,
          message: "The run database could not be opened: \(message).")
      }
      database = handle
      do throws(RunStoreError) {
        sqlite3_busy_timeout(
          handle, Int32(SQLiteRunStore.busyTimeout.components.seconds * 1000))
        try Self.execute("PRAGMA journal_mode=WAL", on: handle, path: path)
        try Self.execute("PRAGMA synchronous=FULL", on: handle, path: path)
        let version = try Self.userVersion(of: handle, path: path)
        if version > SQLiteRunStore.formatVersion {
          throw RunStoreError(
            .newerFormat(version: Int(version)), path: path,
            message:
              "The run database is in format version \(version); this version of Flowchart reads version \(SQLiteRunStore.formatVersion) and older. Update Flowchart to read it."
          )
        }
        if version < SQLiteRunStore.formatVersion {
          try Self.execute("BEGIN IMMEDIATE", on: handle, path: path)
          try Self.execute(Self.schema, on: handle, path: path)
          try Self.execute(
            "PRAGMA user_version=\(SQLiteRunStore.formatVersion)", on: handle, path: path)
          try Self.execute("COMMIT", on: handle, path: path)
        }
        upsert = try Self.prepare(
          """
          INSERT INTO runs (\(Self.summaryColumns), snapshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET status = excluded.status, state = excluded.state,
            until = excluded.until, reason = excluded.reason, chart = excluded.chart,
            fingerprint = excluded.fingerprint, updated = excluded.updated,
            snapshot = excluded.snapshot
          """, on: handle, path: path)
        select = try Self.prepare(
          "SELECT \(Self.summaryColumns), snapshot FROM runs WHERE id = ?", on: handle, path: path)
        remove = try Self.prepare("DELETE FROM runs WHERE id = ?", on: handle, path: path)
        begin = try Self.prepare("BEGIN IMMEDIATE", on: handle, path: path)
        commit = try Self.prepare("COMMIT", on: handle, path: path)
        rollback = try Self.prepare("ROLLBACK", on: handle, path: path)
      } catch {
        sqlite3_close_v2(handle)
        throw error
      }
    }

    deinit {
      for statement in [upsert, select, remove, begin, commit, rollback] {
        sqlite3_finalize(statement)
      }
      sqlite3_close_v2(database)
    }

    // MARK: Operations

    func save(_ run: StoredRun) throws(RunStoreError) {
      try step(begin)
      do throws(RunStoreError) {
        let summary = run.summary
        defer { sqlite3_reset(upsert) }
        bind(summary, to: upsert)
        _ = run.snapshot.withUnsafeBytes { bytes in
          sqlite3_bind_blob64(
            upsert, 9, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count),
            flowchart_sqlite_transient())
        }
        try step(upsert)
        try step(commit)
      } catch {
        _ = try? step(rollback)
        throw error
      }
    }

    func load(_ id: RunID) throws(RunStoreError) -> StoredRun? {
      defer { sqlite3_reset(select) }
      bind(id.text, at: 1, to: select)
      let result = sqlite3_step(select)
      if result == SQLITE_DONE { return nil }
      guard result == SQLITE_ROW else { throw failure(result, "read the run '\(id)'") }
      let summary = try summary(of: select)
      let count = Int(sqlite3_column_bytes(select, 8))
      let snapshot =
        count == 0
        ? []
        : [UInt8](
          UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 8), count: count))
      return StoredRun(summary: summary, snapshot: snapshot)
    }

    func list(_ filter: RunFilter) throws(RunStoreError) -> RunListing {
      var conditions: [String] = []
      var values: [String] = []
      if let statuses = filter.statuses {
        if statuses.isEmpty { return RunListing(runs: []) }
        let sorted = statuses.sorted()
        conditions.append("status IN (\(sorted.map { _ in "?" }.joined(separator: ", ")))")
        values += sorted
      }
      if let state = filter.state {
        conditions.append("state = ?")
        values.append(state)
      }
      if let chart = filter.chart {
        conditions.append("chart = ?")
        values.append(chart)
      }
      let clause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
      let query = try Self.prepare(
        "SELECT \(Self.summaryColumns) FROM runs\(clause) ORDER BY id", on: database, path: path)
      defer { sqlite3_finalize(query) }
      for (index, value) in values.enumerated() {
        bind(value, at: Int32(index + 1), to: query)
      }
      var runs: [RunSummary] = []
      var problems: [RunStoreProblem] = []
      while true {
        let result = sqlite3_step(query)
        if result == SQLITE_DONE { break }
        guard result == SQLITE_ROW else { throw failure(result, "list the runs") }
        do throws(RunStoreError) {
          let summary = try summary(of: query)
          // The database compares bytes; a filter compares strings (Unicode equivalence).
          if filter.matches(summary) { runs.append(summary) }
        } catch {
          problems.append(error.problem)
        }
      }
      // SQLite orders ids by their bytes, RunID by its text: the same for ASCII, sorted again
      // to be sure.
      runs.sort { $0.id < $1.id }
      return RunListing(runs: runs, problems: problems)
    }

    func delete(_ id: RunID) throws(RunStoreError) -> Bool {
      defer { sqlite3_reset(remove) }
      bind(id.text, at: 1, to: remove)
      try step(remove)
      return sqlite3_changes(database) > 0
    }

    // MARK: Rows

    private func bind(_ summary: RunSummary, to statement: OpaquePointer) {
      bind(summary.id.text, at: 1, to: statement)
      bind(summary.status.name, at: 2, to: statement)
      bind(summary.status.state, at: 3, to: statement)
      if case .waitingUntil(let time, _) = summary.status {
        sqlite3_bind_int64(statement, 4, time.nanosecondsSince1970)
      } else {
        sqlite3_bind_null(statement, 4)
      }
      if case .failed(_, let reason) = summary.status {
        bind(reason, at: 5, to: statement)
      } else {
        sqlite3_bind_null(statement, 5)
      }
      bind(summary.chart, at: 6, to: statement)
      bind(summary.fingerprint, at: 7, to: statement)
      sqlite3_bind_int64(statement, 8, summary.updated.nanosecondsSince1970)
    }

    private func bind(_ text: String?, at index: Int32, to statement: OpaquePointer) {
      guard let text else {
        sqlite3_bind_null(statement, index)
        return
      }
      sqlite3_bind_text(statement, index, text, -1, flowchart_sqlite_transient())
    }

    private func summary(of row: OpaquePointer) throws(RunStoreError) -> RunSummary {
      let idText = text(row, 0) ?? ""
      let location = "\(path) (run '\(idText)')"
      func damaged(_ what: String) -> RunStoreError {
        RunStoreError(
          .corrupted, path: location,
          message: "The run's row is damaged: \(what). Delete the row or restore the database.")
      }
      guard let id = RunID(idText) else {
        throw damaged(RunID.problem(with: idText) ?? "its id is not a run id")
      }
      let state = text(row, 2)
      let status: RunStatus
      switch text(row, 1) ?? "" {
      case "running": status = .running
      case "paused": status = .paused
      case "waitingForInput":
        guard let state else { throw damaged("'waitingForInput' without a state") }
        status = .waitingForInput(state: state)
      case "waitingUntil":
        guard let state, sqlite3_column_type(row, 3) == SQLITE_INTEGER else {
          throw damaged("'waitingUntil' without a state and a time")
        }
        status = .waitingUntil(
          WallClockTime(nanosecondsSince1970: sqlite3_column_int64(row, 3)), state: state)
      case "failed":
        guard let reason = text(row, 4) else { throw damaged("'failed' without a reason") }
        status = .failed(state: state, reason: reason)
      case "cancelled": status = .cancelled
      case "finished": status = .finished
      case let name:
        throw damaged(
          "'\(name)' is not a run status; one of running, paused, waitingForInput, waitingUntil, failed, cancelled, finished was expected"
        )
      }
      guard let chart = text(row, 5), let fingerprint = text(row, 6),
        sqlite3_column_type(row, 7) == SQLITE_INTEGER
      else { throw damaged("its chart, fingerprint or time of saving is missing") }
      return RunSummary(
        id: id, status: status, chart: chart, fingerprint: fingerprint,
        updated: WallClockTime(nanosecondsSince1970: sqlite3_column_int64(row, 7)))
    }

    private func text(_ row: OpaquePointer, _ column: Int32) -> String? {
      guard sqlite3_column_type(row, column) != SQLITE_NULL,
        let text = sqlite3_column_text(row, column)
      else { return nil }
      return String(cString: text)
    }

    // MARK: SQLite calls

    private func step(_ statement: OpaquePointer) throws(RunStoreError) {
      let result = sqlite3_step(statement)
      sqlite3_reset(statement)
      guard result == SQLITE_DONE || result == SQLITE_ROW else {
        throw failure(result, "run '\(String(cString: sqlite3_sql(statement)))'")
      }
    }

    private func failure(_ code: Int32, _ what: String) -> RunStoreError {
      RunStoreError(
        .database(code: code), path: path,
        message: "SQLite could not \(what): \(String(cString: sqlite3_errmsg(database))).")
    }

    private static func execute(_ sql: String, on database: OpaquePointer, path: String)
      throws(RunStoreError)
    {
      var error: UnsafeMutablePointer<CChar>?
      let result = sqlite3_exec(database, sql, nil, nil, &error)
      guard result == SQLITE_OK else {
        let message = error.map { String(cString: $0) } ?? "error \(result)"
        sqlite3_free(error)
        throw RunStoreError(
          .database(code: result), path: path,
          message:
            "SQLite could not run '\(sql.prefix(40))': \(message). Check that this is a run database and that it is writable."
        )
      }
    }

    private static func userVersion(of database: OpaquePointer, path: String)
      throws(RunStoreError) -> Int32
    {
      let statement = try prepare("PRAGMA user_version", on: database, path: path)
      defer { sqlite3_finalize(statement) }
      guard sqlite3_step(statement) == SQLITE_ROW else {
        throw RunStoreError(
          .database(code: sqlite3_errcode(database)), path: path,
          message:
            "The run database's version could not be read: \(String(cString: sqlite3_errmsg(database)))."
        )
      }
      return sqlite3_column_int(statement, 0)
    }

    private static func prepare(_ sql: String, on database: OpaquePointer, path: String)
      throws(RunStoreError) -> OpaquePointer
    {
      var statement: OpaquePointer?
      let result = sqlite3_prepare_v3(
        database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
      guard result == SQLITE_OK, let statement else {
        throw RunStoreError(
          .database(code: result), path: path,
          message:
            "SQLite could not prepare '\(sql.prefix(40))': \(String(cString: sqlite3_errmsg(database))). Check that this is a run database."
        )
      }
      return statement
    }
  }

  // A `Connection` is used only inside the store's `Lock`, which holds a pthread mutex for
  // the whole of each use, so no two threads touch its database handle or statements at once
  // (the handle is opened `SQLITE_OPEN_NOMUTEX`, which allows one thread at a time); its
  // stored properties never change after `init`.
  extension Connection: @unchecked Sendable {}
#endif
