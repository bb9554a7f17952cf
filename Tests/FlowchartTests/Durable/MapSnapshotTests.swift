import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots of a run standing inside a map: the outputs of the elements done, each running
// element's inner run held at its next boundary (or at a delay in its task), and which have
// not started; resume rebuilds the map and ends as the uninterrupted run. No test sleeps:
// runs pause from an element's code, wait on `TestClock`s, and the tests wait for events.

/// The outer context: the items a map runs over, and what it collected.
struct Basket: Codable, Sendable, Equatable {
  var items: [Ledger] = (1...5).map { Ledger(total: $0 * 100) }
  var totals: [Int] = []
  var notes: [String] = []
}

/// An element type that is not Codable: a snapshot cannot hold its map's runs.
struct Coin: Sendable, Equatable {
  var value = 0
}

/// The run a state's code pauses, once, when an element whose total is `total` reaches the
/// state the test names.
private final class ElementPauser: Sendable {
  private let state = Lock<(handle: RunHandle<Basket>?, at: String?, total: Int)>((nil, nil, 0))

  func arm(_ handle: RunHandle<Basket>, at name: String?, total: Int) {
    state.withLock { $0 = (handle, name, total) }
  }

  func reached(_ name: String, total: Int) {
    let handle = state.withLock { locked -> RunHandle<Basket>? in
      guard locked.at == name, locked.total == total else { return nil }
      locked.at = nil
      return locked.handle
    }
    handle?.pause()
  }
}

private func roundTrip(_ snapshot: RunSnapshot<Basket>) throws -> RunSnapshot<Basket> {
  try JSONDecoder().decode(RunSnapshot<Basket>.self, from: JSONEncoder().encode(snapshot))
}

private func waitForPause(_ events: inout RunEventStream.Iterator) async {
  while let event = await events.next() {
    if case .paused = event.kind { return }
  }
}

private let hour = Duration.seconds(3_600)

/// An element chart of three asynchronous steps; a step pauses the run when armed for the
/// element's starting total.
private func steps(_ pauser: ElementPauser) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Step 1") { (ledger: inout Ledger) async in
      ledger.notes.append("1")
      pauser.reached("Step 1", total: ledger.total)
    }
    Action("Step 2") { (ledger: inout Ledger) async in
      ledger.notes.append("2")
      pauser.reached("Step 2", total: ledger.total)
    }
    Action("Step 3", isFinal: true) { (ledger: inout Ledger) async in ledger.total += 1 }
  }
}

/// An element chart that waits an hour.
private func waitsAnHour(named name: String = "Wait an hour") throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { (ledger: inout Ledger) async in ledger.total += 5 }
    Delay(name, for: hour)
    Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("settled")
    }
  }
}

