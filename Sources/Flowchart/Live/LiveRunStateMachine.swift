// A live run's control, as a state machine.
//
// A live run is driven from two sides: its handles (pause, resume, cancel, send, the last
// handle going, retry) and its flows (the start gate, pause waits, waits for input, parking,
// the end). Both sides meet under the run's one lock (`LiveRun.state`). What they change
// there is this machine: a plain value that knows nothing of tasks or locks. Each event is a
// mutating method that moves the machine to its next state and returns what must be done
// about it (an action); `LiveRun` calls it under its lock and performs the action after
// releasing it, so that a continuation resumed or a task started or cancelled never runs
// under the lock. The one exception is the controls' pause flag (see `PauseAction`), an
// atomic store that calls nothing, which `LiveRun` raises or lowers before it unlocks, so the
// flags always agree with the machine.
//
// The state is a `Phase` (the top-level flow's life: who runs it, if anyone) and `Marks`
// (what the handles asked for), plus plain registers: the flows' positions, the mailbox of
// values sent to waiting states, the value handed over to a flow that was parked, the waits
// in progress, and the numbers that tell tasks and waits apart. What cannot be plain (the
// continuations of waiting flows, the parked flow's cursor and context, the task that runs
// the top-level flow) is kept apart in `Held`, whose types the machine never reads
// (`LiveRunPayloads`): tests use strings for them, and durable runs snapshot the rest.
//
// The per-state path of a run is not the machine's: a run nobody observes never reaches a
// live run, and a live run's boundary reads the run control's flags in one atomic load
// (`RunControl`, `Interpreter.enter`). The machine sees a boundary only on its slow path
// (`enter(_:flow:)`, a position), and the events below.
//
// The file is longer than most for its documentation (this table, each state, mark and
// action); the transitions themselves are about 250 lines.
//
// The transition table: each event, what it does in each phase (`held`, `running`,
// `unwinding(s)`, `parked(s)`, `ended`). `p`, `c` and `a` are the marks paused, cancel
// requested and abandoned; "trap" is a `preconditionFailure` that names the impossible
// state; "—" is no change and no action.
//
//   Event               Phase        Next state, and the action
//   ------------------  -----------  -------------------------------------------------------
//   start               held         → running, keeps p (the gate let a cancelled task go)
//                       running      —
//                       other        trap
//   pause               ended        —
//                       other        +p, raise the controls' pause flags (— if p already)
//   resume              held         → running, −p, lower the flags, wake the gate's waiter
//                       running,     −p, lower the flags, wake the paused flows, hand each
//                       unwinding,   flow waiting for input the value the mailbox keeps for
//                       parked       it (— if not p)
//                       parked(s),   −p, lower the flags, → running, start a task for the
//                       delay due,   flow (its deadline passed, or a value for s came,
//                       or mail for s while the run was paused)
//                       ended        —
//   cancel              held,        +c, cancel the task (once adopted)
//                       running,
//                       unwinding
//                       parked(s)    +c, → running, start a task for the flow, cancelled
//                                    (and cancel the delay's waker, if any)
//                       ended        —
//   send(v, to: t)      ended        refuse
//                       other        not p and a flow waits at t: hand it v; else not p and
//                                    parked(t): → running, hand v over, start a task for the
//                                    flow; else the mailbox keeps v (refuse when a value for
//                                    t waits there already): a paused run makes no step
//   last handle gone    ended        —
//                       other        +a; when a flow waits (paused, for input, for a delay,
//                                    or parked): as cancel
//   adopt(task, n)      held,        keep the task if n is the current task number; cancel
//                       running,     it if c
//                       unwinding
//                       parked,      drop it (the flow parked or the run ended since)
//                       ended
//   park(at: s,         running      no value for s and not c: → unwinding(s), report
//     until: d)                      waiting for input (or, at a delay, until d: keep d in
//                                    the flow's delay); else the flow goes on
//                       other        trap
//   settle(flow)        unwinding(s) a ⇒ +c; a value for s and not p, or c: → running, the
//                                    flow goes on in its task (cancelled if c); else → parked(s),
//                                    keep the flow, drop the task; at a delay, start its
//                                    waker (numbered by the task number)
//                       other        trap
//   keep waker(w, n)    parked(s),   keep w if n is the task number (the flow is still
//                       at a delay   parked where w was started for) and the delay is not
//                                    due, cancelling the waker it replaces; else cancel w
//                       other        cancel w
//   deadline passed(n)  parked(s),   n is the task number: if p, the delay is due (stays
//                       at a delay   parked until resume); else → running, start a task for
//                                    the flow, which goes on after the delay
//                       other        — (the flow moved on: a stale waker)
//   delay begins        any but      the flow sleeps in its task until d: keep d in its
//   (flow, s, d)        ended        delay; then as last handle gone if a
//   delay ends (flow)   any          forget the flow's delay
//   delay passed        any          p: the flow's delay is due (it stands there, waiting
//   (flow)                           paused, until resume); else forget the flow's delay
//   pause wait          held         the gate holds: the flow waits
//                       running      at a boundary: waits if p (then as last handle gone
//                                    if a); at the gate: goes at once
//                       other        trap
//   input wait          running      the value handed over, or the mailbox's, arrives at
//   (value arrives)                  once; else the flow waits (then as last handle gone)
//                       other        trap
//   wait cancelled      any          forget the wait; resume its waiter if it waits
//   wait ends           any          forget the wait; report resumed if it waited paused
//   end(succeeded)      running      → ended: no marks, no positions, no delays, drop the
//                                    task
//                       other        trap
//   retry               ended        succeeded or failed (no change)
//                       other        not ended
//
// A flow that comes to wait (pause, input or a delay) in a run whose every handle is gone
// cancels the run, in the same transition. Subscribing to the run's events and reading them is the event
// log's (`EventChannel.swift`), under the same lock; it changes nothing here.

