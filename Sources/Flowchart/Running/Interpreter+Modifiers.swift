import CFlowchartAtomics

// Runs a state with modifiers: its timeout, its retries and its catch routes.
//
// The compiler gives a modified state's node the kind ``CodeKind/modified`` and a
// ``ModifiedCode`` that holds the node the state would have had (see
// `Compiling/Compiler+Modifiers.swift`). That kind suspends, so the synchronous loop never
// runs it: the asynchronous loop hands it to ``Interpreter/runModified(_:at:cursor:context:control:)``
// and a synchronous run to ``Interpreter/runModifiedSynchronously(_:at:cursor:context:)``,
// each called at one place; the state's own code is called through ``Node/call(_:)`` and
// ``Node/callSynchronously(_:)``, as in the loops. States without modifiers never reach this
// file.
//
// A subflow or a map with modifiers, in a live run, runs each attempt with a `SubflowHost`
// (see `Durable/NestedRun.swift`) that brings the attempt's number and its timeout's
// absolute deadline (`SubflowAttempt`), so that a snapshot holds the inner run where it
// stands along with them. Its timeout then waits for that wall-clock deadline. A run resumed
// inside such an attempt goes on with the snapshot's attempt and deadline (a deadline that
// passed times out at once, without running the code); a later attempt enters the subflow
// afresh, with its `enter` mapping, as it would have.

/// A modified state's code, as its node points to it: the state's own node (its code's kind
/// and box, and its exits), its modifiers and where its catch routes lead.
///
/// `@unchecked Sendable` because ``inner`` holds an unmanaged pointer to the state's box:
/// every property is a `let` set in `init`, and the box the pointer refers to is owned by
/// the graph, which also owns this object (in ``Graph/codeBoxes``) and outlives every run
/// that reads it.
@usableFromInline
final class ModifiedCode: @unchecked Sendable {
  /// The node the state would have without modifiers.
  let inner: Node
  let modifiers: StateModifiers
  /// The state each of the modifiers' catch routes leads to, in their order.
  let catchTargets: [Int32]

  init(inner: Node, modifiers: StateModifiers, catchTargets: [Int32]) {
    self.inner = inner
    self.modifiers = modifiers
    self.catchTargets = catchTargets
  }

  /// The code of `node`, a ``CodeKind/modified`` node.
  static func of(_ node: Node) -> ModifiedCode {
    unsafeDowncast(
      Unmanaged<AnyObject>.fromOpaque(node.code.unsafelyUnwrapped).takeUnretainedValue(),
      to: ModifiedCode.self)
  }
}

/// How a modified state ended, for the loop that ran it.
@usableFromInline
enum ModifiedStep {
  /// The state's code decided: the loop reports it and follows the exit, as for any state.
  case decided(Outcome)
  /// A catch route took the error: the cursor is at the route's target, reported already.
  case caught
  /// A final multiple condition decided its key, reported already: the flow ended.
  case ended(Decision)
}

/// What to do after an attempt failed.
private enum Recovery {
  case retry(after: Duration)
  /// Take the catch route at this index.
  case caught(Int)
  case fail
}

/// The clock that times a run's timeouts and backoff delays: the one given to
/// ``Flowchart/run(with:stepLimit:clock:isolation:)`` or to a live run, or a `ContinuousClock`.
///
/// A task-local, read only by modified states that wait, so that runs without modifiers
/// carry no clock; a dispatch's branches inherit it.
///
/// Every wait on it is for an absolute deadline, read once: ``sleep(until:)`` sleeps until
/// the clock's instant of a wall-clock deadline (``WallClockMapping/instant(at:)``), and
/// ``deadline`` fixes an instant of the clock that a later sleep waits for. Nothing works
/// out a duration from one reading of the clock and then sleeps for it from another, so a
/// clock that moves between the two (a test advancing its `TestClock`, or real time
/// passing) cannot leave a sleeper asleep past its deadline.
struct RunClock: Sendable {
  /// The clock, and the instant the run's times count from: one object, so that a run (and
  /// a live run, which keeps its clock for its life) pays one allocation for its clock.
  private let box: RunClockBox

