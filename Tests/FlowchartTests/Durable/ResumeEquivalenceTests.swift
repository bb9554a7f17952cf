import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Resume equivalence over seeded random charts: a run snapshotted at a boundary (paused
// there, or parked at a waiting state), encoded to JSON, decoded and resumed, runs the same
// states' code, and ends with the same path, step count, decision and context (or the same
// failure) as the same run left alone, and each of its flows reports the same decisions in
// the same order (the events of the first run up to the snapshot, then the resumed run's; a
// dispatch branch is known by its dispatch and index, since the interleaving of concurrent
// branches, and so their flow numbers, are the scheduler's). Charts mix synchronous and
// asynchronous actions, conditions, waiting states, delays, states that fail their first
// attempt and are retried after a backoff, states that fail every attempt and are caught,
// states that fail for good, and dispatches (nested up to twice) that tolerate their
// branches' failures or not; each of these may stand in any branch. The first run is paused
// as it is snapshotted, so that none of its flows goes on past the snapshot, then
// cancelled; a snapshot refused (a branch failed while its dispatch runs on) is counted,
// and nothing is resumed from it.
// Nothing depends on timing: a state's own code pauses the run (so the run stops at the
// boundary after it), a waiting state is sent its value when the run reports it waits, and
// each run has a `TestClock` that the test moves past a delay's or a backoff's deadline as
// soon as the run reports it (a flow sleeps until its absolute deadline, so the clock may
// pass it before the flow sleeps, while other flows wait for theirs). A run resumed from a
// snapshot at a delay runs on a clock whose wall-clock time starts where the first run's
// stood (so it waits the rest of the delay), or past its deadline (so it goes on at once),
// by seed.
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

/// A chart made from a seed, with what a test needs to know of it.
private struct RandomChart {
  let chart: Flowchart<Ledger>
  /// The dispatches, and every state declared in one's branches: where a failure that fails
  /// the run cancels the other branches wherever the scheduler has them.
  let inDispatches: Set<String>
}

/// A chart made from `seed`, whose states report to the script the task-local names.
///
/// Every kind of state may stand anywhere: delays and retried states (with their backoff on
/// the run's clock) in any branch, catch routes (a state that fails every attempt, retried,
/// then caught by a route to the state after it), and states that fail for good in a branch
/// (their branch fails). A dispatch either tolerates all its branches' failures, or (`.all`)
/// fails at its first: then it cancels its other branches wherever the scheduler has them, so
/// such a failure is allowed only where it fails the whole run (whose failure the test
/// compares, not what the cancelled branches did), and in one branch only, so that the run
/// fails at one state whatever the scheduler does.
private func randomChart(seed: UInt64, script: Script) throws -> RandomChart {
  var generator = SeededGenerator(seed: seed)
  var counter = 0
  var inDispatches: Set<String> = []
  /// A block of states of a flow that may fail when `mayFail`, a failure that fails the run
  /// when `failsRun`.
  func block(
    depth: Int, dispatches: Int = 0, mayFail: Bool = true, failsRun: Bool = true
  ) -> [Declaration<Ledger>] {
    var states: [Declaration<Ledger>] = []
    let length = Int.random(in: 1...4, using: &generator)
    for position in 0..<length {
      counter += 1
      let name = "S\(counter)"
      if dispatches > 0 { inDispatches.insert(name) }
      let isLast = position == length - 1
      let factor = counter
      switch Int.random(in: 0..<(depth < 3 ? 10 : 8), using: &generator) {
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
      case 3:
        // Fails its first attempt, in every run: the retry runs it again after its backoff.
        let backoff = Duration.seconds(30 * Int.random(in: 1...2, using: &generator))
        states.append(
          Action(name, isFinal: isLast) { (ledger: inout Ledger) async throws in
            // Recorded (and so pausing) only when it succeeds; the point between its two
            // attempts is snapshotted by the `retryAt` interruptions.
            if RunInfo.current?.attempt == 1 { throw Declined() }
            script.ran(name)
            ledger.total = ledger.total &+ 7
          }
          .retry(1, backoff: .fixed(backoff)).declaration)
      case 4:
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            if ledger.total % 3 == 0 { ledger.notes.append("three") }
          }.declaration)
      case 5:
        let duration = Duration.seconds(30 * Int.random(in: 1...3, using: &generator))
        states.append(Delay(name, for: duration, isFinal: isLast).declaration)
      case 6:
        // Fails every attempt, is retried after a backoff, then caught: the route goes on at
        // the next state, declared here.
        let recovery = "\(name)r"
        if dispatches > 0 { inDispatches.insert(recovery) }
        states.append(
          Action(name) { (_: inout Ledger) async throws in throw Declined() }
            .retry(1, backoff: .fixed(.seconds(45)))
            .catch(goTo: recovery) { ledger, _ in ledger.notes.append("caught \(name)") }
            .declaration)
        states.append(
          Action(recovery, isFinal: isLast) { ledger in
            script.ran(recovery)
            ledger.total = ledger.total &+ factor &* 5
          }.declaration)
      case 7 where mayFail && dispatches > 0:
        // Fails for good, after one retry: its branch fails here.
        states.append(
          Action(name, isFinal: true) { (_: inout Ledger) async throws in throw Declined() }
            .retry(1, backoff: .fixed(.seconds(15))).declaration)
        return states
      case 7:
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            ledger.total = ledger.total &- factor
          }.declaration)
      case 9 where dispatches < 2:
        // A dispatch of two or three branches, each a block of its own.
        inDispatches.insert(name)
        let tolerant = Bool.random(using: &generator)
        let count = Int.random(in: 2...3, using: &generator)
        let branches = (0..<count).map { index in
          // A tolerated failure ends its branch alone; an `.all` dispatch's failure cancels
          // its other branches, and fails its flow.
          tolerant
            ? block(depth: depth + 1, dispatches: dispatches + 1, mayFail: true, failsRun: false)
            : block(
              depth: depth + 1, dispatches: dispatches + 1,
              mayFail: mayFail && failsRun && index == 0, failsRun: failsRun)
        }
        states.append(
          Dispatch(
            name, isFinal: isLast, join: tolerant ? .toleratingFailures(count) : .all,
            merge: mergeLedgerWrapping
          ) {
            for branch in branches { Branch { branch } }
          }.declaration)
      default:
        let yes = block(
          depth: depth + 1, dispatches: dispatches, mayFail: mayFail, failsRun: failsRun)
        let no = block(
          depth: depth + 1, dispatches: dispatches, mayFail: mayFail, failsRun: failsRun)
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
  return RandomChart(chart: try Flowchart<Ledger> { declarations }, inDispatches: inDispatches)
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

/// How a driven run stopped.
private enum Stop {
  /// It ran to its end: the chosen interruption never came.
  case ended
  /// It was snapshotted at the chosen interruption.
  case snapshot(RunSnapshot<Ledger>)
  /// It was interrupted, and the snapshot was refused (a branch failed while its dispatch
  /// runs on, or the run failed inside a dispatch's branches).
  case refused(SnapshotError)
}

/// How many waits, delays and retries a driven run reported, in all its flows.
private struct Met {
  var waits = 0
  var delays = 0
  var retries = 0
}

/// Drives a live run to its end, sending each waiting state its value and moving `clock`
/// past each delay's and each backoff's deadline as the run reports it; when
/// `snapshotting`, stops at the first pause (or at the `parkAt`-th wait, the `delayAt`-th
/// delay, or the `retryAt`-th backoff between two attempts, in any flow): pauses the run (so
/// that no flow goes on past the snapshot), snapshots it, cancels it, and reads the rest of
/// its events. A resumed run first has its clock moved to `backoffsEnd`, the latest deadline
/// of the backoffs its flows resume in.
///
/// The clock moves as soon as the run reports a deadline, without waiting for the flow to
/// sleep: a flow fixes its deadline before it reports it, and sleeps until that absolute
/// deadline, so a clock already past it wakes the flow at once (several flows may wait for
/// delays and backoffs at the same time).
private func drive(
  _ handle: RunHandle<Ledger>, clock: TestClock, snapshotting: Bool, parkAt: Int? = nil,
  delayAt: Int? = nil, retryAt: Int? = nil, backoffsEnd: WallClockTime? = nil,
  decisions: inout FlowDecisions, met: inout Met
) async throws -> Stop {
  var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
  if let backoffsEnd, clock.wallClockNow < backoffsEnd {
    clock.advance(by: clock.wallClockNow.duration(to: backoffsEnd))
  }
  handle.resume()
  var stop: Stop? = nil
  func take() async -> Stop {
    handle.pause()
    let taken: Stop
    do {
      taken = .snapshot(try await handle.snapshot())
    } catch {
      taken = .refused(error)
    }
    handle.cancel()
    return taken
  }
  while let event = await events.next() {
    decisions.read(event)
    guard stop == nil else { continue }
    switch event.kind {
    case .paused where snapshotting:
      stop = await take()
    case .waitingForInput:
      met.waits += 1
      if snapshotting, met.waits == parkAt {
        stop = await take()
        continue
      }
      // A branch that failed under `.all` ends the run, maybe before this event is read: the
      // value then has nowhere to go, and the run's failure is what the test compares.
      _ = try? handle.send(value(for: event.stateName), to: event.stateName)
    case .waitingUntil(let deadline):
      met.delays += 1
      if snapshotting, met.delays == delayAt {
        stop = await take()
        continue
      }
      if clock.wallClockNow < deadline {
        clock.advance(by: clock.wallClockNow.duration(to: deadline))
      }
    case .retrying(_, let delay):
      met.retries += 1
      if snapshotting, met.retries == retryAt {
        stop = await take()
        continue
      }
      // The backoff's deadline was fixed before the event, so it is at most `delay` away.
      clock.advance(by: delay)
    default: break
    }
  }
  return stop ?? .ended
}

/// How the run `handle` ended.
private func outcome(of handle: RunHandle<Ledger>) async -> Result<RunResult<Ledger>, RunError> {
  do {
    return .success(try await handle.result)
  } catch {
    return .failure(error)
  }
}

/// The suite's time limit: 10 minutes for `swift test`'s 1,000 seeds (about 40 seconds in
/// debug), and a minute more for every 2,000 seeds beyond them, so that the documented
/// 100,000-seed command (10 to 25 minutes in release on a 2-core machine) is not cut short.
private let resumeEquivalenceMinutes =
  10
  + (ProcessInfo.processInfo.environment["FLOWCHART_RANDOM_SEEDS"].flatMap { Int($0) } ?? 0)
  / 2_000

@Suite(.timeLimit(.minutes(resumeEquivalenceMinutes)))
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
    // Over many seeds, every kind of point is snapshotted and resumed, in the top-level flow
    // and in branches; some runs fail in a branch, and some snapshots are refused.
    if Self.seeds.count >= 100 {
      for kind in [
        "entering", "waitingForInput", "waitingUntil", "betweenAttempts", "dispatching",
        "branch waitingForInput", "branch waitingUntil", "branch betweenAttempts",
        "branch dispatching", "branch finished", "refused", "run failed in a dispatch",
      ] {
        #expect(captured[kind, default: 0] > 0, "no \(kind)")
      }
    }
  }

  /// The kind of a flow's position, for the counts of what was snapshotted.
  private static func kind(of flow: FlowSnapshot<Ledger>) -> String {
    switch flow.position {
    case .entering where flow.attempt > 1: "betweenAttempts"
    case .entering: "entering"
    case .waitingForInput: "waitingForInput"
    case .waitingUntil: "waitingUntil"
    case .dispatching: "dispatching"
    case .finished: "finished"
    case .notEntered: "notEntered"
    }
  }

  private func check(seed: UInt64, captured: inout [String: Int]) async throws {
    let alone = Script(pauseAfter: nil)
    let generated = try randomChart(seed: seed, script: alone)
    let clock = TestClock()
    let handle = generated.chart.start(with: Ledger(), clock: clock, isPaused: true)
    var expectedDecisions = FlowDecisions()
    var met = Met()
    _ = try await drive(
      handle, clock: clock, snapshotting: false, decisions: &expectedDecisions, met: &met)
    let expected = await outcome(of: handle)
    let executed = alone.executed
    // A run that fails inside a dispatch cancels the other branches wherever they stand:
    // what they ran and decided is the scheduler's, and only the failure and the top-level
    // flow's decisions are the same in every run.
    var failedInDispatch = false
    if case .failure(let error) = expected, generated.inDispatches.contains(error.stateName) {
      failedInDispatch = true
      captured["run failed in a dispatch", default: 0] += 1
    }
    // Paused after each state's code (the boundary after it), parked at each wait, at each
    // delay, then between the two attempts of each retried state, in any flow.
    let interruptions: [(pauseAfter: Int?, parkAt: Int?, delayAt: Int?, retryAt: Int?)] =
      executed.indices.map { ($0 + 1, nil, nil, nil) }
      + (0..<met.waits).map { (nil, $0 + 1, nil, nil) }
      + (0..<met.delays).map { (nil, nil, $0 + 1, nil) }
      + (0..<met.retries).map { (nil, nil, nil, $0 + 1) }
    for interruption in interruptions {
      let script = Script(pauseAfter: interruption.pauseAfter)
      let chart = try randomChart(seed: seed, script: script).chart
      let firstClock = TestClock()
      let first = chart.start(with: Ledger(), clock: firstClock, isPaused: true)
      script.attach(first)
      var decisions = FlowDecisions()
      var firstMet = Met()
      let snapshot: RunSnapshot<Ledger>
      switch try await drive(
        first, clock: firstClock, snapshotting: true, parkAt: interruption.parkAt,
        delayAt: interruption.delayAt, retryAt: interruption.retryAt, decisions: &decisions,
        met: &firstMet)
      {
      case .ended:
        // The run ended first: the pause came with its last state.
        continue
      case .refused(let error):
        // A branch failed while its dispatch runs on, or the run failed in a branch: the
        // error names the dispatch, and nothing is resumed.
        #expect(error.reason.contains("dispatch '"), "seed \(seed), \(interruption): \(error)")
        captured["refused", default: 0] += 1
        continue
      case .snapshot(let taken):
        snapshot = taken
      }
      decisions.nextRun()
      captured[Self.kind(of: snapshot.flows[0]), default: 0] += 1
      for branch in Set(snapshot.flows.dropFirst().map(Self.kind(of:))) {
        captured["branch \(branch)", default: 0] += 1
      }
      // Another process, later: on the first run's wall-clock time, or past a delay's deadline.
      let clock = TestClock(
        wallClockStart: firstClock.wallClockNow.advanced(by: .seconds(seed % 2 == 0 ? 0 : 120)))
      let resumed = try chart.start(
        resuming: try roundTrip(snapshot), clock: clock, isPaused: true)
      // The flows resumed between two attempts go on once their backoffs end: they report
      // no retry, so the clock moves to the latest of those deadlines at once.
      let backoffsEnd = snapshot.flows.filter { $0.attempt > 1 }.compactMap(\.deadline).max()
      var resumedMet = Met()
      _ = try await drive(
        resumed, clock: clock, snapshotting: false, backoffsEnd: backoffsEnd,
        decisions: &decisions, met: &resumedMet)
      let result = await outcome(of: resumed)
      let context = "seed \(seed), \(interruption), at \(snapshot.position ?? "-")"
      switch (expected, result) {
      case (.success(let expected), .success(let result)):
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
      case (.failure(let expected), .failure(let error)):
        #expect(error.kind == expected.kind, "\(context)")
        #expect(error.stateName == expected.stateName, "\(context)")
        if failedInDispatch {
          #expect(decisions.byFlow["top"] == expectedDecisions.byFlow["top"], "\(context)")
        } else {
          #expect(script.executed.sorted() == executed.sorted(), "\(context)")
          #expect(decisions == expectedDecisions, "\(context)")
          #expect(error.pathNames == expected.pathNames, "\(context)")
        }
        if error.kind != expected.kind { return }
      case (.success, .failure(let error)):
        Issue.record("\(context): the resumed run failed, the run left alone did not: \(error)")
        return
      case (.failure(let expected), .success):
        Issue.record(
          "\(context): the resumed run succeeded, the run left alone failed: \(expected)")
        return
      }
    }
  }
}
