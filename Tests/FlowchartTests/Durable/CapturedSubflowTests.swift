import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots inside subflows and maps that a snapshot used to wait for: a subflow or a map
// with modifiers (its attempt and its timeout's absolute deadline are kept with the inner
// run), a final keyed subflow, and a map inside a subflow's or a map's inner run. Every
// test compares the resumed run with an uninterrupted one: its result (or its error's
// text), and its flow's events, which are the uninterrupted run's last ones. No test
// sleeps: runs wait on `TestClock`s, and the tests wait for the clocks' sleepers.

private let day = Duration.seconds(86_400)
private let hour = Duration.seconds(3_600)

private func roundTrip<Context: Codable & Sendable>(
  _ snapshot: RunSnapshot<Context>
) throws -> RunSnapshot<Context> {
  try JSONDecoder().decode(RunSnapshot<Context>.self, from: JSONEncoder().encode(snapshot))
}

/// A line for each event of flow 0 that a resumed run must repeat as the uninterrupted run
/// did: entries, decisions, failures, retries, catches, maps' ends, the run's end.
private func line(of event: RunEvent) -> String? {
  guard event.flow == 0 else { return nil }
  switch event.kind {
  case .stateEntered, .stateDecided, .stateFailed, .attemptFailed, .retrying, .caught,
    .mapEnded, .runFinished, .runFailed:
    return "\(event.stateName): \(event.kind)"
  default: return nil
  }
}

/// How a run ended, and its flow's lines.
private struct Ending<Context: Sendable & Equatable>: Equatable {
  var context: Context?
  var pathNames: [String]
  var decision: Decision?
  var error: String?
  var lines: [String]

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.context == rhs.context && lhs.pathNames == rhs.pathNames && lhs.decision == rhs.decision
      && lhs.error == rhs.error
  }
}

/// Runs `handle`, started paused, to its end while `drive` moves its clock: its result and
/// its flow's lines.
private func ending<Context: Sendable & Equatable>(
  _ handle: RunHandle<Context>, driving drive: () async throws -> Void = {}
) async throws -> Ending<Context> {
  let stream = handle.events()
  async let seen: [String] = {
    var lines: [String] = []
    for await event in stream {
      if let line = line(of: event) { lines.append(line) }
      switch event.kind {
      case .runFinished, .runFailed: return lines
      default: continue
      }
    }
    return lines
  }()
  handle.resume()
  try await drive()
  do {
    let result = try await handle.result
    return Ending(
      context: result.context, pathNames: result.pathNames, decision: result.decision,
      error: nil, lines: await seen)
  } catch {
    return Ending(
      context: nil, pathNames: [], decision: nil, error: error.reason, lines: await seen)
  }
}

/// Expects `resumed` to end as `expected`: its first line `first` (the resumed flow enters
/// the state it stood in again), its other lines the last of `expected`'s.
private func expectSame<Context: Sendable & Equatable>(
  _ resumed: Ending<Context>, as expected: Ending<Context>, first: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  #expect(resumed == expected, sourceLocation: sourceLocation)
  #expect(resumed.error == expected.error, sourceLocation: sourceLocation)
  #expect(
    Array(resumed.lines.dropFirst()) == Array(expected.lines.suffix(resumed.lines.count - 1)),
    sourceLocation: sourceLocation)
  #expect(expected.lines.contains(first), sourceLocation: sourceLocation)
  #expect(resumed.lines.first == first, sourceLocation: sourceLocation)
}

/// A subflow's chart that charges, waits a day, and settles; its settling fails while the
/// subflow state's attempt is below `succeedsAt`.
private func charging(succeedsAt: Int = 1) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { (ledger: inout Ledger) async in ledger.total += 5 }
    Delay("Wait a day", for: day)
    Action("Settle", isFinal: true) { (ledger: inout Ledger) async throws in
      if RunAttempt.current < succeedsAt { throw Declined() }
      ledger.notes.append("settled")
    }
  }
}