/// A basket whose map "Charge each" runs `inner` over its items.
private func basket(running inner: Flowchart<Ledger>, maxConcurrency: Int) throws
  -> Flowchart<Basket>
{
  try Flowchart<Basket> {
    Action("Open") { $0.notes.append("open") }
    Map(
      "Charge each", over: { $0.items }, running: inner, maxConcurrency: maxConcurrency
    ) { basket, results in
      basket.totals = results.outputs.map(\.total)
      basket.notes += results.outputs.flatMap(\.notes)
    }
    Action("Close", isFinal: true) { $0.notes.append("closed") }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct MapSnapshotTests {
  @Test func aRunPausedInsideAMapHoldsItsElementsDoneRunningAndNotStarted() async throws {
    let pauser = ElementPauser()
    let chart = try basket(running: steps(pauser), maxConcurrency: 1)
    let expected = try await chart.run(with: Basket())
    let handle = chart.start(
      with: Basket(), id: RunID("basket-1")!, chart: "basket", isPaused: true)
    var events = handle.events().makeAsyncIterator()
    pauser.arm(handle, at: "Step 1", total: 300)
    handle.resume()
    await waitForPause(&events)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.status == .paused)
    #expect(snapshot.position == "Charge each")
    #expect(snapshot.pathKeys == ["Open", "Charge each"])
    #expect(snapshot.flows[0].nested == nil)
    let map = try #require(snapshot.flows[0].map)
    #expect(map.elements == 5)
    #expect(map.done.map(\.index) == [0, 1])
    #expect(map.running.map(\.index) == [2])
    let running = try #require(map.running.first?.run)
    #expect(running.position == .entering("Step 2"))
    #expect(running.path == ["Step 1"])

    let resumed = try chart.start(resuming: snapshot, chart: "basket")
    let result = try await resumed.result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
    #expect(result.stepCount == expected.stepCount)
  }

  @Test func runningElementsAtDelaysKeepTheirDeadlinesAndTheRestStartOnResume() async throws {
    let chart = try basket(running: waitsAnHour(), maxConcurrency: 2)
    let plainClock = TestClock()
    async let plain = chart.run(with: Basket(), clock: plainClock)
    // Two elements at a time: the clock moves on only once every running element sleeps,
    // so that each sleeps its hour from the same time (one that started late would sleep
    // past the last move).
    for sleepers in [2, 2, 1] {
      try await plainClock.waitForSleepers(sleepers)
      plainClock.advance(by: hour)
    }
    let expected = try await plain
    let clock = TestClock()
    let handle = chart.start(with: Basket(), id: RunID("basket-2")!, chart: "basket", clock: clock)
    try await clock.waitForSleepers(2)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.status == .running)
    let map = try #require(snapshot.flows[0].map)
    #expect(map.done.isEmpty)
    #expect(map.running.map(\.index) == [0, 1])
    for (_, run) in map.running {
      #expect(run.position == .waitingUntil("Wait an hour"))
      #expect(run.deadline == clock.wallClockStart.advanced(by: hour))
    }
    // Resumed after the deadlines: elements 0 and 1 go on at once; 2 to 4 start and wait.
    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: hour))
    let resumed = try chart.start(resuming: snapshot, chart: "basket", clock: later)
    for sleepers in [2, 1] {
      try await later.waitForSleepers(sleepers)
      later.advance(by: hour)
    }
    let result = try await resumed.result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
  }

  @Test func aMapOfElementsThatAreNotCodableIsWaitedFor() async throws {
    let coins = try Flowchart<Coin> {
      Action("Mint") { (coin: inout Coin) async in coin.value += 1 }
      Delay("Cool", for: hour)
      Action("Done", isFinal: true)
    }
    let chart = try Flowchart<Basket> {
      Action("Open") { $0.notes.append("open") }
      Map("Mint each", over: { $0.items.map { Coin(value: $0.total) } }, running: coins) {
        basket, results in
        basket.totals = results.outputs.map(\.value)
      }
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let clock = TestClock()
    let handle = chart.start(with: Basket(), id: RunID("basket-3")!, chart: "basket", clock: clock)
    try await clock.waitForSleepers(5)
    async let taken = handle.snapshot()
    // The request waits for the map to end: then the clock lets the delays go.
    while handle.run.state.withLock({ $0.snapshots.waiters.isEmpty }) { await Task.yield() }
    clock.advance(by: hour)
    let snapshot = try roundTrip(try await taken)
    handle.cancel()
    #expect(snapshot.position == "Close")
    #expect(snapshot.flows[0].map == nil)
    #expect(snapshot.context.totals == [101, 201, 301, 401, 501])
  }

  @Test func aChangedElementChartWithoutTheInnerPositionIsRefusedNamingBoth() async throws {
    let chart = try basket(running: waitsAnHour(), maxConcurrency: 1)
    let clock = TestClock()
    let handle = chart.start(with: Basket(), id: RunID("basket-4")!, chart: "basket", clock: clock)
    try await clock.waitForSleepers(1)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let changed = try basket(running: waitsAnHour(named: "Wait a while"), maxConcurrency: 1)
    let error = try #require(throws: ResumeError.self) {
      _ = try changed.start(resuming: snapshot, chart: "basket", clock: TestClock())
    }
    #expect(error.misfits.map(\.position) == ["Charge each > Wait an hour"])
    #expect(
      error.description == """
        The snapshot of run basket-4 does not fit the chart 'basket': a position no longer fits.
        - 'Wait an hour', where element 0 of the run waits for a time inside map 'Charge each', no longer exists in the subflow's chart: restore it, or resume on a chart whose subflow has it.
        """)
  }

  /// Random element charts of asynchronous steps, run over random baskets with a random
  /// `maxConcurrency`: a run paused at a random step of a random element, snapshotted and
  /// resumed (through JSON), ends as the uninterrupted run, and its events are the
  /// uninterrupted run's from the map on.
  @Test(arguments: 0..<16)
  func resumingInsideAMapEndsAsTheUninterruptedRun(_ seed: UInt64) async throws {
    var generator = SeededGenerator(seed: 9_000 + seed)
    let pauser = ElementPauser()
    let count = Int.random(in: 2...5, using: &generator)
    var names: [String] = []
    var declarations: [Declaration<Ledger>] = []
    for index in 1...count {
      let name = "S\(index)"
      let amount = Int.random(in: 1...9, using: &generator)
      names.append(name)
      declarations.append(
        Action(name, isFinal: index == count) { (ledger: inout Ledger) async in
          let start = ledger.total - ledger.total % 100
          ledger.total += amount
          ledger.notes.append(name)
          pauser.reached(name, total: start)
        }.declaration)
    }
    let inner = try Flowchart<Ledger> { declarations }
    let elements = Int.random(in: 1...6, using: &generator)
    let chart = try Flowchart<Basket> {
      Action("Open") { $0.notes.append("open") }
      Map(
        "Charge each", over: { $0.items }, running: inner,
        maxConcurrency: Int.random(in: 1...3, using: &generator)
      ) { basket, results in
        basket.totals = results.outputs.map(\.total)
        basket.notes += results.outputs.flatMap(\.notes)
      }
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let start = Basket(items: (1...elements).map { Ledger(total: $0 * 100) })
    let expected = try await chart.run(with: start)
    let expectedEvents = await mapEvents(of: chart.start(with: start, isPaused: true))
    let name = names[Int.random(in: 0..<(count - 1 > 0 ? count - 1 : 1), using: &generator)]
    let element = Int.random(in: 1...elements, using: &generator) * 100
    let handle = chart.start(with: start, id: RunID("basket-r")!, chart: "basket", isPaused: true)
    var events = handle.events().makeAsyncIterator()
    pauser.arm(handle, at: name, total: element)
    handle.resume()
    await waitForPause(&events)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let what = "paused after \(name) of element \(element / 100 - 1)"
    if count > 1 {
      let map = try #require(snapshot.flows[0].map, "\(what)")
      let held = map.done.map(\.index) + map.running.map(\.index)
      #expect(Set(held).count == held.count, "\(what)")
      #expect(map.running.contains { $0.index == element / 100 - 1 }, "\(what)")
    }
    let resumed = try chart.start(resuming: snapshot, chart: "basket", isPaused: true)
    let seen = await mapEvents(of: resumed)
    let result = try await resumed.result
    #expect(result.context == expected.context, "\(what)")
    #expect(result.pathNames == expected.pathNames, "\(what)")
    #expect(seen == Array(expectedEvents.suffix(seen.count)), "\(what)")
    if count > 1 { #expect(seen.first == "entered Charge each", "\(what)") }
  }
}

/// The lines of flow 0's entries, decisions and map endings in a run started paused.
private func mapEvents(of handle: RunHandle<Basket>) async -> [String] {
  var iterator = handle.events().makeAsyncIterator()
  handle.resume()
  var lines: [String] = []
  while let event = await iterator.next() {
    guard event.flow == 0 else { continue }
    switch event.kind {
    case .stateEntered: lines.append("entered \(event.stateName)")
    case .stateDecided(let decision): lines.append("decided \(event.stateName) \(decision)")
    case .mapEnded(let finished, let failed, let skipped):
      lines.append("map ended \(finished) \(failed) \(skipped)")
    case .runFinished, .runFailed: return lines
    default: break
    }
  }
  return lines
}

/// The chart of the stored run inside a map (wrapping arithmetic: the hostile snapshot tests
/// resume mutated copies of it): one element at a time, each charged, cooled off for an
/// hour, and settled.
func storedMapChart() throws -> Flowchart<Basket> {
  let inner = try Flowchart<Ledger> {
    Action("Charge") { (ledger: inout Ledger) async in ledger.total &+= 1 }
    Delay("Cool off", for: .seconds(3_600))
    Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("settled")
    }
  }
  return try Flowchart<Basket> {
    Action("Open") { $0.notes.append("open") }
    Map("Charge each", over: { $0.items }, running: inner, maxConcurrency: 1) {
      basket, results in
      basket.totals = results.outputs.map(\.total)
      basket.notes += results.outputs.flatMap(\.notes)
    }
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct StoredMapSnapshotTests {
  /// `inside-map-at-delay.json`, written by this version (format 2): a run standing in map
  /// "Charge each" over three items, element 0 done, element 1 waiting at its delay 20
  /// minutes into its hour, element 2 not started. To write it again:
  /// `FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1 swift test --filter StoredMapSnapshotTests`.
  @Test func aStoredSnapshotInsideAMapResumesItsElements() async throws {
    let items = Basket(items: [Ledger(total: 10), Ledger(total: 20), Ledger(total: 30)])
    let snapshot = try await storedSnapshot("inside-map-at-delay", of: Basket.self) {
      let clock = TestClock()
      let run = try storedMapChart().start(
        with: items, id: RunID("stored-run-5")!, chart: "stored", clock: clock)
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(3_600))
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1_200))
      defer { run.cancel() }
      return try await run.snapshot()
    }
    let deadline = TestClock().wallClockStart.advanced(by: .seconds(7_200))
    #expect(snapshot.formatVersion == 2)
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Charge each")
    #expect(snapshot.pathKeys == ["Open", "Charge each"])
    let map = try #require(snapshot.flows[0].map)
    #expect(map.elements == 3)
    #expect(map.done.map(\.index) == [0])
    #expect(map.running.map(\.index) == [1])
    let running = try #require(map.running.first?.run)
    #expect(running.position == .waitingUntil("Cool off"))
    #expect(running.deadline == deadline)
    // Resumed 10 minutes before element 1's deadline: it waits only those, then element 2
    // starts and waits its hour.
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(600)))
    let run = try storedMapChart().start(resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(clock.advance(by: .seconds(599)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(3_600))
    let result = try await run.result
    #expect(result.pathNames == ["Open", "Charge each", "Ship"])
    #expect(result.context.totals == [11, 21, 31])
    #expect(result.context.notes == ["open", "settled", "settled", "settled", "shipped"])
  }
}

