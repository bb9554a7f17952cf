/// A run that is going: its result, its events, and the means to pause, resume or cancel
/// it.
///
/// ``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` starts the run on a task
/// of its own and returns at once (while the run waits for input at its top level, no task
/// runs it: see ``Wait``). The handle is a `Sendable` value: copies refer to
/// the same run, and any task may use them.
///
/// ```swift
/// let handle = chart.start(with: Subject(isWillingToExercise: true, isInjured: false))
/// handle.pause()  // takes effect at the next state boundary
/// print(handle.positionNames)  // where the run's flows are: ["Lift weights"]
/// handle.resume()
/// let result = try await handle.result
/// ```
///
/// A handle runs one run, once: there is no way to start it again. Once it has ended (see
/// ``hasEnded``), ``retry(clock:isPaused:isLogged:observer:updating:isolation:)`` goes on from where a
/// failed or cancelled run stopped, and ``restart(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)``
/// (or `chart.start(with:)`) runs the chart again from its start; each returns a new handle.
/// An ended handle's ``pause()`` and ``resume()`` do nothing, and ``send(_:to:)-(_,String)``
/// throws an ``InputError``.
public struct RunHandle<Context: Sendable>: Sendable {
  let run: LiveRun<Context>
  /// Cancels the run if it waits once every copy of the handle is gone (see
  /// `RunHandle+Lifetime.swift`).
  let lifetime: HandleLifetime<Context>

  /// The run's result, once it ends.
  ///
  /// Any number of tasks may wait for it; waiting does not start, hold or cancel the run.
  ///
  /// - Throws: The ``RunError`` the run ended with.
  public var result: RunResult<Context> {
    get async throws(RunError) { try await run.result().get() }
  }

  /// Cancels the run, as cancelling the task of `run(with:)` would: the run stops before
  /// its next state (a paused run at once) and ends with a ``RunError/Kind/cancelled``
  /// error. Does nothing once the run has ended.
  public func cancel() {
    run.cancel()
  }

  /// Pauses the run at its next state boundary: the state in progress finishes and its
  /// exit is taken, and the next state is not entered until ``resume()``. In a dispatch,
  /// every branch pauses at its own next boundary.
  ///
  /// Each flow reports ``RunEvent/Kind/paused`` when it stops. A paused run makes no step:
  /// a value sent to a waiting state is kept until ``resume()``, and a delay whose deadline
  /// passes holds its flow there until then. Pausing a paused run, or one that has ended,
  /// does nothing.
  public func pause() {
    run.pause()
  }

  /// Lets a paused run go on; each waiting flow reports ``RunEvent/Kind/resumed``. Resuming
  /// a run that is not paused does nothing.
  public func resume() {
    run.resume()
  }

  /// Whether the run is paused: ``pause()`` was called, and neither ``resume()`` nor the
  /// run's end came since. The flows may still be on their way to their next boundary.
  public var isPaused: Bool { run.isPaused }

  /// Whether the run has ended, with a result or an error.
  public var hasEnded: Bool { run.hasEnded }

  /// The states the run's flows are at, the top-level flow's first, then its running
  /// dispatch branches' in the order they started: the state each is running, or the one
  /// it is paused before. Empty before the run's first state and once it has ended.
  ///
  /// A ``StateID`` prints as its number (`[#4]`); to show where the run is, print
  /// ``positionNames``.
  public var positions: [StateID] { run.positions }

  /// The names of the states in ``positions``, in the same order, read at once with them:
  /// what a message or a log shows (`["Reserve stock", "Charge the card"]`).
  public var positionNames: [String] { run.names(of: run.positions) }

  /// Sends `value` to the waiting state (a ``Wait``) named `stateName`.
  ///
  /// A flow waiting at the state takes it at once; otherwise the run keeps it until it
  /// reaches the state. A paused run keeps it too: the flow waiting there takes it once the
  /// run is resumed (a paused run makes no step). The first value sent wins until the state
  /// takes it: a later one is dropped, and the call returns `false` (as it does once the run
  /// has ended).
  ///
  /// - Returns: Whether the value was delivered or kept (`false` also when the run ended
  ///   during the call).
  /// - Throws: An ``InputError`` when no state or several have the name, the state does
  ///   not wait for input, or it waits for another type, and when the run has ended. The
  ///   run is unharmed.
  @discardableResult
  public func send<Value: Sendable>(_ value: Value, to stateName: String) throws(InputError)
    -> Bool
  {
    try refuseInputOnceEnded(to: stateName)
    return try run.send(
      value, toStateIn: run.graph.names.states(named: stateName), named: stateName)
  }

  /// Sends `value` to the waiting state `state`; see ``send(_:to:)-(_,String)``.
  @discardableResult
  public func send<Value: Sendable>(_ value: Value, to state: StateID) throws(InputError) -> Bool {
    try refuseInputOnceEnded(to: "\(state)")
    let states = run.graph.records.indices.contains(state.index) ? [Int32(state.index)] : []
    return try run.send(value, toStateIn: states, named: "\(state)")
  }

  /// The run's log so far: empty unless the run was started with `isLogged: true` or
  /// `log:` options. See ``RunLog`` for its format, and for how much of it stays in memory.
  public var log: RunLog { run.log }

