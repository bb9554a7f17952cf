import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots of a run parked at a delay: the snapshot keeps the delay's absolute deadline, and
// a resumed run waits only for the rest of it (by its own clock's wall-clock time), or goes on
// at once when it has passed. Every test runs on `TestClock`s: no test sleeps.

private let hour = Duration.seconds(3_600)

// swift-format-ignore
private func coolingOff() throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { $0.total += 1 }
    Delay("Cool off", for: hour)
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

/// Starts the chart on `clock` and returns its handle once it reported waiting at the delay.
private func startUntilDelay(on clock: TestClock) async throws -> RunHandle<Ledger> {
  let handle = try coolingOff().start(
    with: Ledger(), id: RunID("cooling-1")!, chart: "cooling", clock: clock, isPaused: true)
  var events = handle.events().makeAsyncIterator()
  handle.resume()
  while let event = await events.next() {
    if case .waitingUntil = event.kind { break }
  }
  return handle
}

private func hasEnded(_ handle: RunHandle<Ledger>) -> Bool {
  handle.run.state.withLock { $0.machine.hasEnded }
}

@Suite(.timeLimit(.minutes(5)))
struct DelaySnapshotTests {
  /// A snapshot of the run parked at the delay, 20 minutes into its hour, through JSON.
  private func snapshotAtDelay() async throws -> (RunSnapshot<Ledger>, deadline: WallClockTime) {
    let clock = TestClock()
    let handle = try await startUntilDelay(on: clock)
    let deadline = clock.wallClockStart.advanced(by: hour)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(1_200))
    let snapshot = try await handle.snapshot()
    handle.cancel()
    return (try roundTrip(snapshot), deadline)
  }

  @Test func aRunParkedAtADelayIsCapturedWithItsDeadline() async throws {
    let (snapshot, deadline) = try await snapshotAtDelay()
    #expect(snapshot.status == .waitingUntil(deadline, state: "Cool off"))
    #expect(snapshot.position == "Cool off")
    #expect(snapshot.pathKeys == ["Charge", "Cool off"])
    #expect(snapshot.stepCount == 2)
    #expect(snapshot.context == Ledger(total: 1))
    #expect(snapshot.flows[0].deadline == deadline)
    #expect(snapshot.updated == TestClock().wallClockStart.advanced(by: .seconds(1_200)))
    let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
    #expect(json.contains(#""position":["waitingUntil","Cool off"]"#))
    #expect(json.contains(#""deadline":"2026-01-01T01:00:00Z""#))
  }

  @Test func aResumedRunWhoseDeadlineHasNotPassedWaitsOnlyTheRest() async throws {
    let (snapshot, deadline) = try await snapshotAtDelay()
    // Resumed half an hour after the run started: half an hour is left.
    let clock = TestClock(wallClockStart: TestClock().wallClockStart.advanced(by: .seconds(1_800)))
    let handle = try coolingOff().start(resuming: snapshot, chart: "cooling", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(handle.delays.map(\.until) == [deadline])
    #expect(handle.delays.map(\.stateName) == ["Cool off"])
    // Parked again, with the same deadline: a snapshot of the resumed run keeps it.
    let again = try await handle.snapshot()
    #expect(again.status == .waitingUntil(deadline, state: "Cool off"))
    #expect(again.pathKeys == ["Charge", "Cool off"])
    #expect(clock.advance(by: .seconds(1_799)) == 0)
    #expect(!hasEnded(handle))
    #expect(clock.advance(by: .seconds(1)) == 1)
    let result = try await handle.result
    #expect(result.pathNames == ["Charge", "Cool off", "Ship"])
    #expect(result.stepCount == 3)
    #expect(result.context == Ledger(total: 1, notes: ["shipped"]))
    #expect(clock.now.offset == .seconds(1_800))
  }

  @Test func aResumedRunWhoseDeadlineHasPassedGoesOnAtOnce() async throws {
    let (snapshot, deadline) = try await snapshotAtDelay()
    let clock = TestClock(wallClockStart: deadline.advanced(by: .seconds(1)))
    let handle = try coolingOff().start(resuming: snapshot, chart: "cooling", clock: clock)
    let result = try await handle.result
    #expect(result.pathNames == ["Charge", "Cool off", "Ship"])
    #expect(result.stepCount == 3)
    #expect(result.context == Ledger(total: 1, notes: ["shipped"]))
    #expect(clock.now.offset == .zero)
    #expect(clock.sleeperCount == 0)
    // The non-live form too.
    let clock2 = TestClock(wallClockStart: deadline)
    let ended = try await coolingOff().resume(from: snapshot, chart: "cooling", clock: clock2)
    #expect(ended.pathNames == ["Charge", "Cool off", "Ship"])
  }

  @Test func aRunResumedPausedAtADelayIsCapturedPausedThereWithItsDeadline() async throws {
    let (snapshot, deadline) = try await snapshotAtDelay()
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(60)))
    let handle = try coolingOff().start(
      resuming: snapshot, chart: "cooling", clock: clock, isPaused: true)
    let held = try roundTrip(try await handle.snapshot())
    #expect(held.status == .paused)
    #expect(held.position == "Cool off")
    #expect(held.flows[0].deadline == deadline)
    #expect(held.pathKeys == ["Charge", "Cool off"])
    handle.resume()
    try await clock.waitForSleepers(1)
    #expect(clock.advance(by: .seconds(60)) == 1)
    #expect(try await handle.result.pathNames == ["Charge", "Cool off", "Ship"])
  }

  @Test func aDelayDueWhileThePausedRunWaitedIsCapturedAndFiresAtOnceOnResume() async throws {
    let clock = TestClock()
    let handle = try await startUntilDelay(on: clock)
    try await clock.waitForSleepers(1)
    handle.pause()
    clock.advance(by: hour * 2)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let deadline = clock.wallClockStart.advanced(by: hour)
    #expect(snapshot.status == .waitingUntil(deadline, state: "Cool off"))
    let later = TestClock(wallClockStart: clock.wallClockNow)
    let result = try await coolingOff().resume(from: snapshot, chart: "cooling", clock: later)
    #expect(result.context.notes == ["shipped"])
    #expect(later.now.offset == .zero)
  }

  @Test func aSnapshotWaitingForATimeWithoutADeadlineIsRefused() async throws {
    let (snapshot, _) = try await snapshotAtDelay()
    let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
      .replacingOccurrences(of: #","deadline":"2026-01-01T01:00:00Z""#, with: "")
      .replacingOccurrences(of: #""deadline":"2026-01-01T01:00:00Z","#, with: "")
    #expect(!json.contains("deadline"))
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: Data(json.utf8))
    }
  }

  @Test func aDelayThatIsNoLongerADelayIsAMisfit() async throws {
    let (snapshot, _) = try await snapshotAtDelay()
    // swift-format-ignore
    let changed = try Flowchart<Ledger> {
      Action("Charge") { $0.total += 1 }
      Action("Cool off") { _ in }
      Action("Ship", isFinal: true) { $0.notes.append("shipped") }
    }
    #expect {
      _ = try changed.start(resuming: snapshot, chart: "cooling", clock: TestClock())
    } throws: { error in
      guard let error = error as? ResumeError else { return false }
      return error.misfits.map(\.position) == ["Cool off"]
    }
  }
}
