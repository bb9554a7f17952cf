// Resuming a run from a snapshot: checking that the chart still fits the snapshot's
// positions, then starting a live run from them with a retry's machinery
// (`FlowResumePoint`, `Interpreter.resume`), so that there is one way to go on from a point.

/// Why a ``RunSnapshot`` cannot be resumed on a chart: each position that no longer fits,
/// and why, in sentences.
public struct ResumeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A position of the snapshot that the chart no longer fits.
  public struct Misfit: Sendable, Hashable, CustomStringConvertible {
    /// The position key, as the snapshot names it.
    public let position: String
    /// A full sentence: what changed, and what to do.
    public let reason: String

    /// The reason.
    public var description: String { reason }
  }

  /// What was wrong, first: a sentence.
  public let summary: String
  /// Each position that no longer fits, in the order the snapshot holds them.
  public let misfits: [Misfit]

  /// The summary, then each misfit on a line of its own.
  public var description: String {
    ([summary] + misfits.map { "- \($0.reason)" }).joined(separator: "\n")
  }
}

extension Flowchart {
  /// Starts a live run that goes on from `snapshot` and returns its handle at once: the
  /// run continues exactly as the run the snapshot was taken of would have, in this process
  /// or another.
  ///
  /// The run keeps the snapshot's id, its path and step count, and the values sent to its
  /// waiting states and not yet taken. A run captured at a boundary enters the state it was
  /// about to enter; one waiting for input enters its waiting state again and waits there
  /// (send it the value with ``RunHandle/send(_:to:)-(_,String)``); a failed or cancelled
  /// one runs the state it failed at again, with the context from before it, as
  /// ``RunHandle/retry(clock:isPaused:isLogged:observer:updating:isolation:)`` does; a
  /// finished one ends at once with its result. The run reports
  /// ``RunEvent/Kind/runStarted`` at the state it goes on from.
  ///
  /// The chart need not be the one the snapshot was made with: every position the
  /// snapshot holds (where the flow stands, the states it entered, the waiting states with
  /// a value) must still exist, by its position key (``positionKeys``), with the same kind,
  /// finality and exits. A state added elsewhere, or code changed, fits; a position
  /// removed, or a state whose kind or exits changed, does not, and the call throws a
  /// ``ResumeError`` that lists each. `migrating` maps an old position key to a new one.
  ///
  /// - Parameters:
  ///   - snapshot: Where the run stood.
  ///   - chart: The identity of this chart; when given, a snapshot of another chart (one
  ///     whose ``RunSnapshot/chart`` is not empty and differs) is refused. A snapshot made
  ///     of this run keeps it.
  ///   - migrating: Old position keys mapped to new ones, for positions the chart moved or
  ///     renamed.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - isPaused: Whether the run starts paused, so that you can subscribe to its events
  ///     before it goes on; resume it with ``RunHandle/resume()``.
  ///   - isLogged: Whether the run keeps a log (``RunHandle/log``), from where it goes on.
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Returns: The handle of the resumed run.
  /// - Throws: A ``ResumeError`` when the snapshot does not fit the chart; nothing is
  ///   started then.
  public func start<C: Clock>(
    resuming snapshot: RunSnapshot<Context>, chart: String? = nil,
    migrating: [String: String] = [:], clock: C = ContinuousClock(), isPaused: Bool = false,
    isLogged: Bool = false, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) throws(ResumeError) -> RunHandle<Context> where C.Duration == Duration {
    try startResumed(
      snapshot, chart: chart, migrating: migrating, clock: clock, isPaused: isPaused,
      log: isLogged ? .standard : nil, observer: observer, isolation: isolation)
  }

