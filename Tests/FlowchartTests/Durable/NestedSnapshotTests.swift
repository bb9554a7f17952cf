import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots of a run standing inside a subflow: the inner run is held at its next boundary
// (or captured at a delay in its task, with its deadline, or inside a subflow of its own)
// and resumed there; the outer flow then takes the subflow's exit as it would have. No test
// sleeps: runs pause from a state's code, wait on `TestClock`s, and the tests wait for the
// runs' events.

/// The outer context: a ledger the subflows run on, and notes of its own.
struct Shop: Codable, Sendable, Equatable {
  var ledger = Ledger()
  var notes: [String] = []
}

/// An inner context that is not Codable: a snapshot cannot hold its subflow's inner run.
struct Till: Sendable, Equatable {
  var total = 0
}

/// The run a state's code pauses, once the test sets it, at the state the test names.
private final class Pauser: Sendable {
  private let state = Lock<(handle: RunHandle<Shop>?, at: String?)>((nil, nil))

  func arm(_ handle: RunHandle<Shop>, at name: String?) {
    state.withLock { $0 = (handle, name) }
  }

  /// Pauses the run when `name` is the state it was armed at (once).
  func reached(_ name: String) {
    let handle = state.withLock { locked -> RunHandle<Shop>? in
      guard locked.at == name else { return nil }
      locked.at = nil
      return locked.handle
    }
    handle?.pause()
  }
}

private func roundTrip(_ snapshot: RunSnapshot<Shop>) throws -> RunSnapshot<Shop> {
  try JSONDecoder().decode(RunSnapshot<Shop>.self, from: JSONEncoder().encode(snapshot))
}

/// Waits for the run's next `paused` event.
private func waitForPause(_ events: inout RunEventStream.Iterator) async {
  while let event = await events.next() {
    if case .paused = event.kind { return }
  }
}

/// A subflow's chart of asynchronous actions that pause the run when armed.
private func steps(_ pauser: Pauser) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Step 1") { (ledger: inout Ledger) async in
      ledger.total += 1
      pauser.reached("Step 1")
    }
    Action("Step 2") { (ledger: inout Ledger) async in
      ledger.total += 10
      pauser.reached("Step 2")
    }
    Action("Step 3", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("stepped")
    }
  }
}

private let day = Duration.seconds(86_400)

/// A subflow's chart that waits a day.
private func waitsADay(named name: String = "Wait a day") throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { (ledger: inout Ledger) async in ledger.total += 5 }
    Delay(name, for: day)
    Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("settled")
    }
  }
}

/// A shop whose "Pay" subflow runs `inner`.
private func shop(running inner: Flowchart<Ledger>) throws -> Flowchart<Shop> {
  try Flowchart<Shop> {
    Action("Open") { $0.notes.append("open") }
    Subflow("Pay", running: inner, context: .keyPath(\.ledger))
    Action("Close", isFinal: true) { $0.notes.append("closed") }
  }
}

/// Starts `chart` on `clock` and returns its handle once `pauser` (armed at `state`)
/// paused it, with the events that follow.
private func startUntilPaused(
  _ chart: Flowchart<Shop>, pauser: Pauser, at state: String, clock: TestClock = TestClock()
) async throws -> RunHandle<Shop> {
  let handle = chart.start(
    with: Shop(), id: RunID("shop-1")!, chart: "shop", clock: clock, isPaused: true)
  var events = handle.events().makeAsyncIterator()
  pauser.arm(handle, at: state)
  handle.resume()
  await waitForPause(&events)
  return handle
}

/// Starts `chart` on `clock` and returns its handle once a delay sleeps on the clock.
private func startUntilSleeping(_ chart: Flowchart<Shop>, clock: TestClock) async throws
  -> RunHandle<Shop>
{
  let handle = chart.start(with: Shop(), id: RunID("shop-1")!, chart: "shop", clock: clock)
  try await clock.waitForSleepers(1)
  return handle
}