@Suite(.timeLimit(.minutes(5)))
struct MapInDispatchSnapshotTests {
  @Test func aMapInADispatchBranchIsCapturedInsideTheBranch() async throws {
    let inner = try waitsAnHour()
    let chart = try Flowchart<Basket> {
      Action("Open") { $0.notes.append("open") }
      Dispatch(
        "Split",
        merge: { (basket: inout Basket, branch: Basket, original: Basket) in
          basket.totals += branch.totals
          basket.notes += branch.notes.dropFirst(original.notes.count)
        }
      ) {
        Branch {
          Map("Charge each", over: { $0.items }, running: inner, maxConcurrency: 2) {
            basket, results in
            basket.totals = results.outputs.map(\.total)
          }
          Action("Charged", isFinal: true) { $0.notes.append("charged") }
        }
        Branch {
          Action("Note", isFinal: true) { $0.notes.append("noted") }
        }
      }
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let clock = TestClock()
    let handle = chart.start(with: Basket(), id: RunID("basket-5")!, chart: "basket", clock: clock)
    try await clock.waitForSleepers(2)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let branch = try #require(snapshot.flows.first { $0.map != nil })
    #expect(branch.position == .entering("Split/Charge each"))
    #expect(branch.map?.running.map(\.index) == [0, 1])
    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: hour))
    let resumed = try chart.start(resuming: snapshot, chart: "basket", clock: later)
    for sleepers in [2, 1] {
      try await later.waitForSleepers(sleepers)
      later.advance(by: hour)
    }
    let result = try await resumed.result
    #expect(result.context.totals == [105, 205, 305, 405, 505])
    #expect(result.context.notes == ["open", "charged", "noted", "closed"])
    #expect(result.pathNames.last == "Close")
  }
}