/// A shop whose subflow "Pay" runs `inner` with `modify`'s modifiers, then closes; a
/// caught failure goes to "Late".
private func shop(
  running inner: Flowchart<Ledger>, late: Bool = false,
  _ modify: (Subflow<Shop>) -> Declaration<Shop>
) throws -> Flowchart<Shop> {
  var declarations: [Declaration<Shop>] = [
    Action("Open") { $0.notes.append("open") }.declaration,
    modify(Subflow("Pay", running: inner, context: .keyPath(\.ledger))),
    Action("Close", isFinal: true) { $0.notes.append("closed") }.declaration,
  ]
  if late {
    declarations.append(Action("Late", isFinal: true) { $0.notes.append("late") }.declaration)
  }
  return try Flowchart<Shop> { declarations }
}

/// Starts `chart` paused on `clock`.
private func started<Context: Sendable>(
  _ chart: Flowchart<Context>, with context: Context, clock: TestClock
) -> RunHandle<Context> {
  chart.start(
    with: context, id: RunID("captured-1")!, chart: "captured", clock: clock, isPaused: true)
}

@Suite(.timeLimit(.minutes(5)))
struct CapturedSubflowTests {
  // MARK: - Timeouts

  @Test func aSubflowWithATimeoutIsCapturedAtItsDelayAndResumedWaitingOnlyTheRest()
    async throws
  {
    let chart = try shop(running: charging()) { $0.timeout(day * 2).declaration }
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Shop(), clock: plainClock)) {
      try await plainClock.waitForSleepers(2)
      plainClock.advance(by: day)
    }
    #expect(expected.pathNames == ["Open", "Pay", "Close"])

    let clock = TestClock()
    let handle = started(chart, with: Shop(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(2)
    clock.advance(by: hour)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.position == "Pay")
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .waitingUntil("Wait a day"))
    #expect(nested.deadline == clock.wallClockStart.advanced(by: day))
    #expect(
      nested.entered
        == SubflowAttempt(attempt: 1, timeout: clock.wallClockStart.advanced(by: day * 2)))

    // Resumed two hours after the start: the delay waits the rest of its day.
    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: hour * 2))
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) {
      try await later.waitForSleepers(2)
      #expect(later.advance(by: day - hour * 2 - .seconds(1)) == 0)
      #expect(later.advance(by: .seconds(1)) == 1)
    }
    expectSame(got, as: expected, first: "Pay: entered")
  }

  /// A timeout that falls during the inner run's delay: the resumed run waits only the
  /// rest of it and times out with the uninterrupted run's error; resumed after it, it times
  /// out at once; a catch route for it still applies.
  @Test(arguments: [false, true])
  func aSubflowsTimeoutOutlivesTheProcess(caught: Bool) async throws {
    let chart = try shop(running: charging(), late: caught) { subflow in
      let timed = subflow.timeout(hour * 2)
      return caught
        ? timed.catch(StateTimeoutError.self, goTo: "Late").declaration : timed.declaration
    }
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Shop(), clock: plainClock)) {
      try await plainClock.waitForSleepers(2)
      plainClock.advance(by: hour * 2)
    }
    #expect((expected.error != nil) != caught)

    let clock = TestClock()
    let handle = started(chart, with: Shop(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(2)
    clock.advance(by: hour)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let timeout = clock.wallClockStart.advanced(by: hour * 2)
    #expect(snapshot.flows[0].nested?.entered == SubflowAttempt(attempt: 1, timeout: timeout))

    // Resumed 90 minutes after the start: the timeout waits its last 30 minutes.
    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: hour + hour / 2))
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) {
      try await later.waitForSleepers(2)
      #expect(later.advance(by: hour / 2 - .seconds(1)) == 0)
      later.advance(by: .seconds(1))
    }
    expectSame(got, as: expected, first: "Pay: entered")

    // Resumed after the deadline: it times out at once, on no clock's move.
    let late = TestClock(wallClockStart: timeout.advanced(by: .seconds(1)))
    let lateRun = try chart.start(
      resuming: snapshot, chart: "captured", clock: late, isPaused: true)
    expectSame(try await ending(lateRun), as: expected, first: "Pay: entered")
  }

  // MARK: - Retries

  /// A subflow retried once after its inner run failed, captured in its first attempt's
  /// delay or its second's: the resumed run goes on with that attempt (the inner run where
  /// it stood); a later attempt enters the subflow afresh, with its `enter` mapping.
  @Test(arguments: [1, 2])
  func aRetriedSubflowIsCapturedWithItsAttempt(attempt: Int) async throws {
    let backoff = Duration.seconds(600)
    let chart = try shop(running: charging(succeedsAt: 2)) {
      $0.retry(2, backoff: .fixed(backoff)).declaration
    }
    /// Drives a run on `clock` to attempt `attempt`'s delay.
    func toAttempt(_ attempt: Int, on clock: TestClock) async throws {
      try await clock.waitForSleepers(1)
      for _ in 1..<attempt {
        clock.advance(by: day)
        try await clock.waitForSleepers(1)
        clock.advance(by: backoff)
        try await clock.waitForSleepers(1)
      }
    }
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Shop(), clock: plainClock)) {
      try await toAttempt(2, on: plainClock)
      plainClock.advance(by: day)
    }
    #expect(expected.context?.ledger == Ledger(total: 5, notes: ["settled"]))

    let clock = TestClock()
    let handle = started(chart, with: Shop(), clock: clock)
    handle.resume()
    try await toAttempt(attempt, on: clock)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.entered.attempt == attempt)
    #expect(nested.entered.timeout == nil)
    #expect(nested.position == .waitingUntil("Wait a day"))
    #expect(nested.path == ["Charge", "Wait a day"])

    let later = TestClock(wallClockStart: clock.wallClockNow)
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) {
      try await toAttempt(2 - attempt + 1, on: later)
      later.advance(by: day)
    }
    expectSame(got, as: expected, first: "Pay: entered")
    if attempt == 1 { #expect(got.lines.contains { $0.hasPrefix("Pay: attempt 2 after") }) }
  }

  @Test func anAttemptTheStateNoLongerHasIsRefusedNamingTheSubflow() async throws {
    let chart = try shop(running: charging(succeedsAt: 2)) {
      $0.retry(2, backoff: .fixed(.seconds(1))).declaration
    }
    let clock = TestClock()
    let handle = started(chart, with: Shop(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(1)
    clock.advance(by: day)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(1))
    try await clock.waitForSleepers(1)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.flows[0].nested?.entered.attempt == 2)
    let unretried = try shop(running: charging(succeedsAt: 2)) { $0.declaration }
    let error = try #require(throws: ResumeError.self) {
      _ = try unretried.start(resuming: snapshot, chart: "captured", clock: TestClock())
    }
    #expect(error.misfits.map(\.position) == ["Pay"])
    #expect(
      error.misfits.first?.reason
        == "'Pay', where the run stands in the subflow, is at its attempt 2, and no longer retries: give it its retry back, or map the position with `migrating:`."
    )
  }

  // MARK: - A final subflow

  /// A final subflow is captured inside too. (A final subflow with keyed exits cannot be
  /// declared: the compiler refuses it, so a final subflow is always used as an action.)
  @Test func aFinalSubflowIsCapturedInsideAndEndsAsTheUninterruptedRun() async throws {
    let inner = try Flowchart<Ledger> {
      Action("Charge") { (ledger: inout Ledger) async in ledger.total += 5 }
      Delay("Wait a day", for: day)
      Action("Paid", isFinal: true)
    }
    #expect(throws: DefinitionError.self) {
      _ = try Flowchart<Shop> {
        Subflow("Pay", isFinal: true, running: inner, context: .keyPath(\.ledger)) {}
      }
    }
    let chart = try Flowchart<Shop> {
      Action("Open") { $0.notes.append("open") }
      Subflow("Pay", isFinal: true, running: inner, context: .keyPath(\.ledger))
    }
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Shop(), clock: plainClock)) {
      try await plainClock.waitForSleepers(1)
      plainClock.advance(by: day)
    }
    #expect(expected.pathNames == ["Open", "Pay"])

    let clock = TestClock()
    let handle = started(chart, with: Shop(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(1)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.position == "Pay")
    #expect(snapshot.flows[0].nested?.position == .waitingUntil("Wait a day"))

    let later = TestClock()
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) {
      try await later.waitForSleepers(1)
      later.advance(by: day)
    }
    expectSame(got, as: expected, first: "Pay: entered")
  }

  // MARK: - Maps in inner runs, and maps with modifiers

  /// A chart over a basket whose map charges each item, waiting an hour each.
  private static func chargingEach(maxConcurrency: Int = 2) throws -> Flowchart<Basket> {
    let element = try Flowchart<Ledger> {
      Action("Charge") { (ledger: inout Ledger) async in ledger.total += 5 }
      Delay("Wait an hour", for: hour)
      Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
        ledger.notes.append("settled")
      }
    }
    return try Flowchart<Basket> {
      Action("Count") { (basket: inout Basket) async in basket.notes.append("counted") }
      Map("Charge each", over: { $0.items }, running: element, maxConcurrency: maxConcurrency) {
        basket, results in
        basket.totals = results.outputs.map(\.total)
      }
      Action("Pack", isFinal: true) { (basket: inout Basket) async in basket.notes.append("packed")
      }
    }
  }

  /// Moves `clock` an hour at a time until the run's three rounds of two elements waited.
  private static func driveMap(_ clock: TestClock, rounds: Int = 3) async throws {
    for _ in 0..<rounds {
      try await clock.waitForSleepers(2)
      clock.advance(by: hour)
    }
  }

  @Test func aMapInsideASubflowIsCapturedThereAndResumesToTheSameResult() async throws {
    let inner = try Self.chargingEach()
    let chart = try Flowchart<Basket> {
      Action("Open") { $0.notes.append("open") }
      Subflow("Shop", running: inner, context: .whole)
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    // Five elements, two at a time: three rounds, the last of one element.
    func drive(_ clock: TestClock, from round: Int = 0) async throws {
      for round in round..<3 {
        try await clock.waitForSleepers(round == 2 ? 1 : 2)
        clock.advance(by: hour)
      }
    }
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Basket(), clock: plainClock)) {
      try await drive(plainClock)
    }
    #expect(expected.context?.totals == [105, 205, 305, 405, 505])

    let clock = TestClock()
    let handle = started(chart, with: Basket(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(2)
    clock.advance(by: hour)
    try await clock.waitForSleepers(2)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.position == "Shop")
    let shop = try #require(snapshot.flows[0].nested)
    #expect(shop.position == .entering("Charge each"))
    let map = try #require(shop.map)
    #expect(map.done.map(\.index) == [0, 1])
    #expect(map.running.map(\.index) == [2, 3])

    let later = TestClock(wallClockStart: clock.wallClockNow)
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) { try await drive(later, from: 1) }
    expectSame(got, as: expected, first: "Shop: entered")
  }

  @Test func aMapInADispatchBranchOfASubflowIsCapturedThereAndResumesToTheSameResult()
    async throws
  {
    let element = try Flowchart<Ledger> {
      Action("Charge") { (ledger: inout Ledger) async in ledger.total += 5 }
      Delay("Wait an hour", for: hour)
      Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
        ledger.notes.append("settled")
      }
    }
    let inner = try Flowchart<Basket> {
      Dispatch(
        "Both",
        merge: { (basket: inout Basket, branch: Basket, original: Basket) in
          basket.totals += branch.totals
          basket.notes += branch.notes.dropFirst(original.notes.count)
        }
      ) {
        Branch {
          Map("Charge each", over: { $0.items }, running: element, maxConcurrency: 2) {
            basket, results in
            basket.totals = results.outputs.map(\.total)
          }
          Action("Charged", isFinal: true) { $0.notes.append("charged") }
        }
        Branch {
          Action("Note", isFinal: true) { $0.notes.append("noted") }
        }
      }
      Action("Pack", isFinal: true) { $0.notes.append("packed") }
    }
    let chart = try Flowchart<Basket> {
      Action("Open") { $0.notes.append("open") }
      Subflow("Shop", running: inner, context: .whole)
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    // Five elements, two at a time: three rounds, the last of one element.
    func drive(_ clock: TestClock, from round: Int = 0) async throws {
      for round in round..<3 {
        try await clock.waitForSleepers(round == 2 ? 1 : 2)
        clock.advance(by: hour)
      }
    }
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Basket(), clock: plainClock)) {
      try await drive(plainClock)
    }
    #expect(expected.context?.totals == [105, 205, 305, 405, 505])
    #expect(expected.context?.notes == ["open", "charged", "noted", "packed", "closed"])

    let clock = TestClock()
    let handle = started(chart, with: Basket(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(2)
    clock.advance(by: hour)
    try await clock.waitForSleepers(2)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.position == "Shop")
    let shop = try #require(snapshot.flows[0].nested)
    #expect(shop.position == .dispatching("Both"))
    #expect(shop.map == nil)
    let charging = try #require(shop.branches.first { $0.branch?.index == 0 })
    #expect(charging.position == .entering("Both/Charge each"))
    let map = try #require(charging.map)
    #expect(map.done.map(\.index) == [0, 1])
    #expect(map.running.map(\.index) == [2, 3])
    let noted = try #require(shop.branches.first { $0.branch?.index == 1 })
    #expect(noted.position == .finished("Both/Note", .done))
    #expect(noted.map == nil)

    let later = TestClock(wallClockStart: clock.wallClockNow)
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) { try await drive(later, from: 1) }
    expectSame(got, as: expected, first: "Shop: entered")
  }

  @Test func aMapInsideAMapsElementIsCapturedThere() async throws {
    let inner = try Self.chargingEach(maxConcurrency: 5)
    let chart = try Flowchart<Market> {
      Map(
        "Each basket", over: { $0.baskets }, running: inner,
        maxConcurrency: 1
      ) { market, results in
        market.baskets = results.outputs
      }
      Action("Close", isFinal: true) { $0.closed = true }
    }
    // Two baskets, one after the other, each of five elements at once.
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Market(), clock: plainClock)) {
      for _ in 0..<2 {
        try await plainClock.waitForSleepers(5)
        plainClock.advance(by: hour)
      }
    }
    #expect(
      expected.context?.baskets.map(\.totals) == [
        [105, 205, 305, 405, 505], [105, 205, 305, 405, 505],
      ])

    let clock = TestClock()
    let handle = started(chart, with: Market(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(5)
    clock.advance(by: hour)
    try await clock.waitForSleepers(5)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let outer = try #require(snapshot.flows[0].map)
    #expect(outer.done.map(\.index) == [0])
    let element = try #require(outer.running.first)
    #expect(element.index == 1)
    #expect(element.run.position == .entering("Charge each"))
    #expect(element.run.map?.running.count == 5)

    let later = TestClock(wallClockStart: clock.wallClockNow)
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) {
      try await later.waitForSleepers(5)
      later.advance(by: hour)
    }
    expectSame(got, as: expected, first: "Each basket: entered")
  }

  @Test func aMapWithATimeoutIsCapturedWithItsDeadline() async throws {
    let element = try Flowchart<Ledger> {
      Delay("Wait an hour", for: hour)
      Action("Settle", isFinal: true) { (ledger: inout Ledger) async in ledger.total += 1 }
    }
    let chart = try Flowchart<Basket> {
      Map("Charge each", over: { $0.items }, running: element, maxConcurrency: 5) {
        basket, results in
        basket.totals = results.outputs.map(\.total)
      }
      .timeout(hour / 2)
      .catch(StateTimeoutError.self, goTo: "Too slow")
      Action("Pack", isFinal: true) { $0.notes.append("packed") }
      Action("Too slow", isFinal: true) { $0.notes.append("too slow") }
    }
    let plainClock = TestClock()
    let expected = try await ending(started(chart, with: Basket(), clock: plainClock)) {
      try await plainClock.waitForSleepers(6)
      plainClock.advance(by: hour / 2)
    }
    #expect(expected.context?.notes == ["too slow"])

    let clock = TestClock()
    let handle = started(chart, with: Basket(), clock: clock)
    handle.resume()
    try await clock.waitForSleepers(6)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let map = try #require(snapshot.flows[0].map)
    #expect(
      map.entered
        == SubflowAttempt(attempt: 1, timeout: clock.wallClockStart.advanced(by: hour / 2)))
    #expect(map.running.count == 5)

    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: hour / 4))
    let resumed = try chart.start(
      resuming: snapshot, chart: "captured", clock: later, isPaused: true)
    let got = try await ending(resumed) {
      try await later.waitForSleepers(6)
      #expect(later.advance(by: hour / 4 - .seconds(1)) == 0)
      later.advance(by: .seconds(1))
    }
    expectSame(got, as: expected, first: "Charge each: entered")
  }
}

