/// What a live run's lock protects. Not generic over the context, like everything a
/// boundary touches, so that reporting a boundary needs no generic metadata at run time
/// (the monitor is called through an existential, so it is not specialized).
struct LiveRunState {
  /// The events waiting for the subscribers' streams, and the subscribers.
  var events = EventLog()
  /// Whether ``RunHandle/pause()`` was called and ``RunHandle/resume()`` not since.
  var isPaused: Bool
  /// Whether a run started paused still waits for its first ``RunHandle/resume()``: a gate
  /// that opens once, so a `pause()` right after that `resume()` pauses at the first
  /// boundary (and says so) rather than holding the run at its start.
  var isHeldAtStart = false
  /// Whether the run ended; then nothing changes any more.
  var hasEnded = false
  /// The controls of the run's flows: the top level's and those of running dispatches (an
  /// array: a run has few at once, and a dictionary would cost each run an allocation more).
  var controls: [RunControl] = []
  /// Flows waiting at a boundary while paused, by wait number.
  var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
  /// Waits that started and have not ended; a cancelled one leaves this set at once.
  var pendingWaits: Set<Int> = []
  /// Waits that found the run paused and waited.
  var waited: Set<Int> = []
  var nextWait = 0
  /// The state each running flow is at, by flow number.
  var positions = FlowPositions()
  /// The time and flow of the last event, when it was a state's decision: the state that
  /// flow enters next, at the same boundary, reports the same time rather than read the
  /// clock again.
  var lastDecision: (flow: Int32, time: Duration)?
  var nextFlow: Int32 = 1
  /// The run log, when one was asked for.
  var log: RunLogRecorder?
  /// Values sent to waiting states the run has not reached yet (or not consumed), by
  /// state: the first value sent wins until the state takes it.
  var inputs: [Int32: any Sendable] = [:]
  /// Flows waiting at a state for a value, by state, with their wait number.
  var inputWaiters:
    [Int32: (wait: Int, continuation: CheckedContinuation<(any Sendable)?, Never>)] =
      [:]
  /// Whether every handle is gone (see `RunHandle+Lifetime.swift`): a flow that comes to
  /// wait cancels the run.
  var isAbandoned = false
  /// Whether ``RunHandle/cancel()`` was called (or the run was abandoned while waiting):
  /// every task that runs the top-level flow from then on is cancelled.
  var isCancelRequested = false
  /// Whether the top-level flow is parked, or unwinding to park (see `ParkedFlow.swift`).
  var parking = Parking.running
  /// A value sent to the state the top-level flow was parked at, handed to the flow that
  /// goes on from there as it would have been to a flow waiting in its task: not kept in
  /// ``inputs``, so a second value sent meanwhile is kept for the state's next visit.
  var handedOver: (state: Int32, value: any Sendable)?
  /// The task running the top-level flow, once it is known; `nil` while the flow is parked
  /// and once the run has ended.
  var task: Task<Void, Never>?
  /// Numbers the tasks that run the top-level flow, so that a task that parked (or ended)
  /// before it was recorded is never recorded.
  var taskNumber = 0
}

/// The state each running flow of a live run is at, by flow number: flows are numbered
/// densely from 0 as they start, so an array indexed by flow.
struct FlowPositions {
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

/// The shared state of a live run: its subscribers, whether it is paused, its flows'
/// positions, and the controls it pauses. The run loop reports to it through
/// ``RunMonitor`` at each boundary; the ``RunHandle`` drives it.
///
/// Everything mutable is behind one lock, held only to update the state and record events
/// for the subscribers' streams (which never block: each has a bounded buffer, see
/// ``EventLog``). Callbacks and continuations are called after the lock is released, so
/// they may call the handle.
final class LiveRun<Context: Sendable>: RunMonitor, InputReceiving, EventSource {
  private typealias State = LiveRunState

  let graph: Graph<Context>
  private let observer: RunObserver?
  /// For a logged run: the context each flow had after its last state, to show what the
  /// next one changed.
  private let loggedContexts: Lock<[Int32: Context]>
  private let isLogged: Bool
  /// Where a logged run writes each line of its log, and the lock that lets one flow at a
  /// time write (see ``writeLog()``).
  private let logSink: (any RunLogSink)?
  private let logWriting = Lock(())
  /// Whether the run makes each event as it reports it: it has an observer or a log.
  private let isExpected: Bool
  /// Time since the run started, by the run's clock.
  private let elapsed: @Sendable () -> Duration
  /// Everything mutable but the result; `state` rather than a lock's usual name, as the
  /// run's code reads `state.withLock` where `state` is no parameter.
  let state: Lock<LiveRunState>
  /// The run's result once it has ended, and the tasks awaiting it until then.
  private let ending = Lock<Ending>(Ending())
  /// Where the run's failed flows stopped, for a retry.
  let resumePoints = ResumePoints<Context>()