/// The types a ``LiveRunStateMachine`` keeps for its run but never reads: continuations,
/// the parked flow, the task. A live run uses the real ones (``LiveRunTypes``); a test, any
/// plain values.
protocol LiveRunPayloads {
  /// What wakes a flow waiting while the run is paused (or held at its start).
  associatedtype PauseWaiter: Sendable
  /// What hands a value (or `nil`, when the wait is cancelled) to a flow waiting for input.
  associatedtype InputWaiter: Sendable
  /// The top-level flow while it is parked: its cursor and context.
  associatedtype Flow: Sendable
  /// The task that runs the top-level flow.
  associatedtype RunTask: Sendable
}

/// The payloads of a live run: continuations, the parked ``TopLevelFlow`` (its context's
/// type erased, so that the run's locked state is not generic), and a task.
enum LiveRunTypes: LiveRunPayloads {
  typealias PauseWaiter = CheckedContinuation<Void, Never>
  typealias InputWaiter = CheckedContinuation<(any Sendable)?, Never>
  typealias Flow = any AnyObject & Sendable
  typealias RunTask = Task<Void, Never>
}

/// A live run's control: its phase, what its handles asked for, its flows' positions, its
/// mailbox and its waits, moved by events that return what to do once the run's lock is
/// released. See the file's header for the transition table.
///
/// No lock inside: ``LiveRun`` holds the machine under its own.
struct LiveRunStateMachine<Payloads: LiveRunPayloads>: Sendable {
  typealias PauseWaiter = Payloads.PauseWaiter
  typealias InputWaiter = Payloads.InputWaiter
  typealias Flow = Payloads.Flow
  typealias RunTask = Payloads.RunTask

  // MARK: - State

  /// The top-level flow's life: who runs it, if anyone.
  enum Phase: Hashable, Sendable {
    /// Started paused: the first task waits at the start gate for the first ``resume()``
    /// (or a cancellation), before the run reports anything. Always with ``Marks/paused``.
    /// A live run makes that task only at the first resume, cancel or abandonment
    /// (`LiveRun.holdStart`); until then no task is adopted.
    case held
    /// A task runs the top-level flow (or is about to: its number is ``taskNumber``).
    case running
    /// The top-level flow decided to park at waiting state `at` and its task is unwinding.
    case unwinding(at: Int32)
    /// The top-level flow is parked at waiting state `at`: no task runs it; ``Held/flow``
    /// holds it.
    case parked(at: Int32)
    /// The run ended, with a result (`succeeded`) or an error. Nothing changes any more.
    case ended(succeeded: Bool)
  }

  /// What the run's handles asked for, in every phase but ``Phase/ended`` (which has none).
  struct Marks: OptionSet, Hashable, Sendable {
    let rawValue: UInt8