@Suite(.timeLimit(.minutes(5)))
struct NestedSnapshotTests {
  @Test func aRunPausedInsideASubflowIsCapturedThereAndResumesToTheSameResult() async throws {
    let pauser = Pauser()
    let chart = try shop(running: steps(pauser))
    let expected = try await chart.run(with: Shop())
    let handle = try await startUntilPaused(chart, pauser: pauser, at: "Step 1")
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.status == .paused)
    #expect(snapshot.position == "Pay")
    #expect(snapshot.pathKeys == ["Open", "Pay"])
    #expect(snapshot.context == Shop(notes: ["open"]))
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .entering("Step 2"))
    #expect(nested.path == ["Step 1"])
    #expect(nested.stepCount == 1)
    let resumed = try chart.start(resuming: snapshot, chart: "shop")
    let result = try await resumed.result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
    #expect(result.stepCount == expected.stepCount)
  }

  @Test func aRunAtADelayInsideASubflowKeepsItsDeadline() async throws {
    let chart = try shop(running: waitsADay())
    let clock = TestClock()
    let handle = try await startUntilSleeping(chart, clock: clock)
    clock.advance(by: .seconds(3_600))
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let deadline = clock.wallClockStart.advanced(by: day)
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Pay")
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .waitingUntil("Wait a day"))
    #expect(nested.deadline == deadline)
    #expect(nested.path == ["Charge", "Wait a day"])

    // Resumed an hour later: it waits only the rest of the day.
    let later = TestClock(wallClockStart: clock.wallClockNow.advanced(by: .seconds(3_600)))
    let resumed = try chart.start(resuming: snapshot, chart: "shop", clock: later)
    try await later.waitForSleepers(1)
    later.advance(by: day - .seconds(7_200))
    let result = try await resumed.result
    #expect(
      result.context
        == Shop(ledger: Ledger(total: 5, notes: ["settled"]), notes: ["open", "closed"]))
    #expect(result.pathNames == ["Open", "Pay", "Close"])

    // Resumed after the deadline: it goes on at once.
    let afterwards = TestClock(wallClockStart: deadline.advanced(by: .seconds(1)))
    let late = try await chart.start(resuming: snapshot, clock: afterwards).result
    #expect(late.context == result.context)
  }

  @Test func aRunInsideANestedSubflowIsCapturedAtEveryLevel() async throws {
    let settling = try waitsADay()
    let inner = try Flowchart<Shop> {
      Action("Enter") { (shop: inout Shop) async in shop.notes.append("entered") }
      Subflow("Settle up", running: settling, context: .keyPath(\.ledger))
      Action("Leave", isFinal: true) { (shop: inout Shop) async in shop.notes.append("left") }
    }
    let chart = try Flowchart<Shop> {
      Action("Open") { $0.notes.append("open") }
      Subflow("Visit", running: inner, context: .whole)
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let plainClock = TestClock()
    async let plain = chart.run(with: Shop(), clock: plainClock)
    try await plainClock.waitForSleepers(1)
    plainClock.advance(by: day)
    let expected = try await plain
    let clock = TestClock()
    let handle = try await startUntilSleeping(chart, clock: clock)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.position == "Visit")
    let visit = try #require(snapshot.flows[0].nested)
    #expect(visit.position == .entering("Settle up"))
    #expect(visit.path == ["Enter", "Settle up"])
    let settle = try #require(visit.inner)
    #expect(settle.position == .waitingUntil("Wait a day"))
    #expect(settle.deadline == clock.wallClockStart.advanced(by: day))

    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: day))
    let result = try await chart.start(resuming: snapshot, clock: later).result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
  }

  @Test func aSubflowOnAContextThatIsNotCodableIsWaitedFor() async throws {
    let till = try Flowchart<Till> {
      Action("Ring up") { (till: inout Till) async in till.total += 3 }
      Delay("Count", for: day)
      Action("Done", isFinal: true)
    }
    let chart = try Flowchart<Shop> {
      Action("Open") { $0.notes.append("open") }
      Subflow(
        "Pay", running: till,
        context: ContextMapping(
          enter: { _ in Till() }, leave: { $0.ledger.total = $1.total }))
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let clock = TestClock()
    let handle = try await startUntilSleeping(chart, clock: clock)
    async let taken = handle.snapshot()
    // The request waits for the subflow to end: then the clock lets the delay go.
    while handle.run.state.withLock({ $0.snapshots.waiters.isEmpty }) { await Task.yield() }
    clock.advance(by: day)
    let snapshot = try roundTrip(try await taken)
    handle.cancel()
    #expect(snapshot.position == "Close")
    #expect(snapshot.flows[0].nested == nil)
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.context.ledger.total == 3)
  }

  @Test func aChangedSubflowChartWithoutTheInnerPositionIsRefusedNamingBoth() async throws {
    let chart = try shop(running: waitsADay())
    let clock = TestClock()
    let handle = try await startUntilSleeping(chart, clock: clock)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let changed = try shop(running: waitsADay(named: "Wait a week"))
    let error = try #require(throws: ResumeError.self) {
      _ = try changed.start(resuming: snapshot, chart: "shop", clock: TestClock())
    }
    #expect(error.misfits.map(\.position) == ["Pay > Wait a day"])
    #expect(
      error.description == """
        The snapshot of run shop-1 does not fit the chart 'shop': a position no longer fits.
        - 'Wait a day', where the run waits for a time inside subflow 'Pay', no longer exists in the subflow's chart: restore it, or resume on a chart whose subflow has it.
        """)
  }

  /// Random charts whose subflows run random asynchronous steps (some in a subflow of their
  /// own, some deciding by a condition): for each boundary inside the subflows, the run
  /// paused there, snapshotted, and resumed (through JSON) ends as the uninterrupted run,
  /// and the resumed run's events are the uninterrupted run's from the subflow on.
  @Test(arguments: 0..<24)
  func resumingAtEveryBoundaryInsideSubflowsEndsAsTheUninterruptedRun(_ seed: UInt64) async throws {
    var generator = SeededGenerator(seed: 7_000 + seed)
    let pauser = Pauser()
    var names: [String] = []
    // The last states of the subflow's chart: a pause there stops the run after the subflow.
    var lasts: Set<String> = []
    func randomChart(_ prefix: String, depth: Int) throws -> Flowchart<Ledger> {
      let count = Int.random(in: 2...4, using: &generator)
      var declarations: [Declaration<Ledger>] = []
      for index in 1...count {
        let name = "\(prefix)\(index)"
        let amount = Int.random(in: 1...9, using: &generator)
        let isLast = index == count
        if isLast, depth == 0 { lasts.insert(name) }
        if depth == 0, !isLast, Int.random(in: 0..<3, using: &generator) == 0 {
          let deeper = try randomChart("\(name).", depth: depth + 1)
          declarations.append(Subflow(name, running: deeper, context: .whole).declaration)
        } else if isLast, Bool.random(using: &generator) {
          names.append(name)
          declarations.append(
            Condition(name, isFinal: true) { (ledger: inout Ledger) async in
              pauser.reached(name)
              return ledger.total % 2 == 0
            }.declaration)
        } else {
          names.append(name)
          declarations.append(
            Action(name, isFinal: isLast) { (ledger: inout Ledger) async in
              ledger.total += amount
              ledger.notes.append(name)
              pauser.reached(name)
            }.declaration)
        }
      }
      return try Flowchart<Ledger> { declarations }
    }
    let inner = try randomChart("S", depth: 0)
    let chart = try Flowchart<Shop> {
      Action("Open") { $0.notes.append("open") }
      Subflow("Pay", running: inner, context: .keyPath(\.ledger)) {
        Action("Paid", isFinal: true) { $0.notes.append("even") }
      } no: {
        Action("Unpaid", isFinal: true) { $0.notes.append("odd") }
      }
    }
    // A chart whose last state is an action ends deciding done, where "Pay" needs yes or no:
    // that run fails, and so must every resumed one.
    let expected = await outcome(of: chart.start(with: Shop()))
    let expectedEvents = await events(of: chart)
    for name in names {
      let handle = try await startUntilPaused(chart, pauser: pauser, at: name)
      let snapshot = try roundTrip(try await handle.snapshot())
      handle.cancel()
      if !lasts.contains(name) {
        #expect(snapshot.flows[0].nested != nil, "paused after \(name)")
      }
      let resumed = try chart.start(resuming: snapshot, chart: "shop", isPaused: true)
      var iterator = resumed.events().makeAsyncIterator()
      resumed.resume()
      var seen: [String] = []
      while let event = await iterator.next() {
        if let line = line(of: event) { seen.append(line) }
        if event.endsRun { break }
      }
      let result = await outcome(of: resumed)
      switch (result, expected) {
      case (.success(let got), .success(let want)):
        #expect(got.context == want.context, "paused after \(name)")
        #expect(got.pathNames == want.pathNames, "paused after \(name)")
      case (.failure(let got), .failure(let want)):
        #expect(got.reason == want.reason, "paused after \(name)")
      default:
        Issue.record(
          "paused after \(name): \(result) where the uninterrupted run ended \(expected)")
      }
      // The resumed run's events are the uninterrupted run's last ones: from the subflow on
      // when it stood inside it.
      #expect(seen == Array(expectedEvents.suffix(seen.count)), "paused after \(name)")
      if !lasts.contains(name) { #expect(seen.first == "entered Pay", "paused after \(name)") }
    }
  }
}