  /// The clock `clock`. With `countingFromNow` (a live run's clock), it reads its `now`
  /// once, here, and ``elapsed()`` counts from then; without (a run that times no events), a
  /// clock given by the caller is not read until the run waits on it, and ``elapsed()`` is
  /// not for use.
  init<C: Clock>(_ clock: C, countingFromNow: Bool = false) where C.Duration == Duration {
    if C.self == ContinuousClock.self {
      box = ContinuousClockBox(countingFromNow: countingFromNow)
    } else if let mapping = clock as? any WallClockMapping {
      box = Self.mappingBox(mapping, countingFromNow: countingFromNow)
    } else {
      box = ClockBox(clock, countingFromNow: countingFromNow)
    }
  }

  /// The box of a clock that maps its instants to wall-clock times itself.
  private static func mappingBox<M: WallClockMapping>(_ mapping: M, countingFromNow: Bool)
    -> RunClockBox
  {
    MappingClockBox(mapping, countingFromNow: countingFromNow)
  }

  /// Fixes the clock's instant `duration` from the moment it is called, and returns what
  /// sleeps until that instant (returning at once once it has passed).
  func deadline(_ duration: Duration) -> @Sendable () async throws -> Void {
    box.deadline(duration)
  }

  /// The wall-clock time at the clock's `now`: its own, for a ``WallClockMapping`` clock (a
  /// test clock's moves only when the test advances it), the system's otherwise. What a
  /// deadline that must outlive the process is measured against.
  func wallClockNow() -> WallClockTime {
    box.wallClockNow()
  }

  /// The time since the clock was made, by the clock: a live run's event times.
  func elapsed() -> Duration {
    box.elapsed()
  }

  /// Sleeps for `duration` from now, on the clock.
  func sleep(_ duration: Duration) async throws {
    try await deadline(duration)()
  }

  /// Sleeps until the clock's wall-clock time reaches `time`: until the clock's instant of
  /// it, so that the clock moving meanwhile cannot put the wake off; returns at once when
  /// the time has passed.
  func sleep(until time: WallClockTime) async throws {
    try await box.sleep(until: time)
  }

  @TaskLocal static var current: RunClock?

  /// The run's clock.
  static var ofRun: RunClock { current ?? RunClock(ContinuousClock()) }
}

/// A ``RunClock``'s clock, behind one reference: the operations a run needs, each
/// overridden by a subclass generic over the clock.
class RunClockBox: @unchecked Sendable {
  // `@unchecked`: no stored property here; the subclasses' are `let`s of `Sendable` types.

  func deadline(_ duration: Duration) -> @Sendable () async throws -> Void {
    preconditionFailure("RunClockBox is abstract")
  }

  func wallClockNow() -> WallClockTime {
    preconditionFailure("RunClockBox is abstract")
  }

  func elapsed() -> Duration {
    preconditionFailure("RunClockBox is abstract")
  }

  func sleep(until time: WallClockTime) async throws {
    preconditionFailure("RunClockBox is abstract")
  }
}

/// A clock that knows nothing of wall-clock time: a deadline's wall-clock time is the
/// system's, turned into a duration from now on the clock.
private final class ClockBox<C: Clock>: RunClockBox, @unchecked Sendable
where C.Duration == Duration {
  // `@unchecked`: the two `let`s are a `Clock` (`Sendable`) and its instant (`Sendable`);
  // nothing else is stored, and nothing changes after `init`.
  let clock: C
  /// The instant ``elapsed()`` counts from, if it counts.
  let origin: C.Instant?

  init(_ clock: C, countingFromNow: Bool) {
    self.clock = clock
    origin = countingFromNow ? clock.now : nil
  }

  override func deadline(_ duration: Duration) -> @Sendable () async throws -> Void {
    let clock = clock
    let instant = clock.now.advanced(by: duration)
    return { try await clock.sleep(until: instant, tolerance: nil) }
  }

  override func wallClockNow() -> WallClockTime { .now }

  override func elapsed() -> Duration { origin.map { $0.duration(to: clock.now) } ?? .zero }

  override func sleep(until time: WallClockTime) async throws {
    let remaining = WallClockTime.now.duration(to: time)
    guard remaining > .zero else { return }
    try await clock.sleep(until: clock.now.advanced(by: remaining), tolerance: nil)
  }
}

