import Flowchart
import Foundation
import Testing

@testable import FlowchartStores

/// Kill tests: a child process saves runs in a loop and is killed with `SIGKILL` at a random
/// moment, many times over; after each kill, every run in the store must be whole (one of
/// the child's saves, never a mix of two), no older than before the child started, and the
/// store must still list and load.
///
/// The child is a Swift Testing exit test: it opens the store, starts a thread that sleeps a
/// random 0 to 5 ms and then kills its own process, and saves three runs in turn on its main
/// thread, each with a counter one higher than the last, until it dies. Each snapshot
/// describes itself (its counter, its length, a checksum of the rest), and the summary's
/// fingerprint repeats the counter, so a torn file or a header of one save over the
/// snapshot of another shows. The verdict never depends on timing: a kill that lands
/// before the first save, or between two saves, only makes a round check less.
///
/// 200 kills by default, in 2 lanes of separate stores that run at once; set
/// `FLOWCHART_STORE_KILLS` for more: `FLOWCHART_STORE_KILLS=5000 swift test --filter
/// StoreKillTests`.
@Suite struct StoreKillTests {
  /// How many children to kill in all.
  static var kills: Int {
    ProcessInfo.processInfo.environment["FLOWCHART_STORE_KILLS"].flatMap(Int.init) ?? 200
  }
  static let lanes = 2

  @Test func aDirectoryStoreKilledMidSaveKeepsEveryRunWhole() async throws {
    try await Self.killRepeatedly(.directory)
  }

  #if SQLite
    @Test func anSQLiteStoreKilledMidSaveKeepsEveryRunWhole() async throws {
      try await Self.killRepeatedly(.sqlite)
    }
  #endif

  static func killRepeatedly(_ kind: KillChild.Kind) async throws {
    let directory = TemporaryDirectory("kill")
    let kills = Self.kills
    // Swift Testing's parent side of an exit test blocks its thread while the child lives
    // (it reads the child's back channel to its end): run it on threads of its own, so that
    // the kills do not hold the cooperative pool's few threads from the other tests.
    try await withTaskExecutorPreference(ThreadsExecutor.shared) {
      try await killInLanes(kind, kills: kills, directory: directory)
    }
  }

  static func killInLanes(_ kind: KillChild.Kind, kills: Int, directory: TemporaryDirectory)
    async throws
  {
    try await withThrowingTaskGroup(of: Int.self) { group in
      for lane in 0..<lanes {
        group.addTask {
          let path = directory.file("lane-\(lane)")
          var previous: [String: UInt64] = [:]
          var rounds = 0
          for round in stride(from: lane, to: kills, by: lanes) {
            await #expect(processExitsWith: .signal(SIGKILL)) {
              [
                kindName = kind.rawValue as String, path = path as String,
                seed = UInt64(round) as UInt64
              ] in
              try KillChild.saveUntilKilled(
                KillChild.Kind(rawValue: kindName)!, path: path, seed: seed)
            }
            let counters = try KillChild.check(kind, path: path)
            for (id, counter) in previous {
              #expect(
                (counters[id] ?? 0) >= counter,
                "round \(round): the run '\(id)' went back from \(counter) to \(counters[id] ?? 0)")
            }
            previous = counters
            rounds += 1
          }
          return rounds
        }
      }
      var rounds = 0
      for try await laneRounds in group { rounds += laneRounds }
      #expect(rounds == kills)
    }
  }
}

/// The child's side of the kill tests, and the parent's check of what the child left.
enum KillChild {
  enum Kind: String, Sendable {
    case directory
    #if SQLite
      case sqlite
    #endif
  }

  static let ids = ["alpha", "beta", "gamma"]

  /// The synchronous calls of a store of `kind` at `path`.
  static func open(_ kind: Kind, path: String) throws -> (
    write: (StoredRun) throws -> Void, read: (RunID) throws -> StoredRun?,
    scan: () throws -> RunListing
  ) {
    switch kind {
    case .directory:
      let store = try DirectoryRunStore(directory: path)
      return (store.write, store.read, { try store.scan() })
    #if SQLite
      case .sqlite:
        let store = try SQLiteRunStore(path: path)
        return (store.write, store.read, { try store.scan() })
    #endif
    }
  }

