import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Resume equivalence over seeded random charts: a run snapshotted at a boundary (paused
// there, parked at a waiting state, or held asleep at a delay or between two attempts),
// encoded to JSON, decoded and resumed, runs the same states' code, and ends with the same
// path, step count, decision and context (or the same failure) as the same run left alone,
// and each of its flows reports the same decisions, and the same map endings, in the same
// order (the events of the first run up to the snapshot, then the resumed run's; a
// dispatch branch is known by its dispatch and index, since the interleaving of concurrent
// branches, and so their flow numbers, are the scheduler's). Charts mix synchronous and
// asynchronous actions, conditions, waiting states, delays, states that fail their first
// attempt and are retried after a backoff, states that fail every attempt and are caught,
// states that fail for good, dispatches (nested up to twice) that tolerate their branches'
// failures or not, subflows (as an action, a condition or a keyed decision) and maps whose
// charts are generated too (with delays, retries, failures and subflows of their own); each
// of these may stand in any branch. Every boundary inside a subflow's or a map's inner run
// is a point too: a state's code there pauses the run, and the sleeps there are held, so a
// snapshot holds the inner positions (the counts of what was captured check that it does).
// The first run is paused as it is snapshotted, so that none of its flows goes on past the
// snapshot, then cancelled; a snapshot refused (a branch failed while its dispatch runs on)
// is counted, and nothing is resumed from it.
// Nothing depends on timing: a state's own code pauses the run (so the run stops at the
// boundary after it), a waiting state is sent its value when the run reports it waits, and
// each run has a clock that a flow going to sleep moves to its deadline at once (a flow
// sleeps until its absolute deadline, fixed before; an inner run reports no events, so the
// clock is what sees its delays and backoffs), but for the sleep the test holds. A run
// resumed from a snapshot at a delay runs on a clock whose wall-clock time starts where the
// first run's stood (so it waits the rest of the delay), or past its deadline (so it goes
// on at once), by seed.
//
// `FLOWCHART_RANDOM_SEEDS=N` runs seeds 0..<N (1,000 by default);
// `FLOWCHART_RANDOM_SEED=S` runs seed S alone; `FLOWCHART_RANDOM_TREE=1` prints each seed's
// chart, its subflows and maps expanded.

/// What a random chart's states record as their code runs, and the pause they may ask for.
private final class Script: Sendable {
  private struct State {
    var executed: [String] = []
    var pauseAfter: Int? = nil
    var handle: RunHandle<Ledger>? = nil
    var stopper: Stopper? = nil
  }

  private let state = Lock(State())

  init(pauseAfter: Int?) { state.withLock { $0.pauseAfter = pauseAfter } }

  var executed: [String] { state.withLock { $0.executed } }

  /// The run the script pauses, and what stops it then.
  func attach(_ handle: RunHandle<Ledger>, stopper: Stopper) {
    state.withLock {
      $0.handle = handle
      $0.stopper = stopper
    }
  }

  /// Lets go of the run: it holds the script (its states' code), so the script must not
  /// hold it once the test is done with it.
  func detach() {
    state.withLock {
      $0.handle = nil
      $0.stopper = nil
    }
  }

  /// A state's code ran: records it, and pauses the run after the chosen state, then stops
  /// it (a paused run reports `paused` only from a flow that comes to a boundary: flows
  /// waiting for input stand still, and take what is sent meanwhile only once resumed).
  func ran(_ name: String) {
    let stopping = state.withLock { state -> (RunHandle<Ledger>, Stopper)? in
      state.executed.append(name)
      guard state.executed.count == state.pauseAfter, let handle = state.handle,
        let stopper = state.stopper
      else { return nil }
      return (handle, stopper)
    }
    guard let (handle, stopper) = stopping else { return }
    handle.pause()
    stopper.stop(handle)
  }
}

/// A chart made from a seed, with what a test needs to know of it.
private struct RandomChart {
  let chart: Flowchart<Ledger>
  /// The states at which the run may fail while other flows or map elements run on wherever
  /// the scheduler has them (they are cancelled): every state of a dispatch's branches, the
  /// dispatches, and the maps whose elements run concurrently and may fail.
  let racingFailures: Set<String>
}

/// How a subflow's or a map's chart must end.
private enum Ending {
  /// At any final state.
  case any
  /// At final conditions, deciding yes or no: the chart of a subflow used as a condition.
  case decision
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
///
/// Subflows (used as an action, a condition or a keyed decision, on the whole ledger or on a
/// copy whose changes they write back) and maps (over 0 to 4 ledgers made from the context,
/// one to three at a time, collecting the outputs back) stand in any flow. Their charts are
/// generated the same way with a smaller budget: asynchronous and synchronous actions,
/// delays, retried and caught states, conditions, and subflows of their own (two levels
/// down at most), dispatches at an inner chart's top (whose branches hold no condition or
/// dispatch of their own) and maps one level down, but no waiting state (an inner run
/// takes no input); a subflow may be retried. An inner state may fail for
/// good (on an odd total, after one retry) where a failure is allowed: it fails its subflow
/// or its map, and so its flow; in a map whose elements run concurrently, only where that
/// fails the run.
private func randomChart(seed: UInt64, script: Script) throws -> RandomChart {
  var generator = SeededGenerator(seed: seed)
  var counter = 0
  var racingFailures: Set<String> = []

  /// A new state's name and its number.
  func nextName() -> (String, Int) {
    counter += 1
    return ("S\(counter)", counter)
  }

  /// A block of states of a flow that may fail when `mayFail`, a failure that fails the run
  /// when `failsRun`.
  func block(
    depth: Int, dispatches: Int = 0, mayFail: Bool = true, failsRun: Bool = true
  ) throws -> [Declaration<Ledger>] {
    var states: [Declaration<Ledger>] = []
    let length = Int.random(in: 1...4, using: &generator)
    for position in 0..<length {
      let (name, factor) = nextName()
      if dispatches > 0 { racingFailures.insert(name) }
      let isLast = position == length - 1
      switch Int.random(in: 0..<(depth < 3 ? 12 : 8), using: &generator) {
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
        states.append(retried(name, isFinal: isLast))
      case 4:
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            if ledger.total % 3 == 0 { ledger.notes.append("three") }
          }.declaration)
      case 5:
        states.append(delay(name, isFinal: isLast))
      case 6:
        let recovery = "\(name)r"
        if dispatches > 0 { racingFailures.insert(recovery) }
        states += caught(name, factor: factor, isFinal: isLast)
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
        racingFailures.insert(name)
        let tolerant = Bool.random(using: &generator)
        let count = Int.random(in: 2...3, using: &generator)
        let branches = try (0..<count).map { index in
          // A tolerated failure ends its branch alone; an `.all` dispatch's failure cancels
          // its other branches, and fails its flow.
          tolerant
            ? try block(
              depth: depth + 1, dispatches: dispatches + 1, mayFail: true, failsRun: false)
            : try block(
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
      case 10:
        // A subflow; used as a condition or a keyed decision, it ends the flow.
        let (declaration, endsFlow) = try subflow(
          name, isLast: isLast, nesting: 0, mayFail: mayFail
        ) {
          try block(
            depth: depth + 1, dispatches: dispatches, mayFail: mayFail, failsRun: failsRun)
        }
        states.append(declaration)
        if endsFlow { return states }
      case 11:
        states.append(
          try map(name, isLast: isLast, nesting: 0, mayFail: mayFail, failsRun: failsRun))
      default:
        let yes = try block(
          depth: depth + 1, dispatches: dispatches, mayFail: mayFail, failsRun: failsRun)
        let no = try block(
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

  /// Fails its first attempt, in every run: the retry runs it again after its backoff.
  func retried(_ name: String, isFinal: Bool) -> Declaration<Ledger> {
    let backoff = Duration.seconds(30 * Int.random(in: 1...2, using: &generator))
    return Action(name, isFinal: isFinal) { (ledger: inout Ledger) async throws in
      // Recorded (and so pausing) only when it succeeds; the point between its two
      // attempts is snapshotted at the backoff's sleep.
      if RunInfo.current?.attempt == 1 { throw Declined() }
      script.ran(name)
      ledger.total = ledger.total &+ 7
    }
    .retry(1, backoff: .fixed(backoff)).declaration
  }

  func delay(_ name: String, isFinal: Bool) -> Declaration<Ledger> {
    let duration = Duration.seconds(30 * Int.random(in: 1...3, using: &generator))
    return Delay(name, for: duration, isFinal: isFinal).declaration
  }

  /// Fails every attempt, is retried after a backoff, then caught: the route goes on at the
  /// next state, declared here.
  func caught(_ name: String, factor: Int, isFinal: Bool) -> [Declaration<Ledger>] {
    let recovery = "\(name)r"
    return [
      Action(name) { (_: inout Ledger) async throws in throw Declined() }
        .retry(1, backoff: .fixed(.seconds(45)))
        .catch(goTo: recovery) { ledger, _ in ledger.notes.append("caught \(name)") }
        .declaration,
      Action(recovery, isFinal: isFinal) { ledger in
        script.ran(recovery)
        ledger.total = ledger.total &+ factor &* 5
      }.declaration,
    ]
  }

  /// The chart of a subflow or a map, `nesting` levels down.
  func innerChart(nesting: Int, ending: Ending, mayFail: Bool) throws -> Flowchart<Ledger> {
    let declarations = try innerBlock(
      depth: 0, nesting: nesting, ending: ending, mayFail: mayFail)
    return try Flowchart<Ledger> { declarations }
  }

  /// A block of an inner chart: no waiting state, and a failure allowed when `mayFail`.
  func innerBlock(depth: Int, nesting: Int, ending: Ending, mayFail: Bool) throws
    -> [Declaration<Ledger>]
  {
    var states: [Declaration<Ledger>] = []
    let length = Int.random(in: 1...3, using: &generator)
    for position in 0..<length {
      let (name, factor) = nextName()
      let isLast = position == length - 1
      if isLast, ending == .decision {
        // The inner run ends deciding yes or no.
        states.append(
          Condition(name, isFinal: true) { (ledger: inout Ledger) async in
            script.ran(name)
            return ledger.total & 1 == 0
          }.declaration)
        return states
      }
      switch Int.random(in: 0..<12, using: &generator) {
      case 0:
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            ledger.total = ledger.total &* 31 &+ factor
          }.declaration)
      case 1, 2:
        states.append(
          Action(name, isFinal: isLast) { (ledger: inout Ledger) async in
            script.ran(name)
            ledger.total = ledger.total &+ factor
            ledger.notes.append(name)
          }.declaration)
      case 3:
        states.append(delay(name, isFinal: isLast))
      case 4:
        states.append(retried(name, isFinal: isLast))
      case 5:
        states += caught(name, factor: factor, isFinal: isLast)
      case 6 where mayFail:
        // Fails for good on an odd total, after one retry: its inner run fails.
        states.append(
          Action(name, isFinal: isLast) { (ledger: inout Ledger) async throws in
            if ledger.total & 1 != 0 { throw Declined() }
            script.ran(name)
            ledger.total = ledger.total &+ factor
          }
          .retry(1, backoff: .fixed(.seconds(15))).declaration)
      case 7 where nesting < 2:
        let (declaration, endsFlow) = try subflow(
          name, isLast: isLast, nesting: nesting + 1, mayFail: mayFail
        ) {
          try innerBlock(depth: depth + 1, nesting: nesting, ending: ending, mayFail: mayFail)
        }
        states.append(declaration)
        if endsFlow { return states }
      case 8 where depth < 2:
        let yes = try innerBlock(
          depth: depth + 1, nesting: nesting, ending: ending, mayFail: mayFail)
        let no = try innerBlock(
          depth: depth + 1, nesting: nesting, ending: ending, mayFail: mayFail)
        states.append(
          Condition(name) { (ledger: inout Ledger) async in
            script.ran(name)
            return ledger.total % 3 != 0
          } yes: {
            yes
          } no: {
            no
          }.declaration)
        return states
      case 10 where depth == 0:
        // A dispatch in an inner chart, whose branches hold no condition or dispatch of
        // their own.
        let count = Int.random(in: 2...3, using: &generator)
        let branches = try (0..<count).map { _ in
          try innerBlock(depth: 2, nesting: nesting, ending: .any, mayFail: false)
        }
        states.append(
          Dispatch(name, isFinal: isLast, merge: mergeLedgerWrapping) {
            for branch in branches { Branch { branch } }
          }.declaration)
      case 11 where nesting < 1:
        // A map inside an inner run (one level down only).
        states.append(
          try map(name, isLast: isLast, nesting: nesting + 1, mayFail: mayFail, failsRun: false))
      default:
        states.append(
          Action(name, isFinal: isLast) { ledger in
            script.ran(name)
            ledger.total = ledger.total &- factor
          }.declaration)
      }
    }
    return states
  }

  /// A subflow, `nesting` levels below the chart, whose exits' blocks `exits` makes; and
  /// whether it ends its flow (used as a condition or a keyed decision).
  func subflow(
    _ name: String, isLast: Bool, nesting: Int, mayFail: Bool,
    exits: () throws -> [Declaration<Ledger>]
  ) throws -> (Declaration<Ledger>, endsFlow: Bool) {
    // The whole ledger, or a copy on a total of its own whose changes are written back.
    let context: ContextMapping<Ledger, Ledger> =
      Bool.random(using: &generator)
      ? .whole
      : ContextMapping(
        enter: { Ledger(total: $0.total &* 3, notes: []) },
        leave: { outer, inner in
          outer.total = outer.total &+ inner.total
          outer.notes += inner.notes
        })
    let modified = Int.random(in: 0..<4, using: &generator) == 0
    let shape = Int.random(in: 0..<3, using: &generator)
    switch shape {
    case 1:
      let inner = try innerChart(nesting: nesting, ending: .decision, mayFail: mayFail)
      let yes = try exits()
      let no = try exits()
      let declaration = Subflow(name, running: inner, context: context) {
        yes
      } no: {
        no
      }
      return (modified ? retriedSubflow(declaration) : declaration.declaration, true)
    case 2:
      let inner = try innerChart(nesting: nesting, ending: .any, mayFail: mayFail)
      // A Case for some final states of the inner chart, a Default for the others.
      var finals: [String] = []
      for id in inner.states where inner[id].isFinal && inner[id].isTopLevel {
        if !finals.contains(inner[id].name) { finals.append(inner[id].name) }
      }
      var cases: [(String, [Declaration<Ledger>])] = []
      var others = false
      for final in finals {
        if Bool.random(using: &generator) {
          cases.append((final, try exits()))
        } else {
          others = true
        }
      }
      let fallback = others ? try exits() : []
      let declaration = Subflow(name, running: inner, context: context) {
        for (key, body) in cases { Case(key) { body } }
        if others { Default { fallback } }
      }
      return (modified ? retriedSubflow(declaration) : declaration.declaration, true)
    default:
      let inner = try innerChart(nesting: nesting, ending: .any, mayFail: mayFail)
      let declaration = Subflow(name, isFinal: isLast, running: inner, context: context)
      return (modified ? retriedSubflow(declaration) : declaration.declaration, false)
    }
  }

  /// A subflow with a retry (its inner run runs again after a failure).
  func retriedSubflow(_ subflow: Subflow<Ledger>) -> Declaration<Ledger> {
    subflow.retry(1, backoff: .fixed(.seconds(20))).declaration
  }

  /// A map over 0 to 4 ledgers made from the context, one to three at a time, whose
  /// element chart is `nesting` levels below the chart; its outputs (with their indices) are
  /// collected back into the context.
  func map(_ name: String, isLast: Bool, nesting: Int, mayFail: Bool, failsRun: Bool) throws
    -> Declaration<Ledger>
  {
    let count = Int.random(in: 0...4, using: &generator)
    let maxConcurrency = Int.random(in: 1...3, using: &generator)
    // The other elements of a map stopped by a failure are cancelled wherever the
    // scheduler has them, unless they run one at a time: such a failure must fail the run.
    let elementsMayFail = mayFail && (maxConcurrency == 1 || failsRun)
    if elementsMayFail, maxConcurrency > 1 { racingFailures.insert(name) }
    // A map may tolerate a failure of an element: a snapshot holds it as plain data.
    let tolerated = elementsMayFail && Bool.random(using: &generator) ? 1 : 0
    let inner = try innerChart(nesting: nesting, ending: .any, mayFail: elementsMayFail)
    return Map(
      name, isFinal: isLast,
      over: { ledger in (0..<count).map { Ledger(total: ledger.total &+ $0 &* 17, notes: []) } },
      running: inner, maxConcurrency: maxConcurrency, toleratedFailures: tolerated
    ) { ledger, results in
      ledger.total = results.outputs.reduce(ledger.total) { $0 &* 31 &+ $1.total }
      ledger.notes += results.outputs.flatMap(\.notes)
      ledger.notes.append("\(name) collected \(results.indices) of \(results.elementCount)")
      // A failure tolerated before a snapshot comes back with the same kind and message.
      for failure in results.failures {
        ledger.notes.append(
          "\(name) tolerated \(failure.index): \(failure.error.kind) \(failure.error.description)")
      }
    }.declaration
  }

  let declarations = try block(depth: 0)
  return RandomChart(
    chart: try Flowchart<Ledger> { declarations }, racingFailures: racingFailures)
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
/// on, unlike flow numbers); and, in the same order, how each map the flow ran ended (its
/// elements finished, failed and skipped: a resumed map counts the elements it found done).
/// A map's ending counts once the flow decided at the map or failed there: a map that a
/// cancelled run stops (the first run, once snapshotted) reports an ending too.
private struct FlowDecisions: Equatable, CustomStringConvertible {
  var byFlow: [String: [String]] = [:]
  /// Each branch flow's name, by flow number, in the run being read.
  var names: [Int: String] = [:]
  /// The ending of the map each flow stands at, until the flow decides or fails there.
  var mapEndings: [String: String] = [:]

  mutating func read(_ event: RunEvent) {
    let flow = event.flow == 0 ? "top" : names[event.flow, default: "flow \(event.flow)"]
    switch event.kind {
    case .branchStarted(let index): names[event.flow] = "\(event.stateName)#\(index)"
    case .mapEnded(let finished, let failed, let skipped):
      mapEndings[flow] = "\(event.stateName) ended \(finished) \(failed) \(skipped)"
    case .stateDecided(let decision):
      if let ending = mapEndings.removeValue(forKey: flow) {
        byFlow[flow, default: []].append(ending)
      }
      byFlow[flow, default: []].append("\(event.stateName) \(decision)")
    case .stateFailed(let error) where error.kind != .cancelled:
      if let ending = mapEndings.removeValue(forKey: flow) {
        byFlow[flow, default: []].append(ending)
      }
    default: break
    }
  }

  /// Starts reading another run (the resumed one): its flows are numbered anew.
  mutating func nextRun() {
    names = [:]
    mapEndings = [:]
  }

  static func == (left: FlowDecisions, right: FlowDecisions) -> Bool {
    left.byFlow == right.byFlow
  }

  var description: String { "\(byFlow.sorted { $0.key < $1.key })" }
}

/// How a driven run stopped.
private enum Stop: Sendable {
  /// It ran to its end: the chosen interruption never came.
  case ended
  /// It was snapshotted at the chosen interruption.
  case snapshot(RunSnapshot<Ledger>)
  /// It was interrupted, and the snapshot was refused (a branch failed while its dispatch
  /// runs on, or the run failed inside a dispatch's branches).
  case refused(SnapshotError)
}

/// Stops a run at its chosen interruption, once, whichever part of the test sees it first:
/// pauses the run (so that none of its flows goes on past the snapshot), snapshots it, and
/// cancels it, in a task of its own (a flow held at a sleep reports nothing the driver reads).
private final class Stopper: Sendable {
  private let task = Lock<Task<Stop, Never>?>(nil)

  /// Whether the run is being stopped: from then on, the driver sends and moves nothing.
  var isStopping: Bool { task.withLock { $0 != nil } }

  func stop(_ handle: RunHandle<Ledger>) {
    task.withLock { task in
      guard task == nil else { return }
      task = Task {
        handle.pause()
        let taken: Stop
        do throws(SnapshotError) {
          taken = .snapshot(try await handle.snapshot())
        } catch {
          taken = .refused(error)
        }
        handle.cancel()
        return taken
      }
    }
  }

  /// How the run stopped: `.ended` when it was never stopped.
  var stopped: Stop {
    get async {
      guard let task = task.withLock({ $0 }) else { return .ended }
      return await task.value
    }
  }
}

/// The sleeps on a run's clock (delays and backoffs, in every flow and inner run): each
/// moves the clock to its deadline at once, so no flow waits for the test, except the
/// `holdAt`-th, which stays asleep and calls `onHold`: the run is then snapshotted with that
/// flow standing at its delay or between two attempts, wherever it runs (an inner run
/// reports no events, so the clock is what sees it sleep). After the hold the clock moves
/// only short of the held deadline (to wake the sleepers that come due before it): a flow
/// whose deadline passed would not stand.
private final class Sleeps: Sendable {
  private struct State {
    var count = 0
    var holdAt: Int?
    var held: TestClock.Instant? = nil
    var onHold: (@Sendable () -> Void)? = nil
  }

  private let state: Lock<State>

  init(holdAt: Int? = nil) { state = Lock(State(holdAt: holdAt)) }

  /// How many sleeps there were (those on a deadline the clock had not reached).
  var count: Int { state.withLock { $0.count } }

  func onHold(_ action: (@Sendable () -> Void)?) { state.withLock { $0.onHold = action } }

  /// A flow is about to sleep on `clock` until `deadline`: moves the clock there, or holds
  /// the sleep and returns what to call.
  func willSleep(until deadline: TestClock.Instant, on clock: TestClock) -> (
    @Sendable () -> Void
  )? {
    state.withLock { state in
      guard clock.now < deadline else { return nil }
      if let held = state.held {
        if deadline < held { clock.advance(to: deadline) }
        return nil
      }
      state.count += 1
      if state.count == state.holdAt {
        state.held = deadline
        return state.onHold
      }
      clock.advance(to: deadline)
      return nil
    }
  }
}

/// A run's clock: a `TestClock` that a sleep moves to its deadline at once (see ``Sleeps``),
/// so that nothing waits for the test to move it, inner runs included.
private struct SteppingClock: WallClockMapping {
  let base: TestClock
  let sleeps: Sleeps

  init(_ base: TestClock = TestClock(), sleeps: Sleeps = Sleeps()) {
    self.base = base
    self.sleeps = sleeps
  }

  var now: TestClock.Instant { base.now }
  var minimumResolution: Swift.Duration { .zero }
  var wallClockNow: WallClockTime { base.wallClockNow }
  func instant(at time: WallClockTime) -> TestClock.Instant { base.instant(at: time) }

  func sleep(until deadline: TestClock.Instant, tolerance: Swift.Duration?) async throws {
    sleeps.willSleep(until: deadline, on: base)?()
    try await base.sleep(until: deadline, tolerance: tolerance)
  }
}

/// Drives a live run to its end, sending each waiting state its value (its clock moves by
/// itself); with a `stopper`, stops it at the first pause (a state's code paused it), at the
/// `parkAt`-th wait, or when its clock holds a sleep, and reads the rest of its events.
private func drive(
  _ handle: RunHandle<Ledger>, stopper: Stopper? = nil, parkAt: Int? = nil,
  decisions: inout FlowDecisions, waits: inout Int
) async -> Stop {
  var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
  // A test cancelled (past its time limit) cancels the run it drives, whose events then end,
  // instead of waiting for a run that waits for the test.
  return await withTaskCancellationHandler {
    handle.resume()
    while let event = await events.next() {
      decisions.read(event)
      if let stopper, stopper.isStopping { continue }
      switch event.kind {
      case .paused:
        stopper?.stop(handle)
      case .waitingForInput:
        waits += 1
        if let stopper, waits == parkAt {
          stopper.stop(handle)
          continue
        }
        // A branch that failed under `.all` ends the run, maybe before this event is read:
        // the value then has nowhere to go, and the run's failure is what the test compares.
        _ = try? handle.send(value(for: event.stateName), to: event.stateName)
      default: break
      }
    }
    return await stopper?.stopped ?? .ended
  } onCancel: {
    handle.cancel()
  }
}

/// How the run `handle` ended.
private func outcome(of handle: RunHandle<Ledger>) async -> Result<RunResult<Ledger>, RunError> {
  do {
    return .success(try await handle.result)
  } catch {
    return .failure(error)
  }
}

/// The suite's time limit: 10 minutes for `swift test`'s 1,000 seeds (45 to 60 seconds in
/// debug), and a minute more for every 1,000 seeds asked for, so that the documented
/// 100,000-seed command (43 minutes in release on a 2-core machine that was building other
/// code too) is not cut short on a busy machine.
private let resumeEquivalenceMinutes =
  10
  + (ProcessInfo.processInfo.environment["FLOWCHART_RANDOM_SEEDS"].flatMap { Int($0) } ?? 0)
  / 1_000

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
      try Task.checkCancellation()
      try await check(seed: seed, captured: &captured)
    }
    // Over many seeds, every kind of point is snapshotted and resumed, in the top-level flow
    // and in branches, inside subflows and maps too; some runs fail in a branch, and some
    // snapshots are refused.
    if Self.seeds.count >= 100 {
      for kind in [
        "entering", "waitingForInput", "waitingUntil", "betweenAttempts", "dispatching",
        "inSubflow", "inMap", "branch waitingForInput", "branch waitingUntil",
        "branch betweenAttempts", "branch dispatching", "branch finished", "branch inSubflow",
        "branch inMap", "subflow entering", "subflow waitingUntil", "subflow betweenAttempts",
        "subflow inSubflow", "map done", "map running", "map not started", "element entering",
        "element waitingUntil", "element betweenAttempts", "element inSubflow", "refused",
        "run failed in a dispatch",
      ] {
        #expect(captured[kind, default: 0] > 0, "no \(kind)")
      }
    }
  }

  /// The kind of a flow's position, for the counts of what was snapshotted.
  private static func kind(of flow: FlowSnapshot<Ledger>) -> String {
    if flow.nested != nil { return "inSubflow" }
    if flow.map != nil { return "inMap" }
    return switch flow.position {
    case .entering where flow.attempt > 1: "betweenAttempts"
    case .entering: "entering"
    case .waitingForInput: "waitingForInput"
    case .waitingUntil: "waitingUntil"
    case .dispatching: "dispatching"
    case .finished: "finished"
    case .notEntered: "notEntered"
    }
  }

  /// The kinds of the positions inside the subflow or the map a flow stands in: "subflow
  /// waitingUntil" for a subflow's inner run at a delay, "element betweenAttempts" for a
  /// map's running element between two attempts, "map not started" for a map with elements
  /// not started, and so on (a subflow inside an inner run counts as the inner run's
  /// "inSubflow", and its own inner run as a subflow's).
  private static func innerKinds(of flow: FlowSnapshot<Ledger>) -> Set<String> {
    var kinds: Set<String> = []
    func add(_ run: NestedSnapshot, as prefix: String) {
      switch run.position {
      case .waitingUntil: kinds.insert("\(prefix) waitingUntil")
      case .entering where run.inner != nil: kinds.insert("\(prefix) inSubflow")
      case .entering where run.attempt > 1: kinds.insert("\(prefix) betweenAttempts")
      case .entering: kinds.insert("\(prefix) entering")
      case .waitingForInput, .dispatching, .finished, .notEntered:
        kinds.insert("\(prefix) unexpected")
      }
      if let inner = run.inner { add(inner, as: "subflow") }
    }
    if let nested = flow.nested { add(nested, as: "subflow") }
    if let map = flow.map {
      if !map.done.isEmpty { kinds.insert("map done") }
      if !map.running.isEmpty { kinds.insert("map running") }
      if map.done.count + map.running.count < map.elements { kinds.insert("map not started") }
      for (_, run) in map.running { add(run, as: "element") }
    }
    return kinds
  }

  private func check(seed: UInt64, captured: inout [String: Int]) async throws {
    let alone = Script(pauseAfter: nil)
    let generated = try randomChart(seed: seed, script: alone)
    if ProcessInfo.processInfo.environment["FLOWCHART_RANDOM_TREE"] == "1" {
      var tree = ""
      generated.chart.printTree(to: &tree, expandingSubflows: true)
      print(tree)
    }
    let sleeps = Sleeps()
    let handle = generated.chart.start(
      with: Ledger(), clock: SteppingClock(sleeps: sleeps), isPaused: true)
    var expectedDecisions = FlowDecisions()
    var waits = 0
    _ = await drive(handle, decisions: &expectedDecisions, waits: &waits)
    let expected = await outcome(of: handle)
    // A cancelled test's runs were cancelled: nothing to compare.
    try Task.checkCancellation()
    let executed = alone.executed
    // A run that fails inside a dispatch, or at a map whose elements run concurrently,
    // cancels the other branches or elements wherever they stand: what they ran and decided
    // is the scheduler's, and only the failure and the top-level flow's decisions are the
    // same in every run.
    var failedInDispatch = false
    if case .failure(let error) = expected, generated.racingFailures.contains(error.stateName) {
      failedInDispatch = true
      captured["run failed in a dispatch", default: 0] += 1
    }
    // Paused after each state's code (the boundary after it, in any flow or inner run),
    // parked at each wait, then held at each sleep: at a delay or between the two attempts
    // of a retried state, in any flow or inner run.
    let interruptions: [(pauseAfter: Int?, parkAt: Int?, holdAt: Int?)] =
      executed.indices.map { ($0 + 1, nil, nil) }
      + (0..<waits).map { (nil, $0 + 1, nil) }
      + (0..<sleeps.count).map { (nil, nil, $0 + 1) }
    for interruption in interruptions {
      try Task.checkCancellation()
      let script = Script(pauseAfter: interruption.pauseAfter)
      let chart = try randomChart(seed: seed, script: script).chart
      let firstSleeps = Sleeps(holdAt: interruption.holdAt)
      let firstClock = SteppingClock(sleeps: firstSleeps)
      let first = chart.start(with: Ledger(), clock: firstClock, isPaused: true)
      let stopper = Stopper()
      script.attach(first, stopper: stopper)
      firstSleeps.onHold { stopper.stop(first) }
      // The run holds the script (its states' code) and the sleeps (its clock), which hold
      // its handle: let go of it once this interruption is done, or every run stays in memory.
      defer {
        script.detach()
        firstSleeps.onHold(nil)
      }
      var decisions = FlowDecisions()
      var firstWaits = 0
      let snapshot: RunSnapshot<Ledger>
      switch await drive(
        first, stopper: stopper, parkAt: interruption.parkAt, decisions: &decisions,
        waits: &firstWaits)
      {
      case .ended:
        // The run ended first: the pause came with its last state, or the scheduler let
        // fewer flows sleep (a deadline another flow's sleep had passed).
        continue
      case .refused(let error):
        // A branch failed while its dispatch runs on, or the run failed in a branch: the
        // error names the dispatch, and nothing is resumed.
        #expect(error.reason.contains("dispatch '"), "seed \(seed), \(interruption): \(error)")
        captured["refused", default: 0] += 1
        continue
      case .snapshot(let taken):
        // The run failed while it was being stopped (a state's attempt under way failed
        // for good): resuming it would retry the failed state, which is not this test's.
        if case .failed = taken.status { continue }
        snapshot = taken
      }
      decisions.nextRun()
      captured[Self.kind(of: snapshot.flows[0]), default: 0] += 1
      for kind in Self.innerKinds(of: snapshot.flows[0]) { captured[kind, default: 0] += 1 }
      for branch in snapshot.flows.dropFirst() {
        captured["branch \(Self.kind(of: branch))", default: 0] += 1
        for kind in Self.innerKinds(of: branch) { captured[kind, default: 0] += 1 }
      }
      // Another process, later: on the first run's wall-clock time, or past every delay's
      // and backoff's deadline.
      let clock = SteppingClock(
        TestClock(
          wallClockStart: firstClock.wallClockNow.advanced(by: .seconds(seed % 2 == 0 ? 0 : 120))
        ))
      let context = "seed \(seed), \(interruption), at \(snapshot.position ?? "-")"
      let decoded: RunSnapshot<Ledger>
      do {
        decoded = try roundTrip(snapshot)
      } catch {
        Issue.record("\(context): the snapshot does not decode: \(error)")
        continue
      }
      let resumed = try chart.start(resuming: decoded, clock: clock, isPaused: true)
      var resumedWaits = 0
      _ = await drive(resumed, decisions: &decisions, waits: &resumedWaits)
      let result = await outcome(of: resumed)
      try Task.checkCancellation()
      switch (expected, result) {
      case (.success(let expected), .success(let result)):
        // Each state's code ran once, in one run or the other (concurrent branches and
        // elements in the scheduler's order).
        #expect(script.executed.sorted() == executed.sorted(), "\(context)")
        #expect(decisions == expectedDecisions, "\(context)")
        #expect(result.pathNames == expected.pathNames, "\(context)")
        #expect(result.stepCount == expected.stepCount, "\(context)")
        #expect(result.decision == expected.decision, "\(context)")
        // With what each map collected: its outputs, their indices, and their count.
        #expect(result.context == expected.context, "\(context)")
        if script.executed.sorted() != executed.sorted() || result.context != expected.context {
          return
        }
      case (.failure(let expected), .failure(let error)):
        #expect(error.kind == expected.kind, "\(context)")
        #expect(error.stateName == expected.stateName, "\(context)")
        if failedInDispatch {
          // (How a map stopped by the failure counts its elements is the scheduler's too.)
          func decided(_ decisions: FlowDecisions) -> [String] {
            decisions.byFlow["top", default: []].filter { !$0.contains(" ended ") }
          }
          #expect(decided(decisions) == decided(expectedDecisions), "\(context)")
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