    /// ``RunHandle/pause()`` was called and ``RunHandle/resume()`` not since (or the run
    /// was started paused): flows wait at their next boundary.
    static var paused: Marks { Marks(rawValue: 1 << 0) }
    /// ``RunHandle/cancel()`` was called (or the run was abandoned while a flow waited):
    /// every task that runs the top-level flow from then on is cancelled, and the flow no
    /// longer parks.
    static var cancelRequested: Marks { Marks(rawValue: 1 << 1) }
    /// Every handle is gone (see `RunHandle+Lifetime.swift`): a flow that comes to wait
    /// cancels the run.
    static var abandoned: Marks { Marks(rawValue: 1 << 2) }
  }

  /// Where a wait of a flow stands, by wait number (``beginWait()``).
  enum WaitStatus: Hashable, Sendable {
    /// Begun and not waiting: it has not suspended yet, or was let go at once, or its value
    /// came. A cancelled wait has no status at all.
    case going
    /// Waiting while the run is paused (or held at its start); its waiter is in
    /// ``Held/pauseWaiters``.
    case paused
    /// Waited while paused and was woken by ``resume()``: it reports the resumption.
    case woken
    /// Waiting for a value for waiting state `at`; its waiter is in ``Held/inputWaiters``.
    case waitingForInput(at: Int32)
  }

  /// What the machine keeps but never reads: not plain data, so not part of a snapshot.
  struct Held: Sendable {
    /// The waiters of the waits with status ``WaitStatus/paused``, by wait number.
    var pauseWaiters: [Int: PauseWaiter] = [:]
    /// The waiters of the waits with status ``WaitStatus/waitingForInput(at:)``, by state.
    var inputWaiters: [Int32: (wait: Int, waiter: InputWaiter)] = [:]
    /// The top-level flow, while ``Phase/parked(at:)``.
    var flow: Flow?
    /// The task running the top-level flow, once it is known; `nil` while the flow is
    /// parked and once the run has ended.
    var task: RunTask?
    /// The task that wakes the top-level flow parked at a delay, at its deadline: it holds
    /// nothing of the flow (see `Delay.swift`).
    var waker: RunTask?
  }

  /// Where a flow waits for a delay's deadline.
  struct FlowDelay: Hashable, Sendable {
    /// The delay.
    var state: Int32
    /// When it ends.
    var until: WallClockTime
    /// Whether the deadline passed while the run was paused: the flow stands at the delay
    /// until ``resume()`` (a paused run makes no step), and a snapshot finds it there.
    var isDue = false
  }

  /// The top-level flow's life.
  private(set) var phase: Phase
  /// What the handles asked for.
  private(set) var marks: Marks
  /// The state each running flow is at, by flow number.
  private(set) var positions = FlowPositions()
  /// The number of the next dispatch branch's flow (the top level is 0).
  private(set) var nextFlow: Int32 = 1
  /// Values sent to waiting states the run has not reached yet (or not consumed), by
  /// state: the first value sent wins until the state takes it.
  private(set) var mailbox: [Int32: any Sendable] = [:]
  /// A value sent to the state the top-level flow was parked at, handed to the flow that
  /// goes on from there as it would have been to a flow waiting in its task: not kept in
  /// ``mailbox``, so a second value sent meanwhile is kept for the state's next visit.
  private(set) var handedOver: (state: Int32, value: any Sendable)?
  /// The waits in progress, by number.
  private(set) var waits: [Int: WaitStatus] = [:]
  /// The number of the last wait begun.
  private(set) var lastWait = 0
  /// The delays the flows wait at, by flow number: the top-level flow's while it parks at
  /// one, a flow that sleeps in its task's while it sleeps. Each is an absolute deadline,
  /// which a snapshot of the run carries.
  private(set) var delays: [Int32: FlowDelay] = [:]
  /// Whether the deadline of the delay the top-level flow is parked at passed while the run
  /// was paused: the flow goes on at ``resume()``.
  private(set) var isDelayDue = false
  /// Numbers the tasks that run the top-level flow (the first is 0), so that a task that
  /// parked (or ended) before it was adopted is never adopted.
  private(set) var taskNumber = 0
  /// The continuations, the parked flow and the task.
  private var held = Held()

  /// A run that starts at once, or `isPaused`: held at its start until ``resume()``.
  init(isPaused: Bool) {
    phase = isPaused ? .held : .running
    marks = isPaused ? .paused : []
  }

