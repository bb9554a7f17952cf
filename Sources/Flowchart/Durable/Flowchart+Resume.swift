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

/// A snapshot checked against a chart: its positions as state numbers, its values decoded.
struct ResolvedSnapshot<Context: Sendable>: Sendable {
  var flow: CapturedFlow<Context>
  var mailbox: [(state: Int32, value: any Sendable)]
}

extension RunSnapshot {
  /// The snapshot's positions on `graph`, each key first mapped by `migrating`.
  func resolve(
    on graph: Graph<Context>, chart identity: String?, migrating: [String: String]
  ) throws(ResumeError) -> ResolvedSnapshot<Context> {
    if let identity, !chart.isEmpty, identity != chart {
      throw ResumeError(
        summary:
          "The snapshot is of a run of chart \(DisplayText.quoted(name: chart)), not of \(DisplayText.quoted(name: identity)): resume it with the chart it was made from.",
        misfits: [])
    }
    let structure = graph.structure
    var misfits: [ResumeError.Misfit] = []
    func misfit(_ key: String, _ reason: String) {
      misfits.append(ResumeError.Misfit(position: key, reason: reason))
    }
    func mapped(_ key: String) -> String { migrating[key] ?? key }
    // The same fingerprint means the same keys, kinds, finality and exits: every key that
    // names a state of the chart names one of the shape the snapshot recorded, so the shapes
    // need no comparing (the kind checks below, of waiting states and delays, still run).
    let unchanged = migrating.isEmpty && fingerprint == structure.fingerprint
    /// The state a position's key names, once checked against the shape it had.
    func state(at key: String, role: String) -> Int32? {
      let target = mapped(key)
      let via = target == key ? "" : " (mapped to \(DisplayText.quoted(name: target)))"
      guard let state = structure.states[target] else {
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), no longer exists in the chart: restore it, or map it to a state of the chart with `migrating:`."
        )
        return nil
      }
      guard !unchanged, let old = shapes[key] else { return state }
      let new = structure.shapes[Int(state)]
      if old.kind != new.kind {
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), was \(DisplayText.withArticle(typeName: old.kind)) and is now \(DisplayText.withArticle(typeName: new.kind)): a run cannot go on at a state of another kind; map it to a state of its kind with `migrating:`."
        )
        return nil
      }
      if old.isFinal != new.isFinal {
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), \(old.isFinal ? "was final and is not any more" : "was not final and is now"): map it to a state that ends the flow as it did with `migrating:`."
        )
        return nil
      }
      let oldExits = old.exits.map(mappedExit)
      if oldExits != new.exits {
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), had the exits \(Self.list(oldExits)) and now has \(Self.list(new.exits)): map its targets with `migrating:`, or resume on a chart whose exits are those."
        )
        return nil
      }
      return state
    }
    /// An exit as "label → key", its target mapped.
    func mappedExit(_ exit: String) -> String {
      guard let arrow = exit.firstRange(of: " → ") else { return exit }
      return String(exit[..<arrow.upperBound]) + mapped(String(exit[arrow.upperBound...]))
    }

    let top = flows[0]
    var position: (kind: CapturedFlow<Context>.Position, state: Int32)?
    switch top.position {
    case .entering(let key) where top.attempt > 1:
      position = state(at: key, role: "the run is between two attempts").map {
        (.retrying(attempt: top.attempt, until: top.deadline ?? updated), $0)
      }
      if let found = position, let count = graph.retryCount(found.state),
        top.attempt - 1 > count || top.attempt == .max
      {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)) retries \(count) time\(count == 1 ? "" : "s"), so it has no attempt \(top.attempt): the snapshot is damaged, or the state's retry was lowered; map the position with `migrating:`."
        )
        position = nil
      } else if let found = position, graph.retryCount(found.state) == nil {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where the run is between two attempts (attempt \(top.attempt) is next), no longer retries: give it its retry back, or map the position to a state that retries with `migrating:`."
        )
        position = nil
      }
    case .entering(let key):
      position = state(at: key, role: "the run goes on").map { (.entering, $0) }
    case .waitingForInput(let key):
      position = state(at: key, role: "the run waits for input").map { (.waitingForInput, $0) }
      if let found = position, graph.records[Int(found.state)].attachment as? InputSlot == nil {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where the run waits for input, no longer waits for input."
        )
        position = nil
      }
    case .waitingUntil(let key):
      if let deadline = top.deadline {
        position = state(at: key, role: "the run waits for a time").map {
          (.waitingUntil(deadline), $0)
        }
      } else {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where the run waits for a time, has no deadline: the snapshot is damaged."
        )
      }
      if let found = position, graph.records[Int(found.state)].attachment as? DelaySlot == nil {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where the run waits for a time, is no longer a delay."
        )
        position = nil
      }
    case .finished(let key, let decision):
      position = state(at: key, role: "the run finished").map { (.finished(decision), $0) }
    case .notEntered:
      misfit("", "The run failed before it entered a state: there is nowhere to go on from.")
    }
    var path: [Int32] = []
    path.reserveCapacity(top.path.count)
    var missing: Set<String> = []
    for key in top.path {
      if let state = structure.states[mapped(key)] {
        path.append(state)
      } else if missing.insert(key).inserted {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), which the run entered earlier (its path holds it), no longer exists in the chart: map it to a state of the chart with `migrating:`."
        )
      }
    }
    var values: [(state: Int32, value: any Sendable)] = []
    for entry in mailbox {
      guard let target = state(at: entry.state, role: "a value waits to be taken") else {
        continue
      }
      guard let slot = graph.records[Int(target)].attachment as? InputSlot else {
        misfit(
          entry.state,
          "\(DisplayText.quoted(name: entry.state)), where a value waits to be taken, no longer waits for input."
        )
        continue
      }
      switch entry.value {
      case .live(let value):
        guard slot.accepts(value) else {
          misfit(
            entry.state,
            "The value waiting for \(DisplayText.quoted(name: entry.state)) is \(DisplayText.withArticle(typeName: "\(type(of: value))")), and the state now waits for \(DisplayText.withArticle(typeName: "\(slot.inputType)"))."
          )
          continue
        }
        values.append((target, value))
      case .encoded(let encoded):
        guard slot.inputType is any Decodable.Type else {
          misfit(
            entry.state,
            "\(DisplayText.quoted(name: entry.state)) waits for \(DisplayText.withArticle(typeName: "\(slot.inputType)")), which is not Decodable, so the value the snapshot holds for it cannot be read: make the type Codable."
          )
          continue
        }
        do {
          guard let value = try Self.decode(encoded, as: slot.inputType), slot.accepts(value)
          else {
            misfit(
              entry.state,
              "The value waiting for \(DisplayText.quoted(name: entry.state)) does not decode as the type it waits for."
            )
            continue
          }
          values.append((target, value))
        } catch {
          misfit(
            entry.state,
            "The value waiting for \(DisplayText.quoted(name: entry.state)) does not decode as \(DisplayText.withArticle(typeName: "\(slot.inputType)")): \(error)."
          )
        }
      }
    }
    guard misfits.isEmpty, let position else {
      throw ResumeError(
        summary:
          "The snapshot of run \(id) does not fit the chart\(identity.map { " \(DisplayText.quoted(name: $0))" } ?? ""): \(misfits.count == 1 ? "a position no longer fits" : "\(misfits.count) positions no longer fit").",
        misfits: misfits)
    }
    var stepCount = top.stepCount
    if case .waitingForInput = position.kind {
      // The flow parked at the state it entered: it enters it again, and parks there again.
      guard path.last == position.state, stepCount > 0 else {
        throw ResumeError(
          summary:
            "The snapshot of run \(id) waits for input at \(DisplayText.quoted(name: top.position.key ?? "")) but its path does not end there: the snapshot is damaged.",
          misfits: [])
      }
      path.removeLast()
      stepCount -= 1
    }
    switch position.kind {
    case .waitingUntil, .retrying:
      // The flow parked at the delay it entered, or is between two attempts of the state it
      // entered: it goes on from there, keeping its deadline.
      guard path.last == position.state, stepCount > 0 else {
        throw ResumeError(
          summary:
            "The snapshot of run \(id) stands at \(DisplayText.quoted(name: top.position.key ?? "")) but its path does not end there: the snapshot is damaged.",
          misfits: [])
      }
    case .entering, .waitingForInput, .finished, .notEntered: break
    }
    return ResolvedSnapshot(
      flow: CapturedFlow(
        position.kind, at: position.state, context: top.context, path: path,
        stepCount: stepCount, stepLimit: stepLimit),
      mailbox: values)
  }

  /// `value` decoded as `type`, when `type` is `Decodable`.
  private static func decode<T: Sendable>(_ value: SnapshotValue, as type: T.Type) throws -> T? {
    guard let decodable = type as? any Decodable.Type else { return nil }
    return try value.decode(decodable) as? T
  }

  private static func list(_ exits: [String]) -> String {
    exits.isEmpty ? "none" : exits.joined(separator: ", ")
  }
}