/// `ContinuousClock`, the usual one, as a ``MappingClockBox`` would keep it, but whose
/// ``elapsed()`` reads the clock's nanoseconds in one C call
/// (`flowchart_continuous_nanoseconds`, the same clock as `ContinuousClock.now`) without the
/// conversions to an instant and back to a duration: a live run read by subscribers or an
/// observer reads it at every state. Its one stored word keeps the object at 24 bytes.
private final class ContinuousClockBox: RunClockBox, @unchecked Sendable {
  // `@unchecked`: as `ClockBox`; the one `let` is an integer.
  let originNanoseconds: Int64

  init(countingFromNow: Bool) {
    // Reading the system's clock is not observable: read it either way.
    originNanoseconds = flowchart_continuous_nanoseconds()
  }

  override func deadline(_ duration: Duration) -> @Sendable () async throws -> Void {
    let clock = ContinuousClock()
    let instant = clock.now.advanced(by: duration)
    return { try await clock.sleep(until: instant, tolerance: nil) }
  }

  override func wallClockNow() -> WallClockTime { ContinuousClock().wallClockNow }

  override func elapsed() -> Duration {
    .nanoseconds(flowchart_continuous_nanoseconds() &- originNanoseconds)
  }

  override func sleep(until time: WallClockTime) async throws {
    let clock = ContinuousClock()
    let instant = clock.instant(at: time)
    guard clock.now < instant else { return }
    try await clock.sleep(until: instant, tolerance: nil)
  }
}

/// A clock that maps its instants to wall-clock times (a test clock): a deadline is the
/// clock's own instant of it.
private final class MappingClockBox<M: WallClockMapping>: RunClockBox, @unchecked Sendable {
  // `@unchecked`: as `ClockBox`.
  let clock: M
  /// The instant ``elapsed()`` counts from, if it counts.
  let origin: M.Instant?

  init(_ clock: M, countingFromNow: Bool) {
    self.clock = clock
    origin = countingFromNow ? clock.now : nil
  }

  override func deadline(_ duration: Duration) -> @Sendable () async throws -> Void {
    let clock = clock
    let instant = clock.now.advanced(by: duration)
    return { try await clock.sleep(until: instant, tolerance: nil) }
  }

  override func wallClockNow() -> WallClockTime { clock.wallClockNow }

  override func elapsed() -> Duration { origin.map { $0.duration(to: clock.now) } ?? .zero }

  override func sleep(until time: WallClockTime) async throws {
    let instant = clock.instant(at: time)
    guard clock.now < instant else { return }
    try await clock.sleep(until: instant, tolerance: nil)
  }
}

