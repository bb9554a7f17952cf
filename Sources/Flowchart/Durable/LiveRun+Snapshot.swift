// Capturing a live run: `RunHandle.snapshot()`.
//
// A snapshot is taken at a boundary (see `Cursor.swift`), where a flow's whole position is
// its cursor and its context. Where the top-level flow stands decides how:
// - held at its start (started paused): the start kept by `keepStart(_:)`;
// - parked at a waiting state: the parked flow's cursor and context (`TopLevelFlow`); at a
//   delay, with the deadline the run's state machine keeps (`delays[0]`);
// - waiting at a boundary while the run is paused: what the flow left there as it began to
//   wait (`reachedBoundary(_:)`, called by `Interpreter.waitWhilePaused`);
// - ended: its result, or the resume point a retry would start from;
// - running: the request waits. It raises the paused flag of the top-level flow's control
//   only (not the run's pause mark: nothing is reported, and `isPaused` stays `false`), so
//   the flow stops at its next boundary as a paused one would, leaves its position, and
//   the request, served under the run's lock, lowers the flag again unless the run was
//   paused meanwhile. The flow's `pause wait` then finds the run not paused and goes on at
//   once. A state whose code is running finishes first (and a dispatch joins first: its
//   branches' controls are not held), so a snapshot never interrupts a state's code.
//
// Everything here runs only when a snapshot is asked for, or at a pause wait: a run that
// is never snapshotted pays one `nil` check per pause wait, and nothing per state.

/// What a live run keeps for snapshots, under its lock. Not generic, like the rest of the
/// locked state: the generic parts are boxed (`CapturedFlow` values).
struct SnapshotRequests {
  /// The snapshot requests waiting for the top-level flow's next boundary; each is resumed
  /// with the ``CapturedRun`` taken there, or `nil` when the run ended first.
  var waiters: [CheckedContinuation<(any Sendable)?, Never>] = []
  /// The top-level flow's position while it waits at a boundary of a paused run.
  var boundary: (any Sendable)? = nil
  /// The top-level flow's position while the run is held at its start.
  var start: (any Sendable)? = nil
  /// The run's id, once it is given or first asked for.
  var id: RunID? = nil
  /// The identity of the run's chart, as its owner gave it.
  var chart = ""
}

/// Where the top-level flow stands, with state numbers: what a snapshot is made from.
struct CapturedFlow<Context: Sendable>: Sendable {
  enum Position: Sendable {
    case entering, waitingForInput
    /// Entered a delay, and waits until the wall-clock instant.
    case waitingUntil(WallClockTime)
    /// Between two attempts of a retried state it entered: attempt `attempt` runs next,
    /// once the backoff's wall-clock deadline has passed.
    case retrying(attempt: Int, until: WallClockTime)
    case finished(Decision)
    case notEntered
  }

  var position: Position
  var state: Int32
  var context: Context
  var path: [Int32]
  var stepCount: Int
  var stepLimit: Int

  /// The flow at a boundary or parked: at `state` (to enter, or entered when parked).
  init(_ position: Position, at state: Int32, path: borrowing PathRecorder, context: Context) {
    self.position = position
    self.state = state
    self.context = context
    self.path = path.states
    stepCount = path.count
    stepLimit = path.limit
  }

  init(
    _ position: Position, at state: Int32, context: Context, path: [Int32], stepCount: Int,
    stepLimit: Int
  ) {
    self.position = position
    self.state = state
    self.context = context
    self.path = path
    self.stepCount = stepCount
    self.stepLimit = stepLimit
  }
}

/// A live run captured under its lock: its flow, its mailbox and its status.
struct CapturedRun<Context: Sendable>: Sendable {
  var flow: CapturedFlow<Context>
  var mailbox: [(state: Int32, value: any Sendable)]
  var status: RunStatus
  var id: RunID
  var chart: String
}

/// Why ``RunHandle/snapshot()`` could not capture the run.
public struct SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A full sentence: what is wrong and what to do.
  public let reason: String

  /// The reason.
  public var description: String { reason }
}