  /// Whether the run is paused: ``pause()`` (or a start paused) and no ``resume()`` since,
  /// and it has not ended.
  var isPaused: Bool { marks.contains(.paused) }

  /// Whether the run has ended.
  var hasEnded: Bool {
    switch phase {
    case .ended: true
    case .held, .running, .unwinding, .parked: false
    }
  }

  /// Whether the task that runs the top-level flow is known (adopted, and neither parked
  /// nor ended since).
  var hasTask: Bool { held.task != nil }

  /// Whether a flow waits, paused or for input, or the top-level flow is parked: what a
  /// run whose handles are all gone is cancelled for.
  private var isWaiting: Bool {
    switch phase {
    case .parked: true
    // The top-level flow unwinding to park at a delay waits once it has parked (`settle`).
    case .unwinding:
      !held.pauseWaiters.isEmpty || !held.inputWaiters.isEmpty
        || delays.keys.contains { $0 != 0 }
    case .held, .running, .ended:
      !held.pauseWaiters.isEmpty || !held.inputWaiters.isEmpty || !delays.isEmpty
    }
  }

  // MARK: - Actions

  /// What ``pause()`` leaves to do.
  enum PauseAction: Equatable {
    /// Nothing: the run was paused already, or has ended.
    case none
    /// Raise every control's paused flag. ``LiveRun`` does it before it releases the
    /// lock (an atomic store that calls nothing), so that a pause and a resume racing
    /// cannot leave a flag raised on a run that is not paused.
    case raisePauseFlags
  }

  /// What ``resume()`` leaves to do.
  enum ResumeAction {
    /// Nothing: the run was not paused, or has ended.
    case none
    /// Lower every control's paused flag (before the lock is released, as
    /// ``PauseAction/raisePauseFlags``), then resume `waking`, the flows that waited, and
    /// each of `delivering` with its value, sent to its waiting state while the run was
    /// paused.
    case lowerPauseFlags(waking: [PauseWaiter], delivering: [(InputWaiter, any Sendable)])
    /// Lower every control's paused flag, then start a task for the top-level flow, parked
    /// at a delay whose deadline passed while the run was paused, or at a waiting state
    /// sent a value meanwhile.
    case lowerPauseFlagsAndStart(StartTask)
  }

  /// A task to start for the top-level flow that was parked: it runs `flow` on from its
  /// waiting state. The task is number `number`; `isCancelled` when it must start cancelled.
  struct StartTask {
    /// The flow that was parked.
    var flow: Flow
    /// The task's number, for ``adopt(_:number:)``.
    var number: Int
    /// Whether the task starts cancelled (the run was cancelled or abandoned).
    var isCancelled: Bool
    /// The waker of the delay the flow was parked at, to cancel: the flow goes on without it.
    var waker: RunTask? = nil
  }

  /// What ``deadlinePassed(waker:)`` leaves to do.
  enum DeadlineAction {
    /// Nothing: the waker is stale, or the run is paused (the delay is due at resume).
    case none
    /// Start a task for the flow parked at the delay: it goes on after it.
    case startTask(StartTask)
  }

  /// What a cancellation (``cancel()``, or the run abandoned while a flow waits) leaves to
  /// do.
  enum CancelAction {
    /// Nothing: the run has ended, or its task is not known yet (``adopt(_:number:)``
    /// cancels it then), or nothing needs cancelling.
    case none
    /// Cancel the task that runs the top-level flow.
    case cancelTask(RunTask)
    /// Start a task for the parked flow, cancelled.
    case startTask(StartTask)
  }

  /// What ``send(_:to:)`` leaves to do.
  enum SendAction {
    /// Nothing; the value was refused: the run has ended, or a value sent earlier waits in
    /// the mailbox for the same state (the first one wins).
    case refuse
    /// Nothing; the value is in the mailbox until a flow reaches the state.
    case keep
    /// Resume `waiter`, the flow waiting at the state, with the value.
    case deliver(InputWaiter)
    /// Start a task for the flow that was parked at the state; the value is handed over.
    case startTask(StartTask)

    /// Whether the value was delivered or kept.
    var isAccepted: Bool {
      switch self {
      case .refuse: false
      case .keep, .deliver, .startTask: true
      }
    }
  }