extension Interpreter {
  /// Runs the modified state `state`, whose node is `node`, in an asynchronous flow: each
  /// attempt within the timeout, if any; a failed attempt retried as the retry rule says,
  /// after its backoff delay (and, in a paused live run, once the run is resumed); the last
  /// failure caught by the first catch route that takes it, or the state's failure.
  @usableFromInline
  func runModified(
    _ node: Node, at state: Int32, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl
  ) async throws(RunError) -> ModifiedStep {
    let code = ModifiedCode.of(node)
    let original = context
    var attempt = 1
    // A run resumed from a snapshot taken between two attempts of this state goes on with
    // the next attempt, after the rest of its backoff delay.
    if _slowPath(control.isObserved), let resumed = ResumedRetry.take(at: state) {
      try await waitBeforeAttempt(
        resumed.attempt, at: state, sleeping: nil, until: resumed.deadline, cursor: cursor,
        context: original, control: control)
      attempt = resumed.attempt
    }
    // A subflow or a map of a live run runs each attempt hosted; one a resumed flow stands
    // in goes on with the snapshot's attempt and timeout.
    var resumedTimeout: WallClockTime? = nil
    let hosts = _slowPath(control.isObserved) && isSubflow(state)
    if hosts, let attachment = graph.records[Int(state)].attachment,
      let resumed = ResumedPositions.current?.subflowAttempt(attachment)
    {
      attempt = resumed.attempt
      resumedTimeout = resumed.timeout
    }
    while true {
      let thrown: any Error
      do {
        let result =
          if _slowPath(hosts) {
            try await hostedAttempt(
              code, at: state, attempt: attempt, timeout: resumedTimeout, cursor: cursor,
              original: original, context: &context, control: control)
          } else if _slowPath(attempt > 1 && control.isObserved) {
            // A live run's state can read its attempt (`RunInfo.current`).
            try await RunAttempt.$current.withValue(attempt) {
              try await self.attempt(code, at: state, context: &context)
            }
          } else {
            try await self.attempt(code, at: state, context: &context)
          }
        return try ended(result, at: state, cursor: cursor, context: context, control: control)
      } catch {
        thrown = error
      }
      if control.isCancelled || Task.isCancelled {
        // A failed state leaves the context as it found it: a live run is retried from it.
        context = original
        throw failure(thrown, at: state, path: cursor.path, control: control)
      }
      switch recovery(after: thrown, attempt: attempt, code: code) {
      case .retry(let delay):
        // A live run fixes the backoff's deadline before it reports the retry: whoever
        // moves the run's clock by the delay on seeing the event passes the deadline.
        var deadline: WallClockTime? = nil
        if _slowPath(control.isObserved) {
          deadline = RunClock.ofRun.wallClockNow().advanced(by: delay)
        }
        if let monitor = control.monitor {
          monitor.modifierEvent(
            .attemptFailed(attempt, reason: Self.reason(thrown)), at: state, flow: cursor.flow)
          monitor.modifierEvent(.retrying(attempt + 1, after: delay), at: state, flow: cursor.flow)
        }
        context = original
        resumedTimeout = nil
        try await waitBeforeAttempt(
          attempt + 1, at: state, sleeping: delay, until: deadline, cursor: cursor,
          context: original, control: control)
        attempt += 1
      case .caught(let index):
        context = original
        take(code, route: index, for: thrown, at: state, cursor: &cursor, context: &context)
        if let monitor = control.monitor {
          let target = code.catchTargets[index]
          monitor.modifierEvent(
            .caught(
              reason: Self.reason(thrown), target: StateID(target),
              targetName: graph.records[Int(target)].name), at: state, flow: cursor.flow)
        }
        return .caught
      case .fail:
        context = original
        throw finalFailure(thrown, attempts: attempt, at: state, path: cursor.path)
      }
    }
  }