  init(
    graph: Graph<Context>, isPaused: Bool, observer: RunObserver?,
    loggedContext: Context?, log options: RunLog.Options = .standard,
    elapsed: @escaping @Sendable () -> Duration
  ) {
    self.graph = graph
    self.observer = observer
    self.elapsed = elapsed
    var state = State(isPaused: isPaused)
    state.isHeldAtStart = isPaused
    if loggedContext != nil { state.log = RunLogRecorder(options) }
    logSink = loggedContext != nil ? options.sink : nil
    isLogged = loggedContext != nil
    isExpected = observer != nil || loggedContext != nil
    loggedContexts = Lock(loggedContext.map { [0: $0] } ?? [:])
    self.state = Lock(state)
  }

  var log: RunLog { state.withLock { $0.log?.log ?? RunLog(lines: []) } }

  /// A live run's result, and who awaits it.
  private struct Ending {
    var result: Result<RunResult<Context>, RunError>?
    var waiters: [CheckedContinuation<Result<RunResult<Context>, RunError>, Never>] = []
  }

  // MARK: - Handle

  var isPaused: Bool { state.withLock { $0.isPaused && !$0.hasEnded } }
  var hasEnded: Bool { state.withLock { $0.hasEnded } }

  var positions: [StateID] {
    state.withLock { state in
      state.positions.states.map(StateID.init)
    }
  }

  func pause() {
    state.withLock { state in
      guard !state.hasEnded, !state.isPaused else { return }
      state.isPaused = true
      for control in state.controls { control.setPaused(true) }
    }
  }

  func resume() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard state.isPaused else { return [] }
      state.isPaused = false
      state.isHeldAtStart = false
      for control in state.controls { control.setPaused(false) }
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
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
    var unparks: (() -> Void)?
    let task = state.withLock { locked -> Task<Void, Never>? in
      guard !locked.hasEnded else { return nil }
      locked.isCancelRequested = true
      unparks = unpark(at: nil, in: &locked)
      return locked.task
    }
    task?.cancel()
    unparks?()
  }

  /// Makes `task` the run's task, unless the flow it runs parked or ended since, or
  /// another task runs it now; cancels it if the run was cancelled meanwhile.
  func adopt(_ task: Task<Void, Never>, number: Int) {
    let cancels = state.withLock { locked -> Bool in
      guard !locked.hasEnded, locked.taskNumber == number else { return false }
      if case .parked = locked.parking { return false }
      locked.task = task
      return locked.isCancelRequested
    }
    if cancels { task.cancel() }
  }

  func events(bufferingNewest limit: Int) -> RunEventStream {
    let limit = max(limit, 1)
    // A run that ended has nothing more to append: the stream ends at once.
    let reader = state.withLock { $0.events.subscribe(limit: limit) }
    // The stream holds the run anyway: a weak reference would only make every retain of the
    // run take the slow path through a side table.
    let subscription = EventSubscription { self.unsubscribe(reader) }
    return RunEventStream(source: self, reader: reader, limit: limit, subscription: subscription)
  }

  // MARK: - Run

  func started(at first: Int32) {
    emit(.runStarted, at: first, flow: 0)
  }

  /// Ends the run: reports its result, then finishes every stream.
  func finish(_ result: Result<RunResult<Context>, RunError>) {
    let payload: RunEvent.Kind
    let state: Int32?
    var suffix = ""
    switch result {
    case .success(let result):
      let outcome = result.outcome.map { ", outcome \($0)" } ?? ""
      payload = .runFinished(result.decision)
      state = Int32(result.finalState.index)
      suffix = "\(outcome), after \(result.stepCount) states"
    case .failure(let error):
      payload = .runFailed(error)
      state = error.state.map { Int32($0.index) }
    }
    var reported = self.state.withLock { locked in
      locked.hasEnded = true
      return publish(payload: payload, at: state, flow: 0, in: &locked, logging: suffix)
    }
    let readers = self.state.withLock { state in
      defer {
        state.controls = []
        state.positions = FlowPositions()
        state.isPaused = false
        state.task = nil
      }
      return state.events.finish()
    }
    for reader in readers { reader.resume() }
    reported.wakes = false
    deliver(reported, payload: payload)
    let waiters = ending.withLock { ending in
      ending.result = result
      defer { ending.waiters = [] }
      return ending.waiters
    }
    for waiter in waiters { waiter.resume(returning: result) }
  }

