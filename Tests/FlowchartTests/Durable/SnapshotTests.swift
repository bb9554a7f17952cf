import Foundation
import Testing

@testable import Flowchart

/// The context of the snapshot tests: Codable, so that snapshots encode.
struct Ledger: Codable, Sendable, Equatable {
  var total = 0
  var notes: [String] = []
}

/// A value of a type that is not Codable, for a waiting state whose value cannot be saved.
struct Opaque: Sendable {
  var number: Int
}

/// A value the tests set and states read.
final class Shared<Value: Sendable>: Sendable {
  private let stored: Lock<Value>
  init(_ value: Value) { stored = Lock(value) }
  var value: Value { stored.withLock { $0 } }
  func set(_ value: Value) { stored.withLock { $0 = value } }
  /// Changes the value in one lock section, so that concurrent changes are never lost (a
  /// read of `value` then a `set` would lose one of two branches' changes).
  func update(_ change: (inout Value) -> Void) { stored.withLock { change(&$0) } }
}

/// What a failing state throws.
struct Declined: Error {}

/// A snapshot through JSON and back, as a store would keep it.
func roundTrip(_ snapshot: RunSnapshot<Ledger>) throws -> RunSnapshot<Ledger> {
  let data = try JSONEncoder().encode(snapshot)
  return try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: data)
}

