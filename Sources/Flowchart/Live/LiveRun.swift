// A live run's shared state: its control (`LiveRunStateMachine.swift`), its events for the
// subscribers, its log, under one lock; the handle's calls, the monitor's, input and pause
// waits. How an event is recorded and delivered is in `LiveRun+Events.swift`.

/// What a live run's lock protects. Not generic over the context, like everything a
/// boundary touches, so that reporting a boundary needs no generic metadata at run time
/// (the monitor is called through an existential, so it is not specialized).
struct LiveRunState {
  /// The run's control: its phase, what its handles asked for, its flows' positions, its
  /// mailbox and waits (see `LiveRunStateMachine.swift`).
  var machine: LiveRunStateMachine<LiveRunTypes>
  /// The events waiting for the subscribers' streams, and the subscribers.
  var events = EventLog()
  /// The controls of the run's flows: the top level's and those of running dispatches (an
  /// array: a run has few at once, and a dictionary would cost each run an allocation more).
  /// Their paused flag is the machine's paused mark, raised and lowered under the lock.
  var controls: [RunControl] = []
  /// The top-level flow's control (the one that parks), once registered: where the flow
  /// stores its position while its boundaries report nothing.
  var topControl: RunControl?
  /// The time and flow of the last event, when it was a state's decision: the state that
  /// flow enters next, at the same boundary, reports the same time rather than read the
  /// clock again.
  var lastDecision: (flow: Int32, time: Duration)?
  /// What only some runs need (see ``LiveRunExtras``), made at first use: a run that is never
  /// snapshotted, held at its start, or given an id pays this one word.
  private var extras: LiveRunExtras?

  init(machine: LiveRunStateMachine<LiveRunTypes>) {
    self.machine = machine
  }

  /// The snapshot requests waiting, and what they are served from (see
  /// `LiveRun+Snapshot.swift`): empty unless a snapshot is asked for, the run pauses with
  /// flows that left their positions, runs a dispatch or a subflow, or was held or
  /// identified. Reading it makes nothing; changing it makes the run's ``LiveRunExtras``.
  var snapshots: SnapshotRequests {
    _read {
      if let extras {
        yield extras.snapshots
      } else {
        yield SnapshotRequests()
      }
    }
    _modify {
      let extras = self.extras ?? makeExtras()
      yield &extras.snapshots
    }
  }

  /// Whether anything was ever kept for snapshots (``snapshots`` was changed).
  var hasSnapshotRequests: Bool { extras != nil }

  private mutating func makeExtras() -> LiveRunExtras {
    let made = LiveRunExtras()
    extras = made
    return made
  }

  /// Keeps the first task of a run held at its start (see ``LiveRun/holdStart(priority:_:)``).
  mutating func holdStart(_ start: HeldStart) {
    (extras ?? makeExtras()).heldStart = start
  }

  /// The first task of a run held at its start, not made yet: `nil` once made, and in a run
  /// that started at once.
  var heldStart: HeldStart? { extras?.heldStart }

  /// Takes the first task of a run held at its start (``heldStart``).
  mutating func takeHeldStart() -> HeldStart? {
    extras?.heldStart.take()
  }

  /// Takes how the flow of pause wait `wait` takes back the position it left, if it left
  /// one and has not taken it back: without making the run's ``LiveRunExtras``.
  mutating func takePauseWait(_ wait: Int) -> PositionTakeBack? {
    guard let extras, !extras.snapshots.pauseWaits.isEmpty else { return nil }
    return extras.snapshots.pauseWaits.removeValue(forKey: wait)
  }

  /// Raises or lowers every control's paused flag: an atomic store that calls nothing, made
  /// under the lock so that the flags always agree with the machine.
  func setPaused(_ paused: Bool) {
    for control in controls { control.setPaused(paused) }
  }
}

/// The shared state of a live run: its subscribers, whether it is paused, its flows'
/// positions, and the controls it pauses. The run loop reports to it through
/// ``RunMonitor`` at each boundary; the ``RunHandle`` drives it.
///
/// Everything mutable is behind one lock, held only to update the state and record events
/// for the subscribers' streams (which never block: each has a bounded buffer, see
/// ``EventLog``). Callbacks and continuations are called after the lock is released, so
/// they may call the handle. The run's control is a ``LiveRunStateMachine``: each handle
/// call and each flow's wait is one of its events, made under the lock, and the action it
/// returns is performed here once the lock is released.
final class LiveRun<Context: Sendable>: RunMonitor, InputReceiving, MapReporting, EventSource {
  private typealias State = LiveRunState