  /// What ``adopt(_:number:)`` leaves to do.
  enum AdoptAction {
    /// Nothing (the task was adopted, or dropped as stale).
    case none
    /// Cancel the task just adopted: the run was cancelled before it was known.
    case cancelTask(RunTask)
  }

  /// What ``park(at:)`` answers.
  enum ParkAction: Equatable {
    /// The flow parks: report ``RunEvent/Kind/waitingForInput``, and unwind its task.
    case parks
    /// The flow goes on in its task (a value waits, or the run was cancelled).
    case goesOn
  }

  /// What ``settle(_:)`` answers.
  enum SettleAction: Equatable {
    /// The flow is parked: its task ends.
    case parked
    /// The flow is parked at a delay: its task ends, and a waker must sleep until `until`,
    /// then report ``deadlinePassed(waker:)`` with `waker`.
    case parkedUntil(WallClockTime, waker: Int)
    /// The flow goes on in the current task, which is cancelled first if
    /// `cancellingCurrentTask` (the run was cancelled or abandoned while it unwound).
    case goOn(cancellingCurrentTask: Bool)
  }

  /// What a pause wait's ``suspend(_:waiter:before:flow:)`` leaves to do.
  enum PauseWaitAction {
    /// Resume `waiter` at once: the run is not held, or the wait was cancelled.
    case resumeNow(PauseWaiter)
    /// The flow waits (and reports ``RunEvent/Kind/paused`` at a boundary); then `cancel`:
    /// a run whose handles are all gone is cancelled by a flow that comes to wait.
    case waits(cancel: CancelAction)
  }

  /// What an input wait's ``suspend(_:at:waiter:)`` leaves to do.
  enum InputWaitAction {
    /// Resume `waiter` at once with `value`: the value handed over, the mailbox's, or `nil`
    /// when the wait was cancelled.
    case resumeNow(InputWaiter, value: (any Sendable)?)
    /// The flow waits (and reports ``RunEvent/Kind/waitingForInput``); then `cancel`, as
    /// for ``PauseWaitAction/waits(cancel:)``.
    case waits(cancel: CancelAction)
  }

  /// What ``retry()`` answers: whether the run may be retried or restarted.
  enum RetryVerdict: Equatable {
    /// The run is going (or paused, or parked): neither.
    case notEnded
    /// The run ended with a result: restart only.
    case succeeded
    /// The run ended with an error: retry (from its resume point) or restart.
    case failed
  }

  // MARK: - Events from the handles

  /// ``RunHandle/pause()``.
  mutating func pause() -> PauseAction {
    switch phase {
    case .ended: return .none
    case .held, .running, .unwinding, .parked:
      guard !marks.contains(.paused) else { return .none }
      marks.insert(.paused)
      return .raisePauseFlags
    }
  }

  /// ``RunHandle/resume()``; the first one opens the start gate of a run started paused.
  mutating func resume() -> ResumeAction {
    switch phase {
    case .ended: return .none
    case .held:
      phase = .running
    case .parked(let state):
      guard marks.contains(.paused) else { return .none }
      // The deadline of its delay passed, or a value for its waiting state came, while the
      // run was paused: the flow goes on (and takes the value from the mailbox).
      if isDelayDue || mailbox[state] != nil {
        marks.remove(.paused)
        return .lowerPauseFlagsAndStart(unpark())
      }
    case .running, .unwinding:
      guard marks.contains(.paused) else { return .none }
    }
    marks.remove(.paused)
    for wait in held.pauseWaiters.keys { waits[wait] = .woken }
    let waking = Array(held.pauseWaiters.values)
    // Kept for the next pause: a run pauses and resumes again and again, and a dictionary
    // made empty anew would be allocated again at the next pause.
    held.pauseWaiters.removeAll(keepingCapacity: true)
    // The values sent to waiting flows while the run was paused go to them now.
    var delivering: [(InputWaiter, any Sendable)] = []
    if !mailbox.isEmpty {
      for (state, waiting) in held.inputWaiters {
        guard let value = mailbox.removeValue(forKey: state) else { continue }
        held.inputWaiters[state] = nil
        waits[waiting.wait] = .going
        delivering.append((waiting.waiter, value))
      }
    }
    return .lowerPauseFlags(waking: waking, delivering: delivering)
  }

  /// ``RunHandle/cancel()``.
  mutating func cancel() -> CancelAction {
    switch phase {
    case .ended: return .none
    case .held, .running, .unwinding:
      marks.insert(.cancelRequested)
      return held.task.map(CancelAction.cancelTask) ?? .none
    case .parked:
      marks.insert(.cancelRequested)
      return .startTask(unpark())
    }
  }