extension RunHandle {
  /// A snapshot of the run at a state boundary, to save and resume later, here or in
  /// another process (see ``RunSnapshot``).
  ///
  /// A run that stands at a boundary is captured at once: held at its start, paused,
  /// waiting for input or for a delay's deadline at its top level (parked; a delay's
  /// snapshot keeps its deadline), failed, cancelled, or finished. A running
  /// run is held at its next boundary, captured there, and let go on (unless it was paused
  /// meanwhile): nothing is reported, and the run goes on as it would have. The state whose
  /// code is running finishes first, its exit taken; a dispatch that is running joins its
  /// branches first. So the call waits as long as that state takes (a state that waits for
  /// input in its task, such as a waiting state with a timeout, until its value comes).
  /// A run between two attempts of a retried state (in its backoff delay, or paused
  /// there) is captured at once, with the attempt that runs next and the backoff's deadline.
  ///
  /// A failed or cancelled run is captured where a retry starts: at the state that failed,
  /// with the context from before it (see ``retry(clock:isPaused:isLogged:observer:updating:isolation:)``).
  ///
  /// - Returns: The snapshot, whose ``RunSnapshot/status`` says where the run stood.
  /// - Throws: A ``SnapshotError`` when the run failed before it entered a state, or failed
  ///   inside a dispatch's branches (format 1 holds the top-level flow only: retry such a
  ///   run with ``retry(clock:isPaused:isLogged:observer:updating:isolation:)``).
  public func snapshot() async throws(SnapshotError) -> RunSnapshot<Context> {
    try await run.snapshot()
  }

  /// The run's id: the one it was started or resumed with, or one made when first asked
  /// for, which every later snapshot of the run keeps.
  public var runID: RunID { run.runID }
}

extension LiveRun {
  /// The run's id, made on first use.
  var runID: RunID {
    state.withLock { locked in
      if let id = locked.snapshots.id { return id }
      let id = RunID()
      locked.snapshots.id = id
      return id
    }
  }

  /// Gives the run its id and its chart's identity, before anyone can ask for them.
  func identify(id: RunID?, chart: String) {
    state.withLock { locked in
      if let id { locked.snapshots.id = id }
      locked.snapshots.chart = chart
    }
  }

  /// Keeps where a run held at its start stands: what a snapshot of it holds.
  func keepStart(_ flow: CapturedFlow<Context>) {
    state.withLock { $0.snapshots.start = flow }
  }

  /// The top-level flow's control: the one that parks.
  private static func topControl(in locked: LiveRunState) -> RunControl? {
    locked.controls.first { $0.flags.contains(.parks) }
  }

  /// The run's mailbox, id and chart with `flow` and `status`, under the lock.
  private func captured(
    _ flow: CapturedFlow<Context>, status: RunStatus, in locked: inout LiveRunState
  ) -> CapturedRun<Context> {
    let id = locked.snapshots.id ?? RunID()
    locked.snapshots.id = id
    let mailbox = locked.machine.mailbox.map { (state: $0.key, value: $0.value) }
    return CapturedRun(
      flow: flow, mailbox: mailbox, status: status, id: id, chart: locked.snapshots.chart)
  }

  /// The top-level flow reached a boundary of a paused (or held) run, at `flow`: keeps it,
  /// and serves the snapshot requests waiting for it.
  func reachedBoundary(_ flow: CapturedFlow<Context>) {
    let (waiters, run) = state.withLock {
      locked -> ([CheckedContinuation<(any Sendable)?, Never>], CapturedRun<Context>?) in
      locked.snapshots.boundary = flow
      guard !locked.snapshots.waiters.isEmpty else { return ([], nil) }
      let paused = locked.machine.isPaused
      let run = captured(flow, status: paused ? .paused : .running, in: &locked)
      if !paused { Self.topControl(in: locked)?.setPaused(false) }
      defer { locked.snapshots.waiters = [] }
      return (locked.snapshots.waiters, run)
    }
    for waiter in waiters { waiter.resume(returning: run) }
  }

  /// The top-level flow left the boundary it waited at.
  func leftBoundary() {
    state.withLock { $0.snapshots.boundary = nil }
  }

  /// The top-level flow parked: serves the snapshot requests waiting, if it is still parked.
  func servedParked() {
    let (waiters, run) = state.withLock {
      locked -> ([CheckedContinuation<(any Sendable)?, Never>], CapturedRun<Context>?) in
      guard !locked.snapshots.waiters.isEmpty, let run = parkedCapture(in: &locked) else {
        return ([], nil)
      }
      if !locked.machine.isPaused { Self.topControl(in: locked)?.setPaused(false) }
      defer { locked.snapshots.waiters = [] }
      return (locked.snapshots.waiters, run)
    }
    for waiter in waiters { waiter.resume(returning: run) }
  }