  /// A new stream of the run's events from now on, for one subscriber.
  ///
  /// Subscribe as many times as you like; each stream gets every event that comes after it
  /// was made, in order, and finishes after the run's last event
  /// (``RunEvent/Kind/runFinished(_:)`` or ``RunEvent/Kind/runFailed(_:)``). A stream made
  /// after the run ended is already finished. To see every event of a run, start it with
  /// `isPaused: true`, subscribe, then ``resume()``.
  ///
  /// An observer that does not keep up never slows the run: each stream buffers at most
  /// `limit` events its reader has not taken yet, and when it is full the oldest of them is
  /// dropped to make room for the newest (so the last event, the run's end, always
  /// arrives). The reader takes the events waiting in batches; see ``RunEventStream``.
  ///
  /// The stream's memory follows the events waiting for its reader, not `limit`: a limit
  /// of `Int.max` costs nothing more until events wait, and holds every event the reader
  /// has not taken yet.
  ///
  /// - Parameter limit: The most events the stream holds before its reader takes them; at
  ///   least 1 (a smaller limit counts as 1).
  public func events(bufferingNewest limit: Int = 1024) -> RunEventStream {
    run.events(bufferingNewest: limit)
  }
}

extension Flowchart {
  /// Starts a run with `context` and returns its handle at once.
  ///
  /// The run is the same as ``run(with:stepLimit:isolation:)``'s, on a task of its own:
  /// observe it with ``RunHandle/events(bufferingNewest:)`` or `observer`, pause and resume it
  /// at state boundaries, cancel it, and await its ``RunHandle/result``.
  ///
  /// The task runs the synchronous states on `isolation`, the caller's actor by default (a
  /// run started from the main actor runs them on the main actor), and each asynchronous
  /// state's closure and each dispatch branch on the global concurrent executor, as
  /// ``run(with:stepLimit:isolation:)`` does; `observer`'s callbacks are called from the flow
  /// that reports, wherever it runs.
  ///
  /// ```swift
  /// let handle = chart.start(with: context, isPaused: true)
  /// let events = handle.events()
  /// handle.resume()
  /// for await event in events { print(event) }
  /// ```
  ///
  /// - Parameters:
  ///   - context: The value the states read and change.
  ///   - stepLimit: As for ``run(with:stepLimit:isolation:)``; an invalid limit fails the run.
  ///   - clock: The clock that times the run's events; a `ContinuousClock` unless a test
  ///     wants times it controls.
  ///   - isPaused: Whether the run waits, before it reports anything, for
  ///     ``RunHandle/resume()``: a way to subscribe before the first event. Such a run
  ///     makes its task only when it is first resumed or cancelled.
  ///   - isLogged: Whether the run keeps a ``RunHandle/log``, which compares the context
  ///     before and after each state by reflection: the newest
  ///     ``RunLog/Options/standardLineLimit`` lines and counts by state. For other limits,
  ///     or a sink that takes every line as it happens, see
  ///     ``start(with:stepLimit:clock:isPaused:log:observer:isolation:)``.
  ///   - observer: Callbacks the run calls as it enters and finishes states, and when it
  ///     ends.
  ///   - isolation: The actor the synchronous states run on: by default the caller's
  ///     (`#isolation`), or `nil` when the caller is not isolated to an actor.
  /// - Returns: The handle of the run, already going (or waiting for `resume()`).
  @inlinable
  public func start<C: Clock>(
    with context: Context, stepLimit: Int? = nil, clock: C = ContinuousClock(),
    isPaused: Bool = false, isLogged: Bool = false, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) -> RunHandle<Context> where C.Duration == Duration {
    // Inlinable, so that the run's interpreter is specialized for the caller's context: the
    // rest of the start (the live run, its task) is not generic over it and stays inside.
    start(
      with: context, stepLimit: stepLimit, clock: clock, isPaused: isPaused,
      log: isLogged ? .standard : nil, observer: observer, isolation: isolation,
      flow: liveFlow())
  }

  /// ``start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` with the run's
  /// top-level flow made by the caller.
  @usableFromInline
  func start<C: Clock>(
    with context: Context, stepLimit: Int?, clock: C, isPaused: Bool, log: RunLog.Options?,
    observer: RunObserver?, isolation: isolated (any Actor)?, flow: @escaping LiveFlow
  ) -> RunHandle<Context> where C.Duration == Duration {
    let runClock = RunClock(clock, countingFromNow: true)
    let live = LiveRun(
      graph: graph, isPaused: isPaused, observer: observer,
      loggedContext: log != nil ? context : nil, log: log ?? .standard, clock: runClock)
    let chart = self
    let first = startIndex
    if isPaused {
      // Held at its start: what a snapshot of it holds until it starts.
      live.keepStart(
        CapturedFlow(
          .entering, at: first, context: context, path: [], stepCount: 0,
          stepLimit: (try? validatedStepLimit(stepLimit)) ?? 0))
    }
    let body: @Sendable () async -> Void = {
      await live.withTaskLocals(clock: runClock) {
        await chart.runLive(
          live, from: first, with: context, stepLimit: stepLimit, isPaused: isPaused,
          clock: runClock, isolation: isolation, flow: flow)
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

  /// The body of a live run's first task.
  func runLive(
    _ live: LiveRun<Context>, from first: Int32, with context: Context, stepLimit: Int?,
    isPaused: Bool, clock: RunClock, isolation: isolated (any Actor)?, flow: @escaping LiveFlow
  ) async {
    if isPaused { await live.waitForStart() }
    live.started(at: first)
    let interpreter: Interpreter<Context>
    do throws(RunError) {
      interpreter = Interpreter(graph: graph, stepLimit: try validatedStepLimit(stepLimit))
    } catch {
      live.end(with: .failure(error))
      return
    }
    await live.go(
      on: TopLevelFlow(
        body: flow, interpreter: interpreter, control: RunControl(monitor: live, parks: true),
        isolation: isolation, clock: clock, step: .start,
        cursor: Cursor(at: first, stepLimit: interpreter.stepLimit), context: context))
  }
}