  /// Starts a logged live run that goes on from `snapshot`:
  /// ``start(resuming:chart:migrating:clock:isPaused:isLogged:observer:isolation:)`` with
  /// the run's log kept as `log` says, from where the run goes on (a sink, such as a file,
  /// takes each line as it happens).
  ///
  /// - Parameters:
  ///   - snapshot: Where the run stood.
  ///   - chart: The identity of this chart; when given, a snapshot of another chart (one
  ///     whose ``RunSnapshot/chart`` is not empty and differs) is refused.
  ///   - migrating: Old position keys mapped to new ones, for positions the chart moved or
  ///     renamed.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - isPaused: Whether the run starts paused; resume it with ``RunHandle/resume()``.
  ///   - log: How many lines ``RunHandle/log`` keeps, and the sink that takes each line as
  ///     it happens, if any.
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Returns: The handle of the resumed run.
  /// - Throws: A ``ResumeError`` when the snapshot does not fit the chart; nothing is
  ///   started then.
  public func start<C: Clock>(
    resuming snapshot: RunSnapshot<Context>, chart: String? = nil,
    migrating: [String: String] = [:], clock: C = ContinuousClock(), isPaused: Bool = false,
    log: RunLog.Options, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) throws(ResumeError) -> RunHandle<Context> where C.Duration == Duration {
    try startResumed(
      snapshot, chart: chart, migrating: migrating, clock: clock, isPaused: isPaused, log: log,
      observer: observer, isolation: isolation)
  }

  /// The two `start(resuming:…)`: logged as `log` says, or not when it is `nil`.
  private func startResumed<C: Clock>(
    _ snapshot: RunSnapshot<Context>, chart: String?, migrating: [String: String], clock: C,
    isPaused: Bool, log: RunLog.Options?, observer: RunObserver?,
    isolation: isolated (any Actor)?
  ) throws(ResumeError) -> RunHandle<Context> where C.Duration == Duration {
    let resolved = try snapshot.resolve(on: graph, chart: chart, migrating: migrating)
    let runClock = RunClock(clock, countingFromNow: true)
    let flow = resolved.flow
    let live = LiveRun(
      graph: graph, isPaused: isPaused, observer: observer,
      loggedContext: log != nil ? flow.context : nil, log: log ?? .standard, clock: runClock)
    live.identify(id: snapshot.id, chart: chart ?? snapshot.chart)
    live.state.withLock { $0.machine.restore(mailbox: resolved.mailbox) }
    let path: RecordedPath
    if case .retrying = flow.position {
      // The state is entered again, at its next attempt: the path before it.
      path = RecordedPath.restored(states: flow.path.dropLast(), count: flow.stepCount - 1)
    } else {
      path = RecordedPath.restored(states: flow.path, count: flow.stepCount)
    }
    if isPaused {
      switch flow.position {
      case .entering, .waitingForInput:
        live.keepStart(
          CapturedFlow(
            .entering, at: flow.state, context: flow.context, path: flow.path,
            stepCount: flow.stepCount, stepLimit: flow.stepLimit))
      case .waitingUntil, .retrying:
        // Still at the delay, or between two attempts, with its deadline: entering the
        // state afresh would set a new one.
        live.keepStart(flow)
      case .dispatching, .inSubflow:
        // Every flow where the snapshot holds it (inside its subflow, too).
        live.keepStart(resolved.entries)
      case .finished, .notEntered: break
      }
    }
    let chart = self
    let dispatch = resolved.dispatch
    let positions = resolved.positions
    let body: @Sendable () async -> Void = {
      await live.withTaskLocals(clock: runClock) {
        await ResumedPositions.$current.withValue(positions) {
          await chart.runResumed(
            live, from: flow, path: path, dispatch: dispatch, isPaused: isPaused,
            clock: runClock, isolation: isolation)
        }
      }
    }
    if isPaused {
      // No task until the run is resumed, cancelled or abandoned.
      live.holdStart(priority: Task.currentPriority, body)
    } else {
      live.adopt(Task { await body() }, number: 0)
    }
    return RunHandle(run: live)
  }