  /// ``RunHandle/send(_:to:)-(_,StateID)``, to waiting state `state`.
  mutating func send(_ value: any Sendable, to state: Int32) -> SendAction {
    switch phase {
    case .ended: return .refuse
    case .held, .running, .unwinding, .parked: break
    }
    // A paused run makes no step: a flow waiting at the state takes the value at
    // ``resume()``, from the mailbox, where a snapshot taken meanwhile finds it.
    if !marks.contains(.paused) {
      if let waiting = held.inputWaiters.removeValue(forKey: state) {
        waits[waiting.wait] = .going
        return .deliver(waiting.waiter)
      }
      if case .parked(let parkedAt) = phase, parkedAt == state {
        handedOver = (state, value)
        return .startTask(unpark())
      }
    }
    guard mailbox[state] == nil else { return .refuse }
    mailbox[state] = value
    return .keep
  }

  /// The run's last handle went (see `RunHandle+Lifetime.swift`).
  mutating func abandon() -> CancelAction {
    switch phase {
    case .ended: return .none
    case .held, .running, .unwinding, .parked:
      marks.insert(.abandoned)
      return isWaiting ? cancel() : .none
    }
  }

  /// ``RunHandle/retry(clock:isPaused:isLogged:observer:updating:isolation:)`` and
  /// ``RunHandle/restart(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` ask
  /// whether the run is over, and how. Changes nothing.
  func retry() -> RetryVerdict {
    switch phase {
    case .ended(let succeeded): succeeded ? .succeeded : .failed
    case .held, .running, .unwinding, .parked: .notEnded
    }
  }

  // MARK: - Events from the top-level flow's tasks

  /// The run's first task passed the start gate: it reports the run's start.
  mutating func start() {
    switch phase {
    case .held:
      // The gate let the task go without a resume: its task was cancelled. The run stays
      // paused until a resume, as the cancelled flow ends.
      phase = .running
    case .running: break
    case .unwinding, .parked, .ended:
      preconditionFailure("a live run reported its start in phase \(phase): it starts once")
    }
  }

  /// Task number `number` runs the top-level flow: it is the task a cancellation cancels,
  /// unless the flow parked or ended since, or a newer task runs it.
  mutating func adopt(_ task: RunTask, number: Int) -> AdoptAction {
    switch phase {
    case .parked, .ended: return .none
    case .held, .running, .unwinding:
      guard number == taskNumber else { return .none }
      held.task = task
      return marks.contains(.cancelRequested) ? .cancelTask(task) : .none
    }
  }

  /// The top-level flow entered waiting state `state`, which has no value in its task, or
  /// delay `state`, which ends at `deadline` (in the future): may it park?
  mutating func park(at state: Int32, until deadline: WallClockTime? = nil) -> ParkAction {
    switch phase {
    case .running:
      guard mailbox[state] == nil, !marks.contains(.cancelRequested) else { return .goesOn }
      phase = .unwinding(at: state)
      if let deadline { delays[0] = FlowDelay(state: state, until: deadline) }
      return .parks
    case .held, .unwinding, .parked, .ended:
      preconditionFailure(
        "the top-level flow asked to park at state \(state) in phase \(phase): only a running flow parks"
      )
    }
  }

  /// The parking flow's task has unwound, leaving `flow`.
  mutating func settle(_ flow: Flow) -> SettleAction {
    switch phase {
    case .unwinding(let state):
      if marks.contains(.abandoned) { marks.insert(.cancelRequested) }
      let isCancelled = marks.contains(.cancelRequested)
      // A paused run makes no step: a value that came meanwhile waits for `resume`.
      guard mailbox[state] == nil || marks.contains(.paused), !isCancelled else {
        // A value or a cancellation came while the flow unwound.
        phase = .running
        return .goOn(cancellingCurrentTask: isCancelled)
      }
      phase = .parked(at: state)
      held.flow = flow
      held.task = nil
      if let delay = delays[0], delay.state == state {
        return .parkedUntil(delay.until, waker: taskNumber)
      }
      return .parked
    case .held, .running, .parked, .ended:
      preconditionFailure("a flow parked in phase \(phase) without asking the run")
    }
  }

