import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots between two attempts of a retried state: the snapshot records the state, the
// attempt that runs next and the absolute deadline of the backoff delay; a resumed run waits
// only the rest of it (or none once it has passed) and goes on counting attempts. Every test
// runs on `TestClock`s: no test sleeps.

private let backoff = Duration.seconds(600)

/// A chart whose "Upload" fails until its third attempt, ten minutes apart; `attempts` records
/// the attempts its code saw.
private func uploading(_ attempts: Shared<[Int]>) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Prepare") { $0.total += 1 }
    Action("Upload") { (ledger: inout Ledger) async throws in
      let attempt = RunInfo.current?.attempt ?? 0
      attempts.update { $0 += [attempt] }
      if attempt < 3 { throw Declined() }
      ledger.notes.append("uploaded at attempt \(attempt)")
    }
    .retry(3, backoff: .fixed(backoff))
    Action("Done", isFinal: true) { $0.notes.append("done") }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct RetrySnapshotTests {
  /// A snapshot of the run in the backoff after its first attempt failed, through JSON.
  private func snapshotBetweenAttempts(pausing: Bool = false) async throws -> (
    RunSnapshot<Ledger>, deadline: WallClockTime
  ) {
    let clock = TestClock()
    let attempts = Shared<[Int]>([])
    let handle = try uploading(attempts).start(
      with: Ledger(), id: RunID("upload-1")!, chart: "upload", clock: clock, isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    while let event = await events.next() {
      if case .retrying = event.kind { break }
    }
    try await clock.waitForSleepers(1)
    if pausing {
      handle.pause()
      clock.advance(by: backoff)
    }
    let snapshot = try await handle.snapshot()
    handle.cancel()
    #expect(attempts.value == [1])
    return (try roundTrip(snapshot), clock.wallClockStart.advanced(by: backoff))
  }

  @Test func aRunBetweenTwoAttemptsIsCapturedWithTheNextAttemptAndTheBackoffsDeadline()
    async throws
  {
    let (snapshot, deadline) = try await snapshotBetweenAttempts()
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Upload")
    #expect(snapshot.flows[0].attempt == 2)
    #expect(snapshot.flows[0].deadline == deadline)
    #expect(snapshot.pathKeys == ["Prepare", "Upload"])
    #expect(snapshot.stepCount == 2)
    // The context from before the state.
    #expect(snapshot.context == Ledger(total: 1))
  }

  @Test func aResumedRunWaitsOnlyTheRestOfTheBackoffAndCountsOn() async throws {
    let (snapshot, deadline) = try await snapshotBetweenAttempts()
    let attempts = Shared<[Int]>([])
    // Resumed five minutes after the backoff began: five minutes are left.
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(300)))
    let handle = try uploading(attempts).start(resuming: snapshot, chart: "upload", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(attempts.value.isEmpty)
    // A snapshot of the resumed run, in the rest of the backoff, keeps the same point.
    let again = try await handle.snapshot()
    #expect(again.flows[0].attempt == 2)
    #expect(again.flows[0].deadline == deadline)
    #expect(again.pathKeys == ["Prepare", "Upload"])
    #expect(clock.advance(by: .seconds(299)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    // Attempt 2 fails, and its own backoff runs in full.
    try await clock.waitForSleepers(1)
    #expect(attempts.value == [2])
    clock.advance(by: backoff)
    let result = try await handle.result
    #expect(attempts.value == [2, 3])
    #expect(result.pathNames == ["Prepare", "Upload", "Done"])
    #expect(result.stepCount == 3)
    #expect(result.context == Ledger(total: 1, notes: ["uploaded at attempt 3", "done"]))
    #expect(clock.now.offset == .seconds(900))
  }

  @Test func aResumedRunWhoseBackoffHasPassedRunsTheNextAttemptAtOnce() async throws {
    let (snapshot, deadline) = try await snapshotBetweenAttempts()
    let attempts = Shared<[Int]>([])
    let clock = TestClock(wallClockStart: deadline.advanced(by: .seconds(1)))
    let handle = try uploading(attempts).start(resuming: snapshot, chart: "upload", clock: clock)
    try await clock.waitForSleepers(1)
    // Attempt 2 ran at once, with no wait; its failure's backoff is the one asleep.
    #expect(attempts.value == [2])
    #expect(clock.now.offset == .zero)
    clock.advance(by: backoff)
    #expect(try await handle.result.pathNames == ["Prepare", "Upload", "Done"])
    #expect(attempts.value == [2, 3])
  }

  @Test func aRunPausedBetweenTwoAttemptsIsCapturedPaused() async throws {
    let (snapshot, deadline) = try await snapshotBetweenAttempts(pausing: true)
    #expect(snapshot.status == .paused)
    #expect(snapshot.flows[0].attempt == 2)
    #expect(snapshot.flows[0].deadline == deadline)
    let attempts = Shared<[Int]>([])
    let clock = TestClock(wallClockStart: deadline.advanced(by: backoff))
    let handle = try uploading(attempts).start(
      resuming: snapshot, chart: "upload", clock: clock, isPaused: true)
    // Held at its start, it is captured at the same point.
    let held = try roundTrip(try await handle.snapshot())
    #expect(held.status == .paused)
    #expect(held.flows[0].attempt == 2)
    #expect(held.flows[0].deadline == deadline)
    #expect(held.pathKeys == ["Prepare", "Upload"])
    handle.resume()
    try await clock.waitForSleepers(1)
    #expect(attempts.value == [2])
    clock.advance(by: backoff)
    #expect(try await handle.result.context.notes == ["uploaded at attempt 3", "done"])
  }

  @Test func aStateThatNoLongerRetriesIsAMisfit() async throws {
    let (snapshot, _) = try await snapshotBetweenAttempts()
    let changed = try Flowchart<Ledger> {
      Action("Prepare") { $0.total += 1 }
      Action("Upload") { _ in }
      Action("Done", isFinal: true) { $0.notes.append("done") }
    }
    #expect {
      _ = try changed.start(resuming: snapshot, chart: "upload", clock: TestClock())
    } throws: { error in
      guard let error = error as? ResumeError else { return false }
      return error.misfits.map(\.position) == ["Upload"]
    }
  }

  @Test func anAttemptTheStateNeverReachesIsAMisfit() async throws {
    let (snapshot, _) = try await snapshotBetweenAttempts()
    for attempt in [5, Int.max] {
      let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        .replacingOccurrences(of: #""attempt":2"#, with: "\"attempt\":\(attempt)")
      let damaged = try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: Data(json.utf8))
      #expect(damaged.flows[0].attempt == attempt)
      #expect {
        _ = try uploading(Shared([])).start(
          resuming: damaged, chart: "upload", clock: TestClock())
      } throws: { error in
        guard let error = error as? ResumeError else { return false }
        return error.misfits.map(\.reason) == [
          "'Upload' retries 3 times, so it has no attempt \(attempt): the snapshot is damaged, or the state's retry was lowered; map the position with `migrating:`."
        ]
      }
    }
  }

  @Test func aSnapshotBetweenAttemptsWithoutADeadlineIsRefused() async throws {
    let (snapshot, _) = try await snapshotBetweenAttempts()
    let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
      .replacingOccurrences(of: #","deadline":"2026-01-01T00:10:00Z""#, with: "")
      .replacingOccurrences(of: #""deadline":"2026-01-01T00:10:00Z","#, with: "")
    #expect(!json.contains("deadline"))
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: Data(json.utf8))
    }
  }
}
