import Flowchart
import FlowchartStores
import Foundation

#if SQLite
  import CSQLite
#endif

/// Measures the run stores (issue 22): saving snapshots through `DirectoryRunStore` against
/// the same bytes written with write + fsync + rename (and the directory's fsync) by hand,
/// and, built with the `SQLite` trait, through `SQLiteRunStore` against the same inserts by
/// hand (one transaction each, in a WAL database with `synchronous=FULL`).
///
/// Every save is flushed to the disk, so the rows measure the disk's flushes as much as the
/// code: on this machine's disk a flush takes milliseconds. A full run saves 10,000 snapshots
/// of 1 KiB per sample, over 3 repetitions; `--quick` saves 100, once.
enum StoreBenchmarks {
  static func measure(_ configuration: Configuration, into report: inout Report) throws {
    let saves = configuration.isQuick ? 100 : 10_000
    let repetitions = configuration.isQuick ? 1 : min(configuration.repetitions, 3)
    let runs = (0..<saves).map { index in
      StoredRun(
        summary: RunSummary(
          id: RunID("run-\(index % 100)")!, status: .waitingForInput(state: "Approve"),
          chart: "Orders", fingerprint: "f1", updated: WallClockTime(secondsSince1970: 0)),
        snapshot: (0..<1024).map { UInt8(truncatingIfNeeded: $0 &+ index) })
    }
    let root =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("flowchart-store-benchmarks-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    var sample = 0
    func freshPath() -> String {
      sample += 1
      return root + "/\(sample)"
    }
    let directory = try Interleaver.run(
      repetitions: repetitions,
      [
        {
          let store = try DirectoryRunStore(directory: freshPath())
          return try Stopwatch.nanoseconds {
            for run in runs { try store.write(run) }
          } / Double(saves)
        },
        {
          let path = freshPath()
          try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true)
          return try Stopwatch.nanoseconds {
            try saveByHand(runs, in: path)
          } / Double(saves)
        },
      ])
    report.rows.append(
      ReportRow(
        group: "stores", workload: "directory store, \(compactCount(saves)) saves of 1 KiB",
        unit: "µs/save", flowchart: microseconds(directory[0]),
        baseline: microseconds(directory[1]), targetRatio: 1.2))
    #if SQLite
      let sqlite = try Interleaver.run(
        repetitions: repetitions,
        [
          {
            let store = try SQLiteRunStore(path: freshPath())
            return try Stopwatch.nanoseconds {
              for run in runs { try store.write(run) }
            } / Double(saves)
          },
          {
            let path = freshPath()
            return try Stopwatch.nanoseconds {
              try insertByHand(runs, into: path)
            } / Double(saves)
          },
        ])
      report.rows.append(
        ReportRow(
          group: "stores", workload: "SQLite store, \(compactCount(saves)) saves of 1 KiB",
          unit: "µs/save", flowchart: microseconds(sqlite[0]),
          baseline: microseconds(sqlite[1]), targetRatio: 1.2))
    #endif
    report.notes.append(
      "stores: \(compactCount(saves)) saves of 1 KiB snapshots over 100 run ids, each flushed to "
        + "the disk. Directory: DirectoryRunStore.write against open, write, fsync, close, "
        + "rename and the directory's fsync by hand, of the snapshot's bytes alone. "
        + "SQLite (with --traits SQLite only): SQLiteRunStore.write against a prepared "
        + "INSERT … ON CONFLICT in BEGIN IMMEDIATE … COMMIT by hand, WAL, synchronous=FULL.")
  }

  /// The directory store's steps, by hand, for each run's snapshot bytes.
  static func saveByHand(_ runs: [StoredRun], in path: String) throws {
    let directory = open(path, O_RDONLY | O_DIRECTORY)
    guard directory >= 0 else { throw StoreBenchmarkError.failed("cannot open \(path)") }
    defer { close(directory) }
    for run in runs {
      let temporary = ".\(run.id.text).tmp"
      let file = openat(directory, temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      guard file >= 0 else { throw StoreBenchmarkError.failed("cannot create \(temporary)") }
      let written = run.snapshot.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
      guard written == run.snapshot.count, fsync(file) == 0 else {
        throw StoreBenchmarkError.failed("cannot write \(temporary)")
      }
      close(file)
      guard renameat(directory, temporary, directory, run.id.text) == 0, fsync(directory) == 0
      else { throw StoreBenchmarkError.failed("cannot rename \(temporary)") }
    }
  }

  #if SQLite
    /// The SQLite store's inserts, by hand.
    static func insertByHand(_ runs: [StoredRun], into path: String) throws {
      var database: OpaquePointer?
      guard sqlite3_open(path, &database) == SQLITE_OK, let database else {
        throw StoreBenchmarkError.failed("cannot open \(path)")
      }
      defer { sqlite3_close_v2(database) }
      for pragma in [
        "PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
        """
        CREATE TABLE runs (id TEXT PRIMARY KEY NOT NULL, status TEXT NOT NULL, state TEXT,
          until INTEGER, reason TEXT, chart TEXT NOT NULL, fingerprint TEXT NOT NULL,
          updated INTEGER NOT NULL, snapshot BLOB NOT NULL)
        """,
      ] {
        guard sqlite3_exec(database, pragma, nil, nil, nil) == SQLITE_OK else {
          throw StoreBenchmarkError.failed("cannot run \(pragma)")
        }
      }
      var insert: OpaquePointer?
      var begin: OpaquePointer?
      var commit: OpaquePointer?
      sqlite3_prepare_v2(
        database,
        """
        INSERT INTO runs VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE
        SET status = excluded.status, state = excluded.state, chart = excluded.chart,
        fingerprint = excluded.fingerprint, updated = excluded.updated,
        snapshot = excluded.snapshot
        """, -1, &insert, nil)
      sqlite3_prepare_v2(database, "BEGIN IMMEDIATE", -1, &begin, nil)
      sqlite3_prepare_v2(database, "COMMIT", -1, &commit, nil)
      defer { for statement in [insert, begin, commit] { sqlite3_finalize(statement) } }
      let transient = flowchart_sqlite_transient()
      for run in runs {
        guard sqlite3_step(begin) == SQLITE_DONE else { throw StoreBenchmarkError.failed("begin") }
        sqlite3_reset(begin)
        sqlite3_bind_text(insert, 1, run.id.text, -1, transient)
        sqlite3_bind_text(insert, 2, run.summary.status.name, -1, transient)
        sqlite3_bind_text(insert, 3, run.summary.status.state, -1, transient)
        sqlite3_bind_text(insert, 4, run.summary.chart, -1, transient)
        sqlite3_bind_text(insert, 5, run.summary.fingerprint, -1, transient)
        sqlite3_bind_int64(insert, 6, run.summary.updated.nanosecondsSince1970)
        _ = run.snapshot.withUnsafeBytes {
          sqlite3_bind_blob64(insert, 7, $0.baseAddress, UInt64($0.count), transient)
        }
        guard sqlite3_step(insert) == SQLITE_DONE else {
          throw StoreBenchmarkError.failed("insert")
        }
        sqlite3_reset(insert)
        guard sqlite3_step(commit) == SQLITE_DONE else {
          throw StoreBenchmarkError.failed("commit")
        }
        sqlite3_reset(commit)
      }
    }
  #endif

  private static func microseconds(_ samples: Samples) -> Samples {
    var result = Samples()
    for value in samples.values { result.append(value / 1_000) }
    return result
  }
}

/// A step of a store benchmark's hand-written side failed.
enum StoreBenchmarkError: Error {
  case failed(String)
}
