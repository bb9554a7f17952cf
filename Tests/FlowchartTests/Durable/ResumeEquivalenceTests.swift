import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Resume equivalence over seeded random charts: a run snapshotted at a boundary (paused
// there, or parked at a waiting state), encoded to JSON, decoded and resumed, runs the same
// states' code, and ends with the same path, step count, decision and context as the same
// run left alone, and each of its flows reports the same decisions in the same order (the
// events of the first run up to the snapshot, then the resumed run's; a dispatch branch is
// known by its dispatch and index, since the interleaving of concurrent branches, and so
// their flow numbers, are the scheduler's). Charts mix synchronous and asynchronous actions,
// conditions, waiting states, delays, states that fail their first attempt and are retried
// after a backoff, and dispatches (nested up to twice) whose branches wait for input and for
// delays. The first run is paused as it is snapshotted, so that none of its flows goes on
// past the snapshot, then cancelled.
// Nothing depends on timing: a state's own code pauses the run (so the run stops at the
// boundary after it), a waiting state is sent its value when the run reports it waits, and
// each run has a `TestClock` that the test moves past a delay once the run's waker sleeps on
// it. A run resumed from a snapshot at a delay runs on a clock whose wall-clock time starts
// where the first run's stood (so it waits the rest of the delay), or past its deadline (so it
// goes on at once), by seed.
//
// `FLOWCHART_RANDOM_SEEDS=N` runs seeds 0..<N (1,000 by default);
// `FLOWCHART_RANDOM_SEED=S` runs seed S alone.

/// What a random chart's states record as their code runs, and the pause they may ask for.
private final class Script: Sendable {
  private struct State {
    var executed: [String] = []
    var pauseAfter: Int? = nil
    var handle: RunHandle<Ledger>? = nil
  }

  private let state = Lock(State())

  init(pauseAfter: Int?) { state.withLock { $0.pauseAfter = pauseAfter } }

  var executed: [String] { state.withLock { $0.executed } }

  func attach(_ handle: RunHandle<Ledger>) { state.withLock { $0.handle = handle } }

  /// A state's code ran: records it, and pauses the run after the chosen state.
  func ran(_ name: String) {
    let handle = state.withLock { state -> RunHandle<Ledger>? in
      state.executed.append(name)
      guard state.executed.count == state.pauseAfter else { return nil }
      return state.handle
    }
    handle?.pause()
  }
}

/// A chart made from `seed`, whose states report to the script the task-local names.
private func randomChart(seed: UInt64, script: Script) throws -> Flowchart<Ledger> {
  var generator = SeededGenerator(seed: seed)
  var counter = 0
  // Delays only where no other flow can wait for one at the same time (the top level, and
  // the first branch of a dispatch in such a flow): a delay sleeps until its wall-clock
  // deadline by a duration it reads off the clock, so a test that moves the clock while a
  // second delay is between that read and its sleep would leave it asleep.
  func block(depth: Int, dispatches: Int = 0, delays: Bool = true) -> [Declaration<Ledger>] {
    let inBranch = dispatches > 0
    var states: [Declaration<Ledger>] = []
    let length = Int.random(in: 1...4, using: &generator)
    for position in 0..<length {
      counter += 1
      let name = "S\(counter)"
      let isLast = position == length - 1
      let factor = counter
      switch Int.random(in: 0..<(depth < 3 ? 8 : 6), using: &generator) {
      case 0:
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            ledger.total = ledger.total &* 31 &+ factor
          }.declaration)
      case 1:
        states.append(
          Action(name, isFinal: isLast) { (ledger: inout Ledger) async in
            script.ran(name)
            ledger.notes.append(name)
          }.declaration)
      case 2:
        states.append(
          Wait(name, for: Int.self, isFinal: isLast) { ledger, value in
            script.ran(name)
            ledger.total = ledger.total &+ value
          }.declaration)
      case 3 where inBranch:
        // A branch's backoff would sleep for a duration on the clock the test moves for
        // every flow: branches retry nothing here.
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            ledger.total = ledger.total &- factor
          }.declaration)
      case 3:
        // Fails its first attempt, in every run: the retry runs it again.
        states.append(
          Action(name, isFinal: isLast) { (ledger: inout Ledger) async throws in
            // Recorded (and so pausing) only when it succeeds; the point between its two
            // attempts is snapshotted by the `retryAt` interruptions.
            if RunInfo.current?.attempt == 1 { throw Declined() }
            script.ran(name)
            ledger.total = ledger.total &+ 7
          }
          .retry(1, backoff: .fixed(.seconds(30))).declaration)
      case 4:
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            if ledger.total % 3 == 0 { ledger.notes.append("three") }
          }.declaration)
      case 5 where delays:
        states.append(Delay(name, for: .seconds(60), isFinal: isLast).declaration)
      case 5:
        states.append(
          Action(name, isFinal: isLast) { (ledger: inout Ledger) async in
            script.ran(name)
            ledger.total = ledger.total &+ factor
          }.declaration)
      case 7 where dispatches < 2:
        // A dispatch of two or three branches, each a block of its own.
        let branches = (0..<Int.random(in: 2...3, using: &generator)).map { index in
          block(depth: depth + 1, dispatches: dispatches + 1, delays: delays && index == 0)
        }
        states.append(
          Dispatch(name, isFinal: isLast, merge: mergeLedgerWrapping) {
            for branch in branches { Branch { branch } }
          }.declaration)
      default:
        let yes = block(depth: depth + 1, dispatches: dispatches, delays: delays)
        let no = block(depth: depth + 1, dispatches: dispatches, delays: delays)
        states.append(
          Condition(name) {
            script.ran(name)
            return $0.total % 2 == 0
          } yes: {
            yes
          } no: {
            no
          }.declaration)
        // A condition with blocks ends the flow.
        return states
      }
    }
    return states
  }
  let declarations = block(depth: 0)
  return try Flowchart<Ledger> { declarations }
}

