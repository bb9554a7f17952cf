import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots written by format 1 of this package, kept as files in `Fixtures/`: each is
// decoded and resumed to its expected result, so that a change that would break runs
// already stored cannot pass unnoticed. They were written with
//
//     FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1 swift test --filter StoredSnapshotTests
//
// and are frozen now: this version writes format 3 (`Format3SnapshotTests.swift` keeps its
// files), so writing these again would replace format-1 files with format-3 ones. The same
// holds for the format-2 files of `StoredDispatchSnapshotTests`, `StoredNestedSnapshotTests`
// and `StoredMapSnapshotTests`.

/// The chart of the stored runs: a wait, a decision, and a state that may fail.
private func storedChart(failing: Bool) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { ledger in
      ledger.total += 1
      if failing && ledger.notes.isEmpty { throw Declined() }
    }
    Wait("Answer", for: Int.self) { $0.total += $1 }
    Condition("Big?") {
      $0.total > 3
    } yes: {
      Action("Celebrate", isFinal: true) { $0.notes.append("big") }
    } no: {
      Action("Shrug", isFinal: true) { $0.notes.append("small") }
    }
  }
}

private struct Fixture: Sendable {
  var name: String
  /// Makes the snapshot (only when the fixtures are written).
  var make: @Sendable () async throws -> RunSnapshot<Ledger>
  /// What the resumed run is sent, if anything, once it waits at "Answer".
  var sends: Int?
  var expectedPath: [String]
  var expectedContext: Ledger
}

private func handle(failing: Bool = false, notes: [String] = ["kept"]) throws -> RunHandle<Ledger> {
  try storedChart(failing: failing).start(
    with: Ledger(total: 0, notes: notes), id: RunID("stored-run-1")!, chart: "stored",
    clock: TestClock(), isPaused: true)
}

private let allFixtures: [Fixture] = [
  Fixture(
    name: "held-at-start",
    make: { try await handle().snapshot() }, sends: 5,
    expectedPath: ["Charge", "Answer", "Big?", "Celebrate"],
    expectedContext: Ledger(total: 6, notes: ["kept", "big"])),
  Fixture(
    name: "value-waiting",
    make: {
      let run = try handle()
      try run.send(1, to: "Answer")
      return try await run.snapshot()
    }, sends: nil,
    expectedPath: ["Charge", "Answer", "Big?", "Shrug"],
    expectedContext: Ledger(total: 2, notes: ["kept", "small"])),
  Fixture(
    name: "waiting-for-input",
    make: {
      let run = try handle()
      var events = run.events().makeAsyncIterator()
      run.resume()
      await waitForInput(run, events: &events)
      return try await run.snapshot()
    }, sends: 2,
    expectedPath: ["Charge", "Answer", "Big?", "Shrug"],
    expectedContext: Ledger(total: 3, notes: ["kept", "small"])),
  Fixture(
    name: "failed",
    make: {
      let run = try handle(failing: true, notes: [])
      run.resume()
      _ = try? await run.result
      return try await run.snapshot()
    }, sends: 4,
    expectedPath: ["Charge", "Charge", "Answer", "Big?", "Celebrate"],
    expectedContext: Ledger(total: 5, notes: ["big"])),
  Fixture(
    name: "finished",
    make: {
      let run = try handle()
      try run.send(7, to: "Answer")
      run.resume()
      _ = try await run.result
      return try await run.snapshot()
    }, sends: nil,
    expectedPath: ["Charge", "Answer", "Big?", "Celebrate"],
    expectedContext: Ledger(total: 8, notes: ["kept", "big"])),
]

@Suite(.timeLimit(.minutes(5)))
struct StoredSnapshotTests {
  @Test(arguments: allFixtures.map(\.name))
  func aStoredSnapshotDecodesAndResumesToItsResult(_ name: String) async throws {
    let fixture = try #require(allFixtures.first { $0.name == name })
    let snapshot = try await storedSnapshot("\(name)", of: Ledger.self) { try await fixture.make() }
    #expect(snapshot.formatVersion == 1)
    #expect(snapshot.id == RunID("stored-run-1"))
    #expect(snapshot.chart == "stored")
    let chart = try storedChart(failing: false)
    let run = try chart.start(resuming: snapshot, chart: "stored", clock: TestClock())
    if let value = fixture.sends { try run.send(value, to: "Answer") }
    let result = try await run.result
    #expect(result.pathNames == fixture.expectedPath)
    #expect(result.context == fixture.expectedContext)
  }
}