  /// Saves the three runs in turn, with growing counters, until a thread kills the process.
  static func saveUntilKilled(_ kind: Kind, path: String, seed: UInt64) throws {
    let store = try open(kind, path: path)
    var counter: UInt64 = 0
    for summary in try store.scan().runs {
      counter = max(counter, UInt64(summary.fingerprint) ?? 0)
    }
    var generator = SeededGenerator(seed: seed)
    let delay = UInt32.random(in: 0..<5000, using: &generator)
    let killer = Thread {
      usleep(delay)
      kill(getpid(), SIGKILL)
    }
    killer.start()
    while true {
      counter += 1
      for (index, id) in ids.enumerated() {
        try store.write(run(id, index: index, counter: counter))
      }
    }
  }

  /// The run `id` as the child saves it at `counter`: a snapshot of 0 to about 48 KiB that
  /// describes itself.
  static func run(_ id: String, index: Int, counter: UInt64) -> StoredRun {
    let length = Int((counter &* 7919 &+ UInt64(index) &* 104_729) % 48_000)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(length + 24)
    append(counter, to: &bytes)
    append(UInt64(length), to: &bytes)
    for offset in 0..<length {
      bytes.append(UInt8(truncatingIfNeeded: counter &+ UInt64(offset) &* 31))
    }
    append(checksum(bytes), to: &bytes)
    let status: RunStatus =
      counter.isMultiple(of: 2)
      ? .waitingForInput(state: "Approve") : .failed(state: id, reason: "round \(counter)")
    return StoredRun(
      summary: RunSummary(
        id: RunID(id)!, status: status, chart: "Kill", fingerprint: "\(counter)",
        updated: WallClockTime(secondsSince1970: Int64(counter))),
      snapshot: bytes)
  }

  /// What the children left at `path`: every run whole and listed; returns each run's
  /// counter. Removes the killed child's temporary file (the directory store).
  static func check(_ kind: Kind, path: String) throws -> [String: UInt64] {
    let store = try open(kind, path: path)
    let listing = try store.scan()
    #expect(listing.problems == [])
    #expect(Set(listing.runs.map(\.id.text)).isSubset(of: ids))
    var counters: [String: UInt64] = [:]
    for summary in listing.runs {
      let run = try #require(try store.read(summary.id))
      #expect(run.summary == summary)
      let counter = try #require(UInt64(summary.fingerprint))
      let index = try #require(ids.firstIndex(of: summary.id.text))
      // Compared as a Bool, so that a failure prints the message, not two snapshots.
      let isWhole = run == Self.run(summary.id.text, index: index, counter: counter)
      #expect(
        isWhole,
        "the run '\(summary.id)' is not whole: its snapshot or summary is not the save of counter \(counter)"
      )
      counters[summary.id.text] = counter
    }
    if kind == .directory {
      let directory = try DirectoryRunStore(directory: path)
      #expect(try directory.removeLeftovers().count <= 1)
      let left = try FileManager.default.contentsOfDirectory(atPath: path)
      #expect(left.allSatisfy { !$0.hasPrefix(".") }, "temporary files left: \(left)")
    }
    return counters
  }

  private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  private static func checksum(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return hash
  }
}

/// A task executor on threads of its own, for tasks that block their thread (the parent side
/// of an exit test). Its threads run for the life of the test process.
final class ThreadsExecutor: TaskExecutor, @unchecked Sendable {
  // `@unchecked Sendable`: `jobs` is read and written only while `condition` is locked.
  static let shared = ThreadsExecutor(threads: 4)

  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []

  init(threads: Int) {
    for _ in 0..<threads {
      Thread { self.run() }.start()
    }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty { condition.wait() }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