  /// Runs the chart on from `snapshot` to its end and returns its result: as
  /// ``start(resuming:chart:migrating:clock:isPaused:isLogged:observer:isolation:)``, with
  /// no handle. A waiting state the run reaches (or waits at) has no one to send it a
  /// value: the run is cancelled there, as a live run whose handles are all gone is. To
  /// resume a run that waits for input, use the live form and send the value.
  ///
  /// - Throws: The ``RunError`` the run ends with; a snapshot that does not fit the chart
  ///   is a ``RunError/Kind/thrown`` error whose ``RunError/underlyingError`` is the
  ///   ``ResumeError``, with no state.
  public func resume<C: Clock>(
    from snapshot: RunSnapshot<Context>, chart: String? = nil,
    migrating: [String: String] = [:], clock: C = ContinuousClock(),
    isolation: isolated (any Actor)? = #isolation
  ) async throws(RunError) -> RunResult<Context> where C.Duration == Duration {
    let run: LiveRun<Context>
    do throws(ResumeError) {
      run = try start(
        resuming: snapshot, chart: chart, migrating: migrating, clock: clock,
        isolation: isolation
      ).run
    } catch {
      throw RunError(
        .thrown, state: nil, stateName: "", path: [], pathNames: [], underlyingError: error,
        reason: error.description)
    }
    return try await run.result().get()
  }

  /// The body of a resumed run's first task.
  func runResumed(
    _ live: LiveRun<Context>, from flow: CapturedFlow<Context>, path: RecordedPath,
    dispatch: DispatchResume<Context>?, isPaused: Bool, clock: RunClock,
    isolation: isolated (any Actor)?
  ) async {
    if isPaused { await live.waitForStart() }
    live.started(at: flow.state)
    switch flow.position {
    case .finished(let decision):
      live.end(
        with: .success(
          RunResult(
            finalState: StateID(flow.state), finalStateName: graph.records[Int(flow.state)].name,
            decision: decision, context: flow.context, path: flow.path.map(StateID.init),
            stepCount: flow.stepCount, graph: graph)))
      return
    case .waitingUntil(let deadline):
      await goOnAtDelay(
        live, from: flow, until: deadline, path: path, clock: clock, isolation: isolation)
      return
    case .entering, .waitingForInput, .retrying, .dispatching, .notEntered, .inSubflow: break
    }
    // A flow that stands in a dispatch enters it again, its branches going on as the
    // snapshot holds them (`dispatch`).
    let point = FlowResumePoint(
      state: flow.state, context: flow.context, path: path, dispatch: dispatch)
    var cursor = Cursor<Context>(at: flow.state, stepLimit: flow.stepLimit)
    cursor.path.append(path)
    let interpreter = Interpreter(graph: graph, stepLimit: flow.stepLimit)
    let top = TopLevelFlow(
      body: liveFlow(), interpreter: interpreter,
      control: RunControl(monitor: live, parks: true), isolation: isolation, clock: clock,
      step: .retry(point), cursor: cursor, context: flow.context)
    if case .retrying(let attempt, let deadline) = flow.position {
      let positions = ResumedPositions.current ?? ResumedPositions()
      positions.keep(ResumedRetry(state: flow.state, attempt: attempt, deadline: deadline))
      await ResumedPositions.$current.withValue(positions) { await live.go(on: top) }
    } else {
      await live.go(on: top)
    }
  }
}

extension Flowchart {
  /// Goes on from a delay the snapshot's flow was parked at, until `deadline`, by the
  /// resumed run's clock: a deadline passed fires at once (the flow takes the delay's exit
  /// in this task); one not passed parks the flow again, and its waker waits only the rest.
  /// The delay's code does not run again: it would set a new deadline.
  private func goOnAtDelay(
    _ live: LiveRun<Context>, from flow: CapturedFlow<Context>, until deadline: WallClockTime,
    path: RecordedPath, clock: RunClock, isolation: isolated (any Actor)?
  ) async {
    var cursor = Cursor<Context>(at: flow.state, stepLimit: flow.stepLimit)
    cursor.path.append(path)
    let top = TopLevelFlow(
      body: liveFlow(), interpreter: Interpreter(graph: graph, stepLimit: flow.stepLimit),
      control: RunControl(monitor: live, parks: true), isolation: isolation, clock: clock,
      step: .parked, cursor: cursor, context: flow.context)
    if clock.wallClockNow() < deadline, live.parks(at: flow.state, flow: 0, until: deadline),
      live.settle(top)
    {
      return
    }
    await live.go(on: top)
  }
}

