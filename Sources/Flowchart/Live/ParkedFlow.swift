// Parking: a live run whose top-level flow waits for input holds no task.
//
// A run suspended in a task keeps the task's whole asynchronous stack (the interpreter's
// frames, the wait's continuation) for as long as it waits, which can be forever: a run
// waiting for a user's answer. Yet its position is only its cursor and its context (see
// `Cursor.swift`). So when the top-level flow of a live run enters a waiting state that has
// no value yet, it parks:
//
// 1. `Interpreter.runFlow` asks the run (`RunMonitor.parks(at:flow:)`) before it runs the
//    state's code. The run reports `waitingForInput` and marks the flow as unwinding.
// 2. The flow throws `RunError.parking`, which no handler reports; the run's body
//    (`Flowchart.liveFlow()`) puts the cursor and the context back in the run's
//    `TopLevelFlow`, and the loop (`LiveRun.go(on:)`) hands it to the run
//    (`LiveRun.settle(_:)`). The task ends.
// 3. `send(_:to:)` to that state hands the value over (`LiveRunStateMachine.handedOver`,
//    not the mailbox, so a second value is kept for the next visit as it would be) and starts
//    a new task that goes on from the cursor
//    (`Interpreter.goOn(cursor:context:topLevel:isolation:)`):
//    the state's code runs and takes the value, as if the flow had waited. `cancel()` (or the
//    last handle going) starts the task cancelled, so the state fails as a cancelled wait
//    does, taking nothing. The task is detached, at the priority of the run's first task:
//    task-local values do not follow a run across a parked wait (the LiveRuns article says so).
//
// A value or a cancellation that comes while the flow unwinds is seen by `settle`, under the
// run's lock: the flow then goes on in the same task. Only the top-level flow of a live run
// parks (its control carries `RunControl.Flags.parks`); a dispatch branch, a map element or a
// subflow's inner run waits in its task, since its parent awaits it. A waiting state with a
// modifier (a timeout, say) waits in its task too: the modifier awaits the attempt.
//
// A delay parks the same way, until its deadline: a waker task, holding nothing of the flow,
// starts the next task then (see `Delay.swift`).

/// The top-level flow of a live run, between the tasks that run it: what a task needs to
/// run it on, and where it stands while no task does.
///
/// Only one task runs the flow at a time: the first, then each task the run starts when the
/// flow was parked (``LiveRun`` hands the flow from one to the next under its lock).
@usableFromInline
final class TopLevelFlow<Context: Sendable>: @unchecked Sendable {
  // `@unchecked`: `step`, `cursor` and `context` are written by the task that runs the flow
  // (it takes them when it starts, puts them back when it parks) and read by the next task
  // only after the run, under its lock, took the flow from the parked state and started
  // that task: the lock's release and the task's creation order every write before the next
  // read. No two tasks run one flow at once (see `LiveRunStateMachine.settle(_:)` and
  // `unpark()`). Everything else is immutable and `Sendable`.

  /// How the next task starts the flow.
  @usableFromInline
  enum Step: Sendable {
    /// From its first state.
    case start
    /// From the point a retried run starts from.
    case retry(FlowResumePoint<Context>)
    /// From the waiting state it parked at, which it has entered.
    case parked
  }

  /// The specialized body a task runs the flow with.
  let body: Flowchart<Context>.LiveFlow
  @usableFromInline let interpreter: Interpreter<Context>
  @usableFromInline let control: RunControl
  @usableFromInline let isolation: (any Actor)?
  let clock: RunClock
  /// The priority of the run's first task, which the tasks that go on after a parked wait
  /// take too.
  let priority: TaskPriority

  @usableFromInline private(set) var step: Step
  private var cursor: Cursor<Context>?
  private var context: Context?