/// A line for each state's entry and decision of flow 0.
private func line(of event: RunEvent) -> String? {
  guard event.flow == 0 else { return nil }
  switch event.kind {
  case .stateEntered: return "entered \(event.stateName)"
  case .stateDecided(let decision): return "decided \(event.stateName) \(decision)"
  case .stateFailed: return "failed \(event.stateName)"
  default: return nil
  }
}

extension RunEvent {
  /// Whether the event is the run's last.
  fileprivate var endsRun: Bool {
    switch kind {
    case .runFinished, .runFailed: true
    default: false
    }
  }
}

/// How the run ended.
private func outcome(of handle: RunHandle<Shop>) async -> Result<RunResult<Shop>, RunError> {
  do {
    return .success(try await handle.result)
  } catch {
    return .failure(error)
  }
}

/// The lines of an uninterrupted run of `chart`.
private func events(of chart: Flowchart<Shop>) async -> [String] {
  let handle = chart.start(with: Shop(), isPaused: true)
  var iterator = handle.events().makeAsyncIterator()
  handle.resume()
  var lines: [String] = []
  while let event = await iterator.next() {
    if let line = line(of: event) { lines.append(line) }
    if event.endsRun { break }
  }
  return lines
}

/// The chart of the stored run inside a subflow at a delay (wrapping arithmetic: the
/// hostile snapshot tests resume mutated copies of it).
func storedSubflowChart() throws -> Flowchart<Ledger> {
  let inner = try Flowchart<Ledger> {
    Action("Charge") { (ledger: inout Ledger) async in ledger.total &+= 1 }
    Delay("Cool off", for: .seconds(3_600))
    Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("settled")
    }
  }
  return try Flowchart<Ledger> {
    Action("Open") { $0.notes.append("open") }
    Subflow("Pay", running: inner, context: .whole)
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct StoredNestedSnapshotTests {
  /// `inside-subflow-at-delay.json`, written by this version (format 2): a run standing in
  /// subflow "Pay", whose inner run waits at its delay, 20 minutes into its hour. To write it
  /// again: `FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1 swift test --filter StoredNestedSnapshotTests`.
  @Test func aStoredSnapshotInsideASubflowResumesWaitingOnlyTheRest() async throws {
    let snapshot = try await storedSnapshot("inside-subflow-at-delay", of: Ledger.self) {
      let clock = TestClock()
      let run = try storedSubflowChart().start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-4")!, chart: "stored",
        clock: clock)
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1_200))
      defer { run.cancel() }
      return try await run.snapshot()
    }
    let deadline = TestClock().wallClockStart.advanced(by: .seconds(3_600))
    #expect(snapshot.formatVersion == 2)
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Pay")
    #expect(snapshot.pathKeys == ["Open", "Pay"])
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .waitingUntil("Cool off"))
    #expect(nested.deadline == deadline)
    // Resumed 50 minutes after the run started: 10 minutes are left.
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(600)))
    let run = try storedSubflowChart().start(resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(clock.advance(by: .seconds(599)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    let result = try await run.result
    let expected = Ledger(total: 1, notes: ["kept", "open", "settled", "shipped"])
    #expect(result.pathNames == ["Open", "Pay", "Ship"])
    #expect(result.context == expected)
    // Resumed after the deadline: it goes on at once.
    let late = TestClock(wallClockStart: deadline)
    let ended = try await storedSubflowChart().resume(from: snapshot, chart: "stored", clock: late)
    #expect(ended.context == expected)
  }
}
