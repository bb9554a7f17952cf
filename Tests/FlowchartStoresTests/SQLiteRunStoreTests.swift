#if SQLite
  import CSQLite
  import Flowchart
  import Foundation
  import Testing

  @testable import FlowchartStores

  /// The SQLite store's table: its index, its version, its damaged rows.
  @Suite struct SQLiteRunStoreTests {
    /// Runs `sql` on the database at `path` through a connection of its own; returns the
    /// first column of each row, as text.
    static func query(_ sql: String, at path: String) throws -> [String] {
      var database: OpaquePointer?
      guard sqlite3_open(path, &database) == SQLITE_OK, let database else {
        throw RunStoreError(.database(code: 0), path: path, message: "cannot open")
      }
      defer { sqlite3_close_v2(database) }
      var statement: OpaquePointer?
      guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
        throw RunStoreError(
          .database(code: 0), path: path, message: String(cString: sqlite3_errmsg(database)))
      }
      defer { sqlite3_finalize(statement) }
      var rows: [String] = []
      while sqlite3_step(statement) == SQLITE_ROW {
        let column = sqlite3_column_count(statement) - 1
        rows.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
      }
      return rows
    }

    @Test func aFilterOnStatusAndStateUsesTheIndex() throws {
      let directory = TemporaryDirectory()
      let path = directory.file("runs.sqlite")
      _ = try SQLiteRunStore(path: path)
      let plan = try Self.query(
        "EXPLAIN QUERY PLAN SELECT id FROM runs WHERE status IN ('waitingForInput') AND state = 'Approve' ORDER BY id",
        at: path)
      #expect(plan.contains { $0.contains("USING INDEX runs_by_status") }, "\(plan)")
      #expect(try Self.query("PRAGMA journal_mode", at: path) == ["wal"])
      #expect(try Self.query("PRAGMA user_version", at: path) == ["1"])
    }

    @Test func theColumnsHoldTheSummary() throws {
      let directory = TemporaryDirectory()
      let path = directory.file("runs.sqlite")
      let store = try SQLiteRunStore(path: path)
      for run in Runs.everyStatus { try store.write(run) }
      let rows = try Self.query(
        "SELECT id || ' ' || status || ' ' || ifnull(state, '-') || ' ' || ifnull(until, '-') || ' ' || ifnull(reason, '-') || ' ' || length(snapshot) FROM runs ORDER BY id",
        at: path)
      #expect(
        rows == [
          "a-running running - - - 2",
          "b-paused paused - - - 2",
          "c-approve waitingForInput Approve - - 2",
          "d-approve waitingForInput Approve - - 2",
          "e-upload waitingForInput Upload - - 2",
          "f-until waitingUntil Remind 1795003600000000000 - 2",
          "g-failed failed Charge - card declined\nsecond line ✓ 2",
          "h-failed failed - - timed out 2",
          "i-cancelled cancelled - - - 2",
          "j-finished finished - - - 2",
        ])
    }

    @Test func aDamagedRowIsAnErrorAndAProblemOfTheListing() async throws {
      let directory = TemporaryDirectory()
      let path = directory.file("runs.sqlite")
      let store = try SQLiteRunStore(path: path)
      try store.write(Runs.run("good"))
      try store.write(Runs.run("bad"))
      _ = try Self.query("UPDATE runs SET status = 'asleep' WHERE id = 'bad'", at: path)
      let message =
        "The run's row is damaged: 'asleep' is not a run status; one of running, paused, waitingForInput, waitingUntil, failed, cancelled, finished was expected. Delete the row or restore the database."
      let location = "\(path) (run 'bad')"
      #expect(throws: RunStoreError(.corrupted, path: location, message: message)) {
        _ = try store.read(Runs.id("bad"))
      }
      let listing = try await store.listing(matching: .all)
      #expect(listing.runs.map(\.id.text) == ["good"])
      #expect(listing.problems == [RunStoreProblem(location: location, message: message)])
      #expect(try await store.list().map(\.id.text) == ["good"])
    }

    @Test func aDatabaseOfANewerFormatIsRefused() throws {
      let directory = TemporaryDirectory()
      let path = directory.file("runs.sqlite")
      _ = try SQLiteRunStore(path: path)
      _ = try Self.query("PRAGMA user_version = 2", at: path)
      #expect(
        throws: RunStoreError(
          .newerFormat(version: 2), path: path,
          message:
            "The run database is in format version 2; this version of Flowchart reads version 1 and older. Update Flowchart to read it."
        )
      ) {
        _ = try SQLiteRunStore(path: path)
      }
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
      let directory = TemporaryDirectory()
      let path = directory.file("runs.sqlite")
      _ = FileManager.default.createFile(
        atPath: path, contents: Data(String(repeating: "not a database ", count: 100).utf8))
      #expect {
        _ = try SQLiteRunStore(path: path)
      } throws: { error in
        let error = try #require(error as? RunStoreError)
        return error.kind == .database(code: SQLITE_NOTADB) && error.path == path
          && error.message.hasPrefix("SQLite could not run 'PRAGMA journal_mode=WAL'")
      }
    }

    @Test func twoStoresOnOneDatabaseSeeEachOthersRuns() async throws {
      let directory = TemporaryDirectory()
      let path = directory.file("runs.sqlite")
      let first = try SQLiteRunStore(path: path)
      let second = try SQLiteRunStore(path: path)
      try await first.save(Runs.run("shared", .waitingForInput(state: "Approve")))
      #expect(
        try await second.load(Runs.id("shared"))
          == Runs.run("shared", .waitingForInput(state: "Approve")))
      #expect(try await second.delete(Runs.id("shared")))
      #expect(try await first.list() == [])
    }
  }
#endif