extension Flowchart {
  /// Starts a run with `context`, as
  /// ``start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` does, giving it
  /// an id and naming its chart: what its snapshots record (``RunSnapshot/id``,
  /// ``RunSnapshot/chart``) and what a run store lists it by.
  ///
  /// - Parameters:
  ///   - context: The run's context at its first state.
  ///   - id: The run's id; a new random one by default.
  ///   - chart: The chart's identity: a name of the owner's choosing that stays the same
  ///     across versions of the chart (a chart file's path and name, say). A snapshot is
  ///     resumed only on a chart given the same identity, or none.
  ///   - stepLimit: The most states the run may enter; the chart's default when `nil`.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - isPaused: Whether the run starts paused, so that you can subscribe to its events
  ///     before its first state; resume it with ``RunHandle/resume()``.
  ///   - isLogged: Whether the run keeps a log (``RunHandle/log``).
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Returns: The run's handle, at once.
  @inlinable
  public func start<C: Clock>(
    with context: Context, id: RunID = RunID(), chart: String, stepLimit: Int? = nil,
    clock: C = ContinuousClock(), isPaused: Bool = false, isLogged: Bool = false,
    observer: RunObserver? = nil, isolation: isolated (any Actor)? = #isolation
  ) -> RunHandle<Context> where C.Duration == Duration {
    let handle = start(
      with: context, stepLimit: stepLimit, clock: clock, isPaused: isPaused,
      log: isLogged ? .standard : nil, observer: observer, isolation: isolation,
      flow: liveFlow())
    handle.identify(id: id, chart: chart)
    return handle
  }
}

extension Flowchart {
  /// Starts a logged run with `context`, giving it an id and naming its chart:
  /// ``start(with:id:chart:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` with
  /// the run's log kept as `log` says (a sink, such as a file, takes each line as it
  /// happens).
  ///
  /// - Parameters:
  ///   - context: The run's context at its first state.
  ///   - id: The run's id; a new random one by default.
  ///   - chart: The chart's identity, which stays the same across its versions (see
  ///     ``start(with:id:chart:stepLimit:clock:isPaused:isLogged:observer:isolation:)``).
  ///   - stepLimit: The most states the run may enter; the chart's default when `nil`.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - isPaused: Whether the run starts paused; resume it with ``RunHandle/resume()``.
  ///   - log: How many lines ``RunHandle/log`` keeps, and the sink that takes each line as
  ///     it happens, if any.
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Returns: The run's handle, at once.
  @inlinable
  public func start<C: Clock>(
    with context: Context, id: RunID = RunID(), chart: String, stepLimit: Int? = nil,
    clock: C = ContinuousClock(), isPaused: Bool = false, log: RunLog.Options,
    observer: RunObserver? = nil, isolation: isolated (any Actor)? = #isolation
  ) -> RunHandle<Context> where C.Duration == Duration {
    let handle = start(
      with: context, stepLimit: stepLimit, clock: clock, isPaused: isPaused, log: log,
      observer: observer, isolation: isolation, flow: liveFlow())
    handle.identify(id: id, chart: chart)
    return handle
  }
}

extension RunHandle {
  /// Gives the run its id and its chart's identity.
  @usableFromInline
  func identify(id: RunID, chart: String) {
    run.identify(id: id, chart: chart)
  }
}

/// The retry a resumed run's flow is in the middle of at a state: the attempt it runs next,
/// once the backoff's wall-clock deadline has passed.
final class ResumedRetry: Sendable {
  let state: Int32
  let attempt: Int
  let deadline: WallClockTime

  init(state: Int32, attempt: Int, deadline: WallClockTime) {
    self.state = state
    self.attempt = attempt
    self.deadline = deadline
  }