  /// Waits before attempt `next` of the modified state `state`: until `deadline` on the
  /// run's wall-clock time when there is one (a live run's, or one resumed from a snapshot),
  /// else for its backoff `delay`; then, in a paused run, until it is resumed.
  ///
  /// Between two attempts is a boundary for a pause: the delay runs its course on the run's
  /// clock, paused or not, and a paused run starts the next attempt only once it is resumed.
  /// A run cancelled while paused stops here, at this state. A flow of a live
  /// run leaves its position with the run meanwhile (the state, the next attempt, the
  /// backoff's absolute deadline, the context from before the state), for a snapshot.
  private func waitBeforeAttempt(
    _ next: Int, at state: Int32, sleeping delay: Duration?, until deadline: WallClockTime?,
    cursor: borrowing Cursor<Context>, context: Context, control: RunControl
  ) async throws(RunError) {
    var left = false
    // A live run records the backoff's absolute deadline (a snapshot keeps it), and the flow
    // sleeps until that same deadline, not for a duration read off the clock again.
    var until = deadline
    if _slowPath(control.isObserved) {
      let fixed = deadline ?? RunClock.ofRun.wallClockNow().advanced(by: delay ?? .zero)
      until = fixed
      left = leaveRetryPosition(
        at: state, attempt: next, until: fixed, path: cursor.path, context: context,
        flow: cursor.flow, control: control)
    }
    do {
      if let until {
        try await RunClock.ofRun.sleep(until: until)
      } else if let delay, delay > .zero {
        try await RunClock.ofRun.sleep(delay)
      }
    } catch {
      if left { tookPosition(flow: cursor.flow, control: control) }
      throw failure(error, at: state, path: cursor.path, control: control)
    }
    // A flow that left its position decides to go on, and takes it back, in one section
    // of the run's lock: a snapshot of the run paused meanwhile never holds it here while it
    // goes on to the attempt.
    if left ? !goesOn(flow: cursor.flow, control: control) : control.flags.contains(.paused) {
      await control.monitor?.waitWhilePaused(
        before: state, flow: cursor.flow, tookPosition: left)
      if control.isCancelled || Task.isCancelled {
        throw self.error(
          .cancelled, at: state, path: cursor.path,
          reason:
            "The run was cancelled while paused in \(modifiedDescription(state)), before its attempt \(next)."
        )
      }
    }
  }

  /// Runs the modified state `state` in a synchronous run: its modifiers do not wait (the
  /// compiler counts a state whose modifiers wait as asynchronous), so retries follow each
  /// other at once, and a catch route works as in an asynchronous run.
  @usableFromInline
  func runModifiedSynchronously(
    _ node: Node, at state: Int32, cursor: inout Cursor<Context>, context: inout Context
  ) throws(RunError) -> ModifiedStep {
    let code = ModifiedCode.of(node)
    let original = context
    var attempt = 1
    while true {
      let thrown: any Error
      do {
        let result = try code.inner.callSynchronously(&context)
        return try ended(result, at: state, cursor: cursor, context: context, control: .inert)
      } catch {
        thrown = error
      }
      // As in an asynchronous run, the state leaves the context as it found it however it
      // ends: retried, caught or failed.
      context = original
      if Task.isCancelled {
        throw failure(thrown, at: state, path: cursor.path, control: .inert)
      }
      switch recovery(after: thrown, attempt: attempt, code: code) {
      case .retry:
        attempt += 1
      case .caught(let index):
        take(code, route: index, for: thrown, at: state, cursor: &cursor, context: &context)
        return .caught
      case .fail:
        throw finalFailure(thrown, attempts: attempt, at: state, path: cursor.path)
      }
    }
  }

  /// The error of a synchronous run that reaches `state` when its modifiers wait, or `nil`
  /// when the state is asynchronous for another reason (its code).
  func waitingModifiersError(_ state: Int32, path: borrowing PathRecorder) -> RunError? {
    let node = graph.nodeBase[Int(state)]
    guard node.kind == .modified else { return nil }
    let code = ModifiedCode.of(node)
    guard code.modifiers.waits, !code.inner.kind.suspends else { return nil }
    let what = code.modifiers.timeout != nil ? "has a timeout" : "waits between its retries"
    return error(
      .asynchronousState, at: state, path: path,
      reason:
        "\(modifiedDescription(state).capitalizedFirst) \(what), which needs a clock, so the chart cannot run synchronously. Use `try await chart.run(with:)`, or remove the timeout and the retries' backoff."
    )
  }

  // MARK: - Attempts