  /// Waits until the run is resumed, reporting nothing: a run started paused.
  func waitForStart() async {
    await wait(before: nil, flow: 0)
  }

  // MARK: - RunMonitor

  func register(_ control: RunControl) {
    state.withLock { state in
      state.controls.append(control)
      if state.isPaused { control.setPaused(true) }
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
    let reported = self.state.withLock { locked in
      locked.positions[flow] = state
      return publish(.entered, at: state, flow: flow, in: &locked)
    }
    if _slowPath(reported.needsDelivery) { deliver(reported) }
  }

  func decided<C>(_ state: Int32, flow: Int32, outcome: Outcome, context: borrowing C) {
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
    let reported = self.state.withLock { locked in
      publish(tag, value: value, at: state, flow: flow, in: &locked)
    }
    if _slowPath(reported.needsDelivery) { deliver(reported) }
  }

  func decided<C>(
    _ state: Int32, flow: Int32, key: any Hashable & Sendable, context: borrowing C
  ) {
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

  func waitWhilePaused(before state: Int32, flow: Int32) async {
    await wait(before: state, flow: flow)
  }

  func dispatchStarted(_ state: Int32, flow: Int32) {
    emit(.dispatchStarted, at: state, flow: flow)
  }

  func branchStarted<C>(
    _ index: Int, of dispatch: Int32, from flow: Int32, context: borrowing C
  ) -> Int32 {
    let (branch, reported) = state.withLock { locked in
      let branch = locked.nextFlow
      locked.nextFlow += 1
      locked.positions[branch] = dispatch
      return (
        branch,
        publish(.branchStarted, value: Int32(index), at: dispatch, flow: branch, in: &locked)
      )
    }
    if reported.needsDelivery { deliver(reported) }
    if isLogged, let context = copy context as? Context {
      loggedContexts.withLock { $0[branch] = context }
    }
    return branch
  }

  func branchEnded(_ index: Int, of dispatch: Int32, flow: Int32) {
    emit(.branchEnded(index), at: dispatch, flow: flow) { $0.positions[flow] = nil }
    if isLogged { loggedContexts.withLock { $0[flow] = nil } }
  }

  func dispatchJoined(_ state: Int32, flow: Int32) {
    emit(.dispatchJoined, at: state, flow: flow)
  }

  func modifierEvent(_ kind: RunEvent.Kind, at state: Int32, flow: Int32) {
    emit(kind, at: state, flow: flow)
  }

  // MARK: - Events

  /// Wakes the subscribers `reported` says wait, and calls the observer with the event
  /// (`payload` is its kind, for a record tagged ``EventTag/payload``): after the lock is
  /// released, since both may call the handle.
  private func deliver(_ reported: ReportedEvent, payload: RunEvent.Kind? = nil) {
    if reported.logs { writeLog() }
    if reported.wakes {
      for reader in state.withLock({ $0.events.wakeReaders() }) { reader.resume() }
    }
    if let record = reported.observed, let observer {
      observer.report(event(from: record, payload: payload))
    }
  }

  /// Reports an event of `kind`, after `update`, under the lock, so every subscriber sees
  /// the events in the same order and each time is no earlier than the one before.
  private func emit(
    _ kind: RunEvent.Kind, at state: Int32?, flow: Int32,
    update: (inout State) -> Void = { _ in }
  ) {
    let (tag, value, payload) = Self.record(of: kind)
    let reported = self.state.withLock { locked in
      update(&locked)
      if let payload { return publish(payload: payload, at: state, flow: flow, in: &locked) }
      return publish(tag, value: value, at: state, flow: flow, in: &locked)
    }
    if reported.needsDelivery { deliver(reported, payload: payload) }
  }

  /// Reports a state's decision in a logged run, which shows what the state changed in
  /// `context`.
  ///
  /// Generic code, out of line: only a logged run goes there, so that a run nobody logs
  /// instantiates no generic metadata at each decision.
  @inline(never)
  private func emitLogged<C>(
    _ tag: EventTag, value: Int32 = 0, payload: RunEvent.Kind? = nil, at state: Int32,
    flow: Int32, context: borrowing C
  ) {
    var changes: [String] = []
    if let context = copy context as? Context {
      let before = loggedContexts.withLock { contexts in
        defer { contexts[flow] = context }
        return contexts[flow]
      }
      changes = before.map { RunLog.changes(from: $0, to: context) } ?? []
    }
    let reported = self.state.withLock { locked in
      let reported =
        if let payload {
          publish(payload: payload, at: state, flow: flow, in: &locked)
        } else {
          publish(tag, value: value, at: state, flow: flow, in: &locked)
        }
      locked.log?.append(contentsOf: changes.map { RunLog.continuation + $0 })
      return reported
    }
    if reported.needsDelivery { deliver(reported, payload: payload) }
  }

  /// Records an event for the subscribers, and makes it for the log and the observer; called
  /// under the lock.
  ///
  /// A subscriber's stream builds its events from the records; only a run with an observer
  /// or a log makes each event here. For an event whose kind carries more than a number, see
  /// ``publish(payload:at:flow:in:logging:)``.
  private func publish(
    _ tag: EventTag, value: Int32 = 0, at state: Int32?, flow: Int32, in locked: inout State
  ) -> ReportedEvent {
    // Nobody listens: only the positions (updated by the caller) matter.
    guard isExpected || locked.events.hasReaders else { return ReportedEvent() }
    let record = stamp(
      tag, value: value, at: state, flow: flow, decides: tag.isDecision, in: &locked)
    var reported = ReportedEvent()
    if locked.events.hasReaders { reported.wakes = locked.events.append(record) }
    if _slowPath(isExpected) { expect(record, payload: nil, in: &locked, reported: &reported) }
    return reported
  }

  /// ``publish(_:value:at:flow:in:)`` for an event whose kind the log keeps whole, beside a
  /// record tagged ``EventTag/payload``.
  @inline(never)
  private func publish(
    payload: RunEvent.Kind, at state: Int32?, flow: Int32, in locked: inout State,
    logging suffix: String = ""
  ) -> ReportedEvent {
    guard isExpected || locked.events.hasReaders else { return ReportedEvent() }
    var decides = false
    if case .stateDecided = payload { decides = true }
    let record = stamp(.payload, value: 0, at: state, flow: flow, decides: decides, in: &locked)
    var reported = ReportedEvent()
    if locked.events.hasReaders { reported.wakes = locked.events.append(record, payload: payload) }
    if isExpected {
      expect(record, payload: payload, logging: suffix, in: &locked, reported: &reported)
    }
    return reported
  }

  /// The record of an event, timed: a state entered right after its flow's decision takes
  /// the decision's time rather than read the clock again.
  @inline(__always)
  private func stamp(
    _ tag: EventTag, value: Int32, at state: Int32?, flow: Int32, decides: Bool,
    in locked: inout State
  ) -> EventRecord {
    let time: Duration
    if tag == .entered, let last = locked.lastDecision, last.flow == flow {
      time = last.time
    } else {
      time = elapsed()
    }
    locked.lastDecision = decides ? (flow, time) : nil
    return EventRecord(time: time, state: state ?? -1, flow: flow, tag: tag, value: value)
  }

  /// Writes the log's line of `record`, and keeps it for the observer.
  @inline(never)
  private func expect(
    _ record: EventRecord, payload: RunEvent.Kind?, logging suffix: String = "",
    in locked: inout State, reported: inout ReportedEvent
  ) {
    if locked.log != nil {
      locked.log?.record(self.event(from: record, payload: payload), suffix: suffix)
      reported.logs = logSink != nil
    }
    if observer != nil { reported.observed = record }
  }

  /// The tag, number and payload that record an event of `kind`.
  private static func record(of kind: RunEvent.Kind) -> (EventTag, Int32, RunEvent.Kind?) {
    switch kind {
    case .runStarted: (.runStarted, 0, nil)
    case .stateEntered: (.entered, 0, nil)
    case .dispatchStarted: (.dispatchStarted, 0, nil)
    case .branchStarted(let index): (.branchStarted, Int32(index), nil)
    case .branchEnded(let index): (.branchEnded, Int32(index), nil)
    case .dispatchJoined: (.dispatchJoined, 0, nil)
    case .waitingForInput: (.waitingForInput, 0, nil)
    case .paused: (.paused, 0, nil)
    case .resumed: (.resumed, 0, nil)
    case .branchSkipped(let index): (.branchSkipped, Int32(index), nil)
    case .branchCancelled(let index): (.branchCancelled, Int32(index), nil)
    case .stateDecided(let decision):
      if decision == .done {
        (.decidedDone, 0, nil)
      } else if decision == .yes {
        (.decidedYes, 0, nil)
      } else if decision == .no {
        (.decidedNo, 0, nil)
      } else {
        (.payload, 0, kind)
      }
    case .stateFailed, .runFinished, .runFailed, .attemptFailed, .retrying, .caught,
      .branchFailed:
      (.payload, 0, kind)
    }
  }

  /// The event `record` stands for; `payload` is its kind when it is tagged
  /// ``EventTag/payload``.
  func event(from record: EventRecord, payload: RunEvent.Kind?) -> RunEvent {
    RunEvent(record: record, details: EventDetails(source: self, payload: payload))
  }

  func kind(of record: EventRecord, payload: RunEvent.Kind?) -> RunEvent.Kind {
    switch record.tag {
    case .runStarted: .runStarted
    case .entered: .stateEntered
    case .decidedDone: .stateDecided(.done)
    case .decidedYes: .stateDecided(.yes)
    case .decidedNo: .stateDecided(.no)
    case .decidedExit:
      .stateDecided(
        .key(
          graph.storedExits(of: Int(record.state)).first { $0.target == record.value }
            .map { $0.label.label(keyLabels: graph.keyLabels).description } ?? ""))
    case .dispatchStarted: .dispatchStarted
    case .branchStarted: .branchStarted(Int(record.value))
    case .branchEnded: .branchEnded(Int(record.value))
    case .dispatchJoined: .dispatchJoined
    case .waitingForInput: .waitingForInput
    case .paused: .paused
    case .resumed: .resumed
    case .branchSkipped: .branchSkipped(Int(record.value))
    case .branchCancelled: .branchCancelled(Int(record.value))
    // A record tagged `payload` is always kept with its kind.
    case .payload: payload ?? .runStarted
    }
  }

  func stateName(of state: Int32) -> String {
    graph.records.indices.contains(Int(state)) ? graph.records[Int(state)].name : ""
  }

  func withEventLog<Result>(_ body: (inout EventLog) -> Result) -> Result {
    state.withLock { body(&$0.events) }
  }

  // MARK: - Input

  func receive(for slot: InputSlot) async -> ReceivedInput {
    // The flow that asks is at the waiting state (it entered it before the state's code
    // ran): the first flow at a state with this slot. A scan of the running flows, not of
    // the chart, and no table kept per run. None is when the state is in another chart,
    // one that a subflow or a map of this run runs.
    let found = state.withLock { locked in
      locked.positions.firstFlow { graph.records[Int($0)].attachment === slot }
    }
    guard let found else { return .unreachable }
    guard let value = await receiveInput(at: found.state, flow: found.flow) else {
      return .cancelled
    }
    return .value(value)
  }

  /// Checks that `value` may go to the state `states` names, then sends it.
  func send(_ value: any Sendable, toStateIn states: [Int32], named name: String) throws(InputError)
    -> Bool
  {
    guard states.count == 1, let state = states.first else {
      throw InputError(
        kind: states.isEmpty ? .unknownState : .ambiguousState, stateName: name,
        reason: states.isEmpty
          ? "No state of the chart is named \(DisplayText.quoted(name: name)): send the value to a waiting state (a Wait) by its name or ID."
          : "\(states.count) states are named \(DisplayText.quoted(name: name)): send the value by the state's ID, or rename them."
      )
    }
    let record = graph.records[Int(state)]
    guard let slot = record.attachment as? InputSlot else {
      throw InputError(
        kind: .notWaiting, stateName: name,
        reason:
          "\(record.kind.description.capitalizedFirst) \(DisplayText.quoted(name: record.name)) does not wait for input: send the value to a waiting state (a Wait)."
      )
    }
    guard slot.accepts(value) else {
      throw InputError(
        kind: .wrongType, stateName: name,
        reason:
          "Waiting state \(DisplayText.quoted(name: record.name)) waits for \(DisplayText.withArticle(typeName: "\(slot.inputType)")), not \(DisplayText.withArticle(typeName: "\(type(of: value))")): send \(DisplayText.withArticle(typeName: "\(slot.inputType)"))."
      )
    }
    return send(value, to: state)
  }

  /// Delivers `value` to the waiting state `state`: to the flow waiting there, or kept until
  /// a flow reaches it.
  ///
  /// - Returns: `false` when a value sent earlier is still waiting to be taken (the first
  ///   one wins) or the run has ended; `true` when `value` was delivered or kept.
  func send(_ value: any Sendable, to state: Int32) -> Bool {
    var unparks: (() -> Void)?
    let delivered = self.state.withLock {
      locked -> (Bool, CheckedContinuation<(any Sendable)?, Never>?) in
      guard !locked.hasEnded else { return (false, nil) }
      if let waiter = locked.inputWaiters.removeValue(forKey: state) {
        return (true, waiter.continuation)
      }
      if let unparking = unpark(at: state, in: &locked) {
        // A flow parked at the state goes on, in a task of its own, and takes the value.
        locked.handedOver = (state, value)
        unparks = unparking
        return (true, nil)
      }
      guard locked.inputs[state] == nil else { return (false, nil) }
      locked.inputs[state] = value
      return (true, nil)
    }
    delivered.1?.resume(returning: value)
    unparks?()
    return delivered.0
  }

  /// Whether the top-level flow parks at the waiting state `state`, having entered it: no
  /// value has come for it, and the run is not cancelled. Then reports
  /// ``RunEvent/Kind/waitingForInput`` (see `ParkedFlow.swift`).
  func parks(at state: Int32, flow: Int32) -> Bool {
    let reported = self.state.withLock { locked -> ReportedEvent? in
      guard locked.inputs[state] == nil, !locked.isCancelRequested else { return nil }
      locked.parking = .unwinding(state: state)
      return publish(.waitingForInput, at: state, flow: flow, in: &locked)
    }
    guard let reported else { return false }
    deliver(reported)
    return true
  }

  func receiveInput(at state: Int32, flow: Int32) async -> (any Sendable)? {
    let wait = self.state.withLock { locked in
      locked.nextWait += 1
      locked.pendingWaits.insert(locked.nextWait)
      return locked.nextWait
    }
    let value = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<(any Sendable)?, Never>) in
        let (immediate, reported) = self.state.withLock {
          locked -> ((any Sendable)??, ReportedEvent) in
          if let handed = locked.handedOver, handed.state == state {
            locked.handedOver = nil
            return (.some(handed.value), .init())
          }
          if let value = locked.inputs.removeValue(forKey: state) { return (.some(value), .init()) }
          guard locked.pendingWaits.contains(wait) else { return (.some(nil), .init()) }
          locked.inputWaiters[state] = (wait, continuation)
          return (.none, publish(.waitingForInput, at: state, flow: flow, in: &locked))
        }
        if let immediate { continuation.resume(returning: immediate) }
        deliver(reported)
        if immediate == nil { cancelIfAbandoned() }
      }
    } onCancel: {
      let waiter = self.state.withLock { locked -> CheckedContinuation<(any Sendable)?, Never>? in
        locked.pendingWaits.remove(wait)
        guard let waiter = locked.inputWaiters[state], waiter.wait == wait else { return nil }
        locked.inputWaiters[state] = nil
        return waiter.continuation
      }
      waiter?.resume(returning: nil)
    }
    _ = self.state.withLock { $0.pendingWaits.remove(wait) }
    return value
  }

  // MARK: - Pausing

  /// Waits while the run is paused, reporting ``RunEvent/Kind/paused`` and
  /// ``RunEvent/Kind/resumed`` before `boundary`; a `nil` boundary reports nothing (a run
  /// started paused). A cancelled task stops waiting at once, and reports no resumption.
  private func wait(before boundary: Int32?, flow: Int32) async {
    let wait = state.withLock { state in
      state.nextWait += 1
      state.pendingWaits.insert(state.nextWait)
      return state.nextWait
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let (isWaiting, reported) = state.withLock { locked -> (Bool, ReportedEvent) in
          let isHeld = boundary == nil ? locked.isHeldAtStart : locked.isPaused
          guard isHeld, locked.pendingWaits.contains(wait) else { return (false, .init()) }
          locked.waiters[wait] = continuation
          locked.waited.insert(wait)
          guard let boundary else { return (true, .init()) }
          locked.positions[flow] = boundary
          return (true, publish(.paused, at: boundary, flow: flow, in: &locked))
        }
        deliver(reported)
        if isWaiting { cancelIfAbandoned() } else { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.pendingWaits.remove(wait)
        return state.waiters.removeValue(forKey: wait)
      }
      waiter?.resume()
    }
    let reported = state.withLock { locked -> ReportedEvent in
      let didWait = locked.waited.remove(wait) != nil
      let wasResumed = locked.pendingWaits.remove(wait) != nil
      guard didWait, wasResumed, let boundary else { return ReportedEvent() }
      return publish(.resumed, at: boundary, flow: flow, in: &locked)
    }
    deliver(reported)
  }
}

