// Capturing a live run: `RunHandle.snapshot()`.
//
// A snapshot is taken at a boundary (see `Cursor.swift`), where a flow's whole position is
// its cursor and its context. Where the top-level flow stands decides how:
// - held at its start (started paused, or resumed paused): the start kept by `keepStart`;
// - parked at a waiting state: the parked flow's cursor and context (`TopLevelFlow`); at a
//   delay, with the deadline the run's state machine keeps (`delays[0]`);
// - ended: its result, or the resume point a retry would start from;
// - anywhere else: the run is captured as a barrier, when every flow stands (below).
//
// The barrier. The run's flows are the top-level flow and, while it stands in a dispatch,
// that dispatch's branches (and, recursively, the branches of a dispatch a branch stands
// in). A flow stands when it waits at a boundary (`boundaries`: what it left there as it
// began to wait, in `Interpreter.waitWhilePaused`), or waits in its task for input or for
// a delay's deadline at a state it entered (`waiting`, with the machine's input waiter or
// delay), or stands in a running dispatch each of whose branches stands, has finished
// (`BranchEnds`), or has not started, at least one of them not finished (a dispatch whose
// branches all finished joins: its flow stands at its next boundary). A request that finds
// the run standing is served at once; otherwise it raises the paused flag of every control
// of the run (not the run's pause mark: nothing is reported, `isPaused` stays `false`), so
// that each flow stops at its next boundary, and every event that may complete the barrier
// (a flow reaching a boundary, a wait or a delay beginning in a task, a branch finishing or
// failing, the top-level flow parking) checks it again under the run's lock. Flows that
// reach a boundary meanwhile are held there (`holders`) until the barrier completes. Then
// the run is captured, the flags are lowered unless the run was paused meanwhile, and the
// held flows go on as they would have. A state whose code is running finishes first, its
// exit taken (a map that cannot be held is one state of its flow, so the barrier waits for
// it; see `MapRun+Nested.swift`), so a snapshot
// never interrupts a state's code. A flow in a subflow stands when the subflow's inner run
// does (`nested`, see `NestedRun.swift`: by the same rule, `StandingFlows.of`, over its own
// flows and the branches of its dispatch); a subflow that cannot be held that way is one
// state of its flow, which the barrier waits for.
//
// A flow takes back a position it left in the same lock section in which it is let go on
// (it finds the run not paused, `resume()` wakes it, or its backoff ended and the run is not
// paused): a snapshot of a paused run never holds a flow where it stood while the flow goes
// on past it.
//
// Everything here runs only when a snapshot is asked for, at a pause wait, when a flow of a
// live run waits in its task, and once per dispatch of a live run (its registration): a run
// that is never snapshotted pays one `nil` check per pause wait, and nothing per state.

/// What a live run keeps for snapshots, under its lock. Not generic, like the rest of the
/// locked state: the generic parts are boxed (`CapturedFlow` values).
struct SnapshotRequests {
  /// The snapshot requests waiting for the run's flows to stand; each is resumed with the
  /// ``CapturedRun`` taken then, a ``SnapshotError``, or `nil` when the run ended first.
  var waiters: [CheckedContinuation<(any Sendable)?, Never>] = []
  /// Each flow's position while it waits at a boundary (`CapturedFlow` values), by flow.
  var boundaries: [Int32: any Sendable] = [:]
  /// Each flow's position while it runs a waiting state or a delay it entered in its task
  /// (`CapturedFlow` values, with the context from before the state), by flow.
  var waiting: [Int32: any Sendable] = [:]
  /// How each flow that waits paused, having left its position, takes it back (under the
  /// lock, once it runs again, or before a snapshot reads the positions: see
  /// ``LiveRunState/takeBackWokenPositions()``), by pause wait.
  var pauseWaits: [Int: PositionTakeBack] = [:]
  /// The flows held at a boundary until the barrier completes, by flow.
  var holders: [Int32: CheckedContinuation<Void, Never>] = [:]
  /// The running dispatches of the run (`RunningDispatch` values), in the order they
  /// started.
  var dispatches: [any AnyObject & Sendable] = []
  /// Each running branch's dispatch (its state and the flow that runs it) and index, by
  /// the branch's flow.
  var branches: [Int32: (parent: Int32, dispatch: Int32, index: Int)] = [:]
  /// The flows held inside subflows (their inner runs' flows), until the barrier
  /// completes, by inner run and flow (see `NestedRun.swift`).
  var innerHolders: [InnerFlowKey: CheckedContinuation<Void, Never>] = [:]
  /// The inner run of the subflow each flow stands in, with the flow's position there (a
  /// `CapturedFlow` value), by flow (see `NestedRun.swift`).
  var nested: [Int32: (run: any StandingSubflow, position: any Sendable)] = [:]
  /// The flows of a run held at its start (`CapturedEntry` values).
  var start: (any Sendable)? = nil
  /// The run's id, once it is given or first asked for.
  var id: RunID? = nil
  /// The identity of the run's chart, as its owner gave it.
  var chart = ""
}