/// The chart of the stored run parked at a delay.
// swift-format-ignore
private func storedDelayChart() throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { $0.total += 1 }
    Delay("Cool off", for: .seconds(3_600))
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct StoredDelaySnapshotTests {
  /// `parked-at-delay.json`: a run parked at a delay, 20 minutes into its hour, whose
  /// deadline is 2026-01-01T01:00:00Z.
  @Test func aStoredSnapshotAtADelayResumesWaitingOnlyTheRest() async throws {
    let snapshot = try await storedSnapshot("parked-at-delay", of: Ledger.self) {
      let clock = TestClock()
      let run = try storedDelayChart().start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-2")!, chart: "stored",
        clock: clock)
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1_200))
      defer { run.cancel() }
      return try await run.snapshot()
    }
    let deadline = TestClock().wallClockStart.advanced(by: .seconds(3_600))
    #expect(snapshot.status == .waitingUntil(deadline, state: "Cool off"))
    #expect(snapshot.pathKeys == ["Charge", "Cool off"])
    // Resumed 50 minutes after the run started: 10 minutes are left.
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(600)))
    let run = try storedDelayChart().start(resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(clock.advance(by: .seconds(599)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    let result = try await run.result
    #expect(result.pathNames == ["Charge", "Cool off", "Ship"])
    #expect(result.context == Ledger(total: 1, notes: ["kept", "shipped"]))
    // Resumed after the deadline: it goes on at once.
    let late = TestClock(wallClockStart: deadline)
    let ended = try await storedDelayChart().resume(from: snapshot, chart: "stored", clock: late)
    #expect(ended.context == Ledger(total: 1, notes: ["kept", "shipped"]))
    #expect(late.now.offset == .zero)
  }
}

/// The chart of the stored run between two attempts: "Upload" fails until its third attempt,
/// ten minutes apart; `attempts` records the attempts its code saw.
private func storedRetryChart(_ attempts: Shared<[Int]>) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Prepare") { $0.total += 1 }
    Action("Upload") { (ledger: inout Ledger) async throws in
      let attempt = RunInfo.current?.attempt ?? 0
      attempts.update { $0 += [attempt] }
      if attempt < 3 { throw Declined() }
      ledger.notes.append("uploaded at attempt \(attempt)")
    }
    .retry(3, backoff: .fixed(.seconds(600)))
    Action("Done", isFinal: true) { $0.notes.append("done") }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct StoredRetrySnapshotTests {
  /// `between-attempts.json`: a run in the backoff after the first attempt of "Upload"
  /// failed; attempt 2 runs next, at 2026-01-01T00:10:00Z.
  @Test func aStoredSnapshotBetweenAttemptsResumesWithTheNextAttempt() async throws {
    let snapshot = try await storedSnapshot("between-attempts", of: Ledger.self) {
      let clock = TestClock()
      let run = try storedRetryChart(Shared([])).start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-3")!, chart: "stored",
        clock: clock)
      try await clock.waitForSleepers(1)
      defer { run.cancel() }
      return try await run.snapshot()
    }
    let deadline = TestClock().wallClockStart.advanced(by: .seconds(600))
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Upload")
    #expect(snapshot.pathKeys == ["Prepare", "Upload"])
    // Resumed two minutes before the backoff ends.
    let attempts = Shared<[Int]>([])
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(120)))
    let run = try storedRetryChart(attempts).start(
      resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(clock.advance(by: .seconds(119)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(600))
    let result = try await run.result
    #expect(attempts.value == [2, 3])
    #expect(result.pathNames == ["Prepare", "Upload", "Done"])
    #expect(result.context == Ledger(total: 1, notes: ["kept", "uploaded at attempt 3", "done"]))
  }
}
