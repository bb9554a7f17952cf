/// What a group of flows is told from outside, read in one atomic load at each state
/// boundary.
///
/// One control serves flows that stop together: a run's top-level flow has one, and each
/// dispatch gives its branches one of their own (a sibling's failure stops them, not the
/// flow that dispatched them). The run loop reads ``flags`` before it enters each state;
/// while no flag is raised, that load is all a boundary costs, so a run that nobody
/// cancels, pauses or observes pays one relaxed load per state.
///
/// Raising a flag never interrupts a state's code: the flows see it at their next boundary
/// (and a cancelled task's asynchronous state sees `Task.isCancelled` on its own).
///
/// ## Live runs
///
/// A run started with ``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` has a
/// ``monitor``, and every control of that run (its top-level flow's and each dispatch's)
/// carries ``Flags/observed`` for the whole run, and ``Flags/paused`` makes the flows wait at
/// their next boundary. ``Flags/reports`` sends every boundary to its slow path, which
/// reports the flow to the monitor: a dispatch's branches always (the run keeps their
/// positions under its lock), the top-level flow only while something reads the run's
/// events (an observer, a log, a subscriber). Until then the top-level flow's boundary
/// stores the state in ``position`` and calls nothing (``Flags/parks`` marks that control).
/// A run started with `run(with:)` or `runSynchronously` has no monitor and never raises
/// any of these bits, so its boundaries stay one load.
///
/// `Task.isCancelled` costs two runtime calls, about a quarter of an asynchronous
/// transition here, so the run loop does not ask the task at every boundary: a cancellation
/// handler on the run's task (and on each dispatching task, for its branches) raises
/// ``Flags/cancelled`` instead.
@usableFromInline
final class RunControl: Sendable {
  /// The flags a boundary reads; bits of one word.
  @usableFromInline
  struct Flags: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The flows must stop at their next boundary: the run's task, or for a dispatch's
    /// branches the dispatching task, was cancelled, or a sibling branch failed.
    @inlinable static var cancelled: Flags { Flags(rawValue: 1 << 0) }
    /// The flows must wait at their next boundary until the run is resumed.
    @inlinable static var paused: Flags { Flags(rawValue: 1 << 1) }
    /// The run has a ``RunControl/monitor``: a live run, whose flows keep the context from
    /// before each state and report their failures (their boundaries report to it with
    /// ``reports``).
    @inlinable static var observed: Flags { Flags(rawValue: 1 << 2) }
    /// The flows are a live run's top level, which parks at a waiting state that has no
    /// value yet rather than keep its task suspended (see `ParkedFlow.swift`).
    @inlinable static var parks: Flags { Flags(rawValue: 1 << 3) }
    /// Every boundary reports the flow's entry and decision to the ``RunControl/monitor``.
    @inlinable static var reports: Flags { Flags(rawValue: 1 << 4) }
    /// The flags that send a boundary to its slow path.
    @inlinable static var attention: Flags { [.cancelled, .paused, .reports] }
    // Bits 5 and up are free for later flags.
  }

  @usableFromInline let word = AtomicWord<UInt8>(0)
  /// The state a live run's top-level flow entered last while its boundaries reported
  /// nothing, until the run moved it into its positions under its lock; -1 when none waits
  /// (see `LiveRun.settlePositions(in:)`). Unused by the other controls.
  @usableFromInline let position = AtomicWord<Int>(-1)
  /// The live run this control belongs to, or `nil` for a run nobody observes.
  @usableFromInline let monitor: (any RunMonitor)?

  @usableFromInline
  init() {
    monitor = nil
  }

  /// A control for a live run, or for the branches of a dispatch in a live run: observed,
  /// and paused if the run is. A branches' control reports every boundary; the top-level
  /// flow's (`parks`) only once the monitor raises ``Flags/reports``.
  @usableFromInline
  init(monitor: any RunMonitor, parks: Bool = false) {
    self.monitor = monitor
    let flags: Flags = parks ? [.observed, .parks] : [.observed, .reports]
    word.store(flags.rawValue, ordering: .relaxed)
    monitor.register(self)
  }

  /// The control for the branches of a dispatch that a flow under `parent` runs: it shares
  /// the parent's monitor, if any.
  @inlinable
  static func branches(of parent: RunControl) -> RunControl {
    if let monitor = parent.monitor { return RunControl(monitor: monitor) }
    return RunControl()
  }

  /// A control that nothing ever raises: a synchronous run has no task handler to raise
  /// it, and checks its task where it costs nothing measurable (see
  /// ``Flowchart/runSynchronously(with:stepLimit:)``).
  @usableFromInline
  static let inert = RunControl()

  /// Every flag, in one relaxed atomic load.
  @inlinable
  var flags: Flags { Flags(rawValue: word.load(ordering: .relaxed)) }

  /// Whether the flows must stop.
  @inlinable
  var isCancelled: Bool { flags.contains(.cancelled) }

  /// Whether the run reports its boundaries to a monitor.
  @inlinable
  var isObserved: Bool { flags.contains(.observed) }

  /// Whether the flows report each state's entry and decision to the monitor.
  @inlinable
  var reportsEvents: Bool { flags.contains(.reports) }

  /// Raises ``Flags/cancelled``; called by a task's cancellation handler, or by a dispatch
  /// when one of its branches fails.
  @usableFromInline
  func cancel() {
    word.bitwiseOr(Flags.cancelled.rawValue, ordering: .relaxed)
  }

  /// Raises ``Flags/reports``; called by the monitor, under its lock, when something starts
  /// reading the run's events. Never lowered.
  func reportEvents() {
    word.bitwiseOr(Flags.reports.rawValue, ordering: .relaxed)
  }

  /// Raises or lowers ``Flags/paused``; called by the monitor, under its lock.
  func setPaused(_ paused: Bool) {
    if paused {
      word.bitwiseOr(Flags.paused.rawValue, ordering: .relaxed)
    } else {
      word.bitwiseAnd(~Flags.paused.rawValue, ordering: .relaxed)
    }
  }
}