/// Folds a branch's ledger into the dispatching flow's, in wrapping arithmetic.
@Sendable private func mergeLedgerWrapping(
  _ context: inout Ledger, _ branch: Ledger, _ original: Ledger
) {
  context.total = context.total &+ (branch.total &- original.total)
  context.notes += branch.notes.dropFirst(original.notes.count)
}

/// The value a waiting state is sent: from its name, the same in every run.
private func value(for name: String) -> Int {
  name.unicodeScalars.reduce(0) { $0 &* 7 &+ Int($1.value) }
}

/// The decisions each flow of a run reported, in order, by flow: "top" for the top-level
/// flow, "S4#1" for branch 1 of dispatch "S4" (a name the first run and the resumed run agree
/// on, unlike flow numbers).
private struct FlowDecisions: Equatable, CustomStringConvertible {
  var byFlow: [String: [String]] = [:]
  /// Each branch flow's name, by flow number, in the run being read.
  var names: [Int: String] = [:]

  mutating func read(_ event: RunEvent) {
    switch event.kind {
    case .branchStarted(let index): names[event.flow] = "\(event.stateName)#\(index)"
    case .stateDecided(let decision):
      let flow = event.flow == 0 ? "top" : names[event.flow, default: "flow \(event.flow)"]
      byFlow[flow, default: []].append("\(event.stateName) \(decision)")
    default: break
    }
  }

  /// Starts reading another run (the resumed one): its flows are numbered anew.
  mutating func nextRun() { names = [:] }

  static func == (left: FlowDecisions, right: FlowDecisions) -> Bool {
    left.byFlow == right.byFlow
  }

  var description: String { "\(byFlow.sorted { $0.key < $1.key })" }
}

/// Drives a live run to its end, sending each waiting state its value and moving `clock`
/// past each delay and backoff once the run sleeps there; when `snapshotting`, stops at the
/// first pause (or at the `parkAt`-th wait, the `delayAt`-th delay, or the `retryAt`-th
/// backoff between two attempts): pauses the run (so that no flow goes on past the
/// snapshot), snapshots it, cancels it, reads the rest of its events, and returns the
/// snapshot. A run resumed between two attempts first has its clock moved to `backoffEnds`,
/// once it sleeps there.
private func drive(
  _ handle: RunHandle<Ledger>, clock: TestClock, snapshotting: Bool, parkAt: Int? = nil,
  delayAt: Int? = nil, retryAt: Int? = nil, backoffEnds: WallClockTime? = nil,
  decisions: inout FlowDecisions
) async throws -> RunSnapshot<Ledger>? {
  var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
  handle.resume()
  if let backoffEnds, clock.wallClockNow < backoffEnds {
    try await clock.waitForSleepers(1)
    clock.advance(by: clock.wallClockNow.duration(to: backoffEnds))
  }
  var waits = 0
  var delays = 0
  var retries = 0
  var snapshot: RunSnapshot<Ledger>? = nil
  func take() async throws -> RunSnapshot<Ledger> {
    handle.pause()
    let taken = try await handle.snapshot()
    handle.cancel()
    return taken
  }
  while let event = await events.next() {
    decisions.read(event)
    guard snapshot == nil else { continue }
    switch event.kind {
    case .paused where snapshotting:
      snapshot = try await take()
    case .waitingForInput:
      waits += 1
      if snapshotting, waits == parkAt {
        snapshot = try await take()
        continue
      }
      try handle.send(value(for: event.stateName), to: event.stateName)
    case .waitingUntil(let deadline):
      delays += 1
      if snapshotting, delays == delayAt {
        snapshot = try await take()
        continue
      }
      // Several branches may wait for delays at once: the clock moves to this one's deadline
      // unless it has passed it (a delay sleeps until its wall-clock deadline, so moving the
      // clock before it sleeps is fine).
      if clock.wallClockNow < deadline {
        try await clock.waitForSleepers(1)
        clock.advance(by: clock.wallClockNow.duration(to: deadline))
      }
    case .retrying(_, let delay):
      retries += 1
      if snapshotting, retries == retryAt {
        snapshot = try await take()
        continue
      }
      try await clock.waitForSleepers(1)
      clock.advance(by: delay)
    default: break
    }
  }
  return snapshot
}