  /// The top-level flow ended, with a result (`succeeded`) or an error: the run ends. The
  /// mailbox keeps its values until the run goes, so that no value's deinit runs under the
  /// lock.
  mutating func end(succeeded: Bool) {
    switch phase {
    case .running:
      phase = .ended(succeeded: succeeded)
      marks = []
      positions = FlowPositions()
      delays = [:]
      held.task = nil
    case .held, .unwinding, .parked, .ended:
      preconditionFailure("a live run ended in phase \(phase): only a running flow ends it")
    }
  }

  /// Whether a flow waits in its task for a value for waiting state `state`, for a
  /// snapshot.
  func waitsForInput(at state: Int32) -> Bool { held.inputWaiters[state] != nil }

  /// The top-level flow while it is parked, for a snapshot; `nil` in every other phase.
  var parkedFlow: Flow? { held.flow }

  /// Puts back the values a resumed run's snapshot held: only before the run's first task
  /// runs, when the mailbox is empty.
  mutating func restore(mailbox values: [(state: Int32, value: any Sendable)]) {
    for (state, value) in values { mailbox[state] = value }
  }

  /// The parked flow goes on in a new task.
  private mutating func unpark() -> StartTask {
    guard let flow = held.flow.take() else {
      preconditionFailure("a live run is parked with no flow kept")
    }
    phase = .running
    taskNumber += 1
    delays[0] = nil
    isDelayDue = false
    return StartTask(
      flow: flow, number: taskNumber, isCancelled: marks.contains(.cancelRequested),
      waker: held.waker.take())
  }

  // MARK: - Delays

  /// The waker `waker`, started for the delay the top-level flow parked at with task number
  /// `number`: returns the waker to cancel, if any: `waker` when the flow went on since (or
  /// the deadline passed already), else the one it replaces.
  mutating func keepWaker(_ waker: RunTask, number: Int) -> RunTask? {
    switch phase {
    case .parked(let state):
      guard number == taskNumber, delays[0]?.state == state, !isDelayDue else { return waker }
      defer { held.waker = waker }
      return held.waker
    case .held, .running, .unwinding, .ended:
      return waker
    }
  }

  /// The deadline of the delay the top-level flow parked at with task number `waker` has
  /// passed.
  mutating func deadlinePassed(waker number: Int) -> DeadlineAction {
    switch phase {
    case .parked(let state):
      guard number == taskNumber, delays[0]?.state == state else { return .none }
      held.waker = nil
      guard !marks.contains(.paused) else {
        isDelayDue = true
        return .none
      }
      return .startTask(unpark())
    case .held, .running, .unwinding, .ended:
      return .none
    }
  }

  /// Flow `flow` sleeps in its task at delay `state` until `deadline`; a run whose handles
  /// are all gone is cancelled.
  mutating func beginDelay(flow: Int32, at state: Int32, until deadline: WallClockTime)
    -> CancelAction
  {
    switch phase {
    case .ended: return .none
    case .held, .running, .unwinding, .parked:
      delays[flow] = FlowDelay(state: state, until: deadline)
      return marks.contains(.abandoned) ? cancel() : .none
    }
  }

  /// Flow `flow`'s delay ended.
  mutating func endDelay(flow: Int32) {
    delays[flow] = nil
  }

  /// The deadline of flow `flow`'s delay passed in its task: `nil` when the flow goes on
  /// (its delay ended); the delay's state when the run is paused, where the flow then
  /// stands, its delay due, until ``resume()`` lets it go (a paused run makes no step).
  mutating func deadlinePassed(flow: Int32) -> Int32? {
    guard marks.contains(.paused), let delay = delays[flow] else {
      delays[flow] = nil
      return nil
    }
    delays[flow]?.isDue = true
    return delay.state
  }

  // MARK: - Positions

  /// A flow enters `state` (a boundary's slow path).
  @inline(__always)
  mutating func enter(_ state: Int32, flow: Int32) {
    positions[flow] = state
  }

  /// A dispatch at `dispatch` starts a branch: returns the branch's flow number.
  mutating func startBranch(at dispatch: Int32) -> Int32 {
    let branch = nextFlow
    nextFlow += 1
    positions[branch] = dispatch
    return branch
  }

  /// A branch's flow ended.
  mutating func endBranch(_ flow: Int32) {
    positions[flow] = nil
  }

  // MARK: - Waits