  /// The retry, for the modified state `state` when a resumed flow is in the middle of one
  /// there and has not taken it yet; `nil` otherwise.
  static func take(at state: Int32) -> ResumedRetry? {
    ResumedPositions.current?.takeRetry(at: state)
  }

  /// The deadline a resumed flow keeps at the delay `slot`, when it was waiting there and
  /// has not taken it yet; `nil` otherwise.
  static func takeDelay(_ slot: DelaySlot) -> WallClockTime? {
    ResumedPositions.current?.takeDelay(slot)
  }
}

/// The retries and delays the flows of a run resumed from a snapshot are in the middle of:
/// set around the resumed run's first task (whose dispatch branches inherit it); each state
/// takes its own once (`Interpreter.runModified`, `DelaySlot.wait`), so that a later visit
/// runs as usual.
final class ResumedPositions: Sendable {
  private struct Kept {
    var retries: [Int32: ResumedRetry] = [:]
    var delays: [ObjectIdentifier: WallClockTime] = [:]
    /// The inner runs of the subflows flows stand in (``NestedResume`` values), by the
    /// subflow's attachment.
    var subflows: [ObjectIdentifier: any Sendable] = [:]
  }

  private let kept = Lock(Kept())

  @TaskLocal static var current: ResumedPositions?

  var isEmpty: Bool {
    kept.withLock { $0.retries.isEmpty && $0.delays.isEmpty && $0.subflows.isEmpty }
  }

  /// Keeps the inner run of the subflow (by its attachment) a flow stands in.
  func keep(subflow attachment: AnyObject, _ resume: any Sendable) {
    kept.withLock { $0.subflows[ObjectIdentifier(attachment)] = resume }
  }

  func takeSubflow(_ attachment: AnyObject) -> (any Sendable)? {
    kept.withLock { $0.subflows.removeValue(forKey: ObjectIdentifier(attachment)) }
  }

  /// The attempt a flow that stands in the subflow or map (by its attachment) goes on with,
  /// without taking the inner run (the subflow's code takes it); `nil` when no flow stands
  /// in it.
  func subflowAttempt(_ attachment: AnyObject) -> SubflowAttempt? {
    kept.withLock {
      ($0.subflows[ObjectIdentifier(attachment)] as? any CapturedSubflowRun)?.entered
    }
  }

  /// Keeps a retry a flow is in the middle of.
  func keep(_ retry: ResumedRetry) {
    kept.withLock { $0.retries[retry.state] = retry }
  }

  /// Keeps the deadline a flow waits for at the delay `slot`.
  func keep(delay slot: DelaySlot, until deadline: WallClockTime) {
    kept.withLock { $0.delays[ObjectIdentifier(slot)] = deadline }
  }

  func takeRetry(at state: Int32) -> ResumedRetry? {
    kept.withLock { $0.retries.removeValue(forKey: state) }
  }

  func takeDelay(_ slot: DelaySlot) -> WallClockTime? {
    kept.withLock { $0.delays.removeValue(forKey: ObjectIdentifier(slot)) }
  }
}

extension Graph {
  /// How many times `state` retries, when it is a modified state with a retry rule.
  func retryCount(_ state: Int32) -> Int? {
    let node = nodeBase[Int(state)]
    guard node.kind == .modified else { return nil }
    return ModifiedCode.of(node).modifiers.retry?.count
  }

  /// Why the subflow or map `state` cannot go on at `entered`'s attempt, which a snapshot
  /// holds: the state no longer retries that often; `nil` when it can.
  func attemptMisfit(_ entered: SubflowAttempt, at state: Int32) -> String? {
    guard entered.attempt > 1 else { return nil }
    guard let count = retryCount(state) else {
      return
        "is at its attempt \(entered.attempt), and no longer retries: give it its retry back, or map the position with `migrating:`"
    }
    guard entered.attempt - 1 <= count else {
      return
        "is at its attempt \(entered.attempt), and retries \(count) time\(count == 1 ? "" : "s"): the snapshot is damaged, or the state's retry was lowered"
    }
    return nil
  }
}
