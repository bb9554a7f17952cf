// Delays: a state that waits for a time, on the run's clock.
//
// A delay's deadline is an absolute wall-clock time (`WallClockTime`), fixed when the flow
// enters the state: the run's clock's wall-clock time plus the duration, or the time the
// `until:` closure reads from the context. A deadline already passed fires at once.
//
// - The top-level flow of a live run parks at a delay as at a `Wait` (see `ParkedFlow.swift`):
//   the loop works out the deadline before the state's code would run
//   (`Interpreter.parks(at:flow:context:control:)`), the run keeps it in its state machine
//   (`LiveRunStateMachine.delays`, where a snapshot reads it) and, once the flow has
//   parked, starts a waker: a task that sleeps on the run's clock until the deadline and
//   then unparks the flow, holding nothing of the flow (`LiveRun.startWaker`). The task that
//   goes on from a parked delay does not run the state's code again: the deadline has passed
//   (`Interpreter.goOn`).
// - Everywhere else (a dispatch branch, a map element, a subflow's inner run, a delay with a
//   modifier, `run(with:)`), the state's code sleeps on the run's clock in its task, and a
//   live run records the deadline while it sleeps (`DelayReporting`).

/// A state that waits for a duration, or until a point in time, then follows its one exit:
/// Step Functions' `Wait` state.
///
/// ```swift
/// Delay("Remind later", for: .seconds(3 * 86_400))
/// Delay("Expire the offer", until: { order in order.offerExpiry })
/// ```
///
/// The time passes on the run's clock: the one given to
/// ``Flowchart/run(with:stepLimit:clock:isolation:)`` or
/// ``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)``, a
/// `ContinuousClock` otherwise (a `TestClock` in tests, so that no test waits). The
/// deadline is a ``WallClockTime``, fixed when the flow enters the state: the clock's
/// wall-clock time plus the duration, or the time `until` reads from the context. A
/// deadline that has passed already fires at once.
///
/// A live run whose top-level flow reaches a delay holds no task while it waits: it parks,
/// as at a ``Wait``, reports ``RunEvent/Kind/waitingUntil(_:)``, and lists the delay in
/// ``RunHandle/delays``; at the deadline the run goes on in a new task. A run paused while it
/// waits stays paused after the deadline, until ``RunHandle/resume()``; cancelling it ends
/// the wait at once, and the run ends cancelled. A delay in a dispatch branch, a map or a
/// subflow sleeps in its task.
///
/// A chart with a delay is asynchronous: `runSynchronously` refuses it. Printed `T` (for
/// time), with its timing: `Remind later (T) · for 3 days`.
///
/// A delay takes retries and catch routes (an `until` closure may throw), but not a
/// timeout: it waits for its own time, so a timeout on it is a
/// ``DefinitionError/Kind/invalidDelay`` error, as is a negative duration or one longer
/// than 1,000,000,000 seconds.
///
/// (The name: ``Wait`` already names the state that waits for input from outside; a delay
/// waits for time alone, as a flowchart's delay symbol does.)
public struct Delay<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a state that waits for `duration`, from when the flow enters it.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - duration: How long to wait; zero or more, at most 1,000,000,000 seconds.
  ///   - isFinal: Whether the flow ends after the delay.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ name: String, for duration: Duration, isFinal: Bool = false,
    fileID: String = #fileID, line: Int = #line
  ) {
    self.init(
      name, timing: .duration(duration), isFinal: isFinal, fileID: fileID, line: line
    ) { _, now in now.advanced(by: duration) }
  }

  /// Declares a state that waits until the time `deadline` reads from the context when the
  /// flow enters the state.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - deadline: The time to wait until; an error it throws ends the run at the state
  ///     (or goes to its catch route).
  ///   - isFinal: Whether the flow ends after the delay.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ name: String, until deadline: @escaping @Sendable (Context) throws -> WallClockTime,
    isFinal: Bool = false, fileID: String = #fileID, line: Int = #line
  ) {
    self.init(
      name, timing: .until(contextKey: nil), isFinal: isFinal, fileID: fileID, line: line
    ) { context, _ in try deadline(context) }
  }

  /// Declares a state that waits until the time `deadline` reads from the context, at
  /// `key` (a chart file's delay): printed and exported with the key.
  package init(
    _ name: String, untilTimeAt key: String, isFinal: Bool, fileID: String, line: Int,
    _ deadline: @escaping @Sendable (Context) throws -> WallClockTime
  ) {
    self.init(
      name, timing: .until(contextKey: key), isFinal: isFinal, fileID: fileID, line: line
    ) { context, _ in try deadline(context) }
  }

  private init(
    _ name: String, timing: DelayTiming, isFinal: Bool, fileID: String, line: Int,
    deadline: @escaping @Sendable (Context, WallClockTime) throws -> WallClockTime
  ) {
    let slot = DelaySlot(stateName: name, timing: timing) { context, now in
      // The box hands its own context; nothing else calls this.
      guard let context = context as? Context else { return now }
      return try deadline(context, now)
    }
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .delay, body: .next,
      code: DeclaredCode(
        .asyncAction, AsyncActionBox<Context> { context in try await slot.wait(context) }),
      attachment: slot)
  }
}