  /// The parked flow's position, when the flow is parked: at a waiting state, or at a
  /// delay with its deadline (kept in the machine's `delays`, even once due while the run
  /// is paused: a resumed run then goes on at once).
  private func parkedCapture(in locked: inout LiveRunState) -> CapturedRun<Context>? {
    guard case .parked(let state) = locked.machine.phase, let held = locked.machine.parkedFlow
    else { return nil }
    let name = graph.records[Int(state)].name
    if let delay = locked.machine.delays[0], delay.state == state {
      guard let flow = (held as? TopLevelFlow<Context>)?.captured(.waitingUntil(delay.until))
      else { return nil }
      return captured(flow, status: .waitingUntil(delay.until, state: name), in: &locked)
    }
    guard let flow = (held as? TopLevelFlow<Context>)?.captured(.waitingForInput) else {
      return nil
    }
    return captured(flow, status: .waitingForInput(state: name), in: &locked)
  }

  /// The run ended: the snapshot requests waiting get `nil`, and make the snapshot from the
  /// run's end.
  func endedForSnapshots(in locked: inout LiveRunState)
    -> [CheckedContinuation<(any Sendable)?, Never>]
  {
    locked.snapshots.boundary = nil
    locked.snapshots.start = nil
    defer { locked.snapshots.waiters = [] }
    return locked.snapshots.waiters
  }

  /// ``RunHandle/snapshot()``.
  func snapshot() async throws(SnapshotError) -> RunSnapshot<Context> {
    // A run that stands at a boundary (parked, held, paused there, ended) is captured at
    // once, without suspending the caller: a continuation resumed at once would still send
    // the caller's task through its executor's queue, which cost more than the capture.
    switch state.withLock({ capturedNow(in: &$0) }) {
    case .captured(let run): return makeSnapshot(run)
    case .ended: return makeSnapshot(try endedCapture(await result()))
    case .moving: break
    }
    let served = await withCheckedContinuation {
      (continuation: CheckedContinuation<(any Sendable)?, Never>) in
      let now = state.withLock { locked -> (any Sendable)?? in
        switch capturedNow(in: &locked) {
        case .captured(let run): return .some(run)
        case .ended: return .some(nil)
        case .moving: break
        }
        locked.snapshots.waiters.append(continuation)
        Self.topControl(in: locked)?.setPaused(true)
        return nil
      }
      if let now { continuation.resume(returning: now) }
    }
    if let run = served as? CapturedRun<Context> { return makeSnapshot(run) }
    return makeSnapshot(try endedCapture(await result()))
  }

  /// Where the run stands now, for a snapshot: captured when it stands at a boundary.
  private enum Standing {
    case captured(CapturedRun<Context>)
    /// The run ended: its snapshot is made from its result.
    case ended
    /// The run is between two boundaries: a snapshot waits for the next.
    case moving
  }

  /// The run captured, if it stands at a boundary now; under the lock.
  private func capturedNow(in locked: inout LiveRunState) -> Standing {
    switch locked.machine.phase {
    case .ended: return .ended
    case .parked: return parkedCapture(in: &locked).map(Standing.captured) ?? .moving
    case .held:
      if let start = locked.snapshots.start as? CapturedFlow<Context> {
        return .captured(captured(start, status: .paused, in: &locked))
      }
    case .running, .unwinding:
      if let boundary = locked.snapshots.boundary as? CapturedFlow<Context> {
        let status: RunStatus = locked.machine.isPaused ? .paused : .running
        return .captured(captured(boundary, status: status, in: &locked))
      }
    }
    return .moving
  }

  /// The run, once it has ended, as a snapshot holds it.
  ///
  /// `ended` is the run's result as ``result()`` gives it: the run's state machine marks the
  /// run ended under its lock before `finish(_:)` stores the result for its waiters, so a
  /// snapshot that finds the run ended waits (briefly) for that result rather than read it.
  private func endedCapture(
    _ ended: Result<RunResult<Context>, RunError>
  ) throws(SnapshotError) -> CapturedRun<Context> {
    let (id, chart, mailbox) = state.withLock { locked in
      let id = locked.snapshots.id ?? RunID()
      locked.snapshots.id = id
      return (
        id, locked.snapshots.chart,
        locked.machine.mailbox.map { (state: $0.key, value: $0.value) }
      )
    }
    switch ended {
    case .success(let result):
      let flow = CapturedFlow(
        .finished(result.decision), at: Int32(result.finalState.index), context: result.context,
        path: result.path.map { Int32($0.index) }, stepCount: result.stepCount,
        stepLimit: .max)
      return CapturedRun(flow: flow, mailbox: mailbox, status: .finished, id: id, chart: chart)
    case .failure(let error):
      let stopped = resumePoints.run
      guard let point = stopped.point else {
        throw SnapshotError(
          reason:
            "The run failed before it entered a state (\(error.reason)), so there is no position to keep: start it again."
        )
      }
      guard point.dispatch == nil else {
        let name = graph.records[Int(point.state)].name
        throw SnapshotError(
          reason:
            "The run failed inside the branches of dispatch \(DisplayText.quoted(name: name)), and a snapshot (format 1) holds the top-level flow only: retry the run with `retry()`."
        )
      }
      let (limit, overflow) = point.path.count.addingReportingOverflow(stopped.stepLimit)
      let flow = CapturedFlow(
        .entering, at: point.state, context: point.context, path: point.path.states,
        stepCount: point.path.count, stepLimit: overflow ? .max : limit)
      let status: RunStatus =
        error.kind == .cancelled
        ? .cancelled
        : .failed(state: error.state.map { graph.records[$0.index].name }, reason: error.reason)
      return CapturedRun(flow: flow, mailbox: mailbox, status: status, id: id, chart: chart)
    }
  }