  /// Made in the run's first task, whose priority it keeps for the tasks after it.
  init(
    body: @escaping Flowchart<Context>.LiveFlow, interpreter: Interpreter<Context>,
    control: RunControl, isolation: (any Actor)?, clock: RunClock, step: Step,
    cursor: consuming Cursor<Context>, context: Context
  ) {
    self.body = body
    self.interpreter = interpreter
    self.control = control
    self.isolation = isolation
    self.clock = clock
    priority = Task.currentPriority
    self.step = step
    self.cursor = consume cursor
    self.context = context
  }

  /// The cursor, for the task that runs the flow now.
  @usableFromInline
  func takeCursor() -> Cursor<Context> {
    guard let cursor = cursor.take() else {
      preconditionFailure("a task took a top-level flow that another task runs")
    }
    return cursor
  }

  /// The context, for the task that runs the flow now.
  @usableFromInline
  func takeContext() -> Context {
    guard let context = context.take() else {
      preconditionFailure("a task took a top-level flow that another task runs")
    }
    return context
  }

  /// Calls `body` with the parked flow's cursor and context, for a snapshot; `nil` when a
  /// task runs the flow. Only under the run's lock, while the flow is parked.
  func withParked<T>(_ body: (borrowing Cursor<Context>, Context) -> T) -> T? {
    guard let context, let taken = cursor.take() else { return nil }
    let result = body(taken, context)
    cursor = consume taken
    return result
  }

  /// Keeps the cursor and the context of a flow that parked at its state.
  @usableFromInline
  func park(cursor: consuming Cursor<Context>, context: Context) {
    self.cursor = consume cursor
    self.context = context
    step = .parked
  }
}

extension Flowchart {
  /// What a live run's tasks run: its top-level flow, from where `flow` stands (its first
  /// state, a retry's point, or the waiting state it parked at) to its end.
  ///
  /// - Returns: The run's result, or `nil` when the flow parked: `flow` then holds its
  ///   cursor and context.
  @usableFromInline
  typealias LiveFlow =
    @Sendable (TopLevelFlow<Context>) async throws(RunError) -> RunResult<Context>?

  /// The body of a live run's tasks; inlinable, so that a run started where the context's
  /// type is known runs a specialized interpreter (a retried run runs the generic one).
  @inlinable
  func liveFlow() -> LiveFlow {
    { flow throws(RunError) in
      var cursor = flow.takeCursor()
      var context = flow.takeContext()
      let interpreter = flow.interpreter
      do throws(RunError) {
        let decision: Decision
        switch flow.step {
        case .start:
          decision = try await interpreter.run(
            cursor: &cursor, context: &context, topLevel: flow.control,
            isolation: flow.isolation)
        case .retry(let point):
          decision = try await interpreter.resume(
            point, cursor: &cursor, context: &context, topLevel: flow.control,
            isolation: flow.isolation)
        case .parked:
          decision = try await interpreter.goOn(
            cursor: &cursor, context: &context, topLevel: flow.control,
            isolation: flow.isolation)
        }
        return self.result(cursor, decision, context: context)
      } catch {
        guard error.isParking else { throw error }
        flow.park(cursor: cursor, context: context)
        return nil
      }
    }
  }
}

extension Interpreter {
  /// Runs a live run's top-level flow on from the waiting state it parked at: the state's
  /// code, which takes the value kept for it (or, in a cancelled task, fails as a cancelled
  /// wait), its exit, then the rest of the flow, as ``run(cursor:context:topLevel:isolation:)``
  /// does.
  ///
  /// - Precondition: `cursor` is at the waiting state, which it entered.
  @usableFromInline
  func goOn(
    cursor: inout Cursor<Context>, context: inout Context, topLevel control: RunControl,
    isolation: (any Actor)?
  ) async throws(RunError) -> Decision {
    try await raisingOnCancellation(control) { () async throws(RunError) in
      let state = cursor.state
      let node = graph.nodeBase[Int(state)]
      do throws(RunError) {
        // Cancelled while parked: the wait fails as a cancelled wait does, taking nothing.
        if control.isCancelled {
          throw failure(CancellationError(), at: state, path: cursor.path, control: control)
        }
        // A delay unparks only once its deadline has passed (or cancelled, above): its
        // code, which would set a new deadline, does not run again.
        let outcome =
          isDelay(state)
          ? Outcome.next
          : try await runAsynchronous(
            node, at: state, cursor: &cursor, context: &context, control: control)
        control.monitor.unsafelyUnwrapped.decided(
          state, flow: cursor.flow, outcome: outcome, context: context)
        if cursor.follow(outcome, from: node) {
          try endFlow(at: state, path: cursor.path, control: control)
          return outcome.decision
        }
      } catch {
        control.monitor.unsafelyUnwrapped.failed(state, flow: cursor.flow, error: error)
        keepResumePoint(of: cursor, context: context, control: control)
        throw error
      }
      return try await run(
        cursor: &cursor, context: &context, control: control, isolation: isolation)
    }
  }
}