/// How a delay's deadline is set, for the tree, the diagrams and the exports.
package enum DelayTiming: Hashable, Sendable {
  /// A duration from when the flow enters the state.
  case duration(Duration)
  /// A time read from the context: at `contextKey` for a chart file's delay, by a closure
  /// (`nil`) for one declared in Swift.
  case until(contextKey: String?)

  /// `for 3 days`, `for 90s`, `until 'offerExpiry'`, `until <context>`: how the tree and
  /// the diagrams show it. A whole number of days, hours or minutes is counted in them.
  package var summary: String {
    switch self {
    case .duration(let duration): "for \(Self.text(of: duration))"
    case .until(let key?): "until \(DisplayText.quoted(name: key))"
    case .until(nil): "until <context>"
    }
  }

  /// `3 days`, `1 hour`, `5 minutes`, or the seconds as a timeout shows them (`90s`).
  private static func text(of duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    guard attoseconds == 0, seconds > 0 else { return ModifierText.duration(duration) }
    for (unit, length) in [("day", Int64(86_400)), ("hour", 3_600), ("minute", 60)]
    where seconds % length == 0 {
      let count = seconds / length
      return "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
    return ModifierText.duration(duration)
  }
}

/// What a delay's declaration attaches: how it sets its deadline, and the identity a live
/// run knows it by.
package final class DelaySlot: Sendable {
  /// The delay's name.
  let stateName: String
  /// How it sets its deadline.
  package let timing: DelayTiming
  /// The deadline for a flow that enters the state with a context (of the chart's type)
  /// when the run's clock's wall-clock time is the second argument.
  let deadline: @Sendable (any Sendable, WallClockTime) throws -> WallClockTime

  init(
    stateName: String, timing: DelayTiming,
    deadline: @escaping @Sendable (any Sendable, WallClockTime) throws -> WallClockTime
  ) {
    self.stateName = stateName
    self.timing = timing
    self.deadline = deadline
  }

  /// Why the delay cannot wait as declared, ending a sentence about it; `nil` when it can.
  var problem: String? {
    guard case .duration(let duration) = timing else { return nil }
    if duration < .zero {
      return
        "waits for \(ModifierText.duration(duration)). Give a duration of zero or more."
    }
    if duration > Backoff.longestWait {
      return
        "waits for \(ModifierText.duration(duration)), longer than the longest wait, \(Backoff.longestWaitText). Give a shorter duration, or wait until a time read from the context."
    }
    return nil
  }

  /// The state's code, in a flow that runs it in its task: sleeps on the run's clock until
  /// the deadline, which a live run records meanwhile.
  func wait(_ context: any Sendable) async throws {
    let clock = RunClock.ofRun
    let now = clock.wallClockNow()
    // A flow resumed from a snapshot at this delay keeps the deadline it had.
    let deadline = try ResumedRetry.takeDelay(self) ?? deadline(context, now)
    guard deadline > now else { return }
    // In a subflow's inner run that a snapshot can hold, the inner run; else the live run.
    let reporter = InnerRun.current ?? (LiveInbox.current as? any DelayReporting)
    guard let reporter, let flow = reporter.delayBegins(self, until: deadline) else {
      return try await clock.sleep(until: deadline)
    }
    do {
      try await clock.sleep(until: deadline)
    } catch {
      reporter.delayEnds(flow: flow)
      throw error
    }
    // A paused run makes no step: the flow stands at its delay until the run is resumed.
    await reporter.delayPassed(flow: flow)
    try Task.checkCancellation()
  }
}

/// A live run, as a delay sleeping in its task tells it where it waits (see
/// ``RunHandle/delays``).
protocol DelayReporting: Sendable {
  /// A flow at `slot`'s state sleeps until `deadline`: returns the flow, or `nil` when no
  /// flow of the run is at the state (it is in the chart of a subflow or a map).
  func delayBegins(_ slot: DelaySlot, until deadline: WallClockTime) -> Int32?
  /// The flow's delay was cancelled, or failed.
  func delayEnds(flow: Int32)
  /// The deadline of the flow's delay passed: ends the delay, once the run is not paused.
  /// While it is, the flow stands at the delay, due, and a snapshot finds it there (a
  /// paused run makes no step, as the top-level flow parked at a delay makes none).
  func delayPassed(flow: Int32) async
}

/// Where a flow of a live run waits for a delay's deadline (see ``RunHandle/delays``).
public struct PendingDelay: Hashable, Sendable, CustomStringConvertible {
  /// The delay.
  public let state: StateID
  /// Its name.
  public let stateName: String
  /// The flow that waits: 0 for the run's top level, then one number per dispatch branch.
  public let flow: Int
  /// When the delay ends.
  public let until: WallClockTime

  /// `'Remind later' until 2026-01-04T00:00:00Z`.
  public var description: String {
    "\(DisplayText.quoted(name: stateName)) until \(until)"
  }
}

extension Interpreter {
  /// Whether the top-level flow of a live run parks at `state`, a waiting state or a delay
  /// it has entered, rather than run the state's code (see `ParkedFlow.swift`): at a delay,
  /// when its deadline has not passed (a deadline the `until` closure cannot give leaves
  /// the state's code to fail in the task).
  @usableFromInline @inline(never)
  func parks(at state: Int32, flow: Int32, context: borrowing Context, control: RunControl)
    -> Bool
  {
    var deadline: WallClockTime? = nil
    if let slot = graph.records[Int(state)].attachment as? DelaySlot {
      let now = RunClock.ofRun.wallClockNow()
      guard let due = try? slot.deadline(copy context, now), due > now else { return false }
      deadline = due
    }
    return control.monitor.unsafelyUnwrapped.parks(at: state, flow: flow, until: deadline)
  }

  /// Whether `state` is a delay: a parked flow that goes on from one has waited its
  /// deadline out, and does not run its code again.
  func isDelay(_ state: Int32) -> Bool {
    graph.records[Int(state)].kind == .delay
  }
}

extension Compiler {
  /// Checks `state`, a delay: a negative or too long duration, or a timeout, is a
  /// definition error.
  mutating func checkDelay(_ state: StateDeclaration) {
    if let problem = (state.attachment as? DelaySlot)?.problem {
      findings.append(.invalidDelay(facts(state), problem: problem))
    }
    if state.modifiers?.timeout != nil {
      findings.append(
        .invalidDelay(
          facts(state),
          problem:
            "has a timeout, which a delay does not take: it waits for its own time. Leave the timeout out, or wait for a shorter time."
        ))
    }
  }
}

extension LiveRun: DelayReporting {
  /// Starts the waker of the top-level flow parked at a delay: a task that sleeps on the
  /// run's clock until `deadline`, then unparks the flow. It holds the run weakly and
  /// nothing of the flow; a cancelled waker (the flow went on without it) does nothing.
  func startWaker(
    until deadline: WallClockTime, number: Int, clock: RunClock, priority: TaskPriority
  ) {
    let waker = Task.detached(priority: priority) { [weak self] in
      do { try await clock.sleep(until: deadline) } catch { return }
      self?.deadlinePassed(waker: number)
    }
    if let stale = state.withLock({ $0.machine.keepWaker(waker, number: number) }) {
      stale.cancel()
    }
  }

  /// The deadline of the delay the top-level flow parked at passed: the flow goes on in a
  /// new task, unless the run is paused (it goes on at resume) or the flow moved on.
  func deadlinePassed(waker number: Int) {
    switch state.withLock({ $0.machine.deadlinePassed(waker: number) }) {
    case .none: break
    case .startTask(let start): startTask(start)
    }
  }

  func delayBegins(_ slot: DelaySlot, until deadline: WallClockTime) -> Int32? {
    let payload = RunEvent.Kind.waitingUntil(deadline)
    let found = state.withLock {
      locked -> (Int32, ReportedEvent, LiveRunStateMachine<LiveRunTypes>.CancelAction)? in
      settlePositions(in: &locked)
      guard
        let found = locked.machine.positions.firstFlow(where: {
          graph.records[Int($0)].attachment === slot
        })
      else { return nil }
      let cancel = locked.machine.beginDelay(flow: found.flow, at: found.state, until: deadline)
      let reported = publish(payload: payload, at: found.state, flow: found.flow, in: &locked)
      return (found.flow, reported, cancel)
    }
    guard let (flow, reported, cancel) = found else { return nil }
    deliver(reported, payload: payload)
    perform(cancel)
    // A snapshot waiting for the flows may take the run now, this one at its delay.
    snapshotMayStand()
    return flow
  }

  func delayEnds(flow: Int32) {
    state.withLock { $0.machine.endDelay(flow: flow) }
  }

  func delayPassed(flow: Int32) async {
    guard let delay = state.withLock({ $0.machine.deadlinePassed(flow: flow) }) else { return }
    // A snapshot waiting for the flows may take the run now, this one at its due delay.
    snapshotMayStand()
    // The flow leaves its delay in the lock section that lets it go on.
    await waitWhilePaused(
      before: delay, flow: flow, takingBack: { $0.machine.endDelay(flow: flow) },
      isReported: false)
  }

  /// The delays the run's flows wait at, by flow.
  var delays: [PendingDelay] {
    state.withLock { $0.machine.delays }.sorted { $0.key < $1.key }.map { flow, delay in
      PendingDelay(
        state: StateID(delay.state), stateName: graph.stateName(of: delay.state), flow: Int(flow),
        until: delay.until)
    }
  }
}

extension RunHandle {
  /// The delays the run's flows wait at, and until when, by flow (the top level first);
  /// empty while no flow waits for a delay (see ``Delay``).
  public var delays: [PendingDelay] { run.delays }
}

extension Flowchart {
  /// How the delay `id` sets its deadline, for an export; `nil` when `id` is not a delay.
  package func exportedDelay(of id: StateID) -> DelayTiming? {
    (graph.records[id.index].attachment as? DelaySlot)?.timing
  }
}