  let graph: Graph<Context>
  let observer: RunObserver?
  /// Everything only a logged run needs, in one allocation that a run nobody logs does not
  /// make (it pays for this reference only).
  let logging: LiveRunLogging<Context>?
  /// Whether the run makes each event as it reports it: it has an observer or a log.
  let isExpected: Bool
  /// Whether anything reads the run's events (``Interest``), and where the top-level flow
  /// records its events while only subscribers read them, in one word read without the
  /// lock. Its low bits are ``Interest``'s: while they are 0, the top-level flow's control
  /// does not raise ``RunControl/Flags/reports``, so its boundaries report nothing (a
  /// decision reported anyway, by a parked flow going on, returns at once). The rest is the
  /// address of the run's ``TopFlowEvents``, made (and retained by this word, for the run's
  /// life) when the first subscriber subscribes, in the same store as
  /// ``Interest/subscribed``: while only subscribers read the run's events, the top-level
  /// flow reports its entries and decisions there, without the lock (see
  /// ``recordTopFlow(_:value:at:in:)``).
  let interest: AtomicWord<UInt>
  /// The run's clock: its events' times count from the run's start, its snapshots take
  /// their wall-clock time from it.
  let clock: RunClock
  /// Everything mutable but the result; `state` rather than a lock's usual name, as the
  /// run's code reads `state.withLock` where `state` is no parameter.
  let state: Lock<LiveRunState>
  /// The run's result once it has ended, and the tasks awaiting it until then.
  private let ending = Lock<Ending>(Ending())
  /// Where the run's failed flows stopped, for a retry.
  let resumePoints = ResumePoints<Context>()

  /// A run on `clock`, made when the run starts: its events' times count from then.
  init(
    graph: Graph<Context>, isPaused: Bool, observer: RunObserver?,
    loggedContext: Context?, log options: RunLog.Options = .standard, clock: RunClock
  ) {
    self.graph = graph
    self.observer = observer
    self.clock = clock
    logging = loggedContext.map { LiveRunLogging(context: $0, options: options) }
    isExpected = observer != nil || loggedContext != nil
    interest = AtomicWord(isExpected ? Interest.expected : 0)
    state = Lock(State(machine: LiveRunStateMachine(isPaused: isPaused)))
  }

  /// Whether the run keeps a log.
  var isLogged: Bool { logging != nil }

  /// Time since the run started, by the run's clock.
  @inline(__always)
  func elapsed() -> Duration { clock.elapsed() }

  /// The wall-clock time by the run's clock, for the time a snapshot is taken.
  var wallClockNow: @Sendable () -> WallClockTime {
    let clock = clock
    return { clock.wallClockNow() }
  }

  var log: RunLog {
    guard let logging else { return RunLog(lines: []) }
    return state.withLock { logging.recorder(in: &$0) { $0.log } }
  }

  /// A live run's result, and who awaits it.
  private struct Ending {
    var result: Result<RunResult<Context>, RunError>?
    var waiters: [CheckedContinuation<Result<RunResult<Context>, RunError>, Never>] = []
  }

  // MARK: - Handle

  var isPaused: Bool { state.withLock { $0.machine.isPaused } }
  var hasEnded: Bool { state.withLock { $0.machine.hasEnded } }
  /// Whether the run may be retried or restarted.
  var retryVerdict: LiveRunStateMachine<LiveRunTypes>.RetryVerdict {
    state.withLock { $0.machine.retry() }
  }

  var positions: [StateID] {
    state.withLock { state in
      settlePositions(in: &state)
      return state.machine.positions.states.map(StateID.init)
    }
  }

  /// What reads a live run's events, as the low bits of ``interest``.
  enum Interest {
    /// The run has an observer or a log: it makes every event.
    static var expected: UInt { 1 << 0 }
    /// A subscriber's stream was made (and may still read): the run records every event.
    /// Never lowered, so a subscription made while the run goes is seen at the flow's next
    /// boundary at the latest, and any boundary that happens after it (by a lock, a
    /// continuation or a task) sees it.
    static var subscribed: UInt { 1 << 1 }
    /// The bits that say what reads the events; the others are the address of the run's
    /// ``TopFlowEvents`` (an object, aligned to more than these bits).
    static var mask: UInt { 0b11 }
  }