  /// Runs attempt `attempt` of the subflow or map `state` of a live run with its
  /// ``SubflowHost``, within its timeout if it has one: until `timeout` when a resumed run
  /// goes on with it (timing out at once when it passed), else until the wall-clock
  /// deadline fixed as the attempt starts, which the host keeps for a snapshot.
  private func hostedAttempt(
    _ code: ModifiedCode, at state: Int32, attempt: Int, timeout: WallClockTime?,
    cursor: borrowing Cursor<Context>, original: Context, context: inout Context,
    control: RunControl
  ) async throws -> CodeResult {
    var deadline: WallClockTime? = nil
    if let limit = code.modifiers.timeout {
      let now = RunClock.ofRun.wallClockNow()
      let fixed = timeout ?? now.advanced(by: limit)
      guard now < fixed else {
        throw StateTimeoutError(stateName: graph.records[Int(state)].name, limit: limit)
      }
      deadline = fixed
    }
    let host = subflowHost(
      at: state, cursor: cursor, context: original, control: control,
      entered: SubflowAttempt(attempt: attempt, timeout: deadline))
    // As any state's, a later attempt's code can read its attempt (`RunInfo.current`).
    return try await RunAttempt.$current.withValue(attempt > 1 ? attempt : RunAttempt.current) {
      try await SubflowHost.$current.withValue(host) {
        try await self.attempt(code, at: state, context: &context, until: deadline)
      }
    }
  }

  /// Runs the state's own code once, within its timeout if it has one.
  ///
  /// The code of a state with a timeout runs in a child task, on a copy of the context,
  /// beside a sleep on the run's clock; whichever ends first cancels the other, and the
  /// attempt returns once both have ended (structured concurrency: code that ignores its
  /// cancellation holds the run until it returns). Its changes to the context are kept only
  /// when it finished in time.
  ///
  /// `until`, when given, is the timeout's wall-clock deadline (a hosted subflow's), which
  /// the timeout waits for instead of its limit from now.
  private func attempt(
    _ code: ModifiedCode, at state: Int32, context: inout Context,
    until deadline: WallClockTime? = nil
  ) async throws -> CodeResult {
    guard let limit = code.modifiers.timeout else {
      return try await code.inner.call(&context)
    }
    // The attempt's deadline is fixed as it starts, not when the sleep's task first runs.
    let timedOut: @Sendable () async throws -> Void
    if let deadline {
      let clock = RunClock.ofRun
      timedOut = { try await clock.sleep(until: deadline) }
    } else {
      timedOut = RunClock.ofRun.deadline(limit)
    }
    let start = context
    let ended = await withTaskGroup(of: TimedAttempt<Context>.self) { group in
      group.addTask {
        var copy = start
        do {
          let result = try await code.inner.call(&copy)
          return .finished(.success(FinishedAttempt(result: result, context: copy)))
        } catch {
          return .finished(.failure(error))
        }
      }
      group.addTask {
        do {
          try await timedOut()
          return .timedOut
        } catch {
          return .clockStopped
        }
      }
      var first = await group.next()
      if case .clockStopped = first {
        // The run was cancelled: the code's own end says how.
        first = await group.next()
      }
      group.cancelAll()
      return first
    }
    switch ended {
    case .finished(.success(let finished)):
      context = finished.context
      return finished.result
    case .finished(.failure(let error)):
      throw error
    case .timedOut:
      throw StateTimeoutError(stateName: graph.records[Int(state)].name, limit: limit)
    case .clockStopped, nil:
      throw CancellationError()
    }
  }

  /// How an attempt that returned ends the state: a decision the loop reports, or a final
  /// key, reported here.
  private func ended(
    _ result: CodeResult, at state: Int32, cursor: borrowing Cursor<Context>,
    context: Context, control: RunControl
  ) throws(RunError) -> ModifiedStep {
    switch result {
    case .outcome(let outcome): return .decided(outcome)
    case .key(let decision):
      if let monitor = control.monitor {
        monitor.decided(
          state, flow: cursor.flow, key: decision.key.unsafelyUnwrapped, context: context)
      }
      try endFlow(at: state, path: cursor.path, control: control)
      return .ended(decision)
    }
  }