@Suite(.timeLimit(.minutes(10)))
struct ResumeEquivalenceTests {
  static var seeds: [UInt64] {
    let environment = ProcessInfo.processInfo.environment
    if let seed = environment["FLOWCHART_RANDOM_SEED"].flatMap({ UInt64($0) }) { return [seed] }
    let count = environment["FLOWCHART_RANDOM_SEEDS"].flatMap { UInt64($0) } ?? 1_000
    return Array(0..<count)
  }

  @Test func aResumedRunContinuesAsTheRunLeftAloneAtEveryBoundary() async throws {
    var captured: [String: Int] = [:]
    for seed in Self.seeds {
      try await check(seed: seed, captured: &captured)
    }
    // Over many seeds, every kind of point is snapshotted and resumed.
    if Self.seeds.count >= 100 {
      for kind in ["entering", "waitingForInput", "waitingUntil", "betweenAttempts", "dispatching"]
      {
        #expect(captured[kind, default: 0] > 0, "no snapshot \(kind)")
      }
    }
  }

  private func check(seed: UInt64, captured: inout [String: Int]) async throws {
    let alone = Script(pauseAfter: nil)
    let chart = try randomChart(seed: seed, script: alone)
    let clock = TestClock()
    let handle = chart.start(with: Ledger(), clock: clock, isPaused: true)
    var expectedDecisions = FlowDecisions()
    _ = try await drive(
      handle, clock: clock, snapshotting: false, decisions: &expectedDecisions)
    let expected = try await handle.result
    let executed = alone.executed
    let waitCount = chart.positionKeys.count  // an upper bound on the waits visited
    // Paused after each state's code (the boundary after it), parked at each wait, parked
    // at each delay, then between the two attempts of each retried state.
    let interruptions: [(pauseAfter: Int?, parkAt: Int?, delayAt: Int?, retryAt: Int?)] =
      executed.indices.map { ($0 + 1, nil, nil, nil) }
      + (1...waitCount).map { (nil, $0, nil, nil) } + (1...waitCount).map { (nil, nil, $0, nil) }
      + (1...waitCount).map { (nil, nil, nil, $0) }
    for interruption in interruptions {
      let script = Script(pauseAfter: interruption.pauseAfter)
      let chart = try randomChart(seed: seed, script: script)
      let firstClock = TestClock()
      let first = chart.start(with: Ledger(), clock: firstClock, isPaused: true)
      script.attach(first)
      var decisions = FlowDecisions()
      guard
        let snapshot = try await drive(
          first, clock: firstClock, snapshotting: true, parkAt: interruption.parkAt,
          delayAt: interruption.delayAt, retryAt: interruption.retryAt, decisions: &decisions)
      else {
        // The run ended first: the pause came with its last state, or it waits less often.
        continue
      }
      decisions.nextRun()
      let kind =
        switch snapshot.flows[0].position {
        case .entering where snapshot.flows[0].attempt > 1: "betweenAttempts"
        case .entering: "entering"
        case .waitingForInput: "waitingForInput"
        case .waitingUntil: "waitingUntil"
        case .dispatching: "dispatching"
        case .finished: "finished"
        case .notEntered: "notEntered"
        }
      captured[kind, default: 0] += 1
      // Another process, later: on the first run's wall-clock time, or past a delay's deadline.
      let clock = TestClock(
        wallClockStart: firstClock.wallClockNow.advanced(by: .seconds(seed % 2 == 0 ? 0 : 120)))
      let resumed = try chart.start(
        resuming: try roundTrip(snapshot), clock: clock, isPaused: true)
      let backoffEnds = snapshot.flows[0].attempt > 1 ? snapshot.flows[0].deadline : nil
      _ = try await drive(
        resumed, clock: clock, snapshotting: false, backoffEnds: backoffEnds,
        decisions: &decisions)
      let result = try await resumed.result
      let context = "seed \(seed), \(interruption), at \(snapshot.position ?? "-")"
      // Each state's code ran once, in one run or the other (concurrent branches in the
      // scheduler's order).
      #expect(script.executed.sorted() == executed.sorted(), "\(context)")
      #expect(decisions == expectedDecisions, "\(context)")
      #expect(result.pathNames == expected.pathNames, "\(context)")
      #expect(result.stepCount == expected.stepCount, "\(context)")
      #expect(result.decision == expected.decision, "\(context)")
      #expect(result.context == expected.context, "\(context)")
      if script.executed.sorted() != executed.sorted() || result.context != expected.context {
        return
      }
    }
  }
}