  deinit {
    // The run's `TopFlowEvents`, retained by `interest` since the first subscription.
    let address = interest.load(ordering: .acquiring) & ~Interest.mask
    if address != 0 {
      Unmanaged<TopFlowEvents>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
        .release()
    }
  }

  /// Moves the position the top-level flow stored without the lock (in its control's
  /// ``RunControl/position``, while its boundaries report nothing) into the machine's
  /// positions; called under the lock, first in every section that reads or sets them, so
  /// that a position stored before one set under the lock never replaces it.
  func settlePositions(in locked: inout LiveRunState) {
    guard let control = locked.topControl else { return }
    var position = control.position.load(ordering: .relaxed)
    while position >= 0 {
      let (taken, stored) = control.position.compareExchange(
        expected: position, desired: -1, ordering: .relaxed)
      if taken {
        locked.machine.enter(Int32(truncatingIfNeeded: position), flow: 0)
        return
      }
      position = stored
    }
  }

  func pause() {
    state.withLock { locked in
      switch locked.machine.pause() {
      case .none: break
      case .raisePauseFlags: locked.setPaused(true)
      }
    }
  }

  func resume() {
    let (waking, delivering, start, held) = state.withLock {
      locked -> (
        [CheckedContinuation<Void, Never>],
        [(CheckedContinuation<(any Sendable)?, Never>, any Sendable)],
        LiveRunStateMachine<LiveRunTypes>.StartTask?, HeldStart?
      ) in
      switch locked.machine.resume() {
      case .none: return ([], [], nil, nil)
      case .lowerPauseFlags(let waking, let delivering):
        // The flows woken take back the positions they left once they run (or a snapshot
        // takes them back first: see `LiveRunState.takeBackWokenPositions()`).
        // A snapshot still waiting for the flows holds them at their next boundary.
        locked.setPaused(!locked.snapshots.waiters.isEmpty)
        // The first resume of a run held at its start makes its first task.
        return (waking, delivering, nil, locked.takeHeldStart())
      case .lowerPauseFlagsAndStart(let start):
        locked.setPaused(false)
        return ([], [], start, nil)
      }
    }
    for waiter in waking { waiter.resume() }
    for (waiter, value) in delivering { waiter.resume(returning: value) }
    if let held { startHeld(held) }
    // A flow parked at a delay whose deadline passed while the run was paused goes on.
    if let start { startTask(start) }
  }

  /// The run's result, once it has ended; waiting is not cancelled with the waiting task,
  /// as waiting for a task's value is not.
  func result() async -> Result<RunResult<Context>, RunError> {
    await withCheckedContinuation { continuation in
      let result = ending.withLock { ending in
        if ending.result == nil { ending.waiters.append(continuation) }
        return ending.result
      }
      if let result { continuation.resume(returning: result) }
    }
  }

  /// Cancels the run: its task, or, when the top-level flow is parked, a new task that
  /// goes on from there already cancelled. Does nothing once the run has ended.
  func cancel() {
    let (action, held) = state.withLock { ($0.machine.cancel(), $0.takeHeldStart()) }
    // A run held at its start that never started: its first task starts, cancelled, and
    // ends the run as one that waited at its start gate did.
    if let held { startHeld(held) }
    perform(action)
  }

  /// Keeps the first task of a run started paused, `body`, to be made only when the run is
  /// first resumed, cancelled or abandoned: until then the held run costs no task. A
  /// snapshot, `send` and `result` need none (the start is kept by `keepStart`, a value
  /// sent waits in the mailbox, the result's waiters wait).
  ///
  /// The task is detached from whoever resumes the run, at `priority` (the priority of the
  /// task that started the run), as a parked flow's task is (see ``startTask(_:)``); `body`
  /// sets the run's task-local values itself.
  func holdStart(priority: TaskPriority?, _ body: @escaping @Sendable () async -> Void) {
    state.withLock { $0.holdStart(HeldStart(priority: priority, body: body)) }
  }

  /// Makes the first task of a run held at its start, which waits at its start gate (or
  /// goes through it, when the run was resumed), and adopts it.
  private func startHeld(_ held: HeldStart) {
    let body = held.body
    adopt(Task.detached(priority: held.priority) { await body() }, number: 0)
  }

  /// Makes `task` the run's task, unless the flow it runs parked or ended since, or
  /// another task runs it now; cancels it if the run was cancelled meanwhile.
  func adopt(_ task: Task<Void, Never>, number: Int) {
    switch state.withLock({ $0.machine.adopt(task, number: number) }) {
    case .none: break
    case .cancelTask(let task): task.cancel()
    }
  }