/// What the run loop tells a live run at its boundaries. Called only on the slow path of a
/// boundary, when ``RunControl/Flags/observed`` is raised.
///
/// `flow` numbers the run's flows: 0 for the top level, then one number per dispatch branch
/// as it starts.
@usableFromInline
protocol RunMonitor: AnyObject, Sendable {
  /// Keeps `control` paused whenever the run is, until ``unregister(_:)``.
  func register(_ control: RunControl)
  /// Stops pausing `control`: its flows have ended.
  func unregister(_ control: RunControl)
  /// A flow is about to run `state`.
  func entered(_ state: Int32, flow: Int32)
  /// A flow's state returned and decided `outcome`, leaving `context` (the run's context
  /// type, which a run log compares with the one before).
  func decided<C>(_ state: Int32, flow: Int32, outcome: Outcome, context: borrowing C)
  /// A flow's final multiple condition decided `key`, leaving `context`.
  func decided<C>(
    _ state: Int32, flow: Int32, key: any Hashable & Sendable, context: borrowing C)
  /// A flow stopped at `state` with `error`.
  func failed(_ state: Int32, flow: Int32, error: RunError)
  /// Waits while the run is paused, at the boundary before `state`; returns at once when it
  /// is not, and when the waiting task is cancelled. `tookPosition`: the flow left its
  /// position with the run before it waited (`leavePosition`), and takes it back as it goes
  /// on, in the same step.
  func waitWhilePaused(before state: Int32, flow: Int32, tookPosition: Bool) async
  /// A flow's dispatch `state` starts its branches.
  func dispatchStarted(_ state: Int32, flow: Int32)
  /// Branch `index` of dispatch `state` starts with `context`; returns the branch's flow
  /// number.
  func branchStarted<C>(_ index: Int, of state: Int32, from flow: Int32, context: borrowing C)
    -> Int32
  /// Branch `index` of dispatch `state` reached one of its final states.
  func branchEnded(_ index: Int, of state: Int32, flow: Int32)
  /// A flow's dispatch `state` joined its branches.
  func dispatchJoined(_ state: Int32, flow: Int32)
  /// A flow's modified `state` reports an attempt, a retry or a catch (see
  /// `Interpreter+Modifiers.swift`).
  func modifierEvent(_ kind: RunEvent.Kind, at state: Int32, flow: Int32)
  /// Whether the top-level flow, having entered the waiting state `state`, parks there
  /// rather than run the state's code: no value has come for it (see `ParkedFlow.swift`).
  /// When it does, the run has reported ``RunEvent/Kind/waitingForInput``. At a delay,
  /// `deadline` is when it ends (in the future), and the run reports
  /// ``RunEvent/Kind/waitingUntil(_:)`` instead (see `Delay.swift`).
  func parks(at state: Int32, flow: Int32, until deadline: WallClockTime?) -> Bool
}