extension RecordedPath {
  /// A path of `count` states entered, of which `states` are the most recent, as a
  /// snapshot holds them.
  static func restored(states: [Int32], count: Int) -> RecordedPath {
    guard !states.isEmpty else { return RecordedPath(storage: nil, mask: 0, first: 0, count: 0) }
    var capacity = 8
    while capacity < states.count { capacity *= 2 }
    if count > states.count { capacity = PathRecorder.maximumCapacity }
    let storage = PathStorage.make(capacity: capacity)
    let mask = capacity - 1
    // A flow that parked after a full ring keeps one state fewer than the ring holds (the
    // waiting state it enters again is not kept): the oldest kept state stands in for the
    // one before it, which is not known.
    let kept = min(count, capacity)
    let missing = kept - states.count
    for offset in 0..<kept {
      storage.elements[(count - kept + offset) & mask] =
        states[max(offset - missing, 0)]
    }
    return RecordedPath(storage: storage, mask: mask, first: states[0], count: count)
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
    let origin = clock.now
    let runClock = RunClock(clock)
    let flow = resolved.flow
    let live = LiveRun(
      graph: graph, isPaused: isPaused, observer: observer,
      loggedContext: log != nil ? flow.context : nil, log: log ?? .standard,
      elapsed: { origin.duration(to: clock.now) }, wallClockNow: runClock.wallClockNow)
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
      case .finished, .notEntered: break
      }
    }
    let chart = self
    let task = Task {
      await live.withTaskLocals(clock: runClock) {
        await chart.runResumed(
          live, from: flow, path: path, isPaused: isPaused, clock: runClock,
          isolation: isolation)
      }
    }
    live.adopt(task, number: 0)
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
    isPaused: Bool, clock: RunClock, isolation: isolated (any Actor)?
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
    case .entering, .waitingForInput, .retrying, .notEntered: break
    }
    let point = FlowResumePoint(state: flow.state, context: flow.context, path: path, dispatch: nil)
    var cursor = Cursor<Context>(at: flow.state, stepLimit: flow.stepLimit)
    cursor.path.append(path)
    let interpreter = Interpreter(graph: graph, stepLimit: flow.stepLimit)
    let top = TopLevelFlow(
      body: liveFlow(), interpreter: interpreter,
      control: RunControl(monitor: live, parks: true), isolation: isolation, clock: clock,
      step: .retry(point), cursor: cursor, context: flow.context)
    if case .retrying(let attempt, let deadline) = flow.position {
      let retry = ResumedRetry(state: flow.state, attempt: attempt, deadline: deadline)
      await ResumedRetry.$current.withValue(retry) { await live.go(on: top) }
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

/// The retry a resumed run's first state is in the middle of: the attempt it runs next, once
/// the backoff's wall-clock deadline has passed. Set around the first task of a run resumed
/// between two attempts; the state takes it once (`Interpreter.runModified`).
final class ResumedRetry: Sendable {
  let state: Int32
  let attempt: Int
  let deadline: WallClockTime
  private let isTaken = Lock(false)

  @TaskLocal static var current: ResumedRetry?

  init(state: Int32, attempt: Int, deadline: WallClockTime) {
    self.state = state
    self.attempt = attempt
    self.deadline = deadline
  }

  /// The retry, for the modified state `state` when it is the one resumed and the retry was
  /// not taken yet; `nil` otherwise.
  static func take(at state: Int32) -> ResumedRetry? {
    guard let retry = current, retry.state == state else { return nil }
    let first = retry.isTaken.withLock { taken in
      defer { taken = true }
      return !taken
    }
    return first ? retry : nil
  }
}

extension Graph {
  /// How many times `state` retries, when it is a modified state with a retry rule.
  func retryCount(_ state: Int32) -> Int? {
    let node = nodeBase[Int(state)]
    guard node.kind == .modified else { return nil }
    return ModifiedCode.of(node).modifiers.retry?.count
  }
}