  /// Performs what a cancellation left to do, after the lock is released.
  func perform(_ action: LiveRunStateMachine<LiveRunTypes>.CancelAction) {
    switch action {
    case .none: break
    case .cancelTask(let task): task.cancel()
    case .startTask(let start): startTask(start)
    }
  }

  func events(bufferingNewest limit: Int) -> RunEventStream {
    let limit = max(limit, 1)
    // A run that ended has nothing more to append: the stream ends at once.
    let reader = state.withLock { locked in
      if interest.load(ordering: .relaxed) & ~Interest.mask == 0 {
        // Retained by the word until the run goes (see `deinit`); stored with the
        // subscribed bit, so a flow that sees the bit sees the ring (releasing: made before).
        let address = UInt(bitPattern: Unmanaged.passRetained(TopFlowEvents()).toOpaque())
        precondition(address & Interest.mask == 0, "an object's address is aligned")
        interest.bitwiseOr(address | Interest.subscribed, ordering: .releasing)
      } else {
        // The reader takes only what is reported from now on.
        _ = takeTopFlowEvents(in: &locked)
        interest.bitwiseOr(Interest.subscribed, ordering: .relaxed)
      }
      for control in locked.controls { control.reportEvents() }
      return locked.events.subscribe(limit: limit)
    }
    // The stream holds the run anyway: a weak reference would only make every retain of the
    // run take the slow path through a side table.
    let subscription = EventSubscription { self.unsubscribe(reader) }
    return RunEventStream(source: self, reader: reader, limit: limit, subscription: subscription)
  }

  // MARK: - Run

  /// The run's first task passed the start gate (or had none): reports the run's start.
  func started(at first: Int32) {
    emit(.runStarted, at: first, flow: 0) { $0.machine.start() }
  }

  /// Ends the run: reports its result, then finishes every stream.
  func finish(_ result: Result<RunResult<Context>, RunError>) {
    let payload: RunEvent.Kind
    let state: Int32?
    var suffix = ""
    var succeeded = false
    switch result {
    case .success(let result):
      succeeded = true
      let outcome = result.outcome.map { ", outcome \($0)" } ?? ""
      payload = .runFinished(result.decision)
      state = Int32(result.finalState.index)
      suffix = "\(outcome), after \(result.stepCount) states"
    case .failure(let error):
      payload = .runFailed(error)
      state = error.state.map { Int32($0.index) }
    }
    let (reported, readers, snapshotWaiters) = self.state.withLock { locked in
      settlePositions(in: &locked)
      locked.machine.end(succeeded: succeeded)
      let reported = publish(payload: payload, at: state, flow: 0, in: &locked, logging: suffix)
      locked.controls = []
      locked.topControl = nil
      let readers = locked.events.finish()
      setWakeAt(in: &locked)
      // A run that never kept anything for snapshots has nothing to let go.
      let snapshotWaiters =
        locked.hasSnapshotRequests ? endedForSnapshots(in: &locked) : (waiters: [], holders: [])
      return (reported, readers, snapshotWaiters)
    }
    for reader in readers { reader.resume() }
    var delivered = reported
    delivered.wakes = false
    deliver(delivered, payload: payload)
    let waiters = ending.withLock { ending in
      ending.result = result
      defer { ending.waiters = [] }
      return ending.waiters
    }
    for waiter in waiters { waiter.resume(returning: result) }
    for holder in snapshotWaiters.holders { holder.resume() }
    for waiter in snapshotWaiters.waiters { waiter.resume(returning: nil) }
  }

  /// Waits until the run is resumed, reporting nothing: a run started paused.
  func waitForStart() async {
    await wait(before: nil, flow: 0)
  }

  // MARK: - RunMonitor

  func register(_ control: RunControl) {
    state.withLock { state in
      state.controls.append(control)
      if control.flags.contains(.parks) { state.topControl = control }
      if interest.load(ordering: .relaxed) != 0 { control.reportEvents() }
      if state.machine.isPaused { control.setPaused(true) }
      // A snapshot asked for before the control existed holds its flows too.
      if !state.snapshots.waiters.isEmpty { control.setPaused(true) }
    }
  }

  func unregister(_ control: RunControl) {
    state.withLock { state in
      if let index = state.controls.lastIndex(where: { $0 === control }) {
        state.controls.remove(at: index)
      }
    }
  }