/// The events' lines of a run until it waits for input; then sends `value` when `send`.
func waitForInput(_ handle: RunHandle<Ledger>, events: inout RunEventStream.Iterator) async {
  while let event = await events.next() {
    if case .waitingForInput = event.kind { return }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct SnapshotTests {
  static func chart() throws -> Flowchart<Ledger> {
    try Flowchart<Ledger> {
      Action("Prepare") { $0.notes.append("prepared") }
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

  @Test func aParkedRunIsCapturedWaitingAndResumedElsewhereTakesTheValue() async throws {
    let chart = try Self.chart()
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    await waitForInput(handle, events: &events)
    let snapshot = try await handle.snapshot()
    #expect(snapshot.status == .waitingForInput(state: "Answer"))
    #expect(snapshot.position == "Answer")
    #expect(snapshot.pathKeys == ["Prepare", "Answer"])
    #expect(snapshot.context == Ledger(total: 0, notes: ["prepared"]))
    #expect(snapshot.id == handle.runID)
    handle.cancel()

    let decoded = try roundTrip(snapshot)
    let resumed = try chart.start(resuming: decoded, isPaused: true)
    #expect(resumed.runID == snapshot.id)
    var resumedEvents = resumed.events().makeAsyncIterator()
    resumed.resume()
    await waitForInput(resumed, events: &resumedEvents)
    try resumed.send(5, to: "Answer")
    let result = try await resumed.result
    #expect(result.pathNames == ["Prepare", "Answer", "Big?", "Celebrate"])
    #expect(result.stepCount == 4)
    #expect(result.context == Ledger(total: 5, notes: ["prepared", "big"]))
  }

  @Test func aRunHeldAtItsStartIsCapturedBeforeItsFirstState() async throws {
    let chart = try Self.chart()
    let handle = chart.start(with: Ledger(total: 2), isPaused: true)
    let snapshot = try await handle.snapshot()
    #expect(snapshot.status == .paused)
    #expect(snapshot.position == "Prepare")
    #expect(snapshot.stepCount == 0)
    #expect(snapshot.context.total == 2)
    handle.cancel()
  }

  @Test func aValueSentAheadIsKeptAndTakenByTheResumedRun() async throws {
    let chart = try Self.chart()
    let handle = chart.start(with: Ledger(), isPaused: true)
    try handle.send(1, to: "Answer")
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.pendingInputs == ["Answer"])
    let result = try await chart.resume(from: snapshot)
    #expect(result.pathNames == ["Prepare", "Answer", "Big?", "Shrug"])
    #expect(result.context == Ledger(total: 1, notes: ["prepared", "small"]))
  }

  @Test func aValueOfATypeThatIsNotCodableMakesEncodingThrowNamingTheState() async throws {
    let chart = try Flowchart<Ledger> {
      Wait("Token", for: Opaque.self, isFinal: true) { $0.total = $1.number }
    }
    let handle = chart.start(with: Ledger(), isPaused: true)
    try handle.send(Opaque(number: 3), to: "Token")
    let snapshot = try await handle.snapshot()
    handle.cancel()
    let error = #expect(throws: EncodingError.self) { try JSONEncoder().encode(snapshot) }
    guard case .invalidValue(_, let context) = error else {
      Issue.record("expected an invalid value, got \(String(describing: error))")
      return
    }
    #expect(
      context.debugDescription
        == "The value waiting for waiting state 'Token' is an Opaque, which is not Encodable: make the type the state waits for Codable, or snapshot the run once the state has taken the value."
    )
  }

  @Test func aPausedRunIsCapturedAtTheBoundaryItWaitsAt() async throws {
    let box = Shared<RunHandle<Ledger>?>(nil)
    let chart = try Flowchart<Ledger> {
      Action("One") { $0.total += 1 }
      Action("Two") {
        $0.total += 10
        box.value?.pause()
      }
      Action("Three", isFinal: true) { $0.total += 100 }
    }
    let handle = chart.start(with: Ledger(), isPaused: true)
    box.set(handle)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    while let event = await events.next() {
      if case .paused = event.kind { break }
    }
    let snapshot = try await handle.snapshot()
    #expect(snapshot.status == .paused)
    #expect(snapshot.position == "Three")
    #expect(snapshot.context.total == 11)
    #expect(snapshot.pathKeys == ["One", "Two"])
    handle.resume()
    let original = try await handle.result
    let resumed = try await chart.resume(from: try roundTrip(snapshot))
    #expect(resumed.pathNames == original.pathNames)
    #expect(resumed.stepCount == original.stepCount)
    #expect(resumed.context == original.context)
  }

  @Test func aRunningRunIsHeldAtItsNextBoundaryAndGoesOn() async throws {
    let started = Gate()
    let release = Gate()
    let chart = try Flowchart<Ledger> {
      Action("Work") { (ledger: inout Ledger) async in
        started.open()
        await release.wait()
        ledger.total += 1
      }
      Action("More") { $0.total += 10 }
      Action("Done", isFinal: true) { $0.total += 100 }
    }
    let handle = chart.start(with: Ledger())
    await started.wait()
    async let taken = handle.snapshot()
    // The request is in before the state returns: the flow is held at the next boundary.
    while handle.run.state.withLock({ $0.snapshots.waiters.isEmpty }) { await Task.yield() }
    #expect(!handle.isPaused)
    release.open()
    let snapshot = try await taken
    let original = try await handle.result
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "More")
    #expect(snapshot.context.total == 1)
    #expect(original.context.total == 111)
    let resumed = try await chart.resume(from: try roundTrip(snapshot))
    #expect(resumed.pathNames == original.pathNames)
    #expect(resumed.context == original.context)
  }

  @Test func aFailedRunIsCapturedWhereARetryStartsAndResumesThere() async throws {
    let fails = Shared(true)
    let chart = try Flowchart<Ledger> {
      Action("Charge") { ledger in
        ledger.total += 1
        if fails.value { throw Declined() }
      }
      Action("Ship", isFinal: true) { $0.notes.append("shipped") }
    }
    let handle = chart.start(with: Ledger())
    await #expect(throws: RunError.self) { try await handle.result }
    let snapshot = try roundTrip(try await handle.snapshot())
    guard case .failed(let state, _) = snapshot.status else {
      Issue.record("expected a failed status, got \(snapshot.status)")
      return
    }
    #expect(state == "Charge")
    #expect(snapshot.position == "Charge")
    #expect(snapshot.context.total == 0)
    fails.set(false)
    let result = try await chart.resume(from: snapshot)
    #expect(result.pathNames == ["Charge", "Charge", "Ship"])
    #expect(result.context == Ledger(total: 1, notes: ["shipped"]))
  }

  @Test func aFinishedRunResumesToItsResult() async throws {
    let chart = try Self.chart()
    let handle = chart.start(with: Ledger())
    try handle.send(9, to: "Answer")
    let original = try await handle.result
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.status == .finished)
    let resumed = try await chart.resume(from: snapshot)
    #expect(resumed.pathNames == original.pathNames)
    #expect(resumed.decision == original.decision)
    #expect(resumed.context == original.context)
    #expect(resumed.stepCount == original.stepCount)
  }

  @Test func theSummaryNamesTheRunAndItsChart() async throws {
    let chart = try Self.chart()
    let id = RunID("order-42")!
    let handle = chart.start(with: Ledger(), id: id, chart: "orders", isPaused: true)
    let snapshot = try await handle.snapshot()
    handle.cancel()
    let stored = try snapshot.storedRun { Array(try JSONEncoder().encode($0)) }
    #expect(stored.summary.id == id)
    #expect(stored.summary.chart == "orders")
    #expect(stored.summary.fingerprint == chart.structuralFingerprint)
    #expect(stored.summary.status == .paused)
    #expect(
      try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: Data(stored.snapshot)).id == id)
  }

  @Test func aRunInsideADispatchIsCapturedWithEveryBranchAtItsNextBoundary() async throws {
    let started = Gate()
    let release = Gate()
    let chart = try Flowchart<Int> {
      Dispatch("Split") { total, branch in
        total += branch
      } branches: {
        for index in 0..<2 {
          Branch {
            Action("Load \(index)") { (total: inout Int) async in
              if index == 0 {
                started.open()
                await release.wait()
              }
              total += 1
            }
            Action("Store \(index)", isFinal: true) { $0 += 10 }
          }
        }
      }
      Action("End", isFinal: true) { $0 += 100 }
    }
    let handle = chart.start(with: 0)
    await started.wait()
    async let taken = handle.snapshot()
    while handle.run.state.withLock({ $0.snapshots.waiters.isEmpty }) { await Task.yield() }
    release.open()
    let snapshot = try await taken
    // The branch whose state's code ran finished the state first: it stands before its
    // next state. The dispatching flow keeps the context from before the dispatch.
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.position == "Split")
    #expect(snapshot.context == 0)
    #expect(snapshot.branchPositions.first == "Split/Store 0")
    let original = try await handle.result
    #expect(original.context == 122)
    let data = try JSONEncoder().encode(snapshot)
    let resumed = try await chart.resume(
      from: try JSONDecoder().decode(RunSnapshot<Int>.self, from: data))
    #expect(resumed.context == original.context)
    #expect(resumed.pathNames == original.pathNames)
    #expect(resumed.stepCount == original.stepCount)
  }
}