/// How a flow that left its position with a live run (or a subflow's inner run in one)
/// takes it back, under the live run's lock: in the same lock section in which it is let go
/// on, so that no snapshot finds it standing where it no longer stands.
typealias PositionTakeBack = @Sendable (inout LiveRunState) -> Void

extension LiveRunState {
  /// Flow `flow` went on from the boundary, or the waiting state, where it left its
  /// position.
  mutating func tookBackPosition(flow: Int32) {
    snapshots.boundaries[flow] = nil
    snapshots.waiting[flow] = nil
  }

  /// Takes back the positions left by the flows whose pause waits ended: called first by
  /// every section that reads the flows' positions for a snapshot.
  ///
  /// A flow that ``RunHandle/resume()`` wakes takes back the position it left in the lock
  /// section that lets it go on (see `LiveRun.wait`), on its own thread, once it runs:
  /// `resume()` only marks its wait woken. Taking every position back in `resume()`'s lock
  /// section instead (removing each from its tables, on memory the flow's thread wrote)
  /// was about 400 of the 700 ns that `resume()` spent under the lock before it woke the
  /// flow (BENCHMARKS.md, "Pause → resume"). Between the two, the position is stale: so a
  /// snapshot takes it back here first, and never finds a woken flow standing where it no
  /// longer stands.
  mutating func takeBackWokenPositions() {
    guard !snapshots.pauseWaits.isEmpty else { return }
    let ended = snapshots.pauseWaits.filter { machine.waits[$0.key] != .paused }
    for (wait, takingBack) in ended {
      snapshots.pauseWaits[wait] = nil
      takingBack(&self)
    }
  }
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
  /// code is running finishes first, its exit taken: a snapshot never interrupts a state's
  /// code. So the call waits as long as that state takes (a map that cannot be held, see
  /// below, until its elements end; a state that waits for input in its task, such as a
  /// waiting state with a timeout, until its value comes). A flow that stands in a subflow is captured inside it: the subflow's
  /// inner run is held at its next boundary the same way (or captured at a delay, with its
  /// deadline, between two attempts, in a subflow of its own, or in a dispatch of its chart,
  /// each branch captured as a dispatch branch of the run is), when the subflow's chart is
  /// asynchronous, its inner context is `Codable`, and the subflow has no modifiers; any
  /// other subflow is one state that the call waits for. A flow that stands in an
  /// asynchronous map of `Codable` elements, with no modifiers, in one of the run's own
  /// flows, is captured inside it: the outputs of the
  /// elements done, each running element's run held like a subflow's inner run, and the
  /// elements not started; a map that tolerated a failure, and any other map, is waited
  /// for. A run between two attempts of a retried state (in its
  /// backoff delay, or paused there) is captured at once, with the attempt that runs next
  /// and the backoff's deadline.
  ///
  /// A run standing in a dispatch is captured as a barrier: each branch is held at its
  /// next boundary (one whose state's code runs finishes that state first) until every
  /// branch stands there, waits for input or a delay in its task, is between two attempts,
  /// stands in a dispatch of its own (captured the same way), or has finished (its result
  /// kept for the join, with its decision); then the run is captured, in format 2, and
  /// every flow is let go on. A paused run, or one whose branches all wait, is captured as
  /// soon as every flow stands.
  ///
  /// A failed or cancelled run is captured where a retry starts: at the state that failed,
  /// with the context from before it (see ``retry(clock:isPaused:isLogged:observer:updating:isolation:)``).
  ///
  /// - Returns: The snapshot, whose ``RunSnapshot/status`` says where the run stood.
  /// - Throws: A ``SnapshotError`` when the run failed before it entered a state, failed
  ///   inside a dispatch's branches (retry such a run with
  ///   ``retry(clock:isPaused:isLogged:observer:updating:isolation:)``), or stands in a
  ///   dispatch one of whose branches failed while the dispatch runs on (its join policy
  ///   tolerates the failure: take the snapshot once the dispatch has joined). The error
  ///   names the dispatch.
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
    keepStart([CapturedEntry(flow: flow, parent: nil, branch: 0)])
  }

  /// Keeps where the flows of a run held at its start stand (a run resumed from a snapshot
  /// of several flows).
  func keepStart(_ flows: [CapturedEntry<Context>]) {
    state.withLock { $0.snapshots.start = flows }
  }

  /// The run's mailbox, id and chart with `flows` and `status`, under the lock.
  private func captured(
    _ flows: [CapturedEntry<Context>], status: RunStatus, in locked: inout LiveRunState
  ) -> CapturedRun<Context> {
    let id = locked.snapshots.id ?? RunID()
    locked.snapshots.id = id
    let mailbox = locked.machine.mailbox.map { (state: $0.key, value: $0.value) }
    return CapturedRun(
      flows: flows, mailbox: mailbox, status: status, id: id, chart: locked.snapshots.chart)
  }

  private func captured(
    _ flow: CapturedFlow<Context>, status: RunStatus, in locked: inout LiveRunState
  ) -> CapturedRun<Context> {
    captured([CapturedEntry(flow: flow, parent: nil, branch: 0)], status: status, in: &locked)
  }

  // MARK: - Flows that stand

  /// Flow `flow` reached a boundary of a paused run, or one held for a snapshot, at
  /// `position`: keeps it, and serves the snapshot requests if the run now stands.
  func reachedBoundary(_ position: CapturedFlow<Context>, flow: Int32) {
    let served = state.withLock { locked -> Served? in
      locked.snapshots.boundaries[flow] = position
      return serveIfStanding(in: &locked)
    }
    served?.perform()
  }

  /// Holds flow `flow`, which left its position at a boundary, until the snapshot asked for
  /// is taken: at once when none is asked for, or the run is paused (the flow then waits
  /// as a paused one), or the task is cancelled.
  func holdForSnapshot(flow: Int32) async {
    await holdForSnapshot(in: \.holders, key: flow)
  }

  /// Holds a flow under `key` in the table `holders` of the run's snapshot requests until
  /// the snapshot asked for is taken, as ``holdForSnapshot(flow:)`` describes: the run's
  /// own flows by flow number, a subflow's or a map's inner flows by their inner run.
  func holdForSnapshot<Key: Hashable & Sendable>(
    in holders: WritableKeyPath<SnapshotRequests, [Key: CheckedContinuation<Void, Never>]>
      & Sendable,
    key: Key
  ) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let holds = state.withLock { locked -> Bool in
          guard !locked.snapshots.waiters.isEmpty, !locked.machine.isPaused,
            !Task.isCancelled
          else { return false }
          locked.snapshots[keyPath: holders][key] = continuation
          return true
        }
        if !holds { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.snapshots[keyPath: holders].removeValue(forKey: key) }?.resume()
    }
  }

  /// Flow `flow` went on from the boundary, or the waiting state, where it left its
  /// position.
  func leftPosition(flow: Int32) {
    state.withLock { tookBackPosition(flow: flow, in: &$0) }
  }

  /// ``leftPosition(flow:)`` under the lock, for a section that holds it anyway (a pause
  /// wait's end).
  func tookBackPosition(flow: Int32, in locked: inout LiveRunState) {
    locked.tookBackPosition(flow: flow)
  }

  /// Flow `flow`, which left its position between two attempts, goes on unless the run is
  /// paused: when it does, it takes back its position in the same lock section.
  func goesOn(flow: Int32) -> Bool {
    goesOnUnlessPaused { $0.tookBackPosition(flow: flow) }
  }

  /// `true`, with `takingBack` done, when the run is not paused; `false` when it is (the
  /// flow waits, its position kept).
  func goesOnUnlessPaused(takingBack: PositionTakeBack) -> Bool {
    state.withLock { locked in
      guard !locked.machine.isPaused else { return false }
      takingBack(&locked)
      return true
    }
  }

  /// Flow `flow`, not the top-level flow, entered a waiting state or a delay and is about
  /// to run its code in its task, at `position`.
  func enteredWaitingState(_ position: CapturedFlow<Context>, flow: Int32) {
    state.withLock { $0.snapshots.waiting[flow] = position }
  }

  /// Something that may complete a barrier happened (a wait or a delay began in a task, a
  /// branch ended): serves the snapshot requests if the run now stands.
  func snapshotMayStand() {
    state.withLock { locked -> Served? in
      guard !locked.snapshots.waiters.isEmpty else { return nil }
      return serveIfStanding(in: &locked)
    }?.perform()
  }

  /// A dispatch of flow `flow` starts its branches: its record, until
  /// ``dispatchEnded(_:)``.
  func dispatchBegins(_ dispatch: RunningDispatch<Context>) {
    state.withLock { locked in
      locked.snapshots.dispatches.append(dispatch)
    }
  }

  /// The branches of the dispatch that `ends` records ended (it joins, or fails, next).
  func dispatchEnded(_ ends: BranchEnds<Context>) {
    state.withLock { locked in
      guard
        let index = locked.snapshots.dispatches.firstIndex(where: {
          ($0 as? RunningDispatch<Context>)?.ends === ends
        }), let dispatch = locked.snapshots.dispatches[index] as? RunningDispatch<Context>
      else { return }
      locked.snapshots.dispatches.remove(at: index)
      locked.snapshots.branches = locked.snapshots.branches.filter {
        $0.value.parent != dispatch.parentFlow || $0.value.dispatch != dispatch.state
      }
    }
  }

  /// Branch `index` of the dispatch `dispatch` of flow `parent` runs as flow `flow`.
  func branchRuns(
    _ flow: Int32, index: Int, of dispatch: Int32, from parent: Int32,
    in locked: inout LiveRunState
  ) {
    guard !locked.snapshots.dispatches.isEmpty else { return }
    locked.snapshots.branches[flow] = (parent, dispatch, index)
  }

  /// The snapshot requests served, the flows held let go: what to do once the lock is
  /// released.
  struct Served {
    var waiters: [CheckedContinuation<(any Sendable)?, Never>]
    var value: any Sendable
    var holders: [CheckedContinuation<Void, Never>]

    func perform() {
      for waiter in waiters { waiter.resume(returning: value) }
      for holder in holders { holder.resume() }
    }
  }

  /// When the snapshot requests wait and every flow of the run stands: captures the run,
  /// lowers the flags (unless the run is paused), and returns what to resume.
  private func serveIfStanding(in locked: inout LiveRunState) -> Served? {
    guard !locked.snapshots.waiters.isEmpty, let value = standingValue(in: &locked) else {
      return nil
    }
    if !locked.machine.isPaused { locked.setPaused(false) }
    defer {
      locked.snapshots.waiters = []
      locked.snapshots.holders = [:]
      locked.snapshots.innerHolders = [:]
    }
    return Served(
      waiters: locked.snapshots.waiters, value: value,
      holders: Array(locked.snapshots.holders.values)
        + Array(locked.snapshots.innerHolders.values))
  }

  /// The run captured (a ``CapturedRun``), or why it cannot be (a ``SnapshotError``), when
  /// every flow stands now; `nil` while one moves or the run ends.
  private func standingValue(in locked: inout LiveRunState) -> (any Sendable)? {
    locked.takeBackWokenPositions()
    switch locked.machine.phase {
    case .ended, .unwinding: return nil
    case .held:
      guard let start = locked.snapshots.start as? [CapturedEntry<Context>] else { return nil }
      return captured(start, status: .paused, in: &locked)
    case .parked:
      return parkedCapture(in: &locked)
    case .running:
      switch standingFlows(in: locked) {
      case .moving: return nil
      case .refused(let error): return error
      case .stands(let flows):
        return captured(flows, status: status(of: flows, in: locked), in: &locked)
      }
    }
  }

  private func standingFlows(in locked: LiveRunState) -> StandingFlows<Context> {
    StandingFlows.of(
      graph,
      boundary: { locked.snapshots.boundaries[$0] as? CapturedFlow<Context> },
      waiting: { flow in
        guard var position = locked.snapshots.waiting[flow] as? CapturedFlow<Context> else {
          return .none
        }
        if let delay = locked.machine.delays[flow], delay.state == position.state {
          // A deadline passed: the flow wakes and goes on to its next boundary, where it
          // stands then; in a paused run, it stands at the delay, due.
          guard delay.isDue || wallClockNow() < delay.until else { return .moving }
          position.position = .waitingUntil(delay.until)
        } else if locked.machine.waitsForInput(at: position.state) {
          position.position = .waitingForInput
        } else {
          return .moving
        }
        return .stands(position)
      },
      nested: { flow in
        guard let (run, kept) = locked.snapshots.nested[flow],
          let position = kept as? CapturedFlow<Context>
        else { return nil }
        return (run, position)
      },
      dispatch: { flow in
        locked.snapshots.dispatches.last(where: {
          ($0 as? RunningDispatch<Context>)?.parentFlow == flow
        }) as? RunningDispatch<Context>
      },
      branches: { flow, dispatch in
        var running: [Int: Int32] = [:]
        for (branchFlow, entry) in locked.snapshots.branches
        where entry.parent == flow && entry.dispatch == dispatch {
          running[entry.index] = branchFlow
        }
        return running
      })
  }

  /// The status of a run whose flows stand as `flows`: paused, running (a flow stands at a
  /// boundary, held for the snapshot), or waiting for input or a time (every flow that
  /// has not finished waits).
  private func status(of flows: [CapturedEntry<Context>], in locked: LiveRunState) -> RunStatus {
    if locked.machine.isPaused { return .paused }
    var input: Int32? = nil
    var until: (state: Int32, deadline: WallClockTime)? = nil
    for entry in flows {
      switch entry.flow.position {
      case .entering, .retrying, .notEntered, .inSubflow: return .running
      case .waitingForInput: input = input ?? entry.flow.state
      case .waitingUntil(let deadline):
        if until.map({ deadline < $0.deadline }) ?? true { until = (entry.flow.state, deadline) }
      case .dispatching, .finished: break
      }
    }
    if let input { return .waitingForInput(state: graph.records[Int(input)].name) }
    if let until {
      return .waitingUntil(until.deadline, state: graph.records[Int(until.state)].name)
    }
    return .running
  }

  /// The top-level flow parked: serves the snapshot requests waiting, if it is still parked.
  func servedParked() {
    state.withLock { locked -> Served? in serveIfStanding(in: &locked) }?.perform()
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

  /// The run ended: returns the snapshot requests waiting, which get `nil` and make the
  /// snapshot from the run's end, and the flows held, which go on (to their end), to resume
  /// once the lock is released.
  func endedForSnapshots(in locked: inout LiveRunState) -> (
    waiters: [CheckedContinuation<(any Sendable)?, Never>],
    holders: [CheckedContinuation<Void, Never>]
  ) {
    locked.snapshots.boundaries = [:]
    locked.snapshots.waiting = [:]
    locked.snapshots.start = nil
    locked.snapshots.dispatches = []
    locked.snapshots.branches = [:]
    locked.snapshots.nested = [:]
    defer {
      locked.snapshots.waiters = []
      locked.snapshots.holders = [:]
      locked.snapshots.innerHolders = [:]
    }
    return (
      locked.snapshots.waiters,
      Array(locked.snapshots.holders.values) + Array(locked.snapshots.innerHolders.values)
    )
  }

  /// ``RunHandle/snapshot()``.
  func snapshot() async throws(SnapshotError) -> RunSnapshot<Context> {
    // A run that stands at a boundary (parked, held, paused there, ended) is captured at
    // once, without suspending the caller: a continuation resumed at once would still send
    // the caller's task through its executor's queue, which cost more than the capture.
    let now = state.withLock { locked -> (any Sendable)? in
      if case .ended = locked.machine.phase { return Ended() }
      guard locked.snapshots.waiters.isEmpty else { return nil }
      return standingValue(in: &locked)
    }
    if let now { return try await snapshot(served: now) }
    let served = await withCheckedContinuation {
      (continuation: CheckedContinuation<(any Sendable)?, Never>) in
      let now = state.withLock { locked -> Served? in
        if case .ended = locked.machine.phase {
          return Served(waiters: [continuation], value: Ended(), holders: [])
        }
        locked.snapshots.waiters.append(continuation)
        if let served = serveIfStanding(in: &locked) { return served }
        // Held until every flow stands.
        locked.setPaused(true)
        return nil
      }
      now?.perform()
    }
    return try await snapshot(served: served ?? Ended())
  }

  /// The snapshot of what a request was served: a ``CapturedRun``, a ``SnapshotError``, or
  /// ``Ended`` (made from the run's result).
  private func snapshot(served: any Sendable) async throws(SnapshotError) -> RunSnapshot<Context> {
    if let run = served as? CapturedRun<Context> { return makeSnapshot(run) }
    if let error = served as? SnapshotError { throw error }
    return makeSnapshot(try endedCapture(await result()))
  }

  /// What a request served after the run ended gets: it makes the snapshot from the end.
  private struct Ended: Sendable {}

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
            "The run failed inside the branches of dispatch \(DisplayText.quoted(name: name)), and a snapshot holds no branch's error: retry the run with `retry()`."
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

  /// The snapshot of a captured run: its positions named by their keys, in the current
  /// format.
  func makeSnapshot(_ run: CapturedRun<Context>) -> RunSnapshot<Context> {
    let structure = graph.structure
    let keys = structure.keys
    var shapes: [String: StateShape] = [:]
    func key(_ state: Int32) -> String {
      let key = keys[Int(state)]
      shapes[key] = structure.shapes[Int(state)]
      return key
    }
    var flows: [FlowSnapshot<Context>] = []
    flows.reserveCapacity(run.flows.count)
    for (number, entry) in run.flows.enumerated() {
      let flow = entry.flow
      let position: SnapshotPosition =
        switch flow.position {
        case .entering: .entering(key(flow.state))
        case .waitingForInput: .waitingForInput(key(flow.state))
        case .waitingUntil: .waitingUntil(key(flow.state))
        case .retrying: .entering(key(flow.state))
        case .dispatching: .dispatching(key(flow.state))
        case .finished(let decision): .finished(key(flow.state), decision)
        case .notEntered: .notEntered
        case .inSubflow: .entering(key(flow.state))
        }
      let (attempt, deadline): (Int, WallClockTime?) =
        switch flow.position {
        case .waitingUntil(let deadline): (1, deadline)
        case .retrying(let attempt, let deadline): (attempt, deadline)
        case .entering, .waitingForInput, .dispatching, .finished, .notEntered, .inSubflow:
          (1, nil)
        }
      var nested: NestedSnapshot? = nil
      var map: MapSnapshot? = nil
      if case .inSubflow(let inner) = flow.position {
        nested = inner.snapshot()
        map = inner.mapSnapshot()
      }
      var branch: FlowSnapshot<Context>.Branch? = nil
      if let parent = entry.parent {
        branch = FlowSnapshot<Context>.Branch(
          parent: Int32(parent), dispatch: keys[Int(run.flows[parent].flow.state)],
          index: entry.branch)
      }
      flows.append(
        FlowSnapshot(
          flow: Int32(number), position: position, context: flow.context,
          path: flow.path.map { keys[Int($0)] }, stepCount: flow.stepCount, attempt: attempt,
          deadline: deadline, branch: branch, nested: nested, map: map))
    }
    let mailbox = run.mailbox.sorted { $0.state < $1.state }.map {
      MailboxEntry(state: key($0.state), value: .live($0.value))
    }
    return RunSnapshot(
      id: run.id, chart: run.chart, fingerprint: structure.fingerprint, status: run.status,
      updated: wallClockNow(), stepLimit: run.flow.stepLimit, flows: flows, mailbox: mailbox,
      shapes: shapes, formatVersion: RunSnapshot<Context>.currentFormatVersion)
  }
}