// MARK: - Dispatch outcomes

extension LiveRun {
  /// Reports events of kinds no ``RunMonitor`` call names, in order: the outcomes of a
  /// dispatch's branches that did not succeed.
  func report(_ kinds: [RunEvent.Kind], at state: Int32, flow: Int32) {
    for kind in kinds { emit(kind, at: state, flow: flow) }
  }
}

/// What reporting an event under a live run's lock leaves to do once the lock is released.
/// Plain values, so that a boundary copies and destroys nothing to carry it out of the lock.
private struct ReportedEvent: BitwiseCopyable {
  /// Whether a subscriber waits for as many events as there now are.
  var wakes = false
  /// The event's record, when the run has an observer to call with the event.
  var observed: EventRecord?
  /// Whether the event wrote lines for the run log's sink.
  var logs = false

  var needsDelivery: Bool { wakes || observed != nil || logs }
}

extension EventTag {
  /// Whether the tag records a state's decision.
  fileprivate var isDecision: Bool {
    switch self {
    case .decidedDone, .decidedYes, .decidedNo, .decidedExit: true
    case .runStarted, .entered, .dispatchStarted, .branchStarted, .branchEnded, .dispatchJoined,
      .waitingForInput, .paused, .resumed, .branchSkipped, .branchCancelled, .payload:
      false
    }
  }
}