  func entered(_ state: Int32, flow: Int32) {
    // Only subscribers read the events: the top-level flow's position is in its control's
    // word (stored by the boundary), and its entry goes to its ring, without the lock.
    if flow == 0,
      withTopFlowEventsIfOnlySubscribed({ recordTopFlow(.entered, at: state, in: $0) }) != nil
    {
      return
    }
    let reported = self.state.withLock { locked in
      settlePositions(in: &locked)
      locked.machine.enter(state, flow: flow)
      return publish(.entered, at: state, flow: flow, in: &locked)
    }
    if _slowPath(reported.needsDelivery) { deliver(reported) }
  }

  func decided<C>(_ state: Int32, flow: Int32, outcome: Outcome, context: borrowing C) {
    // Nobody reads the events: a decision changes nothing else.
    let interest = self.interest.load(ordering: .relaxed)
    if interest == 0 { return }
    let tag: EventTag
    var value: Int32 = 0
    switch outcome {
    case .next: tag = .decidedDone
    case .yes: tag = .decidedYes
    case .no: tag = .decidedNo
    case .selected(let target):
      // The exit's label is the reader's to work out.
      tag = .decidedExit
      value = target
    }
    if _slowPath(isLogged) {
      emitLogged(tag, value: value, at: state, flow: flow, context: context)
      return
    }
    // Only subscribers read the events: the top-level flow's decision goes to its ring,
    // without the lock.
    if interest & Interest.mask == Interest.subscribed, flow == 0,
      withTopFlowEventsIfOnlySubscribed({ recordTopFlow(tag, value: value, at: state, in: $0) })
        != nil
    {
      return
    }
    let reported = self.state.withLock { locked in
      publish(tag, value: value, at: state, flow: flow, in: &locked)
    }
    if _slowPath(reported.needsDelivery) { deliver(reported) }
  }

  func decided<C>(
    _ state: Int32, flow: Int32, key: any Hashable & Sendable, context: borrowing C
  ) {
    if interest.load(ordering: .relaxed) == 0 { return }
    let kind = RunEvent.Kind.stateDecided(.key(key))
    if isLogged {
      emitLogged(.payload, payload: kind, at: state, flow: flow, context: context)
    } else {
      emit(kind, at: state, flow: flow)
    }
  }

  func failed(_ state: Int32, flow: Int32, error: RunError) {
    emit(.stateFailed(error), at: state, flow: flow)
  }

  func waitWhilePaused(before state: Int32, flow: Int32, tookPosition: Bool) async {
    var takingBack: PositionTakeBack? = nil
    if tookPosition {
      takingBack = { (locked: inout LiveRunState) in locked.tookBackPosition(flow: flow) }
    }
    await wait(before: state, flow: flow, takingBack: takingBack)
  }

  func waitWhilePaused(
    before state: Int32, flow: Int32, takingBack: PositionTakeBack?, isReported: Bool = true
  ) async {
    await wait(before: state, flow: flow, takingBack: takingBack, isReported: isReported)
  }

  func dispatchStarted(_ state: Int32, flow: Int32) {
    emit(.dispatchStarted, at: state, flow: flow)
  }

  func branchStarted<C>(
    _ index: Int, of dispatch: Int32, from flow: Int32, context: borrowing C
  ) -> Int32 {
    let (branch, reported) = state.withLock { locked in
      let branch = locked.machine.startBranch(at: dispatch)
      branchRuns(branch, index: index, of: dispatch, from: flow, in: &locked)
      return (
        branch,
        publish(.branchStarted, value: Int32(index), at: dispatch, flow: branch, in: &locked)
      )
    }
    if reported.needsDelivery { deliver(reported) }
    if let logging, let context = copy context as? Context {
      logging.contexts.withLock { $0[branch] = context }
    }
    return branch
  }

  func branchEnded(_ index: Int, of dispatch: Int32, flow: Int32) {
    var snapshotWaits = false
    emit(.branchEnded(index), at: dispatch, flow: flow) {
      $0.machine.endBranch(flow)
      snapshotWaits = !$0.snapshots.waiters.isEmpty
    }
    if let logging { logging.contexts.withLock { $0[flow] = nil } }
    // A snapshot waiting for the branches may take the dispatch now.
    if snapshotWaits { snapshotMayStand() }
  }

  func dispatchJoined(_ state: Int32, flow: Int32) {
    emit(.dispatchJoined, at: state, flow: flow)
  }