extension LiveRun {
  /// Runs the top-level flow in the current task until the run ends (then reports its
  /// result) or the flow parks.
  func go(on flow: TopLevelFlow<Context>) async {
    let outcome: Result<RunResult<Context>, RunError>
    do throws(RunError) {
      while true {
        if let result = try await flow.body(flow) {
          outcome = .success(result)
          break
        }
        if settle(flow) { return }
        // A value or a cancellation came while the flow unwound: it goes on in this task.
      }
    } catch {
      outcome = .failure(error)
    }
    end(with: outcome)
  }

  /// Ends the run with `outcome`: keeps the retry's verdict, reports the end, and hands the
  /// result to whoever awaits it.
  func end(with outcome: Result<RunResult<Context>, RunError>) {
    finish(outcome)
  }

  /// Starts a task that runs `flow` on from where it parked, and makes it the run's task
  /// (the one ``cancel()`` cancels) unless the flow has moved on by then.
  ///
  /// The task is detached from the caller (who sent a value, cancelled, or let the last
  /// handle go), at the run's priority, and starts cancelled when the run was cancelled, so
  /// that the waiting state fails at once as a cancelled wait does.
  func startTask(_ start: LiveRunStateMachine<LiveRunTypes>.StartTask) {
    // The flow leaves the delay it was parked at (cancelled, say): its waker has no more to do.
    start.waker?.cancel()
    let flow = unsafeDowncast(start.flow, to: TopLevelFlow<Context>.self)
    let isCancelled = start.isCancelled
    let task = Task.detached(priority: flow.priority) { [self] in
      if isCancelled { withUnsafeCurrentTask { $0?.cancel() } }
      await withTaskLocals(clock: flow.clock) { await go(on: flow) }
    }
    adopt(task, number: start.number)
  }

  /// Runs `body` with the task-local values every task of the run has: the run's clock, for
  /// timeouts and backoffs, and the run itself, the mailbox of its waiting states.
  func withTaskLocals(clock: RunClock, _ body: @Sendable () async -> Void) async {
    await RunClock.$current.withValue(clock) {
      await LiveInbox.$current.withValue(self) { await body() }
    }
  }

  /// Takes the flow's parked state in hand once its task has unwound.
  ///
  /// - Returns: `true` when the flow is parked (its task ends); `false` when a value for
  ///   its state, or a cancellation, came while it unwound, or every handle is gone (the
  ///   run is then cancelled): the flow goes on in the current task.
  func settle(_ flow: TopLevelFlow<Context>) -> Bool {
    switch self.state.withLock({ $0.machine.settle(flow) }) {
    case .parked:
      servedParked()
      return true
    case .parkedUntil(let deadline, let waker):
      startWaker(until: deadline, number: waker, clock: flow.clock, priority: flow.priority)
      // A snapshot of a flow parked at a delay holds its deadline.
      servedParked()
      return true
    case .goOn(let cancellingCurrentTask):
      if cancellingCurrentTask { withUnsafeCurrentTask { $0?.cancel() } }
      return false
    }
  }
}