/// A context of baskets, for a map inside a map.
struct Market: Codable, Sendable, Equatable {
  var baskets: [Basket] = [Basket(), Basket()]
  var closed = false
}

/// The chart of the stored run inside a subflow with a timeout and a retry, at a delay:
/// "Pay" times out after two hours and retries once, a minute later; its inner run's
/// "Charge" fails in the first attempt (wrapping arithmetic: the hostile snapshot tests
/// resume mutated copies of it).
func storedTimedSubflowChart() throws -> Flowchart<Ledger> {
  let inner = try Flowchart<Ledger> {
    Action("Charge") { (ledger: inout Ledger) async throws in
      if RunAttempt.current < 2 { throw Declined() }
      ledger.total &+= 1
    }
    Delay("Cool off", for: .seconds(3_600))
    Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("settled")
    }
  }
  return try Flowchart<Ledger> {
    Action("Open") { $0.notes.append("open") }
    Subflow("Pay", running: inner, context: .whole)
      .timeout(.seconds(7_200))
      .retry(1, backoff: .fixed(.seconds(60)))
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct StoredCapturedSubflowTests {
  /// `inside-timed-subflow-at-delay.json`, written by this version (format 2): a run
  /// standing in subflow "Pay" at its second attempt (a minute after the first failed),
  /// whose inner run waits at its delay, 20 minutes into its hour, with the attempt's
  /// timeout two hours after it began. To write it again:
  /// `FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1 swift test --filter StoredCapturedSubflowTests`.
  @Test func aStoredSnapshotInsideATimedSubflowResumesWithItsAttemptAndDeadlines()
    async throws
  {
    let snapshot = try await storedSnapshot("inside-timed-subflow-at-delay", of: Ledger.self) {
      let clock = TestClock()
      let run = try storedTimedSubflowChart().start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-6")!, chart: "stored",
        clock: clock, isPaused: true)
      var events = run.events().makeAsyncIterator()
      run.resume()
      while let event = await events.next() {
        if case .retrying = event.kind { break }
      }
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(60))
      try await clock.waitForSleepers(2)
      clock.advance(by: .seconds(1_200))
      defer { run.cancel() }
      return try await run.snapshot()
    }
    let began = TestClock().wallClockStart.advanced(by: .seconds(60))
    #expect(snapshot.formatVersion == 2)
    #expect(snapshot.position == "Pay")
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .waitingUntil("Cool off"))
    #expect(nested.deadline == began.advanced(by: .seconds(3_600)))
    #expect(
      nested.entered == SubflowAttempt(attempt: 2, timeout: began.advanced(by: .seconds(7_200))))

    // Resumed 50 minutes into the attempt: the delay's last 10 minutes are left.
    let clock = TestClock(wallClockStart: began.advanced(by: .seconds(3_000)))
    let run = try storedTimedSubflowChart().start(
      resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(2)
    #expect(clock.advance(by: .seconds(599)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    let result = try await run.result
    #expect(result.pathNames == ["Open", "Pay", "Ship"])
    #expect(result.context == Ledger(total: 1, notes: ["kept", "open", "settled", "shipped"]))

    // Resumed after the timeout's deadline: the last attempt times out at once.
    let late = TestClock(wallClockStart: began.advanced(by: .seconds(7_200)))
    let error = try await #require(throws: RunError.self) {
      _ = try await storedTimedSubflowChart().resume(from: snapshot, chart: "stored", clock: late)
    }
    #expect(error.kind == .timedOut)
    #expect(error.stateName == "Pay")
    #expect(
      error.reason.hasSuffix(
        "(It failed all 2 attempts.) Raise the timeout, retry it, or catch StateTimeoutError to go on elsewhere."
      ))
  }
}