// MARK: - Log sink

extension LiveRun {
  /// Hands the log's sink the lines it has not taken yet, in order, after the run's lock is
  /// released: one flow at a time (the others wait, so the lines waiting stay few).
  ///
  /// A writing session goes on until no line waits. A call from inside the sink (or from a
  /// task the sink started, which inherits its task-local value) while that session goes on
  /// leaves its lines to the session rather than wait for the lock it holds, so the sink
  /// may call the handle: the session checks for lines after the sink returns, and ends only
  /// when it finds none, under the run's lock, so no line is left behind.
  private func writeLog() {
    guard let logSink else { return }
    if let writing = RunLogWriting.current, writing.run == ObjectIdentifier(self),
      state.withLock({ $0.log?.session == writing.session })
    {
      return
    }
    logWriting.withLock { _ in
      guard let session = state.withLock({ $0.log?.beginSession() }) else { return }
      RunLogWriting.$current.withValue(RunLogWriting(run: ObjectIdentifier(self), session: session))
      {
        while true {
          let lines = state.withLock { $0.log?.takePending() ?? [] }
          if lines.isEmpty { return }
          for line in lines { logSink.write(line) }
        }
      }
    }
  }
}

/// The run log writing session the current task is in, if any: inside a sink's
/// ``RunLogSink/write(_:)``, or in a task started from there.
private struct RunLogWriting: Sendable {
  @TaskLocal static var current: RunLogWriting?
  /// The run whose log is written.
  var run: ObjectIdentifier
  /// The session's number in that run.
  var session: Int
}

// MARK: - Abandonment

extension LiveRun {
  /// Every handle of the run is gone (see `RunHandle+Lifetime.swift`): cancels the run now
  /// if a flow waits, paused or for input (or is parked), and marks it so that a flow that
  /// comes to wait cancels it.
  func abandon() {
    let isWaiting = state.withLock { locked in
      guard !locked.hasEnded else { return false }
      locked.isAbandoned = true
      if case .parked = locked.parking { return true }
      return !locked.waiters.isEmpty || !locked.inputWaiters.isEmpty
    }
    if isWaiting { cancel() }
  }

  /// A flow has just registered as waiting, paused or for input: cancels the run if every
  /// handle is gone. Called without the lock held: the cancellation ends the wait under it.
  private func cancelIfAbandoned() {
    if state.withLock({ $0.isAbandoned }) { cancel() }
  }
}
