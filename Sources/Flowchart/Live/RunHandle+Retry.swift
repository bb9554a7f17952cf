extension RunHandle {
  /// Starts a new live run from where this failed or cancelled run stopped:
  /// Task.framework's retry.
  ///
  /// The state the run failed at runs again, with the context as it was before that
  /// state's code ran (changes it made before throwing are dropped). When a dispatch
  /// failed, only the branches that failed or were cancelled run again, each from the
  /// state it stopped at; the branches that finished keep their results, merged in
  /// declaration order as in the first run; branches that never started (or were skipped)
  /// start from their first state. Dispatches inside branches are retried the same way.
  /// A subflow or a map whose inner run failed runs again as a whole.
  ///
  /// ```swift
  /// let first = chart.start(with: order)
  /// do {
  ///   _ = try await first.result
  /// } catch {
  ///   let second = try first.retry { $0.uploadServer = backup }
  ///   let result = try await second.result
  /// }
  /// ```
  ///
  /// The retried run's ``RunResult/path`` continues this run's: the states this run
  /// entered, the failed attempt included, then those of the retry. Each flow may enter as
  /// many more states as this run's step limit allows. A waiting state that runs again
  /// waits for a new value. The run reports ``RunEvent/Kind/runStarted`` at the state it
  /// retries. A handle may be retried more than once; each retry starts from the same
  /// point.
  ///
  /// - Parameters:
  ///   - clock: The clock that times the new run's events.
  ///   - isPaused: Whether the new run waits for ``resume()`` before it reports anything.
  ///   - isLogged: Whether the new run keeps a ``log``.
  ///   - observer: Callbacks the new run calls.
  ///   - update: Fixes the context before the retry: applied to each context the retry
  ///     resumes a flow with (the failed state's, in each flow that failed, and the
  ///     context from before a dispatch that runs again), never to a finished branch's.
  ///   - isolation: The actor the new run's synchronous states run on, as for
  ///     ``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)``.
  /// - Returns: The new run's handle.
  /// - Throws: A ``RetryError`` when this run has not ended, ended with a result, or
  ///   failed before it reached a state.
  public func retry<C: Clock>(
    clock: C = ContinuousClock(), isPaused: Bool = false, isLogged: Bool = false,
    observer: RunObserver? = nil, updating update: (inout Context) -> Void = { _ in },
    isolation: isolated (any Actor)? = #isolation
  ) throws(RetryError) -> RunHandle<Context> where C.Duration == Duration {
    switch run.retryVerdict {
    case .notEnded:
      throw RetryError(
        kind: .runNotEnded,
        reason:
          "The run has not ended, so it cannot be retried: await its `result`, or `cancel()` it first."
      )
    case .succeeded:
      throw RetryError(
        kind: .runSucceeded,
        reason:
          "The run ended with a result, so there is nothing to retry: call `restart(with:)` to run the chart again from its start."
      )
    case .failed: break
    }
    let stopped = run.resumePoints.run
    guard let point = stopped.point else {
      throw RetryError(
        kind: .noStateToRetry,
        reason:
          "The run failed before it entered a state (an invalid step limit), so there is no state to retry: call `restart(with:)` with a valid step limit."
      )
    }
    let resumed = point.updating(update)
    let runClock = RunClock(clock, countingFromNow: true)
    let live = LiveRun(
      graph: run.graph, isPaused: isPaused, observer: observer,
      loggedContext: isLogged ? resumed.context : nil, clock: runClock)
    let chart = Flowchart(graph: run.graph)
    let stepLimit = stopped.stepLimit
    if isPaused, resumed.dispatch == nil {
      let (limit, overflow) = resumed.path.count.addingReportingOverflow(stepLimit)
      live.keepStart(
        CapturedFlow(
          .entering, at: resumed.state, context: resumed.context, path: resumed.path.states,
          stepCount: resumed.path.count, stepLimit: overflow ? .max : limit))
    }
    let task = Task {
      await live.withTaskLocals(clock: runClock) {
        await chart.runRetried(
          live, from: resumed, stepLimit: stepLimit, isPaused: isPaused, clock: runClock,
          isolation: isolation)
      }
    }
    live.adopt(task, number: 0)
    return RunHandle(run: live)
  }

  /// Starts a new live run of the same chart from its start with `context`: JASWorkflow's
  /// `prepareForReuse` and Task.framework's reset. The same as `chart.start(with:)`, for
  /// code that holds only the handle.
  ///
  /// - Parameters: As for ``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)``.
  /// - Returns: The new run's handle.
  /// - Throws: A ``RetryError`` when this run has not ended: a chart may run any number of
  ///   times at once, but a handle's run is replaced only once it is over, so that two runs
  ///   are never started from one handle by mistake.
  public func restart<C: Clock>(
    with context: Context, stepLimit: Int? = nil, clock: C = ContinuousClock(),
    isPaused: Bool = false, isLogged: Bool = false, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) throws(RetryError) -> RunHandle<Context> where C.Duration == Duration {
    guard run.hasEnded else {
      throw RetryError(
        kind: .runNotEnded,
        reason:
          "The run has not ended, so it cannot be restarted: await its `result`, or `cancel()` it first, or call `chart.start(with:)` for a second run alongside it."
      )
    }
    return Flowchart(graph: run.graph).start(
      with: context, stepLimit: stepLimit, clock: clock, isPaused: isPaused,
      isLogged: isLogged, observer: observer, isolation: isolation)
  }

  /// Throws ``InputError/Kind-swift.struct/runEnded`` once the run has ended.
  func refuseInputOnceEnded(to stateName: String) throws(InputError) {
    guard run.hasEnded else { return }
    throw InputError(
      kind: .runEnded, stateName: stateName,
      reason:
        "The run has ended, so \(DisplayText.quoted(name: stateName)) waits for nothing: send the value to the handle of a run that is going (`retry()` or `restart(with:)` return one)."
    )
  }
}

extension Flowchart {
  /// The body of a retried run's first task.
  func runRetried(
    _ live: LiveRun<Context>, from point: FlowResumePoint<Context>, stepLimit: Int,
    isPaused: Bool, clock: RunClock, isolation: isolated (any Actor)?
  ) async {
    if isPaused { await live.waitForStart() }
    live.started(at: point.state)
    let interpreter = Interpreter(graph: graph, stepLimit: stepLimit)
    await live.go(
      on: TopLevelFlow(
        body: liveFlow(), interpreter: interpreter,
        control: RunControl(monitor: live, parks: true), isolation: isolation, clock: clock,
        step: .retry(point), cursor: Cursor(resuming: point, stepLimit: stepLimit),
        context: point.context))
  }
}

/// Why ``RunHandle/retry(clock:isPaused:isLogged:observer:updating:isolation:)`` or
/// ``RunHandle/restart(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` refused: the
/// handle and its run are unharmed.
public struct RetryError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong with the call.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private let code: String

    /// The run is still going (or paused): it has not failed yet.
    public static let runNotEnded = Kind(code: "run not ended")
    /// The run ended with a result: there is nothing to retry.
    public static let runSucceeded = Kind(code: "run succeeded")
    /// The run failed before it entered a state, so no state can run again.
    public static let noStateToRetry = Kind(code: "no state to retry")

    /// The kind in words.
    public var description: String { code }
  }

  /// What was wrong.
  public let kind: Kind
  /// A full sentence: what is wrong and what to do.
  public let reason: String

  /// The reason.
  public var description: String { reason }
}