  /// A flow is about to wait, paused or for input: returns the wait's number. A wait's
  /// cancellation may come before it suspends (its task was cancelled already).
  mutating func beginWait() -> Int {
    lastWait += 1
    waits[lastWait] = .going
    return lastWait
  }

  /// Pause wait `wait` suspends with `waiter`: at the start gate when `boundary` is `nil`,
  /// else before state `boundary` in flow `flow`, whose position it becomes.
  mutating func suspend(
    _ wait: Int, waiter: PauseWaiter, before boundary: Int32?, flow: Int32
  ) -> PauseWaitAction {
    let isHeld: Bool
    switch phase {
    // Held implies paused; only the first task's gate waits then.
    case .held: isHeld = true
    case .running: isHeld = boundary == nil ? false : marks.contains(.paused)
    case .unwinding, .parked, .ended:
      preconditionFailure("a flow waits while paused in phase \(phase), where no flow runs")
    }
    guard isHeld, waits[wait] != nil else { return .resumeNow(waiter) }
    waits[wait] = .paused
    held.pauseWaiters[wait] = waiter
    if let boundary { positions[flow] = boundary }
    return .waits(cancel: marks.contains(.abandoned) ? cancel() : .none)
  }

  /// Input wait `wait` suspends with `waiter` at waiting state `state`: the value arrives
  /// (handed over, or from the mailbox), or the flow waits for it.
  mutating func suspend(_ wait: Int, at state: Int32, waiter: InputWaiter) -> InputWaitAction {
    switch phase {
    case .running: break
    case .held, .unwinding, .parked, .ended:
      preconditionFailure("a flow waits for input in phase \(phase), where no flow runs")
    }
    if let handed = handedOver, handed.state == state {
      handedOver = nil
      return .resumeNow(waiter, value: handed.value)
    }
    if let value = mailbox.removeValue(forKey: state) { return .resumeNow(waiter, value: value) }
    guard waits[wait] != nil else { return .resumeNow(waiter, value: nil) }
    waits[wait] = .waitingForInput(at: state)
    held.inputWaiters[state] = (wait, waiter)
    return .waits(cancel: marks.contains(.abandoned) ? cancel() : .none)
  }

  /// Wait `wait`'s task was cancelled (its cancellation handler): returns the pause waiter
  /// to resume, if it waits.
  mutating func cancelPauseWait(_ wait: Int) -> PauseWaiter? {
    waits[wait] = nil
    return held.pauseWaiters.removeValue(forKey: wait)
  }

  /// Input wait `wait`, at `state`, was cancelled: returns the waiter to resume with `nil`,
  /// if it waits.
  mutating func cancelInputWait(_ wait: Int, at state: Int32) -> InputWaiter? {
    waits[wait] = nil
    guard let waiting = held.inputWaiters[state], waiting.wait == wait else { return nil }
    held.inputWaiters[state] = nil
    return waiting.waiter
  }

  /// Wait `wait` ended; returns whether it was a pause wait that waited and was resumed
  /// (not cancelled): it reports ``RunEvent/Kind/resumed``.
  mutating func endWait(_ wait: Int) -> Bool {
    switch waits.removeValue(forKey: wait) {
    case .paused, .woken: true
    case .going, .waitingForInput, nil: false
    }
  }
}

/// The state each running flow of a live run is at, by flow number: flows are numbered
/// densely from 0 as they start, so an array indexed by flow.
struct FlowPositions: Hashable, Sendable {
  /// The state of each flow, or -1 for a flow that is not running; empty until a flow
  /// enters a state.
  private var byFlow: [Int32] = []

  subscript(flow: Int32) -> Int32? {
    get { Int(flow) < byFlow.count && byFlow[Int(flow)] >= 0 ? byFlow[Int(flow)] : nil }
    set {
      while byFlow.count <= Int(flow) { byFlow.append(-1) }
      byFlow[Int(flow)] = newValue ?? -1
    }
  }

  /// The states of the running flows, by flow number.
  var states: [Int32] { byFlow.filter { $0 >= 0 } }

  /// The lowest-numbered flow at a state that satisfies `isWanted`, and its state.
  func firstFlow(where isWanted: (Int32) -> Bool) -> (state: Int32, flow: Int32)? {
    for (flow, state) in byFlow.enumerated() where state >= 0 && isWanted(state) {
      return (state, Int32(flow))
    }
    return nil
  }
}