  /// The snapshot of a captured run: its positions named by their keys.
  func makeSnapshot(_ run: CapturedRun<Context>) -> RunSnapshot<Context> {
    let structure = graph.structure
    let keys = structure.keys
    var shapes: [String: StateShape] = [:]
    func key(_ state: Int32) -> String {
      let key = keys[Int(state)]
      shapes[key] = structure.shapes[Int(state)]
      return key
    }
    let flow = run.flow
    let position: SnapshotPosition =
      switch flow.position {
      case .entering: .entering(key(flow.state))
      case .waitingForInput: .waitingForInput(key(flow.state))
      case .waitingUntil: .waitingUntil(key(flow.state))
      case .retrying: .entering(key(flow.state))
      case .finished(let decision): .finished(key(flow.state), decision)
      case .notEntered: .notEntered
      }
    let (attempt, deadline): (Int, WallClockTime?) =
      switch flow.position {
      case .waitingUntil(let deadline): (1, deadline)
      case .retrying(let attempt, let deadline): (attempt, deadline)
      case .entering, .waitingForInput, .finished, .notEntered: (1, nil)
      }

    let mailbox = run.mailbox.sorted { $0.state < $1.state }.map {
      MailboxEntry(state: key($0.state), value: .live($0.value))
    }
    return RunSnapshot(
      id: run.id, chart: run.chart, fingerprint: structure.fingerprint, status: run.status,
      updated: wallClockNow(), stepLimit: flow.stepLimit,
      flows: [
        FlowSnapshot(
          flow: 0, position: position, context: flow.context,
          path: flow.path.map { keys[Int($0)] }, stepCount: flow.stepCount, attempt: attempt,
          deadline: deadline)
      ],
      mailbox: mailbox, shapes: shapes)
  }
}

extension TopLevelFlow {
  /// The parked flow's position: at the waiting state or the delay it entered.
  func captured(_ position: CapturedFlow<Context>.Position) -> CapturedFlow<Context>? {
    withParked { cursor, context in
      CapturedFlow(position, at: cursor.state, path: cursor.path, context: context)
    }
  }
}

extension Interpreter {
  /// The top-level flow of a live run is about to wait at the boundary before `state` while
  /// the run is paused (or held for a snapshot): leaves its position with the run. Only on
  /// a pause wait's path.
  @usableFromInline @inline(never)
  func leavePosition(
    before state: Int32, path: borrowing PathRecorder, context: borrowing Context,
    control: RunControl
  ) -> Bool {
    guard let live = control.monitor as? LiveRun<Context>, control.flags.contains(.parks) else {
      return false
    }
    live.reachedBoundary(CapturedFlow(.entering, at: state, path: path, context: copy context))
    return true
  }

  /// The top-level flow of a live run is between two attempts of `state`, before attempt
  /// `attempt`, whose backoff ends at `deadline`: leaves its position with the run (the
  /// context from before the state). Only on a retry's path.
  @inline(never)
  func leaveRetryPosition(
    at state: Int32, attempt: Int, until deadline: WallClockTime, path: borrowing PathRecorder,
    context: Context, control: RunControl
  ) -> Bool {
    guard let live = control.monitor as? LiveRun<Context>, control.flags.contains(.parks) else {
      return false
    }
    live.reachedBoundary(
      CapturedFlow(
        .retrying(attempt: attempt, until: deadline), at: state, path: path, context: context))
    return true
  }

  /// The top-level flow went on from the boundary where it left its position.
  @usableFromInline @inline(never)
  func tookPosition(control: RunControl) {
    (control.monitor as? LiveRun<Context>)?.leftBoundary()
  }
}