  // MARK: - Failures

  /// What follows attempt `attempt`'s failure with `error`.
  private func recovery(after error: any Error, attempt: Int, code: ModifiedCode) -> Recovery {
    // A script's own problem is no failure of the state: nothing retries or catches it.
    if isScriptProblem(error) { return .fail }
    if let retry = code.modifiers.retry, attempt <= retry.count, retry.filter(error) {
      return .retry(after: retry.backoff.delay(beforeRetry: attempt))
    }
    if let index = code.modifiers.catches.firstIndex(where: { $0.filter(error) }) {
      return .caught(index)
    }
    return .fail
  }

  /// Takes catch route `index`: its handler stores `error` in the context, and the cursor
  /// moves to the route's target.
  private func take(
    _ code: ModifiedCode, route index: Int, for error: any Error, at state: Int32,
    cursor: inout Cursor<Context>, context: inout Context
  ) {
    let handler = unsafeDowncast(
      code.modifiers.catches[index].handler, to: CatchHandlerBox<Context>.self)
    handler.function(&context, error)
    cursor.state = code.catchTargets[index]
  }

  /// The state's failure once no retry or catch route takes `thrown`: a timeout is
  /// ``RunError/Kind/timedOut``; anything else fails as it would without modifiers, noting
  /// how many attempts failed.
  private func finalFailure(
    _ thrown: any Error, attempts: Int, at state: Int32, path: borrowing PathRecorder
  ) -> RunError {
    let note = attempts > 1 ? " (It failed all \(attempts) attempts.)" : ""
    if let timeout = thrown as? StateTimeoutError {
      return error(
        .timedOut, at: state, path: path, underlyingError: timeout,
        reason:
          "The run stopped at \(modifiedDescription(state)): it did not finish within its timeout of \(ModifierText.duration(timeout.limit)), so its code was cancelled.\(note) Raise the timeout, retry it, or catch StateTimeoutError to go on elsewhere."
      )
    }
    let base = failure(thrown, at: state, path: path, control: .inert)
    guard attempts > 1 else { return base }
    return error(
      base.kind, at: state, path: path, underlyingError: base.underlyingError,
      unmatchedKey: base.unmatchedKey, reason: base.reason + note)
  }

  /// An attempt's error, as events show it.
  private static func reason(_ error: any Error) -> String {
    if let timeout = error as? StateTimeoutError {
      return "timed out after \(ModifierText.duration(timeout.limit))"
    }
    return String(reflecting: error)
  }

  /// `action 'Fetch' (App/File.swift:12)`, as the interpreter's messages name a state.
  private func modifiedDescription(_ state: Int32) -> String {
    let record = graph.records[Int(state)]
    return "\(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location))"
  }
}

/// An attempt that finished: what it decided, and the context it left.
struct FinishedAttempt<Context: Sendable>: Sendable {
  var result: CodeResult
  var context: Context
}

/// How the race between an attempt and its timeout ended.
enum TimedAttempt<Context: Sendable>: Sendable {
  /// The attempt returned or threw first.
  case finished(Result<FinishedAttempt<Context>, any Error>)
  /// The timeout's sleep ended first.
  case timedOut
  /// The timeout's sleep was cancelled: the run was.
  case clockStopped
}

extension Graph {
  /// The catch routes of `state`, whose declaration's modifiers are `modifiers`, in
  /// declaration order: the error type each takes (`nil` for any error) and its target. What
  /// the tree printer and the diagrams draw.
  func catchRoutes(
    of state: Int32, _ modifiers: StateModifiers?
  ) -> [(errorType: String?, target: Int32)] {
    guard let modifiers, !modifiers.catches.isEmpty else { return [] }
    let node = nodeBase[Int(state)]
    guard node.kind == .modified else { return [] }
    return zip(modifiers.catches, ModifiedCode.of(node).catchTargets).map { route, target in
      (route.errorType, target)
    }
  }
}