  func modifierEvent(_ kind: RunEvent.Kind, at state: Int32, flow: Int32) {
    emit(kind, at: state, flow: flow)
  }

  // MARK: - Pausing

  /// Waits while the run is paused, reporting ``RunEvent/Kind/paused`` and
  /// ``RunEvent/Kind/resumed`` before `boundary` unless `isReported` is `false` (a flow
  /// standing at a delay whose deadline passed, which reported it waits until then); a `nil`
  /// boundary is the start gate of a run started paused, and reports nothing. A cancelled task stops waiting at once, and
  /// reports no resumption. With `takingBack`, the flow takes back the position it left
  /// with the run for a snapshot (see `LiveRun+Snapshot.swift`): in the lock section in
  /// which it finds the run not paused, or, once ``resume()`` woke it (or, cancelled, it
  /// stopped waiting), in the first lock section it takes, unless a snapshot took it back
  /// before (`LiveRunState.takeBackWokenPositions()`). A snapshot never finds it standing
  /// at a boundary it goes on from.
  private func wait(
    before boundary: Int32?, flow: Int32, takingBack: PositionTakeBack? = nil,
    isReported: Bool = true
  ) async {
    let wait = state.withLock { $0.machine.beginWait() }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let (action, reported) = state.withLock { locked in
          settlePositions(in: &locked)
          let action = locked.machine.suspend(
            wait, waiter: continuation, before: boundary, flow: flow)
          switch action {
          case .resumeNow:
            takingBack?(&locked)
            return (action, ReportedEvent())
          case .waits:
            if let takingBack { locked.snapshots.pauseWaits[wait] = takingBack }
            guard let boundary, isReported else { return (action, ReportedEvent()) }
            return (action, publish(.paused, at: boundary, flow: flow, in: &locked))
          }
        }
        deliver(reported)
        switch action {
        case .resumeNow(let waiter): waiter.resume()
        case .waits(let cancel): perform(cancel)
        }
      }
    } onCancel: {
      state.withLock { $0.machine.cancelPauseWait(wait) }?.resume()
    }
    let reported = state.withLock { locked -> ReportedEvent in
      // Taken back here, unless a snapshot took it back first.
      if let takingBack = locked.takePauseWait(wait) {
        takingBack(&locked)
      }
      guard locked.machine.endWait(wait), let boundary, isReported else {
        return ReportedEvent()
      }
      return publish(.resumed, at: boundary, flow: flow, in: &locked)
    }
    deliver(reported)
  }
}

// MARK: - Abandonment

extension LiveRun {
  /// Every handle of the run is gone (see `RunHandle+Lifetime.swift`): cancels the run now
  /// if a flow waits, paused or for input (or is parked), and marks it so that a flow that
  /// comes to wait cancels it.
  func abandon() {
    let (action, held) = state.withLock { ($0.machine.abandon(), $0.takeHeldStart()) }
    // A held run that never started: its task comes to the start gate, where a run whose
    // handles are all gone is cancelled.
    if let held { startHeld(held) }
    perform(action)
  }
}

/// The first task of a live run held at its start, before it is made (see
/// ``LiveRun/holdStart(priority:_:)``). A class, so that the run's `resume()` takes it (or
/// finds none) with a pointer's load and store.
final class HeldStart: Sendable {
  /// The priority of the task that started the run.
  let priority: TaskPriority?
  /// The task's body.
  let body: @Sendable () async -> Void

  init(priority: TaskPriority?, body: @escaping @Sendable () async -> Void) {
    self.priority = priority
    self.body = body
  }
}

/// What a live run keeps only once it needs it: its snapshot requests (see
/// `LiveRun+Snapshot.swift`) and the first task of a run held at its start. Made at first
/// use (``LiveRunState/snapshots`` changed, ``LiveRunState/holdStart(_:)``), so that a run
/// that needs neither pays one word in its locked state rather than a dozen tables there.
final class LiveRunExtras {
  /// The run's snapshot requests, and what they are served from.
  var snapshots = SnapshotRequests()
  /// The first task of a run held at its start, until it is made.
  var heldStart: HeldStart?
}

// `LiveRunExtras` is `Sendable`: it is made and reached only through ``LiveRunState``'s
// private `extras`, and every `LiveRunState` of a run lives in the run's `Lock` (`state`),
// whose `withLock` holds the mutex for the whole access. So its `var`s are read and written
// only under that one lock, never by two threads at once, and what they hold is `Sendable`.
extension LiveRunExtras: @unchecked Sendable {}
